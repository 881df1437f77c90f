package psdb

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

func TestCacheRoundTrip(t *testing.T) {
	b1, _ := AppendInt32s(nil, Header{SchemaVersion: 1}, []int32{1, 2})
	b2, _ := AppendBools(nil, Header{SchemaVersion: 2}, []bool{true})
	entries := []CacheEntry{{GroupID: 10, Block: b1}, {GroupID: 11}, {GroupID: 65535, Block: b2}}
	for _, layout := range []uint8{CacheLayout1, CacheLayout2} {
		v, err := AppendCache(nil, layout, entries)
		if err != nil {
			t.Fatal(err)
		}
		it, err := ParseCache(v)
		if err != nil {
			t.Fatal(err)
		}
		if it.Layout() != layout {
			t.Fatal("layout")
		}
		var got []CacheEntry
		for it.Next() {
			got = append(got, it.Entry())
		}
		if it.Err() != nil || len(got) != len(entries) {
			t.Fatalf("layout %d: %v, %d entries", layout, it.Err(), len(got))
		}
		for i := range got {
			if got[i].GroupID != entries[i].GroupID || !bytes.Equal(got[i].Block, entries[i].Block) || got[i].Negative() != (len(entries[i].Block) == 0) {
				t.Fatalf("layout %d entry %d mismatch", layout, i)
			}
		}
		e, ok, err := FindCacheEntry(v, 65535)
		if err != nil || !ok || !bytes.Equal(e.Block, b2) {
			t.Fatalf("Find: %v %v", ok, err)
		}
		if _, ok, err := FindCacheEntry(v, 12); ok || err != nil {
			t.Fatalf("Find missing: %v %v", ok, err)
		}
	}
}

func TestCacheExactBytes(t *testing.T) {
	v, err := AppendCache(nil, CacheLayout1, []CacheEntry{{GroupID: 0x0102, Block: []byte{0xAA, 0xBB}}, {GroupID: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := hex.EncodeToString(v), "01"+"0201"+"0200"+"aabb"+"0300"+"0000"; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	v, _ = AppendCache(nil, CacheLayout2, []CacheEntry{{GroupID: 1, Block: []byte{0xCC}}})
	if got, want := hex.EncodeToString(v), "02"+"0100"+"01000000"+"cc"; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestCacheLargeBlock(t *testing.T) {
	big := make([]byte, 65536)
	if _, err := AppendCacheEntry(nil, CacheLayout1, 1, big); !errors.Is(err, ErrCacheBlockTooLarge) {
		t.Fatalf("layout 1 must refuse a 65,536-byte block: %v", err)
	}
	if _, err := AppendCacheEntry(nil, CacheLayout1, 1, big[:65535]); err != nil {
		t.Fatalf("65,535 bytes fits layout 1: %v", err)
	}
	v, err := AppendCache(nil, CacheLayout2, []CacheEntry{{GroupID: 1, Block: big}})
	if err != nil {
		t.Fatal(err)
	}
	e, ok, err := FindCacheEntry(v, 1)
	if err != nil || !ok || len(e.Block) != 65536 {
		t.Fatalf("layout 2 large block: %v %v %d", ok, err, len(e.Block))
	}
	if _, err := AppendCache(nil, CacheLayout1, []CacheEntry{{GroupID: 1, Block: big}}); !errors.Is(err, ErrCacheBlockTooLarge) {
		t.Fatal("AppendCache must propagate the size error")
	}
}

func TestCacheMalformed(t *testing.T) {
	tests := []struct {
		name string
		v    string
	}{
		{"empty", ""},
		{"layout 0", "00"},
		{"layout 3", "03"},
		{"truncated entry header", "01" + "0100" + "02"},
		{"one trailing byte", "01" + "0100" + "0000" + "ff"},
		{"block overruns", "01" + "0100" + "0300" + "aabb"},
		{"layout 2 huge length", "02" + "0100" + "ffffffff" + "aa"},
		// Damage after a matching entry: the match must not be returned.
		{"group 0 then truncated", "01" + "0000" + "0000" + "0100" + "05"},
		{"group 1 then overrun", "01" + "0100" + "0100" + "aa" + "0000" + "0900" + "bb"},
		{"zero bytes then junk", "01" + "0000" + "0000" + "0000" + "0000" + "ff"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := hex.DecodeString(tc.v)
			it, err := ParseCache(v)
			if err == nil {
				for it.Next() {
				}
				err = it.Err()
			}
			if !errors.Is(err, ErrMalformedCache) {
				t.Fatalf("err = %v", err)
			}
			for _, g := range []uint16{0, 1} {
				if e, ok, err := FindCacheEntry(v, g); !errors.Is(err, ErrMalformedCache) || ok || e.Block != nil {
					t.Fatalf("FindCacheEntry(%d) = %v, %v, %v", g, e, ok, err)
				}
			}
		})
	}
	if _, err := AppendCacheHeader(nil, 9); !errors.Is(err, ErrMalformedCache) {
		t.Fatal("unknown layout accepted")
	}
}
