package pgarrow

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// recycler is the allocator a Conn uses for the buffers of fixed-width
// columns by default, and for every buffer with Options.Recycle: it keeps
// the buffers of released record batches and hands them to the next batch,
// so a long read allocates about one batch's worth of memory in all instead
// of a fresh set per batch. That matters beyond memory: garbage collection of discarded
// batches competes for CPU with the server, which on a small machine shares
// the cores with the client.
//
// Buffers are 64-byte aligned, as Arrow expects, sized in powers of two and
// zeroed when handed out again, exactly as a fresh allocation would be. A
// batch whose record is Retained by the caller keeps its buffers until it is
// Released; nothing is reused while referenced. At most maxHeld bytes wait
// in the free lists.
type recycler struct {
	mu      sync.Mutex
	free    [64][][]byte // by log2 of capacity
	held    int
	maxHeld int
}

const (
	recycleAlign   = 64
	recycleMinLog  = 6 // 64 bytes
	defaultMaxHeld = 512 << 20
)

var _ memory.Allocator = (*recycler)(nil)

func newRecycler() *recycler { return &recycler{maxHeld: defaultMaxHeld} }

// class returns log2 of the power-of-two capacity that holds size bytes.
func class(size int) int {
	if size <= 1<<recycleMinLog {
		return recycleMinLog
	}
	return bits.Len(uint(size - 1))
}

// Allocate returns a zeroed, 64-byte aligned slice of size bytes.
func (r *recycler) Allocate(size int) []byte {
	if size < 0 {
		panic("pgarrow: negative allocation")
	}
	c := class(size)
	r.mu.Lock()
	if n := len(r.free[c]); n > 0 {
		b := r.free[c][n-1]
		r.free[c][n-1] = nil
		r.free[c] = r.free[c][:n-1]
		r.held -= cap(b)
		r.mu.Unlock()
		clear(b[:cap(b)])
		return b[:size]
	}
	r.mu.Unlock()
	capacity := 1 << c
	buf := make([]byte, capacity+recycleAlign)
	shift := 0
	if m := int(uintptr(unsafe.Pointer(unsafe.SliceData(buf))) % recycleAlign); m != 0 {
		shift = recycleAlign - m
	}
	return buf[shift : shift+size : shift+capacity]
}

// Reallocate grows b to size bytes, keeping its contents; the bytes past
// the old length are zero.
func (r *recycler) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		return b[:size]
	}
	nb := r.Allocate(size)
	copy(nb, b)
	r.Free(b)
	return nb
}

// Free keeps b for reuse if it came from this allocator and there is room.
func (r *recycler) Free(b []byte) {
	c := cap(b)
	if c < 1<<recycleMinLog || c&(c-1) != 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b[:1])))%recycleAlign != 0 {
		return // not one of ours: leave it to the garbage collector
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held+c > r.maxHeld {
		return
	}
	k := bits.Len(uint(c)) - 1
	r.free[k] = append(r.free[k], b[:0])
	r.held += c
}
