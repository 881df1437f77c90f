package subject

import (
	"errors"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

func sample() []Subject[int, string] {
	return []Subject[int, string]{
		{Desc: results.Descriptor{Name: "a", Role: results.RoleBaseline, Settings: map[string]string{"reuse": "buffer"}, Tags: []string{"row"}},
			Bind: func(n int) (string, error) { return strings.Repeat("a", n), nil }},
		{Desc: results.Descriptor{Name: "b", Role: results.RoleSubject}, Takes: []string{"int32", "bool"},
			Bind: func(n int) (string, error) {
				if n < 0 {
					return "", errors.New("negative")
				}
				return "b", nil
			}},
	}
}

func TestAccepts(t *testing.T) {
	ss := sample()
	tests := []struct {
		subject int
		kind    string
		want    bool
	}{
		{0, "int32", true}, {0, "anything", true},
		{1, "int32", true}, {1, "bool", true}, {1, "string", false}, {1, "", false},
	}
	for _, tt := range tests {
		if got := ss[tt.subject].Accepts(tt.kind); got != tt.want {
			t.Errorf("%s.Accepts(%q) = %v, want %v", ss[tt.subject].Name(), tt.kind, got, tt.want)
		}
	}
}

func TestDescribeCopies(t *testing.T) {
	s := sample()[0]
	d := s.Describe("w")
	if d.Workload != "w" || d.Name != "a" || d.Role != results.RoleBaseline {
		t.Fatalf("Describe = %+v", d)
	}
	d.Settings["reuse"] = "none"
	d.Tags[0] = "columnar"
	if s.Desc.Settings["reuse"] != "buffer" || s.Desc.Tags[0] != "row" {
		t.Errorf("changing the description changed the subject: %+v", s.Desc)
	}
	if s.Desc.Workload != "" {
		t.Errorf("Describe set the subject's own workload: %q", s.Desc.Workload)
	}
}

func TestWith(t *testing.T) {
	s := sample()[1]
	broken := s.With(func(int) (string, error) { return "", errors.New("injected") })
	if _, err := broken.Bind(1); err == nil || err.Error() != "injected" {
		t.Errorf("With's Bind: %v", err)
	}
	if got, err := s.Bind(1); err != nil || got != "b" {
		t.Errorf("the original's Bind changed: %q, %v", got, err)
	}
	broken.Desc.Name = "b-broken"
	if s.Name() != "b" || broken.Accepts("string") {
		t.Errorf("With shares state: %q, accepts string %v", s.Name(), broken.Accepts("string"))
	}
}

func TestLookup(t *testing.T) {
	ss := sample()
	got, err := Lookup(ss, "b")
	if err != nil || got.Name() != "b" {
		t.Fatalf("Lookup(b) = %v, %v", got.Name(), err)
	}
	_, err = Lookup(ss, "c")
	if err == nil || !strings.Contains(err.Error(), `"c"`) || !strings.Contains(err.Error(), "valid: a, b") {
		t.Errorf("Lookup(c) error = %v, want the name and the valid names", err)
	}
	if n := Names(ss); strings.Join(n, ",") != "a,b" {
		t.Errorf("Names = %v", n)
	}
}
