package pgscan

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload/workloadtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestReportGolden renders the pgscan sections from a recorded quick run
// (schema 2: descriptors, roles, groups, in-round ratios; ADBC installed)
// and compares the Markdown with a golden file. It needs no server.
func TestReportGolden(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", "quick.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	run.File = "quick.jsonl"
	doc, md := workloadtest.Markdown(t, run, New().Sections())
	workloadtest.Golden(t, filepath.Join("testdata", "quick.golden.md"), md, *update)
	plots := 0
	for _, w := range doc.Runs[0].Workloads {
		for _, s := range w.Sections {
			for _, b := range s.Blocks {
				if p, ok := b.(*report.Plot); ok {
					plots++
					if !strings.Contains(string(p.SVG), "<svg") {
						t.Errorf("%s is not an SVG", p.File)
					}
				}
			}
		}
	}
	if plots != 1 {
		t.Errorf("%d plots, want 1 (the batch sweep; one table size draws no size plot)", plots)
	}
	for _, want := range []string{
		"| pgarrow-select | baseline | github.com/serbench/serbench/pgarrow this build |",
		"| adbc | subject | adbc-driver-postgresql (Python) 1.13.0 |",
		"| copy-discard | limit | – |",
		"time × pgarrow-select", "time × copy-discard",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if s := New().Summary(run, run.Filter(Name, nil)); s == nil || len(s.Rows) != 7 || s.Header[3] != "× adbc" {
		t.Errorf("summary %+v: want 7 methods and a column against the peer", s)
	}
}

// TestReportSchema1 renders the recorded run as a build before schema 2
// wrote it (the method under the label key "method"), read through
// results.Read's migration: the tables still render from the medians,
// comparing with pgarrow-select and adbc by name, and no claim about the
// non-Arrow methods is made, since which methods produce Arrow is not
// recorded.
func TestReportSchema1(t *testing.T) {
	run := workloadtest.Schema1(t, filepath.Join("testdata", "quick.jsonl"), "method")
	_, md := workloadtest.Markdown(t, run, New().Sections())
	for _, want := range []string{"### Rows per second by table size", "### Method and peer comparison", "### Batch-size sweep",
		"| copy-discard | limit |", "time × pgarrow-select", "pgarrow-select reads 3.43× as many rows per second as adbc"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, unwanted := range []string{"### Methods", "Fastest non-Arrow method here: pgarrow", "of the fastest non-Arrow method"} {
		if strings.Contains(md, unwanted) {
			t.Errorf("report has %q", unwanted)
		}
	}
}
