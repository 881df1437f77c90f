// Package dynamic implements serialization formats driven by an Arrow schema
// known only at run time — a user's own data, for which no code can be
// generated. Every format is a format.Format[arrow.RecordBatch]: Encode
// writes all rows of one batch (row by row for row formats), Decode reads the
// next batch of at most Options.BatchRows rows. So the formats plug into
// filebench's file pipeline (format → codec → file and back) unchanged.
//
// Row formats (JSON Lines, MessagePack, CBOR, Avro, Protocol Buffers, CSV)
// are written and read by code compiled from the schema once per batch: a
// tree of closures over the typed Arrow arrays calls a small low-level
// encoder per value (msgp.Append* for MessagePack, hand-written encoders for
// CBOR, JSON, Avro and CSV), never map[string]any and reflection. For a
// flat schema (fixed-width, bool, string and binary columns) MessagePack
// and Avro instead decode rows straight into the Arrow buffers of the batch
// (MessagePack from a window of buffered input, undoing and rereading a row
// cut short by the window's end; Avro from whole blocks), and MessagePack
// writes rows straight from the arrays' buffers.
//
// Arrow IPC, Parquet and Avro OCF also come compressed by their own codecs,
// as people store them (arrow-stream-zstd and -lz4: buffer compression;
// parquet-zstd and -snappy: page compression; avro-ocf-zstd and -deflate:
// block codecs): their descriptors say Compresses, so they pair with outer
// codec none only, and name the codec and its level.
//
// Parquet and Arrow IPC also read some columns only (Projector's
// NewColumnDecoder, Projected for filebench): Parquet reads only those
// columns' chunks; arrow-go's IPC stream reader loads every buffer, so an
// Arrow projection is a full read, the columns then picked.
//
// Round trips are exact — nulls, nesting, floats bit for bit — or fail: a
// format that cannot hold a value returns an error naming the column and row
// (NaN in JSON, nested data in CSV, …) rather than changing it silently.
//
// Batch boundaries are not part of any row format: a decoder returns batches
// of Options.BatchRows rows whatever batches were encoded. Verify decoded
// data with a Verifier, which compares rows regardless of batching, and pass
// filebench.Read a negative record count (or the count of decoded batches).
//
// The batch returned by Decode is owned by the decoder and valid until the
// next Decode call; Retain it to keep it.
//
// Robustness: the row formats' decoders bound every length they read and
// are fuzzed (FuzzDecoders), Avro's block decompression included (its
// output is bounded as it grows, never allocated from a declared size);
// the Arrow IPC and Parquet decoders cap buffer allocations, decompressed
// buffers and pages included (MaxBufferBytes), and turn library panics into
// errors, but arrow-go sizes schema and footer metadata from unchecked
// counts, so read only trusted Arrow and Parquet data with them (serbench
// reads what it wrote).
package dynamic

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/results"
)

// Batch is the value type of the dynamic formats.
type Batch = arrow.RecordBatch

// Format is a format of record batches.
type Format = format.Format[arrow.RecordBatch]

// LabelSchemaDriven marks formats written and read by code driven by an
// Arrow schema at run time.
const LabelSchemaDriven = "schema-driven"

const arrowLib = "github.com/apache/arrow-go/v18"

// DefaultBatchRows is the default number of rows per decoded batch.
const DefaultBatchRows = 64 << 10

// Options configure the formats. The zero value is the default.
type Options struct {
	// BatchRows is the number of rows per decoded batch and per Avro block
	// written (0 = DefaultBatchRows). Parquet buffers the encoded batches
	// into row groups of up to 1,048,576 rows; Arrow IPC keeps them as
	// they are.
	BatchRows int
	// Allocator allocates decoded batches (nil = a Go allocator). Setting
	// it turns off the flat MessagePack and Avro decoders, whose batches
	// are Go memory.
	Allocator memory.Allocator
}

func (o Options) batchRows() int {
	if o.BatchRows > 0 {
		return o.BatchRows
	}
	return DefaultBatchRows
}

func (o Options) alloc() memory.Allocator {
	if o.Allocator != nil {
		return o.Allocator
	}
	return memory.NewGoAllocator()
}

// MaxBufferBytes caps any one buffer the Arrow IPC and Parquet decoders
// allocate: they size buffers from lengths in the (untrusted) input, and a
// corrupt length must not demand terabytes.
const MaxBufferBytes = 1 << 30

// readAlloc returns the decoders' allocator: o's, refusing buffers over
// MaxBufferBytes by panicking (the decoders turn the panic into an error).
func (o Options) readAlloc() memory.Allocator { return limitAllocator{o.alloc()} }

type limitAllocator struct{ memory.Allocator }

func (a limitAllocator) check(size int) {
	if size < 0 || size > MaxBufferBytes {
		panic(fmt.Sprintf("buffer of %d bytes exceeds limit %d (corrupt length?)", size, MaxBufferBytes))
	}
}

// Allocate implements memory.Allocator.
func (a limitAllocator) Allocate(size int) []byte {
	a.check(size)
	return a.Allocator.Allocate(size)
}

// Reallocate implements memory.Allocator.
func (a limitAllocator) Reallocate(size int, b []byte) []byte {
	a.check(size)
	return a.Allocator.Reallocate(size, b)
}

// Constructor builds one format for a schema.
type Constructor func(schema *arrow.Schema, o Options) (Format, error)

// Entry names one format's constructor.
type Entry struct {
	// Name is the format's Descriptor name.
	Name string
	// New builds the format for a schema.
	New Constructor
}

// Constructors returns every format's constructor by name, in report order:
// each self-compressing variant follows its uncompressed sibling
// (parquet-zstd after parquet), whose name it extends with its codec's.
func Constructors() []Entry {
	return []Entry{
		{"arrow-stream", NewArrowStream},
		{"arrow-stream-zstd", NewArrowStreamZstd},
		{"arrow-stream-lz4", NewArrowStreamLZ4},
		{"parquet", NewParquet},
		{"parquet-zstd", NewParquetZstd},
		{"parquet-snappy", NewParquetSnappy},
		{"avro-ocf", NewAvro},
		{"avro-ocf-zstd", NewAvroZstd},
		{"avro-ocf-deflate", NewAvroDeflate},
		{"msgpack", NewMsgpack},
		{"cbor", NewCBOR},
		{"jsonl", NewJSONL},
		{"protobuf-dynamicpb", NewProtobuf},
		{"protobuf-wire", NewProtowire},
		{"csv", NewCSV},
	}
}

// ErrCannotHold is wrapped by the error of a format that cannot hold a
// schema or one of its values (nested data in a flat format, NaN in JSON, a
// date outside the years a text format can write, invalid UTF-8 in JSON,
// an Arrow type without a mapping): a documented limit of the format, not a
// bug. Test for it with errors.Is; its text, "cannot hold this data",
// starts the error's message.
var ErrCannotHold = results.ErrCannotHold

// cannotHold returns an error wrapping ErrCannotHold. Types and long
// strings (column paths) among args are shown elided (shortType, elide):
// the type of a column nested 200 deep is kilobytes of text.
func cannotHold(format string, args ...any) error {
	for i, a := range args {
		switch v := a.(type) {
		case arrow.DataType:
			args[i] = shortType(v)
		case string:
			args[i] = elide(v, maxShown)
		}
	}
	return fmt.Errorf("%w: %s", ErrCannotHold, elide(fmt.Sprintf(format, args...), maxErrLen))
}

// maxShown caps a type or column path shown in an error; maxErrLen caps an
// error's message (shortErr).
const (
	maxShown  = 96
	maxErrLen = 400
)

// elide returns s if it has at most n bytes, else its head and tail around
// "…", about n bytes in all (cut at rune boundaries).
func elide(s string, n int) string {
	if len(s) <= n {
		return s
	}
	h, t := n*2/3, len(s)-n/3
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + "…" + s[t:]
}

// shortType is dt's text elided to maxShown bytes.
func shortType(dt arrow.DataType) string { return elide(dt.String(), maxShown) }

// shortErr returns err, or when its message is longer than maxErrLen an
// error wrapping it whose message starts with the innermost cause and is
// elided: a library that wraps its error once per level of nesting
// (arrow/ipc: "could not visit list element for array *array.List: …" 63
// times before "max recursion depth reached") would bury the cause at the
// end of kilobytes.
func shortErr(err error) error {
	if err == nil || len(err.Error()) <= maxErrLen {
		return err
	}
	return &shortError{err: err}
}

type shortError struct{ err error }

func (e *shortError) Unwrap() error { return e.err }

func (e *shortError) Error() string {
	cause := e.err
	for {
		u := errors.Unwrap(cause)
		if u == nil {
			break
		}
		cause = u
	}
	msg := e.err.Error()
	if cause == e.err {
		return elide(msg, maxErrLen)
	}
	c := elide(cause.Error(), maxErrLen/3)
	return c + " (in: " + elide(msg, maxErrLen-len(c)-7) + ")"
}

// nesting returns how many nested types (lists, structs) dt is deep at its
// deepest: 0 for a scalar.
func nesting(dt arrow.DataType) int {
	switch t := dt.(type) {
	case *arrow.StructType:
		d := 0
		for _, f := range t.Fields() {
			d = max(d, nesting(f.Type))
		}
		return 1 + d
	case arrow.ListLikeType:
		return 1 + nesting(t.Elem())
	}
	return 0
}

// checkNesting refuses a schema with a column nested more than limit deep,
// a library's recursion limit, as one the format (name) cannot hold.
func checkNesting(name string, s *arrow.Schema, limit int, lib string) error {
	for _, f := range s.Fields() {
		if d := nesting(f.Type); d > limit {
			return fmt.Errorf("%s: %w", name, cannotHold("column %s is nested %d levels deep; %s holds at most %d", f.Name, d, lib, limit))
		}
	}
	return nil
}

// All builds every format that can hold schema. The formats that cannot
// (e.g. CSV for a nested schema) are returned in skipped with the reason.
func All(schema *arrow.Schema, o Options) (formats []Format, skipped []error) {
	for _, c := range Constructors() {
		f, err := c.New(schema, o)
		if err != nil {
			skipped = append(skipped, err)
			continue
		}
		formats = append(formats, f)
	}
	return formats, skipped
}

// Registry returns a format.Registry of All's formats.
func Registry(schema *arrow.Schema, o Options) (*format.Registry[arrow.RecordBatch], []error, error) {
	fs, skipped := All(schema, o)
	r, err := format.NewRegistry(fs...)
	return r, skipped, err
}

func descriptor(name, lib, version string, detail string, labels ...string) format.Descriptor {
	return format.Descriptor{
		Name:    name,
		Library: lib,
		Version: version,
		Labels:  append([]string{LabelSchemaDriven, format.LabelSchema}, labels...),
		Detail:  detail,
	}
}

// checkSchema reports the first field whose type the row formats do not
// support.
func checkSchema(name string, s *arrow.Schema, flat bool) error {
	for _, f := range s.Fields() {
		if err := checkType(f.Name, f.Type, flat); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func checkType(path string, dt arrow.DataType, flat bool) error {
	switch t := dt.(type) {
	case *arrow.BooleanType, *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type,
		*arrow.Float32Type, *arrow.Float64Type, *arrow.StringType, *arrow.LargeStringType,
		*arrow.BinaryType, *arrow.LargeBinaryType, *arrow.Date32Type, *arrow.TimestampType, *arrow.NullType,
		*arrow.Time32Type, *arrow.Time64Type, *arrow.FixedSizeBinaryType, *arrow.Decimal128Type:
		return nil
	case *arrow.StructType:
		if flat {
			return cannotHold("column %s: nested type %s cannot be held by a flat format", path, dt)
		}
		for _, f := range t.Fields() {
			if err := checkType(path+"."+f.Name, f.Type, flat); err != nil {
				return err
			}
		}
		return nil
	case *arrow.ListType, *arrow.LargeListType:
		if flat {
			return cannotHold("column %s: nested type %s cannot be held by a flat format", path, dt)
		}
		return checkType(path+"[]", t.(arrow.ListLikeType).Elem(), flat)
	}
	return cannotHold("column %s: Arrow type %s is not supported", path, dt)
}

// rowDecoder assembles rows read by readRow into batches.
type rowDecoder struct {
	b       *array.RecordBuilder
	rows    int
	max     int
	cur     arrow.RecordBatch
	readRow func() error // io.EOF at a clean end
	done    bool
	name    string
	// dataLen is each top-level string or binary column's data size in
	// the previous batch: the next batch reserves as much up front instead
	// of growing its buffer by doubling.
	dataLen []int
}

func newRowDecoder(name string, s *arrow.Schema, o Options) *rowDecoder {
	return &rowDecoder{name: name, b: array.NewRecordBuilder(o.alloc(), s), max: o.batchRows()}
}

// Decode implements format.Decoder.
func (d *rowDecoder) Decode(v *arrow.RecordBatch) (err error) {
	defer format.CatchPanic(d.name, &err)
	if d.cur != nil {
		d.cur.Release()
		d.cur = nil
	}
	if d.done {
		return io.EOF
	}
	d.reserve()
	n := 0
	for n < d.max {
		if err := d.readRow(); err != nil {
			if err == io.EOF {
				d.done = true
				break
			}
			d.done = true
			d.b.Release()
			return fmt.Errorf("%s: row %d: %w", d.name, d.rows, err)
		}
		n++
		d.rows++
	}
	if n == 0 {
		d.b.Release()
		return io.EOF
	}
	d.cur = d.b.NewRecordBatch()
	if d.done {
		d.b.Release()
	}
	d.dataLen = d.dataLen[:0]
	for _, c := range d.cur.Columns() {
		n := 0
		if a, ok := c.(interface{ ValueBytes() []byte }); ok {
			n = len(a.ValueBytes())
		}
		d.dataLen = append(d.dataLen, n)
	}
	*v = d.cur
	return nil
}

// reserve sizes the builders for a full batch: d.max rows, and for string
// and binary columns the previous batch's data plus an eighth.
func (d *rowDecoder) reserve() {
	for i, f := range d.b.Fields() {
		f.Reserve(d.max)
		if i < len(d.dataLen) && d.dataLen[i] > 0 {
			if bb, ok := f.(interface{ ReserveData(int) }); ok {
				bb.ReserveData(d.dataLen[i] + d.dataLen[i]/8)
			}
		}
	}
}

// sanitize makes s an identifier of letters, digits and '_' not starting
// with a digit.
func sanitize(s string) string {
	var b strings.Builder
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || (i > 0 && r >= '0' && r <= '9')
		if ok {
			b.WriteRune(r)
		} else if i == 0 && r >= '0' && r <= '9' {
			b.WriteByte('_')
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// uniqueNames sanitizes names, making them distinct.
func uniqueNames(names []string) []string {
	out := make([]string, len(names))
	used := map[string]bool{}
	for i, n := range names {
		s := sanitize(n)
		base := s
		for k := 2; used[s]; k++ {
			s = fmt.Sprintf("%s_%d", base, k)
		}
		used[s] = true
		out[i] = s
	}
	return out
}
