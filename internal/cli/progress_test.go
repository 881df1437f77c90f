package cli

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/run"
)

// syncBuf is a buffer safe for the heartbeat's goroutine.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProgressETAFromCost: the time left weighs the cases by their
// estimated cost — after the cheap half of the cases, most of the run is
// still ahead — and a silent stretch gets a heartbeat line naming the case
// being measured.
func TestProgressETAFromCost(t *testing.T) {
	var out syncBuf
	p, err := newProgress("lines", &out)
	if err != nil {
		t.Fatal(err)
	}
	p.every = 60 * time.Millisecond
	cost := map[string]run.CaseCost{run.CostKey("w", "A/i=0"): {PerRun: time.Second, Runs: 1}, run.CostKey("w", "A/i=1"): {PerRun: time.Second, Runs: 1}, run.CostKey("w", "A/i=2"): {PerRun: 98 * time.Second, Runs: 1}}
	p.Begin(3, cost)
	c := bench.Case{Workload: "w", Name: "A", Labels: results.Labels{{Key: "i", Value: "2"}}}
	p.Start(0, 3, &c)
	time.Sleep(150 * time.Millisecond)
	p.mu.Lock()
	p.wlFrom = time.Now().Add(-2 * time.Second) // two cheap cases took the 2 s they were estimated at
	p.mu.Unlock()
	for i := range 2 {
		p.Done(i+1, 3, &results.Case{Workload: "w", Name: "A", Labels: results.Labels{{Key: "i", Value: string(rune('0' + i))}}, Status: results.StatusOK})
	}
	p.End()
	got := out.String()
	if !strings.Contains(got, "estimated 1m40s") {
		t.Errorf("no estimate of the whole run:\n%s", got)
	}
	if !strings.Contains(got, "measuring A/i=2") {
		t.Errorf("no heartbeat while a case ran silently:\n%s", got)
	}
	if !strings.Contains(got, "about 1m38s left") {
		t.Errorf("the time left does not weigh the cases by cost:\n%s", got)
	}
	if !strings.HasSuffix(got, "; writing the results and the report\n") {
		t.Errorf("no line when measuring ends:\n%s", got)
	}
}

// TestProgressETANeverNegative: once a workload's cases have cost more
// than their whole estimate, the time left goes by the cases left, never
// below zero.
func TestProgressETANeverNegative(t *testing.T) {
	var out syncBuf
	p, err := newProgress("lines", &out)
	if err != nil {
		t.Fatal(err)
	}
	cost := map[string]run.CaseCost{}
	for i := range 4 {
		cost[run.CostKey("w", "A/i="+string(rune('0'+i)))] = run.CaseCost{PerRun: 10 * time.Second, Runs: 1}
	}
	p.Begin(4, cost)
	for i := range 3 {
		c := bench.Case{Workload: "w", Name: "A", Labels: results.Labels{{Key: "i", Value: string(rune('0' + i))}}}
		p.Start(i, 4, &c)
		if i == 0 {
			// A minute in, the first case has cost more than the
			// workload's whole estimate.
			p.mu.Lock()
			p.start, p.wlFrom = time.Now().Add(-time.Minute), time.Now().Add(-time.Minute)
			p.wlDone["w"] += 35 * time.Second
			p.mu.Unlock()
		}
		p.Done(i+1, 4, &results.Case{Workload: "w", Name: "A", Labels: results.Labels{{Key: "i", Value: string(rune('0' + i))}}, Status: results.StatusOK})
	}
	p.End()
	got := out.String()
	if strings.Contains(got, "about -") || !strings.Contains(got, "about 3m0s left") || !strings.Contains(got, "about 1m0s left") {
		t.Errorf("want the time left from the cases left (3m0s after one case of four in a minute, 1m0s after two), never negative:\n%s", got)
	}
}

// TestWorkloadLeft: the estimate left is scaled by how it has held only
// once a quarter of the workload is done, and by a bounded factor.
func TestWorkloadLeft(t *testing.T) {
	const s = time.Second
	tests := []struct {
		name              string
		cost, done, spent time.Duration
		want              time.Duration
	}{
		{"nothing done yet", 100 * s, 0, 30 * s, 100 * s},
		{"set-up in the first cases: not extrapolated", 600 * s, 20 * s, 60 * s, 580 * s},
		{"a quarter done, as estimated", 100 * s, 25 * s, 25 * s, 75 * s},
		{"half done, 20% slower", 100 * s, 50 * s, 60 * s, 60 * s},
		{"half done, 3× slower: factor capped at 1.5", 100 * s, 50 * s, 150 * s, 75 * s},
		{"half done, 4× faster: factor floored at ⅔", 90 * s, 45 * s, 45 * s / 4, 30 * s},
		{"all done", 100 * s, 100 * s, 130 * s, 0},
	}
	for _, tt := range tests {
		if got := workloadLeft(tt.cost, tt.done, tt.spent); (got - tt.want).Abs() > time.Millisecond {
			t.Errorf("%s: workloadLeft(%v, %v, %v) = %v, want %v", tt.name, tt.cost, tt.done, tt.spent, got, tt.want)
		}
	}
}

// TestProgressForkedRuns: a case measured in several processes is done
// once per process, each run costing its share: after one process of four
// has measured every case, a quarter of the workload is done — not all of
// it (the time left once went by the count of cases, which the next
// workload's costly cases made wrong by a factor of three).
func TestProgressForkedRuns(t *testing.T) {
	var out syncBuf
	p, err := newProgress("lines", &out)
	if err != nil {
		t.Fatal(err)
	}
	cost := map[string]run.CaseCost{
		run.CostKey("f", "A/i=0"): {PerRun: 10 * time.Second, Runs: 4},
		run.CostKey("f", "A/i=1"): {PerRun: 10 * time.Second, Runs: 4},
		run.CostKey("r", "B/i=0"): {PerRun: 100 * time.Second, Runs: 1},
	}
	p.Begin(9, cost)
	for i := range 2 {
		c := bench.Case{Workload: "f", Name: "A", Labels: results.Labels{{Key: "i", Value: string(rune('0' + i))}}}
		p.Start(i, 9, &c)
		p.Done(i+1, 9, &results.Case{Workload: "f", Name: "A", Labels: c.Labels, Status: results.StatusOK})
	}
	p.mu.Lock()
	done, all, share := p.wlDone["f"], p.wlCost["f"], p.doneShare()
	p.mu.Unlock()
	p.End()
	if done != 20*time.Second || all != 80*time.Second {
		t.Errorf("features done %v of %v, want 20s of 80s", done, all)
	}
	if want := 20.0 / 180; share < want-1e-9 || share > want+1e-9 {
		t.Errorf("share done %.3f, want %.3f", share, want)
	}
}

// TestHeartbeatNoLongerThanInterval: while a case runs silently, lines
// come no further apart than the heartbeat interval (they once came up to
// a third of it late: a 40-second gap in a run's log).
func TestHeartbeatNoLongerThanInterval(t *testing.T) {
	var out syncBuf
	p, err := newProgress("lines", &out)
	if err != nil {
		t.Fatal(err)
	}
	p.every = 300 * time.Millisecond
	p.Begin(1, map[string]run.CaseCost{run.CostKey("w", "A"): {PerRun: time.Minute, Runs: 1}})
	c := bench.Case{Workload: "w", Name: "A"}
	p.Start(0, 1, &c)
	var stamps []time.Time
	last := 0
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if n := strings.Count(out.String(), "measuring A"); n > last {
			stamps = append(stamps, time.Now())
			last = n
		}
		time.Sleep(2 * time.Millisecond)
	}
	p.End()
	if len(stamps) < 4 {
		t.Fatalf("%d heartbeat lines in 2 s with a 300 ms interval:\n%s", len(stamps), out.String())
	}
	for i := 1; i < len(stamps); i++ {
		// Scheduling on a loaded machine may delay a tick a little; a gap
		// of a third more is what the old ticker allowed.
		if gap := stamps[i].Sub(stamps[i-1]); gap > p.every+p.every/6 {
			t.Errorf("heartbeat gap %v, interval %v", gap, p.every)
		}
	}
}

// TestProgressLeftFollowsBudget: with a budget, the time left is what the
// budget will let the run take — the current workload up to its deadline
// (or, past it, what is left of its floor), the workloads to come what the
// budget leaves them but never less than their floors — and without one it
// is the estimates'.
func TestProgressLeftFollowsBudget(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	cost := map[string]time.Duration{"a": 4 * time.Minute, "b": 10 * time.Minute}
	floors := map[string]time.Duration{"a": time.Minute, "b": 2 * time.Minute}
	for _, tc := range []struct {
		name      string
		budgetEnd time.Duration // from now; 0: no budget
		deadline  time.Duration // a's, from now; 0: none
		doneA     time.Duration // a's estimate done
		want      time.Duration
	}{
		{"no budget: the estimates", 0, 0, 0, 14 * time.Minute},
		{"a to its deadline, b the rest of the budget", 8 * time.Minute, 3 * time.Minute, 0, 8 * time.Minute},
		{"a's estimate below its deadline", 8 * time.Minute, 6 * time.Minute, 2 * time.Minute, 2*time.Minute + 6*time.Minute},
		{"budget gone: the floors", time.Minute, -time.Minute, 2 * time.Minute, 30*time.Second + 2*time.Minute},
		{"a generous budget: the estimates", time.Hour, time.Hour, 0, 14 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &progress{total: 10, done: 1, cur: "a", wl: []string{"a"}, start: now, wlFrom: now,
				wlCost: cost, wlDone: map[string]time.Duration{"a": tc.doneA}, wlSpent: map[string]time.Duration{"a": tc.doneA},
				wlFloor: floors, deadline: map[string]time.Time{},
				wlFloorDone: map[string]time.Duration{"a": tc.doneA / 4}} // a's cases done had a quarter of their estimate as floor
			p.wlFrom = now
			if tc.budgetEnd != 0 {
				p.budgetEnd = now.Add(tc.budgetEnd)
			}
			if tc.deadline != 0 {
				p.deadline["a"] = now.Add(tc.deadline)
			}
			if got := p.left(now); got != tc.want {
				t.Errorf("left = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestProgressSamplesMoveGroups: a runner group's samples move the
// estimate done by each one's share of its case, and its Done adds only
// what is left, so the case counts once in all.
func TestProgressSamplesMoveGroups(t *testing.T) {
	p, err := newProgress("none", &syncBuf{})
	if err != nil {
		t.Fatal(err)
	}
	p.count = 4
	c := bench.Case{Workload: "w", Name: "R", Labels: results.Labels{{Key: "subject", Value: "java:x"}}}
	p.Begin(1, map[string]run.CaseCost{run.CostKey("w", c.FullName()): {PerRun: 8 * time.Second, Runs: 1}})
	p.Start(0, 1, &c)
	for range 2 {
		p.Sample(&c)
	}
	if got := p.wlDone["w"]; got != 4*time.Second {
		t.Errorf("after 2 of 4 samples: done %s, want 4s", got)
	}
	for range 5 { // more samples than the count: never past the case
		p.Sample(&c)
	}
	if got := p.wlDone["w"]; got >= 8*time.Second {
		t.Errorf("samples moved the case to %s, all of its 8s before Done", got)
	}
	p.Done(1, 1, &results.Case{Workload: "w", Name: "R", Labels: c.Labels, Status: results.StatusOK})
	if got := p.wlDone["w"]; got != 8*time.Second {
		t.Errorf("after Done: %s, want 8s", got)
	}
	p.End()
}
