package psdb

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

func mustSchema(t testing.TB, version uint16, dt DataType, n int, vec, maxStr []int) *Schema {
	t.Helper()
	s, err := NewSchema(version, dt, n, vec, maxStr)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestInt32Sizes(t *testing.T) {
	// Exact sizes from the seed report.
	for _, tc := range []struct{ n, size int }{{100, 409}, {1000, 4009}, {10000, 40009}, {100000, 400009}} {
		vals := make([]int32, tc.n)
		for i := range vals {
			vals[i] = int32(i*7919 - 1<<20)
		}
		b, err := AppendInt32s(nil, Header{SchemaVersion: 1}, vals)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != tc.size {
			t.Fatalf("n=%d: %d bytes, want %d", tc.n, len(b), tc.size)
		}
	}
}

func TestExactBytes(t *testing.T) {
	h := Header{SchemaVersion: 0x0203}
	strSchema := mustSchema(t, 0x0203, TypeString, 3, nil, []int{5, 0, 3})
	bvSchema := mustSchema(t, 0x0203, TypeBoolVector, 2, []int{3, 7}, nil)
	svSchema := mustSchema(t, 0x0203, TypeStringVector, 2, []int{1, 2}, []int{2, 1})
	tests := []struct {
		name string
		enc  func() ([]byte, error)
		want string // hex
	}{
		{"int32", func() ([]byte, error) { return AppendInt32s(nil, h, []int32{1, -2, 0x01020304}) },
			"0302" + "0000000000" + "10" + "80" + "01000000" + "feffffff" + "04030201"},
		{"int16", func() ([]byte, error) { return AppendInt16s(nil, h, []int32{-1, 0x1234}) },
			"0302" + "0000000000" + "10" + "70" + "ffff" + "3412"},
		{"uint8", func() ([]byte, error) { return AppendUint8s(nil, h, []uint32{0, 255}) },
			"0302" + "0000000000" + "10" + "a0" + "00ff"},
		{"fp16", func() ([]byte, error) { return AppendFP16s(nil, h, []float32{1, -2, 65504}) },
			"0302" + "0000000000" + "10" + "30" + "003c" + "00c0" + "ff7b"},
		{"fp8e4m3", func() ([]byte, error) { return AppendFP8E4M3s(nil, h, []float32{1, 448, 1e9, float32(math.Inf(-1))}) },
			"0302" + "0000000000" + "10" + "20" + "387e7fff"},
		{"fp8e4m3 saturating", func() ([]byte, error) {
			return AppendFP8E4M3sSaturating(nil, h, []float32{1, 448, 1e9, float32(math.Inf(-1))})
		}, "0302" + "0000000000" + "10" + "20" + "387e7efe"},
		{"fp8e4m3 vector saturating", func() ([]byte, error) {
			return AppendFP8E4M3VectorsSaturating(nil, h, mustSchema(t, 0x0203, TypeFP8E4M3Vector, 2, []int{1, 1}, nil), [][]float32{{500}, {-1}})
		}, "0302" + "0000000000" + "11" + "10" + "7eb8"},
		{"float64", func() ([]byte, error) { return AppendFloat64s(nil, h, []float64{1}) },
			"0302" + "0000000000" + "10" + "50" + "000000000000f03f"},
		{"bool 10 values", func() ([]byte, error) {
			return AppendBools(nil, h, []bool{true, false, true, true, false, false, false, true, true, true})
		}, "0302" + "0000000000" + "10" + "f6" + "b1" + "c0"},
		{"bool 8 values", func() ([]byte, error) {
			return AppendBools(nil, h, []bool{false, false, false, false, false, false, false, true})
		}, "0302" + "0000000000" + "10" + "f0" + "01"},
		{"bool empty", func() ([]byte, error) { return AppendBools(nil, h, nil) },
			"0302" + "0000000000" + "10" + "f0"},
		{"bool vector crosses vectors", func() ([]byte, error) {
			return AppendBoolVectors(nil, h, bvSchema, [][]bool{{true, true, false}, {true, false, false, false, false, false, true}})
		}, "0302" + "0000000000" + "11" + "e6" + "d0" + "40"},
		{"strings", func() ([]byte, error) { return AppendStrings(nil, h, strSchema, []string{"hello", "", "abc"}) },
			"0302" + "0000000000" + "10" + "e0" + "0500" + "0000" + "0300" + hex.EncodeToString([]byte("helloabc"))},
		{"string vectors", func() ([]byte, error) {
			return AppendStringVectors(nil, h, svSchema, [][]string{{"ab"}, {"c", ""}})
		}, "0302" + "0000000000" + "11" + "d0" + "0200" + "0100" + "0000" + hex.EncodeToString([]byte("abc"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.enc()
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(b); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// goldenBlocks returns a fixed set of blocks, one per data type.
func goldenBlocks(t testing.TB) map[string][]byte {
	now := time.Date(2025, 1, 15, 0, 0, 0, 0, time.UTC)
	e, err := NewExpiry(time.Date(2025, 6, 1, 8, 30, 15, 0, time.UTC), now)
	if err != nil {
		t.Fatal(err)
	}
	h := Header{SchemaVersion: 7, Expiry: e}
	f32 := []float32{0, 1, -1.5, 3.14159, 1e-3, 65504, -448, 0.1}
	i32 := []int32{0, 1, -1, 127, -128, 42}
	u32 := []uint32{0, 1, 255, 200, 17}
	vl := []int{2, 0, 3}
	fv := [][]float32{{1, 2}, {}, {0.5, -0.25, 8}}
	iv := [][]int32{{1, -2}, {}, {3, 4, -5}}
	uv := [][]uint32{{1, 2}, {}, {3, 4, 5}}
	out := map[string][]byte{}
	add := func(name string, b []byte, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b
	}
	vs := func(dt DataType) *Schema { return mustSchema(t, 7, dt, 3, vl, nil) }
	b, err := AppendFP8E5M2s(nil, h, f32)
	add("fp8e5m2", b, err)
	b, err = AppendFP8E4M3s(nil, h, f32)
	add("fp8e4m3", b, err)
	b, err = AppendFP16s(nil, h, f32)
	add("fp16", b, err)
	b, err = AppendFloat32s(nil, h, f32)
	add("fp32", b, err)
	b, err = AppendFloat64s(nil, h, []float64{math.Pi, math.Copysign(0, -1), 1e300})
	add("fp64", b, err)
	b, err = AppendInt8s(nil, h, i32)
	add("int8", b, err)
	b, err = AppendInt16s(nil, h, i32)
	add("int16", b, err)
	b, err = AppendInt32s(nil, h, i32)
	add("int32", b, err)
	b, err = AppendInt64s(nil, h, []int64{math.MinInt64, -1, 1 << 40})
	add("int64", b, err)
	b, err = AppendUint8s(nil, h, u32)
	add("uint8", b, err)
	b, err = AppendUint16s(nil, h, u32)
	add("uint16", b, err)
	b, err = AppendUint32s(nil, h, u32)
	add("uint32", b, err)
	b, err = AppendUint64s(nil, h, []uint64{math.MaxUint64, 0, 1 << 63})
	add("uint64", b, err)
	b, err = AppendStrings(nil, h, mustSchema(t, 7, TypeString, 3, nil, []int{10, 10, 2}), []string{"feature", "", "ok"})
	add("string", b, err)
	b, err = AppendBools(nil, h, []bool{true, false, true, true, false, true, false, true, true, false, true})
	add("bool", b, err)
	b, err = AppendFP8E5M2Vectors(nil, h, vs(TypeFP8E5M2Vector), fv)
	add("fp8e5m2vector", b, err)
	b, err = AppendFP8E4M3Vectors(nil, h, vs(TypeFP8E4M3Vector), fv)
	add("fp8e4m3vector", b, err)
	b, err = AppendFP16Vectors(nil, h, vs(TypeFP16Vector), fv)
	add("fp16vector", b, err)
	b, err = AppendFloat32Vectors(nil, h, vs(TypeFP32Vector), fv)
	add("fp32vector", b, err)
	b, err = AppendFloat64Vectors(nil, h, vs(TypeFP64Vector), [][]float64{{1, 2}, {}, {3, 4, 5}})
	add("fp64vector", b, err)
	b, err = AppendInt8Vectors(nil, h, vs(TypeInt8Vector), iv)
	add("int8vector", b, err)
	b, err = AppendInt16Vectors(nil, h, vs(TypeInt16Vector), iv)
	add("int16vector", b, err)
	b, err = AppendInt32Vectors(nil, h, vs(TypeInt32Vector), iv)
	add("int32vector", b, err)
	b, err = AppendInt64Vectors(nil, h, vs(TypeInt64Vector), [][]int64{{1, -2}, {}, {3, 4, -5}})
	add("int64vector", b, err)
	b, err = AppendUint8Vectors(nil, h, vs(TypeUint8Vector), uv)
	add("uint8vector", b, err)
	b, err = AppendUint16Vectors(nil, h, vs(TypeUint16Vector), uv)
	add("uint16vector", b, err)
	b, err = AppendUint32Vectors(nil, h, vs(TypeUint32Vector), uv)
	add("uint32vector", b, err)
	b, err = AppendUint64Vectors(nil, h, vs(TypeUint64Vector), [][]uint64{{1, 2}, {}, {3, 4, 5}})
	add("uint64vector", b, err)
	b, err = AppendStringVectors(nil, h, mustSchema(t, 7, TypeStringVector, 3, vl, []int{3, 0, 4}), [][]string{{"a", "bcd"}, {}, {"", "xy", "zzzz"}})
	add("stringvector", b, err)
	b, err = AppendBoolVectors(nil, h, vs(TypeBoolVector), [][]bool{{true, false}, {}, {true, true, false}})
	add("boolvector", b, err)
	return out
}

func TestGolden(t *testing.T) {
	blocks := goldenBlocks(t)
	if len(blocks) != 30 {
		t.Fatalf("%d golden blocks, want one per data type", len(blocks))
	}
	dir := filepath.Join("testdata", "golden")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, b := range blocks {
		path := filepath.Join(dir, name+".hex")
		if *update {
			if err := os.WriteFile(path, []byte(hex.EncodeToString(b)+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run with -update to create)", name, err)
		}
		if got := hex.EncodeToString(b); got != strings.TrimSpace(string(want)) {
			t.Errorf("%s:\ngot  %s\nwant %s", name, got, want)
		}
		// Every golden block must also parse.
		if _, err := Parse(b, nil); err != nil {
			t.Errorf("%s: Parse: %v", name, err)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	h := Header{SchemaVersion: 3}
	strS := mustSchema(t, 3, TypeString, 2, nil, []int{4, 65535})
	vecS := mustSchema(t, 3, TypeInt32Vector, 2, []int{1, 2}, nil)
	long := strings.Repeat("x", 65536)
	tests := []struct {
		name string
		enc  func() ([]byte, error)
		want error
	}{
		{"int8 high", func() ([]byte, error) { return AppendInt8s(nil, h, []int32{1, 128}) }, ErrValueRange},
		{"int8 low", func() ([]byte, error) { return AppendInt8s(nil, h, []int32{-129}) }, ErrValueRange},
		{"int16 high", func() ([]byte, error) { return AppendInt16s(nil, h, []int32{32768}) }, ErrValueRange},
		{"int16 low", func() ([]byte, error) { return AppendInt16s(nil, h, []int32{-32769}) }, ErrValueRange},
		{"uint8", func() ([]byte, error) { return AppendUint8s(nil, h, []uint32{256}) }, ErrValueRange},
		{"uint16", func() ([]byte, error) { return AppendUint16s(nil, h, []uint32{65536}) }, ErrValueRange},
		{"header type mismatch", func() ([]byte, error) {
			return AppendInt32s(nil, Header{DataType: TypeInt64}, []int32{1})
		}, ErrTypeMismatch},
		{"expiry beyond 40 bits", func() ([]byte, error) { return AppendInt32s(nil, Header{Expiry: 1 << 40}, nil) }, ErrExpiry},
		{"string over booked", func() ([]byte, error) { return AppendStrings(nil, h, strS, []string{"12345", ""}) }, ErrStringTooLong},
		{"string over 65535", func() ([]byte, error) { return AppendStrings(nil, h, strS, []string{"", long}) }, ErrStringTooLong},
		{"string count", func() ([]byte, error) { return AppendStrings(nil, h, strS, []string{""}) }, ErrSchema},
		{"string nil schema", func() ([]byte, error) { return AppendStrings(nil, h, nil, []string{""}) }, ErrSchema},
		{"string version mismatch", func() ([]byte, error) {
			return AppendStrings(nil, Header{SchemaVersion: 4}, strS, []string{"", ""})
		}, ErrSchema},
		{"vector wrong type schema", func() ([]byte, error) {
			return AppendInt16Vectors(nil, h, vecS, [][]int32{{1}, {2, 3}})
		}, ErrSchema},
		{"vector count", func() ([]byte, error) { return AppendInt32Vectors(nil, h, vecS, [][]int32{{1}}) }, ErrVectorLength},
		{"vector length", func() ([]byte, error) {
			return AppendInt32Vectors(nil, h, vecS, [][]int32{{1}, {2}})
		}, ErrVectorLength},
		{"narrow vector range", func() ([]byte, error) {
			s := mustSchema(t, 3, TypeUint8Vector, 1, []int{2}, nil)
			return AppendUint8Vectors(nil, h, s, [][]uint32{{1, 300}})
		}, ErrValueRange},
		{"string vector too long", func() ([]byte, error) {
			s := mustSchema(t, 3, TypeStringVector, 1, []int{2}, []int{1})
			return AppendStringVectors(nil, h, s, [][]string{{"a", "bc"}})
		}, ErrStringTooLong},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.enc()
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if got != nil {
				t.Fatalf("returned %d bytes on error from a nil dst", len(got))
			}
		})
	}
}

func TestEncodeErrorKeepsDst(t *testing.T) {
	dst := append(make([]byte, 0, 64), "prefix"...)
	out, err := AppendInt8s(dst, Header{}, []int32{1, 2, 999})
	if !errors.Is(err, ErrValueRange) || string(out) != "prefix" {
		t.Fatalf("out=%q err=%v", out, err)
	}
}

func TestAppendPreservesPrefix(t *testing.T) {
	out, err := AppendInt32s([]byte("abc"), Header{}, []int32{5})
	if err != nil {
		t.Fatal(err)
	}
	blk, err := Parse(out[3:], nil)
	if err != nil || string(out[:3]) != "abc" {
		t.Fatalf("%q %v", out, err)
	}
	if v, _ := blk.Int32(0); v != 5 {
		t.Fatal(v)
	}
}

func TestPortableMatchesFast(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	u32 := make([]uint32, 1000)
	u64 := make([]uint64, 1000)
	for i := range u32 {
		u32[i], u64[i] = r.Uint32(), r.Uint64()
	}
	a, b := make([]byte, 4000), make([]byte, 4000)
	putUint32s(a, u32)
	putUint32sPortable(b, u32)
	if !bytes.Equal(a, b) {
		t.Fatal("putUint32s differs from portable path")
	}
	c, d := make([]byte, 8000), make([]byte, 8000)
	putUint64s(c, u64)
	putUint64sPortable(d, u64)
	if !bytes.Equal(c, d) {
		t.Fatal("putUint64s differs from portable path")
	}
	g32, p32 := make([]uint32, 1000), make([]uint32, 1000)
	getUint32s(g32, a)
	getUint32sPortable(p32, a)
	if !slices.Equal(g32, u32) || !slices.Equal(p32, u32) {
		t.Fatal("getUint32s round trip")
	}
	g64, p64 := make([]uint64, 1000), make([]uint64, 1000)
	getUint64s(g64, c)
	getUint64sPortable(p64, c)
	if !slices.Equal(g64, u64) || !slices.Equal(p64, u64) {
		t.Fatal("getUint64s round trip")
	}
}
