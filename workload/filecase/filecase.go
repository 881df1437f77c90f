// Package filecase holds what the file workloads share and that is no
// workload itself: the records workload (workload/records) measures a file
// of its own records, the data workload (workload/data) a file of the
// user's data, and both measure each format × codec pair the same way — a
// real file written through filebench, read back verifying every record,
// with the read-bytes and decompress-only floors — and report it the same
// way.
//
// The package holds the labels, ops, metrics and tags of those cases, the
// file of a pair and the set that keeps one such file on disk at a time
// (File, Files), the report sections a file workload declares (FileLayout,
// Anomalies), the blocks derived from its results (Derive: the tables of
// sizes and times, the Pareto front, the picks of the rules — top
// performers, recommendations by use case — and the anomalies) and its
// terminal summary. A file workload imports it; it imports no workload, so
// that no workload imports another (the never-rule of internal/arch).
package filecase

import "time"

// RecordsWorkload is the name of the records workload, the file workload of
// serbench's own records: the data workload compares its cases with the
// records cases of the same results file.
const RecordsWorkload = "records"

// Ops of a format × codec pair, in the order they run: the write creates
// the file the others use.
const (
	OpWrite      = "write"
	OpRead       = "read"
	OpReadBytes  = "read-bytes"
	OpDecompress = "decompress"
	// OpReadColumns reads some columns of the file only (the data
	// workload's Parquet and Arrow IPC pairs), verifying them; its
	// LabelColumns names them.
	OpReadColumns = "read-columns"
)

// Label keys and values.
const (
	// LabelFormat is the subject: a format, a bare loop.
	LabelFormat  = "subject"
	LabelCodec   = "codec"
	LabelOp      = "op"
	LabelVariant = "variant"
	// LabelColumns names the columns an OpReadColumns case reads.
	LabelColumns = "columns"
	// VariantUnbuffered marks the case written without any buffering.
	VariantUnbuffered = "unbuffered"
	// BareSubject is the hand-written minimal JSONL + zstd write loop.
	BareSubject = "jsonl-bare"
	// BareMsgpSubject is the hand-written minimal generated-MessagePack
	// write loop (no compression): the fastest kind of write, where a
	// fixed cost per record would show most.
	BareMsgpSubject = "msgpack-msgp-bare"
	// TagCompresses and TagRandomAccess mark, in a format's descriptor,
	// a format that compresses itself or reads a footer first: either
	// combines with codec none only.
	TagCompresses   = "compresses"
	TagRandomAccess = "random-access"
)

// Metric names: fixed per case (file and stream sizes, record count) and
// per sample (peak heap growth).
const (
	MetricFile     = "file-B"
	MetricEncoded  = "encoded-B"
	MetricRecords  = "records"
	MetricPeakHeap = "peak-heap-B"
	// MetricPipelineNs is, in a bare-loop case, the pipeline's time for
	// the same write, measured in the same sample.
	MetricPipelineNs = "pipeline-ns/op"
	// MetricPipelineRatio is, in a bare-loop case, the pipeline's time
	// over the bare loop's within one sample.
	MetricPipelineRatio = "pipeline/bare"
)

// VerifyRecords caps the records a write case round-trips before it is
// timed. A full write and read at 1M records costs as much as a sample; every
// timed read verifies every record of the full file, and a pair whose read
// fails is left out of every ranking.
const VerifyRecords = 20_000

// Budget is the sampling budget of an ordinary case (see bench.Case.Budget):
// one op at 1M records takes 0.05–30 s on a small machine, so slow ops get
// one or two samples and fast ones up to --count; reports show n.
const Budget = time.Second

// LimitCount is the number of samples of the decompress floor: every
// sample costs a full GC over the in-memory records, so five would mostly
// measure the collector.
const LimitCount = 3

// OpTime is a rough expectation of one op over n records on a small
// machine, for estimates only (`run --dry-run`, `list`): a microsecond or
// two a record for most pairs, far more for xz and brotli writes, a tenth
// for the floors.
func OpTime(n int64, op, codecName string) time.Duration {
	perRecord := 1500 * time.Nanosecond
	switch op {
	case OpReadBytes:
		perRecord = 30 * time.Nanosecond
	case OpDecompress:
		perRecord = 300 * time.Nanosecond
	case OpWrite:
		switch codecName {
		case "xz":
			perRecord = 12 * time.Microsecond
		case "brotli":
			perRecord = 6 * time.Microsecond
		case "gzip":
			perRecord = 3 * time.Microsecond
		}
	}
	return time.Duration(n) * perRecord
}
