// Package workloadtest holds the test helpers the workloads share:
// rendering a workload's report to Markdown, comparing a text with a
// golden file (-update rewrites it) and re-recording the results file a
// golden test renders (-record: a real run of a small plan).
package workloadtest

import (
	"context"
	"flag"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
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

// The flags every workload's golden tests share.
var (
	update = flag.Bool("update", false, "rewrite golden files")
	record = flag.Bool("record", false, "re-record the results files the golden tests render (a real run)")
)

// Golden compares got with the file at path, first rewriting the file
// under -update.
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if *update {
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

// Record options.
type Record struct {
	// Scale names the plan's scale in the environment line.
	Scale string
	// Bench are the measurement options (Count is the env's count).
	Bench bench.Options
	// Descriptor, when set, adjusts each descriptor before it is written
	// (a path as a user would see it).
	Descriptor func(*results.Descriptor)
}

// Write measures plan's cases for w and writes them to path as a run
// would — the environment (the plan's facts as w's keys), the descriptors,
// the cases, an end line — when the test runs with -record; otherwise it
// skips the test. The file records no sections: golden tests render it
// with the workload's current layout.
func (r Record) Write(t *testing.T, path string, w workload.Workload, plan *workload.Plan) {
	t.Helper()
	if !*record {
		t.Skip("run with -record to re-record " + path)
	}
	f, err := results.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	host, _ := os.Hostname()
	env := results.Env{CPU: "recorded by " + t.Name(), Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version(), Start: time.Now().UTC(),
		Scale: r.Scale, Count: r.Bench.Count, Command: []string{"go", "test", "-run", t.Name(), "-record"}, Host: host, Extra: map[string]string{}}
	for k, v := range plan.Env {
		env.Extra[w.Name()+"."+k] = v
	}
	if err := f.WriteEnv(env); err != nil {
		t.Fatal(err)
	}
	for _, d := range plan.Descriptors {
		d.Workload = w.Name()
		if r.Descriptor != nil {
			r.Descriptor(&d)
		}
		if err := f.WriteDescriptor(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := bench.RunAll(context.Background(), plan.Cases, r.Bench, nil, f.WriteCase); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteEnd(results.End{Time: time.Now().UTC(), Planned: len(plan.Cases), Done: len(plan.Cases)}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
