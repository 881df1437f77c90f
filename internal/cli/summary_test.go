package cli

import (
	"testing"
	"time"

	"github.com/serbench/serbench/results"
)

func TestMachineLine(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 2, 0, 0, 0, time.UTC)
	run := &results.Run{}
	if got := machineLine(run); got != "" {
		t.Errorf("a run without probes: %q, want no line", got)
	}
	for i, ns := range []float64{100, 96, 100, 100, 105} {
		run.Probes = append(run.Probes, results.Probe{Time: t0.Add(time.Duration(i) * time.Second), Ns: ns})
	}
	want := "machine: a fixed arithmetic loop, timed 5 times over the run, took -3.2% to +4.0% of its median (5th–95th percentile)"
	if got := machineLine(run); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// With memory times (all but the first probe's), the line adds the
	// memory chase's range.
	for i, m := range []float64{0, 1000, 1000, 1200, 1000} {
		run.Probes[i].MemNs = m
	}
	want += "; a memory chase +0.0% to +17.0%"
	if got := machineLine(run); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// With the probes' runs, the share of slow ones (usual: 100).
	for i := range run.Probes {
		run.Probes[i].Runs = []float64{run.Probes[i].Ns, 101, 100, 100}
	}
	run.Probes[2].Runs[3] = 140
	want += "; the cores ran 1.3× slower or worse 5.0% of the time"
	if got := machineLine(run); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
