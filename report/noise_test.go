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
// subject is caught, and nothing else is.
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
			if c.Regressions() != 0 || float64(changed) > 0.01*float64(compared) {
				t.Errorf("seed %d, σ %g: A/A: %d regressions, %d of %d rows changed; want none (%s)", seed, sigma, c.Regressions(), changed, compared, c.Noise.Rule(c.Threshold))
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
		caught := 0
		for _, d := range c.Deltas {
			if !c.Regression(d) {
				continue
			}
			if s := d.Old.Labels.Get("subject"); s != "s3" {
				t.Errorf("seed %d: %s flagged, only s3 was slowed", seed, d.Name)
			}
			caught++
		}
		// The gate fails, on most of the slowed subject's cases: a case
		// whose process happened to run fast can hide its share.
		if caught < 6 {
			t.Errorf("seed %d: a 10%% slowdown of s3 caught in %d of its 12 cases (%s)", seed, caught, c.Noise.Rule(c.Threshold))
		}
	}
}

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
