package dynamic

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/internal/jsonv"
	"github.com/tinylib/msgp/msgp"
)

const msgpLib = "github.com/tinylib/msgp"

// flushAt is the size at which row encoders hand their buffer to the writer.
const flushAt = 64 << 10

// maxValueBytes bounds one string or binary value read by a decoder, so a
// corrupt length cannot make it allocate without limit.
const maxValueBytes = 256 << 20

// stack is a stack of remaining element counts of open maps and arrays.
type stack []int

func (s *stack) push(n int) { *s = append(*s, n) }

// take consumes one element of the innermost container, or pops it and
// reports false when it is exhausted.
func (s *stack) take() bool {
	top := len(*s) - 1
	if (*s)[top] == 0 {
		*s = (*s)[:top]
		return false
	}
	(*s)[top]--
	return true
}

// keyIndex returns the index of key among names, or an error.
func keyIndex(key []byte, names []string) (int, error) {
	for i, n := range names {
		if n == string(key) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("unknown field %q", key)
}

// Msgpack is MessagePack of record batches: each row one map from column
// names to values, written with msgp.Append* and read with msgp.Reader.
type Msgpack struct {
	schema *arrow.Schema
	o      Options
}

// NewMsgpack returns MessagePack for schema.
func NewMsgpack(schema *arrow.Schema, o Options) (Format, error) {
	if err := checkSchema("msgpack", schema, false); err != nil {
		return nil, err
	}
	return &Msgpack{schema: schema, o: o}, nil
}

// Descriptor implements format.Format.
func (f *Msgpack) Descriptor() format.Descriptor {
	return descriptor("msgpack", msgpLib+"/msgp", format.ModuleVersion(msgpLib, "v1.6.5"),
		"rows as maps of column name to value; uint64 as uint, timestamps and times as integers in their unit, dates as int32 days, decimals as exact text; a flat schema of fixed-width, bool, string and binary columns is written from the Arrow buffers with keys encoded once and read from a 256 KiB window straight into Arrow buffers",
		format.LabelBinary, format.LabelRow)
}

type mpSink struct{ buf []byte }

func (s *mpSink) null(bool)              { s.buf = msgp.AppendNil(s.buf) }
func (s *mpSink) present(bool)           {}
func (s *mpSink) boolean(v bool)         { s.buf = msgp.AppendBool(s.buf, v) }
func (s *mpSink) i64(v int64)            { s.buf = msgp.AppendInt64(s.buf, v) }
func (s *mpSink) u64(v uint64) error     { s.buf = msgp.AppendUint64(s.buf, v); return nil }
func (s *mpSink) f32(v float32) error    { s.buf = msgp.AppendFloat32(s.buf, v); return nil }
func (s *mpSink) f64(v float64) error    { s.buf = msgp.AppendFloat64(s.buf, v); return nil }
func (s *mpSink) str(v string) error     { s.buf = msgp.AppendString(s.buf, v); return nil }
func (s *mpSink) bin(v []byte)           { s.buf = msgp.AppendBytes(s.buf, v) }
func (s *mpSink) date(d int32) error     { s.buf = msgp.AppendInt32(s.buf, d); return nil }
func (s *mpSink) beginRecord(n int)      { s.buf = msgp.AppendMapHeader(s.buf, uint32(n)) }
func (s *mpSink) key(_ int, name string) { s.buf = msgp.AppendString(s.buf, name) }
func (s *mpSink) endRecord()             {}
func (s *mpSink) beginList(n int)        { s.buf = msgp.AppendArrayHeader(s.buf, uint32(n)) }
func (s *mpSink) endList(int)            {}
func (s *mpSink) fixed(v []byte)         { s.buf = msgp.AppendBytes(s.buf, v) }
func (s *mpSink) dec(v decimal128.Num, scale int32) error {
	s.buf = msgp.AppendString(s.buf, v.ToString(scale))
	return nil
}
func (s *mpSink) timestamp(v int64, _ arrow.TimeUnit) error {
	s.buf = msgp.AppendInt64(s.buf, v)
	return nil
}

// rowEncoder is the encoder of the byte-slice sinks: rows are appended to a
// buffer handed to w whenever it grows past flushAt.
type rowEncoder struct {
	name   string
	schema *arrow.Schema
	w      io.Writer
	buf    *[]byte
	s      sink
	rows   int64
	// endRow, if set, appends a row terminator or frames the row starting
	// at offset start.
	endRow func(start int) error
	start  int
}

func (e *rowEncoder) Encode(v *arrow.RecordBatch) error {
	rec := *v
	if !rec.Schema().Equal(e.schema) {
		return fmt.Errorf("%s: batch schema %s differs from the format's %s", e.name, rec.Schema(), e.schema)
	}
	err := writeRows(rec, e.s, e.rows, func(int) error {
		if e.endRow != nil {
			if err := e.endRow(e.start); err != nil {
				return err
			}
		}
		if len(*e.buf) >= flushAt {
			if _, err := e.w.Write(*e.buf); err != nil {
				return err
			}
			*e.buf = (*e.buf)[:0]
		}
		e.start = len(*e.buf)
		return nil
	})
	e.rows += rec.NumRows()
	if err != nil {
		return fmt.Errorf("%s: %w", e.name, err)
	}
	return nil
}

func (e *rowEncoder) Close() error {
	if len(*e.buf) > 0 {
		if _, err := e.w.Write(*e.buf); err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
		*e.buf = (*e.buf)[:0]
	}
	return nil
}

// NewEncoder implements format.Format.
func (f *Msgpack) NewEncoder(w io.Writer) (format.Encoder[arrow.RecordBatch], error) {
	if e := newMpFlatEncoder(f.schema, w); e != nil {
		return e, nil
	}
	return f.newRowEncoder(w), nil
}

// newRowEncoder returns the general encoder, for any schema.
func (f *Msgpack) newRowEncoder(w io.Writer) format.Encoder[arrow.RecordBatch] {
	s := &mpSink{}
	return &rowEncoder{name: "msgpack", schema: f.schema, w: w, buf: &s.buf, s: s}
}

type mpSource struct {
	r  *msgp.Reader
	st stack
	// hint holds, per open record, the field index the next key most
	// likely names: writers put fields in schema order, so one comparison
	// usually finds it. enc holds, per open record, its field names as
	// MessagePack strings, so that the expected key is compared in the
	// reader's buffer and skipped without decoding it.
	hint []int
	enc  [][][]byte
	// keys caches the encoded names of each record type (by its names
	// slice, which a reader builds once).
	keys map[*string][][]byte
}

// encodedKeys returns names as MessagePack strings.
func (s *mpSource) encodedKeys(names []string) [][]byte {
	id := &names[0] // callers pass non-empty names
	if e, ok := s.keys[id]; ok {
		return e
	}
	e := make([][]byte, len(names))
	for i, n := range names {
		e[i] = msgp.AppendString(nil, n)
	}
	if s.keys == nil {
		s.keys = map[*string][][]byte{}
	}
	s.keys[id] = e
	return e
}

func (s *mpSource) isNull(nullable bool) (bool, error) {
	if s.r.IsNil() {
		return true, s.r.ReadNil()
	}
	return false, nil
}
func (s *mpSource) boolean() (bool, error) { return s.r.ReadBool() }
func (s *mpSource) i64() (int64, error)    { return s.r.ReadInt64() }
func (s *mpSource) u64() (uint64, error)   { return s.r.ReadUint64() }
func (s *mpSource) f32() (float32, error) {
	if t, err := s.r.NextType(); err == nil && t == msgp.Float64Type {
		// another language's writer widened the float32 (Python has only
		// float64): exact narrowing keeps its width, anything else fails
		d, err := s.r.ReadFloat64()
		if err != nil {
			return 0, err
		}
		return narrowFloat32(d)
	}
	return s.r.ReadFloat32()
}
func (s *mpSource) f64() (float64, error) {
	if t, err := s.r.NextType(); err == nil && t != msgp.Float64Type {
		return 0, fmt.Errorf("want a float64, got %s", t)
	}
	return s.r.ReadFloat64()
}
func (s *mpSource) str() ([]byte, error) {
	n, err := s.r.ReadStringHeader()
	if err != nil {
		return nil, err
	}
	return s.readN(n)
}
func (s *mpSource) readN(n uint32) ([]byte, error) {
	if n > maxValueBytes {
		return nil, fmt.Errorf("value of %d bytes exceeds limit %d (corrupt length?)", n, maxValueBytes)
	}
	// The bytes are returned in place, from the reader's buffer: every
	// caller copies or compares them before the next read.
	b, err := s.r.R.Next(int(n))
	if err == io.EOF && n > 0 {
		err = io.ErrUnexpectedEOF
	}
	return b, err
}
func (s *mpSource) bin() ([]byte, error) {
	n, err := s.r.ReadBytesHeader()
	if err != nil {
		return nil, err
	}
	return s.readN(n)
}
func (s *mpSource) date() (int32, error) {
	if t, err := s.r.NextType(); err == nil && t == msgp.StrType {
		v, err := s.str()
		if err != nil {
			return 0, err
		}
		return parseDate(v)
	}
	return s.r.ReadInt32()
}
func (s *mpSource) fixed(int) ([]byte, error) { return s.bin() }
func (s *mpSource) dec(prec, scale int32) (decimal128.Num, error) {
	v, err := s.str()
	if err != nil {
		return decimal128.Num{}, err
	}
	return jsonv.ParseDecimal128(string(v), prec, scale)
}
func (s *mpSource) timestamp(unit arrow.TimeUnit) (int64, error) {
	// An integer is the common case (serbench's own files); only the heads
	// of the timestamp extension (fixext 4, fixext 8, ext 8) are looked at
	// further. It takes at most 15 bytes.
	if h, err := s.r.R.Peek(1); err != nil || h[0] != 0xd6 && h[0] != 0xd7 && h[0] != 0xc7 {
		return s.r.ReadInt64()
	}
	b, _ := s.r.R.Peek(15)
	if v, q, ok, err := mpExtTime(b, 0, unit); ok {
		if err == nil {
			_, err = s.r.R.Skip(q)
		}
		return v, err
	}
	return s.r.ReadInt64()
}
func (s *mpSource) beginRecord(int) error {
	n, err := s.r.ReadMapHeader()
	s.st.push(int(n))
	s.hint = append(s.hint, 0)
	s.enc = append(s.enc, nil)
	return err
}
func (s *mpSource) nextKey(names []string) (int, error) {
	top := len(s.hint) - 1
	if !s.st.take() {
		s.hint, s.enc = s.hint[:top], s.enc[:top]
		return -1, nil
	}
	if len(names) > 0 {
		enc := s.enc[top]
		if enc == nil {
			enc = s.encodedKeys(names)
			s.enc[top] = enc
		}
		if h := s.hint[top]; h < len(enc) {
			if p, err := s.r.R.Peek(len(enc[h])); err == nil && bytes.Equal(p, enc[h]) {
				if _, err := s.r.R.Skip(len(enc[h])); err != nil {
					return 0, err
				}
				s.hint[top] = h + 1
				return h, nil
			}
		}
	}
	k, err := s.str()
	if err != nil {
		return 0, err
	}
	if h := s.hint[top]; h < len(names) && names[h] == string(k) {
		s.hint[top] = h + 1
		return h, nil
	}
	i, err := keyIndex(k, names)
	s.hint[top] = i + 1
	return i, err
}
func (s *mpSource) beginList() error {
	n, err := s.r.ReadArrayHeader()
	s.st.push(int(n))
	return err
}
func (s *mpSource) more() (bool, error) { return s.st.take(), nil }

// NewDecoder implements format.Format.
func (f *Msgpack) NewDecoder(r io.Reader) (format.Decoder[arrow.RecordBatch], error) {
	if d := newMpFlat(f.schema, f.o, r); d != nil {
		return d, nil
	}
	return f.newRowDecoder(r), nil
}

// newRowDecoder returns the general decoder, for any schema.
func (f *Msgpack) newRowDecoder(r io.Reader) format.Decoder[arrow.RecordBatch] {
	d := newRowDecoder("msgpack", f.schema, f.o)
	src := &mpSource{r: msgp.NewReader(r)}
	rr := newRowReader(f.schema, d.b)
	d.readRow = func() error {
		if _, err := src.r.R.Peek(1); err != nil {
			if err == io.EOF {
				return io.EOF
			}
			return err
		}
		src.st, src.hint, src.enc = src.st[:0], src.hint[:0], src.enc[:0]
		if err := rr.read(src); err != nil {
			return format.Unexpected("msgpack", err)
		}
		return nil
	}
	return d
}

var errIndefinite = errors.New("indefinite-length items are not supported")
