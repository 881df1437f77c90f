package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

// syntheticRun is one run of a build measured in one process per case:
// subjects × sizes cases, each with its own time, a shift of its process
// drawn from a log-normal of sigma procSigma (what the heap layout and
// the CPU's state do to a process) and samples spread by sampleSigma
// within it. slow multiplies the named subject's times.
func syntheticRun(rng *rand.Rand, procSigma, sampleSigma float64, slowSubject string, slow float64) *results.Run {
	run := &results.Run{}
	for s := range 6 {
		subject := fmt.Sprintf("s%d", s)
		for size := range 12 {
			base := 1000 * float64(s+1) * math.Pow(2, float64(size))
			if subject == slowSubject {
				base *= slow
			}
			shift := math.Exp(procSigma * rng.NormFloat64())
			c := results.Case{Workload: "w", Name: "W", Status: results.StatusOK, Role: results.RoleSubject,
				Labels: results.Labels{{Key: "subject", Value: subject}, {Key: "size", Value: fmt.Sprint(size)}}}
			for range 20 {
				c.Samples = append(c.Samples, results.Sample{Iters: 1, NsPerOp: base * shift * math.Exp(sampleSigma*rng.NormFloat64())})
			}
			c.Summarize()
			run.Cases = append(run.Cases, c)
		}
	}
	return run
}

// TestGateAA is the regression gate's promise: two runs of the same build
// pass it, with at most 1% of rows flagged, though their processes differ
// by far more than their samples' tests can see; a 10% slowdown of one
// subject fails it, as that subject's shift, and nothing else does.
func TestGateAA(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 38))
		// A/A on a quiet machine (processes within 1% of each other) and
		// on a noisy one (4%: a threshold of 5% alone flags rows).
		oldRule := 0
		for _, sigma := range []float64{0.01, 0.04} {
			a := syntheticRun(rng, sigma, 0.01, "", 1)
			b := syntheticRun(rng, sigma, 0.01, "", 1)
			c := NewComparison("a", "b", a, b, CompareOptions{})
			changed, compared := c.Changes()
			g := NewGate([]*Comparison{c})
			if g.Fails() || float64(changed) > 0.01*float64(compared) {
				t.Errorf("seed %d, σ %g: A/A: gate fails %v (%+v), %d of %d rows changed; want none (%s)", seed, sigma, g.Fails(), g.Shifts, changed, compared, c.Noise.Rule(c.Threshold))
			}
			for _, d := range c.Deltas {
				if isTime(d.Unit) && d.Significant && d.Change >= c.Threshold {
					oldRule++
				}
			}
		}
		// The fixture exercises the floor: significance and the threshold
		// alone would have failed these A/A runs.
		if oldRule == 0 {
			t.Errorf("seed %d: no A/A row is significant past the threshold; the fixture does not exercise the floor", seed)
		}
		a := syntheticRun(rng, 0.01, 0.01, "", 1)
		slowed := syntheticRun(rng, 0.01, 0.01, "s3", 1.10)
		c := NewComparison("a", "slowed", a, slowed, CompareOptions{})
		g := NewGate([]*Comparison{c})
		if len(g.Shifts) != 1 || g.Shifts[0].Stratum != "w/s3/" || !g.Fails() {
			t.Errorf("seed %d: a 10%% slowdown of s3: gate shifts %+v, want w/s3/ alone", seed, g.Shifts)
		}
		for _, d := range c.Deltas {
			if c.Regression(d) && d.Old.Labels.Get("subject") != "s3" {
				t.Errorf("seed %d: %s flagged, only s3 was slowed", seed, d.Name)
			}
		}
		for _, r := range append(g.Rows, g.Suspected...) {
			if !strings.Contains(r.Case, "s3") {
				t.Errorf("seed %d: %s in the gate, only s3 was slowed", seed, r.Case)
			}
		}
	}
}

// TestGateLoneRow: one row slower by 30% in one pair of runs is suspected,
// not failed; slower in both of two pairs it fails the gate; slower in one
// of two it stays suspected.
func TestGateLoneRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 38))
	slowOne := func(r *results.Run, by float64) *results.Run {
		c := &r.Cases[5]
		for i := range c.Samples {
			c.Samples[i].NsPerOp *= by
		}
		c.Summarize()
		return r
	}
	lone := r5name(syntheticRun(rng, 0.01, 0.01, "", 1))
	pair := func(slow float64) *Comparison {
		return NewComparison("a", "b", syntheticRun(rng, 0.01, 0.01, "", 1), slowOne(syntheticRun(rng, 0.01, 0.01, "", 1), slow), CompareOptions{})
	}
	for _, tc := range []struct {
		name      string
		slows     []float64
		fails     bool
		suspected int
	}{
		{"one pair", []float64{1.3}, false, 1},
		{"two pairs, both slower", []float64{1.3, 1.3}, true, 0},
		{"two pairs, one slower", []float64{1.3, 1}, false, 1},
		{"two pairs, neither", []float64{1, 1}, false, 0},
	} {
		var cs []*Comparison
		for _, s := range tc.slows {
			cs = append(cs, pair(s))
		}
		g := NewGate(cs)
		if g.Fails() != tc.fails || len(g.Suspected) != tc.suspected {
			t.Errorf("%s: fails %v (rows %+v), %d suspected; want %v, %d", tc.name, g.Fails(), g.Rows, len(g.Suspected), tc.fails, tc.suspected)
		}
		for _, r := range append(g.Rows, g.Suspected...) {
			if r.Case != lone {
				t.Errorf("%s: %s in the gate, only %s was slowed", tc.name, r.Case, lone)
			}
		}
		var out strings.Builder
		if err := g.WriteText(&out, 0.05); err != nil {
			t.Fatal(err)
		}
		if tc.suspected > 0 && !strings.Contains(out.String(), "suspected") {
			t.Errorf("%s: the gate's text does not say suspected:\n%s", tc.name, out.String())
		}
	}
}

// r5name is the full name of the sixth case of r, the one slowOne slows.
func r5name(r *results.Run) string { return r.Cases[5].FullName() }

// TestGateRulePrinted checks that compare states its rule with the
// figures it used.
func TestGateRulePrinted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := NewComparison("a", "b", syntheticRun(rng, 0.01, 0.01, "", 1), syntheticRun(rng, 0.01, 0.01, "", 1), CompareOptions{})
	var out strings.Builder
	if err := c.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"A row counts as changed when", "Mann-Whitney U", "5% threshold", "3 × the robust spread (1.4826 × MAD)", "over all 72 time rows"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("compare output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestCompareSkipsChecks: an interop cell is a check whose one sample is
// a cold read, not a measurement: compare gives it no time row, however
// far its read moved, while a measured case beside it is compared.
func TestCompareSkipsChecks(t *testing.T) {
	run := func(ns float64) *results.Run {
		cell := results.Case{Workload: "w", Name: "Interop", Status: results.StatusOK, Role: results.RoleSubject,
			Labels:  results.Labels{{Key: "subject", Value: "interop"}, {Key: results.OpLabel, Value: results.OpInterop}},
			Samples: []results.Sample{{Iters: 1, NsPerOp: ns}}}
		measured := results.Case{Workload: "w", Name: "W", Status: results.StatusOK, Role: results.RoleSubject,
			Labels: results.Labels{{Key: "subject", Value: "a"}, {Key: results.OpLabel, Value: results.OpDecode}}}
		for i := range 10 {
			measured.Samples = append(measured.Samples, results.Sample{Iters: 1, NsPerOp: 1000 + float64(i)})
		}
		cell.Summarize()
		measured.Summarize()
		return &results.Run{Cases: []results.Case{cell, measured}}
	}
	ds := Compare(run(1e6), run(3e6), CompareOptions{})
	for _, d := range ds {
		if strings.HasPrefix(d.Name, "Interop") {
			t.Errorf("an interop cell has a row: %s %s %+.0f%%", d.Name, d.Unit, 100*d.Change)
		}
	}
	if len(ds) == 0 {
		t.Error("the measured case has no row")
	}
}

// TestLimitRowsNotGated: a limit row's slowdown is the machine's, not
// the build's: shown as changed, never a regression nor a row the gate
// cannot tell.
func TestLimitRowsNotGated(t *testing.T) {
	mk := func(role string, ns float64) results.Case {
		c := results.Case{Workload: "w", Name: "W", Status: results.StatusOK, Role: role,
			Labels: results.Labels{{Key: "subject", Value: role}}}
		for i := range 20 {
			c.Samples = append(c.Samples, results.Sample{Iters: 1, NsPerOp: ns + float64(i)})
		}
		c.Summarize()
		return c
	}
	old := &results.Run{Cases: []results.Case{mk(results.RoleLimit, 1000), mk(results.RoleSubject, 1000)}}
	new := &results.Run{Cases: []results.Case{mk(results.RoleLimit, 3000), mk(results.RoleSubject, 3000)}}
	c := NewComparison("old", "new", old, new, CompareOptions{})
	for _, d := range c.Deltas {
		if d.Unit != results.UnitNsPerOp {
			continue
		}
		limit := d.Old.IsLimit()
		if !d.Changed {
			t.Errorf("%s (limit %v): 3× slower, not changed", d.Name, limit)
		}
		if got := c.Regression(d); got == limit {
			t.Errorf("%s (limit %v): regression %v", d.Name, limit, got)
		}
	}
}
