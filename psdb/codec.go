package psdb

import (
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// DefaultMaxDecodedSize is the default cap on a block's decompressed data
// section (64 MiB), protecting against decompression bombs.
const DefaultMaxDecodedSize = 64 << 20

// Codec compresses and decompresses PSDB data sections with zstd. It owns
// a zstd encoder and decoder and scratch buffers that are reused across
// calls, so steady-state use allocates nothing. A Codec is not safe for
// concurrent use; use one per goroutine. Call Close when done.
type Codec struct {
	enc     *zstd.Encoder
	dec     *zstd.Decoder
	scratch []byte // compression output
	buf     []byte // decompression output, referenced by the last Parse
	maxSize int
}

// CodecOption configures a Codec.
type CodecOption func(*codecConfig)

type codecConfig struct {
	level   zstd.EncoderLevel
	maxSize int
}

// WithEncoderLevel sets the zstd compression level. The default,
// zstd.SpeedBetterCompression, is the reference implementation's level:
// with it (and the same klauspost/compress encoder) compressed blocks are
// byte-for-byte identical to the reference's. Other levels produce valid
// blocks that any reader decodes, but different bytes.
func WithEncoderLevel(l zstd.EncoderLevel) CodecOption {
	return func(c *codecConfig) { c.level = l }
}

// WithMaxDecodedSize caps the decompressed size of a data section (default
// DefaultMaxDecodedSize). Larger blocks fail with an error wrapping
// ErrTooLarge. n ≤ 0 selects the default.
func WithMaxDecodedSize(n int) CodecOption {
	return func(c *codecConfig) { c.maxSize = n }
}

// NewCodec returns a Codec with single-threaded zstd state.
func NewCodec(opts ...CodecOption) (*Codec, error) {
	cfg := codecConfig{level: zstd.SpeedBetterCompression, maxSize: DefaultMaxDecodedSize}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.maxSize <= 0 {
		cfg.maxSize = DefaultMaxDecodedSize
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(cfg.level), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("psdb: creating zstd encoder: %w", err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(cfg.maxSize)))
	if err != nil {
		_ = enc.Close()
		return nil, fmt.Errorf("psdb: creating zstd decoder: %w", err)
	}
	return &Codec{enc: enc, dec: dec, maxSize: cfg.maxSize}, nil
}

// Close releases the Codec's zstd resources. The Codec must not be used
// afterwards.
func (c *Codec) Close() error {
	c.dec.Close()
	return c.enc.Close()
}

// Compress compresses, in place, the data section of the uncompressed
// block that occupies all of block (as produced by an Append function).
// Compression is opportunistic: if the zstd data is not smaller than the
// raw data, the block is returned unchanged with compression 0; otherwise
// the data section is replaced and the header's compression set to zstd.
// The result aliases block. Steady-state calls allocate nothing.
func (c *Codec) Compress(block []byte) ([]byte, error) {
	h, err := ParseHeader(block)
	if err != nil {
		return block, err
	}
	if h.Compression != CompressionNone {
		return block, fmt.Errorf("%w: already %s", ErrCompression, h.Compression)
	}
	data := block[headerLen:]
	if len(data) == 0 {
		return block, nil
	}
	c.scratch = c.enc.EncodeAll(data, c.scratch[:0])
	if len(c.scratch) >= len(data) {
		return block, nil
	}
	n := copy(data, c.scratch)
	block[7] = block[7]&^(compressionMask<<compressionShift) | byte(CompressionZstd)<<compressionShift
	return block[:headerLen+n], nil
}

// AppendDecompressed appends the uncompressed form of block to dst: the
// header with compression 0 followed by the raw data section. An
// uncompressed block is appended as is.
func (c *Codec) AppendDecompressed(dst, block []byte) ([]byte, error) {
	blk, err := c.Parse(block, nil)
	if err != nil {
		return dst, err
	}
	out, tail := grow(dst, headerLen+len(blk.data))
	copy(tail, block[:headerLen])
	tail[7] &^= compressionMask << compressionShift
	copy(tail[headerLen:], blk.data)
	return out, nil
}

// Parse is like the package-level Parse but also reads zstd-compressed
// blocks. As with [Parse], pass the schema: without one a truncated block
// is not detected. The data of a compressed block is decompressed into a buffer
// owned by c: the returned Block is valid only until the next call of
// Parse or AppendDecompressed on c. Uncompressed blocks are read in place.
func (c *Codec) Parse(b []byte, s *Schema) (Block, error) {
	h, err := ParseHeader(b)
	if err != nil {
		return Block{}, err
	}
	if h.Compression == CompressionNone {
		return bind(h, b[headerLen:], s)
	}
	out, err := c.dec.DecodeAll(b[headerLen:], c.buf[:0])
	if err != nil {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
			return Block{}, fmt.Errorf("%w: limit %d bytes: %w", ErrTooLarge, c.maxSize, err)
		}
		return Block{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if cap(out) > cap(c.buf) {
		c.buf = out[:0]
	}
	if len(out) > c.maxSize {
		return Block{}, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(out), c.maxSize)
	}
	return bind(h, out, s)
}
