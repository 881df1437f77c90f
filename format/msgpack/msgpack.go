// Package msgpack implements a MessagePack stream of any Go type T with
// github.com/vmihailenco/msgpack/v5 (reflection on struct tags), one value
// after another, structs encoded as maps keyed by field name (the library's
// default).
//
// The library's Encoder writes to its io.Writer in small pieces (a write per
// field) when the writer is not buffered; that is the cause of the seed
// report's slow unbuffered "MsgPack Plain" write.
package msgpack

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/serbench/serbench/format"
	"github.com/vmihailenco/msgpack/v5"
)

// Format is a MessagePack stream of T.
type Format[T any] struct{}

// New returns a MessagePack stream of T.
func New[T any]() *Format[T] { return &Format[T]{} }

// Descriptor implements format.Format.
func (*Format[T]) Descriptor() format.Descriptor {
	return format.Descriptor{
		Name:    "msgpack",
		Library: "github.com/vmihailenco/msgpack/v5",
		Version: format.ModuleVersion("github.com/vmihailenco/msgpack/v5", "v5.4.1"),
		Labels:  []string{format.LabelReflection, format.LabelBinary, format.LabelRow},
		Detail:  "values back to back; structs as maps",
	}
}

type encoder[T any] struct{ enc *msgpack.Encoder }

func (e encoder[T]) Encode(v *T) error {
	if err := e.enc.Encode(v); err != nil {
		return fmt.Errorf("msgpack: encode: %w", err)
	}
	return nil
}

func (encoder[T]) Close() error { return nil }

// NewEncoder implements format.Format.
func (*Format[T]) NewEncoder(w io.Writer) (format.Encoder[T], error) {
	return encoder[T]{msgpack.NewEncoder(w)}, nil
}

type decoder[T any] struct {
	br  *bufio.Reader
	dec *msgpack.Decoder
	n   int
}

func (d *decoder[T]) Decode(v *T) error {
	if _, err := d.br.Peek(1); err == io.EOF {
		return io.EOF
	}
	var zero T
	*v = zero
	if err := d.dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("msgpack: value %d: %w", d.n, err)
	}
	d.n++
	return nil
}

// NewDecoder implements format.Format.
func (*Format[T]) NewDecoder(r io.Reader) (format.Decoder[T], error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &decoder[T]{br: br, dec: msgpack.NewDecoder(br)}, nil
}
