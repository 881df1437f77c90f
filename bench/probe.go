package bench

import (
	"fmt"
	"math"
	"time"

	"github.com/serbench/serbench/results"
)

// probeIters is the length of the probe loop: about a millisecond on a
// 2020s x86 core. It is fixed, so that probe times of runs on one machine
// can be compared.
const probeIters = 1 << 19

// probeRuns is how many times a probe runs the loop; it records the
// fastest run, the one no interrupt or goroutine switch landed in, so the
// probe follows the machine's speed rather than the scheduler's.
const probeRuns = 5

// A Prober times two fixed loops between measurements, at most once per
// Every, and hands each timing to Sink. The first is integer arithmetic
// on registers: no memory traffic, no allocation, no system call, so its
// time follows the machine's cores alone (clock, hypervisor, a neighbour
// on a shared core), not the cases measured around it. The second is a
// chain of dependent loads through a 32 MiB buffer outside the Go heap:
// its time follows the shared caches and memory, which a neighbour on a
// shared host can slow down while the cores stay as fast as before — and
// with them every case whose data does not fit in a core's own caches. A
// nil Prober takes no probes. Close releases the memory probe's buffer.
type Prober struct {
	// Every is the least time between two probes; zero probes at every
	// call.
	Every time.Duration
	// Sink receives each probe; its error stops the run.
	Sink func(results.Probe) error
	// NoMemory skips the memory chase (and does not map its buffer), for
	// cases that measure the process's own resident memory; Close
	// releases a buffer already mapped.
	NoMemory bool
	last     time.Time
	sink     uint64
	mem      *memChase
	// memTried records that the memory probe's buffer was set up (or
	// could not be: then probes carry no memory time); memFrom is when
	// its timings start to count.
	memTried bool
	memFrom  time.Time
}

// memSettle is how long after setting up its buffer the memory probe
// starts recording: setting it up writes every line, and for about a
// second after that the shared cache still holds many of them, so the
// first chases run up to 3× faster than every later one.
const memSettle = 2 * time.Second

// Tick takes a probe when Every has passed since the last one.
func (p *Prober) Tick() error {
	if p == nil || p.Sink == nil {
		return nil
	}
	now := time.Now()
	if !p.last.IsZero() && now.Sub(p.last) < p.Every {
		return nil
	}
	if !p.memTried && !p.NoMemory {
		p.memTried, p.mem, p.memFrom = true, newMemChase(), time.Now().Add(memSettle)
	}
	best, runs := p.measure()
	pr := results.Probe{Time: now.UTC(), Ns: float64(best), Runs: runs, MemNs: float64(p.measureMem())}
	p.last = time.Now()
	return p.Sink(pr)
}

// measure returns the shortest of probeRuns runs of the loop, and the
// time of each run in nanoseconds (the slow ones say how much of the time
// the machine ran slow: results.SlowShare).
func (p *Prober) measure() (time.Duration, []float64) {
	best := time.Duration(math.MaxInt64)
	runs := make([]float64, 0, probeRuns)
	for range probeRuns {
		t := time.Now()
		p.sink += probeLoop(probeIters, p.sink)
		d := time.Since(t)
		best = min(best, d)
		runs = append(runs, float64(d))
	}
	return best, runs
}

// measureMem returns the shortest of memChaseRuns runs of the memory
// chase, or 0 without its buffer or before it has settled.
func (p *Prober) measureMem() time.Duration {
	if p.NoMemory || p.mem == nil || time.Now().Before(p.memFrom) {
		return 0
	}
	best := time.Duration(math.MaxInt64)
	for range memChaseRuns {
		t := time.Now()
		p.mem.run(memChaseSteps)
		best = min(best, time.Since(t))
	}
	return best
}

// Close releases the memory probe's buffer; a later Tick maps a new one.
func (p *Prober) Close() error {
	if p == nil {
		return nil
	}
	err := p.mem.close()
	p.mem, p.memTried = nil, false
	if err != nil {
		return fmt.Errorf("bench: releasing the memory probe: %w", err)
	}
	return nil
}

// probeLoop steps a 64-bit linear congruential generator n times with an
// xorshift after each step, a dependency chain the compiler cannot fold.
func probeLoop(n int, seed uint64) uint64 {
	x := seed | 1
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
		x ^= x >> 13
	}
	return x
}
