package pgarrow

import (
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Binary numeric sign words.
const (
	numericPos  = 0x0000
	numericNeg  = 0x4000
	numericNaN  = 0xC000
	numericPInf = 0xD000
	numericNInf = 0xF000
)

// numeric is a decoded binary numeric: base-10000 digits, the base-10000
// exponent of the first digit, the sign word and the display scale.
type numeric struct {
	digits []byte // raw big-endian int16 digits, 2 bytes each
	weight int
	sign   uint16
	dscale int
}

func parseNumeric(v []byte) (numeric, error) {
	if len(v) < 8 {
		return numeric{}, errLen("at least 8", len(v))
	}
	n := numeric{
		weight: int(int16(be.Uint16(v[2:]))),
		sign:   be.Uint16(v[4:]),
		dscale: int(be.Uint16(v[6:])),
	}
	nd := int(int16(be.Uint16(v)))
	if nd < 0 || len(v) != 8+2*nd {
		return numeric{}, errLen("8 + 2×ndigits", len(v))
	}
	n.digits = v[8:]
	switch n.sign {
	case numericPos, numericNeg, numericNaN, numericPInf, numericNInf:
	default:
		return numeric{}, &valueError{"invalid numeric sign word " + strconv.Itoa(int(n.sign))}
	}
	for i := 0; i < nd; i++ {
		if be.Uint16(n.digits[2*i:]) > 9999 {
			return numeric{}, &valueError{"invalid numeric digit"}
		}
	}
	return n, nil
}

func (n numeric) digit(i int) uint64 {
	if i < 0 || 2*i >= len(n.digits) {
		return 0
	}
	return uint64(be.Uint16(n.digits[2*i:]))
}

// appendText appends the value as numeric_out prints it.
func (n numeric) appendText(dst []byte) []byte {
	switch n.sign {
	case numericNaN:
		return append(dst, "NaN"...)
	case numericPInf:
		return append(dst, "Infinity"...)
	case numericNInf:
		return append(dst, "-Infinity"...)
	case numericNeg:
		dst = append(dst, '-')
	}
	if n.weight < 0 {
		dst = append(dst, '0')
	} else {
		for i := 0; i <= n.weight; i++ {
			d := n.digit(i)
			if i == 0 {
				dst = strconv.AppendUint(dst, d, 10)
			} else {
				dst = append(dst, byte('0'+d/1000), byte('0'+d/100%10), byte('0'+d/10%10), byte('0'+d%10))
			}
		}
	}
	if n.dscale > 0 {
		dst = append(dst, '.')
		for i, left := n.weight+1, n.dscale; left > 0; i++ {
			d := n.digit(i)
			g := [4]byte{byte('0' + d/1000), byte('0' + d/100%10), byte('0' + d/10%10), byte('0' + d%10)}
			k := min(left, 4)
			dst = append(dst, g[:k]...)
			left -= k
		}
	}
	return dst
}

type numericTextCol struct {
	b   *array.StringBuilder
	buf []byte
}

func (c *numericTextCol) builder() array.Builder { return c.b }

// dataSize bounds the text form from the header: sign, the integer digits
// (4 per base-10000 digit of weight ≥ 0), point, dscale fractional digits.
func (c *numericTextCol) dataSize(v []byte) int64 {
	if len(v) < 8 {
		return 16
	}
	weight := int64(int16(be.Uint16(v[2:])))
	dscale := int64(be.Uint16(v[6:]))
	return 16 + 4*max(weight+1, 1) + dscale + 2*int64(len(v))
}
func (c *numericTextCol) append(v []byte) error {
	n, err := parseNumeric(v)
	if err != nil {
		return err
	}
	c.buf = n.appendText(c.buf[:0])
	c.b.BinaryBuilder.Append(c.buf)
	return nil
}

// u128 is an unsigned 128-bit integer.
type u128 struct{ hi, lo uint64 }

// mulAdd returns x*m + a and whether it overflowed.
func (x u128) mulAdd(m, a uint64) (u128, bool) {
	h1, l := bits.Mul64(x.lo, m)
	h2, hl := bits.Mul64(x.hi, m)
	if h2 != 0 {
		return u128{}, true
	}
	hi, c := bits.Add64(h1, hl, 0)
	if c != 0 {
		return u128{}, true
	}
	lo, c := bits.Add64(l, a, 0)
	hi, c = bits.Add64(hi, 0, c)
	if c != 0 {
		return u128{}, true
	}
	return u128{hi, lo}, false
}

func (x u128) less(y u128) bool { return x.hi < y.hi || (x.hi == y.hi && x.lo < y.lo) }

func pow10u128(p int32) u128 {
	x := u128{0, 1}
	for i := int32(0); i < p; i++ {
		x, _ = x.mulAdd(10, 0)
	}
	return x
}

type numericDecCol struct {
	b                *array.Decimal128Builder
	precision, scale int32
	limit            u128 // 10^precision
	outOfRange, nan  Policy
	buf              []byte
}

func (c *numericDecCol) builder() array.Builder { return c.b }

func (c *numericDecCol) append(v []byte) error {
	n, err := parseNumeric(v)
	if err != nil {
		return err
	}
	if c.limit == (u128{}) {
		c.limit = pow10u128(c.precision)
	}
	switch n.sign {
	case numericNaN:
		if c.nan == PolicyNull {
			c.b.AppendNull()
			return nil
		}
		return &valueError{"value NaN cannot be stored in decimal128(" + strconv.Itoa(int(c.precision)) + "," + strconv.Itoa(int(c.scale)) + ")"}
	case numericPInf, numericNInf:
		return c.overflow(n, n.sign == numericNInf)
	}
	// Accumulate the value scaled by 10^scale, group by group; exp is the
	// scaled decimal exponent of the unit of the last group taken.
	var acc u128
	exp := 0
	for i, nd := 0, len(n.digits)/2; i < nd; i++ {
		d := n.digit(i)
		e := 4*(n.weight-i) + int(c.scale)
		var of bool
		switch {
		case e >= 0:
			acc, of = acc.mulAdd(10000, d)
			exp = e
		case e > -4:
			p := pow10small[-e]
			if d%p != 0 {
				return c.inexact(n)
			}
			acc, of = acc.mulAdd(10000/p, d/p)
			exp = 0
		case d != 0:
			return c.inexact(n)
		}
		if of {
			return c.overflow(n, n.sign == numericNeg)
		}
	}
	for ; exp > 0 && acc != (u128{}); exp-- {
		var of bool
		if acc, of = acc.mulAdd(10, 0); of {
			return c.overflow(n, n.sign == numericNeg)
		}
	}
	if !acc.less(c.limit) {
		return c.overflow(n, n.sign == numericNeg)
	}
	d := decimal128.New(int64(acc.hi), acc.lo)
	if n.sign == numericNeg {
		d = d.Negate()
	}
	c.b.Append(d)
	return nil
}

var pow10small = [4]uint64{1, 10, 100, 1000}

// inexact handles a value with more fractional digits than the scale.
func (c *numericDecCol) inexact(n numeric) error {
	if c.outOfRange == PolicyNull {
		c.b.AppendNull()
		return nil
	}
	c.buf = n.appendText(c.buf[:0])
	return &valueError{"value " + string(c.buf) + " has more than " + strconv.Itoa(int(c.scale)) + " fractional digits"}
}

// overflow handles a value whose magnitude exceeds the precision.
func (c *numericDecCol) overflow(n numeric, neg bool) error {
	switch c.outOfRange {
	case PolicyNull:
		c.b.AppendNull()
		return nil
	case PolicyClamp:
		m := c.limit
		if m.lo == 0 {
			m.hi--
		}
		m.lo--
		d := decimal128.New(int64(m.hi), m.lo)
		if neg {
			d = d.Negate()
		}
		c.b.Append(d)
		return nil
	}
	c.buf = n.appendText(c.buf[:0])
	return errRange(string(c.buf) + " (decimal128(" + strconv.Itoa(int(c.precision)) + "," + strconv.Itoa(int(c.scale)) + "))")
}
