package report

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s changed (go test -update if intended); got:\n%s", path, got)
	}
}

func readRun(t *testing.T, name string) *results.Run {
	t.Helper()
	r, err := results.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r.File = name
	return r
}

// TestHTMLGolden renders two runs with a section built from the run's
// descriptors into the one self-contained HTML page.
func TestHTMLGolden(t *testing.T) {
	runs := []*results.Run{readRun(t, "run-a.jsonl"), readRun(t, "run-b.jsonl")}
	layouts := map[string][]table.Section{"features": {{Kind: table.KindSection, Workload: "features", Title: "Subjects", Blocks: []table.BlockSpec{{Subjects: "subject"}}}}}
	doc, err := Build(Input{Runs: runs, Layouts: layouts})
	if err != nil {
		t.Fatal(err)
	}
	var html, md strings.Builder
	doc.WriteHTML(&html)
	doc.WriteMarkdown(&md)
	js, err := doc.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "two-runs.golden.html", html.String())
	golden(t, "two-runs.golden.md", md.String())
	golden(t, "two-runs.golden.json", string(js))
	if strings.Contains(html.String(), "http://") || strings.Contains(html.String(), "https://") {
		t.Error("the page must not load anything from the network")
	}
}

// TestCompareGolden pins compare's text, plain and normalized.
func TestCompareGolden(t *testing.T) {
	a, b := readRun(t, "run-a.jsonl"), readRun(t, "run-b.jsonl")
	for _, tt := range []struct {
		name  string
		opts  CompareOptions
		write func(*Comparison, *strings.Builder) error
	}{
		{"compare.golden.txt", CompareOptions{}, func(c *Comparison, w *strings.Builder) error { return c.WriteText(w) }},
		{"compare-normalized.golden.txt", CompareOptions{Normalize: true}, func(c *Comparison, w *strings.Builder) error { return c.WriteText(w) }},
		{"compare.golden.md", CompareOptions{Threshold: 0.1}, func(c *Comparison, w *strings.Builder) error { return c.WriteMarkdown(w) }},
		{"compare.golden.json", CompareOptions{Normalize: true}, func(c *Comparison, w *strings.Builder) error { return c.WriteJSON(w) }},
	} {
		var out strings.Builder
		if err := tt.write(NewComparison("run-a.jsonl", "run-b.jsonl", a, b, tt.opts), &out); err != nil {
			t.Fatal(err)
		}
		golden(t, tt.name, out.String())
	}
	if c := NewComparison("a", "b", a, &results.Run{}, CompareOptions{}); c.Shared() != 0 {
		t.Errorf("a run against an empty one shares %d cases", c.Shared())
	}
}
