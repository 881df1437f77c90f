package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/serbench/serbench/results"
)

// A Case is one thing to measure: an operation of one subject on one input.
//
// Setup, Verify and Teardown run outside the timed region. Run is timed; it
// must perform the operation b.N times.
type Case struct {
	// Workload names the workload the case belongs to.
	Workload string
	// Name is the benchmark base name (e.g. "Features").
	Name string
	// Labels identify the case (subject, type, size, op …).
	Labels results.Labels
	// Bytes is the payload size one op processes; it yields MB/s. Run
	// may set it instead with b.SetBytes when it is known only after
	// Setup.
	Bytes int64
	// Metrics are fixed per-case values (serialized size, ratio to raw).
	// Setup or Verify may fill them in.
	Metrics map[string]float64
	// Notes are remarks carried into the results (e.g. "limit row").
	Notes []string
	// Setup prepares inputs. Optional.
	Setup func() error
	// Verify checks that the subject round-trips the input before any
	// timing. A case without Verify is not run: a limit row verifies its
	// copy too.
	Verify func() error
	// Run performs the operation b.N times.
	Run func(b *B) error
	// Teardown releases what Setup made. Optional; always called when
	// Setup succeeded.
	Teardown func()
	// Count overrides Options.Count when positive (for cases whose
	// single op takes seconds).
	Count int
	// Skip, when set, records the case as skipped with this reason
	// without running anything (e.g. "not installed: pip install …").
	Skip string
	// NoWarmup declares the op's first run representative (e.g. a
	// whole-file write whose inputs were prepared in Setup): when the
	// first calibration run at N=1 already lasts a sample's time, there is
	// no separate warm-up and that run counts as the first sample.
	NoWarmup bool
	// Budget, when positive, caps the time spent sampling: no new sample
	// starts once the samples so far took Budget (at least one sample is
	// always taken). Slow ops then get fewer samples, and reports show n.
	Budget time.Duration
}

// FullName returns the name with labels.
func (c *Case) FullName() string { return c.Name + c.Labels.String() }

// Options control the measurement.
type Options struct {
	// Count is the number of samples per case (default 5).
	Count int
	// SampleTime is the target duration of one sample (default 50ms).
	SampleTime time.Duration
	// MaxIters caps b.N (default 1e9).
	MaxIters int
}

func (o Options) withDefaults() Options {
	if o.Count <= 0 {
		o.Count = 5
	}
	if o.SampleTime <= 0 {
		o.SampleTime = 50 * time.Millisecond
	}
	if o.MaxIters <= 0 {
		o.MaxIters = 1e9
	}
	return o
}

// ErrInterrupted is returned by Measure when its context ends mid-case.
var ErrInterrupted = errors.New("bench: interrupted")

// Measure sets up, verifies and measures one case. A case that fails
// setup, verification or its run is returned with status failed and the
// reason; Measure returns an error only when ctx ends before the case is
// finished (the partial case is then discarded).
func Measure(ctx context.Context, c Case, opts Options) (results.Case, error) {
	opts = opts.withDefaults()
	t0 := time.Now()
	rc := results.Case{
		Workload: c.Workload,
		Name:     c.Name,
		Labels:   c.Labels,
		Notes:    c.Notes,
	}
	fail := func(stage string, err error) (results.Case, error) {
		rc.Status = results.StatusFailed
		rc.Error = fmt.Sprintf("%s: %v", stage, err)
		rc.Samples, rc.Summary = nil, nil
		rc.Metrics = copyMetrics(c.Metrics)
		rc.Elapsed = time.Since(t0)
		return rc, nil
	}
	if c.Skip != "" {
		rc.Status = results.StatusSkipped
		rc.Error = c.Skip
		rc.Elapsed = time.Since(t0)
		return rc, nil
	}
	if c.Run == nil {
		return fail("setup", errors.New("case has no Run function"))
	}
	if c.Verify == nil {
		return fail("verify", errors.New("case has no Verify function"))
	}
	if c.Setup != nil {
		if err := safeCall(c.Setup); err != nil {
			return fail("setup", err)
		}
	}
	if c.Teardown != nil {
		defer c.Teardown()
	}
	if err := safeCall(c.Verify); err != nil {
		return fail("verify", err)
	}
	if err := ctx.Err(); err != nil {
		return rc, ErrInterrupted
	}

	count := opts.Count
	if c.Count > 0 {
		count = c.Count
	}
	var b B
	sample := func(n int, d time.Duration) results.Sample {
		return results.Sample{
			Iters:       n,
			NsPerOp:     float64(d.Nanoseconds()) / float64(n),
			BytesPerOp:  float64(b.netBytes) / float64(n),
			AllocsPerOp: float64(b.netAllocs) / float64(n),
			Metrics:     b.metrics,
		}
	}
	// Calibrate: grow N until one run lasts at least SampleTime, as
	// testing.B does. The calibration runs double as warm-up.
	n := 1
	var (
		last     time.Duration
		sampling time.Duration
	)
	for {
		if n == 1 {
			runtime.GC() // the first run may become a sample
		}
		d, err := runOnce(&b, c.Run, n)
		if err != nil {
			return fail("run", err)
		}
		last = d
		if d >= opts.SampleTime || n >= opts.MaxIters {
			break
		}
		if err := ctx.Err(); err != nil {
			return rc, ErrInterrupted
		}
		n = predictN(n, d, opts)
	}
	switch {
	case n == 1 && c.NoWarmup:
		// A slow op whose first run is representative: keep it.
		rc.Samples = append(rc.Samples, sample(1, last))
		sampling += last
	case n == 1 && last < 10*opts.SampleTime:
		// A slow op has had one cold run; warm up once more. A fast op's
		// final calibration run is its warm-up.
		if _, err := runOnce(&b, c.Run, 1); err != nil {
			return fail("run", err)
		}
	}
	for len(rc.Samples) < count {
		if c.Budget > 0 && len(rc.Samples) > 0 && sampling >= c.Budget {
			break
		}
		if err := ctx.Err(); err != nil {
			return rc, ErrInterrupted
		}
		runtime.GC()
		d, err := runOnce(&b, c.Run, n)
		if err != nil {
			return fail("run", err)
		}
		rc.Samples = append(rc.Samples, sample(n, d))
		sampling += d
	}
	rc.Status = results.StatusOK
	rc.BytesPerOp = c.Bytes
	if b.bytes > 0 {
		rc.BytesPerOp = b.bytes
	}
	rc.Metrics = copyMetrics(c.Metrics)
	rc.Summarize()
	rc.Elapsed = time.Since(t0)
	return rc, nil
}

// runOnce runs fn with N=n and returns the timed duration.
func runOnce(b *B, fn func(*B) error, n int) (time.Duration, error) {
	b.reset(n)
	b.StartTimer()
	err := safeRun(fn, b)
	b.StopTimer()
	return b.duration, err
}

// predictN mirrors testing.B's growth: aim 20% past the target, grow at
// most 100× and at least by one per round.
func predictN(n int, d time.Duration, opts Options) int {
	goal := opts.SampleTime.Nanoseconds()
	prev := d.Nanoseconds()
	if prev <= 0 {
		prev = 1
	}
	next := goal * int64(n) / prev
	next += next / 5
	next = min(next, 100*int64(n))
	next = max(next, int64(n)+1)
	next = min(next, int64(opts.MaxIters))
	return int(next)
}

func copyMetrics(m map[string]float64) map[string]float64 {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// safeCall runs f and turns a panic into an error, so one broken subject
// cannot take the run down.
func safeCall(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

func safeRun(f func(*B) error, b *B) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f(b)
}
