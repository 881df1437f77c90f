package nested

import (
	"context"
	"testing"

	"github.com/serbench/serbench/dataset/nested/media"
	"github.com/serbench/serbench/dataset/nested/tpch"
	"github.com/serbench/serbench/dataset/nested/userevents"
	"github.com/serbench/serbench/workload/interop"
	"github.com/serbench/serbench/workload/nested/nestedarrow"
)

// matrixOf builds the Go-only interop matrix of a dataset's group: every
// shared format and protobuf written and read back by Go.
func matrixOf[T any](t *testing.T, name string, recs []T, pb rowFormat[T]) *interop.Matrix {
	t.Helper()
	am, err := nestedarrow.NewMapping[T]()
	if err != nil {
		t.Fatal(err)
	}
	d := &dsCases[T]{name: name, n: len(recs), src: &source[T]{load: func() ([]T, error) { return recs, nil }}}
	g := d.interopGroup(am, pb)
	ds, release, err := g.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if ds.Rows() != int64(min(len(recs), InteropRows)) {
		t.Fatalf("%d rows, want %d", ds.Rows(), min(len(recs), InteropRows))
	}
	m, err := interop.Run(context.Background(), ds, nil, t.TempDir(), g.Options)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestInteropGoOnly: on each nested dataset Go reads back every file it
// writes, protobuf's included, to the dataset's digest.
func TestInteropGoOnly(t *testing.T) {
	tp, err := tpch.GenerateLineItems(context.Background(), 1500)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*interop.Matrix{
		matrixOf(t, "tpch", tp, typedRows[tpch.LineItem](protobufRows(), Dataset{Name: "tpch"})),
		matrixOf(t, "media", media.Generate(300), typedRows[media.Record](protobufRows(), Dataset{Name: "media"})),
		matrixOf(t, "userevents", userevents.Generate(300), typedRows[userevents.Record](protobufRows(), Dataset{Name: "userevents"})),
	} {
		t.Log("\n" + m.Table())
		if m.Cell("protobuf", "go:protobuf", "go:protobuf") == nil {
			t.Errorf("%s: no protobuf cell", m.Dataset)
		}
		if len(m.Cells) != len(interop.Formats())+1 {
			t.Errorf("%s: %d cells, want %d", m.Dataset, len(m.Cells), len(interop.Formats())+1)
		}
		for _, c := range m.Cells {
			if c.Status != interop.OK {
				t.Errorf("%s: %s: %s", m.Dataset, c.Format, c.Reason)
			}
		}
	}
}
