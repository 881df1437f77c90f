//go:build unix

package nested

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the file at path read-only; unmap releases it. The records
// assembled from it copy what they keep, so nothing refers to the mapping
// after the read.
func mapFile(path string) (data []byte, unmap func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 {
		return nil, func() {}, nil
	}
	if int64(int(fi.Size())) != fi.Size() {
		return nil, nil, fmt.Errorf("file of %d bytes too large to map", fi.Size())
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return readWhole(path)
	}
	return b, func() { _ = syscall.Munmap(b) }, nil
}
