// Package filebench runs the file pipeline of serbench's file workloads for any
// dataset type T, format and compression codec: Write streams records through a
// format encoder and a compressor into a real file; Read streams the file back
// (read → decompress → decode) and verifies every record; ReadFile and
// Decompress are the physical-limit operations (the bytes alone, and
// decompression without decoding).
//
// Memory is bounded: records arrive from an iterator and are checked by a
// callback as they are decoded, so no operation holds the dataset or the file.
// Durations are measured by the caller; the stats hold what the caller cannot
// measure: file and stream sizes, record counts, and the heap in use sampled
// during the operation.
package filebench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/format"
)

// DefaultBufferSize is the buffer size of every buffered layer unless
// Options.BufferSize says otherwise.
const DefaultBufferSize = 256 << 10

// SampleEvery is how many records pass between context checks and heap
// samples.
const SampleEvery = 1024

// Options tune an operation. The zero value is the standard configuration:
// buffered I/O with DefaultBufferSize, no fsync, heap sampled every
// SampleEvery records.
type Options struct {
	// BufferSize is the size of each bufio layer (0 = DefaultBufferSize).
	BufferSize int
	// Unbuffered makes Write hand the encoder's output straight to the
	// compressor or, with codec none, to the file — no bufio layers. This
	// reproduces the seed report's 22 s "MsgPack Plain" write on purpose; label
	// such cases clearly.
	Unbuffered bool
	// Sync makes Write fsync the file before closing it.
	Sync bool
	// NoHeapSampling turns heap sampling off (the stats' Heap is zero).
	NoHeapSampling bool
}

func (o Options) bufferSize() int {
	if o.BufferSize > 0 {
		return o.BufferSize
	}
	return DefaultBufferSize
}

// WriteStats describes a completed Write.
type WriteStats struct {
	// Records is the number of records written.
	Records int
	// FileBytes is the size of the file on disk.
	FileBytes int64
	// EncodedBytes is the size of the format's output before compression.
	EncodedBytes int64
	// Heap is the heap in use during the write.
	Heap HeapStats
}

// ReadStats describes a completed read operation.
type ReadStats struct {
	// Records is the number of records decoded and verified (0 for the
	// limit operations).
	Records int
	// FileBytes is the number of bytes read from the file.
	FileBytes int64
	// DecodedBytes is the number of bytes after decompression.
	DecodedBytes int64
	// Heap is the heap in use during the read.
	Heap HeapStats
}

// CheckCombination reports whether format f may be combined with codec c: a
// format that compresses itself or needs random access is used only with
// codec "none".
func CheckCombination(d format.Descriptor, c codec.Codec) error {
	if c.Info().Name == "none" {
		return nil
	}
	switch {
	case d.Compresses:
		return fmt.Errorf("filebench: format %s compresses internally; combine it only with codec none, not %s",
			d.Name, c.Info().Spec())
	case d.RandomAccess:
		return fmt.Errorf("filebench: format %s needs random access to the file; combine it only with codec none, not %s",
			d.Name, c.Info().Spec())
	}
	return nil
}

// countingWriter counts bytes passing through.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// countingReader counts bytes passing through.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Write creates the file at path and writes every record from src to it,
// encoded with f and compressed with c. On error a partial regular file is
// removed.
func Write[T any](ctx context.Context, path string, f format.Format[T], c codec.Codec, src iter.Seq[*T], o Options) (st WriteStats, err error) {
	d := f.Descriptor()
	if err := CheckCombination(d, c); err != nil {
		return st, err
	}
	heap := newHeapSampler(o.NoHeapSampling)
	defer func() { st.Heap = heap.stats() }()

	file, err := os.Create(path)
	if err != nil {
		return st, fmt.Errorf("filebench: write %s/%s: %w", d.Name, c.Info().Spec(), err)
	}
	defer func() {
		if err != nil {
			file.Close()
			if fi, serr := os.Lstat(path); serr == nil && fi.Mode().IsRegular() {
				os.Remove(path)
			}
			err = fmt.Errorf("filebench: write %s/%s to %s: %w", d.Name, c.Info().Spec(), path, err)
		}
	}()

	size := o.bufferSize()
	// Layers, from the file up: file ← bufio ← compressor ← counter ← bufio ← encoder.
	var fileBuf *bufio.Writer
	var toCompressor io.Writer = file
	if !o.Unbuffered {
		fileBuf = bufio.NewWriterSize(file, size)
		toCompressor = fileBuf
	}
	comp, err := c.NewWriter(toCompressor)
	if err != nil {
		return st, err
	}
	none := c.Info().Name == "none"
	counter := &countingWriter{w: comp}
	var encBuf *bufio.Writer
	var toEncoder io.Writer
	switch {
	case none:
		// No compressor: the encoder writes to the file layer directly.
		toEncoder = toCompressor
	case o.Unbuffered:
		toEncoder = counter
	default:
		encBuf = bufio.NewWriterSize(counter, size)
		toEncoder = encBuf
	}
	enc, err := f.NewEncoder(toEncoder)
	if err != nil {
		return st, err
	}
	for v := range src {
		if st.Records%SampleEvery == 0 {
			if err = ctx.Err(); err != nil {
				break
			}
			heap.sample()
		}
		if err = enc.Encode(v); err != nil {
			err = fmt.Errorf("record %d: %w", st.Records, err)
			break
		}
		st.Records++
	}
	if err != nil {
		return st, err
	}
	if err := enc.Close(); err != nil {
		return st, err
	}
	heap.sample()
	if encBuf != nil {
		if err := encBuf.Flush(); err != nil {
			return st, fmt.Errorf("flush: %w", err)
		}
	}
	heap.sample()
	if err := comp.Close(); err != nil {
		return st, fmt.Errorf("close compressor: %w", err)
	}
	if fileBuf != nil {
		if err := fileBuf.Flush(); err != nil {
			return st, fmt.Errorf("flush: %w", err)
		}
	}
	if o.Sync {
		if err := file.Sync(); err != nil {
			return st, fmt.Errorf("fsync: %w", err)
		}
	}
	if err := file.Close(); err != nil {
		return st, fmt.Errorf("close: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return st, err
	}
	st.FileBytes = fi.Size()
	st.EncodedBytes = counter.n
	if none {
		st.EncodedBytes = st.FileBytes
	}
	return st, nil
}

// ErrRecordCount is wrapped by Read's error when the file holds a different
// number of records than expected — typically a file truncated at a record
// boundary.
var ErrRecordCount = errors.New("filebench: wrong number of records")

// ErrTrailingData is wrapped by Read's error when bytes follow the format's
// last record.
var ErrTrailingData = errors.New("filebench: data after the last record")

// Read reads the file at path back, decompressing with c and decoding with f,
// and calls verify with each record's index and value; a verify error stops the
// read and is returned. want is the number of records the file must hold
// (negative: do not check). Any error — unreadable file, corrupt or truncated
// data, wrong count, trailing bytes, failed verification — is returned.
func Read[T any](ctx context.Context, path string, f format.Format[T], c codec.Codec, want int,
	verify func(i int, got *T) error, o Options) (st ReadStats, err error) {
	d := f.Descriptor()
	if err := CheckCombination(d, c); err != nil {
		return st, err
	}
	heap := newHeapSampler(o.NoHeapSampling)
	defer func() { st.Heap = heap.stats() }()
	defer func() {
		if err != nil {
			err = fmt.Errorf("filebench: read %s/%s from %s: %w", d.Name, c.Info().Spec(), path, err)
		}
	}()

	file, err := os.Open(path)
	if err != nil {
		return st, err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return st, err
	}
	size := o.bufferSize()
	fileCounter := &countingReader{r: file}
	var top io.Reader
	var decompressed *countingReader
	if d.RandomAccess {
		top = io.NewSectionReader(file, 0, fi.Size())
	} else {
		fileBuf := bufio.NewReaderSize(fileCounter, size)
		top = fileBuf
		if c.Info().Name != "none" {
			dc, err := c.NewReader(fileBuf)
			if err != nil {
				return st, err
			}
			defer dc.Close()
			decompressed = &countingReader{r: dc}
			top = bufio.NewReaderSize(decompressed, size)
		}
	}
	dec, err := f.NewDecoder(top)
	if err != nil {
		return st, err
	}
	var v T
	for {
		if st.Records%SampleEvery == 0 {
			if err := ctx.Err(); err != nil {
				return st, err
			}
			heap.sample()
		}
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			return st, err
		}
		if verify != nil {
			if err := verify(st.Records, &v); err != nil {
				return st, err
			}
		}
		st.Records++
	}
	if !d.RandomAccess {
		// Drain: bytes after the last record are corruption, and draining
		// makes the decompressor check its trailer (checksums, sizes).
		n, err := io.Copy(io.Discard, top)
		if err != nil {
			return st, fmt.Errorf("after record %d: %w", st.Records, err)
		}
		if n > 0 {
			return st, fmt.Errorf("%w: %d bytes after record %d", ErrTrailingData, n, st.Records)
		}
	}
	if want >= 0 && st.Records != want {
		return st, fmt.Errorf("%w: file holds %d records, want %d (truncated?)", ErrRecordCount, st.Records, want)
	}
	st.FileBytes = fileCounter.n
	if d.RandomAccess {
		st.FileBytes = fi.Size()
	}
	st.DecodedBytes = st.FileBytes
	if decompressed != nil {
		st.DecodedBytes = decompressed.n
	}
	return st, nil
}

// drain reads r to its end through buf, discarding the bytes and sampling
// the heap after each read.
func drain(r io.Reader, buf []byte, heap *heapSampler) (int64, error) {
	var n int64
	for {
		k, err := r.Read(buf)
		n += int64(k)
		heap.sample()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// ReadFile is the first limit operation: it reads the file's bytes into a
// buffer of the pipeline's size and discards them.
func ReadFile(ctx context.Context, path string, o Options) (st ReadStats, err error) {
	heap := newHeapSampler(o.NoHeapSampling)
	defer func() { st.Heap = heap.stats() }()
	file, err := os.Open(path)
	if err != nil {
		return st, fmt.Errorf("filebench: read file: %w", err)
	}
	defer file.Close()
	n, err := drain(ctxReader{ctx, file}, make([]byte, o.bufferSize()), heap)
	st.FileBytes, st.DecodedBytes = n, n
	if err != nil {
		return st, fmt.Errorf("filebench: read file %s: %w", path, err)
	}
	return st, nil
}

// Decompress is the second limit operation: it reads and decompresses the
// file as Read would, and discards the bytes without decoding them.
func Decompress(ctx context.Context, path string, c codec.Codec, o Options) (st ReadStats, err error) {
	heap := newHeapSampler(o.NoHeapSampling)
	defer func() { st.Heap = heap.stats() }()
	file, err := os.Open(path)
	if err != nil {
		return st, fmt.Errorf("filebench: decompress: %w", err)
	}
	defer file.Close()
	size := o.bufferSize()
	counter := &countingReader{r: ctxReader{ctx, file}}
	dc, err := c.NewReader(bufio.NewReaderSize(counter, size))
	if err != nil {
		return st, fmt.Errorf("filebench: decompress %s with %s: %w", path, c.Info().Spec(), err)
	}
	defer dc.Close()
	n, err := drain(dc, make([]byte, size), heap)
	st.FileBytes, st.DecodedBytes = counter.n, n
	if err != nil {
		return st, fmt.Errorf("filebench: decompress %s with %s: %w", path, c.Info().Spec(), err)
	}
	return st, nil
}

// ctxReader fails reads once its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
