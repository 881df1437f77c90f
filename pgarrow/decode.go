package pgarrow

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// column decodes the binary (or, for text columns, text) wire form of one
// non-null value and appends it to its builder. Nulls are appended by the
// caller through builder().AppendNull().
type column interface {
	append(v []byte) error
	builder() array.Builder
}

// varColumn is a column whose Arrow type has 32-bit offsets (string,
// binary, list). dataSize returns an upper bound of what appending the
// non-null wire value v adds to the offsets' range: data bytes for strings
// and binary; for lists, elements plus the data bytes of their variable-
// length elements. Malformed values may return anything: append reports
// them.
type varColumn interface {
	column
	dataSize(v []byte) int64
}

// valueError is a decoding error; the reader adds the column name and type.
type valueError struct{ msg string }

func (e *valueError) Error() string { return e.msg }

func errLen(want string, got int) error {
	return &valueError{fmt.Sprintf("invalid binary value: %d bytes, want %s", got, want)}
}

func errRange(what string) error {
	return &valueError{"value " + what + " out of range"}
}

var be = binary.BigEndian

type boolCol struct{ b *array.BooleanBuilder }

func (c *boolCol) builder() array.Builder { return c.b }
func (c *boolCol) append(v []byte) error {
	if len(v) != 1 {
		return errLen("1", len(v))
	}
	c.b.Append(v[0] != 0)
	return nil
}

type int16Col struct{ b *array.Int16Builder }

func (c *int16Col) builder() array.Builder { return c.b }
func (c *int16Col) append(v []byte) error {
	if len(v) != 2 {
		return errLen("2", len(v))
	}
	c.b.Append(int16(be.Uint16(v)))
	return nil
}

type int32Col struct{ b *array.Int32Builder }

func (c *int32Col) builder() array.Builder { return c.b }
func (c *int32Col) append(v []byte) error {
	if len(v) != 4 {
		return errLen("4", len(v))
	}
	c.b.Append(int32(be.Uint32(v)))
	return nil
}

type uint32Col struct{ b *array.Uint32Builder }

func (c *uint32Col) builder() array.Builder { return c.b }
func (c *uint32Col) append(v []byte) error {
	if len(v) != 4 {
		return errLen("4", len(v))
	}
	c.b.Append(be.Uint32(v))
	return nil
}

type int64Col struct{ b *array.Int64Builder }

func (c *int64Col) builder() array.Builder { return c.b }
func (c *int64Col) append(v []byte) error {
	if len(v) != 8 {
		return errLen("8", len(v))
	}
	c.b.Append(int64(be.Uint64(v)))
	return nil
}

type float32Col struct{ b *array.Float32Builder }

func (c *float32Col) builder() array.Builder { return c.b }
func (c *float32Col) append(v []byte) error {
	if len(v) != 4 {
		return errLen("4", len(v))
	}
	c.b.Append(math.Float32frombits(be.Uint32(v)))
	return nil
}

type float64Col struct{ b *array.Float64Builder }

func (c *float64Col) builder() array.Builder { return c.b }
func (c *float64Col) append(v []byte) error {
	if len(v) != 8 {
		return errLen("8", len(v))
	}
	c.b.Append(math.Float64frombits(be.Uint64(v)))
	return nil
}

// textCol holds text-like values: the binary form of text, varchar,
// bpchar, name, json and enums is their UTF-8 text, as is any text-format
// column.
type textCol struct{ b *array.StringBuilder }

func (c *textCol) builder() array.Builder { return c.b }
func (c *textCol) append(v []byte) error {
	c.b.BinaryBuilder.Append(v)
	return nil
}

func (c *textCol) dataSize(v []byte) int64 { return int64(len(v)) }

type byteaCol struct{ b *array.BinaryBuilder }

func (c *byteaCol) builder() array.Builder { return c.b }
func (c *byteaCol) append(v []byte) error {
	c.b.Append(v)
	return nil
}

func (c *byteaCol) dataSize(v []byte) int64 { return int64(len(v)) }

// charCol holds the single-byte "char" type, formatted like charout: the
// byte itself if ASCII, "" for \0, else a backslash and three octal digits.
type charCol struct {
	b   *array.StringBuilder
	buf [4]byte
}

func (c *charCol) builder() array.Builder { return c.b }
func (c *charCol) append(v []byte) error {
	switch {
	case len(v) == 0 || v[0] == 0:
		c.b.BinaryBuilder.Append(nil)
	case len(v) > 1:
		return errLen("1", len(v))
	case v[0] < 0x80:
		c.b.BinaryBuilder.Append(v)
	default:
		c.buf = [4]byte{'\\', '0' + v[0]>>6, '0' + (v[0]>>3)&7, '0' + v[0]&7}
		c.b.BinaryBuilder.Append(c.buf[:])
	}
	return nil
}

func (c *charCol) dataSize([]byte) int64 { return 4 }

// jsonbCol strips the version byte (1) of binary jsonb.
type jsonbCol struct{ b *array.StringBuilder }

func (c *jsonbCol) builder() array.Builder { return c.b }
func (c *jsonbCol) append(v []byte) error {
	if len(v) == 0 || v[0] != 1 {
		return &valueError{"unsupported binary jsonb version"}
	}
	c.b.BinaryBuilder.Append(v[1:])
	return nil
}

func (c *jsonbCol) dataSize(v []byte) int64 { return int64(len(v)) }

// PostgreSQL counts dates and timestamps from 2000-01-01; Arrow from 1970.
const (
	pgEpochDays   = 10957
	pgEpochMicros = pgEpochDays * 86400 * 1000000
)

type dateCol struct {
	b      *array.Date32Builder
	policy Policy
}

func (c *dateCol) builder() array.Builder { return c.b }
func (c *dateCol) append(v []byte) error {
	if len(v) != 4 {
		return errLen("4", len(v))
	}
	d := int32(be.Uint32(v))
	switch d {
	case math.MaxInt32:
		return c.outOfRange("infinity", math.MaxInt32)
	case math.MinInt32:
		return c.outOfRange("-infinity", math.MinInt32)
	}
	// PostgreSQL's date range (4713 BC .. 5874897 AD) shifted by the epoch
	// difference fits in int32.
	c.b.Append(arrow.Date32(d + pgEpochDays))
	return nil
}

func (c *dateCol) outOfRange(what string, clamp int32) error {
	switch c.policy {
	case PolicyNull:
		c.b.AppendNull()
		return nil
	case PolicyClamp:
		c.b.Append(arrow.Date32(clamp))
		return nil
	}
	return errRange(what)
}

// microsPerDay bounds Arrow's time64[µs]: values lie in [0, microsPerDay).
const microsPerDay = 86400 * 1000000

type timeCol struct {
	b      *array.Time64Builder
	policy Policy
}

func (c *timeCol) builder() array.Builder { return c.b }
func (c *timeCol) append(v []byte) error {
	if len(v) != 8 {
		return errLen("8", len(v))
	}
	t := int64(be.Uint64(v))
	if t < 0 || t >= microsPerDay {
		// PostgreSQL allows 24:00:00, which Arrow's time of day does not.
		var what string
		if t == microsPerDay {
			what = "24:00:00"
		} else {
			what = strconv.FormatInt(t, 10) + "µs after midnight"
		}
		switch c.policy {
		case PolicyNull:
			c.b.AppendNull()
			return nil
		case PolicyClamp:
			c.b.Append(arrow.Time64(min(max(t, 0), microsPerDay-1)))
			return nil
		}
		return errRange(what)
	}
	c.b.Append(arrow.Time64(t))
	return nil
}

type timestampCol struct {
	b      *array.TimestampBuilder
	policy Policy
}

func (c *timestampCol) builder() array.Builder { return c.b }
func (c *timestampCol) append(v []byte) error {
	if len(v) != 8 {
		return errLen("8", len(v))
	}
	t := int64(be.Uint64(v))
	switch {
	case t == math.MaxInt64:
		return c.outOfRange("infinity", math.MaxInt64)
	case t == math.MinInt64:
		return c.outOfRange("-infinity", math.MinInt64)
	case t > math.MaxInt64-pgEpochMicros:
		// Past 294247-01-10 04:00:54.775807 UTC, which PostgreSQL
		// allows but int64 microseconds since 1970 cannot hold.
		return c.outOfRange(strconv.FormatInt(t, 10)+"µs after 2000-01-01", math.MaxInt64)
	}
	c.b.Append(arrow.Timestamp(t + pgEpochMicros))
	return nil
}

func (c *timestampCol) outOfRange(what string, clamp int64) error {
	switch c.policy {
	case PolicyNull:
		c.b.AppendNull()
		return nil
	case PolicyClamp:
		c.b.Append(arrow.Timestamp(clamp))
		return nil
	}
	return errRange(what)
}

type intervalCol struct {
	b      *array.MonthDayNanoIntervalBuilder
	policy Policy
}

func (c *intervalCol) builder() array.Builder { return c.b }
func (c *intervalCol) append(v []byte) error {
	if len(v) != 16 {
		return errLen("16", len(v))
	}
	us := int64(be.Uint64(v))
	days := int32(be.Uint32(v[8:]))
	months := int32(be.Uint32(v[12:]))
	if us > math.MaxInt64/1000 || us < math.MinInt64/1000 {
		switch c.policy {
		case PolicyNull:
			c.b.AppendNull()
			return nil
		case PolicyClamp:
			ns := int64(math.MaxInt64)
			if us < 0 {
				ns = math.MinInt64
			}
			c.b.Append(arrow.MonthDayNanoInterval{Months: months, Days: days, Nanoseconds: ns})
			return nil
		}
		return errRange(strconv.FormatInt(us, 10) + "µs (nanoseconds overflow int64)")
	}
	c.b.Append(arrow.MonthDayNanoInterval{Months: months, Days: days, Nanoseconds: us * 1000})
	return nil
}

type uuidCol struct{ b *array.FixedSizeBinaryBuilder }

func (c *uuidCol) builder() array.Builder { return c.b }
func (c *uuidCol) append(v []byte) error {
	if len(v) != 16 {
		return errLen("16", len(v))
	}
	c.b.Append(v)
	return nil
}

// inetCol formats inet and cidr values in PostgreSQL's text form.
type inetCol struct {
	b   *array.StringBuilder
	buf []byte
}

// dataSize bounds the text form: "ffff:…:ffff/128" is 43 bytes.
func (c *inetCol) dataSize([]byte) int64 { return 64 }

func (c *inetCol) builder() array.Builder { return c.b }
func (c *inetCol) append(v []byte) error {
	s, err := appendInet(c.buf[:0], v)
	if err != nil {
		return err
	}
	c.buf = s
	c.b.BinaryBuilder.Append(s)
	return nil
}

// appendInet appends the text form of a binary inet/cidr value: family
// (2 = IPv4, 3 = IPv6), prefix bits, is_cidr, address length, address.
func appendInet(dst, v []byte) ([]byte, error) {
	if len(v) < 4 || len(v) != 4+int(v[3]) {
		return dst, errLen("4 + address length", len(v))
	}
	family, bits, isCIDR, addr := v[0], int(v[1]), v[2] != 0, v[4:]
	var maxBits int
	switch {
	case family == 2 && len(addr) == 4:
		maxBits = 32
		dst = netip.AddrFrom4([4]byte(addr)).AppendTo(dst)
	case family == 3 && len(addr) == 16:
		maxBits = 128
		a := [16]byte(addr)
		if isIPv4Compatible(a) {
			// PostgreSQL (like BIND's inet_ntop) prints ::a.b.c.d.
			dst = append(dst, "::"...)
			dst = netip.AddrFrom4([4]byte(a[12:])).AppendTo(dst)
		} else {
			dst = netip.AddrFrom16(a).AppendTo(dst)
		}
	default:
		return dst, &valueError{fmt.Sprintf("invalid inet family %d with %d address bytes", family, len(addr))}
	}
	if bits > maxBits {
		return dst, &valueError{fmt.Sprintf("invalid inet prefix length %d", bits)}
	}
	if isCIDR || bits != maxBits {
		dst = append(dst, '/')
		dst = strconv.AppendInt(dst, int64(bits), 10)
	}
	return dst, nil
}

// isIPv4Compatible reports whether PostgreSQL prints a as ::a.b.c.d: the
// first 96 bits are zero and the longest zero run does not extend into the
// last 32 bits.
func isIPv4Compatible(a [16]byte) bool {
	for _, x := range a[:12] {
		if x != 0 {
			return false
		}
	}
	return a[12] != 0 || a[13] != 0
}

// listCol decodes one-dimensional arrays.
type listCol struct {
	b       *array.ListBuilder
	elem    column
	elemOID uint32
	lower   int32 // the lower bound every array must have: 1, or 0 for int2vector and oidvector
}

func (c *listCol) dataSize(v []byte) int64 {
	if len(v) < 20 {
		return 0
	}
	n := int64(int32(be.Uint32(v[12:])))
	ev, ok := c.elem.(varColumn)
	if !ok {
		return max(n, 0)
	}
	size := int64(0)
	p := v[20:]
	for i := int64(0); i < n && len(p) >= 4; i++ {
		l := int32(be.Uint32(p))
		p = p[4:]
		size++
		if l < 0 {
			continue
		}
		if int(l) > len(p) {
			break
		}
		size += ev.dataSize(p[:l])
		p = p[l:]
	}
	return size
}

func (c *listCol) builder() array.Builder { return c.b }
func (c *listCol) append(v []byte) error {
	if len(v) < 12 {
		return errLen("at least 12", len(v))
	}
	ndim := int32(be.Uint32(v))
	elemOID := be.Uint32(v[8:])
	switch {
	case ndim == 0:
		c.b.Append(true) // empty array
		return nil
	case ndim != 1:
		return &valueError{fmt.Sprintf("%d-dimensional array not supported (only 1-D arrays map to Arrow lists)", ndim)}
	case elemOID != c.elemOID:
		return &valueError{fmt.Sprintf("array element type %d, want %d", elemOID, c.elemOID)}
	case len(v) < 20:
		return errLen("at least 20", len(v))
	}
	n := int32(be.Uint32(v[12:]))
	if lb := int32(be.Uint32(v[16:])); lb != c.lower {
		return &valueError{fmt.Sprintf("array lower bound %d not supported (Arrow lists start at 1)", lb)}
	}
	if n < 0 {
		return &valueError{"negative array length"}
	}
	c.b.Append(true)
	vb := c.elem.builder()
	p := v[20:]
	for i := int32(0); i < n; i++ {
		if len(p) < 4 {
			return &valueError{"truncated array"}
		}
		l := int32(be.Uint32(p))
		p = p[4:]
		if l < 0 {
			vb.AppendNull()
			continue
		}
		if int(l) > len(p) {
			return &valueError{"truncated array element"}
		}
		if err := c.elem.append(p[:l]); err != nil {
			var ve *valueError
			if errors.As(err, &ve) {
				return &valueError{fmt.Sprintf("element %d: %s", i+1, ve.msg)}
			}
			return err
		}
		p = p[l:]
	}
	if len(p) != 0 {
		return &valueError{"trailing bytes after array"}
	}
	return nil
}
