package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// Verdicts checks that a run (typically a budgeted one: fewer samples,
// --target) reaches the same verdicts as a reference run of the same build
// (many samples, all forks): within every comparison group, every pair of
// members whose ns/op intervals do not overlap in the reference keeps its
// order, and every in-round ratio to the limit row lies inside the
// reference's interval widened by Slack.
type Verdicts struct {
	// Pairs is the number of the reference's ordered pairs (disjoint
	// intervals) found in both runs; Kept how many kept their order.
	Pairs, Kept int
	// Ratios is the number of ratios to the limit row found in both runs;
	// Inside how many lie inside the widened reference interval.
	Ratios, Inside int
	// Flipped and Outside name the pairs and ratios that did not hold.
	Flipped, Outside []string
}

// VerdictSlack widens the reference's interval of a ratio to the limit row
// (relative), as the issue that asked for the check states it.
const VerdictSlack = 0.05

// CheckVerdicts compares run with ref by time.
func CheckVerdicts(ref, run *results.Run) Verdicts {
	return CheckVerdictsBy(ref, run, results.UnitNsPerOp)
}

// CheckVerdictsBy compares run with ref by unit: results.UnitNsPerOp (the
// ratios are the in-round ratios to the limit row) or
// results.UnitInstructions (instruction counts; a ratio is a case's count
// over its group's limit row's, its reference interval the ratio of the
// two cases' ranges).
func CheckVerdictsBy(ref, run *results.Run, unit string) Verdicts {
	var v Verdicts
	got := map[string]*results.Case{}
	for i := range run.Cases {
		c := &run.Cases[i]
		if c.OK() {
			got[c.Workload+"\x00"+c.FullName()] = c
		}
	}
	groups := map[string][]*results.Case{}
	var keys []string
	for i := range ref.Cases {
		c := &ref.Cases[i]
		if !c.OK() || c.Group == "" {
			continue
		}
		k := c.Workload + "\x00" + c.Group
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := groups[k]
		limitRatio := func(cs []*results.Case, a *results.Case) (results.Stat, bool) {
			if unit == results.UnitNsPerOp {
				return a.Stat(results.UnitVsLimit)
			}
			for _, l := range cs {
				if l != nil && l.IsLimit() {
					sa, ok1 := a.Stat(unit)
					sl, ok2 := l.Stat(unit)
					if ok1 && ok2 && sl.Median > 0 && sl.Lo > 0 {
						return results.Stat{Median: sa.Median / sl.Median, Lo: sa.Lo / sl.Hi, Hi: sa.Hi / sl.Lo, N: sa.N}, true
					}
				}
			}
			return results.Stat{}, false
		}
		var gotGroup []*results.Case
		for _, a := range g {
			gotGroup = append(gotGroup, got[a.Workload+"\x00"+a.FullName()])
		}
		for i, a := range g {
			na := got[a.Workload+"\x00"+a.FullName()]
			if na == nil {
				continue
			}
			if r, ok := limitRatio(g, a); ok && !a.IsLimit() {
				if x, ok := limitRatio(gotGroup, na); ok {
					v.Ratios++
					lo, hi := r.Lo*(1-VerdictSlack), r.Hi*(1+VerdictSlack)
					if x.Median >= lo && x.Median <= hi {
						v.Inside++
					} else {
						v.Outside = append(v.Outside, fmt.Sprintf("%s: %s × limit, reference %s … %s", a.FullName(), table.Float(x.Median), table.Float(r.Lo), table.Float(r.Hi)))
					}
				}
			}
			sa, ok := a.Stat(unit)
			if !ok {
				continue
			}
			for _, b := range g[i+1:] {
				nb := got[b.Workload+"\x00"+b.FullName()]
				sb, ok := b.Stat(unit)
				if nb == nil || !ok || !(sa.Hi < sb.Lo || sb.Hi < sa.Lo) {
					continue
				}
				v.Pairs++
				ma, _ := na.Median(unit)
				mb, _ := nb.Median(unit)
				if (sa.Median < sb.Median) == (ma < mb) {
					v.Kept++
				} else {
					v.Flipped = append(v.Flipped, fmt.Sprintf("%s vs %s", a.FullName(), b.FullName()))
				}
			}
		}
	}
	return v
}

// Held reports whether the verdicts hold: every ordered pair kept, at
// least 95% of the ratios inside.
func (v Verdicts) Held() bool {
	return v.Kept == v.Pairs && (v.Ratios == 0 || float64(v.Inside) >= 0.95*float64(v.Ratios))
}

// WriteText prints the check in a few lines, and what did not hold.
func (v Verdicts) WriteText(w io.Writer) error {
	pct := func(a, b int) string {
		if b == 0 {
			return "–"
		}
		return table.Pct(float64(a) / float64(b))
	}
	verdict := "the verdicts hold"
	if !v.Held() {
		verdict = "the verdicts do NOT hold (want every ordered pair kept and ≥ 95% of the ratios inside)"
	}
	if _, err := fmt.Fprintf(w, "ordered pairs kept: %d of %d (%s)\nratios to the limit row inside the reference's interval ±%.0f%%: %d of %d (%s)\n%s\n",
		v.Kept, v.Pairs, pct(v.Kept, v.Pairs), VerdictSlack*100, v.Inside, v.Ratios, pct(v.Inside, v.Ratios), verdict); err != nil {
		return err
	}
	for _, s := range v.Flipped {
		if _, err := fmt.Fprintf(w, "  order flipped: %s\n", s); err != nil {
			return err
		}
	}
	for i, s := range v.Outside {
		if i == 20 {
			_, err := fmt.Fprintf(w, "  … and %d more ratios outside\n", len(v.Outside)-20)
			return err
		}
		if _, err := fmt.Fprintf(w, "  ratio outside: %s\n", s); err != nil {
			return err
		}
	}
	return nil
}

// WriteVerdictsBaseline says how a run's verdicts (v, against a reference)
// compare with how a second reference agrees with the first (base): the
// shares a run can be asked to reach on this host.
func WriteVerdictsBaseline(w io.Writer, v, base Verdicts) error {
	share := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	rel := func(x, y float64) string {
		if y == 0 {
			return "–"
		}
		return table.Pct(x / y)
	}
	vp, bp := share(v.Kept, v.Pairs), share(base.Kept, base.Pairs)
	vr, br := share(v.Inside, v.Ratios), share(base.Inside, base.Ratios)
	_, err := fmt.Fprintf(w, "two references of this host agree on: ordered pairs %d of %d (%s), ratios %d of %d (%s)\n"+
		"the run relative to them: ordered pairs %s, ratios %s of what two references reach\n",
		base.Kept, base.Pairs, table.Pct(bp), base.Inside, base.Ratios, table.Pct(br), rel(vp, bp), rel(vr, br))
	return err
}
