package psdb

import "testing"

// TestEncodeDecodeAllocs proves that encoding into a buffer with enough
// capacity, and bulk decoding into slices with enough capacity, allocate
// nothing.
func TestEncodeDecodeAllocs(t *testing.T) {
	const n = 1000
	h := Header{SchemaVersion: 1}
	i32 := make([]int32, n)
	i64 := make([]int64, n)
	f32 := make([]float32, n)
	f64 := make([]float64, n)
	bs := make([]bool, n)
	ss := make([]string, n)
	maxLen := make([]int, n)
	for i := range n {
		i32[i], i64[i], f32[i], f64[i], bs[i] = int32(i), int64(i)<<33, float32(i)/7, float64(i)/3, i%3 == 0
		ss[i], maxLen[i] = "value", 8
	}
	strSchema := mustSchema(t, 1, TypeString, n, nil, maxLen)
	vecSchema := mustSchema(t, 1, TypeFP32Vector, 10, []int{100, 100, 100, 100, 100, 100, 100, 100, 100, 100}, nil)
	vecs := make([][]float32, 10)
	for i := range vecs {
		vecs[i] = f32[100*i : 100*(i+1)]
	}
	buf := make([]byte, 0, 16*n)
	di32 := make([]int32, 0, n)
	di64 := make([]int64, 0, n)
	df32 := make([]float32, 0, n)
	df64 := make([]float64, 0, n)
	dbs := make([]bool, 0, n)
	dviews := make([][]byte, 0, n)
	dbits := make([]byte, 0, n/8+1)
	packedBits := make([]byte, (n+7)/8)
	var strs Strings
	strs.offs = make([]uint32, 0, n+1)
	cases := []struct {
		name string
		fn   func() error
	}{
		{"int32", func() error {
			b, err := AppendInt32s(buf[:0], h, i32)
			if err != nil {
				return err
			}
			blk, err := Parse(b, nil)
			if err != nil {
				return err
			}
			_, err = blk.AppendInt32s(di32[:0])
			return err
		}},
		{"int64", func() error {
			b, err := AppendInt64s(buf[:0], h, i64)
			if err != nil {
				return err
			}
			blk, err := Parse(b, nil)
			if err != nil {
				return err
			}
			_, err = blk.AppendInt64s(di64[:0])
			return err
		}},
		{"float32", func() error {
			b, err := AppendFloat32s(buf[:0], h, f32)
			if err != nil {
				return err
			}
			blk, err := Parse(b, nil)
			if err != nil {
				return err
			}
			_, err = blk.AppendFloat32s(df32[:0])
			return err
		}},
		{"float64", func() error {
			b, err := AppendFloat64s(buf[:0], h, f64)
			if err != nil {
				return err
			}
			blk, err := Parse(b, nil)
			if err != nil {
				return err
			}
			_, err = blk.AppendFloat64s(df64[:0])
			return err
		}},
		{"fp16", func() error {
			b, err := AppendFP16s(buf[:0], h, f32)
			if err != nil {
				return err
			}
			blk, err := Parse(b, nil)
			if err != nil {
				return err
			}
			_, err = blk.AppendFloat32s(df32[:0])
			return err
		}},
		{"fp8", func() error {
			b, err := AppendFP8E4M3s(buf[:0], h, f32)
			if err != nil {
				return err
			}
			blk, err := Parse(b, nil)
			if err != nil {
				return err
			}
			_, err = blk.AppendFloat32s(df32[:0])
			return err
		}},
		{"int8", func() error {
			small := i32[:100]
			b, err := AppendInt8s(buf[:0], h, small)
			if err != nil {
				return err
			}
			blk, err := Parse(b, nil)
			if err != nil {
				return err
			}
			_, err = blk.AppendInt32s(di32[:0])
			return err
		}},
		{"bool", func() error {
			b, err := AppendBools(buf[:0], h, bs)
			if err != nil {
				return err
			}
			blk, err := Parse(b, nil)
			if err != nil {
				return err
			}
			_, err = blk.AppendBools(dbs[:0])
			return err
		}},
		{"string", func() error {
			b, err := AppendStrings(buf[:0], h, strSchema, ss)
			if err != nil {
				return err
			}
			blk, err := Parse(b, strSchema)
			if err != nil {
				return err
			}
			_, err = blk.AppendStringViews(dviews[:0])
			return err
		}},
		{"bool bits", func() error {
			b, err := AppendBoolBits(buf[:0], h, packedBits, n)
			if err != nil {
				return err
			}
			blk, err := Parse(b, nil)
			if err != nil {
				return err
			}
			_, err = blk.AppendBoolBits(dbits[:0])
			return err
		}},
		{"string read", func() error {
			b, err := AppendStrings(buf[:0], h, strSchema, ss)
			if err != nil {
				return err
			}
			blk, err := Parse(b, strSchema)
			if err != nil {
				return err
			}
			return blk.ReadStrings(&strs)
		}},
		{"string parse", func() error {
			b, err := AppendStrings(buf[:0], h, strSchema, ss)
			if err != nil {
				return err
			}
			_, err = ParseStrings(b, strSchema, &strs)
			return err
		}},
		{"fp32 vectors", func() error {
			b, err := AppendFloat32Vectors(buf[:0], h, vecSchema, vecs)
			if err != nil {
				return err
			}
			blk, err := Parse(b, vecSchema)
			if err != nil {
				return err
			}
			_, err = blk.AppendFloat32Vector(df32[:0], 3)
			return err
		}},
		{"cache", func() error {
			v, err := AppendCache(buf[:0], CacheLayout1, []CacheEntry{{GroupID: 1, Block: []byte("abc")}})
			if err != nil {
				return err
			}
			_, _, err = FindCacheEntry(v, 1)
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.fn(); err != nil {
				t.Fatal(err)
			}
			if a := testing.AllocsPerRun(50, func() { _ = tc.fn() }); a != 0 {
				t.Fatalf("%v allocs per encode+decode, want 0", a)
			}
		})
	}
	// AppendStrings (copying) allocates exactly once per call.
	b, _ := AppendStrings(buf[:0], h, strSchema, ss)
	blk, _ := Parse(b, strSchema)
	dst := make([]string, 0, n)
	if a := testing.AllocsPerRun(50, func() { _, _ = blk.AppendStrings(dst[:0]) }); a != 1 {
		t.Fatalf("AppendStrings: %v allocs, want 1", a)
	}
}
