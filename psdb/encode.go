package psdb

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// All Append functions append one complete, uncompressed PSDB block to dst
// and return the extended slice. They allocate nothing when dst has enough
// spare capacity (HeaderLen plus the data size). On error they return dst
// unchanged in length (bytes beyond its length may have been overwritten)
// and an error wrapping one of the package's sentinel errors. The header's
// SchemaVersion and Expiry are written; its DataType must be zero or the
// type being written. Use a Codec to compress the result.

// begin validates h and grows dst by a header and dataLen data bytes,
// writing the header. It returns the extended slice and its data section.
func begin(dst []byte, h Header, dt DataType, dataLen int, pad uint8) ([]byte, []byte, error) {
	if (h.DataType != TypeUnknown && h.DataType != dt) || uint64(h.Expiry) > expiryMask {
		return dst, nil, checkWriteHeader(h, dt)
	}
	l, n := len(dst), headerLen+dataLen
	if cap(dst)-l < n {
		dst = slices.Grow(dst, n)
	}
	out := dst[:l+n]
	putHeader(out[l:], h, dt, CompressionNone, pad)
	return out, out[l+headerLen:], nil
}

// appendWords32 writes a block of 4-byte words (Int32, Uint32, FP32). It
// repeats begin so that the common case makes no further calls.
func appendWords32[T word32](dst []byte, h Header, dt DataType, vals []T) ([]byte, error) {
	if (h.DataType != TypeUnknown && h.DataType != dt) || uint64(h.Expiry) > expiryMask {
		return dst, checkWriteHeader(h, dt)
	}
	l, n := len(dst), headerLen+4*len(vals)
	if cap(dst)-l < n {
		dst = slices.Grow(dst, n)
	}
	out := dst[:l+n]
	putHeader(out[l:], h, dt, CompressionNone, 0)
	putUint32s(out[l+headerLen:], u32s(vals))
	return out, nil
}

// appendWords64 writes a block of 8-byte words (Int64, Uint64, FP64).
func appendWords64[T word64](dst []byte, h Header, dt DataType, vals []T) ([]byte, error) {
	if (h.DataType != TypeUnknown && h.DataType != dt) || uint64(h.Expiry) > expiryMask {
		return dst, checkWriteHeader(h, dt)
	}
	l, n := len(dst), headerLen+8*len(vals)
	if cap(dst)-l < n {
		dst = slices.Grow(dst, n)
	}
	out := dst[:l+n]
	putHeader(out[l:], h, dt, CompressionNone, 0)
	putUint64s(out[l+headerLen:], u64s(vals))
	return out, nil
}

// elemWriter writes len(v) elements into b[:len(v)*width].
type elemWriter[T any] func(b []byte, v []T) error

// appendScalars writes a scalar block of fixed-width type dt.
func appendScalars[T any](dst []byte, h Header, dt DataType, vals []T, w elemWriter[T]) ([]byte, error) {
	out, data, err := begin(dst, h, dt, len(vals)*dt.Width(), 0)
	if err != nil {
		return dst, err
	}
	if err := w(data, vals); err != nil {
		return dst, fmt.Errorf("psdb: writing %s: %w", dt, err)
	}
	return out, nil
}

// checkVectors validates vecs against s (which must describe type dt).
func checkVectors[T any](h Header, s *Schema, dt DataType, vecs [][]T) error {
	if err := s.checkFor(h, dt); err != nil {
		return err
	}
	if len(vecs) != s.n {
		return fmt.Errorf("%w: %d vectors for %d features", ErrVectorLength, len(vecs), s.n)
	}
	for i, v := range vecs {
		if len(v) != s.vecLens[i] {
			return fmt.Errorf("%w: feature %d has %d values, schema says %d", ErrVectorLength, i, len(v), s.vecLens[i])
		}
	}
	return nil
}

// appendVectors writes a vector block of fixed-width type dt.
func appendVectors[T any](dst []byte, h Header, s *Schema, dt DataType, vecs [][]T, w elemWriter[T]) ([]byte, error) {
	if err := checkVectors(h, s, dt, vecs); err != nil {
		return dst, err
	}
	width := dt.Width()
	out, data, err := begin(dst, h, dt, s.elements*width, 0)
	if err != nil {
		return dst, err
	}
	off := 0
	for i, v := range vecs {
		n := len(v) * width
		if err := w(data[off:off+n], v); err != nil {
			return dst, fmt.Errorf("psdb: writing %s feature %d: %w", dt, i, err)
		}
		off += n
	}
	return out, nil
}

// appendWordVectors writes a vector block of 4- or 8-byte words (w is 4
// or 8, matching T). It checks each vector's length as it copies it, and
// copies vectors of 16, 32 or 64 bytes (4 or 8 words, the common feature
// vector sizes) with inline fixed-size moves instead of a memmove call:
// per vector, the work left is loading its slice header, one compare and
// the move.
func appendWordVectors[T any](dst []byte, h Header, s *Schema, dt DataType, w int, vecs [][]T) ([]byte, error) {
	if s == nil || s.dt != dt || s.version != h.SchemaVersion || len(vecs) != s.n {
		return dst, checkVectors(h, s, dt, vecs)
	}
	out, data, err := begin(dst, h, dt, s.elements*w, 0)
	if err != nil {
		return dst, err
	}
	lens := s.vecLens[:len(vecs)]
	if !nativeLE {
		if err := checkVectors(h, s, dt, vecs); err != nil {
			return dst, err
		}
		off := 0
		for _, v := range vecs {
			b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), w*len(v))
			if w == 4 {
				putUint32sPortable(data[off:], unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), len(v)))
			} else {
				putUint64sPortable(data[off:], unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), len(v)))
			}
			off += len(b)
		}
		return out, nil
	}
	// Every vector's length is checked before it is written, and the
	// lengths add up to the data size, so the writes stay in data.
	base := unsafe.Pointer(unsafe.SliceData(data))
	if l := s.vecLen; l >= 0 && (w*l == 32 || w*l == 64) {
		// All vectors of 32 or 64 bytes: a small loop of fixed moves
		// whose length check is a compare with a register.
		if moveVectors(base, headers(vecs), l, w*l == 64) >= 0 {
			return dst, checkVectors(h, s, dt, vecs)
		}
		return out, nil
	}
	off := 0
	for i, v := range vecs {
		if len(v) != lens[i] {
			return dst, checkVectors(h, s, dt, vecs)
		}
		p := unsafe.Pointer(unsafe.SliceData(v))
		n := w * len(v)
		switch n {
		case 0:
			continue
		case 16:
			*(*[16]byte)(unsafe.Add(base, off)) = *(*[16]byte)(p)
		case 32:
			d := unsafe.Add(base, off)
			*(*[16]byte)(d) = *(*[16]byte)(p)
			*(*[16]byte)(unsafe.Add(d, 16)) = *(*[16]byte)(unsafe.Add(p, 16))
		case 64:
			d := unsafe.Add(base, off)
			*(*[16]byte)(d) = *(*[16]byte)(p)
			*(*[16]byte)(unsafe.Add(d, 16)) = *(*[16]byte)(unsafe.Add(p, 16))
			*(*[16]byte)(unsafe.Add(d, 32)) = *(*[16]byte)(unsafe.Add(p, 32))
			*(*[16]byte)(unsafe.Add(d, 48)) = *(*[16]byte)(unsafe.Add(p, 48))
		default:
			copy(data[off:off+n], unsafe.Slice((*byte)(p), n))
		}
		off += n
	}
	return out, nil
}

// sliceHeader is the memory layout of a Go slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// headers returns the slice headers of vecs.
func headers[T any](vecs [][]T) []sliceHeader {
	return unsafe.Slice((*sliceHeader)(unsafe.Pointer(unsafe.SliceData(vecs))), len(vecs))
}

// moveVectors copies the first 32 bytes (64 when big) of every vector in
// vs to consecutive places from base, if its length is l, and returns the
// index of the first vector of another length, or -1. base must have
// room for len(vs) moves. (A separate function so that the loop keeps
// everything in registers.)
func moveVectors(base unsafe.Pointer, vs []sliceHeader, l int, big bool) int {
	if big {
		for i := range vs {
			v := &vs[i]
			if v.len != l {
				return i
			}
			p, d := v.data, unsafe.Add(base, 64*i)
			*(*[16]byte)(d) = *(*[16]byte)(p)
			*(*[16]byte)(unsafe.Add(d, 16)) = *(*[16]byte)(unsafe.Add(p, 16))
			*(*[16]byte)(unsafe.Add(d, 32)) = *(*[16]byte)(unsafe.Add(p, 32))
			*(*[16]byte)(unsafe.Add(d, 48)) = *(*[16]byte)(unsafe.Add(p, 48))
		}
		return -1
	}
	i := 0
	for ; i+2 <= len(vs); i += 2 { // two vectors per iteration
		v := vs[i : i+2 : i+2]
		if v[0].len != l || v[1].len != l {
			break
		}
		p, q, d := v[0].data, v[1].data, unsafe.Add(base, 32*i)
		*(*[16]byte)(d) = *(*[16]byte)(p)
		*(*[16]byte)(unsafe.Add(d, 16)) = *(*[16]byte)(unsafe.Add(p, 16))
		*(*[16]byte)(unsafe.Add(d, 32)) = *(*[16]byte)(q)
		*(*[16]byte)(unsafe.Add(d, 48)) = *(*[16]byte)(unsafe.Add(q, 16))
	}
	for ; i < len(vs); i++ {
		v := &vs[i]
		if v.len != l {
			return i
		}
		p, d := v.data, unsafe.Add(base, 32*i)
		*(*[16]byte)(d) = *(*[16]byte)(p)
		*(*[16]byte)(unsafe.Add(d, 16)) = *(*[16]byte)(unsafe.Add(p, 16))
	}
	return -1
}

// packVectors8 packs every vector of 8 bools in vs into one byte of
// data (len(data) must be len(vs)), four vectors per 4-byte store, and
// returns the index of the first vector whose length is not 8, or -1.
func packVectors8(data []byte, vs []sliceHeader) int {
	data = data[:len(vs)]
	const m = 0x8040201008040201 // see packByte
	i := 0
	for ; i+4 <= len(vs); i += 4 {
		v := vs[i : i+4 : i+4]
		if v[0].len != 8 || v[1].len != 8 || v[2].len != 8 || v[3].len != 8 {
			break
		}
		a := le8(v[0].data) * m >> 56
		b := le8(v[1].data) * m >> 56
		c := le8(v[2].data) * m >> 56
		d := le8(v[3].data) * m >> 56
		binary.LittleEndian.PutUint32(data[i:], uint32(a|b<<8|c<<16|d<<24))
	}
	for ; i < len(vs); i++ {
		if vs[i].len != 8 {
			return i
		}
		data[i] = byte(le8(vs[i].data) * m >> 56)
	}
	return -1
}

// le8 loads the 8 bytes at p as a little-endian word.
func le8(p unsafe.Pointer) uint64 { return binary.LittleEndian.Uint64(unsafe.Slice((*byte)(p), 8)) }

// Element writers.

func writeInt8(b []byte, v []int32) error {
	b = b[:len(v)]
	for i, x := range v {
		if x < math.MinInt8 || x > math.MaxInt8 {
			return fmt.Errorf("%w: %d at index %d does not fit Int8", ErrValueRange, x, i)
		}
		b[i] = byte(x)
	}
	return nil
}

func writeInt16(b []byte, v []int32) error {
	b = b[:2*len(v)]
	for i, x := range v {
		if x < math.MinInt16 || x > math.MaxInt16 {
			return fmt.Errorf("%w: %d at index %d does not fit Int16", ErrValueRange, x, i)
		}
		b[2*i] = byte(x)
		b[2*i+1] = byte(x >> 8)
	}
	return nil
}

func writeUint8(b []byte, v []uint32) error {
	b = b[:len(v)]
	for i, x := range v {
		if x > math.MaxUint8 {
			return fmt.Errorf("%w: %d at index %d does not fit Uint8", ErrValueRange, x, i)
		}
		b[i] = byte(x)
	}
	return nil
}

func writeUint16(b []byte, v []uint32) error {
	b = b[:2*len(v)]
	for i, x := range v {
		if x > math.MaxUint16 {
			return fmt.Errorf("%w: %d at index %d does not fit Uint16", ErrValueRange, x, i)
		}
		b[2*i] = byte(x)
		b[2*i+1] = byte(x >> 8)
	}
	return nil
}

// The float writers inline the normal-range path of the scalar converters
// (FP16FromFloat32, FP8E4M3FromFloat32, …) and call their special-case
// functions for everything else.

func writeFP16(b []byte, v []float32) error {
	b = b[:2*len(v)]
	for i, x := range v {
		u := math.Float32bits(x)
		a := u & 0x7fffffff
		var h uint16
		if a-0x38800000 < 0x477ff000-0x38800000 {
			h = uint16((a+0xc8000fff+(a>>13)&1)>>13) | uint16(u>>16)&0x8000
		} else {
			h = fp16Special(u)
		}
		binary.LittleEndian.PutUint16(b[2*i:], h)
	}
	return nil
}

func writeE4M3(b []byte, v []float32) error {
	b = b[:len(v)]
	for i, x := range v {
		u := math.Float32bits(x)
		if a := u & 0x7fffffff; a-0x3c800000 < 0x43e80000-0x3c800000 {
			b[i] = uint8((a+0xc407ffff+(a>>20)&1)>>20) | uint8(u>>24)&0x80
		} else {
			b[i] = fp8E4M3Special(u)
		}
	}
	return nil
}

func writeE4M3Sat(b []byte, v []float32) error {
	b = b[:len(v)]
	for i, x := range v {
		b[i] = FP8E4M3FromFloat32Saturating(x)
	}
	return nil
}

func writeE5M2(b []byte, v []float32) error {
	b = b[:len(v)]
	for i, x := range v {
		u := math.Float32bits(x)
		if a := u & 0x7fffffff; a-0x38800000 < 0x47700000-0x38800000 {
			b[i] = uint8((a+0xc80fffff+(a>>21)&1)>>21) | uint8(u>>24)&0x80
		} else {
			b[i] = fp8E5M2Special(u)
		}
	}
	return nil
}

// Scalar blocks.

// AppendFP8E5M2s appends an FP8E5M2 block; vals are rounded as by
// [FP8E5M2FromFloat32].
func AppendFP8E5M2s(dst []byte, h Header, vals []float32) ([]byte, error) {
	return appendScalars(dst, h, TypeFP8E5M2, vals, writeE5M2)
}

// AppendFP8E4M3s appends an FP8E4M3 block; vals are rounded as by
// [FP8E4M3FromFloat32], so values beyond ±464 and ±Inf are stored as NaN,
// as the reference implementation stores them.
func AppendFP8E4M3s(dst []byte, h Header, vals []float32) ([]byte, error) {
	return appendScalars(dst, h, TypeFP8E4M3, vals, writeE4M3)
}

// AppendFP8E4M3sSaturating is AppendFP8E4M3s with saturation (see
// [FP8E4M3FromFloat32Saturating]): values beyond the E4M3 range and ±Inf
// are stored as ±448 instead of NaN.
func AppendFP8E4M3sSaturating(dst []byte, h Header, vals []float32) ([]byte, error) {
	return appendScalars(dst, h, TypeFP8E4M3, vals, writeE4M3Sat)
}

// AppendFP16s appends an FP16 block; vals are rounded as by
// [FP16FromFloat32].
func AppendFP16s(dst []byte, h Header, vals []float32) ([]byte, error) {
	return appendScalars(dst, h, TypeFP16, vals, writeFP16)
}

// AppendFloat32s appends an FP32 block.
func AppendFloat32s(dst []byte, h Header, vals []float32) ([]byte, error) {
	return appendWords32(dst, h, TypeFP32, vals)
}

// AppendFloat64s appends an FP64 block.
func AppendFloat64s(dst []byte, h Header, vals []float64) ([]byte, error) {
	return appendWords64(dst, h, TypeFP64, vals)
}

// AppendInt8s appends an Int8 block, narrowing vals; a value outside
// -128…127 is an error wrapping ErrValueRange.
func AppendInt8s(dst []byte, h Header, vals []int32) ([]byte, error) {
	return appendScalars(dst, h, TypeInt8, vals, writeInt8)
}

// AppendInt16s appends an Int16 block, narrowing vals; a value outside
// -32768…32767 is an error wrapping ErrValueRange.
func AppendInt16s(dst []byte, h Header, vals []int32) ([]byte, error) {
	return appendScalars(dst, h, TypeInt16, vals, writeInt16)
}

// AppendInt32s appends an Int32 block. On little-endian hosts the data is
// written with a single copy.
func AppendInt32s(dst []byte, h Header, vals []int32) ([]byte, error) {
	return appendWords32(dst, h, TypeInt32, vals)
}

// AppendInt64s appends an Int64 block.
func AppendInt64s(dst []byte, h Header, vals []int64) ([]byte, error) {
	return appendWords64(dst, h, TypeInt64, vals)
}

// AppendUint8s appends a Uint8 block, narrowing vals; a value above 255 is
// an error wrapping ErrValueRange.
func AppendUint8s(dst []byte, h Header, vals []uint32) ([]byte, error) {
	return appendScalars(dst, h, TypeUint8, vals, writeUint8)
}

// AppendUint16s appends a Uint16 block, narrowing vals; a value above
// 65,535 is an error wrapping ErrValueRange.
func AppendUint16s(dst []byte, h Header, vals []uint32) ([]byte, error) {
	return appendScalars(dst, h, TypeUint16, vals, writeUint16)
}

// AppendUint32s appends a Uint32 block.
func AppendUint32s(dst []byte, h Header, vals []uint32) ([]byte, error) {
	return appendWords32(dst, h, TypeUint32, vals)
}

// AppendUint64s appends a Uint64 block.
func AppendUint64s(dst []byte, h Header, vals []uint64) ([]byte, error) {
	return appendWords64(dst, h, TypeUint64, vals)
}

// Bools.

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// boolPadding returns the number of unused low bits after n bits.
func boolPadding(n int) uint8 { return uint8((8 - n%8) % 8) }

// packBools writes vals as bits, most significant bit first, starting at
// bit position pos of data. The bytes it touches must be zero.
func packBools(data []byte, pos int, vals []bool) {
	for pos&7 != 0 && len(vals) > 0 {
		data[pos>>3] |= b2u(vals[0]) << (7 - pos&7)
		pos++
		vals = vals[1:]
	}
	out := data[pos>>3:]
	in := boolBytes(vals)
	i := 0
	for ; len(in)-8*i >= 64; i += 8 {
		w := in[8*i : 8*i+64 : 8*i+64]
		o := out[i : i+8 : i+8]
		o[0] = packByte(binary.LittleEndian.Uint64(w[0:]))
		o[1] = packByte(binary.LittleEndian.Uint64(w[8:]))
		o[2] = packByte(binary.LittleEndian.Uint64(w[16:]))
		o[3] = packByte(binary.LittleEndian.Uint64(w[24:]))
		o[4] = packByte(binary.LittleEndian.Uint64(w[32:]))
		o[5] = packByte(binary.LittleEndian.Uint64(w[40:]))
		o[6] = packByte(binary.LittleEndian.Uint64(w[48:]))
		o[7] = packByte(binary.LittleEndian.Uint64(w[56:]))
	}
	for ; len(in)-8*i >= 8; i++ {
		out[i] = packByte(binary.LittleEndian.Uint64(in[8*i:]))
	}
	for j, v := range vals[8*i:] {
		out[i] |= b2u(v) << (7 - j)
	}
}

// AppendBools appends a Bool block: one bit per value, the first value in
// the most significant bit, with the unused low bits of the last byte
// recorded as the header's bool padding.
func AppendBools(dst []byte, h Header, vals []bool) ([]byte, error) {
	n := len(vals)
	out, data, err := begin(dst, h, TypeBool, (n+7)/8, boolPadding(n))
	if err != nil {
		return dst, err
	}
	if n&7 != 0 {
		data[len(data)-1] = 0 // the only byte packBools ORs into
	}
	packBools(data, 0, vals)
	return out, nil
}

// AppendBoolBits appends a Bool block of n values given as packed bits:
// value i is bit 7-i%8 of bits[i/8] (most significant bit first, the
// block's own layout), so the data is written with one copy. bits must
// hold at least (n+7)/8 bytes; unused low bits of the last byte are
// written as zero whatever their value in bits.
func AppendBoolBits(dst []byte, h Header, bits []byte, n int) ([]byte, error) {
	nb := (n + 7) / 8
	if n < 0 || len(bits) < nb {
		return dst, fmt.Errorf("%w: %d values need %d bytes of bits, have %d", ErrDataLength, n, nb, len(bits))
	}
	if (h.DataType != TypeUnknown && h.DataType != TypeBool) || uint64(h.Expiry) > expiryMask {
		return dst, checkWriteHeader(h, TypeBool)
	}
	pad := boolPadding(n)
	l := len(dst)
	if cap(dst)-l < headerLen+nb {
		dst = slices.Grow(dst, headerLen+nb)
	}
	out := dst[:l+headerLen+nb]
	putHeader(out[l:], h, TypeBool, CompressionNone, pad)
	copy(out[l+headerLen:], bits[:nb])
	if pad != 0 {
		out[len(out)-1] &^= 1<<pad - 1
	}
	return out, nil
}

// AppendBoolVectors appends a BoolVector block; the bits of consecutive
// vectors follow each other without byte alignment. s must describe a
// BoolVector feature group of h's schema version, and vecs must match its
// vector lengths.
func AppendBoolVectors(dst []byte, h Header, s *Schema, vecs [][]bool) ([]byte, error) {
	if s == nil || s.dt != TypeBoolVector || s.version != h.SchemaVersion || len(vecs) != s.n {
		return dst, checkVectors(h, s, TypeBoolVector, vecs)
	}
	n := s.elements
	out, data, err := begin(dst, h, TypeBoolVector, (n+7)/8, boolPadding(n))
	if err != nil {
		return dst, err
	}
	if s.vecLen == 8 {
		// Every vector one whole byte: a small loop of one load, one
		// multiply and one store per vector (see packVectors8).
		if packVectors8(data, headers(vecs)) >= 0 {
			return dst, checkVectors(h, s, TypeBoolVector, vecs)
		}
		return out, nil
	}
	clear(data)
	lens := s.vecLens[:len(vecs)]
	pos := 0
	for i, v := range vecs {
		if len(v) != lens[i] {
			return dst, checkVectors(h, s, TypeBoolVector, vecs)
		}
		// A vector of 8 starting on a byte boundary is one byte: one
		// load and one multiply (see packByte), no call.
		if len(v) == 8 && pos&7 == 0 {
			data[pos>>3] = packByte(binary.LittleEndian.Uint64(boolBytes(v)))
		} else {
			packBools(data, pos, v)
		}
		pos += len(v)
	}
	return out, nil
}

// Strings.

// checkString validates one string of feature f against the schema.
func checkString(s *Schema, f, i int, v string) error {
	if len(v) > maxStringLen {
		return fmt.Errorf("%w: string %d of feature %d has %d bytes, limit %d", ErrStringTooLong, i, f, len(v), maxStringLen)
	}
	if len(v) > s.maxStr[f] {
		return fmt.Errorf("%w: string %d of feature %d has %d bytes, booked %d", ErrStringTooLong, i, f, len(v), s.maxStr[f])
	}
	return nil
}

// putStrings writes vals' lengths at data[*lp:] and bytes at data[*bp:],
// advancing both offsets.
func putStrings(data []byte, lp, bp *int, vals []string) {
	l, b := *lp, *bp
	for _, v := range vals {
		data[l] = byte(len(v))
		data[l+1] = byte(len(v) >> 8)
		l += 2
		b += copy(data[b:], v)
	}
	*lp, *bp = l, b
}

// AppendStrings appends a String block: all uint16 lengths, then all bytes.
// s must describe a String feature group of h's schema version with
// len(vals) features; a string longer than 65,535 bytes or than its
// feature's booked maximum is an error wrapping ErrStringTooLong.
func AppendStrings(dst []byte, h Header, s *Schema, vals []string) ([]byte, error) {
	if err := s.checkFor(h, TypeString); err != nil {
		return dst, err
	}
	if len(vals) != s.n {
		return dst, fmt.Errorf("%w: %d strings for %d features", ErrSchema, len(vals), s.n)
	}
	size := 2 * len(vals)
	booked := s.maxStr[:len(vals)] // each ≤ 65,535 (NewSchema)
	for i, v := range vals {
		if len(v) > booked[i] {
			return dst, checkString(s, i, 0, v)
		}
		size += len(v)
	}
	out, data, err := begin(dst, h, TypeString, size, 0)
	if err != nil {
		return dst, err
	}
	lens := data[:2*len(vals)]
	for i, v := range vals {
		binary.LittleEndian.PutUint16(lens[2*i:], uint16(len(v)))
	}
	p := data[2*len(vals):]
	for _, v := range vals {
		p = p[copy(p, v):]
	}
	return out, nil
}

// AppendStringVectors appends a StringVector block: the lengths of every
// string of every vector, then all bytes. s must describe a StringVector
// feature group of h's schema version; vecs must match its vector lengths
// and every string of feature i must fit its booked maximum.
func AppendStringVectors(dst []byte, h Header, s *Schema, vecs [][]string) ([]byte, error) {
	if s != nil && s.dt == TypeStringVector && s.version == h.SchemaVersion && len(vecs) == s.n &&
		(h.DataType == TypeUnknown || h.DataType == TypeStringVector) && uint64(h.Expiry) <= expiryMask {
		// One pass when dst has room: check and write each string at once.
		l := len(dst)
		if free := dst[l:cap(dst)]; len(free) >= headerLen+2*s.elements {
			size, ok := putStringVectors(free[headerLen:], s, vecs)
			if ok {
				out := dst[:l+headerLen+size]
				putHeader(out[l:], h, TypeStringVector, CompressionNone, 0)
				return out, nil
			}
			// A bad vector or string (the checks below say which), or
			// too little room (the general path grows dst).
		}
	}
	if err := checkVectors(h, s, TypeStringVector, vecs); err != nil {
		return dst, err
	}
	size := 2 * s.elements
	for f, vec := range vecs {
		for i, v := range vec {
			if err := checkString(s, f, i, v); err != nil {
				return dst, err
			}
			size += len(v)
		}
	}
	out, data, err := begin(dst, h, TypeStringVector, size, 0)
	if err != nil {
		return dst, err
	}
	lp, bp := 0, 2*s.elements
	for _, vec := range vecs {
		putStrings(data, &lp, &bp, vec)
	}
	return out, nil
}

// putStringVectors writes the data section of a StringVector block of
// schema s (len(vecs) = s.n) into data, checking each vector's length
// and each string's booked maximum as it goes, and returns its size. It
// returns false, with data partly written, at the first vector or string
// that fails a check, or when data (at least 2·s.elements bytes) is too
// short.
func putStringVectors(data []byte, s *Schema, vecs [][]string) (int, bool) {
	e := s.elements
	lens, rest := data[:2*e], data[2*e:]
	vecLens, maxStr := s.vecLens[:len(vecs)], s.maxStr[:len(vecs)]
	k, p := 0, 0
	for f, vec := range vecs {
		if len(vec) != vecLens[f] || len(vec) > e-k {
			return 0, false
		}
		m := maxStr[f] // ≤ 65,535 (NewSchema)
		for _, v := range vec {
			if len(v) > m || len(v) > len(rest)-p {
				return 0, false
			}
			binary.LittleEndian.PutUint16(lens[2*k:], uint16(len(v)))
			k++
			p += copy(rest[p:], v)
		}
	}
	return 2*e + p, true
}

// Fixed-width vectors. Each requires a schema of the matching vector type
// and h's schema version, and vecs matching its vector lengths (an error
// wrapping ErrVectorLength otherwise). Values are stored flattened in
// feature order.

// AppendFP8E5M2Vectors appends an FP8E5M2Vector block.
func AppendFP8E5M2Vectors(dst []byte, h Header, s *Schema, vecs [][]float32) ([]byte, error) {
	return appendVectors(dst, h, s, TypeFP8E5M2Vector, vecs, writeE5M2)
}

// AppendFP8E4M3Vectors appends an FP8E4M3Vector block, rounding as
// AppendFP8E4M3s does.
func AppendFP8E4M3Vectors(dst []byte, h Header, s *Schema, vecs [][]float32) ([]byte, error) {
	return appendVectors(dst, h, s, TypeFP8E4M3Vector, vecs, writeE4M3)
}

// AppendFP8E4M3VectorsSaturating appends an FP8E4M3Vector block, rounding
// and saturating as AppendFP8E4M3sSaturating does.
func AppendFP8E4M3VectorsSaturating(dst []byte, h Header, s *Schema, vecs [][]float32) ([]byte, error) {
	return appendVectors(dst, h, s, TypeFP8E4M3Vector, vecs, writeE4M3Sat)
}

// AppendFP16Vectors appends an FP16Vector block.
func AppendFP16Vectors(dst []byte, h Header, s *Schema, vecs [][]float32) ([]byte, error) {
	return appendVectors(dst, h, s, TypeFP16Vector, vecs, writeFP16)
}

// AppendFloat32Vectors appends an FP32Vector block.
func AppendFloat32Vectors(dst []byte, h Header, s *Schema, vecs [][]float32) ([]byte, error) {
	return appendWordVectors(dst, h, s, TypeFP32Vector, 4, vecs)
}

// AppendFloat64Vectors appends an FP64Vector block.
func AppendFloat64Vectors(dst []byte, h Header, s *Schema, vecs [][]float64) ([]byte, error) {
	return appendWordVectors(dst, h, s, TypeFP64Vector, 8, vecs)
}

// AppendInt8Vectors appends an Int8Vector block, narrowing the values.
func AppendInt8Vectors(dst []byte, h Header, s *Schema, vecs [][]int32) ([]byte, error) {
	return appendVectors(dst, h, s, TypeInt8Vector, vecs, writeInt8)
}

// AppendInt16Vectors appends an Int16Vector block, narrowing the values.
func AppendInt16Vectors(dst []byte, h Header, s *Schema, vecs [][]int32) ([]byte, error) {
	return appendVectors(dst, h, s, TypeInt16Vector, vecs, writeInt16)
}

// AppendInt32Vectors appends an Int32Vector block.
func AppendInt32Vectors(dst []byte, h Header, s *Schema, vecs [][]int32) ([]byte, error) {
	return appendWordVectors(dst, h, s, TypeInt32Vector, 4, vecs)
}

// AppendInt64Vectors appends an Int64Vector block.
func AppendInt64Vectors(dst []byte, h Header, s *Schema, vecs [][]int64) ([]byte, error) {
	return appendWordVectors(dst, h, s, TypeInt64Vector, 8, vecs)
}

// AppendUint8Vectors appends a Uint8Vector block, narrowing the values.
func AppendUint8Vectors(dst []byte, h Header, s *Schema, vecs [][]uint32) ([]byte, error) {
	return appendVectors(dst, h, s, TypeUint8Vector, vecs, writeUint8)
}

// AppendUint16Vectors appends a Uint16Vector block, narrowing the values.
func AppendUint16Vectors(dst []byte, h Header, s *Schema, vecs [][]uint32) ([]byte, error) {
	return appendVectors(dst, h, s, TypeUint16Vector, vecs, writeUint16)
}

// AppendUint32Vectors appends a Uint32Vector block.
func AppendUint32Vectors(dst []byte, h Header, s *Schema, vecs [][]uint32) ([]byte, error) {
	return appendWordVectors(dst, h, s, TypeUint32Vector, 4, vecs)
}

// AppendUint64Vectors appends a Uint64Vector block.
func AppendUint64Vectors(dst []byte, h Header, s *Schema, vecs [][]uint64) ([]byte, error) {
	return appendWordVectors(dst, h, s, TypeUint64Vector, 8, vecs)
}
