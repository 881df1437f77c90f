package pgscan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// Sections implements workload.Workload.
func (*Workload) Sections() []report.Section {
	return []report.Section{
		{Workload: Name, Title: "Findings", Render: renderFindings},
		{Workload: Name, Title: "Your query", Render: renderQuery},
		{Workload: Name, Title: "Methods", Render: renderMethods},
		{Workload: Name, Title: "Rows per second by table size (higher is better)", Render: renderBySize},
		{Workload: Name, Title: "Method and peer comparison", Render: renderComparison},
		{Workload: Name, Title: "Client-only ceiling: the replay", Render: renderReplay},
		{Workload: Name, Title: "Partitioned reads", Render: renderParallel},
		{Workload: Name, Title: "Batch-size sweep (pgarrow over SELECT)", Render: renderSweep},
		{Workload: Name, Title: "Memory per row", Render: renderMemory},
	}
}

// view holds the main (non-sweep) cases indexed by subject and rows, and
// what the run recorded about each subject. It knows nothing but the
// recorded results: roles from the cases, the rest from the descriptors.
type view struct {
	main  []*results.Case
	sweep []*results.Case
	// replay are the cases reading the replay (source=replay), parallel
	// those reading over several connections (the partitions label).
	replay, parallel []*results.Case
	ix               *table.Index
	methods          []string
	sizes            []string
	// baseline is pgarrow over SELECT; peer the ADBC driver, peer2
	// ConnectorX.
	baseline, peer, peer2 string
	limit, arrow          map[string]bool
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
	v.ix = table.NewIndex(v.main, LabelSubject, "rows")
	v.methods = table.Distinct(v.main, LabelSubject)
	v.sizes = table.Distinct(v.main, "rows")
	// Results from before roles were recorded name no baseline: pgarrow
	// over SELECT is the one this workload has always compared with.
	v.baseline = table.SubjectWithRole(v.main, results.RoleBaseline, MethodSelect)
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
			if slices.Contains(d.Tags, TagPeer2) && v.peer2 == "" {
				v.peer2 = d.Name
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
	return rowsPerSec(v.ceilingCase(n))
}

// ceilingCase is the case of the ceiling at size n (nil when none).
func (v view) ceilingCase(n string) *results.Case {
	var best *results.Case
	bestR := 0.0
	for _, m := range v.methods {
		if !v.limit[m] {
			continue
		}
		if c := v.ix.Get(m, n); c != nil {
			if r, ok := rowsPerSec(c); ok && r > bestR {
				best, bestR = c, r
			}
		}
	}
	return best
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

func mrows(r float64) string { return table.Float(r/1e6) + "M" }

func cell(c *results.Case) (string, float64, bool) {
	if c == nil {
		return "–", 0, false
	}
	if !c.OK() {
		return table.TimeText(c), 0, false
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
	if queryDescriptor(run) != nil {
		t.Notes = []string{"Every method reads the result of your query (see above), and before it is timed compares it with pgarrow-select's reading of it: the row count and, per column, the NULL count and a checksum of the values in a canonical form (the query's descriptor, verification, says which).",
			"The methods are sampled round-robin, one sample each per round, with the baseline and the limit rows; the replay (source=replay) is a group of its own; the partitioned reads are skipped on a query."}
		return []report.Block{t}, nil
	}
	t.Notes = []string{"Every method reads the whole table `performance_test_<rows>` (id bigint, score float8, active bool, name text 'user_'||i, created_date date) and, before it is timed, verifies every row against the generator's formulas (the Python peers, ADBC and ConnectorX: row count and checksums computed with pyarrow.compute). The table is built server-side with generate_series and vacuumed before the first read.",
		"The server holds the table: the throwaway server's shared_buffers are set to four times the largest table (a sequential scan of a table larger than a quarter of shared_buffers reads through a small ring buffer and would go to the OS cache on every read), and every table is loaded with pg_prewarm before its first read (see the run's environment, table_cache).",
		"The methods reading one table are sampled round-robin, one sample each per round, with the baseline and the limit rows; the replay (source=replay), the partitioned reads (partitions=N) and the batch-size sweep are groups of their own."}
	return []report.Block{t}, nil
}

func renderBySize(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	if len(v.sizes) == 0 {
		return nil, nil
	}
	t := &report.Table{Header: append([]string{"rows"}, v.methods...)}
	chart := table.LineChart{Title: "pgscan: rows/s by table size", XLabel: "rows in the table", YLabel: "rows per second", LogX: true, Palette: table.RunPalette(run)}
	series := map[string]*table.Series{}
	for _, n := range v.sizes {
		_, best := v.fastest(n, false)
		row := []string{table.Int(table.Number(n))}
		for _, m := range v.methods {
			s, r, ok := cell(v.ix.Get(m, n))
			if ok && best > 0 {
				s += fmt.Sprintf(" (%.0f%%)", 100*r/best)
			}
			row = append(row, s)
			if ok {
				if series[m] == nil {
					series[m] = &table.Series{Name: m}
				}
				series[m].X = append(series[m].X, table.Number(n))
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
		if svg, err := report.SVG(&chart); err == nil {
			blocks = append(blocks, &report.Plot{File: "pgscan-rows-per-second.svg", Caption: chart.Title, SVG: svg})
		}
	}
	return blocks, nil
}

// nsPerRow returns a per-read metric (seconds per full read, as
// MetricClientCPU) of case c in nanoseconds per row of the n-row table.
func nsPerRow(c *results.Case, unit, n string) (float64, bool) {
	if c == nil || !c.OK() {
		return 0, false
	}
	sec, ok := c.Median(unit)
	rows := table.Number(n)
	if !ok || rows <= 0 {
		return 0, false
	}
	return sec * 1e9 / rows, true
}

// nsRowCell formats nsPerRow for a table.
func nsRowCell(c *results.Case, unit, n string) string {
	if c != nil && !c.OK() {
		return table.TimeText(c)
	}
	v, ok := nsPerRow(c, unit, n)
	if !ok {
		return "–"
	}
	return table.Float(v)
}

// byClientCPU returns the subjects of cases at size n ordered by client
// CPU per row, lowest first; those without it keep their order, last.
func byClientCPU(ix *table.Index, subjects []string, n string) []string {
	out := slices.Clone(subjects)
	slices.SortStableFunc(out, func(a, b string) int {
		x, okA := nsPerRow(ix.Get(a, n), MetricClientCPU, n)
		y, okB := nsPerRow(ix.Get(b, n), MetricClientCPU, n)
		switch {
		case okA && okB:
			if x < y {
				return -1
			} else if x > y {
				return 1
			}
			return 0
		case okA:
			return -1
		case okB:
			return 1
		}
		return 0
	})
	return out
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
			Caption: fmt.Sprintf("%s rows", table.Int(table.Number(n))),
			Header: []string{"method", "role", "client CPU ns/row", "rows/s", "server CPU ns/row", "MB/s (wire)", "time × " + orDash(v.baseline), "time × " + orDash(lim),
				"rows/s × " + orDash(v.peer), "% of fastest non-Arrow", "% of server ceiling", "B/row", "peak RSS"},
		}
		for _, m := range byClientCPU(v.ix, v.methods, n) {
			c := v.ix.Get(m, n)
			s, r, ok := cell(c)
			role := "–"
			if c != nil {
				role = c.Role
			}
			row := []string{m, role, nsRowCell(c, MetricClientCPU, n), s}
			if !ok {
				for len(row) < len(t.Header) {
					row = append(row, "–")
				}
				t.Rows = append(t.Rows, row)
				continue
			}
			row = append(row,
				nsRowCell(c, MetricServerCPU, n),
				table.Median(c, results.UnitMBPerS, table.Plain).String(),
				table.RatioText(c, results.UnitVsBaseline, base),
				table.RatioText(c, results.UnitVsLimit, v.ix.Get(lim, n)),
				ratio(r, peer, hasPeer),
				pct(r, bestNonArrow),
				pctIf(r, ceiling, hasCeiling),
				perRow(c, n),
				table.Median(c, MetricPeakRSS, table.BytesF).String())
			t.Rows = append(t.Rows, row)
		}
		t.Notes = []string{
			"Ordered by client CPU per row, the first figure: when the server sets the pace, the wall-clock rows/s of the readers come close together and the CPU each spends per row is what tells them apart. Client CPU is this process's, plus the Python runner's for the peers; server CPU is the backend's (ConnectorX connects per read: the whole server's, exited backends included), read from /proc in clock ticks (10 ms: at 100,000 rows, steps of 100 ns/row).",
			"\"time ×\" columns: the method's time per full read as a multiple of the baseline's and of the limit row's, taken within each sampling round (median ±interval over the rounds), so drift of the machine or the server cancels out; below 1× is faster.",
			fmt.Sprintf("Fastest non-Arrow method here: %s. Server ceiling = the faster of the limit rows (COPY BINARY or SELECT drained undecoded), from the medians. B/row = bytes allocated per row by the Go process; peak RSS is the resident-set high-water mark during one sample.", orDash(nonArrowName))}
		blocks = append(blocks, t)
		if txt := targets(v, n); txt != "" {
			blocks = append(blocks, &report.Text{Body: txt})
		}
	}
	return blocks, nil
}

// replayView indexes the replay's cases by subject and rows.
func (v view) replayIndex() (*table.Index, []string, []string) {
	return table.NewIndex(v.replay, LabelSubject, "rows"), table.Distinct(v.replay, LabelSubject), table.Distinct(v.replay, "rows")
}

// replayRef returns the reference of the replay group at size n: its
// limit row (the pgx raw loop).
func (v view) replayRef(n string) string {
	for _, c := range v.replay {
		if c.Labels.Get("rows") == n && c.Role == results.RoleLimit {
			return c.Labels.Get(LabelSubject)
		}
	}
	return ""
}

// replayRatio returns the time of method m over the replay group's
// reference at size n (the in-round ratio when recorded), e.g. 1.4 when
// m needs 1.4 times the raw loop's time.
func (v view) replayRatio(m, n string) (float64, bool) {
	ix, _, _ := v.replayIndex()
	c, ref := ix.Get(m, n), ix.Get(v.replayRef(n), n)
	if c == nil || !c.OK() || ref == nil || !ref.OK() {
		return 0, false
	}
	if s, ok := c.Stat(results.UnitVsLimit); ok && s.Median > 0 {
		return s.Median, true
	}
	a, ok1 := c.Median(results.UnitNsPerOp)
	b, ok2 := ref.Median(results.UnitNsPerOp)
	if !ok1 || !ok2 || b <= 0 {
		return 0, false
	}
	return a / b, true
}

func renderReplay(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	if len(v.replay) == 0 {
		return nil, nil
	}
	ix, subjects, sizes := v.replayIndex()
	var blocks []report.Block
	for _, n := range sizes {
		ref := v.replayRef(n)
		t := &report.Table{
			Caption: fmt.Sprintf("%s rows, replayed", table.Int(table.Number(n))),
			Header:  []string{"method", "client CPU ns/row", "rows/s", "time × " + orDash(ref), "time × " + orDash(v.baseline), "replay ÷ server rows/s", "B/row"},
		}
		for _, m := range byClientCPU(ix, subjects, n) {
			c := ix.Get(m, n)
			s, r, ok := cell(c)
			row := []string{m, nsRowCell(c, MetricClientCPU, n), s}
			if !ok {
				for len(row) < len(t.Header) {
					row = append(row, "–")
				}
				t.Rows = append(t.Rows, row)
				continue
			}
			srv, hasSrv := rowsPerSec(v.ix.Get(m, n))
			row = append(row,
				table.RatioText(c, results.UnitVsLimit, ix.Get(ref, n)),
				table.RatioText(c, results.UnitVsBaseline, ix.Get(v.baseline, n)),
				ratio(r, srv, hasSrv),
				perRow(c, n))
			t.Rows = append(t.Rows, row)
		}
		t.Notes = []string{fmt.Sprintf("The server's answer to one read of the table, recorded once through a proxy (pgserver/replay) and played back in a loop by an in-process fake server on loopback at memory speed: no backend competes for the CPU, so each method's time is its own protocol handling and decoding — the client-only ceiling. The methods were sampled round-robin in a group of their own, %s (which decodes nothing but the fixed-width values and allocates nothing per row) as the reference; the fake server's CPU counts as client CPU. pgx reads the replay describing the statement on every read (QueryExecModeDescribeExec, as pgarrow does), so that every read sends the same messages.", orDash(ref))}
		blocks = append(blocks, t)
		if x, ok := v.replayRatio(v.baseline, n); ok {
			blocks = append(blocks, &report.Text{Body: fmt.Sprintf("- In the replay, %s needs %.2f× the time of %s (goal ≤ 2×: %s).", v.baseline, x, ref, metOr(x <= 2))})
		}
	}
	return blocks, nil
}

func renderParallel(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	if len(v.parallel) == 0 {
		return nil, nil
	}
	sizes := table.Distinct(v.parallel, "rows")
	var blocks []report.Block
	for _, n := range sizes {
		t := &report.Table{
			Caption: fmt.Sprintf("%s rows, over several connections", table.Int(table.Number(n))),
			Header:  []string{"method", "partitions", "client CPU ns/row", "rows/s", "server CPU ns/row", "time × " + orDash(v.baseline) + " (1 connection)", "rows/s × single stream"},
		}
		var base *results.Case
		for _, c := range v.parallel {
			if c.Labels.Get("rows") == n && c.Role == results.RoleBaseline {
				base = c
			}
		}
		for _, c := range v.parallel {
			if c.Labels.Get("rows") != n {
				continue
			}
			m := c.Labels.Get(LabelSubject)
			s, r, ok := cell(c)
			row := []string{m, c.Labels.Get(LabelPartitions), nsRowCell(c, MetricClientCPU, n), s}
			if !ok {
				for len(row) < len(t.Header) {
					row = append(row, "–")
				}
				t.Rows = append(t.Rows, row)
				continue
			}
			single, hasSingle := rowsPerSec(v.ix.Get(m, n))
			row = append(row, nsRowCell(c, MetricServerCPU, n), table.RatioText(c, results.UnitVsBaseline, base), ratio(r, single, hasSingle))
			t.Rows = append(t.Rows, row)
		}
		t.Notes = []string{"pgarrow: pgarrow.KeyRanges cuts the id range into N equal parts, pgarrow.ParallelQuery reads them over N connections at once (the key-range queries are built once, before timing); ConnectorX: read_sql with partition_on=\"id\", partition_num=N (its own min/max query timed). Every read returned the table's row count and checksums before it was timed. Server CPU is the sum of the backends' (ConnectorX: the whole server's). \"rows/s × single stream\" compares with the same method's single-stream read in the method comparison (a different sampling group: medians)."}
		blocks = append(blocks, t)
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
	for _, g := range v.goals(n, false) {
		out += "- " + g + "\n"
	}
	if name, best := v.fastest(n, true); best > 0 {
		if x, ok := v.speedOver(v.ix.Get(name, n), n); ok {
			out += fmt.Sprintf("- %s reaches %.0f%% of the fastest non-Arrow method, %s (goal ≥ 90%%: %s).\n", v.baseline, 100*x, name, metOr(x >= 0.9))
		}
	}
	out += fmt.Sprintf("- It allocates %s bytes per row (goal ≤ 100 at 10M rows).\n", perRow(base, n))
	return out + "\nRatios here are taken within each sampling round when the run recorded them (median over the rounds)."
}

// goals states, for size n, pgarrow's goals that the run can judge: rows/s
// against each peer, the lowest client CPU per row of the Arrow readers
// and, with replay, the replay's ratio to the raw loop.
func (v view) goals(n string, withReplay bool) []string {
	var out []string
	for _, p := range []struct {
		name string
		want float64
	}{{v.peer, 1.2}, {v.peer2, 1.5}} {
		if p.name == "" {
			continue
		}
		if x, ok := v.speedOver(v.ix.Get(p.name, n), n); ok {
			out = append(out, fmt.Sprintf("%s reads %.2f× as many rows per second as %s (goal ≥ %.1f×: %s).", v.baseline, x, p.name, p.want, metOr(x >= p.want)))
		}
	}
	if v.described {
		type reader struct {
			name string
			ns   float64
		}
		var ours, others []reader
		for _, m := range v.methods {
			if !v.arrow[m] || v.limit[m] {
				continue
			}
			ns, ok := nsPerRow(v.ix.Get(m, n), MetricClientCPU, n)
			if !ok {
				continue
			}
			if strings.HasPrefix(m, "pgarrow") {
				ours = append(ours, reader{m, ns})
			} else {
				others = append(others, reader{m, ns})
			}
		}
		best := func(rs []reader) reader {
			b := rs[0]
			for _, r := range rs[1:] {
				if r.ns < b.ns {
					b = r
				}
			}
			return b
		}
		if len(ours) > 0 && len(others) > 0 {
			o, p := best(ours), best(others)
			out = append(out, fmt.Sprintf("pgarrow's lowest client CPU per row, %s ns (%s), against the best other Arrow reader's, %s ns (%s): %.2f× (goal: the lowest of all Arrow readers: %s).",
				table.Float(o.ns), o.name, table.Float(p.ns), p.name, o.ns/p.ns, metOr(o.ns < p.ns)))
		}
	}
	if withReplay {
		if x, ok := v.replayRatio(v.baseline, n); ok {
			out = append(out, fmt.Sprintf("In the replay, %s needs %.2f× the time of %s, which decodes almost nothing (goal ≤ 2×: %s).", v.baseline, x, v.replayRef(n), metOr(x <= 2)))
		}
	}
	return out
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
	byBatch := table.NewIndex(all, "batch")
	batches := table.Distinct(all, "batch")
	sortNumeric(batches)
	t := &report.Table{Caption: fmt.Sprintf("%s rows", table.Int(table.Number(n))), Header: []string{"batch rows", "rows/s", "B/row", "allocs/op", "peak RSS"}}
	chart := table.LineChart{Title: "pgscan: " + subject + ", rows/s by batch size", XLabel: "rows per batch", YLabel: "rows per second", LogX: true}
	var ser table.Series
	ser.Name = subject
	for _, b := range batches {
		c := byBatch.Get(b)
		s, r, ok := cell(c)
		row := []string{table.Int(table.Number(b)), s, "–", "–", "–"}
		if ok {
			row[2] = perRow(c, n)
			row[3] = table.Median(c, results.UnitAllocsPerOp, table.IntF).String()
			row[4] = table.Median(c, MetricPeakRSS, table.BytesF).String()
			ser.X = append(ser.X, table.Number(b))
			ser.Y = append(ser.Y, r)
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"The sweep's batch sizes were sampled round-robin with one another; the default batch size's row is the " + subject + " case of the method comparison, measured in that group."}
	blocks := []report.Block{t}
	if len(ser.X) > 1 {
		chart.Series = []table.Series{ser}
		if svg, err := report.SVG(&chart); err == nil {
			blocks = append(blocks, &report.Plot{File: "pgscan-batch-sweep.svg", Caption: chart.Title, SVG: svg})
		}
	}
	return blocks, nil
}

func renderMemory(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	t := &report.Table{Header: []string{"method"}}
	for _, n := range v.sizes {
		t.Header = append(t.Header, table.Int(table.Number(n))+" rows: B/row", "allocs/op", "peak RSS")
	}
	for _, m := range v.methods {
		row := []string{m}
		for _, n := range v.sizes {
			c := v.ix.Get(m, n)
			if c == nil || !c.OK() {
				row = append(row, "–", "–", "–")
				continue
			}
			row = append(row, perRow(c, n), table.Median(c, results.UnitAllocsPerOp, table.IntF).String(), table.Median(c, MetricPeakRSS, table.BytesF).String())
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"Bytes allocated per row by the Go process (ADBC allocates in its own process: its B/row is the Go side's waiting only). A method whose peak RSS does not grow with the table streams in bounded memory."}
	return []report.Block{t}, nil
}

// Summary implements workload.Workload: the largest table's comparison.
func (w *Workload) Summary(run *results.Run, cases []*results.Case) *table.Table {
	return report.Typed(w.summary(run, cases))
}

func (*Workload) summary(run *results.Run, cases []*results.Case) *report.Table {
	v := newView(run, cases)
	if len(v.sizes) == 0 {
		return nil
	}
	n := v.sizes[len(v.sizes)-1]
	_, best := v.fastest(n, false)
	peer, hasPeer := rowsPerSec(v.ix.Get(v.peer, n))
	ceiling, hasCeiling := v.ceiling(n)
	t := &report.Table{Caption: fmt.Sprintf("pgscan: %s rows", table.Int(table.Number(n))), Header: []string{"method", "client CPU ns/row", "rows/s", "of fastest", "× " + orDash(v.peer), "of ceiling", "B/row", "peak RSS"}}
	for _, m := range byClientCPU(v.ix, v.methods, n) {
		c := v.ix.Get(m, n)
		s, r, ok := cell(c)
		if !ok {
			t.Rows = append(t.Rows, []string{m, nsRowCell(c, MetricClientCPU, n), s, "", "", "", "", ""})
			continue
		}
		t.Rows = append(t.Rows, []string{m, nsRowCell(c, MetricClientCPU, n), s, pct(r, best), ratio(r, peer, hasPeer), pctIf(r, ceiling, hasCeiling), perRow(c, n), table.Median(c, MetricPeakRSS, table.BytesF).String()})
	}
	return t
}

func perRow(c *results.Case, n string) string {
	b, ok := c.Median(results.UnitBytesPerOp)
	rows := table.Number(n)
	if !ok || rows == 0 {
		return "–"
	}
	return table.Float(b / rows)
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
		for j := i; j > 0 && table.Number(xs[j]) < table.Number(xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
