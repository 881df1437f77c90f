package psdb

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"
	"unsafe"
)

// The benchmarks measure psdb's encoder and decoder per type family next to
// the family's limit: the least work any encoder or decoder of the same
// input and output must do. Each psdb row reports x-limit, its time over
// the limit row's time measured just before it:
//
//	go test ./psdb -run '^$' -bench . -benchtime=100ms
//
// Limits (functions lim* below):
//   - int32, int64, float32, float64: one copy of the data bytes.
//   - fp16: float32 ↔ binary16 with the fastest known pure-Go method,
//     branch-light bit arithmetic (F. Giesen's float_to_half_fast3_rtne and
//     half_to_float magic multiply), no NaN payload handling.
//   - fp8 (E4M3): float32 → E4M3 with the same bit arithmetic (the method
//     of the reference implementation, normal range only, no checks);
//     E4M3 → float32 with a 256-entry table.
//   - bool: one copy of the packed bits (n/8 bytes). Two psdb rows: bool
//     packs []bool (n bytes in, one bit each out) and unpacks to []bool;
//     boolbits writes and reads packed bits (AppendBoolBits).
//   - string: encode copies each string's bytes and writes its uint16
//     length; decode copies all string bytes and all n+1 offsets.

var benchNs = []int{100, 1000, 100000}

// benchFamily is one type family's psdb encoder and decoder and their
// limits. Each reuses its own destination buffers.
type benchFamily struct {
	name   string
	enc    func(dst []byte) ([]byte, error)
	dec    func(block []byte) error
	limEnc func(dst []byte) []byte
	limDec func(data []byte)
}

// bytesOf returns the memory of v as bytes.
func bytesOf[T any](v []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*int(unsafe.Sizeof(z)))
}

// limCopyEnc and limCopyDec are the limits for fixed-width types.
func limCopyEnc[T any](vals []T) func([]byte) []byte {
	return func(dst []byte) []byte { return append(dst[:0], bytesOf(vals)...) }
}

func limCopyDec[T any](out []T) func([]byte) {
	return func(data []byte) { copy(bytesOf(out), data) }
}

// limFP16Enc converts with Giesen's float_to_half_fast3_rtne.
func limFP16Enc(dst []byte, vals []float32) []byte {
	dst = dst[:2*len(vals)]
	for i, f := range vals {
		u := math.Float32bits(f)
		sign := u & 0x80000000
		u ^= sign
		var o uint32
		switch {
		case u >= 0x47800000: // Inf or NaN
			o = 0x7c00
			if u > 0x7f800000 {
				o = 0x7e00
			}
		case u < 0x38800000: // subnormal or zero: magic addition rounds
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
// integer operations, faster here than Giesen's magic multiply), and the
// rest with the magic multiply.
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

// limFP16DecTable converts with a 65,536-entry table.
func limFP16DecTable(tab []float32, out []float32, data []byte) {
	out = out[:len(data)/2]
	tab = tab[:1<<16]
	for i := range out {
		out[i] = tab[binary.LittleEndian.Uint16(data[2*i:])]
	}
}

// limE4M3Enc converts normal-range values with bit arithmetic and no
// range checks (the inputs are in range).
func limE4M3Enc(dst []byte, vals []float32) []byte {
	dst = dst[:len(vals)]
	for i, f := range vals {
		u := math.Float32bits(f)
		sign := u & 0x80000000
		u ^= sign
		var r uint32
		if u < 121<<23 {
			const magic = 141 << 23
			r = math.Float32bits(math.Float32frombits(u)+math.Float32frombits(magic)) - magic
		} else {
			r = (u + 0xc407ffff + (u>>20)&1) >> 20
		}
		dst[i] = byte(r) | byte(sign>>24)
	}
	return dst
}

// limE4M3Dec converts with a 256-entry table.
func limE4M3Dec(tab *[256]float32, out []float32, data []byte) {
	out = out[:len(data)]
	for i, c := range data {
		out[i] = tab[c]
	}
}

func benchFamilies(tb testing.TB, n int) []benchFamily {
	tb.Helper()
	i32 := make([]int32, n)
	i64 := make([]int64, n)
	f32 := make([]float32, n)
	f64 := make([]float64, n)
	f8 := make([]float32, n)
	bs := make([]bool, n)
	ss := make([]string, n)
	maxLen := make([]int, n)
	for i := range n {
		i32[i], i64[i], f32[i], f64[i], bs[i] = int32(i*7919), int64(i)*1e9, float32(i)*0.37, float64(i)*0.37, i%3 == 0
		f8[i] = float32(i%512)*0.05 - 12
		ss[i], maxLen[i] = "feature-"+strconv.Itoa(i%1000), 16
	}
	schema := func(dt DataType, maxStr []int) *Schema { return mustSchema(tb, 1, dt, n, nil, maxStr) }
	si32, si64, sf32, sf64 := schema(TypeInt32, nil), schema(TypeInt64, nil), schema(TypeFP32, nil), schema(TypeFP64, nil)
	sf16, se4, sb, ss16 := schema(TypeFP16, nil), schema(TypeFP8E4M3, nil), schema(TypeBool, nil), schema(TypeString, maxLen)
	h := Header{SchemaVersion: 1}

	di32 := make([]int32, 0, n)
	di64 := make([]int64, 0, n)
	df32 := make([]float32, 0, n)
	df64 := make([]float64, 0, n)
	dbs := make([]bool, 0, n)
	dbits := make([]byte, 0, n/8+1)
	var dss Strings

	// Limit inputs and outputs.
	f16tab := make([]float32, 1<<16)
	for c := range f16tab {
		f16tab[c] = FP16ToFloat32(uint16(c))
	}
	packed, _ := AppendBools(nil, h, bs)
	packed = packed[HeaderLen:]
	var e4tab [256]float32
	for c := range e4tab {
		e4tab[c] = FP8E4M3ToFloat32(uint8(c))
	}
	lo32 := make([]float32, n)
	loBytes := make([]byte, 0, 16*n)
	offs := make([]uint32, n+1)
	loOffs := make([]uint32, n+1)
	for i, s := range ss {
		offs[i+1] = offs[i] + uint32(len(s))
	}

	return []benchFamily{
		{"int32", func(d []byte) ([]byte, error) { return AppendInt32s(d, h, i32) }, func(b []byte) error {
			blk, err := Parse(b, si32)
			if err == nil {
				di32, err = blk.AppendInt32s(di32[:0])
			}
			return err
		}, limCopyEnc(i32), limCopyDec(make([]int32, n))},
		{"int64", func(d []byte) ([]byte, error) { return AppendInt64s(d, h, i64) }, func(b []byte) error {
			blk, err := Parse(b, si64)
			if err == nil {
				di64, err = blk.AppendInt64s(di64[:0])
			}
			return err
		}, limCopyEnc(i64), limCopyDec(make([]int64, n))},
		{"float32", func(d []byte) ([]byte, error) { return AppendFloat32s(d, h, f32) }, func(b []byte) error {
			blk, err := Parse(b, sf32)
			if err == nil {
				df32, err = blk.AppendFloat32s(df32[:0])
			}
			return err
		}, limCopyEnc(f32), limCopyDec(make([]float32, n))},
		{"float64", func(d []byte) ([]byte, error) { return AppendFloat64s(d, h, f64) }, func(b []byte) error {
			blk, err := Parse(b, sf64)
			if err == nil {
				df64, err = blk.AppendFloat64s(df64[:0])
			}
			return err
		}, limCopyEnc(f64), limCopyDec(make([]float64, n))},
		{"fp16", func(d []byte) ([]byte, error) { return AppendFP16s(d, h, f32) }, func(b []byte) error {
			blk, err := Parse(b, sf16)
			if err == nil {
				df32, err = blk.AppendFloat32s(df32[:0])
			}
			return err
		}, func(d []byte) []byte { return limFP16Enc(d[:cap(d)], f32) }, func(data []byte) { limFP16Dec(lo32, data) }},
		{"fp8e4m3", func(d []byte) ([]byte, error) { return AppendFP8E4M3s(d, h, f8) }, func(b []byte) error {
			blk, err := Parse(b, se4)
			if err == nil {
				df32, err = blk.AppendFloat32s(df32[:0])
			}
			return err
		}, func(d []byte) []byte { return limE4M3Enc(d[:cap(d)], f8) }, func(data []byte) { limE4M3Dec(&e4tab, lo32, data) }},
		{"bool", func(d []byte) ([]byte, error) { return AppendBools(d, h, bs) }, func(b []byte) error {
			blk, err := Parse(b, sb)
			if err == nil {
				dbs, err = blk.AppendBools(dbs[:0])
			}
			return err
		}, limCopyEnc(packed), limCopyDec(make([]byte, len(packed)))},
		{"boolbits", func(d []byte) ([]byte, error) { return AppendBoolBits(d, h, packed, n) }, func(b []byte) error {
			blk, err := Parse(b, sb)
			if err == nil {
				dbits, err = blk.AppendBoolBits(dbits[:0])
			}
			return err
		}, limCopyEnc(packed), limCopyDec(make([]byte, len(packed)))},
		{"string", func(d []byte) ([]byte, error) { return AppendStrings(d, h, ss16, ss) }, func(b []byte) error {
			_, err := ParseStrings(b, ss16, &dss)
			return err
		}, func(d []byte) []byte {
			d = d[:cap(d)]
			l, p := 0, 2*len(ss)
			for _, s := range ss {
				binary.LittleEndian.PutUint16(d[l:], uint16(len(s)))
				l += 2
				p += copy(d[p:], s)
			}
			return d[:p]
		}, func(data []byte) {
			loBytes = append(loBytes[:0], data[2*n:]...)
			copy(loOffs, offs)
		}},
		{"fp16table", func(d []byte) ([]byte, error) { return AppendFP16s(d, h, f32) }, func(b []byte) error {
			blk, err := Parse(b, sf16)
			if err == nil {
				df32, err = blk.AppendFloat32s(df32[:0])
			}
			return err
		}, func(d []byte) []byte { return limFP16Enc(d[:cap(d)], f32) }, func(data []byte) { limFP16DecTable(f16tab, lo32, data) }},
	}
}

// BenchmarkFamilies runs, per type family and size, the limit and psdb's
// encoder (append a whole block to a reused buffer), then the limit and
// psdb's decoder (Parse with the schema, then bulk-read every value into a
// reused destination).
//
// The psdb rows report x-limit, psdb's time over the limit's, measured
// interleaved: chunks of limit iterations (timer stopped) alternate with
// chunks of psdb iterations, so that load from other processes on a shared
// machine affects both alike.
func BenchmarkFamilies(b *testing.B) {
	for _, n := range benchNs {
		for _, f := range benchFamilies(b, n) {
			runFamily(b, n, f)
		}
	}
}

// runFamily runs f's limit and psdb rows at size n (see BenchmarkFamilies).
func runFamily(b *testing.B, n int, f benchFamily) {
	block, err := f.enc(nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := f.dec(block); err != nil {
		b.Fatal(err)
	}
	data := block[HeaderLen:]
	buf := make([]byte, 0, 2*len(block))
	chunk := max(1, 200_000/n)
	limit := func(name string, fn func()) {
		b.Run(fmt.Sprintf("type=%s/n=%d/%s", f.name, n, name), func(b *testing.B) {
			b.SetBytes(int64(len(block)))
			b.ReportAllocs()
			for b.Loop() {
				fn()
			}
		})
	}
	psdb := func(name string, fn func() error, lim func()) {
		b.Run(fmt.Sprintf("type=%s/n=%d/%s", f.name, n, name), func(b *testing.B) {
			b.SetBytes(int64(len(block)))
			b.ReportAllocs()
			var limT, psdbT time.Duration
			for i := 0; i < b.N; {
				k := min(chunk, b.N-i)
				b.StopTimer()
				t0 := time.Now()
				for range k {
					lim()
				}
				limT += time.Since(t0)
				b.StartTimer()
				t1 := time.Now()
				for range k {
					if err := fn(); err != nil {
						b.Fatal(err)
					}
				}
				psdbT += time.Since(t1)
				i += k
			}
			b.ReportMetric(float64(psdbT)/float64(limT), "x-limit")
		})
	}
	limEnc := func() { buf = f.limEnc(buf) }
	limDec := func() { f.limDec(data) }
	limit("encode/limit", limEnc)
	psdb("encode/psdb", func() error { buf, err = f.enc(buf[:0]); return err }, limEnc)
	limit("decode/limit", limDec)
	psdb("decode/psdb", func() error { return f.dec(block) }, limDec)
}

// BenchmarkStringsAndBoolVectors runs, like BenchmarkFamilies, the types
// of the features workload whose psdb paths are their own: String and
// StringVector (8 strings per feature) of 0–32 random letters, and
// BoolVector (8 per feature) from [][]bool and from flat values. The
// string decode limit copies the string bytes (from the block, at an odd
// address, where the features workload copies from an aligned buffer) and
// precomputed offsets; the bool limit packs the flat values with
// packBools:
//
//	go test ./psdb -run '^$' -bench 'StringsAndBool' -benchtime=100ms
func BenchmarkStringsAndBoolVectors(b *testing.B) {
	for _, n := range benchNs {
		for _, f := range stringAndBoolFamilies(b, n) {
			runFamily(b, n, f)
		}
	}
}

func stringAndBoolFamilies(tb testing.TB, n int) []benchFamily {
	tb.Helper()
	r := rand.New(rand.NewPCG(11, uint64(n)))
	flat := make([]string, 8*n)
	bools := make([]bool, 8*n)
	for i := range flat {
		w := make([]byte, r.IntN(33))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		flat[i], bools[i] = string(w), r.IntN(2) == 1
	}
	eights, max32 := slices.Repeat([]int{8}, n), slices.Repeat([]int{32}, n)
	sStr := mustSchema(tb, 1, TypeString, n, nil, max32)
	sVec := mustSchema(tb, 1, TypeStringVector, n, eights, max32)
	sBool := mustSchema(tb, 1, TypeBoolVector, n, eights, nil)
	svecs, bvecs := make([][]string, n), make([][]bool, n)
	for i := range n {
		svecs[i], bvecs[i] = flat[8*i:8*i+8:8*i+8], bools[8*i:8*i+8:8*i+8]
	}
	strFamily := func(name string, s *Schema, vals []string, enc func([]byte) ([]byte, error)) benchFamily {
		var ss Strings
		offs := make([]uint32, len(vals)+1)
		for i, v := range vals {
			offs[i+1] = offs[i] + uint32(len(v))
		}
		outBytes := make([]byte, offs[len(vals)])
		outOffs := make([]uint32, len(vals)+1)
		return benchFamily{name, enc, func(b []byte) error {
			_, err := ParseStrings(b, s, &ss)
			return err
		}, func(d []byte) []byte {
			d = d[:cap(d)]
			p := 2 * len(vals)
			for i, v := range vals {
				binary.LittleEndian.PutUint16(d[2*i:], uint16(len(v)))
				p += copy(d[p:], v)
			}
			return d[:p]
		}, func(data []byte) {
			copy(outBytes, data[2*len(vals):])
			copy(outOffs, offs)
		}}
	}
	var dbs []bool
	boolDec := func(b []byte) error {
		blk, err := Parse(b, sBool)
		if err == nil {
			dbs, err = blk.AppendBools(dbs[:0])
		}
		return err
	}
	lo := make([]bool, 8*n)
	boolLimEnc := func(d []byte) []byte {
		d = d[:(len(bools)+7)/8]
		clear(d[len(d)-1:])
		packBools(d, 0, bools)
		return d
	}
	boolLimDec := func(data []byte) { unpackBits(boolBytes(lo), data) }
	return []benchFamily{
		strFamily("string", sStr, flat[:n], func(d []byte) ([]byte, error) { return AppendStrings(d, sStr.Header(0), sStr, flat[:n]) }),
		strFamily("stringx8", sVec, flat, func(d []byte) ([]byte, error) { return AppendStringVectors(d, sVec.Header(0), sVec, svecs) }),
		strFamily("stringx8-flat", sVec, flat, func(d []byte) ([]byte, error) { return AppendFlatVectors(d, sVec.Header(0), sVec, flat) }),
		{"boolx8", func(d []byte) ([]byte, error) { return AppendBoolVectors(d, sBool.Header(0), sBool, bvecs) }, boolDec, boolLimEnc, boolLimDec},
		{"boolx8-flat", func(d []byte) ([]byte, error) { return AppendFlatVectors(d, sBool.Header(0), sBool, bools) }, boolDec, boolLimEnc, boolLimDec},
	}
}

// BenchmarkCodecCompress measures opportunistic zstd on a compressible
// int32 block.
func BenchmarkCodecCompress(b *testing.B) {
	c, err := NewCodec()
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	vals := make([]int32, 10000)
	for i := range vals {
		vals[i] = int32(i % 100)
	}
	buf, _ := AppendInt32s(nil, Header{}, vals)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = AppendInt32s(buf[:0], Header{}, vals)
		if buf, err = c.Compress(buf); err != nil {
			b.Fatal(err)
		}
	}
}
