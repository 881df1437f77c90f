package pgscan

import (
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// What every method reads and how the groups were sampled, under the
// methods: the generated tables, or a query's result (Derive picks).
const (
	readsTables = "Every method reads the whole table `performance_test_<rows>` (id bigint, score float8, active bool, name text 'user_'||i, created_date date) and, before it is timed, verifies every row against the generator's formulas (the Python peers, ADBC and ConnectorX: row count and checksums computed with pyarrow.compute). The table is built server-side with generate_series and vacuumed before the first read.\n\n" +
		"The server holds the table: the throwaway server's shared_buffers are set to four times the largest table (a sequential scan of a table larger than a quarter of shared_buffers reads through a small ring buffer and would go to the OS cache on every read), and every table is loaded with pg_prewarm before its first read (see the run's environment, table_cache).\n\n" +
		"The methods reading one table are sampled round-robin, one sample each per round, with the baseline and the limit rows; the replay (source=replay), the partitioned reads (partitions=N) and the batch-size sweep are groups of their own."
	readsQuery = "Every method reads the result of your query (see above), and before it is timed compares it with pgarrow-select's reading of it: the row count and, per column, the NULL count and a checksum of the values in a canonical form (the query's descriptor, verification, says which).\n\n" +
		"The methods are sampled round-robin, one sample each per round, with the baseline and the limit rows; the replay (source=replay) is a group of its own; the partitioned reads are skipped on a query."
)

// inMain selects the method comparison's cases — every method's read of a
// table (or of the query) from the server over one connection, at the
// default batch size — and then more.
func inMain(more ...table.Match) []table.Match {
	return append([]table.Match{table.IsNot(LabelSource, sourceReplay), {Key: LabelPartitions, Not: true}, {Key: "sweep", Not: true}}, more...)
}

// single names a method's case in the method comparison from a row of
// another group, with other label values.
func single(labels map[string]string) map[string]string {
	out := map[string]string{LabelPartitions: "-", "sweep": "-"}
	for k, v := range labels {
		out[k] = v
	}
	return out
}

// The figures of a read, per row read: CPU seconds × 1e9 ÷ rows is ns/row.
var (
	colClientCPU   = table.Column{Head: "client CPU ns/row", Show: "median", Unit: MetricClientCPU, Per: "rows", Scale: 1e9}
	colServerCPU   = table.Column{Head: "server CPU ns/row", Show: "median", Unit: MetricServerCPU, Per: "rows", Scale: 1e9}
	colRowRate     = table.Column{Head: "rows/s", Show: "rate", Unit: results.UnitNsPerOp, Per: "rows", Scale: 1e9, Format: "compact"}
	colOfFastest   = table.Column{Head: "% of fastest", Show: "best", Invert: true, Unit: results.UnitNsPerOp, Per: "rows", Scale: 1e9, Format: "pct"}
	colBytesPerRow = table.Column{Head: "B/row", Show: "median", Unit: results.UnitBytesPerOp, Per: "rows"}
	colAllocs      = table.Column{Head: "allocs/op", Show: "median", Unit: results.UnitAllocsPerOp, Format: "int"}
	colPeakRSS     = table.Column{Head: "peak RSS", Show: "median", Unit: MetricPeakRSS, Format: "bytes"}
	// The method comparison's in-round ratios. Their references serve
	// results without them (the ratio of the medians): the baseline's
	// names the source, since the replay has a case of it too.
	colTimesBaseline = table.Column{Head: "time × " + MethodSelect, Show: "ratio", Unit: results.UnitVsBaseline,
		Ref: single(map[string]string{LabelSubject: MethodSelect, LabelSource: sourceServer})}
	colTimesLimit = table.Column{Head: "time × {@limit}", Show: "ratio", Unit: results.UnitVsLimit, Ref: single(map[string]string{LabelSubject: "@limit"})}
	// Rows/s as a multiple of the peer's (its time over this one's), and
	// as a share of the server's ceiling: the limit row's.
	colTimesPeer = table.Column{Head: "rows/s × " + MethodADBC, Show: "vs", Invert: true, Unit: results.UnitNsPerOp, Ref: single(map[string]string{LabelSubject: MethodADBC})}
	colOfCeiling = table.Column{Head: "% of server ceiling ({@limit})", Show: "vs", Invert: true, Unit: results.UnitNsPerOp, Format: "pct",
		Ref: single(map[string]string{LabelSubject: "@limit"})}
	// A replayed or partitioned read's rows/s as a multiple of the same
	// method's in the method comparison (headed where it is used).
	colTimesSingle = table.Column{Show: "vs", Invert: true, Unit: results.UnitNsPerOp, Ref: single(map[string]string{LabelSource: sourceServer})}
)

// byMethod is a table of the methods' cases that where selects, one per
// table size, ordered by client CPU per row.
func byMethod(caption string, where []table.Match, notes []string, cols ...table.Column) *table.Spec {
	return &table.Spec{Caption: caption, Where: where, Split: []string{"rows"}, Rows: []string{LabelSubject}, RowHeads: []string{"method"},
		Sort: colClientCPU.Head, Columns: cols, Notes: notes}
}

// bySize is a table of the methods' cases of the main group, with cols
// for each table size.
func bySize(notes []string, plot *table.PlotSpec, cols ...table.Column) *table.Spec {
	return &table.Spec{Where: inMain(), Rows: []string{LabelSubject}, RowHeads: []string{"method"}, Cols: "rows", Columns: cols, Notes: notes, Plot: plot}
}

// ratePlot draws rows/s against label x, a series per method.
func ratePlot(file, title, x, xLabel string) *table.PlotSpec {
	return &table.PlotSpec{File: file, Caption: title, Title: title, X: x, Series: LabelSubject, Unit: results.UnitNsPerOp, Per: "rows", Scale: 1e9,
		XLabel: xLabel, YLabel: "rows per second", LogX: true, MinX: 2}
}

// summary is the largest table's comparison, printed after a run.
var summary = byMethod("pgscan: {rows:int} rows", inMain(table.Largest("rows")), nil, colClientCPU, colRowRate, withHead(colOfFastest, "of fastest"),
	withHead(colTimesPeer, "× "+MethodADBC), withHead(colOfCeiling, "of ceiling"), colBytesPerRow, colPeakRSS)

// Layout implements workload.Workload: the findings, the user's query,
// the methods, then the tables by sampling group — the main group by table
// size and method, the replay, the partitioned reads, the batch-size
// sweep — and memory. The findings and the goals stated under the tables
// are derived from the results (findings.go).
func (*Workload) Layout() []table.Section {
	return []table.Section{
		{Title: "Findings", Blocks: []table.BlockSpec{{Derived: "findings"}}},
		{Title: "Your query", Blocks: []table.BlockSpec{{Derived: "query"}}},
		{Title: "Methods", Blocks: []table.BlockSpec{{Subjects: LabelSubject}, {Derived: "methods"}}},
		{Title: "Rows per second by table size (higher is better)", Blocks: []table.BlockSpec{{Table: bySize(
			[]string{"Rows per second (median) and its share of the fastest row's of the same run at that size, the limit rows (the server's own output, undecoded) included."},
			ratePlot("pgscan-rows-per-second.svg", "pgscan: rows/s by table size", "rows", "rows in the table"),
			withHead(colRowRate, "{col:int} rows: rows/s"), colOfFastest)}}},
		{Title: "Method and peer comparison", Blocks: []table.BlockSpec{
			{Table: byMethod("{rows:int} rows", inMain(), []string{
				"Ordered by client CPU per row, the first figure: when the server sets the pace, the wall-clock rows/s of the readers come close together and the CPU each spends per row is what tells them apart. Client CPU is this process's, plus the Python runner's for the peers; server CPU is the backend's (ConnectorX connects per read: the whole server's, exited backends included), read from /proc in clock ticks (10 ms: at 100,000 rows, steps of 100 ns/row).",
				"\"time ×\" columns: the method's time per full read as a multiple of the baseline's and of the limit row's, taken within each sampling round (median ±interval over the rounds), so drift of the machine or the server cancels out; below 1× is faster.",
				"% of fastest: rows/s as a share of the fastest row's at this size, the limit rows included; % of server ceiling: as a share of the limit row's (the server's COPY BINARY output drained undecoded: what one backend delivers), from the medians. B/row = bytes allocated per row by the Go process; peak RSS is the resident-set high-water mark during one sample.",
			}, table.Column{Head: "role", Show: "role"}, colClientCPU, colRowRate, colServerCPU, table.Column{Head: "MB/s (wire)", Show: "median", Unit: results.UnitMBPerS},
				colTimesBaseline, colTimesLimit, colTimesPeer, colOfFastest, colOfCeiling, colBytesPerRow, colPeakRSS)},
			{Derived: "goals"},
			{Text: "Ratios here are taken within each sampling round when the run recorded them (median over the rounds)."},
		}},
		{Title: "Client-only ceiling: the replay", Blocks: []table.BlockSpec{
			{Table: byMethod("{rows:int} rows, replayed", []table.Match{table.Is(LabelSource, sourceReplay)}, []string{
				"The server's answer to one read of the table, recorded once through a proxy (pgserver/replay) and played back in a loop by an in-process fake server on loopback at memory speed: no backend competes for the CPU, so each method's time is its own protocol handling and decoding — the client-only ceiling. The methods were sampled round-robin in a group of their own, " + MethodRaw + " (which decodes nothing but the fixed-width values and allocates nothing per row) as the reference; the fake server's CPU counts as client CPU. pgx reads the replay describing the statement on every read (QueryExecModeDescribeExec, as pgarrow does), so that every read sends the same messages.",
			}, colClientCPU, colRowRate,
				table.Column{Head: "time × " + MethodRaw, Show: "ratio", Unit: results.UnitVsLimit, Ref: map[string]string{LabelSubject: MethodRaw, LabelSource: sourceReplay}},
				table.Column{Head: "time × " + MethodSelect, Show: "ratio", Unit: results.UnitVsBaseline, Ref: map[string]string{LabelSubject: MethodSelect, LabelSource: sourceReplay}},
				withHead(colTimesSingle, "replay ÷ server rows/s"), colBytesPerRow)},
			{Derived: "replay-goal"},
		}},
		{Title: "Partitioned reads", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "{rows:int} rows, over several connections", Where: []table.Match{{Key: LabelPartitions}}, Split: []string{"rows"},
			Rows: []string{LabelSubject, LabelPartitions}, RowHeads: []string{"method", "partitions"}, RowFormat: map[string]string{LabelPartitions: "int"},
			Columns: []table.Column{colClientCPU, colRowRate, colServerCPU,
				{Head: "time × " + MethodSelect + " (1 connection)", Show: "ratio", Unit: results.UnitVsBaseline, Ref: map[string]string{LabelSubject: MethodSelect, LabelPartitions: "1"}},
				withHead(colTimesSingle, "rows/s × single stream")},
			Notes: []string{"pgarrow: pgarrow.KeyRanges cuts the id range into N equal parts, pgarrow.ParallelQuery reads them over N connections at once (the key-range queries are built once, before timing); ConnectorX: read_sql with partition_on=\"id\", partition_num=N (its own min/max query timed). Every read returned the table's row count and checksums before it was timed. Server CPU is the sum of the backends' (ConnectorX: the whole server's). \"rows/s × single stream\" compares with the same method's single-stream read in the method comparison (a different sampling group: medians)."},
		}}}},
		// The sweep at its table size (the smallest), with the method
		// comparison's case of its subject: the default batch size.
		{Title: "Batch-size sweep (pgarrow over SELECT)", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "{rows:int} rows", Split: []string{"rows"}, Rows: []string{"batch"}, RowHeads: []string{"batch rows"}, RowFormat: map[string]string{"batch": "int"},
			Where: []table.Match{table.Is(LabelSubject, MethodSelect), table.IsNot(LabelSource, sourceReplay), {Key: LabelPartitions, Not: true}, {Key: LabelQuery, Not: true}, {Key: "rows", Min: true}},
			Sort:  "batch rows", Columns: []table.Column{colRowRate, colBytesPerRow, colAllocs, colPeakRSS},
			Notes: []string{"The sweep's batch sizes were sampled round-robin with one another; the default batch size's row is the " + MethodSelect + " case of the method comparison, measured in that group."},
			Plot:  ratePlot("pgscan-batch-sweep.svg", "pgscan: "+MethodSelect+", rows/s by batch size", "batch", "rows per batch"),
		}}}},
		{Title: "Memory per row", Blocks: []table.BlockSpec{{Table: bySize(
			[]string{"Bytes allocated per row by the Go process (ADBC allocates in its own process: its B/row is the Go side's waiting only). A method whose peak RSS does not grow with the table streams in bounded memory."},
			nil, withHead(colBytesPerRow, "{col:int} rows: B/row"), colAllocs, colPeakRSS)}}},
	}
}

// withHead is column c under another head.
func withHead(c table.Column, head string) table.Column {
	c.Head = head
	return c
}
