package table

import (
	"fmt"
	"sort"

	"golang.org/x/perf/benchmath"

	"github.com/serbench/serbench/results"
)

// A Verdict is what a test of two cases of one run can say about their
// difference in a unit.
type Verdict int

// The verdicts of Differ.
const (
	// CannotTell: the observations are too few for the test to reach α
	// whatever their values, or the processes disagree; the cell says "n
	// too small" rather than "~ same".
	CannotTell Verdict = iota
	// Same: the test could have found a difference and found none, and
	// the two intervals overlap.
	Same
	// Different: the difference is significant at α.
	Different
)

// A Test is the outcome of Differ: the verdict and what it rests on.
type Test struct {
	Verdict Verdict
	// P is the p-value the verdict rests on (the largest of the
	// processes' when every process was tested on its own).
	P float64
	// N1 and N2 are the observations a side, of Of.
	N1, N2 int
	// Of names the unit of repetition: "samples" when both cases were
	// measured in one process, "processes" when they were measured in
	// several (serbench run --forks).
	Of string
}

// Note is the parenthesis a cell carries for a test that cannot tell:
// "n too small: 2 processes a side".
func (t Test) Note() string {
	if t.Verdict != CannotTell {
		return ""
	}
	n := min(t.N1, t.N2)
	if t.Of == "" {
		return "n too small"
	}
	return fmt.Sprintf("n too small: %d %s", n, t.Of)
}

// Differ tests whether cases a and b of one run differ in unit, with the
// process as the unit of repetition where they were measured in several:
//
//   - one process each: a Mann-Whitney U test of the samples;
//   - several processes: each process measured a and b, so each is tested
//     on its own (its samples of a against its samples of b). A
//     difference significant in every process, in the same direction, is
//     Different: what a process's state does to one subject's samples
//     would have to do it in every process alike. With at least
//     MinSamples processes a side, the processes' medians are also tested
//     against each other, and a significant result is Different too.
//     Otherwise the verdict is Same only when every process could have
//     found a difference (enough samples) and none did, or when the test
//     of the processes' medians had the power to and did not; anything
//     else is CannotTell.
//
// Same also needs the two cases' intervals in unit to overlap: a reader
// who sees disjoint intervals marked "~ same" is told two things at once.
// Two disjoint intervals with no significant test are CannotTell.
func Differ(a, b *results.Case, unit string) Test {
	pa, pb := forkValues(a, unit), forkValues(b, unit)
	var t Test
	if len(pa) >= 2 && len(pb) >= 2 {
		t = differByProcess(pa, pb)
	} else {
		t = differBySamples(SampleValues(a, unit), SampleValues(b, unit))
	}
	if t.Verdict == Same && disjoint(a, b, unit) {
		t.Verdict = CannotTell
	}
	return t
}

// differBySamples is Differ for cases measured in one process.
func differBySamples(va, vb []float64) Test {
	t := Test{N1: len(va), N2: len(vb), Of: "samples", P: 1}
	if len(va) == 0 || len(vb) == 0 {
		return t
	}
	if allEqual(va, vb) {
		t.Verdict = Same
		return t
	}
	if !testable(len(va), len(vb)) {
		return t
	}
	t.P = mannWhitney(va, vb)
	if t.P <= Alpha {
		t.Verdict = Different
	} else {
		t.Verdict = Same
	}
	return t
}

// differByProcess is Differ for cases measured in several processes:
// pa and pb map a fork to its samples.
func differByProcess(pa, pb map[int][]float64) Test {
	t := Test{N1: len(pa), N2: len(pb), Of: "processes", P: 1}
	var forks []int
	for f := range pa {
		if _, ok := pb[f]; ok {
			forks = append(forks, f)
		}
	}
	sort.Ints(forks)
	// Each process on its own.
	allTestable, allQuiet := len(forks) >= 2, true
	dir, agree, worst := 0, len(forks) >= 2, 0.0
	for _, f := range forks {
		va, vb := pa[f], pb[f]
		if allEqual(va, vb) {
			agree = false
			continue
		}
		if !testable(len(va), len(vb)) {
			allTestable, agree = false, false
			continue
		}
		p := mannWhitney(va, vb)
		worst = max(worst, p)
		if p > Alpha {
			agree = false
			continue
		}
		allQuiet = false
		d := 1
		if results.Summarize(va).Median < results.Summarize(vb).Median {
			d = -1
		}
		if dir != 0 && d != dir {
			agree = false
		}
		dir = d
	}
	if agree {
		t.Verdict, t.P = Different, worst
		return t
	}
	// The processes' medians against each other.
	ma, mb := medians(pa), medians(pb)
	if testable(len(ma), len(mb)) {
		t.P = mannWhitney(ma, mb)
		if t.P <= Alpha {
			t.Verdict = Different
		} else {
			t.Verdict = Same
		}
		return t
	}
	if allTestable && allQuiet {
		t.Verdict, t.P = Same, worst
	}
	return t
}

// forkValues returns c's values of unit by the process that took them
// (fork 0 when c was measured in one process).
func forkValues(c *results.Case, unit string) map[int][]float64 {
	out := map[int][]float64{}
	for i := range c.Samples {
		one := results.Case{BytesPerOp: c.BytesPerOp, Samples: c.Samples[i : i+1]}
		if v := SampleValues(&one, unit); len(v) == 1 {
			out[c.Samples[i].Fork] = append(out[c.Samples[i].Fork], v[0])
		}
	}
	return out
}

// medians returns the median of each process's values, in fork order.
func medians(byFork map[int][]float64) []float64 {
	forks := make([]int, 0, len(byFork))
	for f := range byFork {
		forks = append(forks, f)
	}
	sort.Ints(forks)
	out := make([]float64, 0, len(forks))
	for _, f := range forks {
		out = append(out, results.Summarize(byFork[f]).Median)
	}
	return out
}

// mannWhitney is the two-sided Mann-Whitney U p-value of va against vb.
func mannWhitney(va, vb []float64) float64 {
	sa := benchmath.NewSample(va, &benchmath.DefaultThresholds)
	sb := benchmath.NewSample(vb, &benchmath.DefaultThresholds)
	return benchmath.AssumeNothing.Compare(sa, sb).P
}

// allEqual reports whether every value of va and vb is the same one.
func allEqual(va, vb []float64) bool {
	vs := append(append([]float64(nil), va...), vb...)
	for _, v := range vs {
		if v != vs[0] {
			return false
		}
	}
	return len(vs) > 0
}

// disjoint reports whether a's and b's intervals in unit do not overlap.
func disjoint(a, b *results.Case, unit string) bool {
	sa, ok1 := a.Stat(unit)
	sb, ok2 := b.Stat(unit)
	if !ok1 || !ok2 || sa.N < 2 || sb.N < 2 {
		return false
	}
	return sa.Hi < sb.Lo || sb.Hi < sa.Lo
}
