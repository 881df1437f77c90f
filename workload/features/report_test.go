package features

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

// TestReportGolden renders the features sections from a recorded quick
// run and compares the Markdown with a golden file.
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
	if plots != 4 {
		t.Errorf("%d plots, want 4 (2 types × 2 ops)", plots)
	}
}
