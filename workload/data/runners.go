package data

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
	"github.com/serbench/serbench/workload/interop"
)

// runnerCases are the user's rows measured by the runners for other
// languages: every subject's encode (op write) and decode (op read) of the
// same rows the Go formats write and read, schema-driven, uncompressed,
// each decode verified by the digest of every column against the Go
// side's. A runner encodes to and decodes from memory; the Go pairs go
// through a real file.
func runnerCases(ctx context.Context, in *input, cfg workload.Config, formats []string, dir string) ([]bench.Case, []results.Descriptor) {
	if cfg.Runners == nil {
		return nil, nil
	}
	ready := cfg.Runners.Get(ctx)
	if len(ready) == 0 {
		return nil, nil
	}
	ds := &runner.Dataset{Name: "input", Rows: int(in.rows), Nested: runner.NestedSchema(in.schema), Build: func() (*arrow.Schema, []arrow.RecordBatch, error) {
		d, err := in.load()
		if err != nil {
			return nil, nil, err
		}
		bs := in.loaded()
		for _, b := range bs {
			b.Retain() // the runner group releases what it is given
		}
		return d.Schema, bs, nil
	}}
	metrics := map[string]float64{filecase.MetricRecords: float64(in.rows)}
	var wants []runner.Want
	// Subjects bound to the nested datasets' generated classes cannot
	// hold a user's schema; the parallel readers (nested's -par, label
	// threads) are their base subjects in batches.
	schemaDriven := func(s *runner.Subject) bool {
		return s.Format != "protobuf" && s.Labels["threads"] == "" && selectsFormat(formats, s.Format)
	}
	for _, op := range []struct{ proto, label string }{{runner.OpEncode, filecase.OpWrite}, {runner.OpDecode, filecase.OpRead}} {
		wants = append(wants, runner.Want{Dataset: ds, Op: op.proto, Codec: "none", Group: "runner/" + op.label, Affinity: in.path,
			Metrics: metrics, Budget: filecase.Budget, OpTime: opTime(in.memB, op.label, "none"), Accept: schemaDriven, NoLimit: op.proto == runner.OpEncode,
			Labels: func(subject string, s *runner.Subject) results.Labels {
				o := op.label
				if s == nil {
					o = filecase.OpReadBytes // the copy row: a floor, as the Go pairs' read-bytes
				}
				return results.Labels{{Key: filecase.LabelFormat, Value: subject}, {Key: filecase.LabelCodec, Value: "none"}, {Key: filecase.LabelOp, Value: o}}
			}})
	}
	return runner.Join(Name, caseName, filepath.Join(dir, "runners"), filecase.MetricFile, ready, wants)
}

// sameFile is the runner subject formats (hello's subjects[].format) that
// write and read the file format of Go format f; a variant (parquet-zstd)
// extends its base's name with a codec's and is the same file format.
func sameFile(f string) []string {
	for _, b := range []struct {
		base string
		subs []string
	}{
		{"arrow-stream", []string{"arrow-ipc-stream", "arrow-ipc", "arrow-ipc-file", "arrow"}},
		{"parquet", []string{"parquet"}},
		{"avro-ocf", []string{"avro"}},
		{"msgpack", []string{"msgpack"}},
		{"cbor", []string{"cbor"}},
		{"jsonl", []string{"json"}},
		{"protobuf", []string{"protobuf"}},
		{"csv", []string{"csv"}},
	} {
		if f == b.base || strings.HasPrefix(f, b.base+"-") {
			return b.subs
		}
	}
	return nil
}

// selectsFormat reports whether --formats (Go format names; empty: all)
// selects a runner subject of subjectFormat: a Go format selects its file
// format in every language, so --formats parquet-zstd keeps the runners'
// parquet subjects as --formats parquet does.
func selectsFormat(formats []string, subjectFormat string) bool {
	if len(formats) == 0 {
		return true
	}
	return slices.ContainsFunc(formats, func(f string) bool { return slices.Contains(sameFile(f), subjectFormat) })
}

// interopFormats are the interop matrix's formats (interop.Formats'
// names) that --formats selects; nil selects them all.
func interopFormats(formats []string) []string {
	if len(formats) == 0 {
		return nil
	}
	out := []string{}
	for _, f := range interop.Formats() {
		if slices.ContainsFunc(f.Subjects, func(s string) bool { return selectsFormat(formats, s) }) {
			out = append(out, f.Name)
		}
	}
	return out
}
