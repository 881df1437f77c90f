// Package workloadtest holds the test helpers the workloads share:
// rendering a workload's report sections to Markdown and comparing a text
// with a golden file.
package workloadtest

import (
	"os"
	"strings"
	"testing"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

// Markdown builds the report of run as `serbench report` does for w —
// the sections the run recorded (else w's layout), w's derived blocks —
// and renders it as Markdown, failing the test on error.
func Markdown(t testing.TB, run *results.Run, w workload.Workload) (*report.Doc, string) {
	t.Helper()
	ws := workload.Set{w}
	return Render(t, report.Input{Runs: []*results.Run{run}, Derived: ws.Derive([]*results.Run{run}), Layouts: ws.Layouts()})
}

// Render builds the report of in and renders it as Markdown, failing the
// test on error.
func Render(t testing.TB, in report.Input) (*report.Doc, string) {
	t.Helper()
	doc, err := report.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	doc.WriteMarkdown(&md)
	return doc, md.String()
}

// Golden compares got with the file at path, first rewriting the file when
// update is set (the tests' -update flag).
func Golden(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s changed (run go test -update if intended); got:\n%s", path, got)
	}
}

// OneSample cuts every measured case of run to its first sample, as a
// slow case whose time budget allowed one: tests that findings mark such
// medians (n=1) use it.
func OneSample(run *results.Run) {
	for i := range run.Cases {
		c := &run.Cases[i]
		if s, ok := c.Summary[results.UnitNsPerOp]; ok {
			s.N = 1
			c.Summary[results.UnitNsPerOp] = s
			c.Samples = c.Samples[:1]
		}
	}
}
