package psdb

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestCopyPayloadMisaligned decodes large blocks whose data starts at
// every offset 0–15 of a buffer (copyPayload's peeled and pieced paths,
// from 2 KiB to past its 512 KiB piece size) and checks every value.
func TestCopyPayloadMisaligned(t *testing.T) {
	for _, n := range []int{100, 511, 512, 513, 3000, 70_000, 200_003} {
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = int64(i)*0x0101010101 ^ -7
		}
		blk, err := AppendInt64s(nil, Header{}, vals)
		if err != nil {
			t.Fatal(err)
		}
		for shift := range 16 {
			buf := make([]byte, shift+len(blk))
			copy(buf[shift:], blk)
			b, err := Parse(buf[shift:], nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.AppendInt64s(make([]int64, 0, n))
			if err != nil {
				t.Fatal(err)
			}
			for i := range vals {
				if got[i] != vals[i] {
					t.Fatalf("n=%d shift=%d: value %d = %d, want %d", n, shift, i, got[i], vals[i])
				}
			}
		}
	}
}

// TestUnpackBitsEveryLength compares AppendBools (whole-byte path) and
// the vector reads (any bit offset) with Bool(i) for every length 0–130.
func TestUnpackBitsEveryLength(t *testing.T) {
	for n := range 131 {
		vals := make([]bool, n)
		for i := range vals {
			vals[i] = (i*7+n)%3 == 0
		}
		blk, err := AppendBools(nil, Header{}, vals)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse(blk, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, dst := range [][]bool{nil, make([]bool, 3, 3+n)} {
			got, err := b.AppendBools(dst)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(dst)+n {
				t.Fatalf("n=%d: %d values", n, len(got)-len(dst))
			}
			for i, v := range vals {
				if got[len(dst)+i] != v {
					t.Fatalf("n=%d: value %d = %v, want %v", n, i, got[len(dst)+i], v)
				}
			}
		}
	}
}

// TestWordVectorsFastPath writes uniform vectors of 8 (the fixed-move
// path) and mixed lengths, checks the data equals the flattened scalar
// encoding, and that a wrong length anywhere is an error.
func TestWordVectorsFastPath(t *testing.T) {
	for _, lens := range [][]int{{8, 8, 8}, {4, 4}, {8, 3, 0, 8, 16}, {1}} {
		var flat32 []float32
		var flat64 []int64
		var v32 [][]float32
		var v64 [][]int64
		for i, l := range lens {
			a, b := make([]float32, l), make([]int64, l)
			for j := range a {
				a[j], b[j] = float32(i*100+j)+0.5, int64(i*1000+j)-3
			}
			v32, v64 = append(v32, a), append(v64, b)
			flat32, flat64 = append(flat32, a...), append(flat64, b...)
		}
		s32, _ := NewSchema(2, TypeFP32Vector, len(lens), lens, nil)
		s64, _ := NewSchema(2, TypeInt64Vector, len(lens), lens, nil)
		got32, err := AppendFloat32Vectors([]byte("x"), s32.Header(0), s32, v32)
		if err != nil {
			t.Fatal(err)
		}
		want32, _ := AppendFloat32s(nil, Header{}, flat32)
		if !bytes.Equal(got32[1+HeaderLen:], want32[HeaderLen:]) {
			t.Fatalf("%v: float32 vectors data differ", lens)
		}
		got64, err := AppendInt64Vectors(nil, s64.Header(0), s64, v64)
		if err != nil {
			t.Fatal(err)
		}
		want64, _ := AppendInt64s(nil, Header{}, flat64)
		if !bytes.Equal(got64[HeaderLen:], want64[HeaderLen:]) {
			t.Fatalf("%v: int64 vectors data differ", lens)
		}
		// One vector too long (last) and one too short (first).
		bad := append([][]float32(nil), v32...)
		bad[len(bad)-1] = append(bad[len(bad)-1], 1)
		if _, err := AppendFloat32Vectors(nil, s32.Header(0), s32, bad); !errors.Is(err, ErrVectorLength) {
			t.Fatalf("%v: long vector: %v", lens, err)
		}
		if lens[0] > 0 {
			bad = append([][]float32(nil), v32...)
			bad[0] = bad[0][:len(bad[0])-1]
			if _, err := AppendFloat32Vectors(nil, s32.Header(0), s32, bad); !errors.Is(err, ErrVectorLength) {
				t.Fatalf("%v: short vector: %v", lens, err)
			}
		}
	}
}

// TestBoolVectors8 checks the vectors-of-8 packing against Bool(i) for
// counts around its 4-vector unrolling, and a wrong length at each place.
func TestBoolVectors8(t *testing.T) {
	for n := range 11 {
		vecs := make([][]bool, n)
		lens := make([]int, n)
		for i := range vecs {
			vecs[i] = make([]bool, 8)
			for j := range vecs[i] {
				vecs[i][j] = (i*8+j)%3 == 0 || j == 7
			}
			lens[i] = 8
		}
		s, _ := NewSchema(1, TypeBoolVector, n, lens, nil)
		blk, err := AppendBoolVectors(nil, s.Header(0), s, vecs)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse(blk, s)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 8 * n {
			if v, _ := b.Bool(i); v != vecs[i/8][i%8] {
				t.Fatalf("n=%d: value %d = %v", n, i, v)
			}
		}
		for k := range n {
			bad := append([][]bool(nil), vecs...)
			bad[k] = bad[k][:7]
			if _, err := AppendBoolVectors(nil, s.Header(0), s, bad); !errors.Is(err, ErrVectorLength) {
				t.Fatalf("n=%d, short vector %d: %v", n, k, err)
			}
		}
	}
}

// TestStringVectorsOnePass checks AppendStringVectors' one-pass path
// (taken when dst has room for the header and the lengths) against its
// general path (dst nil): the same bytes with room for all, for only part
// of the string bytes (it falls back and grows), behind a prefix; and the
// same errors for a wrong vector length or an overlong string anywhere.
func TestStringVectorsOnePass(t *testing.T) {
	long := strings.Repeat("y", maxStringLen)
	for _, tc := range []struct {
		name string
		lens []int // vector lengths
		max  int   // booked maximum of every feature
		gen  func(i int) string
	}{
		{"empty group", nil, 8, nil},
		{"empty strings", []int{8, 8, 8}, 8, func(int) string { return "" }},
		{"mixed lengths", []int{3, 0, 8, 1, 5}, 40, func(i int) string { return long[:i*7%41] }},
		{"max length", []int{2, 2}, maxStringLen, func(i int) string { return long[:maxStringLen-i%2] }},
		{"100 of 8", slices.Repeat([]int{8}, 100), 32, func(i int) string { return long[:i%33] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			maxStr := slices.Repeat([]int{tc.max}, len(tc.lens))
			s := mustSchema(t, 6, TypeStringVector, len(tc.lens), tc.lens, maxStr)
			h := s.Header(0)
			vecs := make([][]string, len(tc.lens))
			k := 0
			for f, l := range tc.lens {
				for range l {
					vecs[f] = append(vecs[f], tc.gen(k))
					k++
				}
			}
			want, err := AppendStringVectors(nil, h, s, vecs)
			if err != nil {
				t.Fatal(err)
			}
			dataLen := len(want) - HeaderLen
			for _, room := range []int{dataLen, dataLen + 5, 2 * s.elements, dataLen - 1} {
				if room < 2*s.elements {
					continue
				}
				dst := make([]byte, 3, 3+HeaderLen+room)
				got, err := AppendStringVectors(dst, h, s, vecs)
				if err != nil || !bytes.Equal(got[3:], want) || string(got[:3]) != "\x00\x00\x00" {
					t.Fatalf("room %d of %d: %v", room, dataLen, err)
				}
				if room >= dataLen {
					if a := testing.AllocsPerRun(5, func() { _, _ = AppendStringVectors(dst, h, s, vecs) }); a != 0 {
						t.Fatalf("room %d: %v allocs", room, a)
					}
				}
			}
			for f := range vecs {
				bad := slices.Clone(vecs)
				bad[f] = append(slices.Clone(bad[f]), "")
				for _, dst := range [][]byte{nil, make([]byte, 0, 2*len(want))} {
					if got, err := AppendStringVectors(dst, h, s, bad); !errors.Is(err, ErrVectorLength) || len(got) != 0 {
						t.Fatalf("feature %d one too long: %v", f, err)
					}
				}
				if len(vecs[f]) == 0 || tc.max == maxStringLen {
					continue
				}
				bad = slices.Clone(vecs)
				bad[f] = slices.Clone(bad[f])
				bad[f][len(bad[f])-1] = long[:tc.max+1]
				for _, dst := range [][]byte{nil, make([]byte, 0, 2*len(want))} {
					if got, err := AppendStringVectors(dst, h, s, bad); !errors.Is(err, ErrStringTooLong) || len(got) != 0 {
						t.Fatalf("feature %d overlong string: %v", f, err)
					}
				}
			}
		})
	}
}
