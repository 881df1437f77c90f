// Package jsonl implements JSON Lines (one JSON object per line) for any Go
// type T, with either the standard library's encoding/json or goccy/go-json.
//
// Encoding uses the library's Encoder (which appends the newline); decoding
// reads one line at a time and unmarshals it, so a final line without its
// newline — a truncated file — is an error rather than a silently shorter
// last record. Float64 values round-trip exactly: both libraries print the
// shortest representation that parses back to the same bits.
package jsonl

import (
	"encoding/json"
	"fmt"
	"io"

	gojson "github.com/goccy/go-json"
	"github.com/serbench/serbench/format"
)

// Library selects the JSON implementation.
type Library int

const (
	// Std is the standard library's encoding/json.
	Std Library = iota
	// Goccy is github.com/goccy/go-json.
	Goccy
)

// Format is JSON Lines of T with one library.
type Format[T any] struct {
	lib Library
}

// New returns JSON Lines of T using lib.
func New[T any](lib Library) *Format[T] { return &Format[T]{lib: lib} }

// Descriptor implements format.Format.
func (f *Format[T]) Descriptor() format.Descriptor {
	d := format.Descriptor{
		Labels: []string{format.LabelReflection, format.LabelText, format.LabelRow},
		Detail: "one JSON object per line; final newline required",
	}
	switch f.lib {
	case Goccy:
		d.Name, d.Library = "jsonl-goccy", "github.com/goccy/go-json"
		d.Version = format.ModuleVersion("github.com/goccy/go-json", "v0.12.0")
	default:
		d.Name, d.Library, d.Version = "jsonl", "encoding/json", format.GoVersion()
	}
	return d
}

type encoder[T any] struct {
	enc interface{ Encode(any) error }
}

func (e encoder[T]) Encode(v *T) error {
	if err := e.enc.Encode(v); err != nil {
		return fmt.Errorf("jsonl: encode: %w", err)
	}
	return nil
}

func (encoder[T]) Close() error { return nil }

// NewEncoder implements format.Format.
func (f *Format[T]) NewEncoder(w io.Writer) (format.Encoder[T], error) {
	if f.lib == Goccy {
		return encoder[T]{gojson.NewEncoder(w)}, nil
	}
	return encoder[T]{json.NewEncoder(w)}, nil
}

type decoder[T any] struct {
	lines     *format.LineReader
	unmarshal func([]byte, any) error
}

func (d *decoder[T]) Decode(v *T) error {
	line, err := d.lines.Next()
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	var zero T
	*v = zero
	if err := d.unmarshal(line, v); err != nil {
		return fmt.Errorf("jsonl: line %d: %w", d.lines.Line(), err)
	}
	return nil
}

// NewDecoder implements format.Format.
func (f *Format[T]) NewDecoder(r io.Reader) (format.Decoder[T], error) {
	d := &decoder[T]{lines: format.NewLineReader(r), unmarshal: json.Unmarshal}
	if f.lib == Goccy {
		d.unmarshal = gojson.Unmarshal
	}
	return d, nil
}
