package features

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
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
	doc, err := report.Build([]*results.Run{run}, New().Sections())
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	doc.WriteMarkdown(&md)
	golden := filepath.Join("testdata", "quick.golden.md")
	if *update {
		if err := os.WriteFile(golden, []byte(md.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if md.String() != string(want) {
		t.Errorf("report changed (run go test -update if intended); got:\n%s", md.String())
	}
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
