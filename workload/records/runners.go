package records

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
	ds "github.com/serbench/serbench/dataset/records"
	"github.com/serbench/serbench/format/arrowipc"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
	"github.com/serbench/serbench/workload/records/recordsfmt"
)

// runnerFormats are the formats whose runner subjects measure the records
// at the default scale: the seed's row formats (JSON Lines and MessagePack)
// in every language. The full scale measures every runner subject that
// can hold a record.
var runnerFormats = []string{"json", "msgpack"}

// runnerCodecs are the codecs runner subjects measure below the full
// scale: none (the records decoded, verified and warmed up in three more
// runtimes is most of the workload's time already); the full scale
// takes every codec of the Go side a runner announces.
var runnerCodecs = []string{"none"}

// runnerCases are the same records the Go formats write and read, encoded
// (op write) and decoded (op read) by the runners for other languages with
// each codec in their own runtime's library, at the codec's Go default
// level; each decode is verified by the digest of every column against the
// Go side's. A runner encodes into and decodes from memory: its write and
// read include the codec but no file system, so they are the Go pairs' ops
// without the file's system calls (whose floor, read-bytes, the tables show
// per codec).
func runnerCases(ctx context.Context, src *source, n int, cfg workload.Config, dir string) ([]bench.Case, []results.Descriptor, error) {
	if cfg.Runners == nil {
		return nil, nil, nil
	}
	ready := cfg.Runners.Get(ctx)
	if len(ready) == 0 {
		return nil, nil, nil
	}
	wants, err := runnerWants(src, n, cfg.Scale)
	if err != nil {
		return nil, nil, err
	}
	cases, descs := runner.Join(Name, caseName, filepath.Join(dir, "runners"), filecase.MetricFile, ready, wants)
	return cases, descs, nil
}

// recordsDataset is src's first n records as the runners get them.
func recordsDataset(src *source, n int) *runner.Dataset {
	am := recordsfmt.Arrow()
	return &runner.Dataset{Name: fmt.Sprintf("records-%d", n), Rows: n, Nested: runner.NestedSchema(am.Schema), Build: func() (*arrow.Schema, []arrow.RecordBatch, error) {
		t, err := src.table()
		if err != nil {
			return nil, nil, err
		}
		return batches(am, t, n)
	}}
}

// CheckDataset is the workload's first n records as the runners get
// them: what `serbench runner check` drives a runner with.
func CheckDataset(n int) *runner.Dataset { return recordsDataset(&source{n: n}, n) }

// runnerWants are the groups runnerCases asks every runner for at scale:
// per codec, the encodes (no limit row) and the decodes with their copy
// limit row.
func runnerWants(src *source, n int, scale workload.Scale) ([]runner.Want, error) {
	dset := recordsDataset(src, n)
	codecs := codec.Default()
	full := scale == workload.Full
	accept := func(s *runner.Subject) bool {
		// Subjects bound to the nested datasets' generated classes cannot
		// hold a record. Nor do the parallel readers of nested's -par (label threads)
		// join: the seed measured one reader per file.
		if s.Format == "protobuf" || s.Labels["threads"] != "" {
			return false
		}
		// A user's own subject is what they came to measure: at every scale.
		return full || s.User || slices.Contains(runnerFormats, s.Format)
	}
	metrics := map[string]float64{filecase.MetricRecords: float64(n)}
	var wants []runner.Want
	for _, cname := range codecs.Names() {
		if !full && !slices.Contains(runnerCodecs, cname) {
			continue
		}
		c, err := codecs.Parse(cname)
		if err != nil {
			return nil, fmt.Errorf("records: codec %s: %w", cname, err)
		}
		spec, ok := protocolCodec(c.Info())
		if !ok {
			continue
		}
		for _, op := range []struct{ proto, label string }{{runner.OpEncode, filecase.OpWrite}, {runner.OpDecode, filecase.OpRead}} {
			wants = append(wants, runner.Want{Dataset: dset, Op: op.proto, Codec: spec, Group: "runner/" + cname + "/" + op.label,
				Metrics: metrics, Budget: budgetFor(n), OpTime: filecase.OpTime(int64(n), op.label, cname), Accept: accept,
				NoLimit: op.proto == runner.OpEncode,
				Labels: func(subject string, s *runner.Subject) results.Labels {
					o := op.label
					if s == nil {
						o = filecase.OpReadBytes // the copy row: a floor, as the Go pairs' read-bytes
					}
					return results.Labels{{Key: filecase.LabelFormat, Value: subject}, {Key: filecase.LabelCodec, Value: cname}, {Key: filecase.LabelOp, Value: o}}
				}})
		}
	}
	return wants, nil
}

// protocolCodec is the runner protocol's name of a Go codec at the same
// level ("zstd:3", "lz4"); false for a codec no runner implements (s2).
func protocolCodec(in codec.Info) (string, bool) {
	switch in.Name {
	case "none", "lz4", "snappy":
		// lz4 is the frame format at its fast default in every runtime.
		return in.Name, true
	case "xz":
		// Go's writer has no levels; preset 6 has its 8 MiB dictionary.
		return "xz:6", true
	case "gzip", "zstd", "brotli":
		return fmt.Sprintf("%s:%d", in.Name, in.Level), true
	}
	return "", false
}

// batches converts the first n records of t to Arrow record batches of
// arrowipc.DefaultBatchRows rows.
func batches(am arrowipc.Mapping[ds.Record], t *ds.Table, n int) (*arrow.Schema, []arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, am.Schema)
	defer b.Release()
	var out []arrow.RecordBatch
	release := func() {
		for _, r := range out {
			r.Release()
		}
	}
	i := 0
	for r := range t.Records(n) {
		if err := am.Append(b, r); err != nil {
			release()
			return nil, nil, fmt.Errorf("record %d to Arrow: %w", i, err)
		}
		i++
		if i%arrowipc.DefaultBatchRows == 0 {
			out = append(out, b.NewRecordBatch())
		}
	}
	if i%arrowipc.DefaultBatchRows != 0 || i == 0 {
		out = append(out, b.NewRecordBatch())
	}
	return am.Schema, out, nil
}
