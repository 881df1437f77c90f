package dynamic

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/internal/jsonv"
)

// JSONL is JSON Lines of record batches: one object per row, members in
// column order, written by a hand-rolled writer and read by a hand-rolled
// pull parser driven by the schema (members in any order, absent = null).
type JSONL struct {
	schema *arrow.Schema
	o      Options
}

// NewJSONL returns JSON Lines for schema.
func NewJSONL(schema *arrow.Schema, o Options) (Format, error) {
	if err := checkSchema("jsonl", schema, false); err != nil {
		return nil, err
	}
	if _, err := jsonv.NewRowAppender(schema, nil); err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	return &JSONL{schema: schema, o: o}, nil
}

// Descriptor implements format.Format.
func (f *JSONL) Descriptor() format.Descriptor {
	return descriptor("jsonl", "github.com/serbench/serbench/format/dynamic (hand-written)", format.GoVersion(),
		"one object per line, nulls written as null; numbers in shortest exact form; binary as base64, dates "+
			"as YYYY-MM-DD, timestamps as RFC 3339 UTC strings, times as integers, decimals as exact strings; "+
			"NaN, infinities and invalid UTF-8 are errors",
		format.LabelText, format.LabelRow, format.LabelHandwritten)
}

type jsonSink struct {
	buf []byte
	// lists holds, per open container, -1 for an object or the number of
	// elements written so far for an array.
	lists []int
}

// sep writes the comma before a value that is not an array's first element.
func (s *jsonSink) sep() {
	if n := len(s.lists); n > 0 && s.lists[n-1] >= 0 {
		if s.lists[n-1] > 0 {
			s.buf = append(s.buf, ',')
		}
		s.lists[n-1]++
	}
}

func (s *jsonSink) null(bool)    { s.sep(); s.buf = append(s.buf, "null"...) }
func (s *jsonSink) present(bool) {}
func (s *jsonSink) boolean(v bool) {
	s.sep()
	s.buf = strconv.AppendBool(s.buf, v)
}
func (s *jsonSink) i64(v int64) { s.sep(); s.buf = strconv.AppendInt(s.buf, v, 10) }
func (s *jsonSink) u64(v uint64) error {
	s.sep()
	s.buf = strconv.AppendUint(s.buf, v, 10)
	return nil
}
func (s *jsonSink) f32(v float32) error {
	if err := checkFloat(float64(v), "JSON"); err != nil {
		return err
	}
	s.sep()
	s.buf = strconv.AppendFloat(s.buf, float64(v), 'g', -1, 32)
	return nil
}
func (s *jsonSink) f64(v float64) error {
	if err := checkFloat(v, "JSON"); err != nil {
		return err
	}
	s.sep()
	s.buf = strconv.AppendFloat(s.buf, v, 'g', -1, 64)
	return nil
}
func (s *jsonSink) str(v string) error {
	s.sep()
	var err error
	s.buf, err = jsonv.AppendString(s.buf, v)
	if errors.Is(err, jsonv.ErrInvalidUTF8) {
		return fmt.Errorf("%w: %w", ErrCannotHold, err)
	}
	return err
}
func (s *jsonSink) bin(v []byte) {
	s.sep()
	s.buf = append(s.buf, '"')
	s.buf = base64.StdEncoding.AppendEncode(s.buf, v)
	s.buf = append(s.buf, '"')
}
func (s *jsonSink) date(d int32) error {
	t := arrow.Date32(d).ToTime()
	if t.Year() < 0 || t.Year() > 9999 {
		return cannotHold("date %d days from the epoch is outside years 0..9999 of %s", d, jsonv.DateLayout)
	}
	s.sep()
	s.buf = append(s.buf, '"')
	s.buf = t.AppendFormat(s.buf, jsonv.DateLayout)
	s.buf = append(s.buf, '"')
	return nil
}
func (s *jsonSink) timestamp(v int64, unit arrow.TimeUnit) error {
	t := jsonv.UnitToTime(v, unit)
	if t.Year() < 0 || t.Year() > 9999 {
		return cannotHold("timestamp %d%s is outside years 0..9999 of RFC 3339", v, unit)
	}
	s.sep()
	s.buf = append(s.buf, '"')
	s.buf = t.AppendFormat(s.buf, jsonv.TimestampLayout)
	s.buf = append(s.buf, '"')
	return nil
}
func (s *jsonSink) fixed(v []byte) { s.bin(v) }
func (s *jsonSink) dec(v decimal128.Num, scale int32) error {
	s.sep()
	s.buf = append(s.buf, '"')
	s.buf = append(s.buf, v.ToString(scale)...)
	s.buf = append(s.buf, '"')
	return nil
}
func (s *jsonSink) beginRecord(int) {
	s.sep()
	s.buf = append(s.buf, '{')
	s.lists = append(s.lists, -1)
}
func (s *jsonSink) key(i int, name string) {
	if i > 0 {
		s.buf = append(s.buf, ',')
	}
	s.buf, _ = jsonv.AppendString(s.buf, name) // names were checked
	s.buf = append(s.buf, ':')
}
func (s *jsonSink) endRecord() {
	s.buf = append(s.buf, '}')
	s.lists = s.lists[:len(s.lists)-1]
}
func (s *jsonSink) beginList(int) {
	s.sep()
	s.buf = append(s.buf, '[')
	s.lists = append(s.lists, 0)
}
func (s *jsonSink) endList(int) {
	s.buf = append(s.buf, ']')
	s.lists = s.lists[:len(s.lists)-1]
}

// NewEncoder implements format.Format.
func (f *JSONL) NewEncoder(w io.Writer) (format.Encoder[arrow.RecordBatch], error) {
	s := &jsonSink{}
	if err := checkNames(f.schema); err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	e := &rowEncoder{name: "jsonl", schema: f.schema, w: w, buf: &s.buf, s: s}
	e.endRow = func(int) error {
		s.buf = append(s.buf, '\n')
		s.lists = s.lists[:0]
		return nil
	}
	return e, nil
}

// checkNames rejects field names JSON text cannot hold exactly.
func checkNames(s *arrow.Schema) error {
	var walk func(path string, dt arrow.DataType) error
	walk = func(path string, dt arrow.DataType) error {
		switch t := dt.(type) {
		case *arrow.StructType:
			for _, f := range t.Fields() {
				if _, err := jsonv.AppendString(nil, f.Name); err != nil {
					return fmt.Errorf("%w: field name %q in %s: %w", ErrCannotHold, f.Name, path, err)
				}
				if err := walk(path+"."+f.Name, f.Type); err != nil {
					return err
				}
			}
		case arrow.ListLikeType:
			return walk(path+"[]", t.Elem())
		}
		return nil
	}
	return walk("", arrow.StructOf(s.Fields()...))
}

// NewDecoder implements format.Format.
func (f *JSONL) NewDecoder(r io.Reader) (format.Decoder[arrow.RecordBatch], error) {
	d := newRowDecoder("jsonl", f.schema, f.o)
	br := bufio.NewReaderSize(r, 64<<10)
	src := &jsonSource{}
	rr := newRowReader(f.schema, d.b)
	var line []byte
	d.readRow = func() error {
		line = line[:0]
		for {
			chunk, err := br.ReadSlice('\n')
			line = append(line, chunk...)
			if len(line) > maxValueBytes {
				return fmt.Errorf("line longer than %d bytes", maxValueBytes)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				if len(line) == 0 {
					return io.EOF
				}
				return fmt.Errorf("last line without newline: %w", io.ErrUnexpectedEOF)
			}
			if err != nil {
				return err
			}
			break
		}
		src.reset(line)
		if err := rr.read(src); err != nil {
			return src.wrap(err)
		}
		if src.ws(); src.i < len(src.b) {
			return src.wrap(src.errf("unexpected %q after the row's object", src.b[src.i]))
		}
		return nil
	}
	return d, nil
}

// jsonSource is a pull parser of one JSON line, driven by the schema.
type jsonSource struct {
	b       []byte
	i       int
	first   []bool // per open object or array: no member read yet
	scratch []byte
}

func (s *jsonSource) reset(line []byte) {
	s.b, s.i, s.first = line, 0, s.first[:0]
}

// jsonError is a syntax or type error at a byte offset of the line.
type jsonError struct {
	off int
	msg string
}

func (e *jsonError) Error() string { return fmt.Sprintf("byte %d: %s", e.off, e.msg) }

func (s *jsonSource) errf(format string, args ...any) error {
	return &jsonError{off: s.i, msg: fmt.Sprintf(format, args...)}
}

// wrap marks errors from the line's content as malformed JSON.
func (s *jsonSource) wrap(err error) error { return fmt.Errorf("malformed JSON: %w", err) }

func (s *jsonSource) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonSource) lit(l string) bool {
	if len(s.b)-s.i >= len(l) && string(s.b[s.i:s.i+len(l)]) == l {
		s.i += len(l)
		return true
	}
	return false
}

func (s *jsonSource) isNull(bool) (bool, error) {
	s.ws()
	return s.lit("null"), nil
}

func (s *jsonSource) boolean() (bool, error) {
	s.ws()
	switch {
	case s.lit("true"):
		return true, nil
	case s.lit("false"):
		return false, nil
	}
	return false, s.errf("want a boolean")
}

// number returns the text of a number token (validated by the strconv
// parse that follows, plus a JSON grammar check).
func (s *jsonSource) number() (string, error) {
	s.ws()
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.i++
			continue
		}
		break
	}
	tok := string(s.b[start:s.i])
	if !validNumber(tok) {
		s.i = start
		return "", s.errf("want a number")
	}
	return tok, nil
}

// validNumber checks the JSON number grammar.
func validNumber(t string) bool {
	i := 0
	if i < len(t) && t[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(t) && t[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(t) && t[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(t)
}

func (s *jsonSource) i64() (int64, error) {
	t, err := s.number()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, &jsonError{off: s.i - len(t), msg: t + " is not an int64"}
	}
	return v, nil
}

func (s *jsonSource) u64() (uint64, error) {
	t, err := s.number()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return 0, &jsonError{off: s.i - len(t), msg: t + " is not a uint64"}
	}
	return v, nil
}

func (s *jsonSource) float(bits int) (float64, error) {
	t, err := s.number()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(t, bits)
	if err != nil {
		return 0, &jsonError{off: s.i - len(t), msg: fmt.Sprintf("%s out of the range of float%d", t, bits)}
	}
	return v, nil
}

func (s *jsonSource) f32() (float32, error) {
	v, err := s.float(32)
	return float32(v), err
}

func (s *jsonSource) f64() (float64, error) { return s.float(64) }

// str decodes a string token into scratch.
func (s *jsonSource) str() ([]byte, error) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, s.errf("want a string")
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			v := s.b[start:s.i]
			s.i++
			if !utf8.Valid(v) {
				return nil, s.errf("invalid UTF-8 in string")
			}
			return v, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		s.i++
	}
	// Slow path: escapes. Re-parse the token with jsonv.
	s.i = start - 1
	end := s.i + 1
	for end < len(s.b) && s.b[end] != '"' {
		if s.b[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(s.b) {
		return nil, s.errf("unterminated string")
	}
	v, err := jsonv.Parse(s.b[s.i : end+1])
	if err != nil {
		return nil, s.errf("%v", err)
	}
	s.i = end + 1
	s.scratch = append(s.scratch[:0], v.Text...)
	return s.scratch, nil
}

func (s *jsonSource) bin() ([]byte, error) {
	v, err := s.str()
	if err != nil {
		return nil, err
	}
	out, err := base64.StdEncoding.AppendDecode(nil, v)
	if err != nil {
		return nil, s.errf("invalid base64: %v", err)
	}
	return out, nil
}

func (s *jsonSource) date() (int32, error) {
	v, err := s.str()
	if err != nil {
		return 0, err
	}
	t, err := time.Parse(jsonv.DateLayout, string(v))
	if err != nil {
		return 0, s.errf("invalid date %q", v)
	}
	return int32(arrow.Date32FromTime(t)), nil
}

func (s *jsonSource) timestamp(unit arrow.TimeUnit) (int64, error) {
	v, err := s.str()
	if err != nil {
		return 0, err
	}
	t, err := time.Parse(jsonv.TimestampLayout, string(v))
	if err != nil {
		return 0, s.errf("invalid timestamp %q", v)
	}
	x, err := jsonv.TimeToUnit(t, unit)
	if err != nil {
		return 0, s.errf("%v", err)
	}
	return x, nil
}

func (s *jsonSource) fixed(int) ([]byte, error) { return s.bin() }

func (s *jsonSource) dec(prec, scale int32) (decimal128.Num, error) {
	v, err := s.str()
	if err != nil {
		return decimal128.Num{}, err
	}
	n, err := jsonv.ParseDecimal128(string(v), prec, scale)
	if err != nil {
		return n, s.errf("%v", err)
	}
	return n, nil
}

func (s *jsonSource) open(c byte) error {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != c {
		return s.errf("want %q", c)
	}
	s.i++
	s.first = append(s.first, true)
	return nil
}

// next reports whether the open container has another member, consuming
// the separator or the closing byte.
func (s *jsonSource) next(close byte) (bool, error) {
	s.ws()
	top := len(s.first) - 1
	if s.i < len(s.b) && s.b[s.i] == close {
		s.i++
		s.first = s.first[:top]
		return false, nil
	}
	if !s.first[top] {
		if s.i >= len(s.b) || s.b[s.i] != ',' {
			return false, s.errf("want ',' or %q", close)
		}
		s.i++
	}
	s.first[top] = false
	return true, nil
}

func (s *jsonSource) beginRecord(int) error { return s.open('{') }

func (s *jsonSource) nextKey(names []string) (int, error) {
	more, err := s.next('}')
	if err != nil || !more {
		return -1, err
	}
	k, err := s.str()
	if err != nil {
		return 0, err
	}
	idx, err := keyIndex(k, names)
	if err != nil {
		return 0, err
	}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return 0, s.errf("want ':'")
	}
	s.i++
	return idx, nil
}

func (s *jsonSource) beginList() error    { return s.open('[') }
func (s *jsonSource) more() (bool, error) { return s.next(']') }
