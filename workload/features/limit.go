package features

import (
	"bytes"
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/x448/float16"

	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/psdb"
)

// The limit row is, per type, the least work any encoder or decoder of
// the same input and output must do, written as the fastest known pure-Go
// loop with no format, checks or header. Vector types take their element
// type's limit over the N·8 flattened values (psdb's vector layouts are the
// flattened values). limitMethods describes each, for the descriptor.
func limitMethods() map[string]string {
	return map[string]string{
		"int32, int64, uint32, uint64, float32, float64": "one copy of the packed little-endian bytes to and from offset 9 of the encoded bytes, where PSDB's header puts them and any decoder of that format must read them (from an address not 8-byte aligned; the copy peels 8 bytes so that memmove avoids its REP MOVSQ path, 4–5× slower from a misaligned source on this CPU family)",
		"int8, int16, uint8, uint16":                     "encode: narrow the int32/uint32 inputs to 1 or 2 bytes each; decode: widen them back to int32/uint32 (plain loops, no range checks)",
		"fp16":                                           "encode: float32 → binary16 by bit arithmetic, round to nearest even (F. Giesen's float_to_half_fast3_rtne); decode: binary16 → float32 by bit arithmetic (exponent rebias; magic multiply for subnormals)",
		"fp8e4m3, fp8e5m2":                               "encode: float32 → fp8 by the same bit arithmetic, round to nearest even, no range checks (inputs are in range); decode: a 256-entry float32 table built per case",
		"bool":                                           "every subject but psdb-bits takes []bool and returns []bool, so the limit packs and unpacks: encode 8 bools per 8-byte load and one multiply (bit 7-i of the byte from bool i), 64 bools per unrolled step, decode one 256-entry table load and one 8-byte store per 8 bools; psdb-bits (packed bits in and out) does less than this limit: its own floor is a copy of N/8 bytes",
		"string":                                         "encode: each string's uint16 length written and its bytes copied (psdb's layout); decode: all string bytes and the N+1 precomputed offsets copied",
		"vectors (…x8)":                                  "the element type's limit over the N·8 flattened values",
	}
}

// limitCodec is the limit row for one input: enc writes into a reused
// page-aligned buffer, dec reads into reused page-aligned outputs.
type limitCodec struct {
	d   *ds.Data
	enc func() []byte
	dec func(b []byte)
	out func() *ds.Output
}

func (l *limitCodec) Encode() ([]byte, error) { return l.enc(), nil }
func (l *limitCodec) Decode(b []byte) error   { l.dec(b); return nil }

// Out rebuilds typed values from what Decode produced so the limit row is
// verified like every other subject (outside the timed region).
func (l *limitCodec) Out() *ds.Output { return l.out() }

// alignedOf returns a page-aligned zeroed slice of n values of a type
// without pointers.
func alignedOf[T int32 | uint32 | float32](n int) []T {
	var z T
	b := pageAligned(n * int(unsafe.Sizeof(z)))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

func newLimit(d *ds.Data) (Serializer, error) {
	n := d.Values()
	src := pageAligned(len(d.Raw))
	copy(src, d.Raw)
	buf := pageAligned(len(d.Raw))
	l := &limitCodec{d: d}
	// copied is the limit's output for types whose decode is a copy.
	copied := func() *ds.Output {
		if !bytes.Equal(buf, d.Raw) {
			return &ds.Output{}
		}
		return d.Source()
	}
	switch t := d.Type.Elem(); t {
	case ds.Int32, ds.Int64, ds.Uint32, ds.Uint64, ds.Float32, ds.Float64:
		// The data sits at offset limitDataOffset, where a PSDB block
		// (9-byte header) has it: encode copies the values there, decode
		// copies them from there into a page-aligned destination.
		blk := pageAligned(limitDataOffset + len(d.Raw))
		l.enc = func() []byte { copyPieces(blk[limitDataOffset:], src); return blk }
		l.dec = func(b []byte) { limCopyMisaligned(buf, b[limitDataOffset:]) }
		l.out = copied
	case ds.Bool:
		out := pageAligned(n)
		l.enc = func() []byte { return limPackBools(buf, d.Bool) }
		l.dec = func(b []byte) { limUnpackBools(out, b) }
		l.out = func() *ds.Output {
			return &ds.Output{Bool: unsafe.Slice((*bool)(unsafe.Pointer(unsafe.SliceData(out))), n)}
		}
	case ds.Int8, ds.Int16:
		out := alignedOf[int32](n)
		if t == ds.Int8 {
			l.enc = func() []byte { limNarrow8(buf, d.Int32); return buf }
			l.dec = func(b []byte) { limWidenInt8(out, b) }
		} else {
			l.enc = func() []byte { limNarrow16(buf, d.Int32); return buf }
			l.dec = func(b []byte) { limWidenInt16(out, b) }
		}
		l.out = func() *ds.Output { return &ds.Output{Int32: out} }
	case ds.Uint8, ds.Uint16:
		out := alignedOf[uint32](n)
		if t == ds.Uint8 {
			l.enc = func() []byte { limNarrow8(buf, d.Uint32); return buf }
			l.dec = func(b []byte) { limWidenUint8(out, b) }
		} else {
			l.enc = func() []byte { limNarrow16(buf, d.Uint32); return buf }
			l.dec = func(b []byte) { limWidenUint16(out, b) }
		}
		l.out = func() *ds.Output { return &ds.Output{Uint32: out} }
	case ds.FP16:
		out := alignedOf[float32](n)
		l.enc = func() []byte { return limFP16Enc(buf, d.Float32) }
		l.dec = func(b []byte) { limFP16Dec(out, b) }
		l.out = func() *ds.Output {
			h := make([]uint16, len(out))
			for i, f := range out {
				h[i] = float16.Fromfloat32(f).Bits()
			}
			return &ds.Output{Half: h}
		}
	case ds.FP8E4M3, ds.FP8E5M2:
		out := alignedOf[float32](n)
		tab := fp8Table(t)
		if t == ds.FP8E4M3 {
			l.enc = func() []byte { return limE4M3Enc(buf, d.Float32) }
		} else {
			l.enc = func() []byte { return limE5M2Enc(buf, d.Float32) }
		}
		l.dec = func(b []byte) { limFP8Dec(tab, out, b) }
		l.out = func() *ds.Output {
			c := make([]uint8, len(out))
			for i, f := range out {
				c[i] = ds.FP8Bits(t, f)
			}
			return &ds.Output{FP8: c}
		}
	case ds.String:
		enc := pageAligned(2*n + len(d.Raw))
		offs := make([]uint32, n+1)
		for i, s := range d.String {
			offs[i+1] = offs[i] + uint32(len(s))
		}
		outOffs := alignedOf[uint32](n + 1)
		l.enc = func() []byte { return limStringsEnc(enc, d.String) }
		l.dec = func(b []byte) {
			copy(buf, b[2*n:])
			copy(outOffs, offs)
		}
		l.out = func() *ds.Output {
			s := make([]string, n)
			for i := range s {
				s[i] = string(buf[outOffs[i]:outOffs[i+1]])
			}
			return &ds.Output{String: s}
		}
	}
	return l, nil
}

// limitDataOffset is where the 32- and 64-bit limit rows keep the data in
// their encoded bytes: offset 9, after PSDB's header, because a decoder of
// the byte-compatible format must read the values from there, and from an
// address that is not 8-byte aligned the copy costs more than from an
// aligned buffer (see limCopyMisaligned).
const limitDataOffset = 9

// limCopyMisaligned copies src to dst (as long) as fast as pure Go can
// from a source that is not 8-byte aligned. On amd64 CPUs with ERMS+FSRM
// the runtime copies 2 KiB or more to a 16-byte-aligned destination with
// REP MOVSQ, 4–5× slower from a misaligned source; copying the first 8
// bytes alone leaves a misaligned destination, for which memmove uses AVX
// moves that do not care about alignment, in pieces below its 1 MiB
// non-temporal threshold.
func limCopyMisaligned(dst, src []byte) {
	src = src[:len(dst)]
	if len(dst) >= 2048 && uintptr(unsafe.Pointer(unsafe.SliceData(src)))&7 != 0 &&
		uintptr(unsafe.Pointer(unsafe.SliceData(dst)))&15 == 0 {
		binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src))
		dst, src = dst[8:], src[8:]
	}
	copyPieces(dst, src)
}

// copyPieces copies src to dst in pieces below the runtime's 1 MiB
// threshold for non-temporal stores. A copy of 1 MiB or more to an
// unaligned destination goes around the caches to memory: the encode
// limit of float32x8 at N = 100,000 (3.2 MB) took 266 µs that way and
// 231 µs in pieces, and it moved by 18% between two quick runs whose
// subjects (which write through the caches) did not, so every ratio of
// its group moved with it.
func copyPieces(dst, src []byte) {
	const piece = 512 << 10
	src = src[:len(dst)]
	for len(src) > piece {
		copy(dst[:piece], src[:piece])
		dst, src = dst[piece:], src[piece:]
	}
	copy(dst, src)
}

// limPackBools packs vals (0/1 bytes) into bits, the first value in the
// most significant bit, 8 values per 8-byte load and one multiply (the
// multiplier moves byte i to bit 63-i; no partial products overlap), 64
// values (8 byte stores) per step, through array pointers (no bounds
// checks). (It unrolled to 32 values per step before, through
// unsafe.Slice: psdb's own packing loop, 64 values per step, ran 20–25%
// faster than that.)
func limPackBools(dst []byte, vals []bool) []byte {
	full := len(vals) / 8
	dst = dst[:(len(vals)+7)/8]
	p, q := unsafe.Pointer(unsafe.SliceData(vals)), unsafe.Pointer(unsafe.SliceData(dst))
	const m = 0x8040201008040201
	i := 0
	for ; i+8 <= full; i += 8 { // 64 values, 8 byte stores
		in := (*[64]byte)(unsafe.Add(p, 8*i))
		out := (*[8]byte)(unsafe.Add(q, i))
		out[0] = byte(binary.LittleEndian.Uint64(in[0:]) * m >> 56)
		out[1] = byte(binary.LittleEndian.Uint64(in[8:]) * m >> 56)
		out[2] = byte(binary.LittleEndian.Uint64(in[16:]) * m >> 56)
		out[3] = byte(binary.LittleEndian.Uint64(in[24:]) * m >> 56)
		out[4] = byte(binary.LittleEndian.Uint64(in[32:]) * m >> 56)
		out[5] = byte(binary.LittleEndian.Uint64(in[40:]) * m >> 56)
		out[6] = byte(binary.LittleEndian.Uint64(in[48:]) * m >> 56)
		out[7] = byte(binary.LittleEndian.Uint64(in[56:]) * m >> 56)
	}
	for ; i < full; i++ {
		x := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, 8*i))[:])
		*(*byte)(unsafe.Add(q, i)) = byte(x * m >> 56)
	}
	if r := vals[8*full:]; len(r) > 0 {
		var c byte
		for j, v := range r {
			if v {
				c |= 0x80 >> j
			}
		}
		dst[full] = c
	}
	return dst
}

// limUnpackTab maps a byte of bits to its 8 bools (0/1 bytes), first
// value (the most significant bit) in the lowest byte.
var limUnpackTab = func() (t [256]uint64) {
	for c := range t {
		for j := range 8 {
			if c&(0x80>>j) != 0 {
				t[c] |= 1 << (8 * j)
			}
		}
	}
	return t
}()

// limUnpackBools writes the len(out) bits of data as bools (0/1 bytes):
// one table load and one 8-byte store per 8 values, through raw pointers.
func limUnpackBools(out []byte, data []byte) {
	full := len(out) / 8
	data = data[:(len(out)+7)/8]
	o := unsafe.Pointer(unsafe.SliceData(out))
	i := 0
	for ; i+4 <= full; i += 4 { // unrolled: 4 bytes of bits
		c := data[i : i+4 : i+4]
		w := unsafe.Slice((*byte)(unsafe.Add(o, 8*i)), 32)
		binary.LittleEndian.PutUint64(w, limUnpackTab[c[0]])
		binary.LittleEndian.PutUint64(w[8:], limUnpackTab[c[1]])
		binary.LittleEndian.PutUint64(w[16:], limUnpackTab[c[2]])
		binary.LittleEndian.PutUint64(w[24:], limUnpackTab[c[3]])
	}
	for ; i < full; i++ {
		binary.LittleEndian.PutUint64(unsafe.Slice((*byte)(unsafe.Add(o, 8*i)), 8), limUnpackTab[data[i]])
	}
	for j := 8 * full; j < len(out); j++ {
		out[j] = data[j>>3] >> (7 - j&7) & 1
	}
}

// fp8Table is the 256-entry decode table of fp8 type t, built per case
// from psdb's scalar converters (outside the timed region).
func fp8Table(t ds.Type) *[256]float32 {
	conv := psdb.FP8E4M3ToFloat32
	if t == ds.FP8E5M2 {
		conv = psdb.FP8E5M2ToFloat32
	}
	var tab [256]float32
	for c := range tab {
		tab[c] = conv(uint8(c))
	}
	return &tab
}

// limNarrow8 stores the low byte of every value.
func limNarrow8[T int32 | uint32](dst []byte, vals []T) {
	dst = dst[:len(vals)]
	for i, v := range vals {
		dst[i] = byte(v)
	}
}

// limNarrow16 stores the low two bytes of every value, little-endian.
func limNarrow16[T int32 | uint32](dst []byte, vals []T) {
	dst = dst[:2*len(vals)]
	for i, v := range vals {
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(v))
	}
}

func limWidenInt8(out []int32, b []byte) {
	out = out[:len(b)]
	for i, c := range b {
		out[i] = int32(int8(c))
	}
}

func limWidenUint8(out []uint32, b []byte) {
	out = out[:len(b)]
	for i, c := range b {
		out[i] = uint32(c)
	}
}

func limWidenInt16(out []int32, b []byte) {
	out = out[:len(b)/2]
	for i := range out {
		out[i] = int32(int16(binary.LittleEndian.Uint16(b[2*i:])))
	}
}

func limWidenUint16(out []uint32, b []byte) {
	out = out[:len(b)/2]
	for i := range out {
		out[i] = uint32(binary.LittleEndian.Uint16(b[2*i:]))
	}
}

// limFP16Enc converts float32 to binary16 with F. Giesen's
// float_to_half_fast3_rtne: a rebias-and-round add for normal results,
// a magic float addition for subnormals (which rounds in hardware).
func limFP16Enc(dst []byte, vals []float32) []byte {
	dst = dst[:2*len(vals)]
	for i, f := range vals {
		u := math.Float32bits(f)
		sign := u & 0x80000000
		u ^= sign
		var o uint32
		switch {
		case u >= 0x47800000: // overflow to Inf, or Inf/NaN
			o = 0x7c00
			if u > 0x7f800000 {
				o = 0x7e00
			}
		case u < 0x38800000: // subnormal or zero
			const magic = ((127 - 15) + (23 - 10) + 1) << 23
			o = math.Float32bits(math.Float32frombits(u)+math.Float32frombits(magic)) - magic
		default:
			o = (u + 0xc8000fff + (u>>13)&1) >> 13
		}
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(o|sign>>16))
	}
	return dst
}

// limFP16Dec converts normal halves by rebiasing the exponent (a few
// integer operations), the rest (zero, subnormals, Inf, NaN) with a magic
// multiply.
func limFP16Dec(out []float32, data []byte) {
	out = out[:len(data)/2]
	for i := range out {
		h := uint32(binary.LittleEndian.Uint16(data[2*i:]))
		if m := h & 0x7fff; m-0x400 < 0x7c00-0x400 {
			out[i] = math.Float32frombits((m<<13 + 112<<23) | (h&0x8000)<<16)
			continue
		}
		o := math.Float32frombits((h&0x7fff)<<13) * 0x1p112
		u := math.Float32bits(o)
		if u >= 0x47800000 { // Inf/NaN
			u |= 0x7f800000
		}
		out[i] = math.Float32frombits(u | (h&0x8000)<<16)
	}
}

// limE4M3Enc converts float32 to fp8 E4M3 as Giesen's method does for
// halves (bias 7, 3 mantissa bits), without range checks.
func limE4M3Enc(dst []byte, vals []float32) []byte {
	dst = dst[:len(vals)]
	for i, f := range vals {
		u := math.Float32bits(f)
		sign := u & 0x80000000
		u ^= sign
		var r uint32
		if u < 121<<23 { // below 2^-6: subnormal or zero
			const magic = ((127 - 7) + (23 - 3) + 1) << 23
			r = math.Float32bits(math.Float32frombits(u)+math.Float32frombits(magic)) - magic
		} else {
			r = (u + 0xc407ffff + (u>>20)&1) >> 20
		}
		dst[i] = byte(r) | byte(sign>>24)
	}
	return dst
}

// limE5M2Enc converts float32 to fp8 E5M2 (bias 15, 2 mantissa bits) the
// same way, without range checks.
func limE5M2Enc(dst []byte, vals []float32) []byte {
	dst = dst[:len(vals)]
	for i, f := range vals {
		u := math.Float32bits(f)
		sign := u & 0x80000000
		u ^= sign
		var r uint32
		if u < 113<<23 { // below 2^-14: subnormal or zero
			const magic = ((127 - 15) + (23 - 2) + 1) << 23
			r = math.Float32bits(math.Float32frombits(u)+math.Float32frombits(magic)) - magic
		} else {
			r = (u + 0xc80fffff + (u>>21)&1) >> 21
		}
		dst[i] = byte(r) | byte(sign>>24)
	}
	return dst
}

// limFP8Dec converts fp8 codes to float32 with a 256-entry table.
func limFP8Dec(tab *[256]float32, out []float32, data []byte) {
	out = out[:len(data)]
	for i, c := range data {
		out[i] = tab[c]
	}
}

// limStringsEnc writes psdb's string data section: every uint16 length,
// then every string's bytes.
func limStringsEnc(dst []byte, vals []string) []byte {
	p := 2 * len(vals)
	for i, s := range vals {
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(len(s)))
		p += copy(dst[p:], s)
	}
	return dst[:p]
}
