package filecase

import (
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// matrix selects the format × codec pairs of a file workload: no variant
// (the unbuffered write), no bare loop, and only Go's: the runners for
// other languages encode and decode in memory, which is not a file's
// write and read (runnerTable shows them).
var matrix = []table.Match{table.IsNot(LabelVariant), table.IsNot(LabelFormat, BareSubject, BareMsgpSubject), table.IsNot(LabelLanguage)}

// LabelLanguage is the label the runners' cases carry (runner.Join).
const LabelLanguage = "language"

// runnerTable declares the runners' cases: per subject and codec, the
// in-memory encode and decode (or zero-copy open, no value visited) with
// the decode against copying the same bytes in that runtime. They are
// not ranked with the Go pairs' file writes and reads.
func runnerTable() *table.Spec {
	t := func(head, op string) table.Column {
		return table.Column{Head: head, Show: "median", Unit: results.UnitNsPerOp, Format: "duration", At: at(op)}
	}
	return &table.Spec{Caption: "Other languages, in memory: encode, decode (every value visited) and zero-copy open (no value visited)",
		Where: []table.Match{table.Is(LabelLanguage), table.Is(LabelOp, results.OpEncode, results.OpDecode, results.OpOpen)},
		Rows:  []string{LabelFormat, LabelCodec}, RowHeads: []string{"subject", "codec"}, Sort: "decode",
		Columns: []table.Column{t("encode", results.OpEncode), t("decode", results.OpDecode), t("open (no value visited)", results.OpOpen),
			{Head: "encoded size", Show: "median", Unit: MetricFile, Format: "bytes", At: at(results.OpEncode)}},
		Notes: []string{"encode = values → bytes in memory; decode = bytes in memory → every value visited in the library's natural objects; open = a lazy or zero-copy view over the bytes, no value visited, so it is shown apart and never ranked with the decodes. " +
			"These are not the Go pairs' write and read, which go through a real file; compare a language's subjects with each other."}}
}

// pairOp selects the matrix's cases of op.
func pairOp(op string) []table.Match {
	return append([]table.Match{table.Is(LabelOp, op)}, matrix...)
}

// timeColumns are the columns of the write and read tables: the time, the
// records per second, the encoded stream's MB/s, the peak heap growth and
// the time against the table's fastest.
var timeColumns = []table.Column{
	{Head: "time", Show: "time"},
	{Head: "records/s", Show: "rate", Unit: results.UnitNsPerOp, Per: MetricRecords, Scale: 1e9, Format: "compact"},
	{Head: "MB/s", Show: "median", Unit: results.UnitMBPerS},
	{Head: "peak heap", Show: "median", Unit: MetricPeakHeap, Format: "bytes"},
	{Head: "vs fastest", Show: "best", Unit: results.UnitNsPerOp},
}

// at names an op of the row's pair.
func at(op string) map[string]string { return map[string]string{LabelOp: op} }

// plainRef names, from a pair's case, the same op of its format
// uncompressed: codec none, no variant, and for a format that compresses
// itself its uncompressed sibling.
func plainRef() map[string]string {
	return map[string]string{LabelCodec: "none", LabelFormat: "@base:" + TagCompresses, LabelVariant: "-"}
}

// CombinedNote says what the combined table's % saved is measured against.
const CombinedNote = "% saved = 1 − file ÷ the same format uncompressed (codec none; for a format that compresses itself, its uncompressed sibling: parquet-none, avro-ocf, arrow-file)."

// sizeTime declares the table of the matrix's sizes and times: the
// combined table and, with front, its Pareto frontier. A pair's % saved
// is against its format uncompressed: for a format that compresses
// itself, its uncompressed sibling.
func sizeTime(caption string, front []string, notes ...string) *table.Spec {
	seconds := func(head, op string) table.Column {
		return table.Column{Head: head, Show: "median", Unit: results.UnitNsPerOp, Format: "seconds", At: at(op)}
	}
	return &table.Spec{Caption: caption, Where: matrix, Rows: []string{LabelFormat, LabelCodec}, RowHeads: []string{"format", "codec"}, Front: front, Notes: notes,
		Columns: []table.Column{
			{Head: "size (MiB)", Show: "median", Unit: MetricFile, Format: "mib", At: at(OpWrite)},
			seconds("write (s)", OpWrite), seconds("read (s)", OpRead),
			{Head: "total (s)", Show: "sum", Unit: results.UnitNsPerOp, Format: "seconds", At: at(OpWrite), Plus: at(OpRead)},
			{Head: "% saved", Show: "saved", Unit: MetricFile, At: at(OpWrite), Ref: plainRef()},
		}}
}

// byCodec compares the outer codecs over the formats whose write and read
// both succeeded: how much each saves, its best format, what it costs.
func byCodec() *table.Spec {
	none := plainRef()
	over := func(c table.Column, agg string) table.Column {
		c.Over, c.Agg, c.Gate, c.By = LabelFormat, agg, "formats", "its size (MiB)"
		return c
	}
	size := table.Column{Head: "its size (MiB)", Show: "median", Unit: MetricFile, Format: "mib", At: at(OpWrite)}
	saved := table.Column{Head: "its % saved", Show: "saved", Unit: MetricFile, At: at(OpWrite), Ref: none}
	cost := func(head, op string) table.Column {
		return over(table.Column{Head: head, Show: "vs", Unit: results.UnitNsPerOp, Format: "times", At: at(op), Ref: none}, "geomean")
	}
	return &table.Spec{Where: append([]table.Match{table.IsNot(LabelCodec, "none")}, matrix...), Rows: []string{LabelCodec}, RowHeads: []string{"codec"},
		Sort: "-average % saved",
		Columns: []table.Column{
			over(table.Column{Head: "formats", Show: "sum", Unit: results.UnitNsPerOp, At: at(OpWrite), Plus: at(OpRead)}, "count"),
			over(withHead(saved, "average % saved"), "mean"),
			over(withHead(size, "best format"), "argmin"), over(size, "min"), over(saved, "at"),
			cost("write cost", OpWrite), cost("read cost", OpRead),
		},
		Notes: []string{"Outer codecs only, over the formats whose write and read both succeeded, most compressing first. " +
			"average % saved = arithmetic mean over those formats; write cost and read cost = geometric mean over them of the time with the codec ÷ the same format's time with codec none (1× = free, below 1× = faster than uncompressed)."}}
}

// SizeTable declares the file size table of the matrix: each file's size,
// per record, its saving and its ratio to its format uncompressed.
func SizeTable() *table.Spec {
	size := func(head, format string) table.Column {
		return table.Column{Head: head, Show: "median", Unit: MetricFile, Format: format, At: at(OpWrite)}
	}
	perRecord := size("bytes/record", "")
	perRecord.Per = MetricRecords
	return &table.Spec{Where: matrix, Rows: []string{LabelFormat, LabelCodec}, RowHeads: []string{"format", "codec"},
		Columns: []table.Column{size("size (bytes)", "int"), size("size (MiB)", "mib"), perRecord,
			{Head: "% saved", Show: "saved", Unit: MetricFile, At: at(OpWrite), Ref: plainRef()},
			// A file that grew (a tiny input, incompressible data) is so
			// many times larger, not "0.8× smaller".
			{Head: "vs plain", Show: "vs", Unit: MetricFile, Format: "smaller", NotSelf: true, At: at(OpWrite), Ref: plainRef()}},
		Notes: []string{"Sizes are measured on disk after each write. vs plain = the same format uncompressed ÷ this file."}}
}

// summary declares the terminal summary's table (Summary): the pairs
// ranked by round trip, with their times and size.
func summary(name string) *table.Spec {
	ns := func(head, op string) table.Column {
		return table.Column{Head: head, Show: "median", Unit: results.UnitNsPerOp, Format: "duration", At: at(op)}
	}
	return &table.Spec{Caption: name + ": {max:" + MetricRecords + "} records, fastest round trips (write + read) and recommendations",
		Where: matrix, Rows: []string{LabelFormat, LabelCodec}, Join: " + ", RowHeads: []string{"pair"}, Rank: true, Sort: "total",
		Columns: []table.Column{{Head: "total", Show: "sum", Unit: results.UnitNsPerOp, Format: "duration", At: at(OpWrite), Plus: at(OpRead)},
			ns("write", OpWrite), ns("read", OpRead), {Head: "size", Show: "median", Unit: MetricFile, Format: "bytes", At: at(OpWrite)}}}
}

// withHead is column c under another head.
func withHead(c table.Column, head string) table.Column {
	c.Head = head
	return c
}

// FileLayout declares the report sections every file workload shares, in
// report order: combined size and time, file size, write, read against
// its floors, compression by codec, the size-vs-time scatter with its
// Pareto frontier, and the top performers with the use-case
// recommendations. The workload's cases must carry this package's labels
// (subject, codec, op, variant), ops and metrics (MetricFile,
// MetricRecords, MetricPeakHeap), its format descriptors this package's
// tags; its Derive must include this package's Derive. The plot's file
// and title name the workload.
func FileLayout(name string) []table.Section {
	scatter := &table.ScatterSpec{Of: sizeTime("", nil), X: "size (MiB)", Y: "total (s)", Join: " + ", File: name + "-size-vs-time.svg",
		Caption: name + ": file size against write + read time, {max:" + MetricRecords + "} records — log-log; the line joins the Pareto frontier",
		Title:   name + ": file size against write + read time, {max:" + MetricRecords + "} records", XLabel: "file size", YLabel: "write + read",
		LogX: true, LogY: true, XFormat: "bytes", YFormat: "duration", BinaryX: true, Frontier: true}
	return []table.Section{
		{Title: "Combined size & performance", Blocks: []table.BlockSpec{{Table: sizeTime("{max:"+MetricRecords+"} records: file size, write, read and total time (seconds, medians)", nil, CombinedNote)}}},
		{Title: "File size", Blocks: []table.BlockSpec{{Table: SizeTable()}}},
		{Title: "Write performance", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "Write (fastest first)", Where: pairOp(OpWrite),
			Rows: []string{LabelFormat, LabelCodec}, RowHeads: []string{"format", "codec"},
			Columns: timeColumns, Sort: "time",
			Notes: []string{"records/s = records ÷ median time; MB/s counts the encoded stream before compression; peak heap = the largest growth of the heap in use during one write; vs fastest = time ÷ the fastest write's time."},
		}}}},
		{Title: "Read performance, against the read-bytes and decompress-only floors", Blocks: []table.BlockSpec{{Table: &table.Spec{
			Caption: "Read and verify (fastest first)", Where: pairOp(OpRead),
			Rows: []string{LabelFormat, LabelCodec}, RowHeads: []string{"format", "codec"},
			Columns: timeColumns, Sort: "time",
			// The floors as ratios only (their own times are in the raw
			// output): the table fits a 1,400-pixel page.
			Extra: []table.Column{
				{Head: "÷ read-bytes", Show: "ratio", Unit: results.UnitVsLimit, At: at(OpRead), Ref: at(OpReadBytes)},
				{Head: "÷ decompress", Show: "vs", Unit: results.UnitNsPerOp, At: at(OpRead), Ref: at(OpDecompress)},
			},
			Notes: []string{"vs fastest = time ÷ the fastest read's time. read-bytes: the file's bytes read into a buffer and discarded; decompress: read and decompress, no decoding (codec none has none). " +
				"÷ read-bytes = the read's time ÷ the read-bytes floor's, taken within each sampling round (without in-round ratios, the ratio of the medians); " +
				"÷ decompress = the read's median ÷ the decompress floor's: how much of the read the decoder and verification cost (the floors' own times are in the raw output). " +
				"The files were just written, so reads come from the page cache, as they would for a file read back soon after writing."},
		}}}},
		{Title: "The same format in different languages", Blocks: []table.BlockSpec{{Derived: "languages"},
			{Text: "The runners for other languages encode into and decode from memory, with each codec from their own runtime's library; the Go pairs go through a real file (their read-bytes floor is the file system's share). The two are different operations: each column says which it is, and only cases of one operation are ranked together."},
			{Table: runnerTable()}}},
		{Title: "Compression by algorithm", Blocks: []table.BlockSpec{{Table: byCodec()}}},
		{Title: "Speed vs compression trade-offs", Blocks: []table.BlockSpec{{Scatter: scatter},
			{Table: sizeTime("The Pareto frontier: no other pair is both smaller and faster (smallest file first)", []string{"size (MiB)", "total (s)"},
				"Every pair off this list is beaten on both size and round-trip time by one on it.")}}},
		{Title: "Top performers and recommendations", Blocks: []table.BlockSpec{{Derived: "picks"}}},
	}
}

// Anomalies declares the section listing the remarkable facts of a file
// workload's run (see FileLayout): slow uncompressed writes, reads far
// slower than writes, disagreeing samples and failed cases.
func Anomalies() table.Section {
	return table.Section{Title: "Anomalies found in this run", Blocks: []table.BlockSpec{{Derived: "anomalies"}}}
}
