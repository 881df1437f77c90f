package psdb

import (
	"encoding/binary"
	"fmt"
)

// CSDB cache layouts.
//
// A CSDB value is one layout byte followed by entries (feature group id
// uint16 LE, block length, block bytes). A block length of 0 marks a
// negative-cache entry (the group is known to have no data).
//
// Layout 1 (the reference format) stores the length as uint16 LE, so a
// block must be shorter than 65,536 bytes; this package refuses longer
// blocks with an error wrapping ErrCacheBlockTooLarge instead of silently
// truncating the length as the reference implementation does.
//
// Layout 2 is a serbench extension identical to layout 1 except that the
// length is uint32 LE, so blocks up to 4 GiB − 1 fit. Readers accept both.
const (
	CacheLayout1 uint8 = 1
	CacheLayout2 uint8 = 2
)

// CacheEntry is one feature group's entry in a CSDB value.
type CacheEntry struct {
	// GroupID is the feature group id.
	GroupID uint16
	// Block is the PSDB block; empty for a negative-cache entry.
	Block []byte
}

// Negative reports whether e is a negative-cache entry.
func (e CacheEntry) Negative() bool { return len(e.Block) == 0 }

func cacheLenBytes(layout uint8) (int, error) {
	switch layout {
	case CacheLayout1:
		return 2, nil
	case CacheLayout2:
		return 4, nil
	}
	return 0, fmt.Errorf("%w: unknown layout %d", ErrMalformedCache, layout)
}

// AppendCacheHeader appends the layout byte that starts a CSDB value.
func AppendCacheHeader(dst []byte, layout uint8) ([]byte, error) {
	if _, err := cacheLenBytes(layout); err != nil {
		return dst, err
	}
	return append(dst, layout), nil
}

// AppendCacheEntry appends one entry in the given layout (which must be the
// layout byte already written at the start of the value). An empty block
// writes a negative-cache entry. A block too long for the layout's length
// field is an error wrapping ErrCacheBlockTooLarge.
func AppendCacheEntry(dst []byte, layout uint8, groupID uint16, block []byte) ([]byte, error) {
	lb, err := cacheLenBytes(layout)
	if err != nil {
		return dst, err
	}
	if uint64(len(block)) >= 1<<(8*lb) {
		return dst, fmt.Errorf("%w: group %d block of %d bytes in cache layout %d", ErrCacheBlockTooLarge, groupID, len(block), layout)
	}
	out, t := grow(dst, 2+lb+len(block))
	binary.LittleEndian.PutUint16(t, groupID)
	if lb == 2 {
		binary.LittleEndian.PutUint16(t[2:], uint16(len(block)))
	} else {
		binary.LittleEndian.PutUint32(t[2:], uint32(len(block)))
	}
	copy(t[2+lb:], block)
	return out, nil
}

// AppendCache appends a complete CSDB value holding entries, in order.
func AppendCache(dst []byte, layout uint8, entries []CacheEntry) ([]byte, error) {
	out, err := AppendCacheHeader(dst, layout)
	if err != nil {
		return dst, err
	}
	for _, e := range entries {
		if out, err = AppendCacheEntry(out, layout, e.GroupID, e.Block); err != nil {
			return dst, err
		}
	}
	return out, nil
}

// CacheIter iterates over the entries of a CSDB value without copying:
// entry blocks are views of the value's bytes.
//
//	it, err := psdb.ParseCache(value)
//	for it.Next() { e := it.Entry(); … }
//	if err := it.Err(); err != nil { … }
type CacheIter struct {
	layout uint8
	lb     int
	rest   []byte
	off    int
	cur    CacheEntry
	err    error
}

// ParseCache checks the layout byte of a CSDB value and returns an
// iterator over its entries.
func ParseCache(b []byte) (CacheIter, error) {
	if len(b) < 1 {
		return CacheIter{}, fmt.Errorf("%w: empty value", ErrMalformedCache)
	}
	lb, err := cacheLenBytes(b[0])
	if err != nil {
		return CacheIter{}, err
	}
	return CacheIter{layout: b[0], lb: lb, rest: b[1:], off: 1}, nil
}

// Layout returns the value's layout byte.
func (it *CacheIter) Layout() uint8 { return it.layout }

// Next advances to the next entry and reports whether there is one. It
// returns false at the end of the value or on malformed input (see Err).
func (it *CacheIter) Next() bool {
	if it.err != nil || len(it.rest) == 0 {
		return false
	}
	p := 2 + it.lb
	if len(it.rest) < p {
		it.err = fmt.Errorf("%w: truncated entry header at offset %d", ErrMalformedCache, it.off)
		return false
	}
	id := binary.LittleEndian.Uint16(it.rest)
	var n uint64
	if it.lb == 2 {
		n = uint64(binary.LittleEndian.Uint16(it.rest[2:]))
	} else {
		n = uint64(binary.LittleEndian.Uint32(it.rest[2:]))
	}
	if uint64(len(it.rest)-p) < n {
		it.err = fmt.Errorf("%w: group %d block of %d bytes at offset %d overruns value of %d bytes", ErrMalformedCache, id, n, it.off, it.off+len(it.rest))
		return false
	}
	end := p + int(n)
	it.cur = CacheEntry{GroupID: id, Block: it.rest[p:end:end]}
	it.rest = it.rest[end:]
	it.off += end
	return true
}

// Entry returns the current entry.
func (it *CacheIter) Entry() CacheEntry { return it.cur }

// Err returns the error that stopped iteration, or nil.
func (it *CacheIter) Err() error { return it.err }

// FindCacheEntry returns the first entry for groupID in a CSDB value, and
// whether it was found. It validates the whole value, not just the part
// before the match: a value that is truncated or otherwise malformed
// anywhere yields an error wrapping ErrMalformedCache and no entry, since
// the bytes before the damage cannot be trusted to be entries either.
func FindCacheEntry(b []byte, groupID uint16) (CacheEntry, bool, error) {
	it, err := ParseCache(b)
	if err != nil {
		return CacheEntry{}, false, err
	}
	var found CacheEntry
	ok := false
	for it.Next() {
		if e := it.Entry(); !ok && e.GroupID == groupID {
			found, ok = e, true
		}
	}
	if err := it.Err(); err != nil {
		return CacheEntry{}, false, fmt.Errorf("psdb: finding group %d: %w", groupID, err)
	}
	return found, ok, nil
}
