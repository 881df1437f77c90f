// Package avro implements Avro for a Go type T with github.com/hamba/avro/v2
// (reflection on `avro` struct tags against a schema): the object container
// file (OCF) with its own block codecs, and a plain stream of
// uvarint-length-prefixed binary datums.
package avro

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
	"github.com/serbench/serbench/format"
)

const lib = "github.com/hamba/avro/v2"

func version() string { return format.ModuleVersion(lib, "v2.31.0") }

// OCFCodecs are the container codecs OCF accepts: null, deflate, snappy, zstandard.
func OCFCodecs() []string {
	return []string{string(ocf.Null), string(ocf.Deflate), string(ocf.Snappy), string(ocf.ZStandard)}
}

// OCF is an Avro object container file of T.
type OCF[T any] struct {
	schema      avro.Schema
	codec       ocf.CodecName
	blockLength int
}

// NewOCF returns an object container file of T with the given schema, block
// codec (one of OCFCodecs) and records per block (0 = the library's 100).
func NewOCF[T any](schema string, codec string, blockLength int) (*OCF[T], error) {
	s, err := avro.Parse(schema)
	if err != nil {
		return nil, fmt.Errorf("avro: parse schema: %w", err)
	}
	ok := false
	for _, c := range OCFCodecs() {
		ok = ok || c == codec
	}
	if !ok {
		return nil, fmt.Errorf("avro: unknown OCF codec %q (valid: %v)", codec, OCFCodecs())
	}
	return &OCF[T]{schema: s, codec: ocf.CodecName(codec), blockLength: blockLength}, nil
}

// Descriptor implements format.Format.
func (f *OCF[T]) Descriptor() format.Descriptor {
	name := "avro-ocf"
	if f.codec != ocf.Null {
		name += "-" + string(f.codec)
	}
	return format.Descriptor{
		Name:       name,
		Library:    lib + "/ocf",
		Version:    version(),
		Labels:     []string{format.LabelReflection, format.LabelBinary, format.LabelRow, format.LabelSchema, format.LabelContainer},
		Compresses: f.codec != ocf.Null,
		Detail: fmt.Sprintf("object container file, codec %s, %d records per block; the library's reader drops a "+
			"block cut short without error, so a truncated file shows as missing records", f.codec, f.blockLength),
	}
}

type ocfEncoder[T any] struct{ enc *ocf.Encoder }

func (e ocfEncoder[T]) Encode(v *T) error {
	if err := e.enc.Encode(v); err != nil {
		return fmt.Errorf("avro ocf: encode: %w", err)
	}
	return nil
}

func (e ocfEncoder[T]) Close() error {
	if err := e.enc.Close(); err != nil {
		return fmt.Errorf("avro ocf: close: %w", err)
	}
	return nil
}

// NewEncoder implements format.Format.
func (f *OCF[T]) NewEncoder(w io.Writer) (format.Encoder[T], error) {
	opts := []ocf.EncoderFunc{ocf.WithCodec(f.codec)}
	if f.blockLength > 0 {
		opts = append(opts, ocf.WithBlockLength(f.blockLength))
	}
	enc, err := ocf.NewEncoderWithSchema(f.schema, w, opts...)
	if err != nil {
		return nil, fmt.Errorf("avro ocf: new encoder: %w", err)
	}
	return ocfEncoder[T]{enc}, nil
}

type ocfDecoder[T any] struct {
	dec *ocf.Decoder
	n   int
}

func (d *ocfDecoder[T]) Decode(v *T) (err error) {
	defer format.CatchPanic("avro ocf", &err)
	if !d.dec.HasNext() {
		if err := d.dec.Error(); err != nil {
			return format.Unexpected(fmt.Sprintf("avro ocf: record %d", d.n), err)
		}
		return io.EOF
	}
	// hamba/avro leaves a slice it would reuse untouched when the datum's
	// array is empty: zero v so that nothing of the previous value survives.
	var zero T
	*v = zero
	if err := d.dec.Decode(v); err != nil {
		return fmt.Errorf("avro ocf: record %d: %w", d.n, format.Unexpected("decode", err))
	}
	d.n++
	return nil
}

// NewDecoder implements format.Format. It reads the file header.
func (f *OCF[T]) NewDecoder(r io.Reader) (dec format.Decoder[T], err error) {
	defer format.CatchPanic("avro ocf", &err)
	d, err := ocf.NewDecoder(r)
	if err != nil {
		return nil, fmt.Errorf("avro ocf: header: %w", format.Unexpected("header", err))
	}
	return &ocfDecoder[T]{dec: d}, nil
}

// Datums is a stream of uvarint-length-prefixed Avro binary datums of T, with
// no header: reader and writer share the schema out of band.
type Datums[T any] struct {
	schema avro.Schema
}

// NewDatums returns a length-prefixed datum stream of T with schema.
func NewDatums[T any](schema string) (*Datums[T], error) {
	s, err := avro.Parse(schema)
	if err != nil {
		return nil, fmt.Errorf("avro: parse schema: %w", err)
	}
	return &Datums[T]{schema: s}, nil
}

// Descriptor implements format.Format.
func (f *Datums[T]) Descriptor() format.Descriptor {
	return format.Descriptor{
		Name:    "avro",
		Library: lib,
		Version: version(),
		Labels:  []string{format.LabelReflection, format.LabelBinary, format.LabelRow, format.LabelSchema},
		Detail:  "uvarint-length-prefixed binary datums, schema out of band",
	}
}

type datumEncoder[T any] struct {
	w   io.Writer
	buf bytes.Buffer
	enc *avro.Encoder
	out []byte
}

func (e *datumEncoder[T]) Encode(v *T) error {
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return fmt.Errorf("avro: encode: %w", err)
	}
	e.out = format.AppendFrame(e.out[:0], e.buf.Bytes())
	if _, err := e.w.Write(e.out); err != nil {
		return fmt.Errorf("avro: write: %w", err)
	}
	return nil
}

func (e *datumEncoder[T]) Close() error { return nil }

// NewEncoder implements format.Format.
func (f *Datums[T]) NewEncoder(w io.Writer) (format.Encoder[T], error) {
	e := &datumEncoder[T]{w: w}
	e.enc = avro.NewEncoderForSchema(f.schema, &e.buf)
	return e, nil
}

type datumDecoder[T any] struct {
	r      *bufio.Reader
	schema avro.Schema
	buf    []byte
	n      int
}

func (d *datumDecoder[T]) Decode(v *T) (err error) {
	d.buf, err = format.ReadFrame(d.r, d.buf, format.MaxFrame)
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		return fmt.Errorf("avro: datum %d: %w", d.n, err)
	}
	defer format.CatchPanic("avro", &err)
	// As in the OCF decoder: an empty array would keep the previous slice.
	var zero T
	*v = zero
	if err := avro.Unmarshal(d.schema, d.buf, v); err != nil {
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("%w: %w", io.ErrUnexpectedEOF, err)
		}
		return fmt.Errorf("avro: datum %d: %w", d.n, err)
	}
	d.n++
	return nil
}

// NewDecoder implements format.Format.
func (f *Datums[T]) NewDecoder(r io.Reader) (format.Decoder[T], error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &datumDecoder[T]{r: br, schema: f.schema}, nil
}
