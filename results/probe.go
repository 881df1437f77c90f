package results

import (
	"math"
	"sort"
	"time"
)

// A Probe is one timing of serbench's fixed arithmetic loop, taken between
// cases during a run. The loop touches no memory and makes no system call,
// so its time moves only with the machine: the CPU's clock, a neighbour on
// a shared host, the hypervisor. A run's probes show how steady the
// machine was while it measured.
type Probe struct {
	Kind string `json:"kind"`
	// Time is when the probe was taken.
	Time time.Time `json:"t"`
	// Ns is the loop's duration in nanoseconds (the fastest of a few runs).
	Ns float64 `json:"ns"`
	// Fork is the process that took it (1-based) when the run measured a
	// workload in several processes, 0 for the run's own process.
	Fork int `json:"fork,omitempty"`
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

// DriftOf summarises probes (in the order taken) against the relative
// threshold of the noisy flag. It returns false with fewer than three.
func DriftOf(probes []Probe, threshold float64) (Drift, bool) {
	if len(probes) < 3 {
		return Drift{}, false
	}
	ps := append([]Probe(nil), probes...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Time.Before(ps[j].Time) })
	ns := make([]float64, len(ps))
	gaps := make([]float64, 0, len(ps)-1)
	for i, p := range ps {
		ns[i] = p.Ns
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
	if start.IsZero() || end.IsZero() {
		return 0, 0, false
	}
	var ns []float64
	for _, p := range probes {
		if !p.Time.Before(start.Add(-slack)) && !p.Time.After(end.Add(slack)) {
			ns = append(ns, p.Ns)
		}
	}
	if len(ns) < 2 {
		return 0, len(ns), false
	}
	return Summarize(ns).RelWidth(), len(ns), true
}
