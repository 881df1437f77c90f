package dynamic

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/dynamic/jsonv"
)

// JSONL is JSON Lines of record batches: one object per row, members in
// column order, written by a hand-rolled writer and read by jsonv's parser
// and a schema-compiled appender.
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
			"as YYYY-MM-DD, timestamps as RFC 3339 UTC strings; NaN, infinities and invalid UTF-8 are errors",
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
		return fmt.Errorf("date %d days from the epoch is outside years 0..9999 of %s", d, jsonv.DateLayout)
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
		return fmt.Errorf("timestamp %d%s is outside years 0..9999 of RFC 3339", v, unit)
	}
	s.sep()
	s.buf = append(s.buf, '"')
	s.buf = t.AppendFormat(s.buf, jsonv.TimestampLayout)
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
					return fmt.Errorf("field name %q in %s: %w", f.Name, path, err)
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
	app, err := jsonv.NewRowAppender(f.schema, nil)
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	d := newRowDecoder("jsonl", f.schema, f.o)
	br := bufio.NewReaderSize(r, 64<<10)
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
		v, err := jsonv.Parse(line)
		if err != nil {
			return fmt.Errorf("malformed JSON: %w", err)
		}
		if err := app.Check(&v); err != nil {
			return err
		}
		app.Append(d.b, &v)
		return nil
	}
	return d, nil
}
