package psdb

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
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
