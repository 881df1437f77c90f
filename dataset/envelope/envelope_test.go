package envelope

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(letters, rune(s[i])) {
			return false
		}
	}
	return true
}

func isAlphanumeric(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(alphanumeric, rune(s[i])) {
			return false
		}
	}
	return true
}

// checkValues checks the value rules of the workload spec.
func checkValues(t *testing.T, e *Envelope, size int) {
	t.Helper()
	for name, id := range map[string]string{"id": e.ID, "topic_id": e.TopicID, "publisher_id": e.Publisher.PublisherID} {
		u, err := ParseULID(id)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !u.Time().Equal(ULIDTime()) {
			t.Errorf("%s: ULID time %v, want %v", name, u.Time(), ULIDTime())
		}
	}
	if e.Mimetype >= 90 {
		t.Errorf("mimetype %d >= 90", e.Mimetype)
	}
	if len(e.Type.Name) != 8 || !isLetters(e.Type.Name) {
		t.Errorf("type name %q: want 8 letters", e.Type.Name)
	}
	if e.Type.MajorVersion >= 6 || e.Type.MinorVersion >= 44 || e.Type.PatchVersion >= 10 {
		t.Errorf("type version %d.%d.%d out of range", e.Type.MajorVersion, e.Type.MinorVersion, e.Type.PatchVersion)
	}
	if len(e.Key) != 20 {
		t.Errorf("key: %d bytes, want 20", len(e.Key))
	}
	if len(e.Data) != size {
		t.Errorf("data: %d bytes, want %d", len(e.Data), size)
	}
	if len(e.Encryption.KeyID) != 32 || !isLetters(e.Encryption.KeyID) {
		t.Errorf("key id %q: want 32 letters", e.Encryption.KeyID)
	}
	if len(e.Encryption.EncryptionKey) != 32 || len(e.Encryption.HMACSecret) != 32 || len(e.Encryption.Signature) != 128 {
		t.Errorf("encryption sizes %d/%d/%d, want 32/32/128", len(e.Encryption.EncryptionKey), len(e.Encryption.HMACSecret), len(e.Encryption.Signature))
	}
	r := e.Geography
	if len(r.Region) != 12 || r.Region[:3] != r.Country+"-" || !isLetters(r.Country) || !isLetters(r.Region[3:]) || len(r.Zone) != 1 {
		t.Errorf("region %+v: want CC-<9 letters>, country CC, 1-letter zone", r)
	}
	if a, err := netip.ParseAddr(e.Publisher.IPAddr); err != nil || !a.Is4() {
		t.Errorf("ipaddr %q: not IPv4 text (%v)", e.Publisher.IPAddr, err)
	}
	if len(e.Publisher.ClientID) != 12 || !isLetters(e.Publisher.ClientID) {
		t.Errorf("client id %q: want 12 letters", e.Publisher.ClientID)
	}
	if len(e.Publisher.UserAgent) != 9 || !isLetters(e.Publisher.UserAgent) {
		t.Errorf("user agent %q: want 9 letters", e.Publisher.UserAgent)
	}
	if len(e.UserDefinedID) != 14 || !isAlphanumeric(e.UserDefinedID) {
		t.Errorf("user defined id %q: want 14 alphanumerics", e.UserDefinedID)
	}
	if !e.Created.Equal(CreatedTime()) || !e.Committed.Equal(CommittedTime()) {
		t.Errorf("timestamps %v, %v not the fixed ones", e.Created, e.Committed)
	}
}

func TestNewValues(t *testing.T) {
	for _, tc := range []struct {
		seed uint64
		size int
	}{{0, 0}, {1, 8}, {2, Tiny}, {3, Tiny + 3}, {42, Medium}, {7, XLarge}} {
		e, err := New(tc.seed, tc.size)
		if err != nil {
			t.Fatalf("New(%d, %d): %v", tc.seed, tc.size, err)
		}
		checkValues(t, e, tc.size)
	}
}

func TestNewDeterministic(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		a, err := New(seed, 100)
		if err != nil {
			t.Fatal(err)
		}
		b, err := New(seed, 100)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Compare(b); err != nil {
			t.Errorf("seed %d: two generations differ: %v", seed, err)
		}
		c, err := New(seed+1, 100)
		if err != nil {
			t.Fatal(err)
		}
		if a.Compare(c) == nil || a.ID == c.ID || bytes.Equal(a.Data, c.Data) {
			t.Errorf("seeds %d and %d give the same envelope", seed, seed+1)
		}
	}
}

// TestNewGolden pins the generated values, so that every machine and Go
// version produces the same dataset.
func TestNewGolden(t *testing.T) {
	e, err := New(1, Tiny)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(e.Data)
	got := strings.Join([]string{e.ID, e.TopicID, e.Type.Name, e.Geography.Region, e.Publisher.PublisherID,
		e.Publisher.IPAddr, e.UserDefinedID, hex.EncodeToString(sum[:8])}, " ")
	const want = "01GZH3RKT0WVH1FEB1ZVKRT38M 01GZH3RKT0PG4SCHJPFCXEEND0 JRtqSPbq WL-hwzGelJWp 01GZH3RKT0F4XVWPSS25N9PT00 123.162.45.229 OCj4KIl9Ityzuw 2874a940b146caa8"
	if got != want {
		t.Errorf("New(1, Tiny) = %s\nwant           %s", got, want)
	}
}

func TestNewRejectsBadSize(t *testing.T) {
	for _, size := range []int{-1, MaxPayload + 1} {
		if _, err := New(1, size); err == nil {
			t.Errorf("New(1, %d): no error", size)
		}
	}
}

func TestSizes(t *testing.T) {
	named := NamedSizes()
	want := []Size{{"Tiny", 1024}, {"XSmall", 4096}, {"Small", 8192}, {"Medium", 32768}, {"Large", 1468000}, {"XLarge", 5243000}}
	if len(named) != len(want) {
		t.Fatalf("NamedSizes: %d sizes, want %d", len(named), len(want))
	}
	for i := range want {
		if named[i] != want[i] {
			t.Errorf("NamedSizes[%d] = %+v, want %+v", i, named[i], want[i])
		}
	}
	sweep := SweepSizes()
	if len(sweep) != 20 || sweep[0] != (Size{"8B", 8}) || sweep[7] != (Size{"1KiB", 1024}) || sweep[19] != (Size{"4MiB", 4 << 20}) {
		t.Errorf("SweepSizes = %+v", sweep)
	}
	for i := 1; i < len(sweep); i++ {
		if sweep[i].Bytes != 2*sweep[i-1].Bytes {
			t.Errorf("sweep[%d] = %d, not twice %d", i, sweep[i].Bytes, sweep[i-1].Bytes)
		}
	}
}

func TestCompareReportsField(t *testing.T) {
	base, err := New(5, 16)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field  string
		mutate func(*Envelope)
	}{
		{"id", func(e *Envelope) { e.ID = "x" }},
		{"data", func(e *Envelope) { e.Data = append([]byte(nil), e.Data...); e.Data[3] ^= 1 }},
		{"type.minor_version", func(e *Envelope) { e.Type.MinorVersion++ }},
		{"encryption.signature", func(e *Envelope) { e.Encryption.Signature = nil }},
		{"geography.zone", func(e *Envelope) { e.Geography.Zone = "?" }},
		{"publisher.ipaddr", func(e *Envelope) { e.Publisher.IPAddr = "" }},
		{"committed", func(e *Envelope) { e.Committed = e.Committed.Add(time.Nanosecond) }},
	} {
		c := *base
		tc.mutate(&c)
		err := base.Compare(&c)
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s changed: Compare = %v", tc.field, err)
		}
	}
	same := *base
	same.Created = base.Created.In(time.FixedZone("X", 3600))
	if err := base.Compare(&same); err != nil {
		t.Errorf("same instant in another zone: %v", err)
	}
}
