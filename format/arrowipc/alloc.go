package arrowipc

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// MaxBufferBytes caps any one buffer the decoder allocates. The IPC readers
// size buffers from lengths in the (untrusted) metadata, so without a cap a
// corrupt file can demand terabytes.
const MaxBufferBytes = 256 << 20

// limitAllocator refuses allocations above max by panicking; decoders turn
// the panic into an error (format.CatchPanic).
type limitAllocator struct {
	memory.Allocator
	max int
}

func (a limitAllocator) check(size int) {
	if size < 0 || size > a.max {
		panic(fmt.Sprintf("buffer of %d bytes exceeds limit %d (corrupt length?)", size, a.max))
	}
}

// Allocate implements memory.Allocator.
func (a limitAllocator) Allocate(size int) []byte {
	a.check(size)
	return a.Allocator.Allocate(size)
}

// Reallocate implements memory.Allocator.
func (a limitAllocator) Reallocate(size int, b []byte) []byte {
	a.check(size)
	return a.Allocator.Reallocate(size, b)
}

// readLimit returns the buffer cap for a file of size bytes (0 = unknown):
// buffers of an uncompressed file cannot exceed it; compressed buffers may
// expand, so allow a generous ratio.
func readLimit(size int64) int {
	if size <= 0 {
		return MaxBufferBytes
	}
	return int(min(int64(MaxBufferBytes), max(1<<20, 256*size)))
}
