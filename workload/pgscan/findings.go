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

// view is what a run's results say about this workload: its cases by
// sampling group, the main group and the replay indexed by subject and
// rows, and the roles and tags the run recorded.
type view struct {
	main, sweep, replay, parallel []*results.Case
	ix, rix                       *table.Index
	methods, sizes                []string
	// baseline is pgarrow over SELECT; peer the ADBC driver, peer2
	// ConnectorX.
	baseline, peer, peer2 string
	limit, arrow          map[string]bool
	// described is set when the run recorded descriptors: without them
	// (results from before schema 2) which methods produce Arrow is
	// unknown, and the report makes no claim about non-Arrow methods.
	described bool
}

// newView sorts cases into their sampling groups and reads the roles and
// tags the run recorded.
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
			v.limit[c.Labels.Get(LabelSubject)] = v.limit[c.Labels.Get(LabelSubject)] || c.IsLimit()
		}
	}
	v.ix, v.rix = table.NewIndex(v.main, LabelSubject, "rows"), table.NewIndex(v.replay, LabelSubject, "rows")
	v.methods, v.sizes = table.Distinct(v.main, LabelSubject), table.Distinct(v.main, "rows")
	// Results from before roles were recorded name no baseline: pgarrow
	// over SELECT is the one this workload has always compared with.
	v.baseline = table.SubjectWithRole(v.main, results.RoleBaseline, MethodSelect)
	for _, d := range run.Descriptors {
		if d.Workload == Name && d.Key == LabelSubject {
			v.described = true
			v.arrow[d.Name] = v.arrow[d.Name] || slices.Contains(d.Tags, TagArrow)
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

// Derive implements workload.Workload: every table of the report but the
// methods', and the findings, from the run's results.
func (*Workload) Derive(run *results.Run, cases []*results.Case) table.Derived {
	v := newView(run, cases)
	d := table.Derived{"findings": {table.Findings(v.findings(run))}, "query": queryBlocks(run), "replay": v.replayTables(),
		"parallel": v.parallelTables(), "sweep": v.sweepTable()}
	if v.described {
		d["methods"] = []table.Block{methodNotes(run)}
	}
	if len(v.sizes) > 0 {
		d["by-size"], d["comparison"], d["memory"] = v.bySize(run), v.comparison(), []table.Block{v.memory()}
	}
	return d
}

// methodNotes say what every method reads and how the groups were
// sampled: a query's result, or the generated tables.
func methodNotes(run *results.Run) *table.Text {
	if queryDescriptor(run) != nil {
		return &table.Text{Body: "Every method reads the result of your query (see above), and before it is timed compares it with pgarrow-select's reading of it: the row count and, per column, the NULL count and a checksum of the values in a canonical form (the query's descriptor, verification, says which).\n\n" +
			"The methods are sampled round-robin, one sample each per round, with the baseline and the limit rows; the replay (source=replay) is a group of its own; the partitioned reads are skipped on a query."}
	}
	return &table.Text{Body: "Every method reads the whole table `performance_test_<rows>` (id bigint, score float8, active bool, name text 'user_'||i, created_date date) and, before it is timed, verifies every row against the generator's formulas (the Python peers, ADBC and ConnectorX: row count and checksums computed with pyarrow.compute). The table is built server-side with generate_series and vacuumed before the first read.\n\n" +
		"The server holds the table: the throwaway server's shared_buffers are set to four times the largest table (a sequential scan of a table larger than a quarter of shared_buffers reads through a small ring buffer and would go to the OS cache on every read), and every table is loaded with pg_prewarm before its first read (see the run's environment, table_cache).\n\n" +
		"The methods reading one table are sampled round-robin, one sample each per round, with the baseline and the limit rows; the replay (source=replay), the partitioned reads (partitions=N) and the batch-size sweep are groups of their own."}
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

// speed is c's rows per second in millions ("2.56M"), noisy when its time
// is.
func speed(c *results.Case) table.Cell {
	cell := table.Computed(c, results.UnitNsPerOp, table.Plain, func(ns float64) float64 { return rowsOf(c) * 1e3 / ns })
	if cell.Kind == table.Value {
		cell.Text = "M"
		if c.Noisy {
			cell = cell.With(table.Noisy)
		}
	}
	return cell
}

// perRow is c's median of unit per row read, times scale: 1e9 turns the
// seconds of CPU per read into ns/row.
func perRow(c *results.Case, unit string, scale float64) table.Cell {
	return table.Computed(c, unit, table.Plain, func(v float64) float64 { return v * scale / rowsOf(c) })
}

// frac is a ÷ b × scale in format f followed by text ("89%", "1.63×");
// a dash when either is missing.
func frac(a, b, scale float64, f table.Format, text string) table.Cell {
	if a <= 0 || b <= 0 {
		return table.Dash()
	}
	c := table.Num(scale*a/b, f)
	c.Text = text
	return c
}

// refs are what a table compares its cases with: its sampling group's
// baseline and limit row, the rows/s of another case (the peer, or the
// same method in the main group), and the best rows/s at the size: of the
// readers, of those not producing Arrow, and of the limit rows (the
// server's ceiling).
type refs struct {
	base, limit                       *results.Case
	other, fastest, nonArrow, ceiling float64
}

// row is the row of case c: lead, then the figures named by keys. A case
// without a time (failed, not run) shows only its client CPU and status.
func (r refs) row(c *results.Case, lead []table.Cell, keys ...string) []table.Cell {
	f := map[string]table.Cell{"client": perRow(c, MetricClientCPU, 1e9), "rows/s": speed(c)}
	if rps := rowsPerSec(c); rps > 0 {
		pct := func(of float64) table.Cell { return frac(rps, of, 100, table.IntF, "%") }
		f["server"], f["MB/s"] = perRow(c, MetricServerCPU, 1e9), table.Median(c, results.UnitMBPerS, table.Plain)
		f["×base"], f["×limit"] = table.Ratio(c, results.UnitVsBaseline, r.base), table.Ratio(c, results.UnitVsLimit, r.limit)
		f["×other"], f["%fastest"], f["%nonArrow"], f["%ceiling"] = frac(rps, r.other, 1, table.TimesF, ""), pct(r.fastest), pct(r.nonArrow), pct(r.ceiling)
		f["B/row"], f["allocs"], f["RSS"] = perRow(c, results.UnitBytesPerOp, 1), table.Median(c, results.UnitAllocsPerOp, table.IntF), table.Median(c, MetricPeakRSS, table.BytesF)
	}
	for _, k := range keys {
		lead = append(lead, f[k]) // a figure not computed is a dash
	}
	return lead
}

// at returns the main group's references at size n.
func (v view) at(n string) refs {
	r := refs{base: v.ix.Get(v.baseline, n), limit: v.ix.Get(refOf(v.main, n), n), other: rowsPerSec(v.ix.Get(v.peer, n))}
	_, r.fastest = v.best(n, v.reader)
	_, r.nonArrow = v.best(n, v.nonArrow)
	_, r.ceiling = v.best(n, v.ceiling)
	return r
}

// best returns the method with the highest rows/s at size n among those
// keep accepts.
func (v view) best(n string, keep func(m string) bool) (name string, r float64) {
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
func (v view) reader(m string) bool   { return !v.limit[m] }
func (v view) nonArrow(m string) bool { return v.described && !v.limit[m] && !v.arrow[m] }
func (v view) ceiling(m string) bool  { return v.limit[m] }

// refOf is the limit row the in-round ratios of size n were taken
// against: the group's first, in the order the run recorded.
func refOf(cases []*results.Case, n string) string {
	for _, c := range table.Where(cases, "rows", n) {
		if c.IsLimit() {
			return c.Labels.Get(LabelSubject)
		}
	}
	return ""
}

// byClientCPU orders subjects by the client CPU per row of their case at
// size n, lowest first; those without it keep their order, last.
func byClientCPU(ix *table.Index, subjects []string, n string) []string {
	key := func(m string) float64 {
		if c := perRow(ix.Get(m, n), MetricClientCPU, 1e9); c.Kind == table.Value {
			return c.V
		}
		return math.Inf(1)
	}
	out := slices.Clone(subjects)
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(key(a), key(b)) })
	return out
}

// over is the time of case c as a multiple of ref's, the ratio taken in
// each round when recorded (unit), else of the medians: how many times as
// many rows per second ref reads. 0 when unknown.
func over(c *results.Case, unit string, ref *results.Case) float64 {
	if r := table.Ratio(c, unit, ref); r.Kind == table.Value || r.Kind == table.Stat {
		return r.V
	}
	return 0
}

// bySize is every method's rows/s at each table size, and its plot when
// there are several sizes.
func (v view) bySize(run *results.Run) []table.Block {
	t := &table.Table{Header: append([]string{"rows"}, v.methods...)}
	ch := &table.LineChart{Title: "pgscan: rows/s by table size", XLabel: "rows in the table", YLabel: "rows per second", LogX: true, Palette: table.RunPalette(run)}
	var limits []string
	for _, m := range v.methods {
		s := table.Series{Name: m}
		for _, n := range v.sizes {
			if r := rowsPerSec(v.ix.Get(m, n)); r > 0 {
				s.X, s.Y = append(s.X, table.Number(n)), append(s.Y, r)
			}
		}
		if len(s.X) > 0 {
			ch.Series = append(ch.Series, s)
		}
		if v.limit[m] {
			limits = append(limits, m)
		}
	}
	for _, n := range v.sizes {
		cells, r := []table.Cell{table.Num(table.Number(n), table.IntF)}, v.at(n)
		for _, m := range v.methods {
			c := r.row(v.ix.Get(m, n), nil, "rows/s", "%fastest")
			if c[1].Kind == table.Value {
				c[0].Text += " (" + c[1].String() + ")"
			}
			cells = append(cells, c[0])
		}
		t.AddRow(cells...)
	}
	t.Notes = []string{"Million rows per second (median), and in brackets the share of the fastest method of the same run at that size; the limit rows (" + table.OrDash(strings.Join(limits, ", ")) + ") can exceed 100%."}
	if len(v.sizes) < 2 {
		return []table.Block{t}
	}
	return []table.Block{t, &table.Plot{File: "pgscan-rows-per-second.svg", Caption: ch.Title, Chart: ch}}
}

// comparison is, per table size, every method of the main group with
// its CPU, speed, ratios and memory, then the goals the size can judge.
func (v view) comparison() []table.Block {
	var out []table.Block
	for _, n := range v.sizes {
		r := v.at(n)
		nonArrow, _ := v.best(n, v.nonArrow)
		t := &table.Table{
			Caption: table.Int(table.Number(n)) + " rows",
			Header: []string{"method", "role", "client CPU ns/row", "rows/s", "server CPU ns/row", "MB/s (wire)", "time × " + table.OrDash(v.baseline), "time × " + table.OrDash(refOf(v.main, n)),
				"rows/s × " + table.OrDash(v.peer), "% of fastest non-Arrow", "% of server ceiling", "B/row", "peak RSS"},
			Notes: []string{"Ordered by client CPU per row, the first figure: when the server sets the pace, the wall-clock rows/s of the readers come close together and the CPU each spends per row is what tells them apart. Client CPU is this process's, plus the Python runner's for the peers; server CPU is the backend's (ConnectorX connects per read: the whole server's, exited backends included), read from /proc in clock ticks (10 ms: at 100,000 rows, steps of 100 ns/row).",
				"\"time ×\" columns: the method's time per full read as a multiple of the baseline's and of the limit row's, taken within each sampling round (median ±interval over the rounds), so drift of the machine or the server cancels out; below 1× is faster.",
				"Fastest non-Arrow method here: " + table.OrDash(nonArrow) + ". Server ceiling = the faster of the limit rows (COPY BINARY or SELECT drained undecoded), from the medians. B/row = bytes allocated per row by the Go process; peak RSS is the resident-set high-water mark during one sample."},
		}
		for _, m := range byClientCPU(v.ix, v.methods, n) {
			c, role := v.ix.Get(m, n), "–"
			if c != nil {
				role = c.Role
			}
			t.AddRow(r.row(c, []table.Cell{table.Str(m), table.Str(role)}, "client", "rows/s", "server", "MB/s", "×base", "×limit", "×other", "%nonArrow", "%ceiling", "B/row", "RSS")...)
		}
		out = append(out, t)
		if r.base == nil || !r.base.OK() {
			continue
		}
		lines := v.goals(n, false)
		if x := over(v.ix.Get(nonArrow, n), results.UnitVsBaseline, r.base); x > 0 {
			lines = append(lines, fmt.Sprintf("%s reaches %.0f%% of the fastest non-Arrow method, %s (goal ≥ 90%%: %s).", v.baseline, 100*x, nonArrow, metOr(x >= 0.9)))
		}
		lines = append(lines, "It allocates "+perRow(r.base, results.UnitBytesPerOp, 1).String()+" bytes per row (goal ≤ 100 at 10M rows).")
		out = append(out, &table.Text{Body: table.Findings(lines).Body + "\n\nRatios here are taken within each sampling round when the run recorded them (median over the rounds)."})
	}
	return out
}

// goals states, for size n, pgarrow's goals that the run can judge: rows/s
// against each peer, the lowest client CPU per row of the Arrow readers
// and, with replay, the replay's ratio to the raw loop.
func (v view) goals(n string, withReplay bool) []string {
	var out []string
	base := v.ix.Get(v.baseline, n)
	for _, p := range []struct {
		name string
		want float64
	}{{v.peer, 1.2}, {v.peer2, 1.5}} {
		if x := over(v.ix.Get(p.name, n), results.UnitVsBaseline, base); p.name != "" && x > 0 {
			out = append(out, fmt.Sprintf("%s reads %.2f× as many rows per second as %s (goal ≥ %.1f×: %s).", v.baseline, x, p.name, p.want, metOr(x >= p.want)))
		}
	}
	// The lowest client CPU per row of pgarrow's readers and of the other
	// Arrow readers.
	var ours, others struct {
		name string
		ns   float64
	}
	for _, m := range v.methods {
		c := perRow(v.ix.Get(m, n), MetricClientCPU, 1e9)
		if !v.arrow[m] || v.limit[m] || c.Kind != table.Value {
			continue
		}
		b := &others
		if strings.HasPrefix(m, "pgarrow") {
			b = &ours
		}
		if b.name == "" || c.V < b.ns {
			b.name, b.ns = m, c.V
		}
	}
	if ours.name != "" && others.name != "" {
		out = append(out, fmt.Sprintf("pgarrow's lowest client CPU per row, %s ns (%s), against the best other Arrow reader's, %s ns (%s): %.2f× (goal: the lowest of all Arrow readers: %s).",
			table.Float(ours.ns), ours.name, table.Float(others.ns), others.name, ours.ns/others.ns, metOr(ours.ns < others.ns)))
	}
	if x, ref := v.replayRatio(n); withReplay && x > 0 {
		out = append(out, fmt.Sprintf("In the replay, %s needs %.2f× the time of %s, which decodes almost nothing (goal ≤ 2×: %s).", v.baseline, x, ref, metOr(x <= 2)))
	}
	return out
}

// replayRatio is the baseline's time in the replay at size n as a multiple
// of the replay's reference, its limit row (the pgx raw loop), and that
// reference; 0 when unknown.
func (v view) replayRatio(n string) (float64, string) {
	ref := refOf(v.replay, n)
	if ref == "" {
		return 0, ""
	}
	return over(v.rix.Get(v.baseline, n), results.UnitVsLimit, v.rix.Get(ref, n)), ref
}

// replayTables compare the methods reading the replay, per size, with its
// limit row, the baseline and their own read of the server.
func (v view) replayTables() []table.Block {
	var out []table.Block
	for _, n := range table.Distinct(v.replay, "rows") {
		ref := refOf(v.replay, n)
		t := &table.Table{
			Caption: table.Int(table.Number(n)) + " rows, replayed",
			Header:  []string{"method", "client CPU ns/row", "rows/s", "time × " + table.OrDash(ref), "time × " + table.OrDash(v.baseline), "replay ÷ server rows/s", "B/row"},
			Notes:   []string{"The server's answer to one read of the table, recorded once through a proxy (pgserver/replay) and played back in a loop by an in-process fake server on loopback at memory speed: no backend competes for the CPU, so each method's time is its own protocol handling and decoding — the client-only ceiling. The methods were sampled round-robin in a group of their own, " + table.OrDash(ref) + " (which decodes nothing but the fixed-width values and allocates nothing per row) as the reference; the fake server's CPU counts as client CPU. pgx reads the replay describing the statement on every read (QueryExecModeDescribeExec, as pgarrow does), so that every read sends the same messages."},
		}
		for _, m := range byClientCPU(v.rix, table.Distinct(v.replay, LabelSubject), n) {
			r := refs{base: v.rix.Get(v.baseline, n), limit: v.rix.Get(ref, n), other: rowsPerSec(v.ix.Get(m, n))}
			t.AddRow(r.row(v.rix.Get(m, n), []table.Cell{table.Str(m)}, "client", "rows/s", "×limit", "×base", "×other", "B/row")...)
		}
		out = append(out, t)
		if x, _ := v.replayRatio(n); x > 0 {
			out = append(out, &table.Text{Body: fmt.Sprintf("- In the replay, %s needs %.2f× the time of %s (goal ≤ 2×: %s).", v.baseline, x, ref, metOr(x <= 2))})
		}
	}
	return out
}

// parallelTables are the reads over several connections, per size.
func (v view) parallelTables() []table.Block {
	var out []table.Block
	for _, n := range table.Distinct(v.parallel, "rows") {
		t := &table.Table{
			Caption: table.Int(table.Number(n)) + " rows, over several connections",
			Header:  []string{"method", "partitions", "client CPU ns/row", "rows/s", "server CPU ns/row", "time × " + table.OrDash(v.baseline) + " (1 connection)", "rows/s × single stream"},
			Notes:   []string{"pgarrow: pgarrow.KeyRanges cuts the id range into N equal parts, pgarrow.ParallelQuery reads them over N connections at once (the key-range queries are built once, before timing); ConnectorX: read_sql with partition_on=\"id\", partition_num=N (its own min/max query timed). Every read returned the table's row count and checksums before it was timed. Server CPU is the sum of the backends' (ConnectorX: the whole server's). \"rows/s × single stream\" compares with the same method's single-stream read in the method comparison (a different sampling group: medians)."},
		}
		cases := table.Where(v.parallel, "rows", n)
		var base *results.Case
		for _, c := range cases {
			if c.Role == results.RoleBaseline {
				base = c
			}
		}
		for _, c := range cases {
			m := c.Labels.Get(LabelSubject)
			r := refs{base: base, other: rowsPerSec(v.ix.Get(m, n))}
			t.AddRow(r.row(c, []table.Cell{table.Str(m), table.Num(table.Number(c.Labels.Get(LabelPartitions)), table.IntF)}, "client", "rows/s", "server", "×base", "×other")...)
		}
		out = append(out, t)
	}
	return out
}

// sweepTable is the batch-size sweep with the method comparison's case of
// its subject and size (the default batch size), by batch size.
func (v view) sweepTable() []table.Block {
	if len(v.sweep) == 0 {
		return nil
	}
	n, subject := v.sweep[0].Labels.Get("rows"), v.sweep[0].Labels.Get(LabelSubject)
	all := append(slices.Clone(v.sweep), v.ix.Get(subject, n))
	batch := func(c *results.Case) float64 { return table.Number(c.Labels.Get("batch")) }
	all = slices.DeleteFunc(all, func(c *results.Case) bool { return c == nil })
	slices.SortStableFunc(all, func(a, b *results.Case) int { return cmp.Compare(batch(a), batch(b)) })
	t := &table.Table{Caption: table.Int(table.Number(n)) + " rows", Header: []string{"batch rows", "rows/s", "B/row", "allocs/op", "peak RSS"},
		Notes: []string{"The sweep's batch sizes were sampled round-robin with one another; the default batch size's row is the " + subject + " case of the method comparison, measured in that group."}}
	ser := table.Series{Name: subject}
	for _, c := range all {
		t.AddRow(refs{}.row(c, []table.Cell{table.Num(batch(c), table.IntF)}, "rows/s", "B/row", "allocs", "RSS")...)
		if r := rowsPerSec(c); r > 0 {
			ser.X, ser.Y = append(ser.X, batch(c)), append(ser.Y, r)
		}
	}
	if len(ser.X) < 2 {
		return []table.Block{t}
	}
	ch := &table.LineChart{Title: "pgscan: " + subject + ", rows/s by batch size", XLabel: "rows per batch", YLabel: "rows per second", LogX: true, Series: []table.Series{ser}}
	return []table.Block{t, &table.Plot{File: "pgscan-batch-sweep.svg", Caption: ch.Title, Chart: ch}}
}

// memory is every method's bytes and allocations per row and peak RSS,
// by table size.
func (v view) memory() *table.Table {
	t := &table.Table{Header: []string{"method"}, Notes: []string{"Bytes allocated per row by the Go process (ADBC allocates in its own process: its B/row is the Go side's waiting only). A method whose peak RSS does not grow with the table streams in bounded memory."}}
	for _, n := range v.sizes {
		t.Header = append(t.Header, table.Int(table.Number(n))+" rows: B/row", "allocs/op", "peak RSS")
	}
	for _, m := range v.methods {
		var cells []table.Cell
		for _, n := range v.sizes {
			cells = refs{}.row(v.ix.Get(m, n), cells, "B/row", "allocs", "RSS")
		}
		t.AddRow(append([]table.Cell{table.Str(m)}, cells...)...)
	}
	return t
}

// Summary implements workload.Workload: the largest table's comparison.
func (*Workload) Summary(run *results.Run, cases []*results.Case) *table.Table {
	v := newView(run, cases)
	if len(v.sizes) == 0 {
		return nil
	}
	n := v.sizes[len(v.sizes)-1]
	t := &table.Table{Caption: "pgscan: " + table.Int(table.Number(n)) + " rows", Header: []string{"method", "client CPU ns/row", "rows/s", "of fastest", "× " + table.OrDash(v.peer), "of ceiling", "B/row", "peak RSS"}}
	for _, m := range byClientCPU(v.ix, v.methods, n) {
		t.AddRow(v.at(n).row(v.ix.Get(m, n), []table.Cell{table.Str(m)}, "client", "rows/s", "%fastest", "×other", "%ceiling", "B/row", "RSS")...)
	}
	return t
}

// findings open the workload at its largest table: client CPU per row, the
// fastest reader and its share of the server's own ceiling, the seed's
// claim that its reader beats ADBC, the goals, and the partitioned reads.
func (v view) findings(run *results.Run) []string {
	if len(v.sizes) == 0 {
		return nil
	}
	n := v.sizes[len(v.sizes)-1]
	what := "the " + table.Int(table.Number(n)) + "-row table"
	if queryDescriptor(run) != nil {
		what = "your query's " + table.Int(table.Number(n)) + " rows"
	}
	var lines, parts []string
	// Client CPU per row first: when the server sets the pace, it is what
	// tells the readers apart.
	for _, m := range byClientCPU(v.ix, v.methods, n) {
		c := v.ix.Get(m, n)
		if ns := perRow(c, MetricClientCPU, 1e9); !v.limit[m] && ns.Kind == table.Value && rowsPerSec(c) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s ns (%s rows/s%s)", m, table.Float(ns.V), mrows(rowsPerSec(c)), fewNote(c)))
		}
	}
	if len(parts) > 0 {
		lines = append(lines, fmt.Sprintf("Client CPU per row at %s, lowest first, and wall-clock rows/s: %s.", what, strings.Join(parts, "; ")))
	}
	if name, rate := v.best(n, v.reader); rate > 0 {
		line := fmt.Sprintf("Fastest reader of %s: **%s**, %s rows/s%s", what, name, mrows(rate), table.SamplesMark(v.ix.Get(name, n)))
		if lim, ceil := v.best(n, v.ceiling); ceil > 0 {
			line += fmt.Sprintf(", %s of the server's own ceiling (%s rows/s%s)", table.Pct(rate/ceil), mrows(ceil), fewNote(v.ix.Get(lim, n)))
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
		if x := over(p, results.UnitVsBaseline, base); x > 0 {
			verdict := "**held**"
			if x < 1 {
				verdict = "**not held**"
			}
			lines = append(lines, fmt.Sprintf("Seed: its Arrow reader beats the ADBC driver — %s here: %s reads %.2f× the rows per second of %s.", verdict, v.baseline, x, v.peer))
		} else if p != nil && p.Skipped() {
			lines = append(lines, "The seed's comparison with ADBC was not made here: "+strings.TrimSuffix(p.Error, ".")+".")
		}
		if p := v.ix.Get(v.peer2, n); p != nil && p.Skipped() {
			lines = append(lines, "The comparison with ConnectorX was not made here: "+strings.TrimSuffix(p.Error, ".")+".")
		}
		for _, g := range v.goals(n, true) {
			lines = append(lines, "Goal: "+g)
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

// fewNote is ", n=1" or ", n=2" for a case whose median time rests on
// fewer than table.FewSamples samples, to close a parenthesis with; else
// "".
func fewNote(c *results.Case) string {
	if m := table.SamplesMark(c); m != "" {
		return ", " + m[2:len(m)-1]
	}
	return ""
}

// metOr is a goal's verdict.
func metOr(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}
