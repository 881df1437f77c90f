// Package cbor implements a CBOR sequence (RFC 8742, items back to back) of any
// Go type T with github.com/fxamacker/cbor/v2, structs encoded as maps keyed
// by field name (the library's default).
package cbor

import (
	"errors"
	"fmt"
	"io"

	"github.com/fxamacker/cbor/v2"
	"github.com/serbench/serbench/format"
)

// Format is a CBOR sequence of T.
type Format[T any] struct{}

// New returns a CBOR sequence of T.
func New[T any]() *Format[T] { return &Format[T]{} }

// Descriptor implements format.Format.
func (*Format[T]) Descriptor() format.Descriptor {
	return format.Descriptor{
		Name:    "cbor",
		Library: "github.com/fxamacker/cbor/v2",
		Version: format.ModuleVersion("github.com/fxamacker/cbor/v2", "v2.10.0"),
		Labels:  []string{format.LabelReflection, format.LabelBinary, format.LabelRow},
		Detail:  "CBOR sequence; structs as maps",
	}
}

type encoder[T any] struct{ enc *cbor.Encoder }

func (e encoder[T]) Encode(v *T) error {
	if err := e.enc.Encode(v); err != nil {
		return fmt.Errorf("cbor: encode: %w", err)
	}
	return nil
}

func (encoder[T]) Close() error { return nil }

// NewEncoder implements format.Format.
func (*Format[T]) NewEncoder(w io.Writer) (format.Encoder[T], error) {
	return encoder[T]{cbor.NewEncoder(w)}, nil
}

type decoder[T any] struct {
	dec *cbor.Decoder
	n   int
}

func (d *decoder[T]) Decode(v *T) error {
	var zero T
	*v = zero
	err := d.dec.Decode(v)
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("cbor: item %d: %w", d.n, err)
	}
	d.n++
	return nil
}

// NewDecoder implements format.Format.
func (*Format[T]) NewDecoder(r io.Reader) (format.Decoder[T], error) {
	return &decoder[T]{dec: cbor.NewDecoder(r)}, nil
}
