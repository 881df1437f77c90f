package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// RepairTail makes the results file at path end at a line boundary, so
// that lines appended to it (a resumed run) start on a line of their own.
// A last line without its newline is kept, newline added, when it is a
// whole JSON value (the write was cut just before the newline), and cut
// off otherwise (a run killed or a disk filled while writing it), exactly
// as Read drops it. It returns the number of bytes removed.
func RepairTail(path string) (removed int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("results: %w", err)
	}
	size := st.Size()
	start, err := lastLineStart(f, size)
	if err != nil {
		return 0, fmt.Errorf("results: %s: %w", path, err)
	}
	if start == size {
		return 0, nil // empty, or ends with a newline
	}
	tail := make([]byte, size-start)
	if _, err := f.ReadAt(tail, start); err != nil {
		return 0, fmt.Errorf("results: %s: %w", path, err)
	}
	if t := bytes.TrimSpace(tail); len(t) > 0 && json.Valid(t) {
		if _, err := f.WriteAt([]byte{'\n'}, size); err != nil {
			return 0, fmt.Errorf("results: %s: end the last line: %w", path, err)
		}
		return 0, f.Sync()
	}
	if err := f.Truncate(start); err != nil {
		return 0, fmt.Errorf("results: %s: cut the unfinished last line: %w", path, err)
	}
	return size - start, f.Sync()
}

// lastLineStart returns the offset just past the last newline of the
// first size bytes of f (0 when there is none).
func lastLineStart(f io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		n := min(int64(len(buf)), end)
		chunk := buf[:n]
		if _, err := f.ReadAt(chunk, end-n); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}
