package nested

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/serbench/serbench/format"
)

// errEOF is io.EOF, named for the floors' read loop.
var errEOF = io.EOF

// writeFormat writes recs to path with a serbench format (Arrow IPC file).
func writeFormat[T any](path string, f format.Format[T], recs []T) (int64, error) {
	out, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("create: %w", err)
	}
	defer out.Close()
	bw := bufio.NewWriterSize(out, 1<<20)
	enc, err := f.NewEncoder(bw)
	if err != nil {
		return 0, err
	}
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return 0, fmt.Errorf("record %d: %w", i, err)
		}
	}
	if err := enc.Close(); err != nil {
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, fmt.Errorf("flush: %w", err)
	}
	if err := out.Close(); err != nil {
		return 0, fmt.Errorf("close: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
