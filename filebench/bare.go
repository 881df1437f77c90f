package filebench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/klauspost/compress/zstd"
	"github.com/tinylib/msgp/msgp"
)

// writeBare creates path, lets body write the whole file to it, closes it
// and returns its size. On error a partial regular file is removed and the
// error names the loop.
func writeBare(path, name string, body func(file io.Writer) error) (int64, error) {
	file, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	if err := body(file); err != nil {
		file.Close()
		if fi, serr := os.Lstat(path); serr == nil && fi.Mode().IsRegular() {
			os.Remove(path)
		}
		return 0, fmt.Errorf("%s: write %s: %w", name, path, err)
	}
	if err := file.Close(); err != nil {
		return 0, fmt.Errorf("%s: close %s: %w", name, path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return fi.Size(), nil
}

// BareJSONLZstdWrite is a hand-written minimal loop the pipeline is
// measured against: encoding/json Encoder → klauspost zstd (default level) →
// bufio → file, with none of the pipeline's layers (no format or codec
// interfaces, no counting, no heap sampling). Its output is the same as
// Write(jsonl, zstd) (both use the same libraries and settings), so the two
// can be compared byte for byte. It returns the file size.
func BareJSONLZstdWrite[T any](path string, src iter.Seq[*T]) (int64, error) {
	return writeBare(path, "bare jsonl+zstd", func(file io.Writer) error {
		fw := bufio.NewWriterSize(file, DefaultBufferSize)
		zw, err := zstd.NewWriter(fw)
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(zw, DefaultBufferSize)
		enc := json.NewEncoder(bw)
		for v := range src {
			if err := enc.Encode(v); err != nil {
				return err
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		return fw.Flush()
	})
}

// MsgpEncodable is a pointer to T with msgp-generated encoding.
type MsgpEncodable[T any] interface {
	*T
	msgp.Encodable
}

// BareMsgpWrite is the hand-written minimal loop for the fastest kind of
// write, generated MessagePack without compression: each record's
// generated EncodeMsg → msgp.Writer with a DefaultBufferSize buffer → file.
// With almost no work per byte, this is where a pipeline's fixed cost per
// record would show most. Its output is the same as Write(msgpack-msgp,
// none). It returns the file size.
func BareMsgpWrite[T any, P MsgpEncodable[T]](path string, src iter.Seq[*T]) (int64, error) {
	return writeBare(path, "bare msgp", func(file io.Writer) error {
		w := msgp.NewWriterSize(file, DefaultBufferSize)
		for v := range src {
			if err := P(v).EncodeMsg(w); err != nil {
				return err
			}
		}
		return w.Flush()
	})
}
