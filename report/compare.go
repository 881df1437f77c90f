package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/results"
)

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
	// Changed is Significant and a change at least as large as the
	// threshold (CompareOptions.Threshold): between two processes even of
	// the same build, the heap's layout and the CPU's state shift medians
	// by a few percent that a rank test with ten samples a side calls
	// significant; a change smaller than the noise threshold is shown but
	// not marked.
	Changed bool
	// N1 and N2 are the observations compared: samples, or processes
	// when ByProcess.
	N1, N2 int
	// ByProcess is set when both cases were measured in several processes
	// and the test compared the processes' medians (see compareSamples).
	ByProcess bool
	// TooFew is set when N1 and N2 are too few for the test to reach α
	// whatever the values (table.MinP(N1, N2) > α: with 2 against 2 the
	// smallest p is 0.333), unless every value of both is the same: such
	// a row can say neither "changed" nor "no difference", and is never
	// Significant. Comparison.CannotTell says which of them matter.
	TooFew bool
	// Note explains rows that cannot be compared (failed, missing).
	Note string
	// Counted marks a row of instruction counts (results.UnitInstructions,
	// UnitEstCycles): counts of one build repeat, so such a row is a
	// change when the two runs' ranges of counts do not overlap and the
	// medians differ by results.CountThreshold or more, and no rank test
	// is made.
	Counted bool
}

// CompareOptions tune Compare.
type CompareOptions struct {
	// Threshold is the change in a time unit above which a significant
	// slowdown counts as a regression (default NoiseThreshold, 5%).
	Threshold float64
	// Normalize compares each case's time as a ratio to its comparison
	// group's baseline (the baseline's to the limit row) measured in the
	// same round, instead of ns/op: a machine that is uniformly slower in
	// one run then shows no change. Cases without such a ratio (measured
	// alone) are compared in ns/op.
	Normalize bool
	// Instructions adds the rows of instruction counts of the cases
	// counted in both runs (run --metric instructions); OnlyInstructions
	// leaves out the time and allocation rows, so that only counts are
	// judged (compare --metric instructions).
	Instructions, OnlyInstructions bool
}

// threshold is the smallest change that counts (default NoiseThreshold).
func (o CompareOptions) threshold() float64 {
	if o.Threshold > 0 {
		return o.Threshold
	}
	return results.NoiseThreshold
}

// timeUnit is the unit that stands for a case's time in a comparison.
// Normalized, a case is compared by its in-round ratio to its group's
// baseline (a real op of the same kind, and steadier than a limit row of
// a few nanoseconds, whose speed moves with the process's layout), the
// baseline by its ratio to the limit row, and a case without either by
// its ns/op.
func timeUnit(o, n *results.Case, opts CompareOptions) string {
	if !opts.Normalize {
		return results.UnitNsPerOp
	}
	units := []string{results.UnitVsBaseline, results.UnitVsLimit}
	if o.Role == results.RoleBaseline {
		units = []string{results.UnitVsLimit}
	}
	for _, u := range units {
		_, a := o.Stat(u)
		_, b := n.Stat(u)
		if a && b {
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
		if o.Labels.Get(results.OpLabel) == results.OpInterop {
			// A check, not a measurement: its one cold read is no time
			// to gate on (a cell that stops reading is only in one run,
			// its reads label having changed).
			continue
		}
		if opts.Instructions || opts.OnlyInstructions {
			out = append(out, countDeltas(o, n)...)
		}
		if opts.OnlyInstructions {
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
			if cmp, byProcess, ok := table.CompareSamples(o, n, unit); ok {
				d.P, d.N1, d.N2, d.ByProcess = cmp.P, cmp.N1, cmp.N2, byProcess
				d.TooFew = table.MinP(cmp.N1, cmp.N2) > cmp.Alpha && !table.AllEqual(o, n, unit)
				d.Significant = !d.TooFew && cmp.P <= cmp.Alpha
				d.Changed = d.Significant && math.Abs(d.Change) >= opts.threshold()
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

// countDeltas compares the instruction counts of two cases (Delta.Counted).
func countDeltas(o, n *results.Case) []Delta {
	var out []Delta
	for _, unit := range []string{results.UnitInstructions, results.UnitEstCycles} {
		so, ok1 := o.Stat(unit)
		sn, ok2 := n.Stat(unit)
		if !ok1 || !ok2 || so.Median <= 0 {
			continue
		}
		d := Delta{Name: o.FullName(), Unit: unit, Old: o, New: n, Counted: true, N1: so.N, N2: sn.N, P: 1}
		d.Change = sn.Median/so.Median - 1
		d.Significant = sn.Lo > so.Hi || sn.Hi < so.Lo
		if d.Significant {
			d.P = 0
		}
		d.Changed = d.Significant && math.Abs(d.Change) >= results.CountThreshold
		out = append(out, d)
	}
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
	case results.UnitInstructions:
		return 5
	case results.UnitEstCycles:
		return 6
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

// Comparison is the result of comparing two runs, ready to print.
type Comparison struct {
	// OldName and NewName name the two runs (their files) in headers.
	OldName, NewName string
	Deltas           []Delta
	// Threshold is the regression threshold (a fraction).
	Threshold float64
	// Noise is the run-to-run noise the time rows' changes show, which a
	// time row must move past to count as changed (Noise.Floor beyond
	// Noise.Shift). The zero Noise (a Comparison built by hand) applies
	// the threshold alone.
	Noise Noise
	// NoiseBy is the Noise of each stratum's time rows, by workload and
	// subject (noiseByStratum); a row is judged by its stratum's.
	NoiseBy map[string]Noise
	// OldProbe and NewProbe are the median times of the machine probe
	// loop in each run (0 when a run recorded fewer than three probes):
	// how fast each run's machine was, whatever it measured.
	OldProbe, NewProbe float64
	// OldMemory and NewMemory are the median times of the memory chase
	// (0 when a run recorded fewer than three): how fast each run's
	// shared caches and memory were.
	OldMemory, NewMemory float64
	// OldCount and NewCount are the samples per case each run asked for
	// (--count; 0 when not recorded).
	OldCount, NewCount int
	// Inputs says how the two runs measured different data
	// (DifferentInputs), "" when they measured the same as far as both
	// recorded.
	Inputs string
}

// machineNote says how the two runs' machines compared, from their probes,
// or "" when either run has too few.
func (c *Comparison) machineNote() string {
	if c.OldProbe <= 0 || c.NewProbe <= 0 {
		return ""
	}
	ch := c.NewProbe/c.OldProbe - 1
	note := fmt.Sprintf("Machine: the fixed probe loop took %s (median) in the old run and %s in the new (%s): "+
		"every absolute time of the new run carries that difference; in-round ratios (--normalize) cancel it.",
		table.Duration(c.OldProbe), table.Duration(c.NewProbe), table.SignedPct(ch))
	if c.OldMemory > 0 && c.NewMemory > 0 {
		m := c.NewMemory/c.OldMemory - 1
		note += fmt.Sprintf(" The memory chase took %s and %s (%s)", table.Duration(c.OldMemory), table.Duration(c.NewMemory), table.SignedPct(m))
		if math.Abs(m) > c.Threshold {
			way := "slower"
			if m < 0 {
				way = "faster"
			}
			note += ": the shared caches and memory were that much " + way + " in the new run, and cases whose data " +
				"does not fit in a core's own caches move with them, ratios to a limit row whose data stays in the cache included."
		} else {
			note += "."
		}
	}
	return note
}

// probeMedian is the median of a run's times of loop, 0 with fewer than
// three.
func probeMedian(r *results.Run, loop results.ProbeLoop) float64 {
	ps := loop.Timed(r.Probes)
	if len(ps) < 3 {
		return 0
	}
	ns := make([]float64, len(ps))
	for i, p := range ps {
		ns[i] = loop.Of(p)
	}
	return results.Quantile(ns, 0.5)
}

// NewComparison compares old with new.
func NewComparison(oldName, newName string, old, new *results.Run, opts CompareOptions) *Comparison {
	th := opts.Threshold
	if th <= 0 {
		th = results.NoiseThreshold
	}
	opts.Threshold = th
	ds := Compare(old, new, opts)
	noise, by := noiseByStratum(ds, th)
	for i := range ds {
		if d := &ds[i]; d.Note == "" && isTime(d.Unit) {
			d.Changed = d.Significant && by[stratumOf(*d)].beyond(d.Change, gap(*d), th)
		}
	}
	return &Comparison{OldName: oldName, NewName: newName, Deltas: ds, Threshold: th, Noise: noise, NoiseBy: by,
		OldProbe: probeMedian(old, results.CPULoop), NewProbe: probeMedian(new, results.CPULoop),
		OldMemory: probeMedian(old, results.MemoryLoop), NewMemory: probeMedian(new, results.MemoryLoop),
		OldCount: old.Env.Count, NewCount: new.Env.Count, Inputs: DifferentInputs(old, new)}
}

// Shared returns the number of cases measured in both runs.
func (c *Comparison) Shared() int {
	seen := map[string]bool{}
	for _, d := range c.Deltas {
		if d.Note == "" {
			seen[d.Name] = true
		}
	}
	return len(seen)
}

// isTime reports whether unit stands for a case's time (ns/op or an
// in-round ratio of it).
func isTime(unit string) bool { return unitOrder(unit) <= 2 }

// Regression reports whether d is a significant slowdown past the
// threshold and the noise floor of a case of the build: a limit row (a
// copy, reading a file's bytes) measures the machine, not the build, so
// its change is shown but never gated.
//
// Instruction counts gate on instructions per op (estimated cycles are
// shown): a count of one build repeats whatever the machine does, so one
// pair of runs is enough to judge it.
func (c *Comparison) Regression(d Delta) bool {
	return d.Note == "" && d.Changed && (isTime(d.Unit) || d.Unit == results.UnitInstructions) && d.Change > 0 && !isLimit(d)
}

// isLimit reports whether d compares a physical-limit row.
func isLimit(d Delta) bool {
	return d.Old != nil && d.Old.IsLimit() || d.New != nil && d.New.IsLimit()
}

// Regressions counts the significant slowdowns past the threshold.
func (c *Comparison) Regressions() int {
	n := 0
	for _, d := range c.Deltas {
		if c.Regression(d) {
			n++
		}
	}
	return n
}

// Unjudged counts the rows compared with too few samples to tell a
// change (Delta.TooFew).
func (c *Comparison) Unjudged() int {
	n := 0
	for _, d := range c.Deltas {
		if d.Note == "" && d.TooFew {
			n++
		}
	}
	return n
}

// CannotTell reports whether d is a time row whose median got slower by
// more than the threshold but whose samples are too few to tell whether
// that is a change: the row a regression gate cannot pass in silence.
func (c *Comparison) CannotTell(d Delta) bool {
	return d.Note == "" && d.TooFew && isTime(d.Unit) && d.Change > 0 && !isLimit(d) && c.noiseOf(d).beyond(d.Change, gap(d), c.Threshold)
}

// noiseOf is the Noise row d is judged by: its stratum's.
func (c *Comparison) noiseOf(d Delta) Noise {
	if n, ok := c.NoiseBy[stratumOf(d)]; ok {
		return n
	}
	return c.Noise
}

// gap is how far apart d's old and new intervals lie, as a change: new's
// low end ÷ old's high end − 1 for a slowdown (new's high end ÷ old's low
// end − 1 for a speed-up), 0 when they overlap — what the row moved by
// beyond the spread of its own samples.
func gap(d Delta) float64 {
	so, ok1 := d.Old.Stat(d.Unit)
	sn, ok2 := d.New.Stat(d.Unit)
	switch {
	case !ok1 || !ok2 || so.Lo <= 0 || so.Hi <= 0:
		return 0
	case sn.Lo > so.Hi:
		return sn.Lo/so.Hi - 1
	case sn.Hi < so.Lo:
		return sn.Hi/so.Lo - 1
	}
	return 0
}

// CannotTells returns the rows CannotTell picks.
func (c *Comparison) CannotTells() []Delta {
	var out []Delta
	for _, d := range c.Deltas {
		if c.CannotTell(d) {
			out = append(out, d)
		}
	}
	return out
}

// TooFewNote is the summary of the rows with too few samples, "" when
// there are none: "12 could not be judged: too few samples to reach α =
// 0.05 (the smallest p of 2 against 2 is 0.33) — rerun both with
// --count ≥ 4".
func (c *Comparison) TooFewNote() string {
	n := c.Unjudged()
	if n == 0 {
		return ""
	}
	var first Delta
	for _, d := range c.Deltas {
		if d.Note == "" && d.TooFew {
			first = d
			break
		}
	}
	return fmt.Sprintf("%d could not be judged: too few samples to reach α = %g (the smallest p of %s is %.2f) — %s",
		n, table.Alpha, vs(first), table.MinP(first.N1, first.N2), c.Rerun())
}

// Rerun says how to measure the rows with too few samples so that a test
// can tell: "rerun both with --count ≥ 4" (or --forks ≥ 4 for rows
// compared by process), "" when there are none.
func (c *Comparison) Rerun() string {
	need := table.MinSamples(table.Alpha)
	samples, processes := false, false
	for _, d := range c.Deltas {
		if d.Note != "" || !d.TooFew {
			continue
		}
		if d.ByProcess {
			processes = true
		} else {
			samples = true
		}
	}
	var flags []string
	if samples {
		flags = append(flags, fmt.Sprintf("--count ≥ %d", need))
	}
	if processes {
		flags = append(flags, fmt.Sprintf("--forks ≥ %d", need))
	}
	if len(flags) == 0 {
		return ""
	}
	hint := "rerun both with " + strings.Join(flags, " and ")
	if samples && c.OldCount >= need && c.NewCount >= need {
		hint += fmt.Sprintf(" (both asked for %d or more: slow cases stopped early at their time budget, and take more samples on a quieter machine)", need)
	}
	return hint
}

// vs is a row's "2 against 2" (samples, or processes).
func vs(d Delta) string {
	s := fmt.Sprintf("%d against %d", d.N1, d.N2)
	if d.ByProcess {
		s += " processes"
	}
	return s
}

// Geomean returns, per unit, the geometric mean of new ÷ old over the rows
// compared in that unit (zeros left out), as benchstat's geomean row.
func (c *Comparison) Geomean() map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for _, d := range c.Deltas {
		if d.Note != "" || d.Change <= -1 {
			continue
		}
		sum[d.Unit] += math.Log1p(d.Change)
		n[d.Unit]++
	}
	out := map[string]float64{}
	for u, s := range sum {
		out[u] = math.Exp(s / float64(n[u]))
	}
	return out
}

// delta formats a row's change: "+12.3%" for a change, "(+2.1%)" for a
// significant difference below the threshold, "~" when not significant,
// "too few samples to tell" when no test of so few samples could be.
func (c *Comparison) delta(d Delta) string {
	switch {
	case d.TooFew:
		return "too few samples to tell"
	case d.Changed:
		return fmt.Sprintf("%+.2f%%", d.Change*100)
	case d.Significant:
		return fmt.Sprintf("(%+.2f%%)", d.Change*100)
	default:
		return "~"
	}
}

// Changes counts the rows marked as a change (significant and past the
// threshold), and the rows compared.
func (c *Comparison) Changes() (changed, compared int) {
	for _, d := range c.Deltas {
		if d.Note != "" {
			continue
		}
		compared++
		if d.Changed {
			changed++
		}
	}
	return changed, compared
}

// WriteText prints the comparison as benchstat does: one block per unit,
// old and new medians with their intervals, the change or "~" and the
// p-value with sample counts, and a geomean row per block.
func (c *Comparison) WriteText(w io.Writer) error {
	if c.Inputs != "" {
		if _, err := fmt.Fprintf(w, "Note: %s: these runs measured different data.\n\n", c.Inputs); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	geo := c.Geomean()
	unit := ""
	endBlock := func() {
		if unit != "" {
			if g, ok := geo[unit]; ok {
				fmt.Fprintf(tw, "geomean\t\t\t%+.2f%%\t\n", (g-1)*100)
			}
			fmt.Fprintln(tw)
		}
	}
	for _, d := range c.Deltas {
		if d.Unit != unit {
			endBlock()
			unit = d.Unit
			fmt.Fprintf(tw, "\t%s\t%s\t\t\n", c.OldName, c.NewName)
			fmt.Fprintf(tw, "\t%s\t%s\tvs old\t\n", unit, unit)
		}
		if d.Note != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\t%s\n", d.Name, cell(d.Old, d.Unit), cell(d.New, d.Unit), d.Note)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Name, cell(d.Old, d.Unit), cell(d.New, d.Unit), c.delta(d), pString(d))
	}
	endBlock()
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	changed, compared := c.Changes()
	note := ""
	if c.byProcess() {
		note = processNote
	}
	judged := ""
	if tf := c.TooFewNote(); tf != "" {
		judged = ", " + tf
	}
	if _, err := fmt.Fprintf(w, "%d of %d rows changed%s. ~: no significant difference (Mann-Whitney U, α = 0.05); (±x%%): significant, but within the threshold or the noise floor.%s\n%s\n",
		changed, compared, judged, note, c.Noise.Rule(c.Threshold)); err != nil {
		return err
	}
	if m := c.machineNote(); m != "" {
		_, err := fmt.Fprintln(w, m)
		return err
	}
	return nil
}

// WriteMarkdown prints the comparison as Markdown tables, one per unit.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Comparing `%s` (old) with `%s` (new).\n", c.OldName, c.NewName)
	if c.Inputs != "" {
		fmt.Fprintf(&b, "\n> **Note:** %s: these runs measured different data.\n", mdEscape(c.Inputs))
	}
	geo := c.Geomean()
	unit := ""
	end := func() {
		if g, ok := geo[unit]; ok && unit != "" {
			fmt.Fprintf(&b, "| **geomean** | | | %+.2f%% | |\n", (g-1)*100)
		}
	}
	for _, d := range c.Deltas {
		if d.Unit != unit {
			end()
			unit = d.Unit
			fmt.Fprintf(&b, "\n| case | old %s | new %s | vs old | p |\n|---|---:|---:|---:|---|\n", unit, unit)
		}
		ch, p := c.delta(d), pString(d)
		if d.Note != "" {
			ch, p = "", d.Note
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdEscape(d.Name), cell(d.Old, d.Unit), cell(d.New, d.Unit), ch, p)
	}
	end()
	if tf := c.TooFewNote(); tf != "" {
		changed, compared := c.Changes()
		fmt.Fprintf(&b, "\n%d of %d rows changed, %s.\n", changed, compared, tf)
	}
	if c.byProcess() {
		b.WriteString("\n" + strings.TrimSpace(processNote) + "\n")
	}
	b.WriteString("\n" + c.Noise.Rule(c.Threshold) + "\n")
	if m := c.machineNote(); m != "" {
		b.WriteString("\n" + m + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// compareJSON is the JSON form of one row.
type compareJSON struct {
	Case        string   `json:"case"`
	Unit        string   `json:"unit"`
	Old         *float64 `json:"old,omitempty"`
	New         *float64 `json:"new,omitempty"`
	Change      float64  `json:"change"`
	P           float64  `json:"p"`
	Significant bool     `json:"significant"`
	Changed     bool     `json:"changed"`
	Regression  bool     `json:"regression"`
	ByProcess   bool     `json:"by_process,omitempty"`
	// TooFew: too few samples to tell (see Delta.TooFew); CannotTell:
	// and slower past the threshold by the medians.
	TooFew     bool   `json:"too_few_samples,omitempty"`
	CannotTell bool   `json:"cannot_tell,omitempty"`
	Note       string `json:"note,omitempty"`
}

// WriteJSON prints the comparison as one JSON document: both files, the
// threshold, every row (medians, change as a fraction, p-value, whether it
// is a regression) and the geomean per unit.
func (c *Comparison) WriteJSON(w io.Writer) error { return c.writeJSON(w, nil) }

// writeJSON is WriteJSON with the gate's verdict when g is not nil.
func (c *Comparison) writeJSON(w io.Writer, g *Gate) error {
	median := func(cs *results.Case, unit string) *float64 {
		if cs == nil || !cs.OK() {
			return nil
		}
		if st, ok := cs.Stat(unit); ok {
			return &st.Median
		}
		return nil
	}
	rows := make([]compareJSON, 0, len(c.Deltas))
	for _, d := range c.Deltas {
		rows = append(rows, compareJSON{Case: d.Name, Unit: d.Unit, Old: median(d.Old, d.Unit), New: median(d.New, d.Unit),
			Change: d.Change, P: d.P, Significant: d.Significant, Changed: d.Changed, Regression: c.Regression(d), ByProcess: d.ByProcess,
			TooFew: d.Note == "" && d.TooFew, CannotTell: c.CannotTell(d), Note: d.Note})
	}
	geo := map[string]float64{}
	for u, g := range c.Geomean() {
		geo[u] = g - 1
	}
	var machine, memory *float64
	if c.OldProbe > 0 && c.NewProbe > 0 {
		m := c.NewProbe/c.OldProbe - 1
		machine = &m
	}
	if c.OldMemory > 0 && c.NewMemory > 0 {
		m := c.NewMemory/c.OldMemory - 1
		memory = &m
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Old         string             `json:"old"`
		New         string             `json:"new"`
		Threshold   float64            `json:"threshold"`
		Noise       Noise              `json:"noise"`
		NoiseBy     map[string]Noise   `json:"noise_by_subject,omitempty"`
		Rule        string             `json:"rule"`
		Regressions int                `json:"regressions"`
		Geomean     map[string]float64 `json:"geomean_change"`
		Machine     *float64           `json:"machine_change,omitempty"`
		Memory      *float64           `json:"memory_change,omitempty"`
		// Unjudged counts the rows with too few samples to tell, and
		// CannotTell those of them slower past the threshold.
		Unjudged   int           `json:"unjudged,omitempty"`
		CannotTell int           `json:"cannot_tell,omitempty"`
		Inputs     string        `json:"different_inputs,omitempty"`
		Rows       []compareJSON `json:"rows"`
		Shifts     []Shift       `json:"shifts,omitempty"`
		Gate       *Gate         `json:"gate,omitempty"`
	}{c.OldName, c.NewName, c.Threshold, c.Noise, c.NoiseBy, c.Noise.Rule(c.Threshold), c.Regressions(), geo, machine, memory, c.Unjudged(), len(c.CannotTells()), c.Inputs, rows, c.Shifts(), g})
}

// WriteCompare prints deltas as text (see Comparison.WriteText) and
// returns the number of significant regressions past the noise threshold.
func WriteCompare(w io.Writer, oldName, newName string, ds []Delta) (regressions int, err error) {
	c := &Comparison{OldName: oldName, NewName: newName, Deltas: ds, Threshold: results.NoiseThreshold}
	return c.Regressions(), c.WriteText(w)
}

// pString is a row's p column: "(p=0.041 n=6)", or for a row with too
// few samples why no p could tell: "(n=2 vs 2: the smallest p possible
// is 0.33)".
func pString(d Delta) string {
	if d.Counted {
		return fmt.Sprintf("(counts n=%d+%d)", d.N1, d.N2)
	}
	if d.TooFew {
		s := fmt.Sprintf("(n=%d vs %d", d.N1, d.N2)
		if d.ByProcess {
			s += " processes"
		}
		return s + fmt.Sprintf(": the smallest p possible is %.2f)", table.MinP(d.N1, d.N2))
	}
	s := fmt.Sprintf("(p=%.3f n=%d", d.P, d.N1)
	if d.N1 != d.N2 {
		s += fmt.Sprintf("+%d", d.N2)
	}
	if d.ByProcess {
		s += " processes"
	}
	return s + ")"
}

// byProcess reports whether any row was compared by processes.
func (c *Comparison) byProcess() bool {
	for _, d := range c.Deltas {
		if d.ByProcess {
			return true
		}
	}
	return false
}

// processNote is the footer sentence for comparisons of forked runs.
const processNote = " Cases measured in several processes (--forks) are compared by their processes' medians (n counts processes): samples of one process are not independent."

func cell(c *results.Case, unit string) string {
	if c == nil {
		return "–"
	}
	if !c.OK() {
		return table.Time(c).String()
	}
	s, ok := c.Stat(unit)
	if !ok {
		return "–"
	}
	f := table.Float
	if unit == results.UnitNsPerOp {
		f = table.Duration
	}
	out := table.WithCI(s, f)
	return strings.TrimSpace(out)
}
