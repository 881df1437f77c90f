package bench

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/serbench/serbench/callgrind"
	"github.com/serbench/serbench/results"
)

// CountOptions tune Count.
type CountOptions struct {
	// Counts is the number of counted runs per case (default 5).
	Counts int
	// RegionInstructions is how many instructions one counted run should
	// execute (default 8 million, about a quarter of a second under
	// callgrind): many iterations per run spread the allocator's
	// occasional slow paths (a span refilled, the heap grown) over them.
	RegionInstructions uint64
	// MaxHeap bounds the bytes one counted run may allocate with the
	// collector off (default 64 MiB): the iterations of a run that would
	// allocate more are cut to fit, and an op allocating more in one
	// iteration is counted with the collector on (Count.GC). Under
	// Valgrind every fresh page costs dearly, so a run's heap stays small.
	MaxHeap uint64
}

func (o CountOptions) withDefaults() CountOptions {
	if o.Counts <= 0 {
		o.Counts = 5
	}
	if o.RegionInstructions == 0 {
		o.RegionInstructions = 8 << 20
	}
	if o.MaxHeap == 0 {
		o.MaxHeap = 64 << 20
	}
	return o
}

// Count sets up and verifies c as Measure does, then counts the
// instructions of its op with k: opts.Counts runs of the same number of
// iterations, each a region in which callgrind collects only while the
// case's timer runs (its StopTimer sections are not counted), on this
// goroutine locked to its thread. Before each region the heap is
// collected and, within opts.MaxHeap, the collector is turned off, so that
// a count holds the op's own instructions (allocation included, the
// collector's work not): the count of one build then repeats. An empty
// region's cost is subtracted. The case's B/op and allocs/op are not
// recorded here (Measure records them).
func Count(ctx context.Context, c Case, k *callgrind.Counter, opts CountOptions) (results.Case, error) {
	opts = opts.withDefaults()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The heap profiler records a stack trace every 512 KiB allocated on
	// average, at random points: unwinding costs thousands of instructions
	// that one region would count and the next not.
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 0
	m := &member{c: &c, t0: time.Now(), count: 1}
	m.rc = results.Case{Workload: c.Workload, Name: c.Name, Labels: c.Labels, Role: c.Role, Group: c.Group, Notes: c.Notes}
	if m.rc.Role == "" {
		m.rc.Role = results.RoleSubject
	}
	defer func() {
		if m.teardown != nil {
			m.teardown()
		}
	}()
	finish := func() (results.Case, error) {
		m.rc.Elapsed = time.Since(m.t0)
		m.rc.Start, m.rc.End = m.t0.UTC(), m.t0.Add(m.rc.Elapsed).UTC()
		return m.rc, nil
	}
	if err := m.prepareCounted(ctx); err != nil {
		return results.Case{}, err
	}
	if m.rc.Status != "" {
		return finish()
	}
	k.Instrument(true)
	defer k.Instrument(false)
	// A run of one iteration warms the translations up and says what an
	// op costs; the runtime's lazily built caches are then warmed,
	// uninstrumented (several times faster): a type assertion's cache is
	// updated on about one miss in a thousand, at random, so a region that
	// happened to update it would count its misses and the update
	// (several percent of a small op) where another would not.
	m.b.counter = nil
	if _, err := runOnce(&m.b, c.Run, 1); err != nil {
		m.fail("run", err)
		return finish()
	}
	one, err := countRegion(k, &m.b, c.Run, 1)
	if err != nil {
		m.fail("run", err)
		return finish()
	}
	warm := min(4096, int(max(warmInstructions/max(one.Ir, 1), 1)))
	k.Instrument(false)
	_, err = runOnce(&m.b, c.Run, warm)
	k.Instrument(true)
	if err != nil {
		m.fail("run", err)
		return finish()
	}
	// A counted region of eight iterations sizes the regions: N is the
	// power of two nearest below what makes a region RegionInstructions
	// long, within MaxHeap of allocation. Counting (not timing) eight
	// warm iterations makes N the same in every run of the build, and so
	// what a region allocates.
	eight, err := countRegion(k, &m.b, c.Run, 8)
	if err != nil {
		m.fail("run", err)
		return finish()
	}
	perOp := m.b.netBytes / 8
	n := pow2Below(opts.RegionInstructions * 8 / max(eight.Ir, 1))
	gcOff := true
	if perOp > 0 {
		fit := opts.MaxHeap / perOp
		if fit < 1 {
			gcOff = false
		} else {
			n = min(n, pow2Below(fit))
		}
	}
	// From here on the collector runs only when called, before each
	// region (unless one op allocates more than MaxHeap): with it off the
	// scavenger, which returns freed pages to the kernel at times of its
	// own, has nothing to do, so every region allocates from the same
	// recycled spans (zeroed by the allocator) and none from fresh pages
	// (zero already), whose share would differ from region to region.
	if gcOff {
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
	}
	// Warm up as the regions will run: the heap then holds, freed, the
	// spans a region needs.
	if err := warmRegion(&m.b, c.Run, n); err != nil {
		m.fail("run", err)
		return finish()
	}
	empty, err := countRegion(k, &m.b, func(*B) error { return nil }, 1)
	if err != nil {
		return results.Case{}, err
	}
	for i := 0; i < opts.Counts; i++ {
		if err := ctx.Err(); err != nil {
			return results.Case{}, ErrInterrupted
		}
		got, err := countRegion(k, &m.b, c.Run, n)
		if err != nil {
			m.fail("run", err)
			return finish()
		}
		m.rc.Counts = append(m.rc.Counts, perOpCount(got.Minus(empty), n, !gcOff))
	}
	m.rc.Status = results.StatusOK
	m.rc.Stop = StopCount
	m.rc.BytesPerOp = c.Bytes
	if m.b.bytes > 0 {
		m.rc.BytesPerOp = m.b.bytes
	}
	m.rc.Metrics = copyMetrics(c.Metrics)
	if !gcOff {
		m.rc.CountNote = fmt.Sprintf("counted with the collector on: %d B per op is more than a run may allocate without it", perOp)
	}
	m.rc.Summarize()
	return finish()
}

// prepareCounted sets up and verifies the case (uninstrumented, so at
// Valgrind's fastest), recording a failure or skip in the member.
func (m *member) prepareCounted(ctx context.Context) error {
	if m.c.Remote != nil && m.c.Skip == "" {
		m.rc.Status, m.rc.Error = results.StatusSkipped, "a runner's case is measured in its own process"
		return nil
	}
	_, err := m.setUp(ctx)
	return err
}

// warmInstructions bounds the uninstrumented warm-up of a case (about a
// second under Valgrind).
const warmInstructions = 300 << 20

// warmRegion runs fn with N=n uncounted, as countRegion runs it.
func warmRegion(b *B, fn func(*B) error, n int) error {
	runtime.GC()
	b.counter = nil
	_, err := runOnce(b, fn, n)
	return err
}

// countRegion runs fn with N=n as one counted region, the heap collected
// first.
func countRegion(k *callgrind.Counter, b *B, fn func(*B) error, n int) (callgrind.Counts, error) {
	runtime.GC()
	b.reset(n)
	b.counter = nil
	b.StartTimer() // outside the region: ReadMemStats is not the op's
	b.counter = k
	k.Begin()
	err := safeRun(fn, b)
	k.Pause()
	b.counter = nil
	b.StopTimer()
	counts, cerr := k.End()
	if err != nil {
		return callgrind.Counts{}, err
	}
	return counts, cerr
}

// pow2Below is the largest power of two ≤ v (1 for v < 2), at most 2^20.
func pow2Below(v uint64) int {
	n := 1
	for n < 1<<20 && uint64(n)*2 <= v {
		n *= 2
	}
	return n
}

// perOpCount divides a region's counts by its iterations.
func perOpCount(c callgrind.Counts, n int, gc bool) results.Count {
	f := float64(n)
	return results.Count{
		Iters:        n,
		Instructions: float64(c.Ir) / f,
		EstCycles:    float64(c.EstimatedCycles()) / f,
		L1Misses:     float64(c.I1mr+c.D1mr+c.D1mw) / f,
		LLMisses:     float64(c.RAMHits()) / f,
		BranchMisses: float64(c.Bcm+c.Bim) / f,
		GC:           gc,
	}
}
