package data

import (
	"strings"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload/filecase"
	"github.com/serbench/serbench/workload/interop"
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

// inFormat compares each format that compresses itself (Parquet pages,
// Arrow IPC buffers, Avro blocks) with its uncompressed sibling and with
// the same codec around the sibling, when the run measured them.
func inFormat() *table.Spec {
	const base, inside = "@base:" + filecase.TagCompresses, "@suffix:" + filecase.LabelFormat + ":" + filecase.TagCompresses
	// around is the outer codec that compresses as a format's own codec
	// does (deflate: gzip, the same DEFLATE with a header).
	around := map[string]string{"deflate": "gzip"}
	cost := func(head, op string, at map[string]string) table.Column {
		return table.Column{Head: head, Show: "vs", Unit: results.UnitNsPerOp, Format: "times", Map: around,
			At: with(at, filecase.LabelOp, op), Ref: map[string]string{filecase.LabelFormat: base, filecase.LabelCodec: "none"}}
	}
	self, sib := map[string]string{filecase.LabelCodec: "none"}, map[string]string{filecase.LabelFormat: base, filecase.LabelCodec: inside}
	return &table.Spec{
		Caption: "Compression inside the format, against its uncompressed sibling and the same codec around it",
		Where:   []table.Match{{Key: filecase.LabelFormat, Based: filecase.TagCompresses}, table.Is(filecase.LabelCodec, "none")},
		Rows:    []string{filecase.LabelFormat}, RowHeads: []string{"format"},
		Columns: []table.Column{
			{Head: "codec inside", Show: "label", Label: filecase.LabelFormat, Suffix: filecase.TagCompresses},
			{Head: "size (MiB)", Show: "median", Unit: filecase.MetricFile, Format: "mib", At: with(self, filecase.LabelOp, filecase.OpWrite)},
			{Head: "% saved", Show: "saved", Unit: filecase.MetricFile, At: with(self, filecase.LabelOp, filecase.OpWrite), Ref: map[string]string{filecase.LabelFormat: base}},
			cost("write cost", filecase.OpWrite, self), cost("read cost", filecase.OpRead, self),
		},
		// The sibling with the codec around it is among all the cases.
		Extra: []table.Column{
			{Head: "same codec around", Show: "name", Label: filecase.LabelFormat + "," + filecase.LabelCodec, Map: around, At: with(sib, filecase.LabelOp, filecase.OpWrite)},
			{Head: "its size (MiB)", Show: "median", Unit: filecase.MetricFile, Format: "mib", Map: around, At: with(sib, filecase.LabelOp, filecase.OpWrite)},
			cost("its write cost", filecase.OpWrite, sib), cost("its read cost", filecase.OpRead, sib),
		},
		Notes: []string{"% saved = 1 − file ÷ the uncompressed sibling's file; write cost and read cost = the median time ÷ the sibling's with codec none (1× = free). " +
			"same codec around = the sibling with that codec as the outer codec (deflate: gzip), where this run measured it: compressing inside keeps the format's structure (a Parquet reader still reads one column; an Arrow or Avro reader decompresses per buffer or block), compressing around compresses the stream whole."},
	}
}

// with is m with label k set to v.
func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}

// inputFacts describe the input file as the run recorded it in its
// descriptor: the kind with the compression around and inside the file,
// the rows measured and the options that chose them.
var inputFacts = &table.DescTable{Key: KeyInput, Caption: "Input", Facts: []table.DescFact{
	{Head: "file", Text: "{what}"},
	{Head: "kind / compression", Text: "{kind} / {compression} around the file; {inner-compression}",
		When: []table.Match{table.IsNot(SettingCompression, "none")}},
	{Head: "kind / compression", Text: "{kind} / {inner-compression}", Else: "{kind} / {compression}"},
	{Head: "file size", Text: "{file-bytes:bytes}", Else: "–"},
	{Head: "rows measured", Text: "{rows:int}", Else: "–"},
	{Head: "row limit", Text: "{limit:int}", When: []table.Match{table.IsNot(SettingLimit, "0")}, Else: "none (the whole input)"},
	{Head: "sample", Text: "{sample}"},
	{Head: "--infer-rows", Text: "{infer-rows}"},
	{Head: "--skip-bad", Text: "{skipped-lines:int} bad lines skipped and counted", When: []table.Match{table.Is(SettingSkipBad, "true")},
		Else: "off: a malformed line fails the run"},
}}

// maxColumnRows caps the columns listed by name.
const maxColumnRows = 30

// columnsTable is the Parquet column chunks' sizes, from the per-column
// metrics of the Parquet read case, biggest first.
var columnsTable = &table.Spec{
	Where:   []table.Match{table.Is(filecase.LabelFormat, "parquet"), table.Is(filecase.LabelOp, filecase.OpRead)},
	Unpivot: &table.Unpivot{Prefix: MetricColumnPrefix, Key: "column", Unit: "chunk-B"},
	Rows:    []string{"column"}, Sort: "-bytes", Top: maxColumnRows, Rest: "({n} more columns)",
	Columns: []table.Column{
		{Head: "bytes", Show: "median", Unit: "chunk-B", Format: "int"},
		{Head: "share", Show: "median", Unit: "chunk-B", Format: "pct", OfTotal: true},
		{Head: "bytes/row", Show: "median", Unit: "chunk-B", Per: filecase.MetricRecords},
	},
	Notes: []string{"From the footer of the Parquet file the parquet read case read (dictionary encoding on, no compression): each column chunk's stored bytes, summed over row groups. " +
		"share = the column's bytes ÷ all column chunks' bytes. A column with a high share is where a smaller type, a dictionary-friendly value or dropping the column pays most; a compressing codec shrinks every column, not this ranking's order necessarily."},
	Empty: "No Parquet read case in this run: include the parquet format (--formats parquet, and no --filter excluding its read) to see which columns make the file big.",
}

// Layout implements workload.Workload: the findings, the input and its
// schema, the method with the formats and codecs, the file workloads'
// shared tables (compression by codec followed by the compression inside
// the formats), plot and recommendations for this data, the per-column
// size breakdown, what generated code would gain, and the anomalies.
func (*Workload) Layout() []table.Section {
	out := []table.Section{
		{Title: "Findings", Blocks: []table.BlockSpec{{Derived: "findings"}}},
		{Title: "Input and schema", Blocks: []table.BlockSpec{{Descriptors: inputFacts},
			{Descriptors: &table.DescTable{Key: KeyColumn, Caption: "Schema (as read: stored for Parquet, Arrow and Avro, inferred for JSON Lines and CSV)",
				Columns: []table.DescColumn{{Head: "column", Field: "name"}, {Head: "Arrow type", Field: "what"}, {Head: "nullable", Field: "nullable", Map: map[string]string{"true": "yes"}, Else: "no"}},
				Notes:   []string{"Nested fields are dotted paths; list elements end in []."}}},
			{Descriptors: &table.DescTable{Key: KeyNote, List: "Schema inference notes:"}},
		}},
		{Title: "Method: schema-driven formats", Blocks: []table.BlockSpec{
			{Text: methodText},
			{Descriptors: &table.DescTable{Key: filecase.LabelFormat, Each: "{name} was not measured: {" + SettingNotMeasured + "}."}},
			{Subjects: filecase.LabelFormat, SubjectNotes: []string{"path says how the format's code is driven by the schema. A format that compresses itself or needs random access (Parquet) combines with codec none only; every other format with every codec."}},
			{Subjects: filecase.LabelCodec},
		}},
	}
	for _, sec := range filecase.FileLayout(Name) {
		if t := sec.Blocks[0].Table; sec.Title == "Combined size & performance" {
			// The note names this run's uncompressed siblings.
			c := *t
			c.Notes = nil
			sec.Blocks = []table.BlockSpec{{Table: &c}, {Derived: "siblings"}}
		}
		if sec.Title == "File size" {
			// With the input file as its first row (findings.go).
			sec.Blocks = []table.BlockSpec{{Derived: "size"}}
		}
		if sec.Title == "Compression by algorithm" {
			// The formats that compress themselves, next to the outer codecs.
			sec.Blocks = append(sec.Blocks, table.BlockSpec{Table: inFormat()})
		}
		out = append(out, sec)
		if strings.HasPrefix(sec.Title, "Read performance") {
			out = append(out, table.Section{Title: "Reading one column (column projection)", Blocks: []table.BlockSpec{{Table: projectionTable}}})
		}
	}
	return append(out,
		table.Section{Title: "Which columns make the file big (Parquet column chunks)", Blocks: []table.BlockSpec{{Table: columnsTable}}},
		table.Section{Title: "What generated code would gain", Blocks: []table.BlockSpec{{Derived: "codegen"}}},
		table.Section{Title: "Who reads whose files (other languages)", Blocks: interop.Blocks(interop.Intro("the input's first rows (at most " + table.Int(InteropRows) + ")"))},
		filecase.Anomalies(),
	)
}
