package envelopefmt

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	ds "github.com/serbench/serbench/dataset/envelope"
	"github.com/serbench/serbench/results"
)

func prepareAll(t testing.TB, e *ds.Envelope) map[string]Prepared {
	t.Helper()
	out := map[string]Prepared{}
	for _, s := range Subjects() {
		p, err := s.Bind(e)
		if err != nil {
			t.Fatalf("%s: Bind: %v", s.Name(), err)
		}
		out[s.Name()] = p
	}
	return out
}

func TestSubjectNamesAndDescriptions(t *testing.T) {
	want := []string{"protobuf-flat", "protobuf-wrapped", "vtprotobuf-flat", "vtprotobuf-wrapped",
		"flatbuffers-flat", "msgp-flat", "msgp-wrapped"}
	subjects := Subjects()
	if len(subjects) != len(want) {
		t.Fatalf("%d subjects, want %d", len(subjects), len(want))
	}
	for i, s := range subjects {
		if s.Name() != want[i] {
			t.Errorf("subject %d = %s, want %s", i, s.Name(), want[i])
		}
		d := s.Desc
		if d.Key != "subject" || d.What == "" || d.Module == "" || d.Version == "" || HeaderRead(s) == "" {
			t.Errorf("%s: key, what, module, version or header read missing: %+v", s.Name(), d)
		}
		wantRole := results.RoleSubject
		if s.Name() == "protobuf-flat" {
			wantRole = results.RoleBaseline // the seed's message
		}
		if d.Role != wantRole {
			t.Errorf("%s: role %q, want %q", s.Name(), d.Role, wantRole)
		}
		for _, k := range []string{"layout", "codegen", "unmarshal", "marshal_reuse", "header_strings", "validated"} {
			if d.Settings[k] == "" {
				t.Errorf("%s: setting %q missing", s.Name(), k)
			}
		}
		if !strings.HasSuffix(s.Name(), "-"+d.Settings["layout"]) {
			t.Errorf("%s: layout setting %q does not match the name", s.Name(), d.Settings["layout"])
		}
		d.Settings["codegen"] = "changed"
		if Subjects()[i].Desc.Settings["codegen"] == "changed" {
			t.Errorf("%s: subjects share their settings map", s.Name())
		}
		got, err := Lookup(s.Name())
		if err != nil || got.Name() != s.Name() {
			t.Errorf("Lookup(%s) = %v, %v", s.Name(), got.Name(), err)
		}
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "protobuf-flat") {
		t.Errorf("Lookup(nope) = %v, want an error listing the valid names", err)
	}
	for _, s := range subjects {
		if _, err := s.Bind(nil); err == nil {
			t.Errorf("%s: Bind(nil): no error", s.Name())
		}
	}
}

// TestSubjectsVerify is the round-trip property: for envelopes of many seeds
// and sizes, every subject's marshal output decodes to the source and its
// header read returns the source header.
func TestSubjectsVerify(t *testing.T) {
	sizes := []int{0, 1, 8, 127, 128, ds.Tiny, ds.Small + 5, ds.Medium, ds.Large}
	for i, size := range sizes {
		for seed := uint64(0); seed < 3; seed++ {
			e, err := ds.New(seed*101+uint64(i), size)
			if err != nil {
				t.Fatal(err)
			}
			for name, p := range prepareAll(t, e) {
				if err := p.Verify(); err != nil {
					t.Errorf("size %d seed %d: %s: %v", size, seed, name, err)
				}
			}
		}
	}
}

// TestSubjectsEmptyEnvelope covers an envelope whose every field is empty:
// absent fields must decode as empty ones.
func TestSubjectsEmptyEnvelope(t *testing.T) {
	e := &ds.Envelope{Created: ds.CreatedTime(), Committed: ds.CommittedTime()}
	for name, p := range prepareAll(t, e) {
		if err := p.Verify(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestVerifyDetectsCorruption checks that Verify can fail: a Prepared whose
// source no longer matches what it marshals is reported.
func TestVerifyDetectsCorruption(t *testing.T) {
	e, err := ds.New(9, 64)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range prepareAll(t, e) {
		e.Publisher.ClientID = "someone-else"
		if err := p.Verify(); err == nil {
			t.Errorf("%s: Verify passed with a changed source", name)
		}
		e.Publisher.ClientID = "restored"
	}
}

func TestReadHeaderMatchesSource(t *testing.T) {
	e, err := ds.New(3, ds.Small)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range prepareAll(t, e) {
		h, err := p.ReadHeader(p.Encoded())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := e.Header().Compare(h); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestMarshalReuseDoesNotAllocate checks that the reuse variant writes into
// its buffer once it has grown (FlatBuffers' builder included).
func TestMarshalReuseDoesNotAllocate(t *testing.T) {
	e, err := ds.New(4, ds.Small)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range prepareAll(t, e) {
		if _, err := p.MarshalReuse(); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(20, func() {
			if _, err := p.MarshalReuse(); err != nil {
				t.Fatal(err)
			}
		})
		// proto.MarshalAppend and msgp may allocate nothing; vtprotobuf
		// nothing; FlatBuffers nothing after Reset.
		if allocs > 0 {
			t.Errorf("%s: MarshalReuse: %.1f allocs/op, want 0", name, allocs)
		}
	}
}

// TestHeaderAllocs checks the allocation budget of the header-only readers
// that do not decode the outer message: 0-2 allocs/op.
func TestHeaderAllocs(t *testing.T) {
	e, err := ds.New(4, ds.Medium)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range prepareAll(t, e) {
		if strings.HasPrefix(name, "protobuf-wrapped") || strings.HasPrefix(name, "vtprotobuf-wrapped") {
			continue // decodes the outer message by design
		}
		data := p.Encoded()
		allocs := testing.AllocsPerRun(50, func() {
			if _, err := p.ReadHeader(data); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 2 {
			t.Errorf("%s: ReadHeader: %.1f allocs/op, want <= 2", name, allocs)
		}
	}
}

// TestBadInput feeds truncated and corrupted encodings to every Unmarshal
// and ReadHeader: none may panic, and cuts through the payload or the header
// strings must be errors.
func TestBadInput(t *testing.T) {
	e, err := ds.New(11, 300)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range prepareAll(t, e) {
		enc := p.Encoded()
		payloadAt := bytes.Index(enc, e.Data)
		idAt := bytes.Index(enc, []byte(e.ID))
		userAgentAt := bytes.Index(enc, []byte(e.Publisher.UserAgent))
		if payloadAt < 0 || idAt < 0 || userAgentAt < 0 {
			t.Fatalf("%s: payload, id or user agent not found in encoding", name)
		}
		mustFail := map[int]string{
			payloadAt + len(e.Data)/2: "inside the payload",
			idAt + 5:                  "inside the id",
			userAgentAt + 4:           "inside the user agent",
			0:                         "empty input",
		}
		// msgp has no valid strict prefix; a FlatBuffer may lose only its
		// trailing zero padding.
		strictEnd := 0
		switch {
		case strings.HasPrefix(name, "msgp/"):
			strictEnd = len(enc)
		case strings.HasPrefix(name, "flatbuffers/"):
			strictEnd = lastNonZero(enc) + 1
		}
		for n := 0; n < len(enc); n++ {
			strict := n < strictEnd
			cut := enc[:n:n]
			uerr := p.Unmarshal(cut)
			_, herr := p.ReadHeader(cut)
			why, ok := mustFail[n]
			if strict && !ok {
				ok, why = true, "a strict prefix (this format has no valid prefix)"
			}
			if ok && n > 0 && uerr == nil {
				t.Errorf("%s: Unmarshal of a cut %s (%d of %d bytes): no error", name, why, n, len(enc))
			}
			// An empty protobuf message is valid; a header cut elsewhere
			// must fail for every format.
			if ok && (n > 0 || strict) && herr == nil && why != "inside the payload" {
				t.Errorf("%s: ReadHeader of a cut %s (%d of %d bytes): no error", name, why, n, len(enc))
			}
		}
		// Random corruption: any outcome but a panic is acceptable.
		rng := rand.New(rand.NewPCG(uint64(len(name)), 7))
		for i := 0; i < 2000; i++ {
			bad := append([]byte(nil), enc...)
			for j := 0; j < 1+rng.IntN(4); j++ {
				bad[rng.IntN(len(bad))] = byte(rng.Uint32())
			}
			_ = p.Unmarshal(bad)
			_, _ = p.ReadHeader(bad)
		}
	}
}

// TestBadInputTargeted corrupts the structures each format relies on.
func TestBadInputTargeted(t *testing.T) {
	e, err := ds.New(12, 64)
	if err != nil {
		t.Fatal(err)
	}
	ps := prepareAll(t, e)
	huge := binary.AppendUvarint([]byte{0x4a}, 1<<40) // field 9, length 2^40
	cases := []struct {
		subject string
		name    string
		data    []byte
	}{
		{"protobuf-flat", "geography length beyond input", huge},
		{"protobuf-flat", "invalid UTF-8 id", []byte{0x0a, 0x02, 0xff, 0xfe}},
		{"protobuf-flat", "invalid UTF-8 region", []byte{0x4a, 0x04, 0x0a, 0x02, 0xc3, 0x28}},
		{"protobuf-flat", "field number 0", []byte{0x02, 0x00}},
		{"protobuf-flat", "unterminated varint", []byte{0x18, 0xff, 0xff}},
		{"protobuf-flat", "end group without start", []byte{0x0c}},
		{"vtprotobuf-flat", "geography length beyond input", huge},
		{"protobuf-wrapped", "inner length beyond input", []byte{0x32, 0x7f, 0x00}},
		{"vtprotobuf-wrapped", "inner length beyond input", []byte{0x32, 0x7f, 0x00}},
		{"flatbuffers-flat", "root offset beyond input", []byte{0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0}},
		{"flatbuffers-flat", "too short", []byte{1, 0}},
		{"flatbuffers-flat", "vtable before buffer", []byte{4, 0, 0, 0, 0x10, 0, 0, 0}},
		{"msgp-flat", "map claims more entries", []byte{0x8f, 0xa2, 'i', 'd', 0xa1, 'x'}},
		{"msgp-flat", "not a map", []byte{0x93, 1, 2, 3}},
		{"msgp-wrapped", "id not a string", []byte{0x81, 0xa2, 'i', 'd', 0x05}},
		{"msgp-wrapped", "trailing bytes", append(append([]byte(nil), ps["msgp-wrapped"].Encoded()...), 0xc0)},
	}
	for _, tc := range cases {
		p := ps[tc.subject]
		if err := p.Unmarshal(tc.data); err == nil {
			t.Errorf("%s: Unmarshal of %s: no error", tc.subject, tc.name)
		}
		if _, err := p.ReadHeader(tc.data); err == nil {
			t.Errorf("%s: ReadHeader of %s: no error", tc.subject, tc.name)
		}
	}
}

// lastNonZero returns the index of the last non-zero byte of b, or -1.
func lastNonZero(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != 0 {
			return i
		}
	}
	return -1
}
