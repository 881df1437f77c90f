package data

import (
	"context"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
)

// runnerCases are the user's rows measured by the runners for other
// languages: every subject's encode (op write) and decode (op read) of the
// same rows the Go formats write and read, schema-driven, uncompressed,
// each decode verified by the digest of every column against the Go
// side's. A runner encodes to and decodes from memory; the Go pairs go
// through a real file.
func runnerCases(ctx context.Context, in *input, cfg workload.Config, dir string) ([]bench.Case, []results.Descriptor) {
	if cfg.Runners == nil || cfg.DryRun {
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
	schemaDriven := func(s *runner.Subject) bool { return s.Format != "protobuf" && s.Labels["threads"] == "" }
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
