//go:build unix

package bench

import (
	"fmt"
	"syscall"
)

// mapAnon maps n bytes of private anonymous memory, outside the Go heap.
func mapAnon(n int) ([]byte, func() error, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, fmt.Errorf("bench: mapping %d bytes: %w", n, err)
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
