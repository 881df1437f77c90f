package pgscan

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// comparison is what a run's results say about this workload for the
// findings: the method comparison's cases (the main group) and the
// replay's indexed by subject and rows, the partitioned reads, and the
// roles and tags the run recorded.
type comparison struct {
	replay, parallel []*results.Case
	ix, rix          *table.Index
	methods, sizes   []string
	// baseline is pgarrow over SELECT; peer the ADBC driver, peer2
	// ConnectorX.
	baseline, peer, peer2 string
	limit, arrow          map[string]bool
	// described is set when the run recorded descriptors: without them
	// (results from before schema 2) which methods produce Arrow is
	// unknown, and the report makes no claim about non-Arrow methods.
	described bool
}

// newComparison sorts cases into their sampling groups (the batch-size sweep
// left out) and reads the roles and tags the run recorded.
func newComparison(run *results.Run, cases []*results.Case) comparison {
	v := comparison{limit: map[string]bool{}, arrow: map[string]bool{}}
	var main []*results.Case
	for _, c := range cases {
		switch {
		case c.Labels.Has("sweep"):
		case c.Labels.Get(LabelSource) == sourceReplay:
			v.replay = append(v.replay, c)
		case c.Labels.Has(LabelPartitions):
			v.parallel = append(v.parallel, c)
		default:
			main = append(main, c)
			v.limit[c.Labels.Get(LabelSubject)] = v.limit[c.Labels.Get(LabelSubject)] || c.IsLimit()
		}
	}
	v.ix, v.rix = table.NewIndex(main, LabelSubject, "rows"), table.NewIndex(v.replay, LabelSubject, "rows")
	v.methods, v.sizes = table.Distinct(main, LabelSubject), table.Distinct(main, "rows")
	// Results from before roles were recorded name no baseline: pgarrow
	// over SELECT is the one this workload has always compared with.
	v.baseline = table.SubjectWithRole(main, results.RoleBaseline, MethodSelect)
	v.described = len(table.Descriptors(run, Name, LabelSubject)) > 0
	for _, m := range table.Tagged(run, Name, LabelSubject, TagArrow) {
		v.arrow[m] = true
	}
	v.peer, v.peer2 = cmp.Or(table.Tagged(run, Name, LabelSubject, TagPeer)...), cmp.Or(table.Tagged(run, Name, LabelSubject, TagPeer2)...)
	if v.peer == "" && !v.described && slices.Contains(v.methods, MethodADBC) {
		v.peer = MethodADBC // results from before descriptors were recorded
	}
	return v
}

// Derive implements workload.Workload: the findings, the goals stated
// under the method comparison and the replay, the user's query and what
// every method reads; the tables are declared (layout.go).
func (*Workload) Derive(run *results.Run, cases []*results.Case) table.Derived {
	v := newComparison(run, cases)
	d := table.Derived{"findings": {table.Findings(v.findings(run))}, "query": queryBlocks(run), "goals": {v.sizeGoals()}, "replay-goal": {v.replayGoals()}}
	if v.described {
		d["methods"] = []table.Block{&table.Text{Body: readsTables}}
		if queryDescriptor(run) != nil {
			d["methods"] = []table.Block{&table.Text{Body: readsQuery}}
		}
	}
	return d
}

// rowsOf is the number of rows case c reads (its rows label).
func rowsOf(c *results.Case) float64 { return table.Number(c.Labels.Get("rows")) }

// rowsPerSec is c's rows per second from its median time; 0 when c has
// none.
func rowsPerSec(c *results.Case) float64 {
	if c == nil || !c.OK() {
		return 0
	}
	if ns, ok := c.Median(results.UnitNsPerOp); ok && ns > 0 {
		return rowsOf(c) * 1e9 / ns
	}
	return 0
}

// cpuPerRow is c's client CPU per row read, in ns; +Inf when c has none
// (it sorts last).
func cpuPerRow(c *results.Case) float64 {
	if c == nil || !c.OK() {
		return math.Inf(1)
	}
	if s, ok := c.Median(MetricClientCPU); ok {
		return s * 1e9 / rowsOf(c)
	}
	return math.Inf(1)
}

// best returns the method with the highest rows/s at size n among those
// keep accepts.
func (v comparison) best(n string, keep func(m string) bool) (name string, r float64) {
	for _, m := range v.methods {
		if x := rowsPerSec(v.ix.Get(m, n)); keep(m) && x > r {
			name, r = m, x
		}
	}
	return name, r
}

// reader, nonArrow and ceiling select the methods best compares: every
// reader, the readers the run recorded as not producing Arrow, and the
// limit rows (the fastest of which is what one backend delivers without
// any client-side decoding).
func (v comparison) reader(m string) bool   { return !v.limit[m] }
func (v comparison) nonArrow(m string) bool { return v.described && !v.limit[m] && !v.arrow[m] }
func (v comparison) ceiling(m string) bool  { return v.limit[m] }

// byClientCPU orders the methods by the client CPU per row of their case
// at size n, lowest first; those without it keep their order, last.
func (v comparison) byClientCPU(n string) []string {
	out := slices.Clone(v.methods)
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(cpuPerRow(v.ix.Get(a, n)), cpuPerRow(v.ix.Get(b, n))) })
	return out
}

// atSize prefixes a statement about size n with the size when the run
// measured several.
func (v comparison) atSize(n, s string) string {
	if len(v.sizes) < 2 {
		return s
	}
	return "At " + table.IntLabel(n) + " rows: " + s
}

// sizeGoals state, under the method comparison, the goals each table
// size can judge, with the baseline's share of the fastest non-Arrow
// method and its allocations.
func (v comparison) sizeGoals() *table.Text {
	var lines []string
	for _, n := range v.sizes {
		base := v.ix.Get(v.baseline, n)
		if base == nil || !base.OK() {
			continue
		}
		goals := v.goals(n)
		nonArrow, _ := v.best(n, v.nonArrow)
		if x := table.Ratio(v.ix.Get(nonArrow, n), results.UnitVsBaseline, base).V; x > 0 {
			goals = append(goals, fmt.Sprintf("%s reaches %.0f%% of the fastest non-Arrow method, %s (goal ≥ 90%%: %s).", v.baseline, 100*x, nonArrow, table.Met(x >= 0.9)))
		}
		perRow := table.Computed(base, results.UnitBytesPerOp, table.Plain, func(b float64) float64 { return b / rowsOf(base) })
		for _, g := range append(goals, v.baseline+" allocates "+perRow.String()+" bytes per row (goal ≤ 100 at 10M rows).") {
			lines = append(lines, v.atSize(n, g))
		}
	}
	return table.Findings(lines)
}

// replayGoals state the replay's goal at each size.
func (v comparison) replayGoals() *table.Text {
	var lines []string
	for _, n := range table.Distinct(v.replay, "rows") {
		if g := v.replayGoal(n); g != "" {
			lines = append(lines, v.atSize(n, g))
		}
	}
	return table.Findings(lines)
}

// goals states, for size n, pgarrow's goals that the method comparison
// can judge: rows/s against each peer and the lowest client CPU per row
// of the Arrow readers. (A ratio cell's V is 0 when it has no value.)
func (v comparison) goals(n string) []string {
	var out []string
	base := v.ix.Get(v.baseline, n)
	for _, p := range []struct {
		name string
		want float64
	}{{v.peer, 1.2}, {v.peer2, 1.5}} {
		if x := table.Ratio(v.ix.Get(p.name, n), results.UnitVsBaseline, base).V; p.name != "" && x > 0 {
			out = append(out, fmt.Sprintf("%s reads %.2f× as many rows per second as %s (goal ≥ %.1f×: %s).", v.baseline, x, p.name, p.want, table.Met(x >= p.want)))
		}
	}
	// The lowest client CPU per row of pgarrow's readers and of the other
	// Arrow readers.
	var ours, others string
	for _, m := range v.byClientCPU(n) {
		if !v.arrow[m] || v.limit[m] || math.IsInf(cpuPerRow(v.ix.Get(m, n)), 1) {
			continue
		}
		if strings.HasPrefix(m, "pgarrow") {
			ours = cmp.Or(ours, m)
		} else {
			others = cmp.Or(others, m)
		}
	}
	if ours != "" && others != "" {
		a, b := cpuPerRow(v.ix.Get(ours, n)), cpuPerRow(v.ix.Get(others, n))
		out = append(out, fmt.Sprintf("pgarrow's lowest client CPU per row, %s ns (%s), against the best other Arrow reader's, %s ns (%s): %.2f× (goal: the lowest of all Arrow readers: %s).",
			table.Float(a), ours, table.Float(b), others, a/b, table.Met(a < b)))
	}
	return out
}

// replayGoal judges the replay's goal at size n: the baseline's time
// within twice that of the replay's limit row (the pgx raw loop); "" when
// unknown.
func (v comparison) replayGoal(n string) string {
	ref := table.SubjectWithRole(table.Where(v.replay, "rows", n), results.RoleLimit, "")
	if x := table.Ratio(v.rix.Get(v.baseline, n), results.UnitVsLimit, v.rix.Get(ref, n)).V; ref != "" && x > 0 {
		return fmt.Sprintf("In the replay, %s needs %.2f× the time of %s, which decodes almost nothing (goal ≤ 2×: %s).", v.baseline, x, ref, table.Met(x <= 2))
	}
	return ""
}

// Summary implements workload.Workload: the largest table's comparison
// (layout.go).
func (*Workload) Summary(_ *results.Run, cases []*results.Case) *table.Table {
	return summary.First(cases)
}

// findings open the workload at its largest table: client CPU per row, the
// fastest reader and its share of the server's own ceiling, the seed's
// claim that its reader beats ADBC, the goals, and the partitioned reads.
func (v comparison) findings(run *results.Run) []string {
	if len(v.sizes) == 0 {
		return nil
	}
	n := v.sizes[len(v.sizes)-1]
	what := "the " + table.IntLabel(n) + "-row table"
	if queryDescriptor(run) != nil {
		what = "your query's " + table.IntLabel(n) + " rows"
	}
	var lines, parts []string
	// Client CPU per row first: when the server sets the pace, it is what
	// tells the readers apart.
	for _, m := range v.byClientCPU(n) {
		c := v.ix.Get(m, n)
		if ns := cpuPerRow(c); !v.limit[m] && !math.IsInf(ns, 1) && rowsPerSec(c) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s ns (%s rows/s%s)", m, table.Float(ns), mrows(rowsPerSec(c)), table.FewNoteOf(c)))
		}
	}
	if len(parts) > 0 {
		lines = append(lines, fmt.Sprintf("Client CPU per row at %s, lowest first, and wall-clock rows/s: %s.", what, strings.Join(parts, "; ")))
	}
	if name, rate := v.best(n, v.reader); rate > 0 {
		line := fmt.Sprintf("Fastest reader of %s: **%s**, %s rows/s%s", what, name, mrows(rate), table.SamplesMark(v.ix.Get(name, n)))
		if lim, ceil := v.best(n, v.ceiling); ceil > 0 {
			line += fmt.Sprintf(", %s of the server's own ceiling (%s rows/s%s)", table.Pct(rate/ceil), mrows(ceil), table.FewNoteOf(v.ix.Get(lim, n)))
			if rate/ceil >= 0.9 {
				line += ": the server, not the client, sets the pace here"
			} else {
				line += ": the client, not the server, is the bottleneck"
			}
		}
		lines = append(lines, line+".")
	}
	if base := v.ix.Get(v.baseline, n); base != nil && base.OK() {
		p := v.ix.Get(v.peer, n)
		if r := table.Ratio(p, results.UnitVsBaseline, base); r.V > 0 {
			// r is the peer's time over the baseline's: the claim holds when
			// its whole interval lies above 1.
			iv := table.Interval{V: r.V, Lo: r.Lo, Hi: r.Hi, N: r.N, Exact: r.Kind == table.Value}
			claim := table.Below(table.Exactly(1), iv)
			evidence := fmt.Sprintf("%s reads %s the rows per second of %s", v.baseline, iv.Text(table.Times), v.peer)
			if why := table.Unsettled(claim, iv); why != "" {
				evidence += " (" + why + ")"
			}
			lines = append(lines, table.SeedLine("its Arrow reader beats the ADBC driver", "+15% over ADBC", claim, evidence))
		} else if p != nil && p.Skipped() {
			lines = append(lines, "The seed's comparison with ADBC was not made here: "+strings.TrimSuffix(p.Error, ".")+".")
		}
		lines = append(lines, v.seedCopy(base, n), v.seedRate(base))
		if p := v.ix.Get(v.peer2, n); p != nil && p.Skipped() {
			lines = append(lines, "The comparison with ConnectorX was not made here: "+strings.TrimSuffix(p.Error, ".")+".")
		}
		for _, g := range append(v.goals(n), v.replayGoal(n)) {
			if g != "" {
				lines = append(lines, "Goal: "+g)
			}
		}
	}
	// How pgarrow's rows/s grew with connections.
	var conns []string
	var one float64
	for _, c := range table.Where(v.parallel, "rows", n, LabelSubject, v.baseline) {
		r, p := rowsPerSec(c), c.Labels.Get(LabelPartitions)
		if r == 0 {
			continue
		}
		if p == "1" {
			one = r
		}
		s := fmt.Sprintf("%s over %s: %s rows/s%s", v.baseline, p, mrows(r), table.SamplesMark(c))
		if one > 0 && p != "1" {
			s += fmt.Sprintf(" (%.2f× one connection)", r/one)
		}
		conns = append(conns, s)
	}
	if len(conns) > 1 {
		lines = append(lines, "Partitioned reads (connections): "+strings.Join(conns, "; ")+".")
	}
	return lines
}

// mrows writes rows per second in millions: "2.56M".
func mrows(r float64) string { return table.Float(r/1e6) + "M" }

// Seed 003's headline figures: SELECT reads twice the rows per second of
// its COPY BINARY reader, at 2.07M rows/s (1M rows) to 2.65M rows/s (10M
// rows). "Twice" is read as at least seedCopyAtLeast: a tenth below the
// seed's figure still counts, a ratio whose interval lies wholly under it
// does not.
const (
	seedCopyAtLeast        = 1.8
	seedRateLo, seedRateHi = 2.07e6, 2.65e6
)

// seedCopy checks the seed's "2× over COPY BINARY" on the table of n rows:
// the time of pgarrow-copy over that of pgarrow-select, from their time
// ratio's interval.
func (v comparison) seedCopy(base *results.Case, n string) string {
	const claim, figure = "SELECT reads twice the rows per second of COPY BINARY", "2×"
	cp := v.ix.Get(MethodCopy, n)
	if cp == nil || !cp.OK() {
		return table.SeedUnchecked(claim, figure, "pgarrow-copy was not measured")
	}
	r, _ := table.TimeRatio(cp, base)
	verdict := table.Below(table.Exactly(seedCopyAtLeast), r)
	evidence := fmt.Sprintf("%s reads %s the rows per second of %s (held at ≥ %.1f×)", v.baseline, r.Text(table.Times), MethodCopy, seedCopyAtLeast)
	if why := table.Unsettled(verdict, r); why != "" {
		evidence += "; " + why
	}
	return table.SeedLine(claim, figure, verdict, evidence)
}

// seedRate checks the seed's absolute rate on the largest server table
// measured: pgarrow-select's rows/s interval against 2.07–2.65M. An
// absolute rate belongs to the machine it was measured on, so the line
// says so; the ratios above are what carries over.
func (v comparison) seedRate(base *results.Case) string {
	const claim, figure = "pgarrow reads 2.07–2.65M rows/s", "2.07M rows/s at 1M rows, 2.65M at 10M, on its machine"
	ns := table.IntervalOf(base, results.UnitNsPerOp)
	rate := ns.Inverse().Scale(rowsOf(base) * 1e9)
	verdict := table.Within(rate, seedRateLo, seedRateHi)
	evidence := fmt.Sprintf("%s reads %s rows/s at %s rows on this machine", v.baseline, rate.Text(mrows), table.Int(rowsOf(base)))
	switch why := table.Unsettled(verdict, rate); {
	case why != "" && rate.Known():
		evidence += " (its interval reaches across the seed's range)"
	case why != "":
		evidence += " (" + why + ")"
	}
	return table.SeedLine(claim, figure, verdict, evidence)
}
