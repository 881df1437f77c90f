package features

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload/workloadtest"
)

// TestReportGolden renders the features sections from recorded quick runs
// and compares the Markdown with golden files: one written by this schema
// (descriptors, roles, interleaved in-round ratios) and one by schema 1,
// which must still render what it recorded.
func TestReportGolden(t *testing.T) {
	tests := []struct {
		file  string
		plots int // types × ops
		want  []string
	}{
		{"quick.jsonl", 6, []string{"| psdb | baseline | github.com/serbench/serbench/psdb this build |", "× ±"}},
		{"quick-v1.jsonl", 4, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			run, err := results.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			run.File = tt.file
			doc, md := workloadtest.Markdown(t, run, New())
			workloadtest.Golden(t, filepath.Join("testdata", strings.TrimSuffix(tt.file, ".jsonl")+".golden.md"), md)
			for _, w := range tt.want {
				if !strings.Contains(md, w) {
					t.Errorf("report lacks %q", w)
				}
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
			if plots != tt.plots {
				t.Errorf("%d plots, want %d", plots, tt.plots)
			}
		})
	}
}
