package psdb

import (
	"fmt"
	"strconv"
	"testing"
)

var benchSizes = []int{100, 1000, 10000, 100000}

// benchCase encodes and decodes one data type for the benchmarks, reusing
// the caller's buffers.
type benchCase struct {
	name   string
	encode func(dst []byte) ([]byte, error)
	decode func(b []byte) error
}

func benchCases(n int) []benchCase {
	h := Header{SchemaVersion: 1}
	i32 := make([]int32, n)
	i64 := make([]int64, n)
	f32 := make([]float32, n)
	f64 := make([]float64, n)
	bs := make([]bool, n)
	ss := make([]string, n)
	maxLen := make([]int, n)
	for i := range n {
		i32[i], i64[i], f32[i], f64[i], bs[i] = int32(i*7919), int64(i)*1e9, float32(i)*0.37, float64(i)*0.37, i%3 == 0
		ss[i], maxLen[i] = "feature-"+strconv.Itoa(i%1000), 16
	}
	strSchema, err := NewSchema(1, TypeString, n, nil, maxLen)
	if err != nil {
		panic(err)
	}
	di32 := make([]int32, 0, n)
	di64 := make([]int64, 0, n)
	df32 := make([]float32, 0, n)
	df64 := make([]float64, 0, n)
	dbs := make([]bool, 0, n)
	dss := make([][]byte, 0, n)
	return []benchCase{
		{"int32", func(d []byte) ([]byte, error) { return AppendInt32s(d, h, i32) }, func(b []byte) error {
			blk, err := Parse(b, nil)
			if err == nil {
				di32, err = blk.AppendInt32s(di32[:0])
			}
			return err
		}},
		{"float32", func(d []byte) ([]byte, error) { return AppendFloat32s(d, h, f32) }, func(b []byte) error {
			blk, err := Parse(b, nil)
			if err == nil {
				df32, err = blk.AppendFloat32s(df32[:0])
			}
			return err
		}},
		{"int64", func(d []byte) ([]byte, error) { return AppendInt64s(d, h, i64) }, func(b []byte) error {
			blk, err := Parse(b, nil)
			if err == nil {
				di64, err = blk.AppendInt64s(di64[:0])
			}
			return err
		}},
		{"float64", func(d []byte) ([]byte, error) { return AppendFloat64s(d, h, f64) }, func(b []byte) error {
			blk, err := Parse(b, nil)
			if err == nil {
				df64, err = blk.AppendFloat64s(df64[:0])
			}
			return err
		}},
		{"fp16", func(d []byte) ([]byte, error) { return AppendFP16s(d, h, f32) }, func(b []byte) error {
			blk, err := Parse(b, nil)
			if err == nil {
				df32, err = blk.AppendFloat32s(df32[:0])
			}
			return err
		}},
		{"bool", func(d []byte) ([]byte, error) { return AppendBools(d, h, bs) }, func(b []byte) error {
			blk, err := Parse(b, nil)
			if err == nil {
				dbs, err = blk.AppendBools(dbs[:0])
			}
			return err
		}},
		{"string", func(d []byte) ([]byte, error) { return AppendStrings(d, h, strSchema, ss) }, func(b []byte) error {
			blk, err := Parse(b, strSchema)
			if err == nil {
				dss, err = blk.AppendStringViews(dss[:0])
			}
			return err
		}},
	}
}

// BenchmarkEncode appends a whole block into a reused buffer.
func BenchmarkEncode(b *testing.B) {
	for _, n := range benchSizes {
		for _, bc := range benchCases(n) {
			b.Run(fmt.Sprintf("type=%s/n=%d", bc.name, n), func(b *testing.B) {
				buf, err := bc.encode(nil)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(buf)))
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if buf, err = bc.encode(buf[:0]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDecode parses a block and bulk-reads all values into a reused
// slice.
func BenchmarkDecode(b *testing.B) {
	for _, n := range benchSizes {
		for _, bc := range benchCases(n) {
			b.Run(fmt.Sprintf("type=%s/n=%d", bc.name, n), func(b *testing.B) {
				buf, err := bc.encode(nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := bc.decode(buf); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(buf)))
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if err := bc.decode(buf); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkMemcpy is the reference: a plain copy() of the data bytes of an
// int32 block (4n bytes).
func BenchmarkMemcpy(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			src := make([]byte, 4*n)
			dst := make([]byte, 4*n)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				copy(dst, src)
			}
		})
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
