package envelope

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestULIDKnownVector(t *testing.T) {
	// The ULID specification's example time, 1469918176385 ms, encodes as
	// 01ARYZ6S41.
	u := NewULID(time.UnixMilli(1469918176385), [10]byte{})
	if got, want := u.String(), "01ARYZ6S410000000000000000"; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
	var max ULID
	for i := range max {
		max[i] = 0xff
	}
	if got, want := max.String(), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"; got != want {
		t.Errorf("max String = %s, want %s", got, want)
	}
}

func TestULIDRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		var u ULID
		for j := range u {
			u[j] = byte(rng.Uint32())
		}
		s := u.String()
		if len(s) != 26 {
			t.Fatalf("%x: String length %d", u, len(s))
		}
		back, err := ParseULID(s)
		if err != nil {
			t.Fatalf("ParseULID(%s): %v", s, err)
		}
		if back != u {
			t.Fatalf("round trip %x -> %s -> %x", u, s, back)
		}
	}
	// Lexicographic order of the text follows time order.
	a := NewULID(time.UnixMilli(1000), [10]byte{9}).String()
	b := NewULID(time.UnixMilli(1001), [10]byte{}).String()
	if a >= b {
		t.Errorf("%s >= %s", a, b)
	}
}

func TestParseULIDErrors(t *testing.T) {
	for _, s := range []string{
		"",
		"01ARYZ6S41000000000000000",   // 25 characters
		"01ARYZ6S4100000000000000000", // 27 characters
		"01ARYZ6S41000000000000000U",  // U is not in the alphabet
		"01ARYZ6S41000000000000000!",
		"80000000000000000000000000", // overflows 128 bits
	} {
		if _, err := ParseULID(s); err == nil {
			t.Errorf("ParseULID(%q): no error", s)
		}
	}
	if _, err := ParseULID("01aryz6s410000000000000000"); err != nil {
		t.Errorf("lower case: %v", err)
	}
}
