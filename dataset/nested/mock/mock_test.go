package mock

import (
	"regexp"
	"testing"
)

func TestDeterministicAndShaped(t *testing.T) {
	var a, b Rand
	a.Seed(1, 42)
	b.Seed(1, 42)
	for range 100 {
		if a.URL(5) != b.URL(5) || a.GUID() != b.GUID() || a.Fixed(-90, 90, 6) != b.Fixed(-90, 90, 6) {
			t.Fatal("same seed and index, different values")
		}
	}
	var r Rand
	r.Seed(7, 0)
	guid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	mac := regexp.MustCompile(`^([0-9a-f]{2}:){5}[0-9a-f]{2}$`)
	ip := regexp.MustCompile(`^\d{1,3}(\.\d{1,3}){3}$`)
	for range 1000 {
		if g := r.GUID(); !guid.MatchString(g) {
			t.Fatalf("GUID %q", g)
		}
		if m := r.MAC(); !mac.MatchString(m) {
			t.Fatalf("MAC %q", m)
		}
		if s := r.IPv4(); !ip.MatchString(s) {
			t.Fatalf("IPv4 %q", s)
		}
		if f := r.Fixed(-180, 180, 6); f < -180 || f > 180 {
			t.Fatalf("Fixed %v out of range", f)
		}
		if v := r.Between(3, 5); v < 3 || v > 5 {
			t.Fatalf("Between %d", v)
		}
	}
	if got := Timestamp(1433161696); got != "2015-06-01T12:28:16Z" {
		t.Fatalf("Timestamp = %q", got)
	}
}
