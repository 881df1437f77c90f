package data

import (
	"context"
	"fmt"
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
	"github.com/serbench/serbench/workload/userdata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
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
	given := in.given
	ds := &runner.Dataset{Name: "input", Rows: int(in.rows), Nested: runner.NestedSchema(in.schema), Given: given, Build: func() (*arrow.Schema, []arrow.RecordBatch, error) {
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
	// A subject labelled given=KIND measures the user's own schema of
	// that kind, and is sent the rows only when they have one.
	givenKind := ""
	if given != nil {
		givenKind = given.Kind
	}
	schemaDriven := func(s *runner.Subject) bool {
		if k := s.Labels[runner.LabelGiven]; k != "" {
			return k == givenKind && s.Labels["threads"] == "" && selectsFormat(formats, s.Format)
		}
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
		{SubjectAvroAvsc, []string{"avro"}},
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

// givenFor is the schema the user gave (--avsc, --proto) as the runners
// get it, nil when none: the .avsc's text, or the message's file and its
// imports as a FileDescriptorSet.
func givenFor(g *userdata.Schema) (*runner.Given, error) {
	switch {
	case g == nil:
		return nil, nil
	case g.Avsc != nil:
		return &runner.Given{Kind: runner.GivenAvro, Data: g.Avsc}, nil
	case g.Message != nil:
		var set descriptorpb.FileDescriptorSet
		seen := map[string]bool{}
		var add func(fd protoreflect.FileDescriptor)
		add = func(fd protoreflect.FileDescriptor) {
			if seen[fd.Path()] {
				return
			}
			seen[fd.Path()] = true
			for i := 0; i < fd.Imports().Len(); i++ {
				add(fd.Imports().Get(i).FileDescriptor)
			}
			set.File = append(set.File, protodesc.ToFileDescriptorProto(fd)) // imports first
		}
		add(g.Message.ParentFile())
		b, err := proto.Marshal(&set)
		if err != nil {
			return nil, fmt.Errorf("data: the --proto schema for the runners: %w", err)
		}
		return &runner.Given{Kind: runner.GivenProtobuf, Data: b, Message: string(g.Message.FullName())}, nil
	}
	return nil, nil
}
