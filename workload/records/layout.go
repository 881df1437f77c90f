package records

import (
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload/filecase"
)

// methodText is the method paragraph, with the settings the plan recorded
// in the run's environment ("records.<key>", see env); the derived samples
// line that follows gives the records and the samples each case took.
const methodText = "The records are generated once, before any timing, and held in memory in a packed table without pointers (16 bytes a record and one shared string of emails), so the collector does not mark them record by record during timed ops; each record is unpacked into a reused value as it is encoded. " +
	"Each write streams them through the format's encoder, the codec and a buffer ({env:records.buffer}) into a real file in the temp directory; " +
	"each read streams the file back (read → decompress → decode) and checks every record against the source records (that check is part of the timed read). " +
	"Before a write is timed, the pair round-trips its first records ({env:records.verify_records}, all of them when fewer) through a scratch file; every timed read verifies every record of the full file, and a pair whose read fails is left out of every ranking. " +
	"Times are medians of n samples (one op per sample, a GC before each; a case's first run counts as its first sample, and no new sample starts once a case has spent its sampling budget ({env:records.sample_budget}), so slow ops have n=1 or 2); " +
	"total = write + read. MB/s counts the format's encoded stream (its bytes before compression) for write, read and decompress, and the file's bytes for read-bytes. " +
	"Peak heap is the largest growth of the heap in use over its level at the start of the op, sampled on the op's own goroutine at a fixed interval ({env:records.heap_sample_every}; every buffer for the limit rows) and at the end of each stage. " +
	"read-bytes (the file's bytes into a buffer, nothing else) and decompress (read + decompress, no decoding) are limit rows, the floors under each read."

// unbufferedAt names the unbuffered variant of a write.
var unbufferedAt = map[string]string{filecase.LabelVariant: filecase.VariantUnbuffered}

// Layout implements workload.Workload: the findings, the method with the
// formats and codecs, the file workloads' shared tables (combined, file
// size, write, read, compression by codec, the size-vs-time scatter with
// its Pareto frontier, recommendations), the harness-overhead check, the
// seed's unbuffered write and the anomalies found in the data.
func (*Workload) Layout() []table.Section {
	out := []table.Section{
		{Title: "Findings", Blocks: []table.BlockSpec{{Derived: "findings"}}},
		{Title: "Method", Blocks: []table.BlockSpec{
			{Text: methodText},
			{Derived: "samples"},
			{Subjects: filecase.LabelFormat, SubjectNotes: []string{"A format that compresses itself or needs random access (a footer read first: Parquet, Arrow file) combines with codec none only; every other format with every codec."}},
			{Subjects: filecase.LabelCodec, SubjectNotes: []string{"Each codec at its default level."}},
		}},
	}
	for _, sec := range filecase.FileLayout(Name) {
		if sec.Title == "Compression by algorithm" {
			// A codec's row averages over the formats this scale wrote with it.
			sec.Blocks = append(sec.Blocks, table.BlockSpec{IfEnv: "records.coverage", Text: "Measured here: {env:records.coverage}; a codec's row averages over the formats written with it (its formats column)."})
		}
		out = append(out, sec)
	}
	return append(out,
		table.Section{Title: "Harness overhead: pipeline vs a bare loop", Blocks: []table.BlockSpec{
			{Table: &table.Spec{
				Caption: "Each sample runs the hand-written loop and the pipeline (format and codec interfaces, counting, heap sampling) once each, alternating which goes first, from a collected heap; the ratio is taken within each sample",
				Where:   []table.Match{table.Is(filecase.LabelFormat, filecase.BareSubject, filecase.BareMsgpSubject), table.Is(filecase.LabelOp, filecase.OpWrite)},
				Rows:    []string{filecase.LabelFormat, filecase.LabelCodec}, RowHeads: []string{"bare loop", "codec"},
				Columns: []table.Column{
					{Head: "time", Show: "time"},
					{Head: "pipeline", Show: "stat", Unit: filecase.MetricPipelineNs, Format: "duration"},
					{Head: "pipeline ÷ bare", Show: "stat", Unit: filecase.MetricPipelineRatio, Format: "times"},
				},
				Notes: []string{"The pipeline is the format + codec pair the loop's twin setting names. The two loops are the slowest-per-byte kind of write measured here (text + compression) and the fastest (generated code, no compression), where a fixed cost per record would weigh most. The read path has the same layers (format and codec interfaces, counting, heap sampling)."},
			}},
			{Derived: "bare"},
		}},
		table.Section{Title: "The seed's anomaly: an unbuffered write", Blocks: []table.BlockSpec{{Derived: "unbuffered"}, {Table: &table.Spec{
			Caption: "msgpack writes, buffered and unbuffered",
			Where:   []table.Match{table.Is(filecase.LabelFormat, "msgpack"), table.Is(filecase.LabelOp, filecase.OpWrite), table.IsNot(filecase.LabelVariant)},
			Rows:    []string{filecase.LabelCodec},
			Columns: []table.Column{
				{Head: "records", Show: "median", Unit: filecase.MetricRecords, Format: "int"},
				{Head: "buffered", Show: "time"},
				{Head: "per record", Show: "median", Unit: results.UnitNsPerOp, Per: filecase.MetricRecords, Format: "duration"},
			},
			Extra: []table.Column{
				{Head: "records (unbuffered)", Show: "median", Unit: filecase.MetricRecords, Format: "int", At: unbufferedAt},
				{Head: "unbuffered", Show: "time", At: unbufferedAt},
				{Head: "per record (unbuffered)", Show: "median", Unit: results.UnitNsPerOp, Per: filecase.MetricRecords, Format: "duration", At: unbufferedAt},
			},
			Notes: []string{"Times per record = the median time ÷ the records written: the unbuffered write may write fewer."},
		}}}},
		filecase.Anomalies(),
	)
}
