package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"

	"github.com/serbench/serbench/results"
)

// sampleValues returns a case's per-sample values of unit.
func sampleValues(c *results.Case, unit string) []float64 {
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

func compareSamples(a, b *results.Case, unit string) (benchmath.Comparison, bool) {
	va, vb := sampleValues(a, unit), sampleValues(b, unit)
	if len(va) == 0 || len(vb) == 0 {
		return benchmath.Comparison{}, false
	}
	sa := benchmath.NewSample(va, &benchmath.DefaultThresholds)
	sb := benchmath.NewSample(vb, &benchmath.DefaultThresholds)
	return benchmath.AssumeNothing.Compare(sa, sb), true
}

// significant reports whether a and b differ in unit at α = 0.05.
func significant(a, b *results.Case, unit string) bool {
	cmp, ok := compareSamples(a, b, unit)
	return ok && cmp.P <= cmp.Alpha
}

// Delta is one row of a comparison.
type Delta struct {
	Name     string
	Unit     string
	Old, New *results.Case
	// Change is new/old - 1 of the medians.
	Change float64
	// P is the Mann-Whitney U p-value; Significant is P ≤ α.
	P           float64
	Significant bool
	N1, N2      int
	// Note explains rows that cannot be compared (failed, missing).
	Note string
}

// CompareOptions tune Compare.
type CompareOptions struct {
	// Normalize compares each case's time as a ratio to its comparison
	// group's limit row (or, without one, its baseline) measured in the
	// same round, instead of ns/op: a machine that is uniformly slower in
	// one run then shows no change. Cases without such a ratio (measured
	// alone, or limit rows themselves) are compared in ns/op.
	Normalize bool
}

// timeUnit is the unit that stands for a case's time in a comparison.
func timeUnit(o, n *results.Case, opts CompareOptions) string {
	if !opts.Normalize {
		return results.UnitNsPerOp
	}
	for _, u := range []string{results.UnitVsLimit, results.UnitVsBaseline} {
		_, a := o.Stat(u)
		_, b := n.Stat(u)
		if a && b && o.Role != results.RoleLimit && !(u == results.UnitVsBaseline && o.Role == results.RoleBaseline) {
			return u
		}
	}
	return results.UnitNsPerOp
}

// Compare matches the cases of two runs by full name and compares each
// of the units ns/op (or its in-round ratio, see CompareOptions), B/op and
// allocs/op.
func Compare(old, new *results.Run, opts CompareOptions) []Delta {
	index := map[string]*results.Case{}
	for i := range new.Cases {
		c := &new.Cases[i]
		index[c.Workload+"\x00"+c.FullName()] = c
	}
	var out []Delta
	seen := map[string]bool{}
	for i := range old.Cases {
		o := &old.Cases[i]
		key := o.Workload + "\x00" + o.FullName()
		seen[key] = true
		n := index[key]
		switch {
		case n == nil:
			out = append(out, Delta{Name: o.FullName(), Unit: results.UnitNsPerOp, Old: o, Note: "only in old"})
			continue
		case !o.OK() || !n.OK():
			out = append(out, Delta{Name: o.FullName(), Unit: results.UnitNsPerOp, Old: o, New: n, Note: "FAILED in " + failedSide(o, n)})
			continue
		}
		for _, unit := range []string{timeUnit(o, n, opts), results.UnitBytesPerOp, results.UnitAllocsPerOp} {
			so, ok1 := o.Stat(unit)
			sn, ok2 := n.Stat(unit)
			if !ok1 || !ok2 {
				continue
			}
			d := Delta{Name: o.FullName(), Unit: unit, Old: o, New: n}
			if so.Median != 0 {
				d.Change = sn.Median/so.Median - 1
			} else if sn.Median != 0 {
				d.Change = 1
			}
			if cmp, ok := compareSamples(o, n, unit); ok {
				d.P, d.N1, d.N2 = cmp.P, cmp.N1, cmp.N2
				d.Significant = cmp.P <= cmp.Alpha
			}
			out = append(out, d)
		}
	}
	for i := range new.Cases {
		c := &new.Cases[i]
		if !seen[c.Workload+"\x00"+c.FullName()] {
			out = append(out, Delta{Name: c.FullName(), Unit: results.UnitNsPerOp, New: c, Note: "only in new"})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return unitOrder(out[i].Unit) < unitOrder(out[j].Unit) })
	return out
}

func unitOrder(u string) int {
	switch u {
	case results.UnitVsLimit:
		return 0
	case results.UnitVsBaseline:
		return 1
	case results.UnitNsPerOp:
		return 2
	case results.UnitBytesPerOp:
		return 3
	default:
		return 4
	}
}

func failedSide(o, n *results.Case) string {
	switch {
	case !o.OK() && !n.OK():
		return "both"
	case !o.OK():
		return "old"
	default:
		return "new"
	}
}

// WriteCompare prints deltas as benchstat does: one block per unit, old and
// new medians with their intervals, the change or "~" when not
// significant, and the p-value with sample counts. Units whose values did
// not change at all (e.g. identical allocs/op) are still listed so nothing
// hides. It returns the number of significant regressions in ns/op
// (slower by more than the noise threshold).
func WriteCompare(w io.Writer, oldName, newName string, ds []Delta) (regressions int, err error) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	unit := ""
	for _, d := range ds {
		if d.Unit != unit {
			if unit != "" {
				fmt.Fprintln(tw)
			}
			unit = d.Unit
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", "", oldName, newName, "vs base", "")
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", "", unit, unit, "", "")
		}
		if d.Note != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Name, cell(d.Old, d.Unit), cell(d.New, d.Unit), "", d.Note)
			continue
		}
		delta := "~"
		if d.Significant {
			delta = fmt.Sprintf("%+.2f%%", d.Change*100)
			if unitOrder(d.Unit) <= 2 && d.Change > results.NoiseThreshold {
				regressions++
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Name, cell(d.Old, d.Unit), cell(d.New, d.Unit), delta, pString(d))
	}
	if err := tw.Flush(); err != nil {
		return regressions, fmt.Errorf("compare: %w", err)
	}
	return regressions, nil
}

func pString(d Delta) string {
	s := fmt.Sprintf("(p=%.3f n=%d", d.P, d.N1)
	if d.N1 != d.N2 {
		s += fmt.Sprintf("+%d", d.N2)
	}
	return s + ")"
}

func cell(c *results.Case, unit string) string {
	if c == nil {
		return "–"
	}
	if !c.OK() {
		return statusCell(c)
	}
	s, ok := c.Stat(unit)
	if !ok {
		return "–"
	}
	f := Float
	if unit == results.UnitNsPerOp {
		f = Duration
	}
	out := WithCI(s, f)
	return strings.TrimSpace(out)
}
