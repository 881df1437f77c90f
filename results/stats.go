package results

import (
	"math"

	"golang.org/x/perf/benchmath"
)

// Confidence is the confidence level serbench asks of its intervals.
const Confidence = 0.95

// NoiseThreshold is the relative half-width of the ns/op interval above
// which a case is marked noisy.
const NoiseThreshold = 0.05

// Summarize computes the median and confidence interval of values with
// benchmath's distribution-free (order statistic) method.
//
// The interval is asked for at 95% confidence. With fewer than six samples
// no order-statistic interval reaches 95%; rather than report ±∞, the
// widest interval the sample supports — [min, max] — is returned with its
// true confidence (93.75% for five samples, 87.5% for four), which the
// Confidence field records and reports print.
func Summarize(values []float64) Stat {
	if len(values) == 0 {
		return Stat{}
	}
	vs := append([]float64(nil), values...)
	s := benchmath.NewSample(vs, &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, Confidence)
	if math.IsInf(sum.Lo, 0) || math.IsInf(sum.Hi, 0) {
		if n := len(vs); n >= 2 {
			best := 1 - math.Pow(0.5, float64(n-1))
			sum = benchmath.AssumeNothing.Summary(s, best-1e-9)
		}
	}
	st := Stat{Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi, Confidence: sum.Confidence, N: len(vs)}
	if math.IsInf(st.Lo, 0) || math.IsInf(st.Hi, 0) || math.IsNaN(st.Lo) {
		// One sample: no interval at all.
		st.Lo, st.Hi, st.Confidence = st.Median, st.Median, 0
	}
	return st
}

// Summarize fills c.Summary from c.Samples and sets c.Noisy. MB/s is
// derived from ns/op and BytesPerOp per sample, as testing.B does.
func (c *Case) Summarize() {
	if len(c.Samples) == 0 {
		c.Summary = nil
		c.summarizeCounts()
		return
	}
	cols := map[string][]float64{}
	for _, s := range c.Samples {
		cols[UnitNsPerOp] = append(cols[UnitNsPerOp], s.NsPerOp)
		if !c.NoAllocs {
			cols[UnitBytesPerOp] = append(cols[UnitBytesPerOp], s.BytesPerOp)
			cols[UnitAllocsPerOp] = append(cols[UnitAllocsPerOp], s.AllocsPerOp)
		}
		if c.BytesPerOp > 0 && s.NsPerOp > 0 {
			cols[UnitMBPerS] = append(cols[UnitMBPerS], float64(c.BytesPerOp)*1e3/s.NsPerOp)
		}
		for u, v := range s.Metrics {
			cols[u] = append(cols[u], v)
		}
		if s.VsBaseline > 0 {
			cols[UnitVsBaseline] = append(cols[UnitVsBaseline], s.VsBaseline)
		}
		if s.VsLimit > 0 {
			cols[UnitVsLimit] = append(cols[UnitVsLimit], s.VsLimit)
		}
	}
	c.Summary = make(map[string]Stat, len(cols))
	for u, vs := range cols {
		c.Summary[u] = Summarize(vs)
	}
	// A single sample has no interval, so it cannot be wide: such a case
	// (a slow op capped by its time budget) is shown with "n=1" instead,
	// and the noisy flag keeps meaning "its samples disagree".
	judged := c.Summary[c.NoiseUnit()]
	c.Noisy = judged.N >= 2 && judged.RelWidth() > NoiseThreshold
	c.summarizeCounts()
}

// NoiseUnit is the unit whose interval says whether the case is noisy:
// what the tables compare it by. A case sampled in a group with a limit
// row is compared by its in-round ratio to it (the machine's drift
// between rounds cancels out of it), else by its ratio to the group's
// baseline, and a case measured alone, or the limit row itself, by its
// ns/op.
func (c *Case) NoiseUnit() string {
	if c.Role != RoleLimit {
		for _, u := range []string{UnitVsLimit, UnitVsBaseline} {
			if s, ok := c.Summary[u]; ok && s.N == c.Summary[UnitNsPerOp].N {
				return u
			}
		}
	}
	return UnitNsPerOp
}
