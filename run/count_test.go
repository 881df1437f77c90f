package run

import (
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

func TestParseMetric(t *testing.T) {
	tests := []struct {
		in   string
		want Metric
		err  string
	}{
		{"", Metric{Time: true}, ""},
		{"time", Metric{Time: true}, ""},
		{"instructions", Metric{Instructions: true}, ""},
		{"time,instructions", Metric{Time: true, Instructions: true}, ""},
		{" instructions , time ", Metric{Time: true, Instructions: true}, ""},
		{"cycles", Metric{}, `unknown metric "cycles" (valid: time, instructions, time,instructions)`},
	}
	for _, tt := range tests {
		got, err := ParseMetric(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseMetric(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseMetric(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
		if back, _ := ParseMetric(got.String()); back != got {
			t.Errorf("%+v does not round-trip through %q", got, got.String())
		}
	}
}

// TestWithCounts: a timed case takes its counts from the counting child,
// or says why it has none.
func TestWithCounts(t *testing.T) {
	timed := func(subject string) results.Case {
		c := results.Case{Workload: "w", Name: "Op", Status: results.StatusOK, Labels: results.Labels{{Key: "subject", Value: subject}},
			Samples: []results.Sample{{Iters: 10, NsPerOp: 100}, {Iters: 10, NsPerOp: 101}}}
		c.Summarize()
		return c
	}
	counted := map[string]results.Case{
		"Op/subject=a": {Status: results.StatusOK, Counts: []results.Count{{Iters: 8, Instructions: 1000}, {Iters: 8, Instructions: 1001}}},
		"Op/subject=b": {Status: results.StatusFailed, Error: "verify: boom"},
	}
	a := withCounts(timed("a"), counted, false)
	if s, ok := a.Stat(results.UnitInstructions); !ok || s.Median != 1000.5 || a.Summary[results.UnitNsPerOp].N != 2 {
		t.Errorf("a: %+v", a.Summary)
	}
	if b := withCounts(timed("b"), counted, false); b.Counted() || !strings.Contains(b.CountNote, "under Valgrind the case failed: verify: boom") {
		t.Errorf("b: %q", b.CountNote)
	}
	if c := withCounts(timed("c"), counted, false); !strings.Contains(c.CountNote, "did not reach") {
		t.Errorf("c: %q", c.CountNote)
	}
	if r := withCounts(timed("java:x"), counted, true); r.CountNote != notCounted {
		t.Errorf("runner: %q", r.CountNote)
	}
}

// TestCountsFromSamples: a runner's samples under callgrind carry their
// loop's counts per op as metrics; they become the case's counts.
func TestCountsFromSamples(t *testing.T) {
	r := results.Case{Workload: "w", Name: "Op", Status: results.StatusOK, Samples: []results.Sample{
		{Iters: 4, NsPerOp: 100, Metrics: map[string]float64{"callgrind-ir": 1200, "callgrind-est-cycles": 1500}},
		{Iters: 4, NsPerOp: 100, Metrics: map[string]float64{"callgrind-ir": 1201, "callgrind-est-cycles": 1502}},
	}}
	got := countsFromSamples(r)
	if len(got.Counts) != 2 || got.Counts[1].Instructions != 1201 || got.Counts[0].EstCycles != 1500 || got.Counts[0].Iters != 4 {
		t.Errorf("counts %+v", got.Counts)
	}
	none := countsFromSamples(results.Case{Workload: "w", Name: "Op", Status: results.StatusOK, Samples: []results.Sample{{Iters: 1, NsPerOp: 5}}})
	if !none.Failed() || !strings.Contains(none.Error, "no counts") {
		t.Errorf("a runner that did not count: %s %q", none.Status, none.Error)
	}
	failed := results.Case{Status: results.StatusFailed, Error: "x"}
	if got := countsFromSamples(failed); got.Error != "x" {
		t.Errorf("a failed case changed: %+v", got)
	}
	if !countingRunner("rust") || countingRunner("jvm") || countingRunner("python") {
		t.Error("only the Rust runner counts")
	}
}
