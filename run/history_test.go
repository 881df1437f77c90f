package run

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

// TestHistoryFactor: without a history estimates stand; with one they are
// scaled by actual ÷ estimate (÷ the local estimate for a dry run), clamped,
// and keyed by workload, scale and the set of runners.
func TestHistoryFactor(t *testing.T) {
	h := &History{Path: filepath.Join(t.TempDir(), "sub", "timings.json")}
	if f := h.Factor("nested", "default", nil, "", false); f != 1 {
		t.Fatalf("empty history: factor %v", f)
	}
	if err := h.Record("nested", "default", []string{"python", "jvm"}, "", Timing{Estimate: 8 * time.Minute, Local: 4 * time.Minute, Actual: 12 * time.Minute, Cases: 10}); err != nil {
		t.Fatal(err)
	}
	if err := h.Record("records", "default", nil, "", Timing{Estimate: time.Minute, Actual: time.Hour}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		workload string
		scale    string
		runners  []string
		local    bool
		want     float64
	}{
		{"in-run", "nested", "default", []string{"jvm", "python"}, false, 1.5},
		{"dry run", "nested", "default", []string{"jvm", "python"}, true, 3},
		{"runner order", "nested", "default", []string{"python", "jvm"}, false, 1.5},
		{"other runners", "nested", "default", []string{"jvm"}, false, 1},
		{"other scale", "nested", "full", []string{"jvm", "python"}, false, 1},
		{"clamped", "records", "default", nil, false, 8},
		{"no local part", "records", "default", nil, true, 8},
	} {
		if got := h.Factor(tc.workload, tc.scale, tc.runners, "", tc.local); got != tc.want {
			t.Errorf("%s: factor %v, want %v", tc.name, got, tc.want)
		}
	}
	var nilH *History
	if f := nilH.Factor("nested", "default", nil, "", false); f != 1 || nilH.Record("x", "y", nil, "", Timing{}) != nil {
		t.Error("a nil history must scale nothing and record nothing")
	}
}

// TestHistoryFactors: the Go cases and the runners' are scaled apart, each
// by its own part of the last run; a history without the runners' part
// scales both by the whole.
func TestHistoryFactors(t *testing.T) {
	h := &History{Path: filepath.Join(t.TempDir(), "timings.json")}
	for _, r := range []struct {
		workload string
		t        Timing
	}{
		// Go: 4 min estimated, 6 taken; runners: 4 min estimated, 2 taken.
		{"nested", Timing{Estimate: 8 * time.Minute, Local: 4 * time.Minute, Actual: 8 * time.Minute, Remote: 2 * time.Minute}},
		{"old", Timing{Estimate: 8 * time.Minute, Local: 4 * time.Minute, Actual: 12 * time.Minute}},
		{"go-only", Timing{Estimate: 4 * time.Minute, Local: 4 * time.Minute, Actual: 2 * time.Minute}},
		{"odd", Timing{Estimate: time.Minute, Local: 30 * time.Second, Actual: time.Hour, Remote: time.Second}},
	} {
		if err := h.Record(r.workload, "default", nil, "", r.t); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		workload      string
		local, remote float64
	}{
		{"nested", 1.5, 0.5},
		{"old", 1.5, 1.5},
		{"go-only", 0.5, 0.5},
		{"odd", 8, 0.125},
		{"none", 1, 1},
	} {
		l, r := h.Factors(tc.workload, "default", nil, "")
		if l != tc.local || r != tc.remote {
			t.Errorf("%s: factors %v, %v; want %v, %v", tc.workload, l, r, tc.local, tc.remote)
		}
	}
}

// TestHistoryMedian: estimates go by the median of the last three runs,
// so one run on a loaded machine does not set the next estimate; a fourth
// run drops the oldest.
func TestHistoryMedian(t *testing.T) {
	h := &History{Path: filepath.Join(t.TempDir(), "timings.json")}
	run := func(ratio float64) Timing {
		// Go part at ratio, the runners' part at half of it.
		return Timing{Estimate: 200 * time.Second, Local: 100 * time.Second,
			Actual: time.Duration(150*ratio) * time.Second, Remote: time.Duration(50*ratio) * time.Second}
	}
	for _, tc := range []struct {
		ratio        float64
		whole, local float64
		remote       float64
		kept         int
	}{
		{1.0, 0.75, 1.0, 0.5, 1},
		{1.2, 0.825, 1.1, 0.55, 2}, // two runs: the mean of both
		{2.0, 0.9, 1.2, 0.6, 3},    // the loaded run does not set it
		{1.0, 0.9, 1.2, 0.6, 3},    // the first run is dropped: 1.0, 2.0, 1.2
		{1.0, 0.75, 1.0, 0.5, 3},   // 1.0, 1.0, 2.0
	} {
		if err := h.Record("nested", "default", nil, "", run(tc.ratio)); err != nil {
			t.Fatal(err)
		}
		tm, _ := h.Lookup("nested", "default", nil, "")
		whole := h.Factor("nested", "default", nil, "", false)
		l, r := h.Factors("nested", "default", nil, "")
		if n := len(tm.runs()); n != tc.kept || math.Abs(whole-tc.whole) > 1e-9 || math.Abs(l-tc.local) > 1e-9 || math.Abs(r-tc.remote) > 1e-9 {
			t.Errorf("after a run at %v: %d runs kept, factor %v, factors %v, %v; want %d, %v, %v, %v", tc.ratio, n, whole, l, r, tc.kept, tc.whole, tc.local, tc.remote)
		}
	}
}

// TestRemoteWall: the runners' part of a workload is the union of its
// runner cases' spans, whatever the other cases and workloads did.
func TestRemoteWall(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	remote := fakeRemote{}
	planned := []bench.Case{
		{Workload: "w", Name: "Go"},
		{Workload: "w", Name: "J1", Remote: remote},
		{Workload: "w", Name: "J2", Remote: remote},
		{Workload: "w", Name: "P1", Remote: remote},
	}
	rs := []results.Case{
		{Workload: "w", Name: "Go", Start: at(0), End: at(100)},
		{Workload: "w", Name: "J1", Start: at(100), End: at(160)}, // one group: the same span
		{Workload: "w", Name: "J2", Start: at(100), End: at(160)},
		{Workload: "w", Name: "P1", Start: at(170), End: at(200)},
		{Workload: "other", Name: "J1", Start: at(300), End: at(900)},
	}
	if got := remoteWall(rs, "w", planned); got != 90*time.Second {
		t.Errorf("remote wall %v, want 1m30s", got)
	}
	if got := remoteWall(rs, "w", planned[:1]); got != 0 {
		t.Errorf("no runner cases: remote wall %v, want 0", got)
	}
}

// TestHistoryCorrupt: an unreadable file is an empty history, and the next
// record replaces it.
func TestHistoryCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timings.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := &History{Path: path}
	if _, ok := h.Lookup("fake", "quick", nil, "dsn=postgres://x\n"); ok {
		t.Fatal("corrupt file read as a history")
	}
	if err := h.Record("fake", "quick", nil, "", Timing{Estimate: time.Second, Actual: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if f := h.Factor("fake", "quick", nil, "", false); f != 2 {
		t.Fatalf("factor %v after a record", f)
	}
}

// TestRunRecordsHistory: a whole run records each workload's time; a
// filtered run records nothing, and the dry run reports the recorded run.
func TestRunRecordsHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timings.json")
	o := opts(t, t.TempDir(), func(o *Options) {
		o.History = &History{Path: path}
		o.Filter = regexp.MustCompile("subject=a")
	})
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a filtered run wrote the history (%v)", err)
	}
	o.Filter, o.Out = nil, t.TempDir()
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	tm, ok := o.History.Lookup("fake", "quick", nil, planIdentity(&workload.Plan{Env: map[string]string{"dsn": "postgres://bob:" + secret + "@127.0.0.1:5/db"}, Identity: []string{"dsn"}}))
	if !ok || tm.Cases != 4 || tm.Actual <= 0 || tm.Estimate <= 0 || tm.Local != tm.Estimate {
		t.Fatalf("recorded %+v, %v", tm, ok)
	}
	o.Out = ""
	planned, err := DryRun(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(planned) != 1 || planned[0].Measured == nil || planned[0].Measured.Actual != tm.Actual {
		t.Fatalf("dry run %+v", planned)
	}
}

// TestHistorySampling: a run that samples otherwise than the main job (a
// long reference run) is kept apart from it — its timing neither replaces
// the main job's nor scales its estimates — while the main job's own
// identity is the plan's alone.
func TestHistorySampling(t *testing.T) {
	h := &History{Path: filepath.Join(t.TempDir(), "timings.json")}
	plan := &workload.Plan{Env: map[string]string{"input": "a.csv"}, Identity: []string{"input"}}
	main := Options{History: h}
	ref := Options{History: h, Sampling: "count 40, target 0, sample 10ms, budget 0s"}
	if got, want := main.historyIdentity(plan), planIdentity(plan); got != want {
		t.Errorf("the main job's identity %q, want the plan's %q", got, want)
	}
	if err := h.Record("features", "default", nil, main.historyIdentity(plan), Timing{Estimate: time.Minute, Actual: 2 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	if err := h.Record("features", "default", nil, ref.historyIdentity(plan), Timing{Estimate: time.Minute, Actual: 7 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    Options
		want float64
	}{{"main job", main, 2}, {"reference", ref, 7}, {"other sampling", Options{Sampling: "count 5, target 0, sample 1ms, budget 0s"}, 1}} {
		if got := h.Factor("features", "default", nil, tc.o.historyIdentity(plan), false); got != tc.want {
			t.Errorf("%s: factor %v, want %v", tc.name, got, tc.want)
		}
	}
}

// fakeRemote stands for a runner for another language: it takes 20 ms
// over a group and returns one sample of each case.
type fakeRemote struct{}

func (fakeRemote) MeasureGroup(_ context.Context, cases []bench.Case, _ bench.Options) ([]results.Case, error) {
	start := time.Now()
	time.Sleep(20 * time.Millisecond)
	var out []results.Case
	for _, c := range cases {
		r := results.Case{Workload: c.Workload, Name: c.Name, Labels: c.Labels, Role: results.RoleSubject, Group: c.Group,
			Status: results.StatusOK, Samples: []results.Sample{{Iters: 1, NsPerOp: 2e7}}, Start: start, End: time.Now()}
		r.Summarize()
		out = append(out, r)
	}
	return out, nil
}

// withRunner is the fake workload with two cases of a runner for another
// language beside its Go cases.
type withRunner struct{ fake }

func (withRunner) Name() string { return "fake" }

func (w withRunner) Plan(ctx context.Context, cfg workload.Config) (*workload.Plan, error) {
	p, err := w.fake.Plan(ctx, cfg)
	if err != nil {
		return nil, err
	}
	for _, s := range []string{"java:a", "java:b"} {
		p.Cases = append(p.Cases, bench.Case{Workload: "fake", Name: "Fake", Group: "runner", Remote: fakeRemote{}, OpTime: time.Second,
			Labels: results.Labels{{Key: "subject", Value: s}, {Key: "op", Value: "x"}, {Key: "language", Value: "java"}}})
		p.Descriptors = append(p.Descriptors, results.Descriptor{Key: "subject", Name: s, Role: results.RoleSubject, What: "test runner subject " + s})
	}
	return p, nil
}

// TestRunRecordsRunnersPart: a whole run records the wall time of the
// runners' groups apart, and it is theirs: above the group's 20 ms, below
// the workload's whole time.
func TestRunRecordsRunnersPart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timings.json")
	o := opts(t, t.TempDir(), func(o *Options) {
		o.History = &History{Path: path}
		o.Workloads = workload.Set{withRunner{fake{dsn: "postgres://x@127.0.0.1:5/db"}}}
	})
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Run.Cases) != 6 {
		t.Fatalf("%d cases, want 6", len(out.Run.Cases))
	}
	plan, err := withRunner{fake{dsn: "postgres://x@127.0.0.1:5/db"}}.Plan(context.Background(), workload.Config{Scale: workload.Quick})
	if err != nil {
		t.Fatal(err)
	}
	tm, ok := o.History.Lookup("fake", "quick", nil, planIdentity(plan))
	if !ok || tm.Remote < 20*time.Millisecond || tm.Remote >= tm.Actual || tm.Local >= tm.Estimate {
		t.Fatalf("recorded %+v, %v: want the runners' part apart", tm, ok)
	}
}
