package bench

import (
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

// A Prober times a fixed arithmetic loop between measurements, at most
// once per Every, and hands each timing to Sink. The loop is integer
// arithmetic on registers: no memory traffic, no allocation, no system
// call, so its time follows the machine alone (clock, hypervisor, a
// neighbour on a shared host), not the cases measured around it. A nil
// Prober takes no probes.
type Prober struct {
	// Every is the least time between two probes; zero probes at every
	// call.
	Every time.Duration
	// Sink receives each probe; its error stops the run.
	Sink func(results.Probe) error
	last time.Time
	sink uint64
}

// Tick takes a probe when Every has passed since the last one.
func (p *Prober) Tick() error {
	if p == nil || p.Sink == nil {
		return nil
	}
	now := time.Now()
	if !p.last.IsZero() && now.Sub(p.last) < p.Every {
		return nil
	}
	pr := results.Probe{Time: now.UTC(), Ns: float64(p.measure())}
	p.last = time.Now()
	return p.Sink(pr)
}

// measure returns the shortest of probeRuns runs of the loop.
func (p *Prober) measure() time.Duration {
	best := time.Duration(math.MaxInt64)
	for range probeRuns {
		t := time.Now()
		p.sink += probeLoop(probeIters, p.sink)
		best = min(best, time.Since(t))
	}
	return best
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
