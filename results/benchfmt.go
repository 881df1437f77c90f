package results

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// WriteBenchfmt exports runs in the Go benchmark text format, as `go test
// -bench` writes it: file configuration lines from each run's environment
// (repeated only where they change, so several runs or hosts stay apart:
// `benchstat -col .config:host`), then one line per sample with ns/op,
// B/op, allocs/op, MB/s and custom metrics, named like
// "BenchmarkFeatures/subject=psdb/n=100-2". Labels are "/key=value" parts
// so `benchstat -col /subject` and `-row /n` work. Failed and skipped
// cases are not exported (they have no timings).
func WriteBenchfmt(w io.Writer, runs ...*Run) error {
	bw := benchfmt.NewWriter(w)
	for _, run := range runs {
		if err := writeBenchfmtRun(bw, run); err != nil {
			return err
		}
	}
	return nil
}

func writeBenchfmtRun(bw *benchfmt.Writer, run *Run) error {
	conf := []benchfmt.Config{
		{Key: "host", Value: []byte(run.Env.Host), File: true},
		{Key: "run", Value: []byte(run.Env.Start.UTC().Format("20060102T150405Z")), File: true},
		{Key: "goos", Value: []byte(run.Env.GOOS), File: true},
		{Key: "goarch", Value: []byte(run.Env.GOARCH), File: true},
		{Key: "cpu", Value: []byte(run.Env.CPU), File: true},
		{Key: "go", Value: []byte(run.Env.GoVersion), File: true},
		{Key: "serbench", Value: []byte(strings.TrimSpace(run.Env.Version + " " + run.Env.Revision)), File: true},
		{Key: "scale", Value: []byte(run.Env.Scale), File: true},
	}
	libs := make([]string, 0, len(run.Env.Libraries))
	for l := range run.Env.Libraries {
		libs = append(libs, l)
	}
	sort.Strings(libs)
	for _, l := range libs {
		key := "lib-" + strings.NewReplacer("/", "-", ".", "-").Replace(l)
		conf = append(conf, benchfmt.Config{Key: key, Value: []byte(run.Env.Libraries[l]), File: true})
	}
	for _, c := range run.Cases {
		if !c.OK() {
			continue
		}
		name := c.FullName() // the writer adds "Benchmark"
		if run.Env.GOMAXPROCS > 1 {
			name += "-" + strconv.Itoa(run.Env.GOMAXPROCS)
		}
		fixed := sortedKeys(c.Metrics)
		for _, s := range c.Samples {
			vals := []benchfmt.Value{{Value: s.NsPerOp, Unit: "ns/op"}}
			if c.BytesPerOp > 0 && s.NsPerOp > 0 {
				vals = append(vals, benchfmt.Value{Value: float64(c.BytesPerOp) * 1e3 / s.NsPerOp, Unit: "MB/s"})
			}
			if !c.NoAllocs {
				vals = append(vals,
					benchfmt.Value{Value: s.BytesPerOp, Unit: "B/op"},
					benchfmt.Value{Value: s.AllocsPerOp, Unit: "allocs/op"})
			}
			if s.VsBaseline > 0 {
				vals = append(vals, benchfmt.Value{Value: s.VsBaseline, Unit: UnitVsBaseline})
			}
			if s.VsLimit > 0 {
				vals = append(vals, benchfmt.Value{Value: s.VsLimit, Unit: UnitVsLimit})
			}
			for _, u := range sortedKeys(s.Metrics) {
				vals = append(vals, benchfmt.Value{Value: s.Metrics[u], Unit: benchUnit(u)})
			}
			for _, u := range fixed {
				vals = append(vals, benchfmt.Value{Value: c.Metrics[u], Unit: benchUnit(u)})
			}
			r := &benchfmt.Result{Config: conf, Name: benchfmt.Name(name), Iters: s.Iters, Values: vals}
			if err := bw.Write(r); err != nil {
				return fmt.Errorf("results: benchfmt export: %w", err)
			}
		}
		// Instruction counts go on lines of their own, one per counted
		// run: benchstat summarises each unit over the lines that have it.
		for _, k := range c.Counts {
			vals := []benchfmt.Value{{Value: k.Instructions, Unit: UnitInstructions}}
			if k.EstCycles > 0 {
				vals = append(vals, benchfmt.Value{Value: k.EstCycles, Unit: UnitEstCycles})
			}
			r := &benchfmt.Result{Config: conf, Name: benchfmt.Name(name), Iters: k.Iters, Values: vals}
			if err := bw.Write(r); err != nil {
				return fmt.Errorf("results: benchfmt export: %w", err)
			}
		}
	}
	return nil
}

// benchUnit makes a metric name a valid benchmark unit (no spaces).
func benchUnit(u string) string {
	return strings.Join(strings.Fields(u), "-")
}

func sortedKeys(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
