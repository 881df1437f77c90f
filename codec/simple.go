package codec

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
)

// nopWriteCloser adapts an io.Writer to io.WriteCloser without closing it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// none ---------------------------------------------------------------------

type noneCodec struct{ info Info }

func noneFactory() Factory {
	return Factory{
		Name:    "none",
		Library: "(none)",
		New: func(int, bool) (Codec, error) {
			return noneCodec{info: Info{Name: "none", Library: "(none)", Version: "-", DetectsTruncation: false, Detail: "bytes pass through unchanged"}}, nil
		},
	}
}

func (c noneCodec) Info() Info                                  { return c.info }
func (noneCodec) NewWriter(w io.Writer) (io.WriteCloser, error) { return nopWriteCloser{w}, nil }
func (noneCodec) NewReader(r io.Reader) (io.ReadCloser, error)  { return io.NopCloser(r), nil }
func (noneCodec) Encode(dst, src []byte) ([]byte, error)        { return append(dst, src...), nil }
func (noneCodec) Decode(dst, src []byte) ([]byte, error)        { return append(dst, src...), nil }

// gzip ---------------------------------------------------------------------

const gzipLib = "github.com/klauspost/compress/gzip"

type gzipCodec struct {
	info       Info
	level      int
	maxDecoded int
	writers    sync.Pool // *gzip.Writer for Encode
}

func gzipFactory() Factory {
	return Factory{
		Name: "gzip", Library: gzipLib, HasLevels: true, MinLevel: 1, MaxLevel: 9, DefaultLevel: 6,
		New: func(level int, set bool) (Codec, error) {
			return &gzipCodec{
				level:      level,
				maxDecoded: DefaultMaxDecodedSize,
				info: Info{Name: "gzip", Level: level, LevelSet: set, HasLevels: true, Library: gzipLib,
					Version: moduleVersion("github.com/klauspost/compress"), DetectsTruncation: true},
			}, nil
		},
	}
}

func (c *gzipCodec) Info() Info { return c.info }

func (c *gzipCodec) NewWriter(w io.Writer) (io.WriteCloser, error) {
	zw, err := gzip.NewWriterLevel(w, c.level)
	if err != nil {
		return nil, fmt.Errorf("gzip: new writer: %w", err)
	}
	return zw, nil
}

func (c *gzipCodec) NewReader(r io.Reader) (io.ReadCloser, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("gzip: read header: %w", err)
	}
	return zr, nil
}

func (c *gzipCodec) Encode(dst, src []byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	zw, _ := c.writers.Get().(*gzip.Writer)
	if zw == nil {
		var err error
		if zw, err = gzip.NewWriterLevel(buf, c.level); err != nil {
			return dst, fmt.Errorf("gzip: new writer: %w", err)
		}
	} else {
		zw.Reset(buf)
	}
	defer c.writers.Put(zw)
	if _, err := zw.Write(src); err != nil {
		return dst, fmt.Errorf("gzip: encode: %w", err)
	}
	if err := zw.Close(); err != nil {
		return dst, fmt.Errorf("gzip: encode: %w", err)
	}
	return buf.Bytes(), nil
}

func (c *gzipCodec) Decode(dst, src []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(src))
	if err != nil {
		return dst, fmt.Errorf("gzip: decode: %w", err)
	}
	zr.Multistream(false)
	out, err := limitedReadAll(dst, zr, c.maxDecoded)
	if err != nil {
		return dst, fmt.Errorf("gzip: decode: %w", err)
	}
	return out, nil
}

// brotli -------------------------------------------------------------------

const brotliLib = "github.com/andybalholm/brotli"

type brotliCodec struct {
	info       Info
	level      int
	maxDecoded int
}

func brotliFactory() Factory {
	return Factory{
		Name: "brotli", Library: brotliLib, HasLevels: true, MinLevel: 0, MaxLevel: 11, DefaultLevel: brotli.DefaultCompression,
		New: func(level int, set bool) (Codec, error) {
			return &brotliCodec{level: level, maxDecoded: DefaultMaxDecodedSize,
				info: Info{Name: "brotli", Level: level, LevelSet: set, HasLevels: true, Library: brotliLib,
					Version: moduleVersion(brotliLib), DetectsTruncation: true}}, nil
		},
	}
}

func (c *brotliCodec) Info() Info { return c.info }

func (c *brotliCodec) NewWriter(w io.Writer) (io.WriteCloser, error) {
	return brotli.NewWriterLevel(w, c.level), nil
}

func (c *brotliCodec) NewReader(r io.Reader) (io.ReadCloser, error) {
	return io.NopCloser(brotli.NewReader(r)), nil
}

func (c *brotliCodec) Encode(dst, src []byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	bw := brotli.NewWriterLevel(buf, c.level)
	if _, err := bw.Write(src); err != nil {
		return dst, fmt.Errorf("brotli: encode: %w", err)
	}
	if err := bw.Close(); err != nil {
		return dst, fmt.Errorf("brotli: encode: %w", err)
	}
	return buf.Bytes(), nil
}

func (c *brotliCodec) Decode(dst, src []byte) ([]byte, error) {
	out, err := limitedReadAll(dst, brotli.NewReader(bytes.NewReader(src)), c.maxDecoded)
	if err != nil {
		return dst, fmt.Errorf("brotli: decode: %w", err)
	}
	return out, nil
}

// snappy -------------------------------------------------------------------

const snappyLib = "github.com/golang/snappy"

type snappyCodec struct {
	info       Info
	maxDecoded int
}

func snappyFactory() Factory {
	return Factory{
		Name: "snappy", Library: snappyLib,
		New: func(int, bool) (Codec, error) {
			return &snappyCodec{maxDecoded: DefaultMaxDecodedSize,
				info: Info{Name: "snappy", Library: snappyLib, Version: moduleVersion(snappyLib),
					Detail: "stream: snappy framing format; block: snappy block format"}}, nil
		},
	}
}

func (c *snappyCodec) Info() Info { return c.info }

func (c *snappyCodec) NewWriter(w io.Writer) (io.WriteCloser, error) {
	return snappy.NewBufferedWriter(w), nil
}

func (c *snappyCodec) NewReader(r io.Reader) (io.ReadCloser, error) {
	return io.NopCloser(snappy.NewReader(r)), nil
}

func (c *snappyCodec) Encode(dst, src []byte) ([]byte, error) {
	n := snappy.MaxEncodedLen(len(src))
	if n < 0 {
		return dst, fmt.Errorf("snappy: encode: block of %d bytes is too large", len(src))
	}
	start := len(dst)
	dst = grow(dst, n)
	out := snappy.Encode(dst[start:start+n], src)
	return dst[:start+len(out)], nil
}

func (c *snappyCodec) Decode(dst, src []byte) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return dst, fmt.Errorf("snappy: decode: %w", err)
	}
	if n > c.maxDecoded {
		return dst, fmt.Errorf("snappy: decode: %w (%d bytes)", ErrTooLarge, n)
	}
	start := len(dst)
	dst = grow(dst, n)
	out, err := snappy.Decode(dst[start:start+n], src)
	if err != nil {
		return dst[:start], fmt.Errorf("snappy: decode: %w", err)
	}
	return dst[:start+len(out)], nil
}

// s2 -----------------------------------------------------------------------

const s2Lib = "github.com/klauspost/compress/s2"

type s2Codec struct {
	info       Info
	level      int
	maxDecoded int
}

func s2Factory() Factory {
	return Factory{
		Name: "s2", Library: s2Lib, HasLevels: true, MinLevel: 1, MaxLevel: 3, DefaultLevel: 1,
		New: func(level int, set bool) (Codec, error) {
			return &s2Codec{level: level, maxDecoded: DefaultMaxDecodedSize,
				info: Info{Name: "s2", Level: level, LevelSet: set, HasLevels: true, Library: s2Lib,
					Version: moduleVersion("github.com/klauspost/compress"),
					Detail:  "levels: 1 default, 2 better, 3 best"}}, nil
		},
	}
}

func (c *s2Codec) Info() Info { return c.info }

func (c *s2Codec) NewWriter(w io.Writer) (io.WriteCloser, error) {
	var opts []s2.WriterOption
	switch c.level {
	case 2:
		opts = append(opts, s2.WriterBetterCompression())
	case 3:
		opts = append(opts, s2.WriterBestCompression())
	}
	return s2.NewWriter(w, opts...), nil
}

func (c *s2Codec) NewReader(r io.Reader) (io.ReadCloser, error) {
	return io.NopCloser(s2.NewReader(r)), nil
}

func (c *s2Codec) Encode(dst, src []byte) ([]byte, error) {
	n := s2.MaxEncodedLen(len(src))
	if n < 0 {
		return dst, fmt.Errorf("s2: encode: block of %d bytes is too large", len(src))
	}
	start := len(dst)
	dst = grow(dst, n)
	var out []byte
	switch c.level {
	case 2:
		out = s2.EncodeBetter(dst[start:start+n], src)
	case 3:
		out = s2.EncodeBest(dst[start:start+n], src)
	default:
		out = s2.Encode(dst[start:start+n], src)
	}
	return dst[:start+len(out)], nil
}

func (c *s2Codec) Decode(dst, src []byte) ([]byte, error) {
	n, err := s2.DecodedLen(src)
	if err != nil {
		return dst, fmt.Errorf("s2: decode: %w", err)
	}
	if n > c.maxDecoded {
		return dst, fmt.Errorf("s2: decode: %w (%d bytes)", ErrTooLarge, n)
	}
	start := len(dst)
	dst = grow(dst, n)
	out, err := s2.Decode(dst[start:start+n], src)
	if err != nil {
		return dst[:start], fmt.Errorf("s2: decode: %w", err)
	}
	return dst[:start+len(out)], nil
}

// grow returns dst extended by n bytes (reallocating if needed); the caller
// fills dst[len(dst):len(dst)+n] and trims the result.
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) < n {
		nd := make([]byte, len(dst), len(dst)+n)
		copy(nd, dst)
		dst = nd
	}
	return dst[:len(dst)+n]
}
