// Package flatbuf implements the seed report's FlatBuffers file: one
// size-prefixed FlatBuffers table per record (a 4-byte little-endian size, then
// the finished buffer), for a Go type T through build and read functions the
// dataset supplies around its flatc-generated code.
package flatbuf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/serbench/serbench/format"
)

// Mapping builds and reads one table.
type Mapping[T any] struct {
	// Build writes v into b (already Reset) and returns the root table offset.
	Build func(b *flatbuffers.Builder, v *T) (flatbuffers.UOffsetT, error)
	// Read verifies buf (a finished buffer without size prefix) and fills v.
	// It must not panic on corrupt input.
	Read func(buf []byte, v *T) error
}

// Format is a stream of size-prefixed FlatBuffers tables.
type Format[T any] struct {
	name string
	m    Mapping[T]
}

// New returns a stream of size-prefixed tables of T named name.
func New[T any](name string, m Mapping[T]) *Format[T] { return &Format[T]{name: name, m: m} }

// Descriptor implements format.Format.
func (f *Format[T]) Descriptor() format.Descriptor {
	return format.Descriptor{
		Name:    f.name,
		Library: "github.com/google/flatbuffers/go",
		Version: format.ModuleVersion("github.com/google/flatbuffers", "v25.12.19+incompatible"),
		Labels:  []string{format.LabelCodegen, format.LabelBinary, format.LabelRow, format.LabelSchema},
		Detail:  "size-prefixed table per record; decode verifies bounds and copies every field into T",
	}
}

type encoder[T any] struct {
	w io.Writer
	f *Format[T]
	b *flatbuffers.Builder
}

func (e *encoder[T]) Encode(v *T) error {
	e.b.Reset()
	root, err := e.f.m.Build(e.b, v)
	if err != nil {
		return fmt.Errorf("flatbuf: build: %w", err)
	}
	e.b.FinishSizePrefixed(root)
	if _, err := e.w.Write(e.b.FinishedBytes()); err != nil {
		return fmt.Errorf("flatbuf: write: %w", err)
	}
	return nil
}

func (e *encoder[T]) Close() error { return nil }

// NewEncoder implements format.Format.
func (f *Format[T]) NewEncoder(w io.Writer) (format.Encoder[T], error) {
	return &encoder[T]{w: w, f: f, b: flatbuffers.NewBuilder(256)}, nil
}

type decoder[T any] struct {
	r   *bufio.Reader
	f   *Format[T]
	buf []byte
	n   int
}

func (d *decoder[T]) Decode(v *T) (err error) {
	var size [4]byte
	if _, err := io.ReadFull(d.r, size[:]); err != nil {
		if err == io.EOF {
			return io.EOF
		}
		return fmt.Errorf("flatbuf: table %d: size prefix: %w", d.n, err)
	}
	n := binary.LittleEndian.Uint32(size[:])
	if n > format.MaxFrame {
		return fmt.Errorf("flatbuf: table %d: size %d exceeds limit (corrupt?)", d.n, n)
	}
	if uint32(cap(d.buf)) < n {
		d.buf = make([]byte, n)
	}
	d.buf = d.buf[:n]
	if _, err := io.ReadFull(d.r, d.buf); err != nil {
		return fmt.Errorf("flatbuf: table %d: %w", d.n, format.Unexpected("body", err))
	}
	defer format.CatchPanic("flatbuf", &err)
	if err := d.f.m.Read(d.buf, v); err != nil {
		return fmt.Errorf("flatbuf: table %d: %w", d.n, err)
	}
	d.n++
	return nil
}

// NewDecoder implements format.Format.
func (f *Format[T]) NewDecoder(r io.Reader) (format.Decoder[T], error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &decoder[T]{r: br, f: f}, nil
}
