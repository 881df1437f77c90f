package data

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/workloadtest"
)

var (
	update = flag.Bool("update", false, "rewrite golden files")
	record = flag.Bool("record", false, "re-record testdata/nested-run.jsonl (a real run over userdata's nested.jsonl)")
)

const smallRun = "nested-run.jsonl"

// TestRecordSmallRun re-records, with -record, the results file of the
// golden test: userdata's nested.jsonl (nesting, NULLs, inference notes)
// through every format with codecs none and zstd.
func TestRecordSmallRun(t *testing.T) {
	if !*record {
		t.Skip("run with -record to re-record testdata/" + smallRun)
	}
	p, err := NewWith(Settings{Input: "../../dataset/userdata/testdata/nested.jsonl", Codecs: []string{"none", "zstd"}}, nil).Plan(context.Background(), workload.Config{Scale: workload.Quick, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	w, err := results.Create(filepath.Join("testdata", smallRun))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	host, _ := os.Hostname()
	env := results.Env{CPU: "recorded by TestRecordSmallRun", Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version(), Start: time.Now().UTC(),
		Scale: "quick", Count: 3, Command: []string{"go", "test", "-run", "TestRecordSmallRun", "-record"}, Host: host,
		Extra: map[string]string{}}
	for k, v := range p.Env {
		env.Extra[Name+"."+k] = v
	}
	if err := w.WriteEnv(env); err != nil {
		t.Fatal(err)
	}
	for _, d := range p.Descriptors {
		d.Workload = Name
		// The input's path as the command line would show it.
		if d.Key == KeyInput {
			d.What = "nested.jsonl"
		}
		if err := w.WriteDescriptor(d); err != nil {
			t.Fatal(err)
		}
	}
	err = bench.RunAll(context.Background(), p.Cases, bench.Options{Count: 3, SampleTime: time.Millisecond}, nil, w.WriteCase)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteEnd(results.End{Time: time.Now().UTC(), Planned: len(p.Cases), Done: len(p.Cases)}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
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
	workloadtest.Golden(t, filepath.Join("testdata", "nested-run.golden.md"), md, *update)
}
