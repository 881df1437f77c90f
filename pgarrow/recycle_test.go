package pgarrow

import (
	"testing"
	"unsafe"
)

func TestRecycler(t *testing.T) {
	r := newRecycler()
	tests := []struct{ size, wantCap int }{{0, 64}, {1, 64}, {64, 64}, {65, 128}, {1000, 1024}, {1 << 20, 1 << 20}}
	for _, tt := range tests {
		b := r.Allocate(tt.size)
		if len(b) != tt.size || cap(b) != tt.wantCap {
			t.Errorf("Allocate(%d): len %d cap %d, want cap %d", tt.size, len(b), cap(b), tt.wantCap)
		}
		if p := uintptr(unsafe.Pointer(unsafe.SliceData(b[:cap(b)]))); p%64 != 0 {
			t.Errorf("Allocate(%d) not 64-byte aligned", tt.size)
		}
	}
	// A freed buffer comes back, zeroed over its whole capacity.
	b := r.Allocate(100)
	for i := range b[:cap(b)] {
		b[:cap(b)][i] = 0xff
	}
	r.Free(b)
	c := r.Allocate(120)
	if unsafe.SliceData(c) != unsafe.SliceData(b) {
		t.Fatal("freed buffer not reused")
	}
	for i, v := range c[:cap(c)] {
		if v != 0 {
			t.Fatalf("reused buffer byte %d = %#x, want 0", i, v)
		}
	}
	// Reallocate keeps contents and zeroes the growth.
	c[0] = 7
	d := r.Reallocate(500, c)
	if d[0] != 7 || len(d) != 500 || d[499] != 0 {
		t.Fatalf("Reallocate: %v %d", d[0], len(d))
	}
	// Foreign or odd-sized slices are left to the GC.
	r.Free(make([]byte, 100))
	r.Free(nil)
	if r.held != 128 { // c's old buffer, freed by Reallocate
		t.Errorf("held %d bytes, want 128", r.held)
	}
	// The cap on held memory is honoured.
	small := &recycler{maxHeld: 100}
	small.Free(small.Allocate(64))
	small.Free(small.Allocate(64))
	if small.held != 64 {
		t.Errorf("held %d, want 64 (second buffer over the cap)", small.held)
	}
}
