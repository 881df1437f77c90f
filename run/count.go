package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/callgrind"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
)

// Metric says what a run measures of each case.
type Metric struct {
	// Time is wall time per op (the samples, the in-round ratios).
	Time bool
	// Instructions is instructions and estimated cycles per op, counted
	// under Valgrind's callgrind for Go subjects.
	Instructions bool
}

// MetricNames are --metric's valid values.
const MetricNames = "time, instructions, time,instructions"

// ParseMetric parses --metric: a comma-separated list of time and
// instructions ("" is time).
func ParseMetric(s string) (Metric, error) {
	var m Metric
	if strings.TrimSpace(s) == "" {
		return Metric{Time: true}, nil
	}
	for _, p := range strings.Split(s, ",") {
		switch strings.TrimSpace(p) {
		case "time":
			m.Time = true
		case "instructions":
			m.Instructions = true
		default:
			return Metric{}, fmt.Errorf("--metric: unknown metric %q (valid: %s)", p, MetricNames)
		}
	}
	return m, nil
}

// String is the metric as --metric spells it.
func (m Metric) String() string {
	switch {
	case m.Time && m.Instructions:
		return "time,instructions"
	case m.Instructions:
		return "instructions"
	}
	return "time"
}

// notCounted is the note on a runner's case in a counting run.
const notCounted = "instructions not counted: this runner's subjects run in their own process, outside Valgrind " +
	"(the JVM's JIT runs tens of times slower there, and an interpreter's counts would be the interpreter's; the Rust runner's are counted); measured by time"

// countInstructions counts the instructions of w's Go cases in one child
// process under Valgrind (a Fork with Count set) and returns its cases by
// full name. The child's progress goes to events.
func countInstructions(ctx context.Context, o Options, w string, cases []bench.Case, tmp string, events func(ForkEvent)) (map[string]results.Case, error) {
	if len(cases) == 0 {
		return nil, nil
	}
	if o.Valgrind == "" {
		return nil, errors.New(callgrind.ErrMissing.Error())
	}
	if !callgrind.Supported() {
		return nil, errors.New("instruction counts need amd64 (Valgrind's client requests are spelled out for it only)")
	}
	dir, err := os.MkdirTemp(tmp, "count-")
	if err != nil {
		return nil, fmt.Errorf("instructions: %w", err)
	}
	defer os.RemoveAll(dir)
	var names strings.Builder
	for i := range cases {
		names.WriteString(cases[i].FullName() + "\n")
	}
	list := filepath.Join(dir, "cases.txt")
	if err := os.WriteFile(list, []byte(names.String()), 0o644); err != nil {
		return nil, fmt.Errorf("instructions: %w", err)
	}
	outFile := filepath.Join(dir, "callgrind.out")
	if keep := os.Getenv(callgrind.KeepEnv); keep != "" {
		if err := os.MkdirAll(keep, 0o755); err != nil {
			return nil, fmt.Errorf("instructions: %s: %w", callgrind.KeepEnv, err)
		}
		outFile = filepath.Join(keep, "callgrind.out")
	}
	f := Fork{Workload: w, Scale: o.Scale, Subjects: o.Subjects, Benchtime: o.Benchtime.String(), CaseTimeout: 0,
		K: 1, N: 1, Count: 1, CasesFile: list, Out: filepath.Join(dir, "child"), CountInstructions: true,
		Wrap: append([]string{o.Valgrind}, callgrind.Args(outFile)...),
		Env:  []string{callgrind.OutEnv + "=" + outFile, "GODEBUG=asyncpreemptoff=1"}}
	err = o.Spawn(ctx, f, events)
	got, rerr := results.ReadFile(filepath.Join(f.Out, ResultsFile))
	if err != nil {
		if bench.IsInterrupted(err) {
			return nil, err
		}
		if tail := callgrind.LogTail(outFile, 3); tail != "" {
			return nil, fmt.Errorf("instructions: the child under Valgrind: %w (Valgrind: %s)", err, tail)
		}
		return nil, fmt.Errorf("instructions: the child under Valgrind: %w", err)
	}
	if rerr != nil {
		return nil, fmt.Errorf("instructions: %w", rerr)
	}
	out := make(map[string]results.Case, len(got.Cases))
	for _, c := range got.Cases {
		out[c.FullName()] = c
	}
	return out, nil
}

// withCounts adds the counts of c's Go case (counted by full name) to
// the timed c, or says why it has none.
func withCounts(c results.Case, counted map[string]results.Case, remote bool) results.Case {
	if remote {
		if c.OK() {
			c.CountNote = notCounted
		}
		return c
	}
	k, ok := counted[c.FullName()]
	switch {
	case !ok:
		if c.OK() {
			c.CountNote = "instructions not counted: the counting child did not reach the case"
		}
	case k.OK():
		c.Counts, c.CountNote = k.Counts, k.CountNote
		c.Summarize()
	case c.OK():
		c.CountNote = "instructions not counted: under Valgrind the case " + k.Status + ": " + k.Error
	}
	return c
}

// countAll counts cases in this process (a counting child), emitting each.
func countAll(ctx context.Context, k *callgrind.Counter, cases []bench.Case, prog bench.Progress, emit func(results.Case) error) error {
	for i := range cases {
		if prog != nil {
			prog.Start(i, len(cases), &cases[i])
		}
		rc, err := bench.Count(ctx, cases[i], k, bench.CountOptions{})
		if err != nil {
			return err
		}
		if prog != nil {
			prog.Done(i+1, len(cases), &rc)
		}
		if err := emit(rc); err != nil {
			return err
		}
	}
	return nil
}

// countEstimate is how long counting c under Valgrind takes: about four
// seconds of regions (seven of 8 million instructions each, at callgrind's
// pace with its cache simulation) plus set-up and one op, run sixty times
// slower than natively.
func countEstimate(c *bench.Case) time.Duration {
	if c.Skip != "" {
		return 0
	}
	return 4*time.Second + 60*c.OpTime
}

// countingRunner reports whether a runner's timed loops count under
// callgrind: the Rust runner's do (runners/rust/src/callgrind.rs). The JVM
// runs tens of times slower there with its JIT interpreted, and CPython's
// counts would be the interpreter's.
func countingRunner(name string) bool { return name == "rust" }

// countRemote counts the instructions of the runner cases whose runner
// counts under callgrind: each comparison group again, its runner
// started under Valgrind, five samples a case, each sample's loop a
// counted region. It returns the cases so counted by full name.
func countRemote(ctx context.Context, o Options, remote []bench.Case, opts bench.Options, tmp string) (map[string]results.Case, error) {
	out := map[string]results.Case{}
	if o.Valgrind == "" {
		return out, nil
	}
	for _, grp := range bench.Groups(remote) {
		g, ok := grp[0].Remote.(*runner.Group)
		if !ok || !countingRunner(g.Runner.Name) {
			continue
		}
		dir, err := os.MkdirTemp(tmp, "count-"+g.Runner.Name+"-")
		if err != nil {
			return out, fmt.Errorf("instructions: %w", err)
		}
		outFile := filepath.Join(dir, "callgrind.out")
		cg := g.Counting(append([]string{o.Valgrind}, callgrind.Args(outFile)...), []string{callgrind.OutEnv + "=" + outFile})
		cases := make([]bench.Case, len(grp))
		for i, c := range grp {
			c.Count, c.Budget, c.MinCount = countRuns, 0, countRuns
			cases[i] = c
		}
		copts := opts
		copts.Count, copts.Target, copts.Deadline = countRuns, 0, time.Time{}
		copts.SampleTime = 20 * max(opts.SampleTime, time.Millisecond)
		rs, err := cg.MeasureGroup(ctx, cases, copts)
		os.RemoveAll(dir)
		if err != nil {
			return out, err
		}
		for _, r := range rs {
			out[r.FullName()] = countsFromSamples(r)
		}
	}
	return out, nil
}

// countRuns is how many counted regions a runner case gets.
const countRuns = 5

// countsFromSamples turns the callgrind metrics of a runner case's
// samples (callgrind-ir, -est-cycles, -l1-misses, -ll-misses and
// -branch-misses per op) into its counts.
func countsFromSamples(r results.Case) results.Case {
	if !r.OK() {
		return r
	}
	for _, s := range r.Samples {
		ir, ok := s.Metrics["callgrind-ir"]
		if !ok {
			continue
		}
		r.Counts = append(r.Counts, results.Count{Iters: s.Iters, Instructions: ir, EstCycles: s.Metrics["callgrind-est-cycles"],
			L1Misses: s.Metrics["callgrind-l1-misses"], LLMisses: s.Metrics["callgrind-ll-misses"], BranchMisses: s.Metrics["callgrind-branch-misses"]})
	}
	if len(r.Counts) == 0 {
		r.Status, r.Error = results.StatusFailed, "the runner reported no counts under Valgrind"
		return r
	}
	r.CountNote = "counted in the runner's timed loop under Valgrind (its iterations calibrated by time there)"
	return r
}
