package table

import (
	"golang.org/x/perf/benchmath"

	"github.com/serbench/serbench/results"
)

// SampleValues returns a case's per-sample values of unit.
func SampleValues(c *results.Case, unit string) []float64 {
	var out []float64
	for _, s := range c.Samples {
		switch unit {
		case results.UnitNsPerOp:
			out = append(out, s.NsPerOp)
		case results.UnitBytesPerOp:
			out = append(out, s.BytesPerOp)
		case results.UnitAllocsPerOp:
			out = append(out, s.AllocsPerOp)
		case results.UnitVsBaseline:
			if s.VsBaseline > 0 {
				out = append(out, s.VsBaseline)
			}
		case results.UnitVsLimit:
			if s.VsLimit > 0 {
				out = append(out, s.VsLimit)
			}
		case results.UnitMBPerS:
			if s.NsPerOp > 0 {
				out = append(out, float64(c.BytesPerOp)*1e3/s.NsPerOp)
			}
		default:
			if v, ok := s.Metrics[unit]; ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// processMedians returns the median of unit over each process that
// measured c, in fork order, or nil when c was measured in one process.
func processMedians(c *results.Case, unit string) []float64 {
	byFork := forkValues(c, unit)
	if len(byFork) < 2 {
		return nil
	}
	return medians(byFork)
}

// CompareSamples tests a and b in unit with Mann-Whitney U. When both
// were measured in several processes (serbench run --forks) it compares
// the processes' medians, not the samples (byProcess is then true):
// samples of one process share its state — the heap's layout, the CPU's
// frequency, its neighbours — so they are not independent observations of
// the build, and treating them as such calls a shift between two
// processes of the same build significant (measured: 40 of 198 rows of
// two identical four-fork runs at p ≤ 0.05 by samples). This is the
// hierarchical design of Kalibera and Jones, "Rigorous Benchmarking in
// Reasonable Time" (ISMM 2013): the variation of the highest level that
// varies — here the process — sets what a difference must exceed.
func CompareSamples(a, b *results.Case, unit string) (cmp benchmath.Comparison, byProcess, ok bool) {
	va, vb := processMedians(a, unit), processMedians(b, unit)
	byProcess = va != nil && vb != nil
	if !byProcess {
		va, vb = SampleValues(a, unit), SampleValues(b, unit)
	}
	if len(va) == 0 || len(vb) == 0 {
		return benchmath.Comparison{}, false, false
	}
	sa := benchmath.NewSample(va, &benchmath.DefaultThresholds)
	sb := benchmath.NewSample(vb, &benchmath.DefaultThresholds)
	return benchmath.AssumeNothing.Compare(sa, sb), byProcess, true
}

// AllEqual reports whether every sample of a and b has one value in unit
// (0 B/op against 0 B/op): however few, such samples show no change.
func AllEqual(a, b *results.Case, unit string) bool {
	vs := append(SampleValues(a, unit), SampleValues(b, unit)...)
	for _, v := range vs {
		if v != vs[0] {
			return false
		}
	}
	return len(vs) > 0
}
