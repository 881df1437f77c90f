package bench

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/results"
)

// spinCase is a group member that spins for spin per iteration and
// appends its name to calls at every run.
func spinCase(calls *[]string, name, role string, spin time.Duration) Case {
	return Case{
		Workload: "test", Name: "G", Group: "g1", Role: role,
		Labels: results.Labels{{Key: "subject", Value: name}},
		Verify: func() error { return nil },
		Run: func(b *B) error {
			*calls = append(*calls, name)
			for i := 0; i < b.N; i++ {
				for t0 := time.Now(); time.Since(t0) < spin; {
				}
			}
			return nil
		},
	}
}

// TestMeasureGroupInterleaves checks the round-robin: every round samples
// each member once, in an order rotated by one per round, and each sample
// carries its ratio to the baseline and limit of its own round.
func TestMeasureGroupInterleaves(t *testing.T) {
	var calls []string
	mk := func(name, role string, spin time.Duration) Case { return spinCase(&calls, name, role, spin) }
	cases := []Case{mk("a", results.RoleBaseline, 200*time.Microsecond), mk("b", "", 400*time.Microsecond), mk("lim", results.RoleLimit, 100*time.Microsecond)}
	rs, err := MeasureGroup(context.Background(), cases, Options{Count: 4, SampleTime: time.Millisecond, MaxIters: 1, TurnTime: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	want := "a b lim b lim a lim a b a b lim"
	if got := strings.Join(calls[len(calls)-12:], " "); got != want {
		t.Errorf("sampling order\n got %s\nwant %s", got, want)
	}
	for _, r := range rs {
		if !r.OK() || len(r.Samples) != 4 {
			t.Fatalf("%s: %s %d samples", r.FullName(), r.Status, len(r.Samples))
		}
		for i, s := range r.Samples {
			if s.Round != i+1 || s.VsBaseline <= 0 || s.VsLimit <= 0 {
				t.Errorf("%s sample %d: round %d, vs baseline %v, vs limit %v", r.FullName(), i, s.Round, s.VsBaseline, s.VsLimit)
			}
		}
	}
	if v := rs[0].Summary[results.UnitVsBaseline].Median; v != 1 {
		t.Errorf("baseline ÷ itself = %v, want 1", v)
	}
	if v := rs[1].Summary[results.UnitVsLimit].Median; v < 1.5 {
		t.Errorf("b ÷ limit = %v, want about 4 (at least 1.5: b spins 4× as long)", v)
	}
	if rs[0].Role != results.RoleBaseline || rs[1].Role != results.RoleSubject || rs[2].Role != results.RoleLimit {
		t.Errorf("roles %q %q %q", rs[0].Role, rs[1].Role, rs[2].Role)
	}
}

// TestNoMemberFollowsItself: with two members plain rotation would sample
// a b | b a | a b, so that every other sample of a member followed its own
// (its data still warm); a round never starts with the member that ended the
// one before, also when a member has left the group.
func TestNoMemberFollowsItself(t *testing.T) {
	var calls []string
	mk := func(name string, count int) Case {
		return Case{Workload: "test", Name: "G", Group: "g", Count: count,
			Labels: results.Labels{{Key: "subject", Value: name}},
			Verify: func() error { return nil },
			Run: func(b *B) error {
				calls = append(calls, name)
				return nil
			}}
	}
	tests := []struct {
		name  string
		cases []Case
		want  string
	}{
		{"two", []Case{mk("a", 4), mk("b", 4)}, "a b a b a b a b"},
		{"three, one done early", []Case{mk("a", 4), mk("b", 4), mk("c", 1)}, "a b c b a b a b a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls = nil
			if _, err := MeasureGroup(context.Background(), tt.cases, Options{SampleTime: time.Nanosecond, MaxIters: 1}); err != nil {
				t.Fatal(err)
			}
			n := len(strings.Fields(tt.want))
			got := strings.Join(calls[len(calls)-n:], " ")
			if got != tt.want {
				t.Errorf("sampling order\n got %s\nwant %s", got, tt.want)
			}
			for i := len(calls) - n + 1; i < len(calls); i++ {
				if calls[i] == calls[i-1] {
					t.Errorf("a sample of %s follows its own: %s", calls[i], got)
				}
			}
		})
	}
}

// TestMeasureGroupFailureLeavesOthers: a member that fails verification or
// its run is recorded failed; the rest of the group is measured.
func TestMeasureGroupFailureLeavesOthers(t *testing.T) {
	ok := Case{Workload: "t", Name: "G", Group: "g", Verify: func() error { return nil }, Run: func(b *B) error { return nil }}
	bad := ok
	bad.Verify = func() error { return errors.New("values differ") }
	boom := ok
	runs := 0
	boom.Run = func(b *B) error {
		if runs++; runs > 3 {
			return errors.New("disk full")
		}
		return nil
	}
	rs, err := MeasureGroup(context.Background(), []Case{ok, bad, boom}, Options{Count: 5, SampleTime: time.Microsecond, MaxIters: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !rs[0].OK() || len(rs[0].Samples) != 5 {
		t.Errorf("healthy member: %s, %d samples", rs[0].Status, len(rs[0].Samples))
	}
	if rs[1].OK() || !strings.Contains(rs[1].Error, "verify: values differ") {
		t.Errorf("bad member: %s %q", rs[1].Status, rs[1].Error)
	}
	if rs[2].OK() || !strings.Contains(rs[2].Error, "run: disk full") || rs[2].Samples != nil {
		t.Errorf("failing member: %s %q", rs[2].Status, rs[2].Error)
	}
}

func TestGroupsKeepsMembersTogether(t *testing.T) {
	cs := []Case{{Workload: "w", Name: "1", Group: "x"}, {Workload: "w", Name: "2"}, {Workload: "w", Name: "3", Group: "x"}, {Workload: "v", Name: "4", Group: "x"}}
	var got []string
	for _, g := range Groups(cs) {
		var names []string
		for _, c := range g {
			names = append(names, c.Name)
		}
		got = append(got, strings.Join(names, "+"))
	}
	if strings.Join(got, " ") != "1+3 2 4" {
		t.Errorf("groups %v", got)
	}
}

// TestPresetItersSkipCalibration: a case given its iterations (by an
// earlier fork) runs once to warm up and then samples at exactly that N.
func TestPresetItersSkipCalibration(t *testing.T) {
	var runs []int
	c := Case{Name: "P", Labels: results.Labels{{Key: "subject", Value: "p"}}, Iters: 37,
		Verify: func() error { return nil },
		Run: func(b *B) error {
			runs = append(runs, b.N)
			return nil
		}}
	r, err := Measure(context.Background(), c, Options{Count: 3, SampleTime: time.Second})
	if err != nil || !r.OK() {
		t.Fatalf("%v %+v", err, r)
	}
	if want := []int{37, 37, 37, 37}; !slices.Equal(runs, want) {
		t.Errorf("runs with N = %v, want %v (one warm-up, three samples, no calibration)", runs, want)
	}
}

// TestPerRound: a member with PerRound k takes up to k samples back to back
// in each round after an untimed run (its Count still bounds them), the
// others one; every sample of a round carries its ratio to the limit's
// median of that round.
func TestPerRound(t *testing.T) {
	var calls []string
	mk := func(name, role string, count, perRound int, spin time.Duration) Case {
		c := spinCase(&calls, name, role, spin)
		c.Count, c.PerRound = count, perRound
		return c
	}
	cases := []Case{mk("a", "", 3, 0, 300*time.Microsecond), mk("floor", results.RoleLimit, 7, 3, 100*time.Microsecond)}
	rs, err := MeasureGroup(context.Background(), cases, Options{SampleTime: time.Nanosecond, MaxIters: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Each burst starts with an untimed run (its warm-up after the GC).
	want := "a floor floor floor floor a floor floor floor floor a floor floor"
	if got := strings.Join(calls[len(calls)-13:], " "); got != want {
		t.Errorf("sampling order\n got %s\nwant %s", got, want)
	}
	var rounds []int
	for _, s := range rs[1].Samples {
		rounds = append(rounds, s.Round)
	}
	if !slices.Equal(rounds, []int{1, 1, 1, 2, 2, 2, 3}) {
		t.Errorf("floor's rounds %v, want 1 1 1 2 2 2 3", rounds)
	}
	for _, r := range rs {
		for i, s := range r.Samples {
			if s.VsLimit <= 0 {
				t.Errorf("%s sample %d (round %d): no ratio to the limit", r.FullName(), i, s.Round)
			}
		}
	}
	if v := rs[0].Summary[results.UnitVsLimit].Median; v < 1.5 {
		t.Errorf("a ÷ floor = %v, want about 3 (at least 1.5)", v)
	}
}

// TestInterruptedFailureIsNotRun: when the run is stopped while a group is
// being measured, members whose setup or run failed then (a server shut
// down by the interrupt, a connection cut) are not recorded as FAILED:
// the group is reported interrupted, so that --resume measures it again.
// A failure with the run still going is recorded as before.
func TestInterruptedFailureIsNotRun(t *testing.T) {
	for _, tc := range []struct {
		name      string
		interrupt bool
	}{{"interrupted", true}, {"not interrupted", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			replay := Case{Workload: "t", Name: "G", Group: "g", Labels: results.Labels{{Key: "subject", Value: "replay"}},
				Verify: func() error { return nil }, Run: func(b *B) error { return nil }}
			replay.Setup = func() error {
				if tc.interrupt {
					cancel() // Ctrl-C arrives; the server goes away
				}
				return errors.New("connect through the recorder: unexpected EOF")
			}
			// Every member of the group fails: nothing is left to sample
			// after the failures, so only the end of the group can tell.
			replay2 := replay
			replay2.Labels = results.Labels{{Key: "subject", Value: "replay2"}}
			var got []results.Case
			err := RunAll(ctx, []Case{replay, replay2}, Options{Count: 2, SampleTime: time.Microsecond, MaxIters: 1}, nil,
				func(c results.Case) error { got = append(got, c); return nil })
			if tc.interrupt {
				if !IsInterrupted(err) || len(got) != 0 {
					t.Errorf("err %v, recorded %d cases: want interrupted, none recorded", err, len(got))
				}
				return
			}
			if err != nil || len(got) != 2 || got[0].Status != results.StatusFailed || got[1].Status != results.StatusFailed {
				t.Errorf("err %v, cases %+v: want the failure recorded", err, got)
			}
		})
	}
}

// TestCaseTimeout: a call into a case's code that does not return within
// CaseTimeout — in setup, or in a sample — ends RunAll with a
// *TimeoutError after the case reached the sink FAILED; the cases before
// it are kept, its group's other members and the cases after it are not
// run.
func TestCaseTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	hang := func() { <-release }
	for _, tc := range []struct {
		stage string
		mk    func(c *Case)
	}{
		{"setup", func(c *Case) { c.Setup = func() error { hang(); return nil } }},
		{"run", func(c *Case) {
			calls := 0
			c.Run = func(b *B) error {
				if calls++; calls > 3 {
					hang()
				}
				return nil
			}
		}},
	} {
		t.Run(tc.stage, func(t *testing.T) {
			mk := func(name, group string) Case {
				return Case{Workload: "t", Name: "T", Group: group, Labels: results.Labels{{Key: "subject", Value: name}},
					Verify: func() error { return nil }, Run: func(b *B) error { return nil }}
			}
			stuck := mk("stuck", "g2")
			tc.mk(&stuck)
			cases := []Case{mk("before", "g1"), stuck, mk("peer", "g2"), mk("after", "g3")}
			var got []results.Case
			t0 := time.Now()
			err := RunAll(context.Background(), cases, Options{Count: 3, SampleTime: time.Microsecond, MaxIters: 1, CaseTimeout: 100 * time.Millisecond}, nil,
				func(c results.Case) error { got = append(got, c); return nil })
			var te *TimeoutError
			if !errors.As(err, &te) || te.Stage != tc.stage || te.Case != "T/subject=stuck" {
				t.Fatalf("err %v, want a timeout of T/subject=stuck in %s", err, tc.stage)
			}
			if d := time.Since(t0); d > 5*time.Second {
				t.Errorf("took %v to give up", d)
			}
			var names []string
			for _, c := range got {
				names = append(names, c.Labels.Get("subject")+" "+c.Status)
			}
			if !slices.Equal(names, []string{"before ok", "stuck failed"}) || !strings.Contains(got[1].Error, tc.stage+": timed out after 100ms") {
				t.Errorf("recorded %v (%q)", names, got[len(got)-1].Error)
			}
		})
	}
}

// TestSequentialSampling: with a target, a group stops after MinRounds
// rounds when its intervals are narrow enough (a loose target), and runs
// to Count when they never are (an impossible target); each case says why
// it stopped.
func TestSequentialSampling(t *testing.T) {
	spin := func(k int) func(b *B) error {
		return func(b *B) error {
			x := 0
			for i := 0; i < b.N*k; i++ {
				x += i
			}
			spinSink = x
			return nil
		}
	}
	group := func() []Case {
		ok := func() error { return nil }
		return []Case{
			{Name: "S", Labels: results.Labels{{Key: "subject", Value: "base"}}, Role: results.RoleBaseline, Group: "g", Verify: ok, Run: spin(100)},
			{Name: "S", Labels: results.Labels{{Key: "subject", Value: "other"}}, Group: "g", Verify: ok, Run: spin(200)},
			{Name: "S", Labels: results.Labels{{Key: "subject", Value: "lim"}}, Role: results.RoleLimit, Group: "g", Verify: ok, Run: spin(10)},
		}
	}
	past, future := time.Now().Add(-time.Second), time.Now().Add(time.Hour)
	for _, tt := range []struct {
		name     string
		target   float64
		deadline time.Time
		count    int
		maxIters int // 1: a slow op (one iteration per sample)
		n        int
		stop     string
	}{
		{"loose target", 10, time.Time{}, 12, 0, 6, StopTarget},
		{"impossible target", 1e-12, time.Time{}, 12, 0, 12, StopCount},
		{"no target", 0, time.Time{}, 12, 0, 12, StopCount},
		{"budget spent", 1e-12, past, 30, 0, cutSamples, StopRun},
		{"budget spent, no target", 0, past, 30, 0, cutSamples, StopRun},
		{"budget spent, a slow op", 0, past, 30, 1, 6, StopRun},
		{"budget spent, count below the floor", 0, past, 12, 0, 12, StopCount},
		{"budget spent, count below the minimum rounds", 0, past, 4, 1, 4, StopCount},
		{"budget left", 1e-12, future, 12, 0, 12, StopCount},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// One sample per turn: the rounds are what is counted here.
			opts := Options{Count: tt.count, SampleTime: time.Millisecond, MaxIters: tt.maxIters, Target: tt.target, Deadline: tt.deadline, TurnTime: time.Nanosecond}
			rs, err := MeasureGroup(context.Background(), group(), opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				if len(r.Samples) != tt.n || r.Stop != tt.stop {
					t.Errorf("%s: %d samples, stopped by %q; want %d, %q", r.FullName(), len(r.Samples), r.Stop, tt.n, tt.stop)
				}
			}
		})
	}
}

// TestTurns: in its turn of a round a member samples until the turn has
// lasted TurnTime (short samples, a few back to back), a case with
// PerRound takes exactly that many, and an op longer than the turn takes
// one sample per turn; every sample of a turn carries the turn's round.
func TestTurns(t *testing.T) {
	var calls []string
	fast := spinCase(&calls, "fast", results.RoleBaseline, 20*time.Microsecond)
	burst := spinCase(&calls, "burst", "", 20*time.Microsecond)
	burst.PerRound = 3
	slow := spinCase(&calls, "slow", "", 3*time.Millisecond)
	slow.Iters = 1 // one iteration per sample: longer than a turn
	opts := Options{Count: 12, SampleTime: 200 * time.Microsecond, TurnTime: time.Millisecond}
	rs, err := MeasureGroup(context.Background(), []Case{fast, burst, slow}, opts)
	if err != nil {
		t.Fatal(err)
	}
	perRound := func(r results.Case) map[int]int {
		m := map[int]int{}
		for _, s := range r.Samples {
			m[s.Round]++
		}
		return m
	}
	for _, r := range rs {
		if !r.OK() || len(r.Samples) != 12 {
			t.Fatalf("%s: %s, %d samples; want 12", r.FullName(), r.Status, len(r.Samples))
		}
	}
	// fast: samples of ≥ 200 µs until the turn reaches 1 ms — at most 5
	// a turn, and more than one in some (a loaded machine may stretch a
	// sample past the turn now and then).
	most := 0
	for round, n := range perRound(rs[0]) {
		most = max(most, n)
		if n > 5 {
			t.Errorf("fast: %d samples in round %d, want at most 5", n, round)
		}
	}
	if most < 2 {
		t.Errorf("fast: one sample in every turn, want several back to back")
	}
	for round, n := range perRound(rs[1]) {
		if n != 3 {
			t.Errorf("burst: %d samples in round %d, want 3 (PerRound)", n, round)
		}
	}
	if got := perRound(rs[2]); len(got) != 12 {
		t.Errorf("slow: samples in %d rounds, want one in each of 12", len(got))
	}
}

var spinSink int

// TestCaseSampling: a case without a budget of its own samples for at
// most CaseSampling, with MinRounds samples whatever it costs (its own
// MinCount when it sets one); a case's own Budget and MinCount take
// precedence; a fast op takes its count.
func TestCaseSampling(t *testing.T) {
	var calls []string
	slow := spinCase(&calls, "slow", "", 3*time.Millisecond)
	slow.Iters = 1
	own := spinCase(&calls, "own", "", 3*time.Millisecond)
	own.Iters, own.Budget, own.MinCount = 1, 10*time.Millisecond, 2
	floor := spinCase(&calls, "floor", "", 5*time.Millisecond)
	floor.Iters, floor.MinCount = 1, 3
	fast := spinCase(&calls, "fast", "", 10*time.Microsecond)
	opts := Options{Count: 30, SampleTime: 100 * time.Microsecond, TurnTime: time.Nanosecond, CaseSampling: 10 * time.Millisecond}
	for _, tt := range []struct {
		c      Case
		lo, hi int
		stop   string
	}{
		{slow, 6, 6, StopBudget},  // 3 ms samples: past 10 ms after four, MinRounds asks six
		{own, 2, 4, StopBudget},   // its own 10 ms budget and MinCount 2: under six
		{floor, 3, 3, StopBudget}, // 5 ms samples, past 10 ms after two: its MinCount, not MinRounds
		{fast, 30, 30, StopCount}, // ~100 µs samples: the count first
	} {
		rs, err := MeasureGroup(context.Background(), []Case{tt.c}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(rs[0].Samples); n < tt.lo || n > tt.hi || rs[0].Stop != tt.stop {
			t.Errorf("%s: %d samples, stop %q; want %d…%d, %q", rs[0].FullName(), n, rs[0].Stop, tt.lo, tt.hi, tt.stop)
		}
	}
}
