package bench

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/results"
)

// sink keeps results alive so the compiler cannot drop the work.
type sink struct{ b []byte }

// workOp hashes 16 KiB and allocates a 256-byte buffer: a few µs with a
// fixed allocation count.
func workOp(s *sink, data []byte) {
	h := sha256.Sum256(data)
	s.b = make([]byte, 256)
	copy(s.b, h[:])
}

func TestMeasureAgreesWithTestingBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: it runs 2 s of benchmarks")
	}
	data := make([]byte, 16<<10)
	var s sink
	c := Case{
		Workload: "test", Name: "Agree",
		Verify: func() error { return nil },
		Run: func(b *B) error {
			for i := 0; i < b.N; i++ {
				workOp(&s, data)
			}
			return nil
		},
	}
	// The machine is shared and noisy: interleave the two harnesses and
	// compare the fastest observation of each, which contention can only
	// slow down (one observation per round each, so neither minimum is
	// taken over more tries). Allocation counts must match exactly.
	if err := flag.Set("test.benchtime", "100ms"); err != nil {
		t.Fatal(err)
	}
	bestStd, bestOurs := math.Inf(1), math.Inf(1)
	for round := 0; round < 10; round++ {
		std := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				workOp(&s, data)
			}
		})
		r, err := Measure(context.Background(), c, Options{Count: 1, SampleTime: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() {
			t.Fatalf("case failed: %s", r.Error)
		}
		// testing.B truncates to an integer (mallocs / N); the engine
		// keeps the fraction. A stray runtime allocation during a sample
		// shows up as e.g. 1.0001 in both accountings before truncation.
		allocs, _ := r.Median(results.UnitAllocsPerOp)
		if math.Floor(allocs) != float64(std.AllocsPerOp()) {
			t.Fatalf("allocs/op = %v, testing.Benchmark says %d", allocs, std.AllocsPerOp())
		}
		bytes, _ := r.Median(results.UnitBytesPerOp)
		if math.Floor(bytes) != float64(std.AllocedBytesPerOp()) {
			t.Fatalf("B/op = %v, testing.Benchmark says %d", bytes, std.AllocedBytesPerOp())
		}
		bestStd = math.Min(bestStd, float64(std.T.Nanoseconds())/float64(std.N))
		for _, smp := range r.Samples {
			bestOurs = math.Min(bestOurs, smp.NsPerOp)
		}
	}
	// The time agreement is a measurement, not a unit test: `go test ./...`
	// runs other packages' tests on the same two cores meanwhile. It is
	// logged always and enforced only when asked for on a quiet machine.
	ratio := bestOurs / bestStd
	t.Logf("fastest ns/op %.0f vs testing.Benchmark's %.0f: ratio %.3f", bestOurs, bestStd, ratio)
	if os.Getenv("SERBENCH_TIMING_TESTS") != "" && (ratio < 0.9 || ratio > 1.1) {
		t.Fatalf("ratio %.3f, want within 10%% (SERBENCH_TIMING_TESTS is set)", ratio)
	}
}

func TestMeasureRecordsFailures(t *testing.T) {
	ok := func(b *B) error { return nil }
	tests := []struct {
		name    string
		c       Case
		wantErr string
	}{
		{"broken round trip", Case{Verify: func() error { return errors.New("decoded 3 values, want 4") }, Run: ok}, "verify: decoded 3 values, want 4"},
		{"setup error", Case{Setup: func() error { return errors.New("no data") }, Verify: func() error { return nil }, Run: ok}, "setup: no data"},
		{"panicking verify", Case{Verify: func() error { panic("index out of range") }, Run: ok}, "verify: panic: index out of range"},
		{"run error", Case{Verify: func() error { return nil }, Run: func(b *B) error { return errors.New("disk full") }}, "run: disk full"},
		{"no verify", Case{Run: ok}, "verify: case has no Verify function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.Workload, tt.c.Name = "test", "Broken"
			r, err := Measure(context.Background(), tt.c, Options{Count: 2, SampleTime: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != results.StatusFailed {
				t.Fatalf("status = %q, want failed", r.Status)
			}
			if r.Error != tt.wantErr {
				t.Errorf("error = %q, want %q", r.Error, tt.wantErr)
			}
			if len(r.Samples) != 0 || r.Summary != nil {
				t.Errorf("failed case has timings: %d samples", len(r.Samples))
			}
		})
	}
}

func TestTeardownRunsAfterFailedVerify(t *testing.T) {
	torn := false
	c := Case{Workload: "test", Name: "T", Verify: func() error { return errors.New("bad") },
		Run: func(*B) error { return nil }, Teardown: func() { torn = true }}
	if _, err := Measure(context.Background(), c, Options{}); err != nil {
		t.Fatal(err)
	}
	if !torn {
		t.Error("Teardown not called")
	}
}

func TestMeasureSamplesAndCalibration(t *testing.T) {
	calls := 0
	c := Case{Workload: "test", Name: "Sleep", Verify: func() error { return nil },
		Run: func(b *B) error {
			calls++
			b.ReportMetric(42, "answer-B")
			for i := 0; i < b.N; i++ {
				time.Sleep(50 * time.Microsecond)
			}
			return nil
		}}
	r, err := Measure(context.Background(), c, Options{Count: 4, SampleTime: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Samples) != 4 {
		t.Fatalf("%d samples, want 4", len(r.Samples))
	}
	for _, s := range r.Samples {
		if s.Iters < 2 {
			t.Errorf("sample ran %d iterations; calibration should reach the sample time with more", s.Iters)
		}
		if s.NsPerOp < 50_000 {
			t.Errorf("ns/op %v below the 50µs sleep", s.NsPerOp)
		}
	}
	if st := r.Summary["answer-B"]; st.Median != 42 {
		t.Errorf("custom metric median = %v, want 42", st.Median)
	}
	if calls < 5 {
		t.Errorf("Run called %d times, want calibration + 4 samples", calls)
	}
}

func TestRunAllKeepsFinishedCasesOnInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mk := func(name string, onRun func()) Case {
		return Case{Workload: "test", Name: name, Verify: func() error { return nil },
			Run: func(b *B) error {
				if onRun != nil {
					onRun()
				}
				return nil
			}}
	}
	cases := []Case{mk("First", nil), mk("Second", cancel), mk("Third", nil)}
	var got []string
	err := RunAll(ctx, cases, Options{Count: 2, SampleTime: time.Millisecond}, nil, func(c results.Case) error {
		got = append(got, c.Name)
		return nil
	})
	if !IsInterrupted(err) {
		t.Fatalf("err = %v, want interrupted", err)
	}
	if strings.Join(got, ",") != "First" {
		t.Errorf("recorded %v, want only the finished case First", got)
	}
}

func TestPredictN(t *testing.T) {
	opts := Options{SampleTime: 100 * time.Millisecond, MaxIters: 1e9}
	tests := []struct {
		n    int
		d    time.Duration
		want int
	}{
		{1, time.Millisecond, 100},           // capped at 100× growth
		{100, 10 * time.Millisecond, 1200},   // 1000 × 1.2
		{1000, 200 * time.Millisecond, 1001}, // already long: grow by one
		{1, 0, 100},                          // zero duration: treated as 1ns
		{5e8, time.Millisecond, int(1e9)},    // capped at MaxIters
	}
	for _, tt := range tests {
		if got := predictN(tt.n, tt.d, opts); got != tt.want {
			t.Errorf("predictN(%d, %v) = %d, want %d", tt.n, tt.d, got, tt.want)
		}
	}
}

func TestSlowCaseFirstRunAndBudget(t *testing.T) {
	tests := []struct {
		name      string
		noWarmup  bool
		budget    time.Duration
		count     int
		minCount  int
		wantRuns  int
		wantSamps int
	}{
		// calibration run + warm-up + 3 samples
		{"warm-up", false, 0, 3, 0, 5, 3},
		// the calibration run is the first sample
		{"first run counts", true, 0, 3, 0, 3, 3},
		// budget reached after the first sample (each run ≈ 20ms)
		{"budget", true, 30 * time.Millisecond, 5, 0, 2, 2},
		{"tiny budget still one sample", true, time.Nanosecond, 5, 0, 1, 1},
		// MinCount samples are taken past the budget, never past the count
		{"min count past budget", true, time.Nanosecond, 5, 3, 3, 3},
		{"min count capped by count", true, time.Nanosecond, 2, 3, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := 0
			c := Case{Workload: "test", Name: "Slow", NoWarmup: tt.noWarmup, Budget: tt.budget, Count: tt.count, MinCount: tt.minCount,
				Verify: func() error { return nil },
				Run: func(b *B) error {
					runs++
					time.Sleep(20 * time.Millisecond)
					return nil
				}}
			r, err := Measure(context.Background(), c, Options{SampleTime: 5 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if runs != tt.wantRuns || len(r.Samples) != tt.wantSamps {
				t.Errorf("%d runs, %d samples; want %d runs, %d samples", runs, len(r.Samples), tt.wantRuns, tt.wantSamps)
			}
			for _, s := range r.Samples {
				if s.Iters != 1 || s.NsPerOp < 20e6 {
					t.Errorf("sample %+v: want 1 iteration of ≥ 20ms", s)
				}
			}
		})
	}
}

func TestEstimate(t *testing.T) {
	opts := Options{Count: 20, SampleTime: 10 * time.Millisecond}
	ms := time.Millisecond
	tests := []struct {
		name string
		c    Case
		want time.Duration
	}{
		// fast: calibration (two samples' worth) + 20 samples + one op
		{"fast", Case{OpTime: ms}, 22*10*ms + ms},
		// fast under a budget: 250 ms holds 25 samples of 10 ms, the count 20
		{"fast, budget above the count", Case{OpTime: ms, Budget: 250 * ms}, 22*10*ms + ms},
		{"fast, budget below the count", Case{OpTime: ms, Budget: 50 * ms}, 7*10*ms + ms},
		// slow: samples + cold run + warm-up + setup
		{"slow", Case{OpTime: 100 * ms, Count: 3}, 6 * 100 * ms},
		// a 100 ms op under a 250 ms budget: three samples (the third starts at 200 ms)
		{"slow, budget", Case{OpTime: 100 * ms, Budget: 250 * ms, NoWarmup: true}, 4 * 100 * ms},
		// a 200 ms op: the budget allows two, MinCount asks three
		{"slow, min count", Case{OpTime: 200 * ms, Budget: 250 * ms, MinCount: 3, NoWarmup: true}, 4 * 200 * ms},
		// 20 samples five per round: four untimed runs before the bursts
		{"fast, per round", Case{OpTime: ms, PerRound: 5}, 26*10*ms + ms},
		{"slow, per round", Case{OpTime: 100 * ms, Count: 3, PerRound: 2}, 8 * 100 * ms},
		{"skipped", Case{OpTime: time.Second, Skip: "not installed"}, 0},
	}
	for _, tt := range tests {
		if got := Estimate(&tt.c, opts); got != tt.want {
			t.Errorf("%s: Estimate = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestFloor: when the budget cuts a case at once, a fast op keeps
// cutSamples samples, a slow one MinRounds, neither more than its count.
func TestFloor(t *testing.T) {
	opts := Options{Count: 50, SampleTime: 2 * time.Millisecond, Target: 0.03}
	ms := time.Millisecond
	tests := []struct {
		name string
		c    Case
		want time.Duration
	}{
		// calibration (two samples' worth) + 20 samples + one op
		{"fast", Case{OpTime: 100 * time.Microsecond}, 22*2*ms + 100*time.Microsecond},
		{"fast, count below the floor", Case{OpTime: 100 * time.Microsecond, Count: 5}, 7*2*ms + 100*time.Microsecond},
		// six samples + cold run + warm-up + setup
		{"slow", Case{OpTime: 100 * ms}, 9 * 100 * ms},
		{"slow, count below the floor", Case{OpTime: 100 * ms, Count: 3}, 6 * 100 * ms},
	}
	for _, tt := range tests {
		if got := Floor(&tt.c, opts); got != tt.want {
			t.Errorf("%s: Floor = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestEstimateCaseSampling: a slow op without a budget of its own is
// estimated with the samples CaseSampling leaves it (at least MinRounds).
func TestEstimateCaseSampling(t *testing.T) {
	ms := time.Millisecond
	opts := Options{Count: 50, SampleTime: 2 * ms, CaseSampling: 500 * ms}
	// six samples + cold run + warm-up + setup
	if got, want := Estimate(&Case{OpTime: 400 * ms}, opts), 9*400*ms; got != want {
		t.Errorf("400 ms op: Estimate = %v, want %v", got, want)
	}
	// its own budget: 250 ms holds three of 100 ms
	if got, want := Estimate(&Case{OpTime: 100 * ms, Budget: 250 * ms}, opts), 6*100*ms; got != want {
		t.Errorf("100 ms op with a budget: Estimate = %v, want %v", got, want)
	}
}

// TestOptionsCut: the budget is spent only past a set Deadline, and a cut
// group takes MinRounds (6 by default).
func TestOptionsCut(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name   string
		o      Options
		rounds int
		cut    bool
	}{
		{"no deadline", Options{}, 6, false},
		{"before", Options{Deadline: now.Add(time.Minute)}, 6, false},
		{"after", Options{Deadline: now.Add(-time.Minute), MinRounds: 3}, 3, true},
	} {
		if r, c := tc.o.Cut(now); r != tc.rounds || c != tc.cut {
			t.Errorf("%s: Cut = %d, %v; want %d, %v", tc.name, r, c, tc.rounds, tc.cut)
		}
	}
}
