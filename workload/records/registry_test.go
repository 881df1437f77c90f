package records

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	ds "github.com/serbench/serbench/dataset/records"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/jsonl"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/subject"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
)

// renamed is a built-in format under another name: a serializer a test
// adds to the registry beside the built-in ones.
type renamed struct {
	format.Format[ds.Record]
	name string
}

func (r renamed) Descriptor() format.Descriptor {
	d := r.Format.Descriptor()
	d.Name = r.name
	return d
}

// TestRegisteredSubject adds a format to a registry holding the built-in
// ones: the workload lists it, plans its cases like a built-in's and
// measures them verified; a subject that refuses the schema fails the plan
// with its name.
func TestRegisteredSubject(t *testing.T) {
	r := subject.NewRegistry()
	if err := Register(r); err != nil {
		t.Fatal(err)
	}
	mine := filecase.FormatSubject[ds.Record](renamed{jsonl.New[ds.Record](jsonl.Std), "mine"})
	if err := subject.Add(r, Name, mine); err != nil {
		t.Fatal(err)
	}
	w := New().WithSubjects(r)
	if names := w.Subjects(); !slices.Contains(names, "mine") || !slices.Contains(names, "jsonl") {
		t.Fatalf("Subjects() = %v, want the built-in formats and mine", names)
	}
	p, err := w.newPlan(context.Background(), 500, workload.Config{Subjects: []string{"mine"}, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var ops []string
	for _, c := range p.Cases {
		if got := c.Labels.Get(filecase.LabelFormat); got != "mine" {
			t.Errorf("case %s of subject %q, want only mine", c.Name, got)
		}
		if c.Labels.Get(filecase.LabelCodec) != "none" {
			continue
		}
		res := measure(t, c)
		if !res.OK() {
			t.Fatalf("%s: %s", res.FullName(), res.Error)
		}
		ops = append(ops, res.Labels.Get(filecase.LabelOp))
	}
	if !slices.Contains(ops, filecase.OpWrite) || !slices.Contains(ops, filecase.OpRead) {
		t.Errorf("mine measured %v, want a write and a read", ops)
	}
	if !slices.ContainsFunc(p.Descriptors, func(d results.Descriptor) bool { return d.Name == "mine" && d.Workload == Name }) {
		t.Error("no descriptor for mine")
	}

	refuses := filecase.Subject[ds.Record]{Desc: mine.Desc, Bind: func(*arrow.Schema) (format.Format[ds.Record], error) {
		return nil, errors.New("no schema for this")
	}}
	refuses.Desc.Name = "refuses"
	if err := subject.Add(r, Name, refuses); err != nil {
		t.Fatal(err)
	}
	_, err = w.newPlan(context.Background(), 500, workload.Config{Subjects: []string{"refuses"}, TempDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "refuses") {
		t.Errorf("a subject that refuses the schema: %v", err)
	}
}
