package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// shiftMinRows is the fewest time rows a subject's operation needs for its
// shift to be judged: a sign test of six rows all slower reaches p = 0.031.
const shiftMinRows = 6

// shiftMinStrata is the fewest subject operations whose shifts' spread
// is estimated.
const shiftMinStrata = 5

// workloadPart is the workload of a stratum "workload/subject/op".
func workloadPart(stratum string) string {
	w, _, _ := strings.Cut(stratum, "/")
	return w
}

// Shift is how one subject's operation moved as a whole between two runs:
// the median of its time rows' log changes beyond the machine's common
// shift. A change to a library's encoder moves every encode row of it; a
// shared machine moves one row of a run, never every row of a subject and
// operation the same way (two default-scale A/A runs here moved single rows
// by up to 21% and 59%, and no subject's operation by more than 6%).
type Shift struct {
	// Stratum is "workload/subject/op".
	Stratum string `json:"stratum"`
	// Rows is the number of time rows the shift rests on.
	Rows int `json:"rows"`
	// Change is exp(median log change − machine shift) − 1.
	Change float64 `json:"change"`
	// Slower counts the rows that moved up beyond the machine's shift.
	Slower int `json:"slower"`
	// P is the two-sided sign test's p-value of Slower among Rows.
	P float64 `json:"p"`
	// Floor is the change the shift must reach, the largest of the
	// threshold, NoiseK standard errors of a median of Rows rows of its
	// stratum's spread (1.2533 × spread ÷ √Rows), and NoiseK robust
	// spreads of the other subject operations' shifts (of its workload's
	// where it has five or more, never less than all's).
	Floor float64 `json:"floor"`
	// Regression is a shift that is slower past Floor with P ≤ α.
	Regression bool `json:"regression"`
}

// stratumOp is the stratum a row's subject-wide shift is judged in: its
// workload, subject and operation.
func stratumOp(d Delta) string {
	c := d.Old
	if c == nil {
		c = d.New
	}
	return stratumOf(d) + "/" + c.Labels.Get(results.OpLabel)
}

// Shifts is every subject operation's Shift with at least shiftMinRows
// time rows compared (limit rows, which measure the machine, left out),
// slowest first.
func (c *Comparison) Shifts() []Shift {
	logs := map[string][]float64{}
	noise := map[string]Noise{}
	m := math.Log1p(c.Noise.Shift)
	for _, d := range c.Deltas {
		if d.Note != "" || !isTime(d.Unit) || d.Change <= -1 || d.Old == nil || d.New == nil || isLimit(d) {
			continue
		}
		s := stratumOp(d)
		logs[s] = append(logs[s], math.Log1p(d.Change)-m)
		noise[s] = c.noiseOf(d)
	}
	var out []Shift
	meds := map[string][]float64{}
	var all []float64
	for s, rs := range logs {
		if len(rs) < shiftMinRows {
			continue
		}
		sh := Shift{Stratum: s, Rows: len(rs)}
		for _, r := range rs {
			if r > 0 {
				sh.Slower++
			}
		}
		sh.P = signTest(sh.Slower, len(rs))
		md := median(append([]float64(nil), rs...))
		sh.Change = math.Expm1(md)
		meds[workloadPart(s)] = append(meds[workloadPart(s)], md)
		all = append(all, md)
		se := 1.2533 * noise[s].Spread / math.Sqrt(float64(len(rs)))
		sh.Floor = max(c.Threshold, math.Expm1(NoiseK*se))
		out = append(out, sh)
	}
	// Rows of one subject measured in one process share that process's
	// shift, which a test across its rows cannot see: how far the other
	// subjects' operations moved (their medians' robust spread, by
	// workload where it has enough of them) is the floor that shift sets.
	spread := func(ms []float64) float64 {
		m := median(append([]float64(nil), ms...))
		dev := make([]float64, len(ms))
		for i, x := range ms {
			dev[i] = math.Abs(x - m)
		}
		return 1.4826 * median(dev)
	}
	allSpread := 0.0
	if len(all) >= shiftMinStrata {
		allSpread = spread(all)
	}
	for i := range out {
		sp := allSpread
		if ms := meds[workloadPart(out[i].Stratum)]; len(ms) >= shiftMinStrata {
			sp = max(sp, spread(ms))
		}
		out[i].Floor = max(out[i].Floor, math.Expm1(NoiseK*sp))
		out[i].Regression = out[i].Change >= out[i].Floor && out[i].P <= table.Alpha
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Change != out[j].Change {
			return out[i].Change > out[j].Change
		}
		return out[i].Stratum < out[j].Stratum
	})
	return out
}

// signTest is the two-sided sign test's p-value of k successes in n
// trials of probability ½.
func signTest(k, n int) float64 {
	k = max(k, n-k)
	p := 0.0
	for i := k; i <= n; i++ {
		p += math.Exp(lchoose(n, i) - float64(n)*math.Ln2)
	}
	return min(1, 2*p)
}

// lchoose is log C(n, k).
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	d, _ := math.Lgamma(float64(n - k + 1))
	return a - b - d
}

// Gate is the verdict of --fail-on-regression over one or more pairs of
// runs (old, new), each a Comparison: what fails it and what it can only
// suspect.
//
// A subject's operation that is slower as a whole (Shift.Regression) in
// every pair fails it. A single row slower past its floor (Comparison.
// Regression) fails it only when it is so in every pair of two or more:
// on a shared machine one row of a run moves by more than any floor
// estimated from the run's other rows (the A/A figures in docs/method.md),
// so one pair cannot tell one row's regression from its noise. Such rows
// are Suspected, and say how to confirm them: measure another pair.
type Gate struct {
	// Pairs is the number of pairs judged.
	Pairs int `json:"pairs"`
	// Shifts are the subject operations slower as a whole in every pair
	// (the first pair's figures).
	Shifts []Shift `json:"shifts,omitempty"`
	// Rows are the rows slower past their floor in every pair, when there
	// are two pairs or more (the first pair's figures).
	Rows []GateRow `json:"rows,omitempty"`
	// Suspected are the rows slower past their floor in some pair and not
	// in every pair, or in the only pair, whose subject operation is not
	// a Shift regression.
	Suspected []GateRow `json:"suspected,omitempty"`
}

// GateRow is one row of a Gate: its case, unit and change in each pair
// (nil where the pair does not have it).
type GateRow struct {
	Case    string     `json:"case"`
	Unit    string     `json:"unit"`
	Changes []*float64 `json:"changes"`
	// In counts the pairs in which the row is a regression.
	In int `json:"in"`
}

// Fails reports whether the gate fails.
func (g Gate) Fails() bool { return len(g.Shifts)+len(g.Rows) > 0 }

// NewGate judges the pairs cs (at least one).
func NewGate(cs []*Comparison) Gate {
	g := Gate{Pairs: len(cs)}
	if len(cs) == 0 {
		return g
	}
	shiftIn := map[string]int{}
	for _, c := range cs {
		for _, s := range c.Shifts() {
			if s.Regression {
				shiftIn[s.Stratum]++
			}
		}
	}
	shifted := map[string]bool{}
	for _, s := range cs[0].Shifts() {
		if s.Regression && shiftIn[s.Stratum] == len(cs) {
			g.Shifts = append(g.Shifts, s)
			shifted[s.Stratum] = true
		}
	}
	type key struct{ name, unit string }
	rows := map[key]*GateRow{}
	var order []key
	for i, c := range cs {
		for _, d := range c.Deltas {
			if !c.Regression(d) || shifted[stratumOp(d)] {
				continue
			}
			k := key{d.Name, d.Unit}
			r, ok := rows[k]
			if !ok {
				r = &GateRow{Case: d.Name, Unit: d.Unit, Changes: make([]*float64, len(cs))}
				rows[k] = r
				order = append(order, k)
			}
			r.Changes[i] = &d.Change
			r.In++
		}
	}
	// A row's change in the pairs where it is not a regression, for the
	// listing.
	for i, c := range cs {
		for _, d := range c.Deltas {
			if r, ok := rows[key{d.Name, d.Unit}]; ok && r.Changes[i] == nil && d.Note == "" {
				r.Changes[i] = &d.Change
			}
		}
	}
	for _, k := range order {
		r := *rows[k]
		if r.In == len(cs) && (len(cs) >= 2 || r.Unit == results.UnitInstructions) {
			g.Rows = append(g.Rows, r)
		} else {
			g.Suspected = append(g.Suspected, r)
		}
	}
	return g
}

// Rule states the gate's rule with the comparison's figures.
func (g Gate) Rule(threshold float64) string {
	return fmt.Sprintf("The gate fails on a subject's operation slower as a whole: the median change of its time rows (%d or more, limit rows left out) "+
		"beyond the machine's shift at least the %g%% threshold, %d standard errors of that median and %[3]d robust spreads of the other subject operations' shifts, and a sign test of its rows at α = %[4]g; "+
		"and, given two or more pairs of runs (compare OLD NEW OLD2 NEW2 …), on a row that counts as changed and slower in every pair. "+
		"One row slower in one pair is suspected, not failed: on a shared machine a row of one run moves by more than its neighbours can predict.",
		shiftMinRows, threshold*100, NoiseK, table.Alpha)
}

// WriteText prints what the gate found after a comparison's tables.
func (g Gate) WriteText(w io.Writer, threshold float64) error {
	var b strings.Builder
	changes := func(r GateRow) string {
		var ps []string
		for _, ch := range r.Changes {
			if ch == nil {
				ps = append(ps, "–")
			} else {
				ps = append(ps, table.SignedPct(*ch))
			}
		}
		return strings.Join(ps, ", ")
	}
	fmt.Fprintf(&b, "\nGate (%d pair%s): %s\n", g.Pairs, plural(g.Pairs), g.Rule(threshold))
	if len(g.Shifts) > 0 {
		fmt.Fprintf(&b, "%d subject operation(s) slower as a whole:\n", len(g.Shifts))
		for _, s := range g.Shifts {
			fmt.Fprintf(&b, "  %s  %s over %d rows (%d slower, p=%.3g)\n", s.Stratum, table.SignedPct(s.Change), s.Rows, s.Slower, s.P)
		}
	}
	if len(g.Rows) > 0 {
		fmt.Fprintf(&b, "%d row(s) slower past their floor in every pair:\n", len(g.Rows))
		for _, r := range g.Rows {
			fmt.Fprintf(&b, "  %s  %s %s\n", r.Case, changes(r), r.Unit)
		}
	}
	if len(g.Suspected) > 0 {
		confirm := "measure another pair and pass both: compare OLD NEW OLD2 NEW2"
		if g.Pairs > 1 {
			confirm = "not slower in every pair"
		}
		fmt.Fprintf(&b, "%d row(s) suspected (%s):\n", len(g.Suspected), confirm)
		for _, r := range g.Suspected {
			fmt.Fprintf(&b, "  %s  %s %s\n", r.Case, changes(r), r.Unit)
		}
	}
	if !g.Fails() && len(g.Suspected) == 0 {
		b.WriteString("Nothing slower.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// WriteGateJSON prints one pair as Comparison.WriteJSON does, with the
// gate beside it; several pairs as {"pairs": [...], "gate": ...}.
func WriteGateJSON(w io.Writer, cs []*Comparison, g Gate) error {
	if len(cs) == 1 {
		return cs[0].writeJSON(w, &g)
	}
	var parts []string
	for _, c := range cs {
		var b strings.Builder
		if err := c.writeJSON(&b, nil); err != nil {
			return err
		}
		parts = append(parts, strings.TrimSpace(b.String()))
	}
	gj, err := json.MarshalIndent(g, "  ", "  ")
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	_, err = fmt.Fprintf(w, "{\n  \"pairs\": [\n%s\n  ],\n  \"gate\": %s\n}\n", strings.Join(parts, ",\n"), gj)
	return err
}
