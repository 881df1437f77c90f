package pgscan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// Sections implements workload.Workload.
func (*Workload) Sections() []report.Section {
	return []report.Section{
		{Workload: Name, Title: "Findings", Render: renderFindings},
		{Workload: Name, Title: "Methods", Render: renderMethods},
		{Workload: Name, Title: "Rows per second by table size (higher is better)", Render: renderBySize},
		{Workload: Name, Title: "Method and peer comparison", Render: renderComparison},
		{Workload: Name, Title: "Batch-size sweep (pgarrow over SELECT)", Render: renderSweep},
		{Workload: Name, Title: "Memory per row", Render: renderMemory},
	}
}

// view holds the main (non-sweep) cases indexed by subject and rows, and
// what the run recorded about each subject. It knows nothing but the
// recorded results: roles from the cases, the rest from the descriptors.
type view struct {
	main    []*results.Case
	sweep   []*results.Case
	// replay are the cases reading the replay (source=replay), parallel
	// those reading over several connections (the partitions label).
	replay, parallel []*results.Case
	ix      *report.Index
	methods []string
	sizes   []string
	// baseline is pgarrow over SELECT; peer the ADBC driver.
	baseline, peer string
	limit, arrow   map[string]bool
	// described is set when the run recorded descriptors: without them
	// (results from before schema 2) which methods produce Arrow is
	// unknown, and the report makes no claim about non-Arrow methods.
	described bool
}

func newView(run *results.Run, cases []*results.Case) view {
	v := view{limit: map[string]bool{}, arrow: map[string]bool{}}
	for _, c := range cases {
		switch {
		case c.Labels.Get("sweep") != "":
			v.sweep = append(v.sweep, c)
		case c.Labels.Get(LabelSource) == sourceReplay:
			v.replay = append(v.replay, c)
		case c.Labels.Get(LabelPartitions) != "":
			v.parallel = append(v.parallel, c)
		default:
			v.main = append(v.main, c)
			if c.Role == results.RoleLimit {
				v.limit[c.Labels.Get(LabelSubject)] = true
			}
		}
	}
	v.ix = report.NewIndex(v.main, LabelSubject, "rows")
	v.methods = report.Distinct(v.main, LabelSubject)
	v.sizes = report.Distinct(v.main, "rows")
	// Results from before roles were recorded name no baseline: pgarrow
	// over SELECT is the one this workload has always compared with.
	v.baseline = report.SubjectWithRole(v.main, results.RoleBaseline, MethodSelect)
	if run != nil {
		for _, d := range run.Descriptors {
			if d.Workload != Name || d.Key != LabelSubject {
				continue
			}
			v.described = true
			if slices.Contains(d.Tags, TagArrow) {
				v.arrow[d.Name] = true
			}
			if slices.Contains(d.Tags, TagPeer) && v.peer == "" {
				v.peer = d.Name
			}
		}
	}
	if v.peer == "" && !v.described && slices.Contains(v.methods, MethodADBC) {
		v.peer = MethodADBC // results from before descriptors were recorded
	}
	return v
}

func rowsPerSec(c *results.Case) (float64, bool) {
	if c == nil || !c.OK() {
		return 0, false
	}
	ns, ok := c.Median(results.UnitNsPerOp)
	rows, err := strconv.ParseFloat(c.Labels.Get("rows"), 64)
	if !ok || ns <= 0 || err != nil {
		return 0, false
	}
	return rows * 1e9 / ns, true
}

// ceiling is the fastest limit row at size n: what one backend delivers
// with no client-side decoding at all.
func (v view) ceiling(n string) (float64, bool) {
	best := 0.0
	for _, m := range v.methods {
		if !v.limit[m] {
			continue
		}
		if r, ok := rowsPerSec(v.ix.Get(m, n)); ok && r > best {
			best = r
		}
	}
	return best, best > 0
}

// limitRef is the limit row the in-round ratios of size n were taken
// against: the group's first limit row, in the order the run recorded.
func (v view) limitRef(n string) string {
	for _, c := range v.main {
		if c.Labels.Get("rows") == n && c.Role == results.RoleLimit {
			return c.Labels.Get(LabelSubject)
		}
	}
	return ""
}

// fastest returns the highest rows/s among the non-limit methods at size
// n, optionally only the non-Arrow ones.
func (v view) fastest(n string, nonArrowOnly bool) (string, float64) {
	best, name := 0.0, ""
	if nonArrowOnly && !v.described {
		return name, best
	}
	for _, m := range v.methods {
		if v.limit[m] || (nonArrowOnly && v.arrow[m]) {
			continue
		}
		if r, ok := rowsPerSec(v.ix.Get(m, n)); ok && r > best {
			best, name = r, m
		}
	}
	return name, best
}

func mrows(r float64) string { return report.Float(r/1e6) + "M" }

func cell(c *results.Case) (string, float64, bool) {
	if c == nil {
		return "–", 0, false
	}
	if !c.OK() {
		return report.NsCell(c), 0, false
	}
	r, ok := rowsPerSec(c)
	if !ok {
		return "–", 0, false
	}
	s := mrows(r)
	if c.Noisy {
		s += " (noisy)"
	}
	return s, r, true
}

func renderMethods(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	t := report.SubjectsTable(run, Name, LabelSubject, v.main)
	if t == nil {
		return nil, nil
	}
	t.Notes = []string{"Every method reads the whole table `performance_test_<rows>` (id bigint, score float8, active bool, name text 'user_'||i, created_date date) and, before it is timed, verifies every row against the generator's formulas (ADBC: checksums computed with pyarrow.compute). The table is built server-side with generate_series and vacuumed before the first read.",
		"The methods reading one table are sampled round-robin, one sample each per round, with the baseline and the limit rows; the batch-size sweep is a group of its own."}
	return []report.Block{t}, nil
}

func renderBySize(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	if len(v.sizes) == 0 {
		return nil, nil
	}
	t := &report.Table{Header: append([]string{"rows"}, v.methods...)}
	chart := report.LineChart{Title: "pgscan: rows/s by table size", XLabel: "rows in the table", YLabel: "rows per second", LogX: true}
	series := map[string]*report.Series{}
	for _, n := range v.sizes {
		_, best := v.fastest(n, false)
		row := []string{report.Int(report.Number(n))}
		for _, m := range v.methods {
			s, r, ok := cell(v.ix.Get(m, n))
			if ok && best > 0 {
				s += fmt.Sprintf(" (%.0f%%)", 100*r/best)
			}
			row = append(row, s)
			if ok {
				if series[m] == nil {
					series[m] = &report.Series{Name: m}
				}
				series[m].X = append(series[m].X, report.Number(n))
				series[m].Y = append(series[m].Y, r)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	var limits []string
	for _, m := range v.methods {
		if v.limit[m] {
			limits = append(limits, m)
		}
	}
	t.Notes = []string{"Million rows per second (median), and in brackets the share of the fastest method of the same run at that size; the limit rows (" + orDash(strings.Join(limits, ", ")) + ") can exceed 100%."}
	blocks := []report.Block{t}
	for _, m := range v.methods {
		if s := series[m]; s != nil {
			chart.Series = append(chart.Series, *s)
		}
	}
	if len(v.sizes) > 1 {
		if svg, err := chart.SVG(); err == nil {
			blocks = append(blocks, &report.Plot{File: "pgscan-rows-per-second.svg", Caption: chart.Title, SVG: svg})
		}
	}
	return blocks, nil
}

func renderComparison(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	var blocks []report.Block
	for _, n := range v.sizes {
		nonArrowName, bestNonArrow := v.fastest(n, true)
		ceiling, hasCeiling := v.ceiling(n)
		peer, hasPeer := rowsPerSec(v.ix.Get(v.peer, n))
		base, lim := v.ix.Get(v.baseline, n), v.limitRef(n)
		t := &report.Table{
			Caption: fmt.Sprintf("%s rows", report.Int(report.Number(n))),
			Header: []string{"method", "role", "rows/s", "MB/s (wire)", "time × " + orDash(v.baseline), "time × " + orDash(lim),
				"rows/s × " + orDash(v.peer), "% of fastest non-Arrow", "% of server ceiling", "client CPU s", "server CPU s", "B/row", "peak RSS"},
		}
		for _, m := range v.methods {
			c := v.ix.Get(m, n)
			s, r, ok := cell(c)
			role := "–"
			if c != nil {
				role = c.Role
			}
			row := []string{m, role, s}
			if !ok {
				for len(row) < len(t.Header) {
					row = append(row, "–")
				}
				t.Rows = append(t.Rows, row)
				continue
			}
			row = append(row,
				report.UnitCell(c, results.UnitMBPerS, report.Float),
				report.RatioCell(c, results.UnitVsBaseline, base),
				report.RatioCell(c, results.UnitVsLimit, v.ix.Get(lim, n)),
				ratio(r, peer, hasPeer),
				pct(r, bestNonArrow),
				pctIf(r, ceiling, hasCeiling),
				report.UnitCell(c, MetricClientCPU, report.Float),
				report.UnitCell(c, MetricServerCPU, report.Float),
				perRow(c, n),
				report.UnitCell(c, MetricPeakRSS, report.Bytes))
			t.Rows = append(t.Rows, row)
		}
		t.Notes = []string{
			"\"time ×\" columns: the method's time per full read as a multiple of the baseline's and of the limit row's, taken within each sampling round (median ±interval over the rounds), so drift of the machine or the server cancels out; below 1× is faster.",
			fmt.Sprintf("Fastest non-Arrow method here: %s. Server ceiling = the faster of the limit rows (COPY BINARY or SELECT drained undecoded), from the medians. CPU seconds are per full read (client: this process, plus the Python runner for ADBC; server: the backend process). B/row = bytes allocated per row by the Go process; peak RSS is the resident-set high-water mark during one sample.", orDash(nonArrowName))}
		blocks = append(blocks, t)
		if txt := targets(v, n); txt != "" {
			blocks = append(blocks, &report.Text{Body: txt})
		}
	}
	return blocks, nil
}

// speedOver returns how many times as many rows per second the baseline
// reads as the method of case c: c's in-round ratio to the baseline when
// recorded, else the ratio of the medians.
func (v view) speedOver(c *results.Case, n string) (float64, bool) {
	if c == nil || !c.OK() {
		return 0, false
	}
	if s, ok := c.Stat(results.UnitVsBaseline); ok && s.Median > 0 {
		return s.Median, true
	}
	sel, ok1 := rowsPerSec(v.ix.Get(v.baseline, n))
	r, ok2 := rowsPerSec(c)
	if !ok1 || !ok2 {
		return 0, false
	}
	return sel / r, true
}

// targets states pgarrow's goals against the measured peers of the run.
func targets(v view, n string) string {
	base := v.ix.Get(v.baseline, n)
	if base == nil || !base.OK() {
		return ""
	}
	out := ""
	if x, ok := v.speedOver(v.ix.Get(v.peer, n), n); ok {
		out += fmt.Sprintf("- %s reads %.2f× as many rows per second as %s (goal ≥ 1.2×: %s).\n", v.baseline, x, v.peer, metOr(x >= 1.2))
	}
	if name, best := v.fastest(n, true); best > 0 {
		if x, ok := v.speedOver(v.ix.Get(name, n), n); ok {
			out += fmt.Sprintf("- %s reaches %.0f%% of the fastest non-Arrow method, %s (goal ≥ 90%%: %s).\n", v.baseline, 100*x, name, metOr(x >= 0.9))
		}
	}
	out += fmt.Sprintf("- It allocates %s bytes per row (goal ≤ 100 at 10M rows).\n", perRow(base, n))
	return out + "\nRatios here are taken within each sampling round when the run recorded them (median over the rounds)."
}

func renderSweep(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	if len(v.sweep) == 0 {
		return nil, nil
	}
	n := v.sweep[0].Labels.Get("rows")
	subject := v.sweep[0].Labels.Get(LabelSubject)
	all := append([]*results.Case{}, v.sweep...)
	if c := v.ix.Get(subject, n); c != nil {
		all = append(all, c)
	}
	byBatch := report.NewIndex(all, "batch")
	batches := report.Distinct(all, "batch")
	sortNumeric(batches)
	t := &report.Table{Caption: fmt.Sprintf("%s rows", report.Int(report.Number(n))), Header: []string{"batch rows", "rows/s", "B/row", "allocs/op", "peak RSS"}}
	chart := report.LineChart{Title: "pgscan: " + subject + ", rows/s by batch size", XLabel: "rows per batch", YLabel: "rows per second", LogX: true}
	var ser report.Series
	ser.Name = subject
	for _, b := range batches {
		c := byBatch.Get(b)
		s, r, ok := cell(c)
		row := []string{report.Int(report.Number(b)), s, "–", "–", "–"}
		if ok {
			row[2] = perRow(c, n)
			row[3] = report.UnitCell(c, results.UnitAllocsPerOp, report.Int)
			row[4] = report.UnitCell(c, MetricPeakRSS, report.Bytes)
			ser.X = append(ser.X, report.Number(b))
			ser.Y = append(ser.Y, r)
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"The sweep's batch sizes were sampled round-robin with one another; the default batch size's row is the " + subject + " case of the method comparison, measured in that group."}
	blocks := []report.Block{t}
	if len(ser.X) > 1 {
		chart.Series = []report.Series{ser}
		if svg, err := chart.SVG(); err == nil {
			blocks = append(blocks, &report.Plot{File: "pgscan-batch-sweep.svg", Caption: chart.Title, SVG: svg})
		}
	}
	return blocks, nil
}

func renderMemory(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	t := &report.Table{Header: []string{"method"}}
	for _, n := range v.sizes {
		t.Header = append(t.Header, report.Int(report.Number(n))+" rows: B/row", "allocs/op", "peak RSS")
	}
	for _, m := range v.methods {
		row := []string{m}
		for _, n := range v.sizes {
			c := v.ix.Get(m, n)
			if c == nil || !c.OK() {
				row = append(row, "–", "–", "–")
				continue
			}
			row = append(row, perRow(c, n), report.UnitCell(c, results.UnitAllocsPerOp, report.Int), report.UnitCell(c, MetricPeakRSS, report.Bytes))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"Bytes allocated per row by the Go process (ADBC allocates in its own process: its B/row is the Go side's waiting only). A method whose peak RSS does not grow with the table streams in bounded memory."}
	return []report.Block{t}, nil
}

// Summary implements workload.Workload: the largest table's comparison.
func (*Workload) Summary(run *results.Run, cases []*results.Case) *report.Table {
	v := newView(run, cases)
	if len(v.sizes) == 0 {
		return nil
	}
	n := v.sizes[len(v.sizes)-1]
	_, best := v.fastest(n, false)
	peer, hasPeer := rowsPerSec(v.ix.Get(v.peer, n))
	ceiling, hasCeiling := v.ceiling(n)
	t := &report.Table{Caption: fmt.Sprintf("pgscan: %s rows", report.Int(report.Number(n))), Header: []string{"method", "rows/s", "of fastest", "× " + orDash(v.peer), "of ceiling", "B/row", "peak RSS"}}
	for _, m := range v.methods {
		c := v.ix.Get(m, n)
		s, r, ok := cell(c)
		if !ok {
			t.Rows = append(t.Rows, []string{m, s, "", "", "", "", ""})
			continue
		}
		t.Rows = append(t.Rows, []string{m, s, pct(r, best), ratio(r, peer, hasPeer), pctIf(r, ceiling, hasCeiling), perRow(c, n), report.UnitCell(c, MetricPeakRSS, report.Bytes)})
	}
	return t
}

func perRow(c *results.Case, n string) string {
	b, ok := c.Median(results.UnitBytesPerOp)
	rows := report.Number(n)
	if !ok || rows == 0 {
		return "–"
	}
	return report.Float(b / rows)
}

func pct(a, b float64) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*a/b)
}

func pctIf(a, b float64, ok bool) string {
	if !ok {
		return "–"
	}
	return pct(a, b)
}

func ratio(a, b float64, ok bool) string {
	if !ok || b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

func metOr(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func sortNumeric(xs []string) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && report.Number(xs[j]) < report.Number(xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
