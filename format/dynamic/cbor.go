package dynamic

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/internal/jsonv"
	"github.com/x448/float16"
)

// CBOR is a CBOR sequence (RFC 8742) of record batches' rows: each row one
// map from column names (text) to values, written and read by a
// hand-written encoder and pull decoder (definite lengths only).
type CBOR struct {
	schema *arrow.Schema
	o      Options
}

// NewCBOR returns CBOR for schema.
func NewCBOR(schema *arrow.Schema, o Options) (Format, error) {
	if err := checkSchema("cbor", schema, false); err != nil {
		return nil, err
	}
	return &CBOR{schema: schema, o: o}, nil
}

// Descriptor implements format.Format.
func (f *CBOR) Descriptor() format.Descriptor {
	return descriptor("cbor", "github.com/serbench/serbench/format/dynamic (hand-written)", format.GoVersion(),
		"CBOR sequence, rows as maps of column name to value, preferred (shortest) integer heads; float32 as "+
			"single, float64 as double precision; timestamps and times as integers in their unit, dates as integer days, "+
			"decimals as exact text; "+
			"text strings are not checked for valid UTF-8",
		format.LabelBinary, format.LabelRow, format.LabelHandwritten)
}

type cborSink struct{ buf []byte }

func (s *cborSink) head(major byte, arg uint64) {
	m := major << 5
	switch {
	case arg < 24:
		s.buf = append(s.buf, m|byte(arg))
	case arg <= math.MaxUint8:
		s.buf = append(s.buf, m|24, byte(arg))
	case arg <= math.MaxUint16:
		s.buf = binary.BigEndian.AppendUint16(append(s.buf, m|25), uint16(arg))
	case arg <= math.MaxUint32:
		s.buf = binary.BigEndian.AppendUint32(append(s.buf, m|26), uint32(arg))
	default:
		s.buf = binary.BigEndian.AppendUint64(append(s.buf, m|27), arg)
	}
}

func (s *cborSink) null(bool)    { s.buf = append(s.buf, 0xf6) }
func (s *cborSink) present(bool) {}
func (s *cborSink) boolean(v bool) {
	if v {
		s.buf = append(s.buf, 0xf5)
	} else {
		s.buf = append(s.buf, 0xf4)
	}
}
func (s *cborSink) i64(v int64) {
	if v >= 0 {
		s.head(0, uint64(v))
	} else {
		s.head(1, ^uint64(v))
	}
}
func (s *cborSink) u64(v uint64) error { s.head(0, v); return nil }
func (s *cborSink) f32(v float32) error {
	s.buf = binary.BigEndian.AppendUint32(append(s.buf, 0xfa), math.Float32bits(v))
	return nil
}
func (s *cborSink) f64(v float64) error {
	s.buf = binary.BigEndian.AppendUint64(append(s.buf, 0xfb), math.Float64bits(v))
	return nil
}
func (s *cborSink) str(v string) error {
	s.head(3, uint64(len(v)))
	s.buf = append(s.buf, v...)
	return nil
}
func (s *cborSink) bin(v []byte) {
	s.head(2, uint64(len(v)))
	s.buf = append(s.buf, v...)
}
func (s *cborSink) date(d int32) error                        { s.i64(int64(d)); return nil }
func (s *cborSink) timestamp(v int64, _ arrow.TimeUnit) error { s.i64(v); return nil }
func (s *cborSink) fixed(v []byte)                            { s.bin(v) }
func (s *cborSink) dec(v decimal128.Num, scale int32) error {
	return s.str(v.ToString(scale))
}
func (s *cborSink) beginRecord(n int)      { s.head(5, uint64(n)) }
func (s *cborSink) key(_ int, name string) { _ = s.str(name) }
func (s *cborSink) endRecord()             {}
func (s *cborSink) beginList(n int)        { s.head(4, uint64(n)) }
func (s *cborSink) endList(int)            {}

// NewEncoder implements format.Format.
func (f *CBOR) NewEncoder(w io.Writer) (format.Encoder[arrow.RecordBatch], error) {
	s := &cborSink{}
	return &rowEncoder{name: "cbor", schema: f.schema, w: w, buf: &s.buf, s: s}, nil
}

type cborSource struct {
	r       *bufio.Reader
	st      stack
	scratch []byte
}

// head reads an item head; an indefinite length (additional information
// 31) is an error here, where only a definite item may stand (numbers,
// tags, simple values).
func (s *cborSource) head() (major byte, arg uint64, err error) {
	major, arg, indef, err := s.headIndef()
	if err == nil && indef {
		return 0, 0, fmt.Errorf("%w: major type %d", errIndefinite, major)
	}
	return major, arg, err
}

// headIndef reads an item head and reports an indefinite length, which
// RFC 8949 §3.2.2 allows for byte and text strings, arrays and maps
// (Jackson's CBORGenerator writes every map so).
func (s *cborSource) headIndef() (major byte, arg uint64, indef bool, err error) {
	b, err := s.r.ReadByte()
	if err != nil {
		return 0, 0, false, err
	}
	major, info := b>>5, b&31
	var n int
	switch {
	case info < 24:
		return major, uint64(info), false, nil
	case info == 24:
		n = 1
	case info == 25:
		n = 2
	case info == 26:
		n = 4
	case info == 27:
		n = 8
	case info == 31 && major >= 2 && major <= 5:
		return major, 0, true, nil
	default:
		return 0, 0, false, fmt.Errorf("invalid CBOR head byte %#x", b)
	}
	var buf [8]byte
	if _, err := io.ReadFull(s.r, buf[8-n:]); err != nil {
		return 0, 0, false, err
	}
	return major, binary.BigEndian.Uint64(buf[:]), false, nil
}

// indefinite marks a container of indefinite length on the stack: it
// holds items until a break byte.
const indefinite = -1

// cborBreak ends an indefinite-length item.
const cborBreak = 0xff

// take consumes one item of the innermost container, or pops it and
// reports false when it is exhausted (a definite count reached, or the
// break of an indefinite one).
func (s *cborSource) take() (bool, error) {
	top := len(s.st) - 1
	if s.st[top] != indefinite {
		return s.st.take(), nil
	}
	b, err := s.r.Peek(1)
	if err != nil {
		return false, err
	}
	if b[0] == cborBreak {
		_, _ = s.r.ReadByte()
		s.st = s.st[:top]
		return false, nil
	}
	return true, nil
}

func (s *cborSource) want(major byte) (uint64, error) {
	m, arg, err := s.head()
	if err != nil {
		return 0, err
	}
	if m != major {
		return 0, fmt.Errorf("CBOR major type %d where %d was expected", m, major)
	}
	return arg, nil
}

func (s *cborSource) isNull(bool) (bool, error) {
	b, err := s.r.Peek(1)
	if err != nil {
		return false, err
	}
	if b[0] == 0xf6 {
		s.r.ReadByte()
		return true, nil
	}
	return false, nil
}
func (s *cborSource) boolean() (bool, error) {
	b, err := s.r.ReadByte()
	switch {
	case err != nil:
		return false, err
	case b == 0xf5:
		return true, nil
	case b == 0xf4:
		return false, nil
	}
	return false, fmt.Errorf("CBOR byte %#x where a boolean was expected", b)
}
func (s *cborSource) i64() (int64, error) {
	m, arg, err := s.head()
	if err != nil {
		return 0, err
	}
	if (m != 0 && m != 1) || arg > math.MaxInt64 {
		return 0, fmt.Errorf("CBOR item (major %d, argument %d) is not an int64", m, arg)
	}
	if m == 1 {
		return ^int64(arg), nil
	}
	return int64(arg), nil
}
func (s *cborSource) u64() (uint64, error) { return s.want(0) }
func (s *cborSource) float(tag byte, n int) (uint64, error) {
	b, err := s.r.ReadByte()
	if err != nil {
		return 0, err
	}
	if b != tag {
		return 0, fmt.Errorf("CBOR byte %#x where float head %#x was expected", b, tag)
	}
	var buf [8]byte
	if _, err := io.ReadFull(s.r, buf[8-n:]); err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(buf[:]), nil
}

// A CBOR float's width is the writer's choice, not the value's type (RFC
// 8949 §4.2.2 prefers the shortest that holds it): f32 and f64 take any
// width that holds the column's value exactly — a half float widened, a
// double narrowed only when exact (another language's writer widened the
// float32).

func (s *cborSource) f32() (float32, error) {
	b, err := s.r.Peek(1)
	if err == nil {
		switch b[0] {
		case 0xf9:
			v, err := s.float(0xf9, 2)
			return float16.Frombits(uint16(v)).Float32(), err
		case 0xfb:
			v, err := s.float(0xfb, 8)
			if err != nil {
				return 0, err
			}
			return narrowFloat32(math.Float64frombits(v))
		}
	}
	v, err := s.float(0xfa, 4)
	return math.Float32frombits(uint32(v)), err
}
func (s *cborSource) f64() (float64, error) {
	b, err := s.r.Peek(1)
	if err == nil {
		switch b[0] {
		case 0xf9:
			v, err := s.float(0xf9, 2)
			return float64(float16.Frombits(uint16(v)).Float32()), err
		case 0xfa:
			v, err := s.float(0xfa, 4)
			return float64(math.Float32frombits(uint32(v))), err
		}
	}
	v, err := s.float(0xfb, 8)
	return math.Float64frombits(v), err
}
func (s *cborSource) bytes(major byte) ([]byte, error) {
	m, n, indef, err := s.headIndef()
	if err != nil {
		return nil, err
	}
	if m != major {
		return nil, fmt.Errorf("CBOR major type %d where %d was expected", m, major)
	}
	if !indef {
		s.scratch = s.scratch[:0]
		return s.chunk(n)
	}
	// Definite-length chunks of the same major type until the break.
	s.scratch = s.scratch[:0]
	for {
		b, err := s.r.Peek(1)
		if err != nil {
			return nil, err
		}
		if b[0] == cborBreak {
			_, _ = s.r.ReadByte()
			return s.scratch, nil
		}
		n, err := s.want(major)
		if err != nil {
			return nil, fmt.Errorf("indefinite-length string: %w", err)
		}
		if _, err := s.chunk(n); err != nil {
			return nil, err
		}
	}
}

// chunk appends the next n bytes to s.scratch and returns it.
func (s *cborSource) chunk(n uint64) ([]byte, error) {
	have := uint64(len(s.scratch))
	if n > maxValueBytes || have+n > maxValueBytes {
		return nil, fmt.Errorf("value of %d bytes exceeds limit %d (corrupt length?)", have+n, maxValueBytes)
	}
	end := int(have + n)
	if cap(s.scratch) < end {
		grown := make([]byte, end)
		copy(grown, s.scratch)
		s.scratch = grown
	}
	s.scratch = s.scratch[:end]
	_, err := io.ReadFull(s.r, s.scratch[have:])
	return s.scratch, err
}
func (s *cborSource) str() ([]byte, error) { return s.bytes(3) }
func (s *cborSource) bin() ([]byte, error) { return s.bytes(2) }
func (s *cborSource) date() (int32, error) {
	if b, err := s.r.Peek(1); err == nil && b[0]>>5 == 6 {
		return s.taggedDate()
	}
	v, err := s.i64()
	if err == nil {
		err = intRange(v, 32)
	}
	return int32(v), err
}
func (s *cborSource) timestamp(unit arrow.TimeUnit) (int64, error) {
	b, err := s.r.Peek(1)
	if err != nil {
		return 0, err
	}
	switch b[0] {
	case 0xc0, 0xc1:
		return s.taggedTime(unit)
	}
	return s.i64()
}

// taggedDate reads a date written as RFC 8943's tag 100 (days since the
// epoch) or tag 1004 (2006-01-02 text), as cbor2 writes a datetime.date.
func (s *cborSource) taggedDate() (int32, error) {
	tag, err := s.want(6)
	if err != nil {
		return 0, err
	}
	switch tag {
	case 100:
		v, err := s.i64()
		if err == nil {
			err = intRange(v, 32)
		}
		return int32(v), err
	case 1004:
		text, err := s.str()
		if err != nil {
			return 0, err
		}
		return parseDate(text)
	}
	return 0, fmt.Errorf("CBOR tag %d where a date was expected (days, tag 100 or 1004)", tag)
}

// taggedTime reads a timestamp written as RFC 8949's tag 0 (RFC 3339 text)
// or tag 1 (seconds since the epoch, an integer or a float), as other
// languages' CBOR libraries write a datetime (cbor2, Jackson), in unit;
// one that does not fit unit exactly is an error. serbench's own writer
// writes timestamps as integers in their unit.
func (s *cborSource) taggedTime(unit arrow.TimeUnit) (int64, error) {
	tag, err := s.want(6)
	if err != nil {
		return 0, err
	}
	var t time.Time
	if tag == 0 {
		text, err := s.str()
		if err != nil {
			return 0, err
		}
		if t, err = time.Parse(time.RFC3339Nano, string(text)); err != nil {
			return 0, fmt.Errorf("CBOR tag 0: %w", err)
		}
	} else {
		b, err := s.r.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case 0xf9, 0xfa, 0xfb:
			f, err := s.f64()
			if err != nil {
				return 0, err
			}
			if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<62/1e9 {
				return 0, fmt.Errorf("CBOR tag 1: %v seconds is no timestamp", f)
			}
			sec := math.Floor(f)
			t = time.Unix(int64(sec), int64(math.Round((f-sec)*1e9)))
		default:
			sec, err := s.i64()
			if err != nil {
				return 0, err
			}
			t = time.Unix(sec, 0)
		}
	}
	return jsonv.TimeToUnit(t.UTC(), unit)
}
func (s *cborSource) fixed(int) ([]byte, error) { return s.bin() }
func (s *cborSource) dec(prec, scale int32) (decimal128.Num, error) {
	b, err := s.r.Peek(1)
	if err != nil {
		return decimal128.Num{}, err
	}
	if b[0]>>5 == 6 {
		return s.decimalFraction(prec, scale)
	}
	v, err := s.str()
	if err != nil {
		return decimal128.Num{}, err
	}
	return jsonv.ParseDecimal128(string(v), prec, scale)
}

// decimalFraction reads a decimal written as RFC 8949's decimal fraction
// (tag 4: [exponent, mantissa], the mantissa an integer or a bignum), as
// other languages' CBOR libraries write decimals (Python's cbor2), at the
// column's scale; more fraction digits than the scale, or more digits
// than its precision, is an error.
func (s *cborSource) decimalFraction(prec, scale int32) (decimal128.Num, error) {
	fail := func(format string, args ...any) (decimal128.Num, error) {
		return decimal128.Num{}, fmt.Errorf("CBOR decimal fraction: "+format, args...)
	}
	if tag, err := s.want(6); err != nil {
		return decimal128.Num{}, err
	} else if tag != 4 {
		return fail("tag %d where a decimal (text, or tag 4) was expected", tag)
	}
	if n, err := s.want(4); err != nil {
		return decimal128.Num{}, err
	} else if n != 2 {
		return fail("an array of %d items, not [exponent, mantissa]", n)
	}
	exp, err := s.i64()
	if err != nil {
		return decimal128.Num{}, err
	}
	mant, err := s.bigInt()
	if err != nil {
		return decimal128.Num{}, err
	}
	k := exp + int64(scale)
	if k < -76 || k > 76 {
		return fail("exponent %d is out of reach of scale %d", exp, scale)
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(max(k, -k)), nil)
	if k >= 0 {
		mant.Mul(mant, p)
	} else if _, r := mant.QuoRem(mant, p, new(big.Int)); r.Sign() != 0 {
		return fail("more fraction digits than the column's scale %d", scale)
	}
	if limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(prec)), nil); new(big.Int).Abs(mant).Cmp(limit) >= 0 {
		return fail("more digits than the column's precision %d", prec)
	}
	return decimal128.FromBigInt(mant), nil
}

// bigInt reads a CBOR integer or bignum (tags 2 and 3).
func (s *cborSource) bigInt() (*big.Int, error) {
	b, err := s.r.Peek(1)
	if err != nil {
		return nil, err
	}
	if b[0] != 0xc2 && b[0] != 0xc3 {
		m, arg, err := s.head()
		if err != nil {
			return nil, err
		}
		switch m {
		case 0:
			return new(big.Int).SetUint64(arg), nil
		case 1:
			v := new(big.Int).SetUint64(arg)
			return v.Neg(v.Add(v, big.NewInt(1))), nil
		}
		return nil, fmt.Errorf("CBOR item (major %d) is not an integer", m)
	}
	neg := b[0] == 0xc3
	_, _ = s.r.ReadByte()
	raw, err := s.bin()
	if err != nil {
		return nil, err
	}
	if len(raw) > 32 {
		return nil, fmt.Errorf("CBOR bignum of %d bytes, more than a decimal holds", len(raw))
	}
	v := new(big.Int).SetBytes(raw)
	if neg {
		v.Neg(v.Add(v, big.NewInt(1)))
	}
	return v, nil
}
func (s *cborSource) container(major byte) error {
	m, n, indef, err := s.headIndef()
	if err != nil {
		return err
	}
	if m != major {
		return fmt.Errorf("CBOR major type %d where %d was expected", m, major)
	}
	if indef {
		s.st.push(indefinite)
		return nil
	}
	if n > math.MaxInt32 {
		return fmt.Errorf("container of %d items (corrupt length?)", n)
	}
	s.st.push(int(n))
	return nil
}
func (s *cborSource) beginRecord(int) error { return s.container(5) }
func (s *cborSource) nextKey(names []string) (int, error) {
	if ok, err := s.take(); !ok || err != nil {
		return -1, err
	}
	k, err := s.str()
	if err != nil {
		return 0, err
	}
	return keyIndex(k, names)
}
func (s *cborSource) beginList() error    { return s.container(4) }
func (s *cborSource) more() (bool, error) { return s.take() }

// NewDecoder implements format.Format.
func (f *CBOR) NewDecoder(r io.Reader) (format.Decoder[arrow.RecordBatch], error) {
	d := newRowDecoder("cbor", f.schema, f.o)
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	src := &cborSource{r: br}
	rr := newRowReader(f.schema, d.b)
	d.readRow = func() error {
		if _, err := br.Peek(1); err != nil {
			return err
		}
		src.st = src.st[:0]
		if err := rr.read(src); err != nil {
			return format.Unexpected("cbor", err)
		}
		return nil
	}
	return d, nil
}
