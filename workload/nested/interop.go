package nested

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/digest"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/arrowipc"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/workload/interop"
)

// InteropRows is how many of a dataset's records the interop matrix
// writes and reads: every field, list and null the generators make shows
// in the first hundreds (a userevents record is about 10 KB of JSON), and
// a runner's file ops on them take a fraction of its start-up.
const InteropRows = 500

// interopGroup is the interop matrix of the dataset's first InteropRows
// records (package interop): the six shared file formats, written by Go's
// schema-driven formats from the records' Arrow form and by every
// runner's subjects, plus protobuf, which only these datasets have —
// written and read by Go with the messages generated from the same .proto
// files as the runners' classes. Ready and Dir are the caller's.
func (d *dsCases[T]) interopGroup(am arrowipc.Mapping[T], pb rowFormat[T]) *interop.Group {
	first := func() ([]T, error) {
		recs, err := d.src.get()
		if err != nil {
			return nil, err
		}
		return recs[:min(len(recs), InteropRows)], nil
	}
	g := &interop.Group{Labels: results.Labels{{Key: LabelDataset, Value: d.name}}}
	g.Options.Extra = []interop.Format{interop.Protobuf(protobufFile(am, pb, first))}
	g.Dataset = func() (interop.Dataset, func(), error) {
		recs, err := first()
		if err != nil {
			return interop.Dataset{}, nil, err
		}
		schema, batches, err := arrowBatches(am, recs)
		if err != nil {
			return interop.Dataset{}, nil, err
		}
		release := func() {
			for _, b := range batches {
				b.Release()
			}
		}
		return interop.Dataset{Name: fmt.Sprintf("%s-%d", d.name, len(recs)), Schema: schema, Batches: batches}, release, nil
	}
	return g
}

// protobufFile is Go's side of the matrix's protobuf file: the records as
// length-delimited messages (the protobuf row format's file, uncompressed),
// and any writer's file read back into records and digested through their
// Arrow form.
func protobufFile[T any](am arrowipc.Mapping[T], pb rowFormat[T], first func() ([]T, error)) *interop.GoFormat {
	return &interop.GoFormat{
		Name: "protobuf",
		Write: func(_ *arrow.Schema, _ []arrow.RecordBatch, w io.Writer) error {
			recs, err := first()
			if err != nil {
				return err
			}
			bw := bufio.NewWriter(w)
			rc, err := pb.Bind(struct{}{})
			if err != nil {
				return fmt.Errorf("protobuf: %w", err)
			}
			var body, frame []byte
			for i := range recs {
				if body, err = rc.marshal(body[:0], &recs[i]); err != nil {
					return fmt.Errorf("protobuf: record %d: %w", i, err)
				}
				frame = format.AppendFrame(frame[:0], body)
				if _, err := bw.Write(frame); err != nil {
					return err
				}
			}
			return bw.Flush()
		},
		Read: func(schema *arrow.Schema, f *os.File) (digest.Result, error) {
			recs, err := first()
			if err != nil {
				return digest.Result{}, err
			}
			out := make([]T, len(recs))
			if err := readRows(f.Name(), pb, codec.Default().MustParse("none"), out, nil); err != nil {
				return digest.Result{}, err
			}
			_, batches, err := arrowBatches(am, out)
			if err != nil {
				return digest.Result{}, err
			}
			defer func() {
				for _, b := range batches {
					b.Release()
				}
			}()
			return digest.Batches(schema, batches...)
		},
	}
}

// interopCases plans each dataset's matrix with the ready runners.
func interopCases(groups []*interop.Group, ready []runner.Ready, dir string) []bench.Case {
	var out []bench.Case
	for _, g := range groups {
		name := g.Labels.Get(LabelDataset)
		g.Ready, g.Dir = ready, filepath.Join(dir, "interop", name)
		out = append(out, g.Cases(Name, "interop/"+name, name)...)
	}
	return out
}
