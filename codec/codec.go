// Package codec provides compression codecs selected by name and optional level
// ("zstd", "zstd:19", "gzip:9", "none"), each with a streaming API (NewWriter,
// NewReader) and a block API (Encode, Decode) that appends to a destination slice.
//
// Codecs are obtained from a Registry built by Default; nothing in this package is
// global mutable state. A Codec value may be used by several goroutines at once: it
// keeps pools of encoders and decoders so that repeated use reuses library state
// wherever the underlying library allows it (Reset methods, zstd EncodeAll/DecodeAll).
//
// Block formats: zstd uses one zstd frame, snappy and s2 their block formats, lz4 a
// uvarint decoded length followed by an lz4 block, and gzip, brotli and xz — which have
// no separate block format — one complete stream. "none" copies the bytes.
package codec

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
)

// DefaultMaxDecodedSize bounds the size of one block produced by Codec.Decode, so a
// corrupt or hostile block cannot make the decoder allocate without limit.
const DefaultMaxDecodedSize = 1 << 30

// ErrTooLarge is returned by Decode when a block would decode to more than the
// codec's maximum decoded size.
var ErrTooLarge = errors.New("codec: decoded block exceeds maximum size")

// Codec is one compression algorithm at one level.
type Codec interface {
	// Info describes the codec for reports.
	Info() Info
	// NewWriter returns a writer compressing into w. Close flushes the compressed
	// stream's trailer; it does not close w.
	NewWriter(w io.Writer) (io.WriteCloser, error)
	// NewReader returns a reader decompressing r. Close releases decoder resources;
	// it does not close r. A truncated or corrupt stream yields an error from Read,
	// except where the stream format cannot tell (see Info.DetectsTruncation).
	NewReader(r io.Reader) (io.ReadCloser, error)
	// Encode appends the compressed form of src to dst and returns the result.
	Encode(dst, src []byte) ([]byte, error)
	// Decode appends the decompressed form of the block src to dst and returns
	// the result.
	Decode(dst, src []byte) ([]byte, error)
}

// Info is the metadata of a codec instance, for reports and case names.
type Info struct {
	// Name is the codec's registry name, e.g. "zstd".
	Name string
	// Level is the effective level in the codec's own scale; meaningful only
	// when HasLevels is true.
	Level int
	// LevelSet reports whether the level was given explicitly in the spec.
	LevelSet bool
	// HasLevels reports whether the codec accepts a level at all.
	HasLevels bool
	// Library is the Go package implementing the codec.
	Library string
	// Version is the library's module version.
	Version string
	// Detail is free text on how the level maps onto the library, if it is not
	// one to one (e.g. zstd's levels map to four klauspost encoder speeds).
	Detail string
	// DetectsTruncation reports whether the stream format itself detects a stream
	// cut at any point (an end marker or trailer). The snappy and s2 framing
	// formats have none: a stream cut at a chunk boundary reads as a shorter,
	// valid stream.
	DetectsTruncation bool
}

// Spec returns the string that parses back to this codec: "zstd" when the level
// was not set, "zstd:19" when it was.
func (i Info) Spec() string {
	if i.LevelSet {
		return i.Name + ":" + strconv.Itoa(i.Level)
	}
	return i.Name
}

// Factory describes one codec family and builds instances of it.
type Factory struct {
	// Name is the registry name.
	Name string
	// Library is the implementing Go package.
	Library string
	// HasLevels reports whether levels are accepted.
	HasLevels bool
	// MinLevel and MaxLevel bound the accepted levels when HasLevels is true.
	MinLevel, MaxLevel int
	// DefaultLevel is the level used when none is given.
	DefaultLevel int
	// New builds a codec at level; set reports whether the level was explicit.
	New func(level int, set bool) (Codec, error)
}

// Registry maps codec names to factories. Build one with Default or NewRegistry.
type Registry struct {
	order  []string
	byName map[string]Factory
}

// NewRegistry returns a registry holding the given factories, in order.
// Duplicate names are an error.
func NewRegistry(fs ...Factory) (*Registry, error) {
	r := &Registry{byName: make(map[string]Factory, len(fs))}
	for _, f := range fs {
		if f.Name == "" || f.New == nil {
			return nil, fmt.Errorf("codec: factory %q is incomplete", f.Name)
		}
		if _, dup := r.byName[f.Name]; dup {
			return nil, fmt.Errorf("codec: duplicate codec name %q", f.Name)
		}
		r.byName[f.Name] = f
		r.order = append(r.order, f.Name)
	}
	return r, nil
}

// Default returns a fresh registry of every codec this package provides:
// none, gzip, zstd, lz4, brotli, xz, snappy, s2.
func Default() *Registry {
	r, err := NewRegistry(noneFactory(), gzipFactory(), zstdFactory(), lz4Factory(),
		brotliFactory(), xzFactory(), snappyFactory(), s2Factory())
	if err != nil {
		// The built-in factories have distinct names; this cannot happen.
		panic(err)
	}
	return r
}

// Names returns the codec names in registry order.
func (r *Registry) Names() []string {
	return append([]string(nil), r.order...)
}

// Factory returns the factory registered under name.
func (r *Registry) Factory(name string) (Factory, bool) {
	f, ok := r.byName[name]
	return f, ok
}

// Parse builds a codec from a spec "name" or "name:level". Unknown names and
// out-of-range levels yield an error naming the valid choices.
func (r *Registry) Parse(spec string) (Codec, error) {
	name, levelText, hasLevel := strings.Cut(strings.TrimSpace(spec), ":")
	name = strings.ToLower(name)
	f, ok := r.byName[name]
	if !ok {
		return nil, fmt.Errorf("codec: unknown codec %q (valid: %s)", name, strings.Join(r.order, ", "))
	}
	if !hasLevel {
		return f.New(f.DefaultLevel, false)
	}
	if !f.HasLevels {
		return nil, fmt.Errorf("codec: %s takes no level (got %q); use %q", name, spec, name)
	}
	level, err := strconv.Atoi(levelText)
	if err != nil || level < f.MinLevel || level > f.MaxLevel {
		return nil, fmt.Errorf("codec: invalid level %q for %s (valid: %d..%d, default %d)",
			levelText, name, f.MinLevel, f.MaxLevel, f.DefaultLevel)
	}
	return f.New(level, true)
}

// MustParse is like Parse but panics on error; for tests and fixed, known specs.
func (r *Registry) MustParse(spec string) Codec {
	c, err := r.Parse(spec)
	if err != nil {
		panic(err)
	}
	return c
}

// Describe returns a one-line description of every codec and its levels, for a
// "list" command.
func (r *Registry) Describe() []string {
	out := make([]string, 0, len(r.order))
	for _, n := range r.order {
		f := r.byName[n]
		s := fmt.Sprintf("%s (%s)", n, f.Library)
		if f.HasLevels {
			s += fmt.Sprintf(" levels %d..%d, default %d", f.MinLevel, f.MaxLevel, f.DefaultLevel)
		}
		out = append(out, s)
	}
	return out
}

// Module paths and versions of the libraries, used when the running binary carries
// no build information (test binaries). TestModuleVersions checks them against go.mod.
var fallbackVersions = map[string]string{
	"github.com/klauspost/compress": "v1.20.4",
	"github.com/pierrec/lz4/v4":     "v4.1.33",
	"github.com/andybalholm/brotli": "v1.3.0",
	"github.com/ulikunitz/xz":       "v0.5.17",
	"github.com/golang/snappy":      "v1.0.0",
}

// moduleVersion returns the version of module path linked into the binary.
func moduleVersion(path string) string {
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
	if v, ok := fallbackVersions[path]; ok {
		return v
	}
	return "unknown"
}

// limitedReadAll appends everything from r to dst, failing with ErrTooLarge once
// more than max bytes have been appended.
func limitedReadAll(dst []byte, r io.Reader, max int) ([]byte, error) {
	start := len(dst)
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if len(dst)-start > max {
			return dst[:start], ErrTooLarge
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst[:start], err
		}
	}
}

// setMaxDecoded lowers the block decoder's size limit; used by fuzz tests.
func setMaxDecoded(c Codec, n int) {
	switch c := c.(type) {
	case *gzipCodec:
		c.maxDecoded = n
	case *brotliCodec:
		c.maxDecoded = n
	case *xzCodec:
		c.maxDecoded = n
	case *snappyCodec:
		c.maxDecoded = n
	case *s2Codec:
		c.maxDecoded = n
	case *zstdCodec:
		c.maxDecoded = n
	case *lz4Codec:
		c.maxDecoded = n
	}
}
