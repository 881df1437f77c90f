package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

// countedRun is a run of two counted cases of one group, each counted
// five times; scale multiplies subject b's instructions, jitter spreads
// each case's counts by that fraction.
func countedRun(scale, jitter float64) *results.Run {
	mk := func(subject string, ins float64) results.Case {
		c := results.Case{Kind: results.KindCase, Workload: "w", Name: "Op", Group: "g", Status: results.StatusOK,
			Labels: results.Labels{{Key: "subject", Value: subject}, {Key: "op", Value: "encode"}}}
		for i := 0; i < 5; i++ {
			f := 1 + jitter*float64(i-2)/2
			c.Counts = append(c.Counts, results.Count{Iters: 1000, Instructions: ins * f, EstCycles: 1.4 * ins * f})
		}
		c.Summarize()
		return c
	}
	return &results.Run{Env: results.Env{Scale: "quick"}, Cases: []results.Case{mk("a", 10_000), mk("b", 20_000*scale)}}
}

// TestCompareCounts: two counted runs of one build (counts that differ
// by less than their own spread) flag nothing; 2% more instructions in one
// subject is a change, and the gate fails on it with one pair of runs.
func TestCompareCounts(t *testing.T) {
	opts := CompareOptions{Instructions: true, OnlyInstructions: true}
	tests := []struct {
		name        string
		old, new    *results.Run
		wantChanged int
		wantFail    bool
	}{
		{"same build", countedRun(1, 0.0005), countedRun(1, 0.0004), 0, false},
		{"identical", countedRun(1, 0), countedRun(1, 0), 0, false},
		{"b +2%", countedRun(1, 0.0005), countedRun(1.02, 0.0005), 2, true},
		{"b -2%", countedRun(1.02, 0.0005), countedRun(1, 0.0005), 2, false},
		{"b +0.5%", countedRun(1, 0), countedRun(1.005, 0), 0, false},
		{"b +1.2%, the A/A worst", countedRun(1, 0), countedRun(1.012, 0), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewComparison("old", "new", tt.old, tt.new, opts)
			changed, compared := c.Changes()
			if compared != 4 || changed != tt.wantChanged {
				t.Errorf("%d of %d rows changed, want %d of 4", changed, compared, tt.wantChanged)
			}
			for _, d := range c.Deltas {
				if !d.Counted || isTime(d.Unit) {
					t.Errorf("row %s %s: not a count row", d.Name, d.Unit)
				}
			}
			g := NewGate([]*Comparison{c})
			if g.Fails() != tt.wantFail {
				t.Errorf("gate fails %v, want %v (%+v)", g.Fails(), tt.wantFail, g)
			}
			var b bytes.Buffer
			if err := c.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "instructions/op") || !strings.Contains(b.String(), "(counts n=5+5)") {
				t.Errorf("text output:\n%s", b.String())
			}
		})
	}
	// Without --metric instructions, counts are not compared.
	if ds := Compare(countedRun(1, 0), countedRun(1.02, 0), CompareOptions{}); len(ds) != 0 {
		t.Errorf("%d rows compared without counts asked for (no time samples)", len(ds))
	}
}

// TestCountSection: a counted workload gets its section, with each case's
// ratio to the fewest instructions of its group and the reasons cases
// were not counted.
func TestCountSection(t *testing.T) {
	run := countedRun(1, 0)
	runner := results.Case{Workload: "w", Name: "Op", Status: results.StatusOK, Labels: results.Labels{{Key: "subject", Value: "java:x"}},
		Samples: []results.Sample{{Iters: 1, NsPerOp: 5}}, CountNote: "instructions not counted: a runner"}
	cases := []*results.Case{&run.Cases[0], &run.Cases[1], &runner}
	secs := countSection(cases)
	if len(secs) != 1 || secs[0].Title != "Instruction counts" {
		t.Fatalf("sections %+v", secs)
	}
	var md strings.Builder
	for _, b := range secs[0].Blocks {
		mdBlock(&md, b)
	}
	for _, want := range []string{"Op/subject=b/op=encode", "2.00×", "est. cycles/op", "instructions not counted: a runner"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("section lacks %q:\n%s", want, md.String())
		}
	}
	if countSection([]*results.Case{&runner}) == nil {
		t.Error("a note alone makes no section")
	}
	plain := results.Case{Workload: "w", Name: "Op", Status: results.StatusOK, Samples: []results.Sample{{Iters: 1, NsPerOp: 5}}}
	if countSection([]*results.Case{&plain}) != nil {
		t.Error("a section for a run that counted nothing")
	}
}

// TestVerdictsByCounts: with a counted limit row, a run whose counts are
// a reference's keeps every order and ratio; one whose subject b needs
// twice the instructions flips its order with a and leaves the ratios.
func TestVerdictsByCounts(t *testing.T) {
	withLimit := func(r *results.Run) *results.Run {
		l := results.Case{Kind: results.KindCase, Workload: "w", Name: "Op", Group: "g", Status: results.StatusOK, Role: results.RoleLimit,
			Labels: results.Labels{{Key: "subject", Value: "memcpy"}, {Key: "op", Value: "encode"}}}
		for i := 0; i < 5; i++ {
			l.Counts = append(l.Counts, results.Count{Iters: 1000, Instructions: 1000})
		}
		l.Summarize()
		r.Cases = append(r.Cases, l)
		return r
	}
	ref := withLimit(countedRun(1, 0.001))
	v := CheckVerdictsBy(ref, withLimit(countedRun(1, 0.0005)), results.UnitInstructions)
	if v.Pairs != 3 || v.Kept != 3 || v.Ratios != 2 || v.Inside != 2 || !v.Held() {
		t.Errorf("same counts: %+v", v)
	}
	// b at a quarter of its instructions: fewer than a's.
	bad := CheckVerdictsBy(ref, withLimit(countedRun(0.25, 0)), results.UnitInstructions)
	if bad.Held() || bad.Kept != 2 || bad.Inside != 1 {
		t.Errorf("b at a quarter: %+v", bad)
	}
	var b bytes.Buffer
	if err := WriteVerdictsBaseline(&b, bad, v); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "ordered pairs 3 of 3 (100.0%)") || !strings.Contains(b.String(), "ordered pairs 66.7%") {
		t.Errorf("baseline text:\n%s", b.String())
	}
}
