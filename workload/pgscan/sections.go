package pgscan

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// Sections implements workload.Workload.
func (*Workload) Sections() []report.Section {
	return []report.Section{
		{Workload: Name, Title: "Methods", Render: renderMethods},
		{Workload: Name, Title: "Rows per second by table size (higher is better)", Render: renderBySize},
		{Workload: Name, Title: "Method and peer comparison", Render: renderComparison},
		{Workload: Name, Title: "Batch-size sweep (pgarrow over SELECT)", Render: renderSweep},
		{Workload: Name, Title: "Memory per row", Render: renderMemory},
	}
}

// view holds the main (non-sweep) cases indexed by method and rows.
type view struct {
	main    []*results.Case
	sweep   []*results.Case
	ix      *report.Index
	methods []string
	sizes   []string
}

func newView(cases []*results.Case) view {
	var v view
	for _, c := range cases {
		if c.Labels.Get("sweep") != "" {
			v.sweep = append(v.sweep, c)
		} else {
			v.main = append(v.main, c)
		}
	}
	v.ix = report.NewIndex(v.main, "method", "rows")
	v.methods = report.Distinct(v.main, "method")
	v.sizes = report.Distinct(v.main, "rows")
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

func isLimit(m string) bool { return m == MethodCeiling || m == MethodSelectCeiling }

// ceiling is the fastest limit row at size n: what one backend delivers
// with no client-side decoding at all.
func (v view) ceiling(n string) (float64, bool) {
	best := 0.0
	for _, m := range []string{MethodCeiling, MethodSelectCeiling} {
		if r, ok := rowsPerSec(v.ix.Get(m, n)); ok && r > best {
			best = r
		}
	}
	return best, best > 0
}
func isArrow(m string) bool { return m == MethodSelect || m == MethodCopy || m == MethodADBC }

// fastest returns the highest rows/s among the non-limit methods at size
// n, optionally only the non-Arrow ones.
func (v view) fastest(n string, nonArrowOnly bool) (string, float64) {
	best, name := 0.0, ""
	for _, m := range v.methods {
		if isLimit(m) || (nonArrowOnly && isArrow(m)) {
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

func renderMethods(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
	t := &report.Table{Header: []string{"method", "what it does"}}
	for _, m := range methods() {
		if slices.Contains(v.methods, m.name) {
			t.Rows = append(t.Rows, []string{m.name, m.note})
		}
	}
	t.Notes = []string{"Every method reads the whole table `performance_test_<rows>` (id bigint, score float8, active bool, name text 'user_'||i, created_date date) and, before it is timed, verifies every row against the generator's formulas (ADBC: checksums computed with pyarrow.compute). The table is built server-side with generate_series and vacuumed before the first read."}
	return []report.Block{t}, nil
}

func renderBySize(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
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
	t.Notes = []string{"Million rows per second (median), and in brackets the share of the fastest method of the same run at that size; the two limit rows (copy-discard, select-discard) can exceed 100%."}
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

func renderComparison(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
	var blocks []report.Block
	for _, n := range v.sizes {
		_, bestAll := v.fastest(n, false)
		nonArrowName, bestNonArrow := v.fastest(n, true)
		ceiling, hasCeiling := v.ceiling(n)
		adbc, hasADBC := rowsPerSec(v.ix.Get(MethodADBC, n))
		t := &report.Table{
			Caption: fmt.Sprintf("%s rows", report.Int(report.Number(n))),
			Header:  []string{"method", "rows/s", "MB/s (wire)", "share of fastest", "× ADBC", "% of fastest non-Arrow", "% of server ceiling", "client CPU s", "server CPU s", "B/row", "peak RSS"},
		}
		for _, m := range v.methods {
			c := v.ix.Get(m, n)
			s, r, ok := cell(c)
			row := []string{m, s}
			if !ok {
				for len(row) < len(t.Header) {
					row = append(row, "–")
				}
				t.Rows = append(t.Rows, row)
				continue
			}
			row = append(row,
				report.UnitCell(c, results.UnitMBPerS, report.Float),
				pct(r, bestAll),
				ratio(r, adbc, hasADBC),
				pct(r, bestNonArrow),
				pctIf(r, ceiling, hasCeiling),
				report.UnitCell(c, MetricClientCPU, report.Float),
				report.UnitCell(c, MetricServerCPU, report.Float),
				perRow(c, n),
				report.UnitCell(c, MetricPeakRSS, report.Bytes))
			t.Rows = append(t.Rows, row)
		}
		t.Notes = []string{fmt.Sprintf("Fastest non-Arrow method here: %s. Server ceiling = the faster of the two limit rows (COPY BINARY or SELECT drained undecoded). CPU seconds are per full read (client: this process, plus the Python runner for ADBC; server: the backend process). B/row = bytes allocated per row by the Go process; peak RSS is the resident-set high-water mark during one sample.", orDash(nonArrowName))}
		blocks = append(blocks, t)
		if txt := targets(v, n); txt != "" {
			blocks = append(blocks, &report.Text{Body: txt})
		}
	}
	return blocks, nil
}

// targets states pgarrow's goals against the measured peers of the run.
func targets(v view, n string) string {
	sel, ok := rowsPerSec(v.ix.Get(MethodSelect, n))
	if !ok {
		return ""
	}
	out := ""
	if adbc, ok := rowsPerSec(v.ix.Get(MethodADBC, n)); ok {
		out += fmt.Sprintf("- pgarrow over SELECT reads %.2f× as many rows per second as ADBC (goal ≥ 1.2×: %s).\n", sel/adbc, metOr(sel/adbc >= 1.2))
	}
	if name, best := v.fastest(n, true); best > 0 {
		out += fmt.Sprintf("- pgarrow over SELECT reaches %.0f%% of the fastest non-Arrow method, %s (goal ≥ 90%%: %s).\n", 100*sel/best, name, metOr(sel/best >= 0.9))
	}
	if c := v.ix.Get(MethodSelect, n); c != nil && c.OK() {
		out += fmt.Sprintf("- It allocates %s bytes per row (goal ≤ 100 at 10M rows).\n", perRow(c, n))
	}
	return out
}

func renderSweep(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
	if len(v.sweep) == 0 {
		return nil, nil
	}
	n := v.sweep[0].Labels.Get("rows")
	all := append([]*results.Case{}, v.sweep...)
	if c := v.ix.Get(MethodSelect, n); c != nil {
		all = append(all, c)
	}
	byBatch := report.NewIndex(all, "batch")
	batches := report.Distinct(all, "batch")
	sortNumeric(batches)
	t := &report.Table{Caption: fmt.Sprintf("%s rows", report.Int(report.Number(n))), Header: []string{"batch rows", "rows/s", "B/row", "allocs/op", "peak RSS"}}
	chart := report.LineChart{Title: "pgscan: pgarrow over SELECT, rows/s by batch size", XLabel: "rows per batch", YLabel: "rows per second", LogX: true}
	var ser report.Series
	ser.Name = MethodSelect
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
	blocks := []report.Block{t}
	if len(ser.X) > 1 {
		chart.Series = []report.Series{ser}
		if svg, err := chart.SVG(); err == nil {
			blocks = append(blocks, &report.Plot{File: "pgscan-batch-sweep.svg", Caption: chart.Title, SVG: svg})
		}
	}
	return blocks, nil
}

func renderMemory(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
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
	v := newView(cases)
	if len(v.sizes) == 0 {
		return nil
	}
	n := v.sizes[len(v.sizes)-1]
	_, best := v.fastest(n, false)
	adbc, hasADBC := rowsPerSec(v.ix.Get(MethodADBC, n))
	ceiling, hasCeiling := v.ceiling(n)
	t := &report.Table{Caption: fmt.Sprintf("pgscan: %s rows", report.Int(report.Number(n))), Header: []string{"method", "rows/s", "of fastest", "× ADBC", "of ceiling", "B/row", "peak RSS"}}
	for _, m := range v.methods {
		c := v.ix.Get(m, n)
		s, r, ok := cell(c)
		if !ok {
			t.Rows = append(t.Rows, []string{m, s, "", "", "", "", ""})
			continue
		}
		t.Rows = append(t.Rows, []string{m, s, pct(r, best), ratio(r, adbc, hasADBC), pctIf(r, ceiling, hasCeiling), perRow(c, n), report.UnitCell(c, MetricPeakRSS, report.Bytes)})
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
