package data

import (
	"strings"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload/filecase"
)

// methodText is the method paragraph, with the settings the plan recorded
// in the run's environment ("data.<key>", see envBuffer).
const methodText = "The input is read once, before any timing, into Arrow record batches held in memory (at most the row limit). " +
	"No code is generated for the user's data: every format is driven by the Arrow schema at run time. Each write streams the batches through the format's encoder, the codec and a buffer ({env:data.buffer}) into a real file; " +
	"each read streams the file back (read → decompress → decode) and compares every decoded row with the input — NULLs, nesting and floats bit for bit — inside the timed read. " +
	"The Parquet and Arrow IPC files (codec none) are also read one column at a time — the input's first column, all its leaves, verified the same way —, as an analytics query reads them. " +
	"Before a write is timed, the pair round-trips its first rows ({env:data.verify_rows}) through a scratch file. A format that cannot hold the schema or one of its values (nested data in CSV, NaN in JSON) is a FAILED case with the reason, never a silent change. " +
	"Sampling, floors (read-bytes, decompress) and medians are the records workload's; its tables, plot and recommendation rules follow."

// fullRead names, from a read-columns case (of codec none, its only
// codec; the rows name the subject alone), its pair's full read.
var fullRead = map[string]string{filecase.LabelOp: filecase.OpRead, filecase.LabelCodec: "none", filecase.LabelColumns: "-"}

// projectionTable is the column-projection reads of the Parquet and Arrow
// IPC pairs: one column read and verified, against the pair's full read.
var projectionTable = &table.Spec{
	Caption: "Reading one column, {columns}, against reading every column of the same file (codec none; fastest first): Parquet reads that column's chunks only; " +
		"Arrow IPC cannot — arrow-go's stream reader reads (and decompresses) every buffer, and the column is then picked —, so its projection is a full read",
	Where: []table.Match{table.Is(filecase.LabelOp, filecase.OpReadColumns)},
	Split: []string{filecase.LabelColumns},
	Rows:  []string{filecase.LabelFormat}, RowHeads: []string{"format"},
	Columns: []table.Column{
		{Head: "one column", Show: "time"},
		{Head: "vs full read", Show: "vs", Unit: results.UnitNsPerOp, Ref: fullRead, Format: "times"},
	},
	Extra: []table.Column{
		{Head: "full read", Show: "time", At: fullRead},
		{Head: "column's chunks", Show: "median", Unit: MetricColumnChunks, Format: "bytes", ShareOf: filecase.MetricFile, Share: "pct"},
		{Head: "file", Show: "median", Unit: filecase.MetricFile, Format: "bytes"},
	},
	Sort: "one column",
	Notes: []string{"one column: the median time to read the column back from the file and compare every value (NULLs, nesting) with the input's, as the full read does for every column; " +
		"vs full read = one column's median ÷ the full read's (the Read performance table); " +
		"column's chunks: the compressed bytes of the column's chunks in the Parquet file (every row group) and their share of the file, what the projection reads besides the footer"},
}

// Layout implements workload.Workload: the findings, the input and its
// schema, the method with the formats and codecs, the file workloads'
// shared tables (compression by codec followed by the compression inside
// the formats), plot and recommendations for this data, the per-column
// size breakdown, what generated code would gain, and the anomalies.
func (*Workload) Layout() []table.Section {
	out := []table.Section{
		{Title: "Findings", Blocks: []table.BlockSpec{{Derived: "findings"}}},
		{Title: "Input and schema", Blocks: []table.BlockSpec{{Derived: "input"}}},
		{Title: "Method: schema-driven formats", Blocks: []table.BlockSpec{
			{Text: methodText},
			{Derived: "not-measured"},
			{Subjects: filecase.LabelFormat, SubjectNotes: []string{"path says how the format's code is driven by the schema. A format that compresses itself or needs random access (Parquet) combines with codec none only; every other format with every codec."}},
			{Subjects: filecase.LabelCodec},
		}},
	}
	for _, sec := range filecase.FileLayout() {
		if sec.Title == "Compression by algorithm" {
			// The formats that compress themselves, next to the outer codecs.
			sec.Blocks = append(sec.Blocks, table.BlockSpec{Derived: "in-format"})
		}
		out = append(out, sec)
		if strings.HasPrefix(sec.Title, "Read performance") {
			out = append(out, table.Section{Title: "Reading one column (column projection)", Blocks: []table.BlockSpec{{Table: projectionTable}}})
		}
	}
	return append(out,
		table.Section{Title: "Which columns make the file big (Parquet column chunks)", Blocks: []table.BlockSpec{{Derived: "columns"}}},
		table.Section{Title: "What generated code would gain", Blocks: []table.BlockSpec{{Derived: "codegen"}}},
		filecase.Anomalies(),
	)
}
