// Package protobuf implements a stream of length-delimited Protocol Buffers
// messages (a uvarint size before each message, as protodelim writes) for a Go
// type T, through a generated message type M and two conversion functions the
// dataset supplies.
package protobuf

import (
	"bufio"
	"fmt"
	"io"

	"github.com/serbench/serbench/format"
	"google.golang.org/protobuf/proto"
)

// Mapping converts between T and the generated message type M.
type Mapping[T any, M proto.Message] struct {
	// New returns an empty message; called once per encoder or decoder.
	New func() M
	// ToMsg fills m from v (m may hold a previous value).
	ToMsg func(v *T, m M) error
	// FromMsg fills v from m.
	FromMsg func(m M, v *T) error
}

// Format is a length-delimited message stream of T.
type Format[T any, M proto.Message] struct {
	name string
	m    Mapping[T, M]
}

// New returns a length-delimited Protocol Buffers stream of T named name.
func New[T any, M proto.Message](name string, m Mapping[T, M]) *Format[T, M] {
	return &Format[T, M]{name: name, m: m}
}

// Descriptor implements format.Format.
func (f *Format[T, M]) Descriptor() format.Descriptor {
	return format.Descriptor{
		Name:    f.name,
		Library: "google.golang.org/protobuf",
		Version: format.ModuleVersion("google.golang.org/protobuf", "v1.36.12"),
		Labels:  []string{format.LabelCodegen, format.LabelBinary, format.LabelRow, format.LabelSchema},
		Detail:  "uvarint-length-delimited messages (protodelim framing); conversion to and from the generated message per record",
	}
}

type encoder[T any, M proto.Message] struct {
	w   io.Writer
	f   *Format[T, M]
	msg M
	buf []byte
	out []byte
}

func (e *encoder[T, M]) Encode(v *T) error {
	if err := e.f.m.ToMsg(v, e.msg); err != nil {
		return fmt.Errorf("protobuf: convert: %w", err)
	}
	var err error
	e.buf, err = proto.MarshalOptions{}.MarshalAppend(e.buf[:0], e.msg)
	if err != nil {
		return fmt.Errorf("protobuf: marshal: %w", err)
	}
	e.out = format.AppendFrame(e.out[:0], e.buf)
	if _, err := e.w.Write(e.out); err != nil {
		return fmt.Errorf("protobuf: write: %w", err)
	}
	return nil
}

func (e *encoder[T, M]) Close() error { return nil }

// NewEncoder implements format.Format.
func (f *Format[T, M]) NewEncoder(w io.Writer) (format.Encoder[T], error) {
	return &encoder[T, M]{w: w, f: f, msg: f.m.New()}, nil
}

type decoder[T any, M proto.Message] struct {
	r   *bufio.Reader
	f   *Format[T, M]
	msg M
	buf []byte
	n   int
}

func (d *decoder[T, M]) Decode(v *T) error {
	var err error
	d.buf, err = format.ReadFrame(d.r, d.buf, format.MaxFrame)
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		return fmt.Errorf("protobuf: message %d: %w", d.n, err)
	}
	if err := (proto.UnmarshalOptions{}).Unmarshal(d.buf, d.msg); err != nil {
		return fmt.Errorf("protobuf: message %d: %w", d.n, err)
	}
	if err := d.f.m.FromMsg(d.msg, v); err != nil {
		return fmt.Errorf("protobuf: message %d: %w", d.n, err)
	}
	d.n++
	return nil
}

// NewDecoder implements format.Format.
func (f *Format[T, M]) NewDecoder(r io.Reader) (format.Decoder[T], error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &decoder[T, M]{r: br, f: f, msg: f.m.New()}, nil
}
