package features

import "unsafe"

// page is the alignment of the buffers the timed loops read and write.
const page = 4096

// pageAligned returns a zeroed slice of n bytes that starts on a page
// boundary. Every case's input block and the limit row's buffers are
// page-aligned, so that the distance between a loop's source and
// destination is the same in every run: otherwise a short copy can be
// 2–3× slower in one process than in the next (4K aliasing of loads with
// pending stores), and the limit row that every ratio divides by moves
// with the heap's layout rather than with the code.
func pageAligned(n int) []byte {
	buf := make([]byte, n+page)
	off := 0
	if n > 0 {
		if r := int(uintptr(unsafe.Pointer(&buf[0])) % page); r != 0 {
			off = page - r
		}
	}
	return buf[off : off+n : off+n]
}
