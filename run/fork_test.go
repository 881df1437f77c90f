package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

func TestForkCounts(t *testing.T) {
	tests := []struct {
		count, n int
		want     []int
	}{
		{20, 4, []int{5, 5, 5, 5}},
		{10, 4, []int{3, 3, 2, 2}},
		{3, 3, []int{1, 1, 1}},
		{1, 1, []int{1}},
	}
	for _, tt := range tests {
		if got := forkCounts(tt.count, tt.n); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("forkCounts(%d, %d) = %v, want %v", tt.count, tt.n, got, tt.want)
		}
	}
}

// TestBatchesKeepGroupsWhole: batches hold at least forkBatch cases and
// never split a comparison group, even when its cases interleave with
// another group's in the plan (features plans encode, decode, encode, …).
func TestBatchesKeepGroupsWhole(t *testing.T) {
	var cases []bench.Case
	for n := 0; n < 12; n++ {
		for s := 0; s < 7; s++ {
			for _, op := range []string{"encode", "decode"} {
				cases = append(cases, bench.Case{Name: "C", Group: fmt.Sprint(n, "/", op),
					Labels: results.Labels{{Key: "subject", Value: fmt.Sprint(s)}, {Key: "n", Value: fmt.Sprint(n)}, {Key: "op", Value: op}}})
			}
		}
	}
	bs := batches(cases)
	total := 0
	batchOf := map[string]int{}
	for i, b := range bs {
		total += len(b)
		if i < len(bs)-1 && len(b) < forkBatch {
			t.Errorf("batch %d has %d cases, want ≥ %d", i, len(b), forkBatch)
		}
		for _, c := range b {
			if j, ok := batchOf[c.Group]; ok && j != i {
				t.Errorf("group %s split between batches %d and %d", c.Group, j, i)
			}
			batchOf[c.Group] = i
		}
	}
	if total != len(cases) || len(bs) < 2 {
		t.Errorf("%d batches of %d cases in all, want %d cases", len(bs), total, len(cases))
	}
}

func TestForkEventRoundTrip(t *testing.T) {
	for _, e := range []ForkEvent{
		{Name: "Features/subject=psdb/n=100"},
		{Done: true, Name: "F/subject=a", Status: results.StatusFailed, Error: "verify: bad\ttab"},
		{Done: true, Name: "F/subject=b", Status: results.StatusOK},
	} {
		got, ok := ParseForkEvent(FormatForkEvent(e))
		want := e
		if want.Error == "verify: bad\ttab" {
			want.Error = "verify: bad tab"
		}
		if !ok || got != want {
			t.Errorf("round trip of %+v: %+v, %v", e, got, ok)
		}
	}
	if _, ok := ParseForkEvent("serbench: 3 cases"); ok {
		t.Error("an ordinary line parsed as an event")
	}
}

// forked is the fake workload asking for three processes.
// forked is the fake workload asking for forks processes.
type forked struct {
	fake
	forks int
}

func (f forked) Plan(ctx context.Context, cfg workload.Config) (*workload.Plan, error) {
	p, err := f.fake.Plan(ctx, cfg)
	if p != nil {
		p.Forks = f.forks
	}
	return p, err
}

func TestForkGODEBUG(t *testing.T) {
	tests := []struct{ parent, want string }{
		{"", "madvdontneed=0"},
		{"gctrace=1", "gctrace=1,madvdontneed=0"},
		{"madvdontneed=1", "madvdontneed=1"}, // the user's choice stands
		{"gctrace=1, madvdontneed=1", "gctrace=1, madvdontneed=1"},
		{"xmadvdontneed=1", "xmadvdontneed=1,madvdontneed=0"},
	}
	for _, tt := range tests {
		if got := ForkGODEBUG(tt.parent); got != tt.want {
			t.Errorf("ForkGODEBUG(%q) = %q, want %q", tt.parent, got, tt.want)
		}
	}
}

// TestForksMergeSamples: a workload that asks for three forks is measured
// by three "processes" (here: Run called as the fork would be), each
// taking its share of the samples of exactly the parent's cases; the
// parent's results hold every case once with all samples, rounds numbered
// on, and record the forks.
func TestForksMergeSamples(t *testing.T) {
	var spawned []Fork
	spawn := func(ctx context.Context, f Fork, events func(ForkEvent)) error {
		spawned = append(spawned, f)
		names, err := ReadCasesFile(f.CasesFile)
		if err != nil {
			return err
		}
		var iters map[string]int
		if f.ItersFile != "" {
			if iters, err = ReadItersFile(f.ItersFile); err != nil {
				return err
			}
		}
		_, err = Run(ctx, Options{Workloads: workload.Set{forked{forks: 3}}, Names: []string{f.Workload}, Scale: f.Scale,
			Count: f.Count, Benchtime: 1e6, Out: f.Out, Force: true, Cases: names, Iters: iters, ResultsOnly: true,
			Progress: eventsProgress{events}})
		return err
	}
	o := opts(t, t.TempDir(), func(o *Options) {
		o.Workloads, o.Count, o.Spawn = workload.Set{forked{forks: 3}}, 7, spawn
		o.Subjects = []string{"a", "b", "lim"}
	})
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(spawned) != 3 || spawned[0].Count+spawned[1].Count+spawned[2].Count != 7 || spawned[2].K != 3 || spawned[2].N != 3 {
		t.Fatalf("forks %+v", spawned)
	}
	for _, f := range spawned {
		if !slices.Contains(f.Env, "GODEBUG="+ForkGODEBUG(os.Getenv("GODEBUG"))) {
			t.Errorf("fork %d environment %q: want the forks' GODEBUG", f.K, f.Env)
		}
	}
	// The first fork calibrates; the others reuse its iterations.
	if spawned[0].ItersFile != "" || spawned[1].ItersFile == "" || spawned[2].ItersFile != spawned[1].ItersFile {
		t.Errorf("iterations files: %q %q %q", spawned[0].ItersFile, spawned[1].ItersFile, spawned[2].ItersFile)
	}
	run, err := results.ReadFile(out.ResultsPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Cases) != 3 || run.Env.Extra["fake.forks"] == "" {
		t.Fatalf("%d cases, env extra %v", len(run.Cases), run.Env.Extra)
	}
	// Each fork probed the machine before its group; the parent keeps
	// those probes, tagged with the fork that took them.
	probed := map[int]bool{}
	for _, p := range run.Probes {
		probed[p.Fork] = true
	}
	if len(probed) != 3 || !probed[1] || !probed[2] || !probed[3] {
		t.Errorf("probes came from forks %v, want 1, 2 and 3", probed)
	}
	// A merged case spans its forks: from the first fork's start to the
	// last one's end, so it covers probes of all three.
	for _, c := range run.Cases {
		in := map[int]bool{}
		for _, p := range run.Probes {
			if !p.Time.Before(c.Start) && !p.Time.After(c.End) {
				in[p.Fork] = true
			}
		}
		if c.Start.IsZero() || !c.End.After(c.Start) || !in[2] {
			t.Errorf("%s: measured %s … %s, covering probes of forks %v", c.FullName(), c.Start, c.End, in)
		}
	}
	for _, c := range run.Cases {
		if len(c.Samples) != 7 || !c.OK() || c.Group != "g" {
			t.Errorf("%s: %d samples, status %s, group %q", c.FullName(), len(c.Samples), c.Status, c.Group)
		}
		var forkOf []int // the process each sample should come from
		for k, f := range spawned {
			for range f.Count {
				forkOf = append(forkOf, k+1)
			}
		}
		for i, s := range c.Samples {
			// A fork's rounds follow the previous fork's; a round may
			// hold several samples (a turn of short samples).
			if i > 0 && (s.Round < c.Samples[i-1].Round || s.Fork != c.Samples[i-1].Fork && s.Round == c.Samples[i-1].Round) {
				t.Errorf("%s: sample %d (fork %d) has round %d after round %d (fork %d)", c.FullName(), i, s.Fork, s.Round, c.Samples[i-1].Round, c.Samples[i-1].Fork)
			}
			if s.Fork != forkOf[i] {
				t.Errorf("%s: sample %d is tagged fork %d, want %d", c.FullName(), i, s.Fork, forkOf[i])
			}
			if s.Iters != c.Samples[0].Iters {
				t.Errorf("%s: sample %d ran %d iterations, the first fork's %d", c.FullName(), i, s.Iters, c.Samples[0].Iters)
			}
		}
		if _, ok := c.Stat(results.UnitVsBaseline); !ok {
			t.Errorf("%s: no in-round ratio", c.FullName())
		}
	}
	if st, err := os.Stat(filepath.Join(o.Out, "report.md")); err != nil || st.Size() == 0 {
		t.Errorf("the parent writes the report: %v", err)
	}
	if forkDirs, _ := filepath.Glob(filepath.Join(o.Out, "fork-*")); len(forkDirs) > 0 {
		t.Errorf("fork output left in the run's directory: %v", forkDirs)
	}
}

// eventsProgress is a fork's progress as the CLI's fork mode reports it.
type eventsProgress struct{ f func(ForkEvent) }

func (eventsProgress) Begin(int, map[string]CaseCost)             {}
func (eventsProgress) End()                                       {}
func (eventsProgress) Budget(time.Time, map[string]time.Duration) {}
func (eventsProgress) Deadline(string, time.Time)                 {}
func (eventsProgress) Sample(*bench.Case)                         {}
func (p eventsProgress) Start(_, _ int, c *bench.Case) {
	p.f(ForkEvent{Name: c.FullName()})
}
func (p eventsProgress) Done(_, _ int, r *results.Case) {
	p.f(ForkEvent{Done: true, Name: r.FullName(), Status: r.Status, Error: r.Error})
}

// TestForksLeaveUnforkableWorkloads: --forks changes only the workloads
// that can fork; one that cannot (it would need a DSN or an input file a
// fork is not given) is measured in this process.
func TestForksLeaveUnforkableWorkloads(t *testing.T) {
	spawned := 0
	o := opts(t, t.TempDir(), func(o *Options) {
		o.Forks, o.Count = 3, 3
		o.Spawn = func(context.Context, Fork, func(ForkEvent)) error { spawned++; return nil }
	})
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if spawned != 0 || out.Run.Env.Extra["fake.forks"] != "" {
		t.Errorf("a workload with Plan.Forks 0 was forked %d times (env %v)", spawned, out.Run.Env.Extra)
	}
	for _, c := range out.Run.Cases {
		if c.OK() && len(c.Samples) != 3 {
			t.Errorf("%s: %d samples, want 3 from this process", c.FullName(), len(c.Samples))
		}
	}
}

// forkAs returns a Spawner that measures a fork as the CLI's fork mode
// does (Run on the parent's case list), with workload w, recording each
// fork in spawned; with stopAfter > 0 the fork measures only its first
// stopAfter cases and reports an interrupt, as a fork stopped by ^C does.
func forkAs(w workload.Workload, spawned *[]Fork, stopAfter int) Spawner {
	return func(ctx context.Context, f Fork, events func(ForkEvent)) error {
		*spawned = append(*spawned, f)
		names, err := ReadCasesFile(f.CasesFile)
		if err != nil {
			return err
		}
		if stopAfter > 0 {
			names = names[:stopAfter]
		}
		_, err = Run(ctx, Options{Workloads: workload.Set{w}, Names: []string{f.Workload}, Scale: f.Scale,
			Count: f.Count, Benchtime: 1e6, Out: f.Out, Force: true, Cases: names, ResultsOnly: true,
			Progress: eventsProgress{events}})
		if err == nil && stopAfter > 0 {
			err = bench.ErrInterrupted
		}
		return err
	}
}

// TestOneForkIsAChildProcess: a workload that asks for one fork is
// measured in one child process taking every sample (with the forks'
// runtime settings), not in the serbench process, and the environment
// card says so.
func TestOneForkIsAChildProcess(t *testing.T) {
	var spawned []Fork
	w := forked{forks: 1}
	o := opts(t, t.TempDir(), func(o *Options) {
		o.Workloads, o.Count, o.Spawn = workload.Set{w}, 4, forkAs(w, &spawned, 0)
		o.Subjects = []string{"a", "b", "lim"}
	})
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(spawned) != 1 || spawned[0].N != 1 || spawned[0].Count != 4 ||
		!slices.Contains(spawned[0].Env, "GODEBUG="+ForkGODEBUG(os.Getenv("GODEBUG"))) {
		t.Fatalf("forks %+v, want one child taking all 4 samples with the forks' GODEBUG", spawned)
	}
	if got := out.Run.Env.Extra["fake.forks"]; !strings.HasPrefix(got, "1 child process, 4 samples per case") {
		t.Errorf("environment card: %q", got)
	}
	if len(out.Run.Cases) != 3 {
		t.Fatalf("%d cases, want 3", len(out.Run.Cases))
	}
	for _, c := range out.Run.Cases {
		if !c.OK() || len(c.Samples) != 4 {
			t.Errorf("%s: status %s, %d samples, want ok with 4", c.FullName(), c.Status, len(c.Samples))
		}
	}
}

// TestInterruptedForksKeepFinishedCases: when a fork is interrupted, a
// case is kept only if every fork measured it. With one fork that is
// every case the child finished; with three, a case the first fork
// finished is not finished (the other forks never measured it).
func TestInterruptedForksKeepFinishedCases(t *testing.T) {
	tests := []struct {
		forks, want int
	}{
		{1, 1},
		{3, 0},
	}
	for _, tt := range tests {
		var spawned []Fork
		w := forked{forks: tt.forks}
		o := opts(t, t.TempDir(), func(o *Options) {
			o.Workloads, o.Count, o.Spawn = workload.Set{w}, 3, forkAs(w, &spawned, 1)
			o.Subjects = []string{"a", "b", "lim"}
		})
		out, err := Run(context.Background(), o)
		if err != nil {
			t.Fatalf("forks %d: %v", tt.forks, err)
		}
		if !out.Interrupted || len(spawned) != 1 {
			t.Errorf("forks %d: interrupted %v after %d forks, want true after 1", tt.forks, out.Interrupted, len(spawned))
		}
		run, err := results.ReadFile(out.ResultsPath)
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Cases) != tt.want || run.End == nil || !run.End.Interrupted {
			t.Errorf("forks %d: %d cases kept (want %d), end %+v", tt.forks, len(run.Cases), tt.want, run.End)
		}
		for _, c := range run.Cases {
			if !c.OK() || len(c.Samples) != 3 {
				t.Errorf("forks %d: %s kept with status %s and %d samples", tt.forks, c.FullName(), c.Status, len(c.Samples))
			}
		}
	}
}

// TestForksStopAtTarget: with a sampling target that the first two
// processes' samples meet whatever the machine does (a relative width of
// 1e9: the fake's one-microsecond sleeps, on a loaded machine, spread
// their ratios over more than ±5000%), a group takes no third fork, and
// its cases say the target stopped them; without a target every fork runs.
func TestForksStopAtTarget(t *testing.T) {
	for _, tt := range []struct {
		target float64
		forks  int
		stop   string
	}{{1e9, 2, bench.StopTarget}, {0, 3, bench.StopCount}} {
		var spawned []Fork
		spawn := func(ctx context.Context, f Fork, events func(ForkEvent)) error {
			spawned = append(spawned, f)
			names, err := ReadCasesFile(f.CasesFile)
			if err != nil {
				return err
			}
			_, err = Run(ctx, Options{Workloads: workload.Set{forked{forks: 3}}, Names: []string{f.Workload}, Scale: f.Scale,
				Count: f.Count, Benchtime: 1e6, Out: f.Out, Force: true, Cases: names, ResultsOnly: true, Progress: eventsProgress{events}})
			return err
		}
		o := opts(t, t.TempDir(), func(o *Options) {
			o.Workloads, o.Count, o.Spawn, o.Target = workload.Set{forked{forks: 3}}, 21, spawn, tt.target
			o.Subjects = []string{"a", "b", "lim"}
		})
		out, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(spawned) != tt.forks {
			t.Errorf("target %g: %d forks, want %d", tt.target, len(spawned), tt.forks)
		}
		run, err := results.ReadFile(out.ResultsPath)
		if err != nil {
			t.Fatal(err)
		}
		if len(spawned) != tt.forks {
			for _, c := range run.Cases {
				t.Logf("%s: %s, %d samples, converged %v", c.FullName(), c.Status, len(c.Samples), bench.Converged(&c, tt.target))
			}
		}
		for _, c := range run.Cases {
			if c.OK() && c.Stop != tt.stop {
				t.Errorf("target %g: %s stopped by %q, want %q", tt.target, c.FullName(), c.Stop, tt.stop)
			}
		}
	}
}

// TestForksStopAtBudget: past the run's budget a forked workload takes no
// process after the second, and each fork gets the run's target and the
// budget's end to stop its own rounds by.
func TestForksStopAtBudget(t *testing.T) {
	var spawned []Fork
	spawn := func(ctx context.Context, f Fork, events func(ForkEvent)) error {
		spawned = append(spawned, f)
		names, err := ReadCasesFile(f.CasesFile)
		if err != nil {
			return err
		}
		_, err = Run(ctx, Options{Workloads: workload.Set{forked{forks: 3}}, Names: []string{f.Workload}, Scale: f.Scale,
			Count: f.Count, Benchtime: 1e6, Out: f.Out, Force: true, Cases: names, ResultsOnly: true, Progress: eventsProgress{events},
			Target: f.Target, Deadline: f.Deadline})
		return err
	}
	o := opts(t, t.TempDir(), func(o *Options) {
		o.Workloads, o.Count, o.Spawn, o.Target, o.Budget = workload.Set{forked{forks: 3}}, 21, spawn, 1e-9, time.Nanosecond
		o.Subjects = []string{"a", "b", "lim"}
	})
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(spawned) != 2 {
		t.Errorf("%d forks past the budget, want 2", len(spawned))
	}
	for _, f := range spawned {
		if f.Deadline.IsZero() || f.Target != 1e-9 {
			t.Errorf("fork %d: deadline %v, target %g", f.K, f.Deadline, f.Target)
		}
	}
	run, err := results.ReadFile(out.ResultsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range run.Cases {
		if c.OK() && c.Stop != bench.StopRun {
			t.Errorf("%s stopped by %q, want %q", c.FullName(), c.Stop, bench.StopRun)
		}
	}
}

// TestNoCasesNoFork: a workload whose selected cases are all measured by
// runners (Remote) has no batch to fork, and a fork handed an empty case
// list measures none — it once measured every case of the workload.
func TestNoCasesNoFork(t *testing.T) {
	if bs := batches(nil); len(bs) != 0 {
		t.Errorf("batches(nil) = %d batches, want none", len(bs))
	}
	path := filepath.Join(t.TempDir(), "cases.txt")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	names, err := ReadCasesFile(path)
	if err != nil || names == nil || len(names) != 0 {
		t.Errorf("an empty cases file reads as %#v, %v; want an empty, non-nil list", names, err)
	}
	if got := only([]bench.Case{{Name: "A"}}, names); len(got) != 0 {
		t.Errorf("only(…, empty list) kept %d cases", len(got))
	}
}
