package subject

import (
	"slices"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	if err := Add(r, "w", sample()...); err != nil {
		t.Fatal(err)
	}
	extra := Subject[int, string]{Desc: results.Descriptor{Name: "mine"}, Bind: func(int) (string, error) { return "mine", nil }}
	if err := Add(r, "w", extra); err != nil {
		t.Fatal(err)
	}
	if err := Add(r, "other", Subject[string, int]{Desc: results.Descriptor{Name: "x"}, Bind: func(string) (int, error) { return 1, nil }}); err != nil {
		t.Fatal(err)
	}
	if got, want := r.Names("w"), []string{"a", "b", "mine"}; !slices.Equal(got, want) {
		t.Errorf("Names(w) = %v, want %v", got, want)
	}
	if got, want := r.Workloads(), []string{"w", "other"}; !slices.Equal(got, want) {
		t.Errorf("Workloads = %v, want %v", got, want)
	}
	ss, err := For[int, string](r, "w")
	if err != nil || len(ss) != 3 {
		t.Fatalf("For(w) = %d subjects, %v", len(ss), err)
	}
	if ops, err := ss[2].Bind(0); err != nil || ops != "mine" {
		t.Errorf("the added subject binds to %q, %v", ops, err)
	}
	ss[0] = extra // a copy: the registry keeps its own
	if got := r.Names("w")[0]; got != "a" {
		t.Errorf("For returned the registry's own slice: first is now %s", got)
	}
	if ss, err := For[int, string](r, "none"); err != nil || ss != nil {
		t.Errorf("For(none) = %v, %v; want nothing", ss, err)
	}

	tests := []struct {
		name string
		add  func() error
		want string
	}{
		{"duplicate", func() error { return Add(r, "w", extra) }, "already has a subject named mine"},
		{"no name", func() error { return Add(r, "w", Subject[int, string]{Bind: extra.Bind}) }, "needs a name"},
		{"no bind", func() error { return Add(r, "w", Subject[int, string]{Desc: results.Descriptor{Name: "z"}}) }, "has no Bind"},
		{"no workload", func() error { return Add(r, "", extra) }, "workload name"},
		{"other shape", func() error {
			return Add(r, "w", Subject[string, int]{Desc: results.Descriptor{Name: "y"}, Bind: func(string) (int, error) { return 0, nil }})
		}, "w's subjects are subject.Subject[int,string]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.add()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
			if got := r.Names("w"); len(got) != 3 {
				t.Errorf("a refused Add registered something: %v", got)
			}
		})
	}
	if _, err := For[string, int](r, "w"); err == nil || !strings.Contains(err.Error(), "not subject.Subject[string,int]") {
		t.Errorf("For of another shape: %v", err)
	}
}
