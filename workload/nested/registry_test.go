package nested

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/subject"
	"github.com/serbench/serbench/workload"
)

// gobRows is a row format serbench does not ship: encoding/gob, one
// encoder per record (each record carries its type description).
func gobRows(name string) Subject {
	return Subject{
		Desc: results.Descriptor{Name: name, Module: "encoding/gob", What: "gob, an encoder per record"},
		Bind: func(Dataset) (RowCodec, error) {
			return RowCodec{
				Marshal: func(dst []byte, rec any) ([]byte, error) {
					buf := bytes.NewBuffer(dst)
					err := gob.NewEncoder(buf).Encode(rec)
					return buf.Bytes(), err
				},
				Unmarshal: func(b []byte, rec any) error { return gob.NewDecoder(bytes.NewReader(b)).Decode(rec) },
			}, nil
		},
	}
}

// TestRegisteredRowFormat: a row format added to the registry beside the
// built-ins is listed, planned for the datasets it takes, written, read
// whole (serially and in parallel) and verified like the built-ins; one
// that refuses a dataset is an error at planning naming it.
func TestRegisteredRowFormat(t *testing.T) {
	r := subject.NewRegistry()
	if err := Register(r); err != nil {
		t.Fatal(err)
	}
	mine := gobRows("gob")
	mine.Takes = []string{"media"}
	if err := subject.Add(r, Name, mine); err != nil {
		t.Fatal(err)
	}
	w := New().WithSubjects(r)
	if names := w.Subjects(); !slices.Contains(names, "gob") || !slices.Contains(names, "gob"+ParSuffix) || !slices.Contains(names, "json") {
		t.Fatalf("Subjects() = %v, want the built-in formats and gob, gob-par", names)
	}
	rows, err := w.rows()
	if err != nil {
		t.Fatal(err)
	}
	cfg := workload.Config{Subjects: []string{"gob", "gob" + ParSuffix}, TempDir: t.TempDir()}
	p, err := newPlan(context.Background(), tinySizes(), cfg, []string{"media", "userevents"}, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	seen := map[string]bool{}
	for _, c := range runPlan(t, p) {
		if c.Status != results.StatusOK {
			t.Errorf("%s: %s: %s", c.FullName(), c.Status, c.Error)
		}
		if ds := c.Labels.Get(LabelDataset); ds != "media" {
			t.Errorf("%s: dataset %s, but gob takes only media", c.FullName(), ds)
		}
		seen[c.Labels.Get(LabelSubject)+"/"+c.Labels.Get(results.OpLabel)] = true
	}
	if len(seen) < 3 {
		t.Errorf("gob measured %v, want its write and both reads", seen)
	}
	if !slices.ContainsFunc(p.Descriptors, func(d results.Descriptor) bool { return d.Name == "gob" && d.Workload == Name }) {
		t.Error("no descriptor for gob")
	}

	refuses := gobRows("refuses")
	refuses.Bind = func(Dataset) (RowCodec, error) { return RowCodec{}, errors.New("not this dataset") }
	if err := subject.Add(r, Name, refuses); err != nil {
		t.Fatal(err)
	}
	rows, err = w.rows()
	if err != nil {
		t.Fatal(err)
	}
	_, err = newPlan(context.Background(), tinySizes(), workload.Config{Subjects: []string{"refuses"}, TempDir: t.TempDir(), DryRun: true}, []string{"media"}, rows)
	if err == nil || !strings.Contains(err.Error(), "refuses") || !strings.Contains(err.Error(), "not this dataset") {
		t.Errorf("a format that refuses the dataset: %v", err)
	}
}
