package dynamic

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/internal/jsonv"
)

// CSV is RFC 4180 CSV of flat record batches: a header of column names,
// then one line per row. A null is an empty unquoted cell; an empty string
// is "" (quoted), so both survive the round trip. Written and read by
// hand-written code (encoding/csv cannot tell the two apart).
type CSV struct {
	schema *arrow.Schema
	o      Options
}

// NewCSV returns CSV for schema, which must be flat.
func NewCSV(schema *arrow.Schema, o Options) (Format, error) {
	if err := checkSchema("csv", schema, true); err != nil {
		return nil, err
	}
	return &CSV{schema: schema, o: o}, nil
}

// Descriptor implements format.Format.
func (f *CSV) Descriptor() format.Descriptor {
	return descriptor("csv", "github.com/serbench/serbench/format/dynamic (hand-written)", format.GoVersion(),
		"header line, CRLF-free; null = empty unquoted cell, empty string = \"\"; floats in shortest exact form "+
			"(NaN and infinities as NaN/+Inf/-Inf, NaN payloads other than Go's are errors); binary as base64, "+
			"dates and timestamps as in JSON; flat schemas only",
		format.LabelText, format.LabelRow, format.LabelHandwritten)
}

type csvSink struct{ buf []byte }

func needsQuote(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', '"', '\n', '\r':
			return true
		}
	}
	return false
}

func (s *csvSink) quoted(v string) {
	if !needsQuote(v) {
		s.buf = append(s.buf, v...)
		return
	}
	s.buf = append(s.buf, '"')
	for i := 0; i < len(v); i++ {
		if v[i] == '"' {
			s.buf = append(s.buf, '"')
		}
		s.buf = append(s.buf, v[i])
	}
	s.buf = append(s.buf, '"')
}

func (s *csvSink) null(bool)      {}
func (s *csvSink) present(bool)   {}
func (s *csvSink) boolean(v bool) { s.buf = strconv.AppendBool(s.buf, v) }
func (s *csvSink) i64(v int64)    { s.buf = strconv.AppendInt(s.buf, v, 10) }
func (s *csvSink) u64(v uint64) error {
	s.buf = strconv.AppendUint(s.buf, v, 10)
	return nil
}
func (s *csvSink) float(v float64, bits int) error {
	start := len(s.buf)
	s.buf = strconv.AppendFloat(s.buf, v, 'g', -1, bits)
	back, err := strconv.ParseFloat(string(s.buf[start:]), bits)
	same := err == nil && (bits == 32 && math.Float32bits(float32(back)) == math.Float32bits(float32(v)) ||
		bits == 64 && math.Float64bits(back) == math.Float64bits(v))
	if !same {
		return cannotHold("float %v (bits %#x) does not survive CSV text exactly (NaN payload)", v, math.Float64bits(v))
	}
	return nil
}
func (s *csvSink) f32(v float32) error { return s.float(float64(v), 32) }
func (s *csvSink) f64(v float64) error { return s.float(v, 64) }
func (s *csvSink) str(v string) error  { s.quoted(v); return nil }
func (s *csvSink) bin(v []byte) {
	if len(v) == 0 {
		s.buf = append(s.buf, `""`...)
		return
	}
	s.buf = base64.StdEncoding.AppendEncode(s.buf, v)
}
func (s *csvSink) date(d int32) error {
	t := arrow.Date32(d).ToTime()
	if t.Year() < 0 || t.Year() > 9999 {
		return cannotHold("date %d days from the epoch is outside years 0..9999", d)
	}
	s.buf = t.AppendFormat(s.buf, jsonv.DateLayout)
	return nil
}
func (s *csvSink) timestamp(v int64, unit arrow.TimeUnit) error {
	t := jsonv.UnitToTime(v, unit)
	if t.Year() < 0 || t.Year() > 9999 {
		return cannotHold("timestamp %d%s is outside years 0..9999 of RFC 3339", v, unit)
	}
	s.buf = t.AppendFormat(s.buf, jsonv.TimestampLayout)
	return nil
}
func (s *csvSink) fixed(v []byte) { s.bin(v) }
func (s *csvSink) dec(v decimal128.Num, scale int32) error {
	s.buf = append(s.buf, v.ToString(scale)...)
	return nil
}
func (s *csvSink) beginRecord(int) {}
func (s *csvSink) key(i int, _ string) {
	if i > 0 {
		s.buf = append(s.buf, ',')
	}
}
func (s *csvSink) endRecord()    {}
func (s *csvSink) beginList(int) {}
func (s *csvSink) endList(int)   {}

// NewEncoder implements format.Format.
func (f *CSV) NewEncoder(w io.Writer) (format.Encoder[arrow.RecordBatch], error) {
	s := &csvSink{}
	for i, fl := range f.schema.Fields() {
		if i > 0 {
			s.buf = append(s.buf, ',')
		}
		s.quoted(fl.Name)
	}
	s.buf = append(s.buf, '\n')
	e := &rowEncoder{name: "csv", schema: f.schema, w: w, buf: &s.buf, s: s}
	e.endRow = func(int) error {
		s.buf = append(s.buf, '\n')
		return nil
	}
	return e, nil
}

// csvLine splits CSV records into cells, remembering which were quoted.
type csvLine struct {
	r      *bufio.Reader
	cells  [][]byte
	quoted []bool
	buf    []byte
	ends   []int
	// line holds a line longer than the reader's buffer, or the rest of
	// a line with a quote.
	line []byte
}

// read reads one record; io.EOF at a clean end. A line without a quote
// (the common case) is read whole with ReadSlice and split on commas; a
// line with one goes through the cell-by-cell parser, which follows quoted
// cells across lines.
func (l *csvLine) read() error {
	l.buf, l.ends, l.quoted = l.buf[:0], l.ends[:0], l.quoted[:0]
	if _, err := l.r.Peek(1); err != nil {
		return err
	}
	line, err := l.r.ReadSlice('\n')
	for err == bufio.ErrBufferFull {
		l.line = append(l.line[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(l.line) > maxValueBytes {
				return errors.New("record too long")
			}
			line, err = l.r.ReadSlice('\n')
			l.line = append(l.line, line...)
		}
		line = l.line
	}
	if err != nil {
		if bytes.IndexByte(line, '"') >= 0 {
			return l.parse(line)
		}
		return fmt.Errorf("record without final newline: %w", io.ErrUnexpectedEOF)
	}
	if bytes.IndexByte(line, '"') >= 0 {
		return l.parse(line)
	}
	body := line[:len(line)-1]
	if len(body) > maxValueBytes {
		return errors.New("record too long")
	}
	l.buf = append(l.buf, body...)
	body = l.buf
	l.cells = l.cells[:0]
	for {
		i := bytes.IndexByte(body, ',')
		if i < 0 {
			l.cells = append(l.cells, body)
			l.quoted = append(l.quoted, false)
			return nil
		}
		l.cells = append(l.cells, body[:i:i])
		l.quoted = append(l.quoted, false)
		body = body[i+1:]
	}
}

// parse parses a record cell by cell: the bytes of pending first (a line
// already read, which holds a quote), then the reader's.
func (l *csvLine) parse(pending []byte) error {
	// pending may alias the reader's buffer: keep a copy.
	l.line = append(l.line[:0], pending...)
	pending = l.line
	next := func() (byte, error) {
		if len(pending) > 0 {
			c := pending[0]
			pending = pending[1:]
			return c, nil
		}
		return l.r.ReadByte()
	}
	for {
		// One cell.
		c, err := next()
		if err != nil {
			return fmt.Errorf("record without final newline: %w", io.ErrUnexpectedEOF)
		}
		q := c == '"'
		if q {
			for {
				c, err = next()
				if err != nil {
					return fmt.Errorf("quoted cell not closed: %w", io.ErrUnexpectedEOF)
				}
				if c == '"' {
					n, err := next()
					if err != nil {
						return fmt.Errorf("record without final newline: %w", io.ErrUnexpectedEOF)
					}
					if n == '"' {
						l.buf = append(l.buf, '"')
						continue
					}
					c = n
					break
				}
				l.buf = append(l.buf, c)
				if len(l.buf) > maxValueBytes {
					return errors.New("record too long")
				}
			}
		} else {
			for c != ',' && c != '\n' {
				if c == '"' {
					return errors.New("quote inside an unquoted cell")
				}
				l.buf = append(l.buf, c)
				if len(l.buf) > maxValueBytes {
					return errors.New("record too long")
				}
				c, err = next()
				if err != nil {
					return fmt.Errorf("record without final newline: %w", io.ErrUnexpectedEOF)
				}
			}
		}
		l.ends = append(l.ends, len(l.buf))
		l.quoted = append(l.quoted, q)
		switch c {
		case ',':
			continue
		case '\n':
			l.cells = l.cells[:0]
			start := 0
			for _, e := range l.ends {
				l.cells = append(l.cells, l.buf[start:e:e])
				start = e
			}
			return nil
		default:
			return fmt.Errorf("unexpected %q after a quoted cell", c)
		}
	}
}

type csvSource struct {
	l *csvLine
	i int // next cell
}

func (s *csvSource) cell() ([]byte, error) {
	if s.i >= len(s.l.cells) {
		return nil, errors.New("too few cells")
	}
	c := s.l.cells[s.i]
	s.i++
	return c, nil
}
func (s *csvSource) isNull(bool) (bool, error) {
	if s.i < len(s.l.cells) && len(s.l.cells[s.i]) == 0 && !s.l.quoted[s.i] {
		s.i++
		return true, nil
	}
	return false, nil
}
func (s *csvSource) boolean() (bool, error) {
	c, err := s.cell()
	if err != nil {
		return false, err
	}
	return strconv.ParseBool(string(c))
}
func (s *csvSource) i64() (int64, error) {
	c, err := s.cell()
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(string(c), 10, 64)
}
func (s *csvSource) u64() (uint64, error) {
	c, err := s.cell()
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(string(c), 10, 64)
}
func (s *csvSource) f32() (float32, error) {
	c, err := s.cell()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(string(c), 32)
	return float32(v), err
}
func (s *csvSource) f64() (float64, error) {
	c, err := s.cell()
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(string(c), 64)
}
func (s *csvSource) str() ([]byte, error) { return s.cell() }
func (s *csvSource) bin() ([]byte, error) {
	c, err := s.cell()
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.AppendDecode(nil, c)
}
func (s *csvSource) date() (int32, error) {
	c, err := s.cell()
	if err != nil {
		return 0, err
	}
	t, err := time.Parse(jsonv.DateLayout, string(c))
	return int32(arrow.Date32FromTime(t)), err
}
func (s *csvSource) timestamp(unit arrow.TimeUnit) (int64, error) {
	c, err := s.cell()
	if err != nil {
		return 0, err
	}
	t, err := time.Parse(jsonv.TimestampLayout, string(c))
	if err != nil {
		return 0, err
	}
	return jsonv.TimeToUnit(t, unit)
}
func (s *csvSource) fixed(int) ([]byte, error) { return s.bin() }
func (s *csvSource) dec(prec, scale int32) (decimal128.Num, error) {
	c, err := s.cell()
	if err != nil {
		return decimal128.Num{}, err
	}
	return jsonv.ParseDecimal128(string(c), prec, scale)
}
func (s *csvSource) beginRecord(n int) error {
	if len(s.l.cells) != n {
		return fmt.Errorf("%d cells, want %d", len(s.l.cells), n)
	}
	s.i = 0
	return nil
}
func (s *csvSource) nextKey([]string) (int, error) {
	if s.i >= len(s.l.cells) {
		return -1, nil
	}
	return s.i, nil
}
func (s *csvSource) beginList() error    { return errors.New("CSV holds no lists") }
func (s *csvSource) more() (bool, error) { return false, nil }

// NewDecoder implements format.Format.
func (f *CSV) NewDecoder(r io.Reader) (format.Decoder[arrow.RecordBatch], error) {
	l := &csvLine{r: bufio.NewReaderSize(r, 64<<10)}
	if err := l.read(); err != nil {
		return nil, format.Unexpected("csv: header", err)
	}
	if len(l.cells) != f.schema.NumFields() {
		return nil, fmt.Errorf("csv: header has %d columns, schema %d", len(l.cells), f.schema.NumFields())
	}
	for i, c := range l.cells {
		if want := f.schema.Field(i).Name; string(c) != want {
			return nil, fmt.Errorf("csv: header column %d is %q, want %q", i+1, c, want)
		}
	}
	d := newRowDecoder("csv", f.schema, f.o)
	src := &csvSource{l: l}
	rr := newRowReader(f.schema, d.b)
	d.readRow = func() error {
		if err := l.read(); err != nil {
			return err
		}
		return rr.read(src)
	}
	return d, nil
}
