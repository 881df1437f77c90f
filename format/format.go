// Package format defines the streaming interface every serialization format of
// serbench implements — an Encoder writing values of a Go type T to an
// io.Writer and a Decoder reading them back — together with a Descriptor for
// reports and a Registry to enumerate formats by name.
//
// The subpackages implement formats generically over T: by reflection on struct
// tags (jsonl, msgpack, cbor, avro, parquet), through methods generated for T
// (msgp), or through small mapping functions a dataset supplies for libraries
// that need generated or hand-written code (protobuf, flatbuf, arrowipc, csv).
//
// Decoders return io.EOF after the last value of a complete stream. A stream
// that ends inside a value yields an error wrapping io.ErrUnexpectedEOF. A
// stream cut exactly between two values is indistinguishable from a shorter
// stream for formats without a footer (most row formats), so callers that know
// how many values to expect should count them; filebench does.
package format

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
)

// Encoder writes values to an underlying writer.
type Encoder[T any] interface {
	// Encode writes one value.
	Encode(v *T) error
	// Close writes whatever the format buffers or appends at the end (a
	// partial batch, a footer) and flushes. It does not close the underlying
	// writer.
	Close() error
}

// Decoder reads values from an underlying reader.
type Decoder[T any] interface {
	// Decode reads the next value into v, overwriting every field. It returns
	// io.EOF, unwrapped, after the last value.
	Decode(v *T) error
}

// Format creates encoders and decoders of one serialization format for T.
type Format[T any] interface {
	// Descriptor describes the format for reports.
	Descriptor() Descriptor
	// NewEncoder returns an encoder writing to w. The encoder may write to w
	// in many small pieces; callers wanting buffered output wrap w.
	NewEncoder(w io.Writer) (Encoder[T], error)
	// NewDecoder returns a decoder reading from r. Formats whose Descriptor
	// has RandomAccess set require r to implement SizedReaderAt.
	NewDecoder(r io.Reader) (Decoder[T], error)
}

// SizedReaderAt is what random-access formats (Parquet, Arrow IPC file) read
// from; *io.SectionReader and *bytes.Reader implement it.
type SizedReaderAt interface {
	io.Reader
	io.ReaderAt
	io.Seeker
	Size() int64
}

// Labels describing how a format is implemented, for fair comparisons.
const (
	LabelReflection  = "reflection"  // encodes T by reflection on struct tags
	LabelCodegen     = "codegen"     // uses code generated from a schema or from T
	LabelHandwritten = "handwritten" // uses mapping code written for the dataset
	LabelText        = "text"        // human-readable output
	LabelBinary      = "binary"      // binary output
	LabelRow         = "row"         // one value after another
	LabelColumnar    = "columnar"    // values batched into columns
	LabelSchema      = "schema"      // needs a schema at runtime
	LabelContainer   = "container"   // a file format with header/footer and internal blocks
)

// Descriptor describes a format implementation.
type Descriptor struct {
	// Name is the registry name, e.g. "jsonl", "msgpack-msgp", "parquet-zstd".
	Name string
	// Library is the Go package implementing the format.
	Library string
	// Version is the library's module version ("go1.x" for the standard library).
	Version string
	// Labels are Label* constants and other short tags.
	Labels []string
	// Compresses reports whether the format compresses its data itself (Avro
	// container codecs, Parquet and Arrow buffer compression). Such formats are
	// combined only with codec "none".
	Compresses bool
	// RandomAccess reports whether the decoder needs a SizedReaderAt (a file
	// footer is read first). Such formats cannot be read through a
	// decompressing stream and are combined only with codec "none".
	RandomAccess bool
	// Detail is free text: framing, batch sizes, known limitations.
	Detail string
}

// HasLabel reports whether d carries label l.
func (d Descriptor) HasLabel(l string) bool { return slices.Contains(d.Labels, l) }

// StreamOnly reports whether the format may be combined with an outer
// compression codec, i.e. neither compresses itself nor needs random access.
func (d Descriptor) StreamOnly() bool { return !d.Compresses && !d.RandomAccess }

// Registry holds formats for one type T by name. Build one with NewRegistry.
type Registry[T any] struct {
	order  []string
	byName map[string]Format[T]
}

// NewRegistry returns a registry of fs in order; names must be unique.
func NewRegistry[T any](fs ...Format[T]) (*Registry[T], error) {
	r := &Registry[T]{byName: make(map[string]Format[T], len(fs))}
	for _, f := range fs {
		n := f.Descriptor().Name
		if n == "" {
			return nil, errors.New("format: format with empty name")
		}
		if _, dup := r.byName[n]; dup {
			return nil, fmt.Errorf("format: duplicate format name %q", n)
		}
		r.byName[n] = f
		r.order = append(r.order, n)
	}
	return r, nil
}

// Names returns the format names in registry order.
func (r *Registry[T]) Names() []string { return slices.Clone(r.order) }

// All returns the formats in registry order.
func (r *Registry[T]) All() []Format[T] {
	out := make([]Format[T], len(r.order))
	for i, n := range r.order {
		out[i] = r.byName[n]
	}
	return out
}

// Get returns the named format, or an error listing the valid names.
func (r *Registry[T]) Get(name string) (Format[T], error) {
	if f, ok := r.byName[name]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("format: unknown format %q (valid: %s)", name, strings.Join(r.order, ", "))
}

// ModuleVersion returns the version of module path linked into the running
// binary, or fallback when the binary carries no dependency information (as
// test binaries do not).
func ModuleVersion(path, fallback string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return fallback
}

// GoVersion returns the Go version the binary was built with, the "version"
// of standard-library formats.
func GoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return "unknown"
}

// Unexpected names the format part what in err and makes an end of input in
// the middle of a value match io.ErrUnexpectedEOF and not io.EOF, so no caller
// can mistake it for the clean end of a stream.
func Unexpected(what string, err error) error {
	if errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: %w (%v)", what, io.ErrUnexpectedEOF, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// CatchPanic converts a panic raised while decoding — some libraries index
// corrupt input without bounds checks — into an error stored in *err. Use it
// as `defer format.CatchPanic("parquet", &err)`.
func CatchPanic(what string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%s: corrupt input: %v", what, p)
	}
}

// ReadFrame reads one uvarint-length-prefixed frame from r into buf (reused
// when large enough). It returns io.EOF when r is at its end before the first
// byte, an error wrapping io.ErrUnexpectedEOF when it ends inside the frame,
// and an error when the length exceeds max.
func ReadFrame(r io.ByteReader, buf []byte, max int) ([]byte, error) {
	n, err := binaryReadUvarint(r)
	if err != nil {
		return buf[:0], err
	}
	if n > uint64(max) {
		return buf[:0], fmt.Errorf("frame of %d bytes exceeds limit %d (corrupt length?)", n, max)
	}
	if uint64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	rr, ok := r.(io.Reader)
	if !ok {
		return buf[:0], errors.New("frame reader does not implement io.Reader")
	}
	if _, err := io.ReadFull(rr, buf); err != nil {
		return buf[:0], Unexpected("frame body", err)
	}
	return buf, nil
}
