package filecase

import (
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// matrix selects the format × codec pairs of a file workload: no variant
// (the unbuffered write), no bare loop.
var matrix = []table.Match{table.IsNot(LabelVariant), table.IsNot(LabelFormat, BareSubject, BareMsgpSubject)}

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

// FileLayout declares the report sections every file workload shares, in
// report order: combined size and time, file size, write, read against
// its floors, compression by codec, the size-vs-time scatter with its
// Pareto frontier, and the top performers with the use-case
// recommendations. The workload's cases must carry this package's labels
// (subject, codec, op, variant), ops and metrics (MetricFile,
// MetricRecords, MetricPeakHeap), its format descriptors this package's
// tags; its Derive must include this package's Derive.
func FileLayout() []table.Section {
	return []table.Section{
		{Title: "Combined size & performance", Blocks: []table.BlockSpec{{Derived: "combined"}}},
		{Title: "File size", Blocks: []table.BlockSpec{{Derived: "size"}}},
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
		{Title: "Compression by algorithm", Blocks: []table.BlockSpec{{Derived: "by-codec"}}},
		{Title: "Speed vs compression trade-offs", Blocks: []table.BlockSpec{{Derived: "tradeoffs"}}},
		{Title: "Top performers and recommendations", Blocks: []table.BlockSpec{{Derived: "picks"}}},
	}
}

// Anomalies declares the section listing the remarkable facts of a file
// workload's run (see FileLayout): slow uncompressed writes, reads far
// slower than writes, disagreeing samples and failed cases.
func Anomalies() table.Section {
	return table.Section{Title: "Anomalies found in this run", Blocks: []table.BlockSpec{{Derived: "anomalies"}}}
}
