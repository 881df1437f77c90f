// Package parquet implements Apache Parquet files of a Go type T with
// github.com/parquet-go/parquet-go (reflection on `parquet` struct tags), with
// the format's own column compression. Reading needs random access (the footer
// first), so the decoder requires a format.SizedReaderAt.
package parquet

import (
	"fmt"
	"io"
	"sort"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/serbench/serbench/format"
)

const lib = "github.com/parquet-go/parquet-go"

// codecs maps compression names to parquet-go codecs.
func codecs() map[string]compress.Codec {
	return map[string]compress.Codec{
		"none":   &parquet.Uncompressed,
		"snappy": &parquet.Snappy,
		"gzip":   &parquet.Gzip,
		"zstd":   &parquet.Zstd,
		"lz4":    &parquet.Lz4Raw,
		"brotli": &parquet.Brotli,
	}
}

// Compressions returns the column compression names New accepts.
func Compressions() []string {
	var out []string
	for n := range codecs() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// DefaultRowGroupRows bounds the rows buffered in memory before a row group is
// written out.
const DefaultRowGroupRows = 128 << 10

// Format is a Parquet file of T.
type Format[T any] struct {
	compression  string
	codec        compress.Codec
	rowGroupRows int64
}

// New returns Parquet of T with column compression (one of Compressions) and
// row groups of rowGroupRows rows (0 = DefaultRowGroupRows).
func New[T any](compression string, rowGroupRows int) (*Format[T], error) {
	c, ok := codecs()[compression]
	if !ok {
		return nil, fmt.Errorf("parquet: unknown compression %q (valid: %v)", compression, Compressions())
	}
	if rowGroupRows <= 0 {
		rowGroupRows = DefaultRowGroupRows
	}
	return &Format[T]{compression: compression, codec: c, rowGroupRows: int64(rowGroupRows)}, nil
}

// Descriptor implements format.Format.
func (f *Format[T]) Descriptor() format.Descriptor {
	return format.Descriptor{
		Name:         "parquet-" + f.compression,
		Library:      lib,
		Version:      format.ModuleVersion(lib, "v0.32.1"),
		Labels:       []string{format.LabelReflection, format.LabelBinary, format.LabelColumnar, format.LabelContainer},
		Compresses:   f.compression != "none",
		RandomAccess: true,
		Detail:       fmt.Sprintf("column compression %s, row groups of %d rows", f.compression, f.rowGroupRows),
	}
}

type encoder[T any] struct {
	w   *parquet.GenericWriter[T]
	one []T
}

func (e *encoder[T]) Encode(v *T) error {
	e.one[0] = *v
	if _, err := e.w.Write(e.one); err != nil {
		return fmt.Errorf("parquet: write: %w", err)
	}
	return nil
}

func (e *encoder[T]) Close() error {
	if err := e.w.Close(); err != nil {
		return fmt.Errorf("parquet: close: %w", err)
	}
	return nil
}

// NewEncoder implements format.Format.
func (f *Format[T]) NewEncoder(w io.Writer) (enc format.Encoder[T], err error) {
	defer format.CatchPanic("parquet", &err)
	pw := parquet.NewGenericWriter[T](w, parquet.Compression(f.codec), parquet.MaxRowsPerRowGroup(f.rowGroupRows))
	return &encoder[T]{w: pw, one: make([]T, 1)}, nil
}

// batchRows is how many rows the decoder reads at a time.
const batchRows = 1024

type decoder[T any] struct {
	r    *parquet.GenericReader[T]
	buf  []T
	pos  int
	done bool
	n    int
}

func (d *decoder[T]) Decode(v *T) (err error) {
	defer format.CatchPanic("parquet", &err)
	for d.pos >= len(d.buf) {
		if d.done {
			return io.EOF
		}
		d.buf = d.buf[:cap(d.buf)]
		n, err := d.r.Read(d.buf)
		d.buf, d.pos = d.buf[:n], 0
		if err == io.EOF {
			d.done = true
		} else if err != nil {
			return format.Unexpected(fmt.Sprintf("parquet: row %d", d.n), err)
		}
		if n == 0 && !d.done {
			return fmt.Errorf("parquet: row %d: reader made no progress", d.n)
		}
	}
	*v = d.buf[d.pos]
	d.pos++
	d.n++
	return nil
}

// NewDecoder implements format.Format. r must be a format.SizedReaderAt.
func (f *Format[T]) NewDecoder(r io.Reader) (dec format.Decoder[T], err error) {
	defer format.CatchPanic("parquet", &err)
	ra, ok := r.(format.SizedReaderAt)
	if !ok {
		return nil, fmt.Errorf("parquet: decoder needs random access (format.SizedReaderAt), got %T", r)
	}
	file, err := parquet.OpenFile(ra, ra.Size())
	if err != nil {
		return nil, format.Unexpected("parquet: open", err)
	}
	return &decoder[T]{r: parquet.NewGenericReader[T](file), buf: make([]T, 0, batchRows)}, nil
}
