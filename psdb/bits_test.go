package psdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// naivePack is the obvious bit packer the fast one must match.
func naivePack(vals []bool) []byte {
	out := make([]byte, (len(vals)+7)/8)
	for i, v := range vals {
		if v {
			out[i/8] |= 0x80 >> (i % 8)
		}
	}
	return out
}

func TestBoolPacking(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1000, 4099} {
		vals := make([]bool, n)
		for i := range vals {
			vals[i] = r.IntN(2) == 1
		}
		// Dirty destination capacity must not leak into the block.
		dst := bytes.Repeat([]byte{0xff}, HeaderLen+n/8+8)[:0]
		b, err := AppendBools(dst, Header{}, vals)
		if err != nil {
			t.Fatal(err)
		}
		if want := naivePack(vals); !bytes.Equal(b[HeaderLen:], want) {
			t.Fatalf("n=%d: packed %x, want %x", n, b[HeaderLen:], want)
		}
		blk, err := Parse(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, start := range []int{0, 3} {
			prefix := make([]bool, start, start+n)
			got, err := blk.AppendBools(prefix)
			if err != nil || !slices.Equal(got[start:], vals) {
				t.Fatalf("n=%d: unpacked mismatch (%v)", n, err)
			}
		}
		// Packed-bit API: the same block, one copy each way.
		bits := naivePack(vals)
		if n%8 != 0 {
			bits[len(bits)-1] |= 1<<(8-n%8) - 1 // garbage padding bits are cleared
		}
		b2, err := AppendBoolBits(nil, Header{}, bits, n)
		if err != nil || !bytes.Equal(b2, b) {
			t.Fatalf("n=%d: AppendBoolBits %x, %v; want %x", n, b2, err, b)
		}
		got, err := blk.AppendBoolBits(nil)
		if err != nil || !bytes.Equal(got, naivePack(vals)) {
			t.Fatalf("n=%d: Block.AppendBoolBits %x, %v", n, got, err)
		}
	}
	// Vectors cross byte boundaries at every offset.
	s := mustSchema(t, 1, TypeBoolVector, 3, []int{5, 70, 11}, nil)
	vecs := [][]bool{make([]bool, 5), make([]bool, 70), make([]bool, 11)}
	var flat []bool
	for _, v := range vecs {
		for i := range v {
			v[i] = r.IntN(3) == 0
		}
		flat = append(flat, v...)
	}
	b, err := AppendBoolVectors(nil, Header{SchemaVersion: 1}, s, vecs)
	if err != nil || !bytes.Equal(b[HeaderLen:], naivePack(flat)) {
		t.Fatalf("vectors: %x, %v", b, err)
	}
	blk, _ := Parse(b, s)
	for f, v := range vecs {
		got, err := blk.AppendBoolVector(nil, f)
		if err != nil || !slices.Equal(got, v) {
			t.Fatalf("vector %d: %v, %v", f, got, err)
		}
	}
}

func TestBoolBitsErrors(t *testing.T) {
	if _, err := AppendBoolBits(nil, Header{}, []byte{1}, 9); !errors.Is(err, ErrDataLength) {
		t.Errorf("short bits: %v", err)
	}
	if _, err := AppendBoolBits(nil, Header{}, nil, -1); !errors.Is(err, ErrDataLength) {
		t.Errorf("negative n: %v", err)
	}
	if _, err := AppendBoolBits(nil, Header{DataType: TypeInt32}, nil, 0); !errors.Is(err, ErrTypeMismatch) {
		t.Errorf("header type: %v", err)
	}
	b, _ := AppendInt32s(nil, Header{}, []int32{1})
	blk, _ := Parse(b, nil)
	if _, err := blk.AppendBoolBits(nil); !errors.Is(err, ErrTypeMismatch) {
		t.Errorf("int32 block: %v", err)
	}
}

func TestReadStrings(t *testing.T) {
	vals := []string{"", "a", "hello", "", "wörld", "xyzzy", "", "12345678"}
	for n := 0; n <= len(vals); n++ {
		maxLen := make([]int, n)
		for i := range maxLen {
			maxLen[i] = 8
		}
		s := mustSchema(t, 2, TypeString, n, nil, maxLen)
		b, err := AppendStrings(nil, s.Header(0), s, vals[:n])
		if err != nil {
			t.Fatal(err)
		}
		blk, err := Parse(b, s)
		if err != nil {
			t.Fatal(err)
		}
		var ss Strings
		ss.offs = make([]uint32, 2, 64) // dirty reused storage
		if err := blk.ReadStrings(&ss); err != nil {
			t.Fatal(err)
		}
		if ss.Len() != n {
			t.Fatalf("n=%d: Len %d", n, ss.Len())
		}
		for i := range n {
			if ss.String(i) != vals[i] || string(ss.Bytes(i)) != vals[i] || cap(ss.Bytes(i)) != len(vals[i]) {
				t.Fatalf("n=%d: string %d = %q", n, i, ss.String(i))
			}
		}
		if got := ss.AppendStrings(nil); !slices.Equal(got, vals[:n]) {
			t.Fatalf("n=%d: AppendStrings %q", n, got)
		}
		if o := ss.Offsets(); len(o) != n+1 || int(o[n]) != len(ss.Data()) {
			t.Fatalf("n=%d: offsets %v", n, o)
		}
		if a := testing.AllocsPerRun(10, func() { _ = blk.ReadStrings(&ss) }); a != 0 {
			t.Fatalf("ReadStrings allocates %v times", a)
		}
		// ParseStrings: the same in one pass.
		var ps Strings
		pblk, err := ParseStrings(b, s, &ps)
		if err != nil || pblk.Header() != blk.Header() || !slices.Equal(ps.Offsets(), ss.Offsets()) || !bytes.Equal(ps.Data(), ss.Data()) {
			t.Fatalf("n=%d: ParseStrings %v, offsets %v want %v", n, err, ps.Offsets(), ss.Offsets())
		}
		if a := testing.AllocsPerRun(10, func() { _, _ = ParseStrings(b, s, &ps) }); a != 0 {
			t.Fatalf("ParseStrings allocates %v times", a)
		}
		if n > 0 {
			// Truncated or padded data, or a wrong schema: Parse's error, dst reset.
			for _, bad := range [][]byte{b[:len(b)-1], append(slices.Clone(b), 'x')} {
				if _, err := ParseStrings(bad, s, &ps); !errors.Is(err, ErrDataLength) || ps.Len() != 0 {
					t.Fatalf("n=%d: damaged block: %v, Len %d", n, err, ps.Len())
				}
			}
			other := mustSchema(t, 3, TypeString, n, nil, maxLen)
			if _, err := ParseStrings(b, other, &ps); !errors.Is(err, ErrSchema) {
				t.Fatalf("n=%d: wrong schema version: %v", n, err)
			}
		}
	}
	// Errors reset dst.
	b, _ := AppendInt32s(nil, Header{}, []int32{1})
	blk, _ := Parse(b, nil)
	var ss Strings
	ss.offs = []uint32{0, 1}
	if err := blk.ReadStrings(&ss); !errors.Is(err, ErrTypeMismatch) || ss.Len() != 0 {
		t.Errorf("int32 block: %v, Len %d", err, ss.Len())
	}
	sb, _ := AppendStrings(nil, Header{SchemaVersion: 2}, mustSchema(t, 2, TypeString, 1, nil, []int{3}), []string{"abc"})
	blk, _ = Parse(sb, nil)
	if err := blk.ReadStrings(&ss); !errors.Is(err, ErrSchema) {
		t.Errorf("string block without schema: %v", err)
	}
}

func TestSumLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 3, 4, 5, 100, 40000} {
		b := make([]byte, 2*n)
		want := 0
		for i := range n {
			l := r.IntN(65536)
			if i%3 == 0 {
				l = 65535
			}
			b[2*i], b[2*i+1] = byte(l), byte(l>>8)
			want += l
		}
		if got := sumLengths(b); got != want {
			t.Fatalf("n=%d: %d, want %d", n, got, want)
		}
	}
}

// TestPrefixLengths compares prefixLengths (16 lengths per step, then one
// by one) with a plain running sum, for counts around its step and
// lengths from 0 to 65,535.
func TestPrefixLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct {
		name string
		n    int
		gen  func(i int) int
	}{
		{"empty", 0, nil},
		{"one", 1, func(int) int { return 65535 }},
		{"15 zeros", 15, func(int) int { return 0 }},
		{"16 max", 16, func(int) int { return 65535 }},
		{"17 mixed", 17, func(i int) int { return i * 4000 }},
		{"31 random", 31, func(int) int { return r.IntN(65536) }},
		{"32 random", 32, func(int) int { return r.IntN(65536) }},
		{"33 short", 33, func(int) int { return r.IntN(33) }},
		{"1000 short", 1000, func(int) int { return r.IntN(33) }},
		{"4099 max and zero", 4099, func(i int) int { return 65535 * (i % 2) }},
		{"65535 max", 65535, func(int) int { return 65535 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Lengths at an odd address, as in a block (data at offset 9).
			lens := make([]byte, 2*tc.n+1)[1:]
			want := make([]uint32, tc.n+1)
			for i := range tc.n {
				l := tc.gen(i)
				binary.LittleEndian.PutUint16(lens[2*i:], uint16(l))
				want[i+1] = want[i] + uint32(l)
			}
			got := make([]uint32, tc.n+1)
			for i := range got {
				got[i] = 0xdeadbeef
			}
			prefixLengths(got, lens)
			if !slices.Equal(got, want) {
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("offset %d = %d, want %d", i, got[i], want[i])
					}
				}
			}
		})
	}
}

// TestParseStringsRoundTrip writes String and StringVector blocks of
// counts around prefixLengths' step of 16, with empty and 65,535-byte
// strings, and reads them back with ParseStrings and ReadStrings.
func TestParseStringsRoundTrip(t *testing.T) {
	long := strings.Repeat("x", maxStringLen)
	for _, tc := range []struct {
		name   string
		n, vec int // features; vector length (0: scalar String)
		gen    func(i int) string
	}{
		{"scalar 15", 15, 0, func(i int) string { return strconv.Itoa(i) }},
		{"scalar 16 empty", 16, 0, func(int) string { return "" }},
		{"scalar 17 max", 17, 0, func(int) string { return long }},
		{"scalar 1001 mixed", 1001, 0, func(i int) string { return long[:i*37%100] }},
		{"vector 3x7", 3, 7, func(i int) string { return long[:i%5] }},
		{"vector 100x8 max every 9th", 100, 8, func(i int) string {
			if i%9 == 0 {
				return long
			}
			return long[:i%33]
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dt, vl := TypeString, 1
			var vecLens []int
			if tc.vec > 0 {
				dt, vl = TypeStringVector, tc.vec
				vecLens = make([]int, tc.n)
				for i := range vecLens {
					vecLens[i] = tc.vec
				}
			}
			maxStr := make([]int, tc.n)
			for i := range maxStr {
				maxStr[i] = maxStringLen
			}
			s := mustSchema(t, 4, dt, tc.n, vecLens, maxStr)
			var flat []string
			for i := range tc.n * vl {
				flat = append(flat, tc.gen(i))
			}
			var b []byte
			var err error
			if tc.vec > 0 {
				vecs := make([][]string, tc.n)
				for i := range vecs {
					vecs[i] = flat[i*vl : (i+1)*vl]
				}
				b, err = AppendStringVectors(nil, s.Header(0), s, vecs)
			} else {
				b, err = AppendStrings(nil, s.Header(0), s, flat)
			}
			if err != nil {
				t.Fatal(err)
			}
			var ps, rs Strings
			if _, err := ParseStrings(b, s, &ps); err != nil {
				t.Fatal(err)
			}
			blk, err := Parse(b, s)
			if err != nil {
				t.Fatal(err)
			}
			if err := blk.ReadStrings(&rs); err != nil {
				t.Fatal(err)
			}
			for _, ss := range []*Strings{&ps, &rs} {
				if ss.Len() != len(flat) {
					t.Fatalf("Len %d, want %d", ss.Len(), len(flat))
				}
				for i, want := range flat {
					if string(ss.Bytes(i)) != want {
						t.Fatalf("string %d: %d bytes, want %d", i, len(ss.Bytes(i)), len(want))
					}
				}
			}
		})
	}
}
