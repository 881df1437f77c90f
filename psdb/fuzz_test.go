package psdb

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// exercise calls every reader of blk and checks basic invariants; it must
// never panic.
func exercise(t *testing.T, blk Block) {
	n, err := blk.Len()
	if err != nil {
		n = 3
	}
	for i := -1; i <= n && i < 70; i++ {
		_, _ = blk.Int32(i)
		_, _ = blk.Int64(i)
		_, _ = blk.Uint32(i)
		_, _ = blk.Uint64(i)
		_, _ = blk.Float32(i)
		_, _ = blk.Float64(i)
		_, _ = blk.Bool(i)
		_, _ = blk.String(i)
	}
	if v, err := blk.AppendInt32s(nil); err == nil && len(v) != n {
		t.Fatalf("AppendInt32s returned %d values, Len %d", len(v), n)
	}
	if v, err := blk.AppendFloat32s(nil); err == nil && len(v) != n {
		t.Fatalf("AppendFloat32s returned %d values, Len %d", len(v), n)
	}
	if v, err := blk.AppendBools(nil); err == nil && len(v) != n {
		t.Fatalf("AppendBools returned %d values, Len %d", len(v), n)
	}
	_, _ = blk.AppendInt64s(nil)
	_, _ = blk.AppendUint32s(nil)
	_, _ = blk.AppendUint64s(nil)
	_, _ = blk.AppendFloat64s(nil)
	if v, err := blk.AppendStrings(nil); err == nil && len(v) != n {
		t.Fatalf("AppendStrings returned %d values, Len %d", len(v), n)
	}
	_, _ = blk.AppendStringViews(nil)
	var ss Strings
	if err := blk.ReadStrings(&ss); err == nil {
		if ss.Len() != n {
			t.Fatalf("ReadStrings: %d strings, Len %d", ss.Len(), n)
		}
		for i := range n {
			if s, err := blk.String(i); err != nil || s != ss.String(i) {
				t.Fatalf("ReadStrings string %d = %q, String %q (%v)", i, ss.String(i), s, err)
			}
		}
	}
	if bits, err := blk.AppendBoolBits(nil); err == nil {
		if len(bits) != (n+7)/8 {
			t.Fatalf("AppendBoolBits: %d bytes for %d values", len(bits), n)
		}
		for i := range n {
			if v, _ := blk.Bool(i); v != (bits[i/8]&(0x80>>(i%8)) != 0) {
				t.Fatalf("AppendBoolBits bit %d differs from Bool", i)
			}
		}
	}
	for f := -1; f < 5; f++ {
		_, _ = blk.AppendInt32Vector(nil, f)
		_, _ = blk.AppendInt64Vector(nil, f)
		_, _ = blk.AppendUint32Vector(nil, f)
		_, _ = blk.AppendUint64Vector(nil, f)
		_, _ = blk.AppendFloat32Vector(nil, f)
		_, _ = blk.AppendFloat64Vector(nil, f)
		_, _ = blk.AppendBoolVector(nil, f)
		_, _ = blk.AppendStringVector(nil, f)
		_, _ = blk.AppendStringVectorViews(nil, f)
	}
}

// fuzzSchema derives a schema for b's header type from two fuzz bytes.
func fuzzSchema(b []byte, nf, vl uint8) *Schema {
	h, err := ParseHeader(b)
	if err != nil {
		return nil
	}
	n := int(nf % 48) // up to 47 strings: past prefixLengths' step of 16
	var vec, str []int
	if h.DataType.IsVector() {
		vec = make([]int, n)
		for i := range vec {
			vec[i] = (int(vl) + i) % 5
		}
	}
	if h.DataType.IsString() {
		str = make([]int, n)
		for i := range str {
			str[i] = maxStringLen
		}
	}
	s, err := NewSchema(h.SchemaVersion, h.DataType, n, vec, str)
	if err != nil {
		return nil
	}
	return s
}

func addGoldenSeeds(f *testing.F, add func([]byte)) {
	for _, b := range goldenBlocks(f) {
		add(b)
	}
}

func FuzzParse(f *testing.F) {
	addGoldenSeeds(f, func(b []byte) { f.Add(b, uint8(3), uint8(2)) })
	f.Fuzz(func(t *testing.T, b []byte, nf, vl uint8) {
		blk, err := Parse(b, nil)
		if err == nil {
			exercise(t, blk)
			// Re-encoding an Int32 block must reproduce the input, except
			// for a stale padding nibble, which is read as 0 and written as 0.
			if blk.DataType() == TypeInt32 {
				v, _ := blk.AppendInt32s(nil)
				again, err := AppendInt32s(nil, blk.Header(), v)
				want := bytes.Clone(b)
				want[8] &^= boolPaddingMask
				if err != nil || !bytes.Equal(again, want) {
					t.Fatalf("int32 re-encode mismatch: %v", err)
				}
			}
			if blk.DataType() == TypeBool && len(b) == HeaderLen+len(blk.Data()) {
				v, _ := blk.AppendBools(nil)
				again, err := AppendBools(nil, blk.Header(), v)
				if err != nil || !bytes.Equal(again[:HeaderLen], b[:HeaderLen]) {
					t.Fatalf("bool re-encode header mismatch: %v", err)
				}
			}
		}
		if s := fuzzSchema(b, nf, vl); s != nil {
			if blk, err := Parse(b, s); err == nil {
				exercise(t, blk)
			}
		}
	})
}

// FuzzParseFastPath checks Parse (whose common cases take a fast path)
// against the general path, and ParseStrings against Parse+ReadStrings.
func FuzzParseFastPath(f *testing.F) {
	addGoldenSeeds(f, func(b []byte) { f.Add(b, uint8(3), uint8(2)) })
	f.Fuzz(func(t *testing.T, b []byte, nf, vl uint8) {
		for _, s := range []*Schema{nil, fuzzSchema(b, nf, vl)} {
			fast, errFast := Parse(b, s)
			slow, errSlow := parseSlow(b, s)
			if (errFast == nil) != (errSlow == nil) {
				t.Fatalf("fast path error %v, general path %v", errFast, errSlow)
			}
			if errFast == nil && (fast.Header() != slow.Header() || fast.count != slow.count || len(fast.data) != len(slow.data) || fast.schema != slow.schema) {
				t.Fatalf("fast path %+v, general path %+v", fast, slow)
			}
			var ps Strings
			pblk, errPS := ParseStrings(b, s, &ps)
			var rs Strings
			errRS := errSlow
			if errRS == nil {
				errRS = slow.ReadStrings(&rs)
			}
			if (errPS == nil) != (errRS == nil) {
				t.Fatalf("ParseStrings error %v, Parse+ReadStrings %v", errPS, errRS)
			}
			if errPS == nil && (pblk.Header() != slow.Header() || !slices.Equal(ps.Offsets(), rs.Offsets()) || !bytes.Equal(ps.Data(), rs.Data())) {
				t.Fatal("ParseStrings differs from Parse+ReadStrings")
			}
			if errPS != nil && ps.Len() != 0 {
				t.Fatal("ParseStrings left strings after an error")
			}
		}
	})
}

func FuzzCodecParse(f *testing.F) {
	c, err := NewCodec(WithMaxDecodedSize(1 << 20))
	if err != nil {
		f.Fatal(err)
	}
	defer c.Close()
	addGoldenSeeds(f, func(b []byte) {
		f.Add(b)
		big := bytes.Repeat(b[HeaderLen:], 64)
		if cb, err := c.Compress(append(b[:HeaderLen:HeaderLen], big...)); err == nil {
			f.Add(cb)
		}
	})
	f.Fuzz(func(t *testing.T, b []byte) {
		blk, err := c.Parse(b, nil)
		if err != nil {
			if errors.Is(err, ErrShortBlock) && len(b) >= HeaderLen {
				t.Fatal("ErrShortBlock for a long enough block")
			}
			return
		}
		exercise(t, blk)
		raw, err := c.AppendDecompressed(nil, b)
		if err != nil {
			t.Fatalf("AppendDecompressed failed after Parse succeeded: %v", err)
		}
		if blk2, err := Parse(raw, nil); err != nil || blk2.DataType() != blk.DataType() {
			t.Fatalf("decompressed block does not parse: %v", err)
		}
	})
}

func FuzzParseCache(f *testing.F) {
	for _, layout := range []uint8{CacheLayout1, CacheLayout2} {
		v, _ := AppendCache(nil, layout, []CacheEntry{{GroupID: 1, Block: []byte("abcdefghi")}, {GroupID: 2}})
		f.Add(v)
	}
	f.Add([]byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := ParseCache(b)
		if err != nil {
			return
		}
		var entries []CacheEntry
		for it.Next() {
			entries = append(entries, it.Entry())
		}
		// FindCacheEntry agrees with the iterator.
		for _, g := range []uint16{0, 1, 2} {
			e, ok, ferr := FindCacheEntry(b, g)
			var want CacheEntry
			found := false
			for _, x := range entries {
				if x.GroupID == g && !found {
					want, found = x, true
				}
			}
			if (ferr != nil) != (it.Err() != nil) || (it.Err() == nil && (ok != found || !bytes.Equal(e.Block, want.Block))) {
				t.Fatalf("FindCacheEntry(%d) = %v %v %v; iterator %v %v", g, e, ok, ferr, found, it.Err())
			}
			if ferr != nil && (ok || e.Block != nil) {
				t.Fatal("FindCacheEntry returned an entry with an error")
			}
		}
		if it.Err() != nil {
			return
		}
		// A value that parses cleanly re-encodes to the same bytes.
		again, err := AppendCache(nil, it.Layout(), entries)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("re-encode mismatch: %v", err)
		}
	})
}

func FuzzStringsRoundTrip(f *testing.F) {
	f.Add("a", "", "hello world", uint16(3))
	f.Fuzz(func(t *testing.T, a, b, c string, version uint16) {
		vals := []string{a, b, c}
		s, err := NewSchema(version, TypeString, 3, nil, []int{maxStringLen, maxStringLen, maxStringLen})
		if err != nil {
			t.Fatal(err)
		}
		blk, err := AppendStrings(nil, s.Header(0), s, vals)
		if err != nil {
			return
		}
		p, err := Parse(blk, s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.AppendStrings(nil)
		if err != nil || len(got) != 3 || got[0] != a || got[1] != b || got[2] != c {
			t.Fatalf("round trip: %q %v", got, err)
		}
	})
}
