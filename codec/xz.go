package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/crc64"
	"io"
	"runtime"

	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
)

const xzLib = "github.com/ulikunitz/xz"

// xzDictCap is the LZMA2 dictionary: the library's default, and xz -6's.
const xzDictCap = 8 << 20

// xzBlockSize is the uncompressed size of one block of the parallel writer:
// one dictionary. xz's own multithreaded mode uses three; on JSON Lines
// records 8 MiB blocks compress within 0.1% of 24 MiB ones, about as fast,
// and hold a third of the memory (each worker's encoder already takes
// about 48 MB).
const xzBlockSize = xzDictCap

type xzCodec struct {
	info       Info
	maxDecoded int
	workers    int
}

func xzFactory() Factory {
	return Factory{
		Name: "xz", Library: xzLib,
		New: func(int, bool) (Codec, error) {
			return &xzCodec{maxDecoded: DefaultMaxDecodedSize, workers: runtime.GOMAXPROCS(0),
				info: Info{Name: "xz", Library: xzLib, Version: moduleVersion(xzLib), DetectsTruncation: true,
					Detail: "the library's LZMA2 encoder with its defaults (8 MiB dictionary, no levels); streams are cut into independent 8 MiB blocks compressed on GOMAXPROCS goroutines, as xz -T0 does, in one standard .xz stream"}}, nil
		},
	}
}

func (c *xzCodec) Info() Info { return c.info }

func (c *xzCodec) NewWriter(w io.Writer) (io.WriteCloser, error) {
	return newXZBlockWriter(w, xzBlockSize, c.workers), nil
}

func (c *xzCodec) NewReader(r io.Reader) (io.ReadCloser, error) {
	xr, err := xz.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("xz: read header: %w", err)
	}
	return io.NopCloser(xr), nil
}

func (c *xzCodec) Encode(dst, src []byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	// A block is compressed on one goroutine: in one call, nothing runs
	// in parallel unless src spans several blocks.
	xw := newXZBlockWriter(buf, xzBlockSize, c.workers)
	if _, err := xw.Write(src); err != nil {
		return dst, fmt.Errorf("xz: encode: %w", err)
	}
	if err := xw.Close(); err != nil {
		return dst, fmt.Errorf("xz: encode: %w", err)
	}
	return buf.Bytes(), nil
}

func (c *xzCodec) Decode(dst, src []byte) ([]byte, error) {
	cfg := xz.ReaderConfig{SingleStream: true}
	xr, err := cfg.NewReader(bytes.NewReader(src))
	if err != nil {
		return dst, fmt.Errorf("xz: decode: %w", err)
	}
	out, err := limitedReadAll(dst, xr, c.maxDecoded)
	if err != nil {
		return dst, fmt.Errorf("xz: decode: %w", err)
	}
	return out, nil
}

// xz container constants (the .xz file format, version 1.2.0).
var (
	xzMagic       = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	xzFooterMagic = []byte{'Y', 'Z'}
	// xzFlags selects CRC64 as the check of every block, the library's
	// default.
	xzFlags    = []byte{0x00, 0x04}
	crc64Table = crc64.MakeTable(crc64.ECMA)
)

const (
	xzCheckSize     = 8    // CRC64
	xzFilterLZMA2   = 0x21 // filter ID
	xzBothSizesFlag = 0xc0 // block flags: one filter, compressed and uncompressed sizes present
)

// xzBlockWriter writes one .xz stream whose data is cut into blocks of
// blockSize bytes. Each block is compressed on its own goroutine, at most
// workers at a time, and written in order with both sizes in its header (so
// a reader could also decompress blocks in parallel); the index and footer
// follow on Close. Every block starts a fresh LZMA2 dictionary, which costs
// a little ratio against one unbroken stream.
type xzBlockWriter struct {
	w         io.Writer
	blockSize int
	workers   int
	dictByte  byte

	headerDone bool
	cur        []byte     // the block being filled
	pending    []*xzBlock // in stream order; at most workers
	free       [][]byte   // input buffers to reuse
	index      []xzRecord
	err        error // sticky: the first error stops the writer
	closed     bool
}

// xzBlock is one block being compressed.
type xzBlock struct {
	in   []byte
	out  []byte // the whole block: header, data, padding, check
	rec  xzRecord
	err  error
	done chan struct{}
}

// xzRecord is an index record.
type xzRecord struct{ unpadded, uncompressed int64 }

func newXZBlockWriter(w io.Writer, blockSize, workers int) *xzBlockWriter {
	return &xzBlockWriter{w: w, blockSize: blockSize, workers: max(workers, 1), dictByte: lzma2DictByte(xzDictCap)}
}

var errXZClosed = errors.New("xz: write after Close")

// Write buffers p into blocks, handing each full block to a goroutine.
func (x *xzBlockWriter) Write(p []byte) (int, error) {
	if x.closed {
		return 0, errXZClosed
	}
	if x.err != nil {
		return 0, x.err
	}
	n := 0
	for len(p) > 0 {
		if x.cur == nil {
			x.cur = x.buffer()
		}
		k := min(len(p), x.blockSize-len(x.cur))
		x.cur = append(x.cur, p[:k]...)
		p, n = p[k:], n+k
		if len(x.cur) == x.blockSize {
			if err := x.dispatch(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// buffer returns an empty input buffer of the block size.
func (x *xzBlockWriter) buffer() []byte {
	if k := len(x.free); k > 0 {
		b := x.free[k-1]
		x.free = x.free[:k-1]
		return b[:0]
	}
	return make([]byte, 0, x.blockSize)
}

// dispatch starts compressing the current block, first writing out the
// oldest one if workers blocks are already in flight.
func (x *xzBlockWriter) dispatch() error {
	if len(x.pending) == x.workers {
		if err := x.flushOldest(); err != nil {
			return err
		}
	}
	b := &xzBlock{in: x.cur, done: make(chan struct{})}
	x.cur = nil
	x.pending = append(x.pending, b)
	go func() {
		defer close(b.done)
		b.out, b.rec, b.err = compressXZBlock(b.in, x.dictByte)
	}()
	return nil
}

// flushOldest waits for the oldest block and writes it.
func (x *xzBlockWriter) flushOldest() error {
	b := x.pending[0]
	x.pending = x.pending[1:]
	<-b.done
	x.free = append(x.free, b.in)
	if b.err != nil {
		x.err = fmt.Errorf("xz: compress block %d: %w", len(x.index), b.err)
		return x.err
	}
	if err := x.writeHeader(); err != nil {
		return err
	}
	if _, err := x.w.Write(b.out); err != nil {
		x.err = fmt.Errorf("xz: write block %d: %w", len(x.index), err)
		return x.err
	}
	x.index = append(x.index, b.rec)
	return nil
}

func (x *xzBlockWriter) writeHeader() error {
	if x.headerDone {
		return nil
	}
	h := append(append([]byte{}, xzMagic...), xzFlags...)
	h = binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(xzFlags))
	if _, err := x.w.Write(h); err != nil {
		x.err = fmt.Errorf("xz: write stream header: %w", err)
		return x.err
	}
	x.headerDone = true
	return nil
}

// Close compresses what is left, writes every block in order, then the
// index and the stream footer. It does not close the underlying writer.
func (x *xzBlockWriter) Close() error {
	if x.closed {
		return errXZClosed
	}
	x.closed = true
	if x.err == nil && len(x.cur) > 0 {
		_ = x.dispatch() // a failure sets x.err, handled below
	}
	for len(x.pending) > 0 {
		if x.err != nil {
			// Wait for the goroutines; their output is dropped.
			<-x.pending[0].done
			x.pending = x.pending[1:]
			continue
		}
		_ = x.flushOldest() // a failure sets x.err: the rest is drained
	}
	if x.err != nil {
		return x.err
	}
	if err := x.writeHeader(); err != nil {
		return err
	}
	idx := []byte{0x00}
	idx = binary.AppendUvarint(idx, uint64(len(x.index)))
	for _, r := range x.index {
		idx = binary.AppendUvarint(idx, uint64(r.unpadded))
		idx = binary.AppendUvarint(idx, uint64(r.uncompressed))
	}
	idx = appendPad4(idx, len(idx))
	idx = binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx))
	foot := binary.LittleEndian.AppendUint32(nil, uint32(len(idx)/4-1))
	foot = append(foot, xzFlags...)
	foot = append(binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(foot)), foot...)
	foot = append(foot, xzFooterMagic...)
	if _, err := x.w.Write(append(idx, foot...)); err != nil {
		x.err = fmt.Errorf("xz: write index: %w", err)
		return x.err
	}
	return nil
}

// compressXZBlock compresses in into one complete .xz block.
func compressXZBlock(in []byte, dictByte byte) ([]byte, xzRecord, error) {
	var data bytes.Buffer
	data.Grow(len(in)/3 + 64)
	lw, err := lzma.Writer2Config{DictCap: xzDictCap}.NewWriter2(&data)
	if err != nil {
		return nil, xzRecord{}, err
	}
	if _, err := lw.Write(in); err != nil {
		return nil, xzRecord{}, err
	}
	if err := lw.Close(); err != nil {
		return nil, xzRecord{}, err
	}
	h := []byte{0, xzBothSizesFlag}
	h = binary.AppendUvarint(h, uint64(data.Len()))
	h = binary.AppendUvarint(h, uint64(len(in)))
	h = append(h, xzFilterLZMA2, 1, dictByte)
	h = appendPad4(h, len(h)+4) // the header with its CRC32 is a multiple of 4
	h[0] = byte((len(h)+4)/4 - 1)
	h = binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(h))
	out := make([]byte, 0, len(h)+data.Len()+3+xzCheckSize)
	out = append(out, h...)
	out = append(out, data.Bytes()...)
	out = appendPad4(out, len(out))
	out = binary.LittleEndian.AppendUint64(out, crc64.Checksum(in, crc64Table))
	return out, xzRecord{unpadded: int64(len(h) + data.Len() + xzCheckSize), uncompressed: int64(len(in))}, nil
}

// appendPad4 appends the zero bytes that make n a multiple of four.
func appendPad4(b []byte, n int) []byte {
	for ; n%4 != 0; n++ {
		b = append(b, 0)
	}
	return b
}

// lzma2DictByte encodes a dictionary size as the LZMA2 filter property:
// the smallest encoded size of at least n.
func lzma2DictByte(n int) byte {
	for b := 0; b < 40; b++ {
		if (2|uint64(b&1))<<(b/2+11) >= uint64(n) {
			return byte(b)
		}
	}
	return 40
}
