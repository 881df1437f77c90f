package data

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/workloadtest"
)

const smallRun = "nested-run.jsonl"

// TestRecordSmallRun re-records, with -record, the results file of the
// golden test: userdata's nested.jsonl (nesting, NULLs, inference notes)
// through every format with codecs none and zstd.
func TestRecordSmallRun(t *testing.T) {
	w := NewWith(Settings{Input: "../../workload/userdata/testdata/nested.jsonl", Codecs: []string{"none", "zstd"}}, nil)
	p, err := w.Plan(context.Background(), workload.Config{Scale: workload.Quick, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// The input's path as the command line would show it.
	named := func(d *results.Descriptor) {
		if d.Key == KeyInput {
			d.What = "nested.jsonl"
		}
	}
	workloadtest.Record{Scale: "quick", Bench: bench.Options{Count: 3, SampleTime: time.Millisecond}, Descriptor: named}.Write(t, filepath.Join("testdata", smallRun), w, p)
}

// TestReportGolden renders the data sections from the recorded run and
// compares the Markdown with a golden file: the report renders from the
// results alone.
func TestReportGolden(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", smallRun))
	if err != nil {
		t.Fatal(err)
	}
	run.File = smallRun
	_, md := workloadtest.Markdown(t, run, New())
	workloadtest.Golden(t, filepath.Join("testdata", "nested-run.golden.md"), md)
}
