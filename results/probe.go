package results

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// A Probe is one timing of serbench's two fixed loops, taken between cases
// during a run. The arithmetic loop touches no memory and makes no system
// call, so its time moves only with the cores: the CPU's clock, a
// neighbour on a shared core, the hypervisor. The memory chase follows a
// chain of dependent loads through a buffer larger than a core's own
// caches, so its time moves with the shared caches and memory, which a
// neighbour on a shared host can slow down while the cores stay fast. A
// run's probes show how steady the machine was while it measured.
type Probe struct {
	Kind string `json:"kind"`
	// Time is when the probe was taken.
	Time time.Time `json:"t"`
	// Ns is the loop's duration in nanoseconds (the fastest of a few runs).
	Ns float64 `json:"ns"`
	// Runs are the times of each run of the loop in this probe, in
	// nanoseconds (Ns is the least of them); absent in files before
	// serbench recorded them.
	Runs []float64 `json:"runs_ns,omitempty"`
	// MemNs is the memory chase's duration in nanoseconds (the fastest of
	// a few runs of 8,192 dependent loads through 32 MiB); 0 in files
	// before schema 4 and where the buffer could not be mapped.
	MemNs float64 `json:"mem_ns,omitempty"`
	// Fork is the process that took it (1-based) when the run measured a
	// workload in several processes, 0 for the run's own process.
	Fork int `json:"fork,omitempty"`
}

// validate checks that the probe's times can be true: the loop took
// some time, the memory chase none (not timed) or some, neither more
// than any sample can take (maxSampleNs).
func (p *Probe) validate() error {
	switch {
	case !(p.Ns > 0):
		return fmt.Errorf("ns %v is not positive", p.Ns)
	case p.Ns > maxSampleNs:
		return fmt.Errorf("ns %v is more than any timing can take (%g ns, 11.6 days)", p.Ns, float64(maxSampleNs))
	case !(p.MemNs >= 0):
		return fmt.Errorf("mem_ns %v is negative", p.MemNs)
	case p.MemNs > maxSampleNs:
		return fmt.Errorf("mem_ns %v is more than any timing can take (%g ns, 11.6 days)", p.MemNs, float64(maxSampleNs))
	case slices.ContainsFunc(p.Runs, func(v float64) bool { return !(v > 0) || v > maxSampleNs }):
		return fmt.Errorf("runs_ns %v: each run must take some time, and less than any timing can take", p.Runs)
	case p.Fork < 0:
		return fmt.Errorf("fork %d is negative", p.Fork)
	}
	return nil
}

// Drift summarises a run's probes.
type Drift struct {
	// N is the number of probes; Span the time from the first to the last.
	N    int
	Span time.Duration
	// Gap is the median time between consecutive probes.
	Gap time.Duration
	// Lo and Hi are the 5th and 95th percentiles of the probe times as a
	// fraction of their median (e.g. 0.96 and 1.05).
	Lo, Hi float64
	// Triples counts the windows of three consecutive probes and Wide
	// those whose [min, max] reaches further than threshold from their
	// median: how often a perfectly steady case, sampled three times
	// Gap apart, would be flagged noisy on this machine.
	Triples, Wide int
}

// A ProbeLoop selects one of a probe's two timings.
type ProbeLoop int

// The probe's loops.
const (
	// CPULoop is the arithmetic loop (Probe.Ns).
	CPULoop ProbeLoop = iota
	// MemoryLoop is the memory chase (Probe.MemNs).
	MemoryLoop
)

// Of returns p's time for the loop (0 when p has none).
func (l ProbeLoop) Of(p Probe) float64 {
	if l == MemoryLoop {
		return p.MemNs
	}
	return p.Ns
}

// Timed returns the probes that carry a time for the loop, in their order.
func (l ProbeLoop) Timed(probes []Probe) []Probe {
	var out []Probe
	for _, p := range probes {
		if l.Of(p) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// DriftOf summarises probes' arithmetic loop (in the order taken) against
// the relative threshold of the noisy flag. It returns false with fewer
// than three.
func DriftOf(probes []Probe, threshold float64) (Drift, bool) {
	return LoopDrift(probes, CPULoop, threshold)
}

// LoopDrift summarises the times of one loop of probes, as DriftOf does;
// probes without a time for it are left out. It returns false with fewer
// than three.
func LoopDrift(probes []Probe, loop ProbeLoop, threshold float64) (Drift, bool) {
	ps := loop.Timed(probes)
	if len(ps) < 3 {
		return Drift{}, false
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Time.Before(ps[j].Time) })
	ns := make([]float64, len(ps))
	gaps := make([]float64, 0, len(ps)-1)
	for i, p := range ps {
		ns[i] = loop.Of(p)
		if i > 0 {
			gaps = append(gaps, float64(p.Time.Sub(ps[i-1].Time)))
		}
	}
	med := Quantile(ns, 0.5)
	d := Drift{N: len(ps), Span: ps[len(ps)-1].Time.Sub(ps[0].Time), Gap: time.Duration(Quantile(gaps, 0.5)),
		Lo: Quantile(ns, 0.05) / med, Hi: Quantile(ns, 0.95) / med}
	for i := 0; i+3 <= len(ns); i++ {
		t := []float64{ns[i], ns[i+1], ns[i+2]}
		sort.Float64s(t)
		d.Triples++
		if t[2]/t[1]-1 > threshold || 1-t[0]/t[1] > threshold {
			d.Wide++
		}
	}
	return d, true
}

// SlowFactor is how much longer than usual a run of the probe loop must
// take to count as slow (SlowShare).
const SlowFactor = 1.3

// SlowShare says how much of the time the machine ran slow: of the runs
// of the arithmetic loop the probes recorded (Probe.Runs, about a
// millisecond each, taken about once a second), how many took SlowFactor
// times the usual time or more — the usual time being the median of the
// probes' fastest runs. On a shared host the cores run slower by half or
// more in stretches of one to a few hundred milliseconds (a neighbour on
// a sibling hyperthread, the host's clock); the fastest-of-five probe
// time (Ns) is made to look past those stretches, this share counts them.
// It returns false when fewer than three probes recorded their runs.
func SlowShare(probes []Probe) (slow, runs int, ok bool) {
	var best []float64
	for _, p := range probes {
		if len(p.Runs) > 0 && p.Ns > 0 {
			best = append(best, p.Ns)
		}
	}
	if len(best) < 3 {
		return 0, 0, false
	}
	usual := Quantile(best, 0.5)
	for _, p := range probes {
		if p.Ns <= 0 {
			continue
		}
		for _, v := range p.Runs {
			runs++
			if v >= SlowFactor*usual {
				slow++
			}
		}
	}
	return slow, runs, true
}

// Quantile returns the q-quantile of vs by linear interpolation between
// order statistics (NaN when vs is empty); vs is not modified.
func Quantile(vs []float64, q float64) float64 {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}

// MachineDuring returns how far the machine moved while a case was
// measured: the relative half-width of the interval Summarize gives the
// probes taken from slack before start to slack after end (so the probes
// just before and after a short group count) — the same interval a case
// with those values would get — and how many there were. It returns false
// with fewer than two probes or without times.
func MachineDuring(probes []Probe, start, end time.Time, slack time.Duration) (width float64, n int, ok bool) {
	return LoopDuring(probes, CPULoop, start, end, slack)
}

// LoopDuring is MachineDuring for one loop of the probes.
func LoopDuring(probes []Probe, loop ProbeLoop, start, end time.Time, slack time.Duration) (width float64, n int, ok bool) {
	if start.IsZero() || end.IsZero() {
		return 0, 0, false
	}
	var ns []float64
	for _, p := range probes {
		if v := loop.Of(p); v > 0 && !p.Time.Before(start.Add(-slack)) && !p.Time.After(end.Add(slack)) {
			ns = append(ns, v)
		}
	}
	if len(ns) < 2 {
		return 0, len(ns), false
	}
	return Summarize(ns).RelWidth(), len(ns), true
}
