package data

import (
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload/filecase"
)

// methodText is the method paragraph, with the settings the plan recorded
// in the run's environment ("data.<key>", see envBuffer).
const methodText = "The input is read once, before any timing, into Arrow record batches held in memory (at most the row limit). " +
	"No code is generated for the user's data: every format is driven by the Arrow schema at run time. Each write streams the batches through the format's encoder, the codec and a buffer ({env:data.buffer}) into a real file; " +
	"each read streams the file back (read → decompress → decode) and compares every decoded row with the input — NULLs, nesting and floats bit for bit — inside the timed read. " +
	"Before a write is timed, the pair round-trips its first rows ({env:data.verify_rows}) through a scratch file. A format that cannot hold the schema or one of its values (nested data in CSV, NaN in JSON) is a FAILED case with the reason, never a silent change. " +
	"Sampling, floors (read-bytes, decompress) and medians are the records workload's; its tables, plot and recommendation rules follow."

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
	}
	return append(out,
		table.Section{Title: "Which columns make the file big (Parquet column chunks)", Blocks: []table.BlockSpec{{Derived: "columns"}}},
		table.Section{Title: "What generated code would gain", Blocks: []table.BlockSpec{{Derived: "codegen"}}},
		filecase.Anomalies(),
	)
}
