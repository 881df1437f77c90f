package psdb

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Block is a parsed PSDB block. It refers to the bytes it was parsed from
// (or, for a compressed block, to its Codec's buffer) without copying, so
// those bytes must not be modified while the Block is in use. A Block is a
// small value (six words); copying it is cheap and it is safe for
// concurrent reads.
//
// Value positions are flattened: for a vector type, position p is the p-th
// value of all vectors in feature order. The Append methods append all
// values to the caller's slice and allocate nothing when it has enough
// spare capacity (AppendStrings allocates once per call; see
// [Block.AppendStringViews] and [Block.ReadStrings] for allocation-free
// string reads).
type Block struct {
	data   []byte
	schema *Schema
	count  int    // stored values; -1 for a string block parsed without schema
	meta   uint64 // expiry | version<<40 | data type<<56 | compression<<61
}

// Block.meta layout.
const (
	metaVersionShift = 40
	metaTypeShift    = 56
	metaCompShift    = 61
)

// widthTab and shiftTab give, per data type 0–31, the element width in
// bytes (0 for strings, bools and invalid types) and its log2. They are
// constant strings: read-only lookup tables.
const (
	widthTab = "\x00\x01\x01\x02\x04\x08\x01\x02\x04\x08\x01\x02\x04\x08\x00\x00" +
		"\x01\x01\x02\x04\x08\x01\x02\x04\x08\x01\x02\x04\x08\x00\x00\x00"
	shiftTab = "\x00\x00\x00\x01\x02\x03\x00\x01\x02\x03\x00\x01\x02\x03\x00\x00" +
		"\x00\x00\x01\x02\x03\x00\x01\x02\x03\x00\x01\x02\x03\x00\x00\x00"
)

// packMeta packs the header fields kept by a Block (the bool padding is
// implied by the data length and the value count).
func packMeta(h Header) uint64 {
	return uint64(h.Expiry)&expiryMask | uint64(h.SchemaVersion)<<metaVersionShift |
		uint64(h.DataType&31)<<metaTypeShift | uint64(h.Compression&1)<<metaCompShift
}

// Parse validates an uncompressed PSDB layout-1 block and returns a Block
// that reads it in place. When s is given, it must match the header's data
// type and schema version and the data size must match it exactly. A
// compressed block yields an error wrapping ErrCompressed (use
// [Codec.Parse]).
//
// Pass the schema whenever you have it. s may be nil, but a PSDB block
// stores no value count, so without a schema Parse can check only the
// header and that the data is a whole number of elements:
//
//   - A block truncated at an element boundary (a fixed-width block missing
//     its last values, a bool block missing whole bytes) is NOT detected:
//     it parses, and Len and the Append methods report fewer values.
//   - Trailing garbage of a whole number of elements is read as values.
//   - A string block cannot be checked or read at all (its Len and readers
//     return an error wrapping ErrSchema), nor can individual vectors.
//
// Use the schema-less form only for inspecting headers or when the value
// count is validated elsewhere.
func Parse(b []byte, s *Schema) (Block, error) {
	// Fast path: an uncompressed fixed-width block of the expected size.
	// Anything else (including every error) takes parseVar or parseSlow.
	if len(b) >= headerLen && b[7]&^1 == layout1<<layoutShift {
		u := binary.LittleEndian.Uint64(b)
		dt := DataType(u>>56&1)<<4 | DataType(b[8]>>4)
		data := b[headerLen:]
		n := -1
		if w := int(widthTab[dt&31]); w != 0 {
			if len(data)&(w-1) == 0 {
				n = len(data) >> shiftTab[dt&31]
			}
		} else if dt == TypeBool || dt == TypeBoolVector {
			if pad := int(b[8] & boolPaddingMask); pad <= 7 && (len(data) > 0 || pad == 0) {
				n = 8*len(data) - pad
			}
		} else {
			return parseStrings(b, s, u, dt)
		}
		if n >= 0 && (s == nil || (s.dt == dt && s.version == uint16(u) && s.elements == n)) {
			return Block{data: data, schema: s, count: n, meta: fastMeta(u, dt)}, nil
		}
	}
	return parseSlow(b, s)
}

// fastMeta returns Block.meta for an uncompressed block whose first 8
// bytes, little-endian, are u.
func fastMeta(u uint64, dt DataType) uint64 {
	// Expiry P: bytes 2–5 hold P>>8 little-endian, byte 6 holds P&0xff.
	return (u>>16)&0xffffffff<<8 | u>>48&0xff | u&0xffff<<metaVersionShift | uint64(dt)<<metaTypeShift
}

// parseStrings is Parse's fast path for an uncompressed string block of
// the schema's size (and of everything else with type dt, a string or an
// invalid type); u holds the first 8 header bytes.
func parseStrings(b []byte, s *Schema, u uint64, dt DataType) (Block, error) {
	if s != nil && s.dt == dt && s.version == uint16(u) && dt.IsString() {
		data := b[headerLen:]
		if e := s.elements; 2*e <= len(data) && 2*e+sumLengths(data[:2*e]) == len(data) {
			return Block{data: data, schema: s, count: e, meta: fastMeta(u, dt)}, nil
		}
	}
	return parseSlow(b, s)
}

// parseSlow is Parse for every other block, and for errors.
func parseSlow(b []byte, s *Schema) (Block, error) {
	h, err := ParseHeader(b)
	if err != nil {
		return Block{}, err
	}
	if h.Compression != CompressionNone {
		return Block{}, fmt.Errorf("%w: %s", ErrCompressed, h.Compression)
	}
	return bind(h, b[headerLen:], s)
}

// bind checks data against h (and s when non-nil).
func bind(h Header, data []byte, s *Schema) (Block, error) {
	dt := h.DataType
	if s != nil {
		if err := s.checkFor(h, dt); err != nil {
			return Block{}, err
		}
	}
	blk := Block{data: data, schema: s, meta: packMeta(h)}
	switch {
	case dt.Width() > 0:
		w := dt.Width()
		if len(data)%w != 0 {
			return Block{}, fmt.Errorf("%w: %d bytes is not a multiple of %s's width %d", ErrDataLength, len(data), dt, w)
		}
		blk.count = len(data) / w
	case dt.IsBool():
		if len(data) == 0 && h.BoolPadding != 0 {
			return Block{}, fmt.Errorf("%w: bool padding %d with no data", ErrBoolPadding, h.BoolPadding)
		}
		blk.count = 8*len(data) - int(h.BoolPadding)
	default: // strings
		if s == nil {
			blk.count = -1
			return blk, nil
		}
		n := s.elements
		if n > len(data)/2 {
			return Block{}, fmt.Errorf("%w: %d bytes cannot hold %d string lengths", ErrDataLength, len(data), n)
		}
		if total := 2*n + sumLengths(data[:2*n]); total != len(data) {
			return Block{}, fmt.Errorf("%w: string data needs %d bytes, has %d", ErrDataLength, total, len(data))
		}
		blk.count = n
	}
	if s != nil && blk.count != s.elements {
		return Block{}, fmt.Errorf("%w: block holds %d values, schema %d", ErrDataLength, blk.count, s.elements)
	}
	return blk, nil
}

// sumLengths returns the sum of the little-endian uint16 lengths in b.
// It adds four lengths per 8-byte load into two words of two 32-bit
// lanes; a lane gains at most 65,535 per load, so chunks of 2^15 loads
// cannot overflow one.
func sumLengths(b []byte) int {
	t := 0
	for len(b) >= 8 {
		k := min(len(b)/8, 1<<15)
		var s0, s1 uint64
		for i := range k {
			x := binary.LittleEndian.Uint64(b[8*i:])
			s0 += x & 0x0000ffff0000ffff
			s1 += x >> 16 & 0x0000ffff0000ffff
		}
		s0 += s1
		t += int(s0&0xffffffff + s0>>32)
		b = b[8*k:]
	}
	for len(b) >= 2 {
		t += int(binary.LittleEndian.Uint16(b))
		b = b[2:]
	}
	return t
}

// Header returns the block's header. BoolPadding is 0 for non-bool types,
// whatever the stored nibble (see ParseHeader).
func (b Block) Header() Header {
	h := Header{
		SchemaVersion: uint16(b.meta >> metaVersionShift),
		Expiry:        Expiry(b.meta & expiryMask),
		DataType:      b.DataType(),
		Compression:   Compression(b.meta >> metaCompShift & 1),
	}
	if h.DataType.IsBool() {
		h.BoolPadding = uint8(8*len(b.data) - b.count)
	}
	return h
}

// DataType returns the block's data type.
func (b Block) DataType() DataType { return DataType(b.meta >> metaTypeShift & 31) }

// elem returns the block's element type.
func (b Block) elem() DataType { return b.DataType().Element() }

// Data returns the (uncompressed) data section, without copying.
func (b Block) Data() []byte { return b.data }

// Schema returns the schema the block was parsed with, or nil.
func (b Block) Schema() *Schema { return b.schema }

// Len returns the number of stored values (for vector types, of all
// vectors together). A string block parsed without a schema yields an
// error wrapping ErrSchema.
func (b Block) Len() (int, error) {
	if b.count < 0 {
		return 0, fmt.Errorf("%w: string block parsed without schema", ErrSchema)
	}
	return b.count, nil
}

// pos validates position i.
func (b Block) pos(i int) error {
	if b.count < 0 {
		return fmt.Errorf("%w: string block parsed without schema", ErrSchema)
	}
	if i < 0 || i >= b.count {
		return fmt.Errorf("%w: position %d of %d", ErrIndex, i, b.count)
	}
	return nil
}

func (b Block) mismatch(want string) error {
	return fmt.Errorf("%w: cannot read %s block as %s", ErrTypeMismatch, b.DataType(), want)
}

// Single values.

// Int32 returns the value at position i of an Int8, Int16 or Int32 block
// (or vector block), widened to int32.
func (b Block) Int32(i int) (int32, error) {
	if err := b.pos(i); err != nil {
		return 0, err
	}
	switch b.elem() {
	case TypeInt8:
		return int32(int8(b.data[i])), nil
	case TypeInt16:
		return int32(int16(binary.LittleEndian.Uint16(b.data[2*i:]))), nil
	case TypeInt32:
		return int32(binary.LittleEndian.Uint32(b.data[4*i:])), nil
	}
	return 0, b.mismatch("int32")
}

// Int64 returns the value at position i of any signed integer block,
// widened to int64.
func (b Block) Int64(i int) (int64, error) {
	if b.elem() == TypeInt64 {
		if err := b.pos(i); err != nil {
			return 0, err
		}
		return int64(binary.LittleEndian.Uint64(b.data[8*i:])), nil
	}
	v, err := b.Int32(i)
	if err != nil {
		return 0, err
	}
	return int64(v), nil
}

// Uint32 returns the value at position i of a Uint8, Uint16 or Uint32
// block (or vector block), widened to uint32.
func (b Block) Uint32(i int) (uint32, error) {
	if err := b.pos(i); err != nil {
		return 0, err
	}
	switch b.elem() {
	case TypeUint8:
		return uint32(b.data[i]), nil
	case TypeUint16:
		return uint32(binary.LittleEndian.Uint16(b.data[2*i:])), nil
	case TypeUint32:
		return binary.LittleEndian.Uint32(b.data[4*i:]), nil
	}
	return 0, b.mismatch("uint32")
}

// Uint64 returns the value at position i of any unsigned integer block,
// widened to uint64.
func (b Block) Uint64(i int) (uint64, error) {
	if b.elem() == TypeUint64 {
		if err := b.pos(i); err != nil {
			return 0, err
		}
		return binary.LittleEndian.Uint64(b.data[8*i:]), nil
	}
	v, err := b.Uint32(i)
	if err != nil {
		return 0, err
	}
	return uint64(v), nil
}

// Float32 returns the value at position i of an FP8E5M2, FP8E4M3, FP16 or
// FP32 block (or vector block), converted exactly to float32.
func (b Block) Float32(i int) (float32, error) {
	if err := b.pos(i); err != nil {
		return 0, err
	}
	switch b.elem() {
	case TypeFP8E5M2:
		return FP8E5M2ToFloat32(b.data[i]), nil
	case TypeFP8E4M3:
		return FP8E4M3ToFloat32(b.data[i]), nil
	case TypeFP16:
		return FP16ToFloat32(binary.LittleEndian.Uint16(b.data[2*i:])), nil
	case TypeFP32:
		return math.Float32frombits(binary.LittleEndian.Uint32(b.data[4*i:])), nil
	}
	return 0, b.mismatch("float32")
}

// Float64 returns the value at position i of any floating-point block,
// converted exactly to float64.
func (b Block) Float64(i int) (float64, error) {
	if b.elem() == TypeFP64 {
		if err := b.pos(i); err != nil {
			return 0, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b.data[8*i:])), nil
	}
	v, err := b.Float32(i)
	if err != nil {
		return 0, err
	}
	return float64(v), nil
}

// Bool returns the value at position i of a Bool or BoolVector block.
func (b Block) Bool(i int) (bool, error) {
	if !b.DataType().IsBool() {
		return false, b.mismatch("bool")
	}
	if err := b.pos(i); err != nil {
		return false, err
	}
	return b.data[i>>3]&(0x80>>(i&7)) != 0, nil
}

// stringOffset returns the byte offset of string i's bytes (strings must
// be bound to a schema).
func (b Block) stringOffset(i int) int {
	off := 2 * b.count
	for k := 0; k < i; k++ {
		off += int(binary.LittleEndian.Uint16(b.data[2*k:]))
	}
	return off
}

// StringBytes returns string i of a String or StringVector block as a view
// of the block's bytes (no copy; capacity is clipped so appending to it
// cannot overwrite the block). It walks the length list, O(i).
func (b Block) StringBytes(i int) ([]byte, error) {
	if !b.DataType().IsString() {
		return nil, b.mismatch("string")
	}
	if err := b.pos(i); err != nil {
		return nil, err
	}
	off := b.stringOffset(i)
	end := off + int(binary.LittleEndian.Uint16(b.data[2*i:]))
	return b.data[off:end:end], nil
}

// String returns a copy of string i of a String or StringVector block.
func (b Block) String(i int) (string, error) {
	v, err := b.StringBytes(i)
	return string(v), err
}

// fp8Lookup sets out[k] to the float32 of code d[k] in tab (e4m3Tab or
// e5m2Tab).
func fp8Lookup(out []float32, d []byte, tab string) {
	out = out[:len(d)]
	tab = tab[:1024]
	for k, c := range d {
		i := 4 * int(c)
		out[k] = math.Float32frombits(uint32(tab[i]) | uint32(tab[i+1])<<8 | uint32(tab[i+2])<<16 | uint32(tab[i+3])<<24)
	}
}

// appendData32 appends the 4-byte little-endian words of data to dst.
func appendData32[T word32](dst []T, data []byte) []T {
	dst, t := grow(dst, len(data)>>2)
	getUint32s(u32s(t), data)
	return dst
}

// appendData64 appends the 8-byte little-endian words of data to dst.
func appendData64[T word64](dst []T, data []byte) []T {
	dst, t := grow(dst, len(data)>>3)
	getUint64s(u64s(t), data)
	return dst
}

// Bulk reads of a flattened range [start, start+n), already validated.

func (b Block) int32Range(dst []int32, start, n int) ([]int32, error) {
	d := b.data
	switch b.elem() {
	case TypeInt8:
		dst, t := grow(dst, n)
		for k, x := range d[start : start+n] {
			t[k] = int32(int8(x))
		}
		return dst, nil
	case TypeInt16:
		dst, t := grow(dst, n)
		d = d[2*start : 2*(start+n)]
		for k := range t {
			t[k] = int32(int16(binary.LittleEndian.Uint16(d[2*k:])))
		}
		return dst, nil
	case TypeInt32:
		dst, t := grow(dst, n)
		getUint32s(u32s(t), d[4*start:4*(start+n)])
		return dst, nil
	}
	return dst, b.mismatch("int32")
}

func (b Block) int64Range(dst []int64, start, n int) ([]int64, error) {
	switch b.elem() {
	case TypeInt64:
		dst, t := grow(dst, n)
		getUint64s(u64s(t), b.data[8*start:8*(start+n)])
		return dst, nil
	case TypeInt8, TypeInt16, TypeInt32:
		dst, t := grow(dst, n)
		for k := range t {
			v, err := b.Int32(start + k)
			if err != nil {
				return dst[:len(dst)-n], err
			}
			t[k] = int64(v)
		}
		return dst, nil
	}
	return dst, b.mismatch("int64")
}

func (b Block) uint32Range(dst []uint32, start, n int) ([]uint32, error) {
	d := b.data
	switch b.elem() {
	case TypeUint8:
		dst, t := grow(dst, n)
		for k, x := range d[start : start+n] {
			t[k] = uint32(x)
		}
		return dst, nil
	case TypeUint16:
		dst, t := grow(dst, n)
		d = d[2*start : 2*(start+n)]
		for k := range t {
			t[k] = uint32(binary.LittleEndian.Uint16(d[2*k:]))
		}
		return dst, nil
	case TypeUint32:
		dst, t := grow(dst, n)
		getUint32s(t, d[4*start:4*(start+n)])
		return dst, nil
	}
	return dst, b.mismatch("uint32")
}

func (b Block) uint64Range(dst []uint64, start, n int) ([]uint64, error) {
	switch b.elem() {
	case TypeUint64:
		dst, t := grow(dst, n)
		getUint64s(t, b.data[8*start:8*(start+n)])
		return dst, nil
	case TypeUint8, TypeUint16, TypeUint32:
		dst, t := grow(dst, n)
		for k := range t {
			v, err := b.Uint32(start + k)
			if err != nil {
				return dst[:len(dst)-n], err
			}
			t[k] = uint64(v)
		}
		return dst, nil
	}
	return dst, b.mismatch("uint64")
}

func (b Block) float32Range(dst []float32, start, n int) ([]float32, error) {
	d := b.data
	switch b.elem() {
	// The loops inline the normal-range path of the scalar converters.
	case TypeFP8E5M2:
		dst, t := grow(dst, n)
		fp8Lookup(t, d[start:start+n], e5m2Tab)
		return dst, nil
	case TypeFP8E4M3:
		dst, t := grow(dst, n)
		fp8Lookup(t, d[start:start+n], e4m3Tab)
		return dst, nil
	case TypeFP16:
		dst, t := grow(dst, n)
		d = d[2*start : 2*(start+n)]
		for k := range t {
			h := binary.LittleEndian.Uint16(d[2*k:])
			if m := uint32(h & 0x7fff); m-0x400 < 0x7c00-0x400 {
				t[k] = math.Float32frombits((m<<13 + 112<<23) | uint32(h&0x8000)<<16)
			} else {
				t[k] = fp16ToFloat32Special(h)
			}
		}
		return dst, nil
	case TypeFP32:
		dst, t := grow(dst, n)
		getUint32s(u32s(t), d[4*start:4*(start+n)])
		return dst, nil
	}
	return dst, b.mismatch("float32")
}

func (b Block) float64Range(dst []float64, start, n int) ([]float64, error) {
	switch b.elem() {
	case TypeFP64:
		dst, t := grow(dst, n)
		getUint64s(u64s(t), b.data[8*start:8*(start+n)])
		return dst, nil
	case TypeFP8E5M2, TypeFP8E4M3, TypeFP16, TypeFP32:
		dst, t := grow(dst, n)
		for k := range t {
			v, err := b.Float32(start + k)
			if err != nil {
				return dst[:len(dst)-n], err
			}
			t[k] = float64(v)
		}
		return dst, nil
	}
	return dst, b.mismatch("float64")
}

func (b Block) boolRange(dst []bool, start, n int) ([]bool, error) {
	if !b.DataType().IsBool() {
		return dst, b.mismatch("bool")
	}
	dst, t := grow(dst, n)
	d := b.data
	if start&7 == 0 { // whole bytes from the first: every full read
		unpackBits(boolBytes(t), d[start>>3:])
		return dst, nil
	}
	k := 0
	p := start
	for ; p&7 != 0 && k < n; p, k = p+1, k+1 {
		t[k] = d[p>>3]&(0x80>>(p&7)) != 0
	}
	if full := (n - k) >> 3; full > 0 {
		tb := boolBytes(t[k : k+8*full])
		src := d[p>>3 : p>>3+full]
		for len(src) >= 4 && len(tb) >= 32 {
			binary.LittleEndian.PutUint64(tb, unpackTabWord(src[0]))
			binary.LittleEndian.PutUint64(tb[8:], unpackTabWord(src[1]))
			binary.LittleEndian.PutUint64(tb[16:], unpackTabWord(src[2]))
			binary.LittleEndian.PutUint64(tb[24:], unpackTabWord(src[3]))
			src, tb = src[4:], tb[32:]
		}
		for _, c := range src {
			binary.LittleEndian.PutUint64(tb, unpackTabWord(c))
			tb = tb[8:]
		}
		p, k = p+8*full, k+8*full
	}
	for ; k < n; p, k = p+1, k+1 {
		t[k] = d[p>>3]&(0x80>>(p&7)) != 0
	}
	return dst, nil
}

// AppendBoolBits appends the values of a Bool or BoolVector block to dst
// as packed bits, most significant bit first (value i is bit 7-i%8 of byte
// i/8), with one copy: (Len()+7)/8 bytes, unused low bits of the last byte
// zero.
func (b Block) AppendBoolBits(dst []byte) ([]byte, error) {
	if dt := DataType(b.meta >> metaTypeShift & 31); dt != TypeBool && dt != TypeBoolVector {
		return dst, b.mismatch("bool")
	}
	var out []byte
	if l := len(dst); cap(dst)-l >= len(b.data) { // in place (see copyPayload)
		out = dst[:l+len(b.data)]
		copyPayload(out[l:], b.data)
	} else {
		out = append(dst, b.data...)
	}
	if pad := 8*len(b.data) - b.count; pad != 0 {
		out[len(out)-1] &^= 1<<pad - 1
	}
	return out, nil
}

// stringViewRange appends views of strings [start, start+n).
func (b Block) stringViewRange(dst [][]byte, start, n int) ([][]byte, error) {
	if !b.DataType().IsString() {
		return dst, b.mismatch("string")
	}
	if b.count < 0 {
		return dst, fmt.Errorf("%w: string block parsed without schema", ErrSchema)
	}
	dst, t := grow(dst, n)
	off := b.stringOffset(start)
	for k := range t {
		end := off + int(binary.LittleEndian.Uint16(b.data[2*(start+k):]))
		t[k] = b.data[off:end:end]
		off = end
	}
	return dst, nil
}

// stringRange appends copies of strings [start, start+n), backed by one
// new string.
func (b Block) stringRange(dst []string, start, n int) ([]string, error) {
	if !b.DataType().IsString() {
		return dst, b.mismatch("string")
	}
	if b.count < 0 {
		return dst, fmt.Errorf("%w: string block parsed without schema", ErrSchema)
	}
	first := b.stringOffset(start)
	last := first
	for k := 0; k < n; k++ {
		last += int(binary.LittleEndian.Uint16(b.data[2*(start+k):]))
	}
	all := string(b.data[first:last])
	dst, t := grow(dst, n)
	off := 0
	for k := range t {
		end := off + int(binary.LittleEndian.Uint16(b.data[2*(start+k):]))
		t[k] = all[off:end]
		off = end
	}
	return dst, nil
}

// AppendInt32s appends every value of an Int8, Int16 or Int32 block (or
// vector block) to dst, widened to int32. Int32 data on little-endian
// hosts is copied with a single memory copy.
func (b Block) AppendInt32s(dst []int32) ([]int32, error) {
	if dt := DataType(b.meta >> metaTypeShift & 31); (dt == TypeInt32 || dt == TypeInt32Vector) && nativeLE {
		if n := len(b.data) >> 2; cap(dst)-len(dst) >= n { // in place: one copy
			l := len(dst)
			dst = dst[:l+n]
			copyPayload(bytesOf32(u32s(dst[l:])), b.data)
			return dst, nil
		}
		return appendData32(dst, b.data), nil
	}
	return b.int32Range(dst, 0, b.count)
}

// AppendInt64s appends every value of a signed integer block to dst.
func (b Block) AppendInt64s(dst []int64) ([]int64, error) {
	if dt := DataType(b.meta >> metaTypeShift & 31); (dt == TypeInt64 || dt == TypeInt64Vector) && nativeLE {
		if n := len(b.data) >> 3; cap(dst)-len(dst) >= n { // in place: one copy
			l := len(dst)
			dst = dst[:l+n]
			copyPayload(bytesOf64(u64s(dst[l:])), b.data)
			return dst, nil
		}
		return appendData64(dst, b.data), nil
	}
	return b.int64Range(dst, 0, b.count)
}

// AppendUint32s appends every value of a Uint8, Uint16 or Uint32 block to
// dst, widened to uint32.
func (b Block) AppendUint32s(dst []uint32) ([]uint32, error) {
	if dt := DataType(b.meta >> metaTypeShift & 31); (dt == TypeUint32 || dt == TypeUint32Vector) && nativeLE {
		if n := len(b.data) >> 2; cap(dst)-len(dst) >= n { // in place: one copy
			l := len(dst)
			dst = dst[:l+n]
			copyPayload(bytesOf32(u32s(dst[l:])), b.data)
			return dst, nil
		}
		return appendData32(dst, b.data), nil
	}
	return b.uint32Range(dst, 0, b.count)
}

// AppendUint64s appends every value of an unsigned integer block to dst.
func (b Block) AppendUint64s(dst []uint64) ([]uint64, error) {
	if dt := DataType(b.meta >> metaTypeShift & 31); (dt == TypeUint64 || dt == TypeUint64Vector) && nativeLE {
		if n := len(b.data) >> 3; cap(dst)-len(dst) >= n { // in place: one copy
			l := len(dst)
			dst = dst[:l+n]
			copyPayload(bytesOf64(u64s(dst[l:])), b.data)
			return dst, nil
		}
		return appendData64(dst, b.data), nil
	}
	return b.uint64Range(dst, 0, b.count)
}

// AppendFloat32s appends every value of an FP8E5M2, FP8E4M3, FP16 or FP32
// block (or vector block) to dst, converted exactly to float32.
func (b Block) AppendFloat32s(dst []float32) ([]float32, error) {
	if dt := DataType(b.meta >> metaTypeShift & 31); (dt == TypeFP32 || dt == TypeFP32Vector) && nativeLE {
		if n := len(b.data) >> 2; cap(dst)-len(dst) >= n { // in place: one copy
			l := len(dst)
			dst = dst[:l+n]
			copyPayload(bytesOf32(u32s(dst[l:])), b.data)
			return dst, nil
		}
		return appendData32(dst, b.data), nil
	}
	return b.float32Range(dst, 0, b.count)
}

// AppendFloat64s appends every value of a floating-point block to dst.
func (b Block) AppendFloat64s(dst []float64) ([]float64, error) {
	if dt := DataType(b.meta >> metaTypeShift & 31); (dt == TypeFP64 || dt == TypeFP64Vector) && nativeLE {
		if n := len(b.data) >> 3; cap(dst)-len(dst) >= n { // in place: one copy
			l := len(dst)
			dst = dst[:l+n]
			copyPayload(bytesOf64(u64s(dst[l:])), b.data)
			return dst, nil
		}
		return appendData64(dst, b.data), nil
	}
	return b.float64Range(dst, 0, b.count)
}

// AppendBools appends every value of a Bool or BoolVector block to dst.
func (b Block) AppendBools(dst []bool) ([]bool, error) {
	if dt := DataType(b.meta >> metaTypeShift & 31); dt == TypeBool || dt == TypeBoolVector {
		if n := b.count; cap(dst)-len(dst) >= n { // in place: no growth check, no call but the unpacking
			l := len(dst)
			dst = dst[:l+n]
			unpackBits(boolBytes(dst[l:]), b.data)
			return dst, nil
		}
	}
	return b.boolRange(dst, 0, b.count)
}

// AppendStrings appends every string of a String or StringVector block
// (parsed with a schema) to dst. The strings share one newly allocated
// backing string, so the call allocates once regardless of their number.
func (b Block) AppendStrings(dst []string) ([]string, error) {
	return b.stringRange(dst, 0, b.count)
}

// AppendStringViews appends every string of a String or StringVector block
// (parsed with a schema) to dst as views of the block's bytes; it
// allocates nothing when dst has enough capacity.
func (b Block) AppendStringViews(dst [][]byte) ([][]byte, error) {
	return b.stringViewRange(dst, 0, b.count)
}

// Vectors: feature-wise reads, which need the block's schema.

// VectorSpan returns the flattened position and length of feature f's
// vector, so that its values are at positions start … start+n-1. For a
// scalar type the span is (f, 1). It needs the block's schema.
func (b Block) VectorSpan(f int) (start, n int, err error) {
	if b.schema == nil {
		return 0, 0, fmt.Errorf("%w: vector reads need a schema", ErrSchema)
	}
	return b.schema.span(f)
}

// AppendInt32Vector appends feature f's vector (see AppendInt32s).
func (b Block) AppendInt32Vector(dst []int32, f int) ([]int32, error) {
	start, n, err := b.VectorSpan(f)
	if err != nil {
		return dst, err
	}
	return b.int32Range(dst, start, n)
}

// AppendInt64Vector appends feature f's vector (see AppendInt64s).
func (b Block) AppendInt64Vector(dst []int64, f int) ([]int64, error) {
	start, n, err := b.VectorSpan(f)
	if err != nil {
		return dst, err
	}
	return b.int64Range(dst, start, n)
}

// AppendUint32Vector appends feature f's vector (see AppendUint32s).
func (b Block) AppendUint32Vector(dst []uint32, f int) ([]uint32, error) {
	start, n, err := b.VectorSpan(f)
	if err != nil {
		return dst, err
	}
	return b.uint32Range(dst, start, n)
}

// AppendUint64Vector appends feature f's vector (see AppendUint64s).
func (b Block) AppendUint64Vector(dst []uint64, f int) ([]uint64, error) {
	start, n, err := b.VectorSpan(f)
	if err != nil {
		return dst, err
	}
	return b.uint64Range(dst, start, n)
}

// AppendFloat32Vector appends feature f's vector (see AppendFloat32s).
func (b Block) AppendFloat32Vector(dst []float32, f int) ([]float32, error) {
	start, n, err := b.VectorSpan(f)
	if err != nil {
		return dst, err
	}
	return b.float32Range(dst, start, n)
}

// AppendFloat64Vector appends feature f's vector (see AppendFloat64s).
func (b Block) AppendFloat64Vector(dst []float64, f int) ([]float64, error) {
	start, n, err := b.VectorSpan(f)
	if err != nil {
		return dst, err
	}
	return b.float64Range(dst, start, n)
}

// AppendBoolVector appends feature f's vector (see AppendBools).
func (b Block) AppendBoolVector(dst []bool, f int) ([]bool, error) {
	start, n, err := b.VectorSpan(f)
	if err != nil {
		return dst, err
	}
	return b.boolRange(dst, start, n)
}

// AppendStringVector appends copies of feature f's strings (see
// AppendStrings).
func (b Block) AppendStringVector(dst []string, f int) ([]string, error) {
	start, n, err := b.VectorSpan(f)
	if err != nil {
		return dst, err
	}
	return b.stringRange(dst, start, n)
}

// AppendStringVectorViews appends views of feature f's strings (see
// AppendStringViews).
func (b Block) AppendStringVectorViews(dst [][]byte, f int) ([][]byte, error) {
	start, n, err := b.VectorSpan(f)
	if err != nil {
		return dst, err
	}
	return b.stringViewRange(dst, start, n)
}
