// Package arrowipc implements Apache Arrow IPC — the file format (footer,
// random access) and the stream format — for a Go type T, with record batches
// of a fixed number of rows built and read through mapping functions the
// dataset supplies. The file format can compress its buffers itself (lz4,
// zstd); the stream format is written uncompressed so an outer codec can wrap it.
//
// Robustness: decoders cap every buffer allocation (MaxBufferBytes) and turn
// library panics into errors, but arrow-go reads schema and footer metadata
// without bounds on counts, so a hostile file can still exhaust memory there.
// Read only files you trust (as serbench does: it reads what it wrote).
package arrowipc

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/serbench/serbench/format"
)

const lib = "github.com/apache/arrow-go/v18"

// Mapping moves T in and out of record batches.
type Mapping[T any] struct {
	// Schema is the batches' schema.
	Schema *arrow.Schema
	// Append appends v as one row to the builder's fields.
	Append func(b *array.RecordBuilder, v *T) error
	// Bind checks a batch's columns once and returns a function filling v
	// from row i of it.
	Bind func(rec arrow.RecordBatch) (func(row int, v *T) error, error)
}

// Layout selects the IPC format.
type Layout int

const (
	// File is the IPC file format (random-access reads, footer).
	File Layout = iota
	// Stream is the IPC stream format.
	Stream
)

// DefaultBatchRows is the default rows per record batch.
const DefaultBatchRows = 64 << 10

// Format is Arrow IPC of T.
type Format[T any] struct {
	name        string
	m           Mapping[T]
	layout      Layout
	compression string
	batchRows   int
}

// New returns Arrow IPC of T named name. compression is "none", "lz4" or
// "zstd" (buffer compression; File layout only). batchRows <= 0 means
// DefaultBatchRows.
func New[T any](name string, m Mapping[T], layout Layout, compression string, batchRows int) (*Format[T], error) {
	switch compression {
	case "none":
	case "lz4", "zstd":
		if layout != File {
			return nil, fmt.Errorf("arrowipc: buffer compression %q offered only for the file layout", compression)
		}
	default:
		return nil, fmt.Errorf("arrowipc: unknown compression %q (valid: none, lz4, zstd)", compression)
	}
	if batchRows <= 0 {
		batchRows = DefaultBatchRows
	}
	return &Format[T]{name: name, m: m, layout: layout, compression: compression, batchRows: batchRows}, nil
}

// Descriptor implements format.Format.
func (f *Format[T]) Descriptor() format.Descriptor {
	kind := "file"
	if f.layout == Stream {
		kind = "stream"
	}
	return format.Descriptor{
		Name:         f.name,
		Library:      lib + "/arrow/ipc",
		Version:      format.ModuleVersion(lib, "v18.8.0"),
		Labels:       []string{format.LabelHandwritten, format.LabelBinary, format.LabelColumnar, format.LabelSchema},
		Compresses:   f.compression != "none",
		RandomAccess: f.layout == File,
		Detail:       fmt.Sprintf("IPC %s format, batches of %d rows, buffer compression %s", kind, f.batchRows, f.compression),
	}
}

// writer is what ipc.FileWriter and ipc.Writer share.
type writer interface {
	Write(rec arrow.RecordBatch) error
	Close() error
}

type encoder[T any] struct {
	f    *Format[T]
	w    writer
	b    *array.RecordBuilder
	rows int
}

func (e *encoder[T]) flush() error {
	if e.rows == 0 {
		return nil
	}
	rec := e.b.NewRecordBatch()
	defer rec.Release()
	e.rows = 0
	if err := e.w.Write(rec); err != nil {
		return fmt.Errorf("arrowipc: write batch: %w", err)
	}
	return nil
}

func (e *encoder[T]) Encode(v *T) error {
	if err := e.f.m.Append(e.b, v); err != nil {
		return fmt.Errorf("arrowipc: append: %w", err)
	}
	e.rows++
	if e.rows >= e.f.batchRows {
		return e.flush()
	}
	return nil
}

func (e *encoder[T]) Close() error {
	defer e.b.Release()
	if err := e.flush(); err != nil {
		return err
	}
	if err := e.w.Close(); err != nil {
		return fmt.Errorf("arrowipc: close: %w", err)
	}
	return nil
}

// NewEncoder implements format.Format.
func (f *Format[T]) NewEncoder(w io.Writer) (format.Encoder[T], error) {
	mem := memory.NewGoAllocator()
	opts := []ipc.Option{ipc.WithSchema(f.m.Schema), ipc.WithAllocator(mem)}
	switch f.compression {
	case "lz4":
		opts = append(opts, ipc.WithLZ4())
	case "zstd":
		opts = append(opts, ipc.WithZstd())
	}
	var iw writer
	if f.layout == File {
		fw, err := ipc.NewFileWriter(w, opts...)
		if err != nil {
			return nil, fmt.Errorf("arrowipc: new file writer: %w", err)
		}
		iw = fw
	} else {
		iw = ipc.NewWriter(w, opts...)
	}
	return &encoder[T]{f: f, w: iw, b: array.NewRecordBuilder(mem, f.m.Schema)}, nil
}

type decoder[T any] struct {
	f *Format[T]
	// next returns the next batch, or nil at the end.
	next  func() (arrow.RecordBatch, error)
	rec   arrow.RecordBatch
	row   int
	fill  func(int, *T) error
	n     int
	close func()
}

func (d *decoder[T]) Decode(v *T) (err error) {
	defer format.CatchPanic("arrowipc", &err)
	for d.rec == nil || d.row >= int(d.rec.NumRows()) {
		rec, err := d.next()
		if err != nil {
			return format.Unexpected(fmt.Sprintf("arrowipc: row %d", d.n), err)
		}
		if rec == nil {
			d.close()
			return io.EOF
		}
		if !rec.Schema().Equal(d.f.m.Schema) {
			return fmt.Errorf("arrowipc: row %d: batch schema %v, want %v", d.n, rec.Schema(), d.f.m.Schema)
		}
		fill, err := d.f.m.Bind(rec)
		if err != nil {
			return fmt.Errorf("arrowipc: row %d: %w", d.n, err)
		}
		d.rec, d.row, d.fill = rec, 0, fill
	}
	if err := d.fill(d.row, v); err != nil {
		return fmt.Errorf("arrowipc: row %d: %w", d.n, err)
	}
	d.row++
	d.n++
	return nil
}

// NewDecoder implements format.Format. The file layout needs a
// format.SizedReaderAt.
func (f *Format[T]) NewDecoder(r io.Reader) (dec format.Decoder[T], err error) {
	defer format.CatchPanic("arrowipc", &err)
	d := &decoder[T]{f: f}
	if f.layout == File {
		ra, ok := r.(format.SizedReaderAt)
		if !ok {
			return nil, fmt.Errorf("arrowipc: file layout needs random access (format.SizedReaderAt), got %T", r)
		}
		mem := limitAllocator{memory.NewGoAllocator(), readLimit(ra.Size())}
		fr, err := ipc.NewFileReader(ra, ipc.WithAllocator(mem), ipc.WithSchema(f.m.Schema))
		if err != nil {
			return nil, format.Unexpected("arrowipc: open file", err)
		}
		i := 0
		d.next = func() (arrow.RecordBatch, error) {
			if i >= fr.NumRecords() {
				return nil, nil
			}
			rec, err := fr.RecordBatch(i)
			i++
			return rec, err
		}
		d.close = func() { fr.Close() }
		return d, nil
	}
	mem := limitAllocator{memory.NewGoAllocator(), readLimit(0)}
	sr, err := ipc.NewReader(r, ipc.WithAllocator(mem), ipc.WithSchema(f.m.Schema))
	if err != nil {
		return nil, format.Unexpected("arrowipc: open stream", err)
	}
	d.next = func() (arrow.RecordBatch, error) {
		if sr.Next() {
			return sr.RecordBatch(), nil
		}
		if err := sr.Err(); err != nil {
			return nil, err
		}
		return nil, nil
	}
	d.close = sr.Release
	return d, nil
}
