package filebench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/klauspost/compress/zstd"
	"github.com/serbench/serbench/format"
)

// BareJSONLZstdWrite is the hand-written minimal loop the pipeline is measured
// against: encoding/json Encoder → klauspost zstd (default level) → bufio →
// file, with none of the pipeline's layers (no format or codec interfaces,
// no counting, no heap sampling). Its output is the same as
// Write(jsonl, zstd) (both use the same libraries and settings), so the two
// can be compared byte for byte. It returns the file size.
func BareJSONLZstdWrite[T any](path string, src iter.Seq[*T]) (int64, error) {
	file, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("bare jsonl+zstd: %w", err)
	}
	fail := func(err error) (int64, error) {
		file.Close()
		if fi, serr := os.Lstat(path); serr == nil && fi.Mode().IsRegular() {
			os.Remove(path)
		}
		return 0, fmt.Errorf("bare jsonl+zstd: write %s: %w", path, err)
	}
	fw := bufio.NewWriterSize(file, DefaultBufferSize)
	zw, err := zstd.NewWriter(fw)
	if err != nil {
		return fail(err)
	}
	bw := bufio.NewWriterSize(zw, DefaultBufferSize)
	enc := json.NewEncoder(bw)
	for v := range src {
		if err := enc.Encode(v); err != nil {
			return fail(err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	if err := zw.Close(); err != nil {
		return fail(err)
	}
	if err := fw.Flush(); err != nil {
		return fail(err)
	}
	if err := file.Close(); err != nil {
		return fail(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("bare jsonl+zstd: %w", err)
	}
	return fi.Size(), nil
}

// BareJSONLZstdRead reads a file written by BareJSONLZstdWrite (or by Write
// with jsonl and zstd) with a minimal loop: file → bufio → zstd → bufio →
// line → json.Unmarshal → verify. It returns the number of records.
func BareJSONLZstdRead[T any](ctx context.Context, path string, verify func(i int, got *T) error) (int, error) {
	file, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("bare jsonl+zstd: %w", err)
	}
	defer file.Close()
	zr, err := zstd.NewReader(bufio.NewReaderSize(file, DefaultBufferSize))
	if err != nil {
		return 0, fmt.Errorf("bare jsonl+zstd: %w", err)
	}
	defer zr.Close()
	lines := format.NewLineReader(bufio.NewReaderSize(zr, DefaultBufferSize))
	var v T
	for n := 0; ; n++ {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return n, ctx.Err()
		}
		line, err := lines.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("bare jsonl+zstd: %w", err)
		}
		var zero T
		v = zero
		if err := json.Unmarshal(line, &v); err != nil {
			return n, fmt.Errorf("bare jsonl+zstd: line %d: %w", n+1, err)
		}
		if verify != nil {
			if err := verify(n, &v); err != nil {
				return n, err
			}
		}
	}
}
