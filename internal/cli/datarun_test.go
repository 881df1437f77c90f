package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/run"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/data"
)

// userdataTestdata holds the input files of the data workload's tests.
const userdataTestdata = "../../workload/userdata/testdata"

// TestDataRunPipeline runs the data workload through run.Run as the command
// line does: bad input is a *workload.UsageError (exit status 2) before any
// case is measured or any results file written; without an input a run of
// every workload skips data with a message; a good input yields the report.
// (It lives here, with run's caller, because no workload imports run.)
func TestDataRunPipeline(t *testing.T) {
	out := t.TempDir()
	opts := func(w *data.Workload, names ...string) run.Options {
		return run.Options{Workloads: workload.Set{w}, Names: names, Scale: workload.Quick, Count: 1, Benchtime: time.Millisecond, Out: out, Force: true}
	}
	bad := data.NewWith(data.Settings{Input: filepath.Join(userdataTestdata, "malformed.jsonl")}, nil)
	_, err := run.Run(context.Background(), opts(bad, data.Name))
	var ue *workload.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "malformed.jsonl:2") {
		t.Fatalf("bad input: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, run.ResultsFile)); err == nil {
		t.Error("bad input wrote a results file")
	}
	var log strings.Builder
	o := opts(data.New())
	o.Log = &log
	if _, err := run.Run(context.Background(), o); !errors.As(err, &ue) || !strings.Contains(log.String(), "serbench: data is not in this run: it measures a file of yours (serbench run data --input FILE, or --input corpus:movies for a public one)") {
		t.Errorf("no input: err %v, log %q", err, log.String())
	}
	var schema strings.Builder
	good := data.NewWith(data.Settings{Input: filepath.Join(userdataTestdata, "nested.jsonl.zst"), Formats: []string{"parquet", "msgpack"}, Codecs: []string{"none", "zstd"}}, &schema)
	res, err := run.Run(context.Background(), opts(good, data.Name))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(schema.String(), "| address.geo.lat | float64 | yes |") {
		t.Errorf("schema not printed before measuring: %q", schema.String())
	}
	md, err := os.ReadFile(filepath.Join(res.Dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"## Workload `data`", "Input **nested.jsonl.zst** (jsonl)", "| kind / compression | jsonl / zstd |", "Which columns make the file big"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("report lacks %q", s)
		}
	}
}
