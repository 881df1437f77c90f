package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// zstd ---------------------------------------------------------------------

const zstdLib = "github.com/klauspost/compress/zstd"

type zstdCodec struct {
	info       Info
	level      zstd.EncoderLevel
	maxDecoded int

	blockOnce sync.Once
	blockEnc  *zstd.Encoder // EncodeAll is safe for concurrent use
	blockDec  *zstd.Decoder // DecodeAll is safe for concurrent use
	blockErr  error
	writers   sync.Pool // *zstd.Encoder for NewWriter, reused via Reset
}

func zstdFactory() Factory {
	return Factory{
		Name: "zstd", Library: zstdLib, HasLevels: true, MinLevel: 1, MaxLevel: 22, DefaultLevel: 3,
		New: func(level int, set bool) (Codec, error) {
			el := zstd.EncoderLevelFromZstd(level)
			return &zstdCodec{level: el, maxDecoded: DefaultMaxDecodedSize,
				info: Info{Name: "zstd", Level: level, LevelSet: set, HasLevels: true, Library: zstdLib,
					Version: moduleVersion("github.com/klauspost/compress"), DetectsTruncation: true,
					Detail: fmt.Sprintf("zstd level %d maps to klauspost encoder level %q", level, el.String())}}, nil
		},
	}
}

func (c *zstdCodec) Info() Info { return c.info }

// zstdWriter returns its encoder to the codec's pool on Close.
type zstdWriter struct {
	*zstd.Encoder
	c *zstdCodec
}

func (w *zstdWriter) Close() error {
	if w.Encoder == nil {
		return nil
	}
	err := w.Encoder.Close()
	if err == nil {
		w.c.writers.Put(w.Encoder)
	}
	w.Encoder = nil
	if err != nil {
		return fmt.Errorf("zstd: close: %w", err)
	}
	return nil
}

func (c *zstdCodec) NewWriter(w io.Writer) (io.WriteCloser, error) {
	if enc, ok := c.writers.Get().(*zstd.Encoder); ok {
		enc.Reset(w)
		return &zstdWriter{Encoder: enc, c: c}, nil
	}
	enc, err := zstd.NewWriter(w, zstd.WithEncoderLevel(c.level))
	if err != nil {
		return nil, fmt.Errorf("zstd: new writer: %w", err)
	}
	return &zstdWriter{Encoder: enc, c: c}, nil
}

// zstdReader closes its decoder (stopping its goroutines) on Close.
type zstdReader struct{ *zstd.Decoder }

func (r zstdReader) Close() error {
	r.Decoder.Close()
	return nil
}

func (c *zstdCodec) NewReader(r io.Reader) (io.ReadCloser, error) {
	dec, err := zstd.NewReader(r, zstd.WithDecoderMaxMemory(uint64(c.maxDecoded)))
	if err != nil {
		return nil, fmt.Errorf("zstd: new reader: %w", err)
	}
	return zstdReader{dec}, nil
}

func (c *zstdCodec) initBlock() error {
	c.blockOnce.Do(func() {
		c.blockEnc, c.blockErr = zstd.NewWriter(nil, zstd.WithEncoderLevel(c.level))
		if c.blockErr != nil {
			return
		}
		c.blockDec, c.blockErr = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(uint64(c.maxDecoded)),
			zstd.WithDecoderConcurrency(0))
	})
	return c.blockErr
}

func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	if err := c.initBlock(); err != nil {
		return dst, fmt.Errorf("zstd: encode: %w", err)
	}
	return c.blockEnc.EncodeAll(src, dst), nil
}

func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) {
	if err := c.initBlock(); err != nil {
		return dst, fmt.Errorf("zstd: decode: %w", err)
	}
	out, err := c.blockDec.DecodeAll(src, dst)
	if err != nil {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
			err = fmt.Errorf("%w: %w", ErrTooLarge, err)
		}
		return dst, fmt.Errorf("zstd: decode: %w", err)
	}
	if len(out)-len(dst) > c.maxDecoded {
		return dst, fmt.Errorf("zstd: decode: %w", ErrTooLarge)
	}
	return out, nil
}

// lz4 ----------------------------------------------------------------------

const lz4Lib = "github.com/pierrec/lz4/v4"

type lz4Codec struct {
	info       Info
	level      lz4.CompressionLevel
	maxDecoded int
	fast       sync.Pool // *lz4.Compressor
	hc         sync.Pool // *lz4.CompressorHC
}

// lz4Levels maps levels 0..9 onto the library's levels (0 = Fast, the default).
var lz4Levels = [...]lz4.CompressionLevel{lz4.Fast, lz4.Level1, lz4.Level2, lz4.Level3,
	lz4.Level4, lz4.Level5, lz4.Level6, lz4.Level7, lz4.Level8, lz4.Level9}

func lz4Factory() Factory {
	return Factory{
		Name: "lz4", Library: lz4Lib, HasLevels: true, MinLevel: 0, MaxLevel: 9, DefaultLevel: 0,
		New: func(level int, set bool) (Codec, error) {
			l := lz4Levels[level]
			return &lz4Codec{level: l, maxDecoded: DefaultMaxDecodedSize,
				info: Info{Name: "lz4", Level: level, LevelSet: set, HasLevels: true, Library: lz4Lib,
					Version: moduleVersion(lz4Lib),
					Detail: fmt.Sprintf("level %d = lz4.%s; stream: lz4 frame (the reader accepts a frame cut at its end mark); "+
						"block: uvarint length + lz4 block", level, l)}}, nil
		},
	}
}

func (c *lz4Codec) Info() Info { return c.info }

func (c *lz4Codec) NewWriter(w io.Writer) (io.WriteCloser, error) {
	zw := lz4.NewWriter(w)
	if err := zw.Apply(lz4.CompressionLevelOption(c.level)); err != nil {
		return nil, fmt.Errorf("lz4: new writer: %w", err)
	}
	return zw, nil
}

func (c *lz4Codec) NewReader(r io.Reader) (io.ReadCloser, error) {
	return io.NopCloser(lz4.NewReader(r)), nil
}

func (c *lz4Codec) Encode(dst, src []byte) ([]byte, error) {
	bound := lz4.CompressBlockBound(len(src))
	start := len(dst)
	dst = binary.AppendUvarint(dst, uint64(len(src)))
	hdr := len(dst)
	if len(src) == 0 {
		return dst, nil
	}
	dst = grow(dst, bound)
	var n int
	var err error
	if c.level == lz4.Fast {
		comp, _ := c.fast.Get().(*lz4.Compressor)
		if comp == nil {
			comp = new(lz4.Compressor)
		}
		n, err = comp.CompressBlock(src, dst[hdr:])
		c.fast.Put(comp)
	} else {
		comp, _ := c.hc.Get().(*lz4.CompressorHC)
		if comp == nil {
			comp = &lz4.CompressorHC{Level: c.level}
		}
		n, err = comp.CompressBlock(src, dst[hdr:])
		c.hc.Put(comp)
	}
	if err != nil {
		return dst[:start], fmt.Errorf("lz4: encode: %w", err)
	}
	if n == 0 {
		// Cannot happen with a CompressBlockBound-sized destination.
		return dst[:start], errors.New("lz4: encode: compressor produced no output")
	}
	return dst[:hdr+n], nil
}

func (c *lz4Codec) Decode(dst, src []byte) ([]byte, error) {
	size, k := binary.Uvarint(src)
	if k <= 0 {
		return dst, errors.New("lz4: decode: bad length header")
	}
	if size > uint64(c.maxDecoded) {
		return dst, fmt.Errorf("lz4: decode: %w (%d bytes)", ErrTooLarge, size)
	}
	// An lz4 block expands at most ~255 times; reject sizes no block could reach.
	if size > 255*uint64(len(src)-k)+16 {
		return dst, fmt.Errorf("lz4: decode: declared size %d impossible for %d-byte block", size, len(src)-k)
	}
	if size == 0 {
		if len(src) != k {
			return dst, errors.New("lz4: decode: trailing bytes after empty block")
		}
		return dst, nil
	}
	start := len(dst)
	dst = grow(dst, int(size))
	n, err := lz4.UncompressBlock(src[k:], dst[start:])
	if err != nil {
		return dst[:start], fmt.Errorf("lz4: decode: %w", err)
	}
	if uint64(n) != size {
		return dst[:start], fmt.Errorf("lz4: decode: got %d bytes, header says %d", n, size)
	}
	return dst[:start+n], nil
}
