package table

import (
	"slices"
	"testing"

	"github.com/serbench/serbench/results"
)

// labelled is caseWith(ns...) with subject s (no samples: no time).
func labelled(s string, ns ...float64) *results.Case {
	c := caseWith(ns...)
	c.Labels = results.Labels{{Key: "subject", Value: s}, {Key: "op", Value: "read"}}
	return c
}

func TestFindingHelpers(t *testing.T) {
	fast, slow, tie, none := labelled("fast", 10, 11, 9), labelled("slow", 30, 31, 29), labelled("tie", 10, 11, 9), labelled("none")
	failed := labelled("failed", 1, 1, 1)
	failed.Status = results.StatusFailed
	skipped := labelled("skipped")
	skipped.Status = results.StatusSkipped
	subjects := func(cs []*results.Case) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Labels.Get("subject"))
		}
		return out
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"Fastest skips nil and failed, first of equals", Fastest(nil, slow, failed, fast, tie), fast},
		{"Fastest of nothing", Fastest(nil, failed), (*results.Case)(nil)},
		{"Least by a key (slowest)", Least([]*results.Case{fast, slow, tie}, func(c *results.Case) float64 { return -Ns(c) }), slow},
		{"Timed keeps order", subjects(Timed([]*results.Case{slow, none, failed, fast})), []string{"slow", "fast"}},
		{"ByTime sorts stably", subjects(ByTime([]*results.Case{slow, tie, none, fast})), []string{"tie", "fast", "slow"}},
		{"FailedCases leaves skipped out", subjects(FailedCases([]*results.Case{fast, failed, skipped})), []string{"failed"}},
		{"Across, nil where absent", subjects(slices.DeleteFunc(NewIndex([]*results.Case{fast, slow}, "subject", "op").Across([]string{"slow", "x", "fast"}, "read"),
			func(c *results.Case) bool { return c == nil })), []string{"slow", "fast"}},
		{"Across length", len(NewIndex(nil, "subject", "op").Across([]string{"a", "b"}, "read")), 2},
		{"IntLabel", IntLabel("100000") + " " + IntLabel("x"), "100,000 0"},
		{"Claim words", Held.String() + " " + NotHeld.String() + " " + Inconclusive.String(), "**held** **not held** inconclusive"},
		{"Met", Met(true) + " " + Met(false), "met **not met**"},
		{"LargestFirst under the cap", LargestFirst([]Ranked{{"a", 1}, {"b", 2}}, 2, "%d more"), []string{"b", "a"}},
		{"LargestFirst over the cap, equals in order", LargestFirst([]Ranked{{"a", 1}, {"b", 3}, {"c", 3}, {"d", 2}}, 2, "%d more"), []string{"b", "c", "2 more"}},
		{"LargestFirst of nothing", LargestFirst(nil, 2, "%d more"), []string(nil)},
	}
	for _, tt := range tests {
		if !equal(tt.got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func equal(a, b any) bool {
	if as, ok := a.([]string); ok {
		bs, _ := b.([]string)
		return slices.Equal(as, bs)
	}
	return a == b
}

func TestTaggedAndFirst(t *testing.T) {
	run := fixture()
	run.Descriptors = []results.Descriptor{{Workload: "w", Key: "subject", Name: "fast", Tags: []string{"codegen", "peer"}},
		{Workload: "w", Key: "subject", Name: "slow", Tags: []string{"peer"}}, {Workload: "v", Key: "subject", Name: "copy", Tags: []string{"peer"}}}
	if got := Tagged(run, "w", "subject", "peer"); !slices.Equal(got, []string{"fast", "slow"}) {
		t.Errorf("Tagged = %v", got)
	}
	if got := Tagged(run, "w", "subject", "none"); got != nil {
		t.Errorf("Tagged of an absent tag = %v", got)
	}
	var cases []*results.Case
	for i := range run.Cases {
		cases = append(cases, &run.Cases[i])
	}
	spec := &Spec{Caption: "{op}", Split: []string{"op"}, Rows: []string{"subject"}, Columns: []Column{{Head: "time", Show: "time"}}}
	if got := spec.First(cases); got == nil || got.Caption != "encode" {
		t.Errorf("First = %+v, want the encode table", got)
	}
	if got := spec.First(nil); got != nil {
		t.Errorf("First of no cases = %+v", got)
	}
}
