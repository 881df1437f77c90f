package records

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload/filecase"
	"github.com/serbench/serbench/workload/workloadtest"
)

const smallRun = "small.jsonl"

// TestRecordSmallRun re-records the results file of the golden test when
// run with -record: 2,000 records, three formats × codecs none and zstd, the
// bare loop and the unbuffered write, each case with its planned samples.
func TestRecordSmallRun(t *testing.T) {
	p := smallPlan(t, 2000, t.TempDir(), `codec=(none|zstd)/`, "jsonl", "msgpack", "parquet-zstd", "msgpack-msgp", filecase.BareSubject, filecase.BareMsgpSubject)
	workloadtest.Record{Scale: "2000 records", Bench: bench.Options{Count: 3, SampleTime: time.Millisecond}}.Write(t, filepath.Join("testdata", smallRun), New(), p)
}

// TestReportGoldenV1 renders a results file written before results carried
// descriptors (schema 1): the report shows what that run recorded and
// leaves out what it cannot know.
func TestReportGoldenV1(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", "small-v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	run.File = "small-v1.jsonl"
	_, md := workloadtest.Markdown(t, run, New())
	workloadtest.Golden(t, filepath.Join("testdata", "small-v1.golden.md"), md)
}

// TestReportGolden renders the records sections from the recorded small
// run and compares the Markdown with a golden file.
func TestReportGolden(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", smallRun))
	if err != nil {
		t.Fatal(err)
	}
	run.File = smallRun
	doc, md := workloadtest.Markdown(t, run, New())
	workloadtest.Golden(t, filepath.Join("testdata", "small.golden.md"), md)
	for _, s := range []string{"Combined size & performance", "Pareto frontier", "Recommendations by use case",
		"pipeline ÷ bare", "msgpack-msgp-bare vs msgpack-msgp + none", "msgpack + none (unbuffered)", "decompress floor", "(records-size-vs-time.svg)"} {
		if !strings.Contains(md, s) {
			t.Errorf("report lacks %q", s)
		}
	}
	plots := 0
	for _, w := range doc.Runs[0].Workloads {
		for _, s := range w.Sections {
			for _, b := range s.Blocks {
				if b.BlockKind() == "plot" {
					plots++
				}
			}
		}
	}
	if plots != 1 {
		t.Errorf("%d plots, want 1 (size against time)", plots)
	}
}

// TestSummary checks the terminal summary of the recorded run: the fastest
// pairs by round trip, then the recommendations, on one screen.
func TestSummary(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", smallRun))
	if err != nil {
		t.Fatal(err)
	}
	tab := New().Summary(run, run.Filter(Name, nil))
	if tab == nil {
		t.Fatal("no summary")
	}
	if len(tab.Rows) > 20 {
		t.Errorf("%d rows: does not fit a screen", len(tab.Rows))
	}
	if tab.Rows[0][0].String() != "1" || !strings.Contains(tab.Rows[len(tab.Rows)-1][0].String(), "analytics") {
		t.Errorf("summary rows: first %v, last %v", tab.Rows[0], tab.Rows[len(tab.Rows)-1])
	}
}
