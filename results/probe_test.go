package results

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
)

// probes makes one probe a second with the given loop times.
func probes(ns ...float64) []Probe {
	t0 := time.Date(2026, 11, 24, 2, 0, 0, 0, time.UTC)
	out := make([]Probe, len(ns))
	for i, v := range ns {
		out[i] = Probe{Time: t0.Add(time.Duration(i) * time.Second), Ns: v}
	}
	return out
}

func TestDriftOf(t *testing.T) {
	tests := []struct {
		name          string
		probes        []Probe
		ok            bool
		lo, hi        float64
		triples, wide int
	}{
		{name: "too few", probes: probes(1, 1)},
		{name: "steady", probes: probes(100, 100, 100, 100, 100), ok: true, lo: 1, hi: 1, triples: 3},
		// One slow probe widens the three windows that hold it.
		{name: "one slow probe", probes: probes(100, 100, 100, 110, 100, 100, 100), ok: true, lo: 1, hi: 1.07, triples: 5, wide: 3},
		// A 4% step between two levels stays inside ±5%.
		{name: "small step", probes: probes(100, 100, 100, 104, 104, 104), ok: true, lo: 0.98, hi: 1.02, triples: 4},
		{name: "fast outlier", probes: probes(100, 100, 90, 100, 100), ok: true, lo: 0.92, hi: 1, triples: 3, wide: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := DriftOf(tt.probes, 0.05)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if d.N != len(tt.probes) || d.Gap != time.Second || d.Span != time.Duration(len(tt.probes)-1)*time.Second {
				t.Errorf("N %d gap %s span %s", d.N, d.Gap, d.Span)
			}
			if !near(d.Lo, tt.lo) || !near(d.Hi, tt.hi) {
				t.Errorf("range %.4f … %.4f, want %.4f … %.4f", d.Lo, d.Hi, tt.lo, tt.hi)
			}
			if d.Triples != tt.triples || d.Wide != tt.wide {
				t.Errorf("%d of %d windows wide, want %d of %d", d.Wide, d.Triples, tt.wide, tt.triples)
			}
		})
	}
}

// TestLoopDriftOfMemory: the memory loop's drift is taken over the probes
// that carry a memory time only (older files have none; a probe process's
// first probes neither), and the arithmetic loop's over all of them.
func TestLoopDriftOfMemory(t *testing.T) {
	ps := probes(100, 100, 100, 100, 100, 100)
	for i, m := range []float64{0, 0, 1000, 1000, 1500, 1000} {
		ps[i].MemNs = m
	}
	d, ok := LoopDrift(ps, MemoryLoop, 0.05)
	if !ok || d.N != 4 || !near(d.Lo, 1) || !near(d.Hi, 1.425) || d.Triples != 2 || d.Wide != 2 {
		t.Errorf("memory drift %+v (ok %v), want 4 probes, 1 … 1.425, 2 of 2 windows wide", d, ok)
	}
	if c, _ := DriftOf(ps, 0.05); c.N != 6 || c.Wide != 0 {
		t.Errorf("arithmetic drift %+v, want 6 steady probes", c)
	}
	if _, ok := LoopDrift(probes(100, 100, 100), MemoryLoop, 0.05); ok {
		t.Error("probes without memory times gave a memory drift")
	}
	if w, n, ok := LoopDuring(ps, MemoryLoop, ps[0].Time, ps[5].Time, 0); !ok || n != 4 || !(w > 0.05) {
		t.Errorf("LoopDuring = %v, %d, %v: want the 4 memory times, wider than ±5%%", w, n, ok)
	}
}

// near compares percentiles to two decimals (they interpolate).
func near(a, b float64) bool { return a-b < 0.005 && b-a < 0.005 }

// TestDriftOfOrdersByTime: probes forwarded from forks arrive out of
// order; windows are consecutive in time.
func TestDriftOfOrdersByTime(t *testing.T) {
	ps := probes(100, 100, 100, 120, 120, 120)
	ps[1], ps[4] = ps[4], ps[1]
	d, _ := DriftOf(ps, 0.05)
	if d.Wide != 2 {
		t.Errorf("%d wide windows, want 2 (the two that straddle the step)", d.Wide)
	}
}

func TestProbeLinesRoundTrip(t *testing.T) {
	run := testRun()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteEnv(run.Env); err != nil {
		t.Fatal(err)
	}
	want := probes(812345, 830000)
	want[1].Fork, want[1].MemNs = 2, 1.5e6
	for _, p := range want {
		if err := w.WriteProbe(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteCase(run.Cases[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `{"kind":"probe","t":"2026-11-24T02:00:00Z","ns":812345}`) {
		t.Errorf("probe line not as documented:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), `"ns":830000,"mem_ns":1500000,"fork":2}`) {
		t.Errorf("memory time not written as documented:\n%s", buf.String())
	}
	got, err := Read(&buf, "mem")
	if err != nil {
		t.Fatal(err)
	}
	if got.Env.Schema != SchemaVersion || SchemaVersion < 4 {
		t.Errorf("schema %d (writes %d), want at least 4: probes' memory times are new in schema 4", got.Env.Schema, SchemaVersion)
	}
	if len(got.Probes) != 2 || len(got.Cases) != 1 {
		t.Fatalf("read %d probes and %d cases, want 2 and 1", len(got.Probes), len(got.Cases))
	}
	for i := range want {
		if !got.Probes[i].Time.Equal(want[i].Time) || got.Probes[i].Ns != want[i].Ns || got.Probes[i].MemNs != want[i].MemNs || got.Probes[i].Fork != want[i].Fork {
			t.Errorf("probe %d = %+v, want %+v", i, got.Probes[i], want[i])
		}
	}
}

func TestBadProbeLine(t *testing.T) {
	for _, probe := range []string{
		`{"kind":"probe","t":"2026-11-24T02:00:00Z","ns":0}`,
		`{"kind":"probe","t":"2026-11-24T02:00:00Z","ns":1,"mem_ns":-5}`,
		`{"kind":"probe","t":"2026-11-24T02:00:00Z","ns":1,"runs_ns":[1,0]}`,
	} {
		in := `{"kind":"env","schema":4,"cpu":"x","cores":1,"gomaxprocs":1,"goos":"linux","goarch":"amd64","go_version":"go1.26","serbench_version":"0","start":"2026-11-24T02:00:00Z","scale":"quick","count":1,"command":null}
` + probe + "\n"
		_, err := Read(strings.NewReader(in), "bad.jsonl")
		if err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") || !strings.Contains(err.Error(), "probe") {
			t.Errorf("%s: error %v, want one naming bad.jsonl:2 and the probe", probe, err)
		}
	}
}

// TestSlowShare: every recorded run of the probe loop counts, slow when
// it took SlowFactor times the median of the probes' fastest runs or
// more; probes without runs (older files) are left out.
func TestSlowShare(t *testing.T) {
	at := func(best float64, runs ...float64) Probe { return Probe{Ns: best, Runs: runs} }
	steady := []Probe{at(100, 100, 101, 102, 100, 103), at(100, 100, 100, 100, 100, 100), at(101, 101, 105, 110, 101, 102)}
	tests := []struct {
		name       string
		probes     []Probe
		slow, runs int
		ok         bool
	}{
		{"steady", steady, 0, 15, true},
		// usual = median of 100, 100, 101, 160 = 100.5: slow from 130.65 on
		{"a slow stretch across a probe", append(steady[:3:3], at(160, 160, 170, 165, 180, 200)), 5, 20, true},
		{"slow runs inside a fast probe", []Probe{at(100, 100, 131, 100, 200, 129), at(100, 100, 100, 100, 100, 100), at(100, 100, 100, 100, 100, 100)}, 2, 15, true},
		{"older probes without runs", []Probe{{Ns: 100}, {Ns: 100}, at(100, 100, 200)}, 0, 0, false},
		{"none", nil, 0, 0, false},
	}
	for _, tt := range tests {
		slow, runs, ok := SlowShare(tt.probes)
		if slow != tt.slow || runs != tt.runs || ok != tt.ok {
			t.Errorf("%s: SlowShare = %d of %d (%v), want %d of %d (%v)", tt.name, slow, runs, ok, tt.slow, tt.runs, tt.ok)
		}
	}
}

func TestMergeShardsKeepsProbesOfOneHost(t *testing.T) {
	shard := func(k, host string, ns float64) *Run {
		r := testRun()
		r.Env.RunID, r.Env.Shard, r.Env.Host = "id", k+"/2", host
		r.Probes = probes(ns)
		r.End = &End{Planned: 1, Done: 1}
		return r
	}
	one := MergeShards([]*Run{shard("2", "a", 2), shard("1", "a", 1)})
	if len(one) != 1 || len(one[0].Probes) != 2 {
		t.Fatalf("merged %d runs with %d probes, want 1 with 2", len(one), len(one[0].Probes))
	}
	two := MergeShards([]*Run{shard("1", "a", 1), shard("2", "b", 2)})
	if len(two[0].Probes) != 0 {
		t.Errorf("probes of two hosts kept as one series: %+v", two[0].Probes)
	}
}

func TestMachineDuring(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 2, 0, 0, 0, time.UTC)
	steadyWithOutlier := make([]float64, 20)
	for i := range steadyWithOutlier {
		steadyWithOutlier[i] = 100
	}
	steadyWithOutlier[7] = 130
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	tests := []struct {
		name       string
		ns         []float64
		start, end time.Time
		width      float64
		n          int
		ok         bool
	}{
		{"no times", []float64{100, 110}, time.Time{}, time.Time{}, 0, 0, false},
		{"one probe in reach", []float64{100, 110, 120, 130}, at(-10), at(-1), 0, 1, false},
		{"two probes: their range", []float64{100, 110, 120}, at(0), at(0), 0.05 / 1.05, 2, true},
		// Twenty probes get an order-statistic interval: one slow probe
		// does not widen it, as one slow sample does not widen a case's.
		{"twenty probes, one slow", steadyWithOutlier, at(0), at(19), 0, 20, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, n, ok := MachineDuring(probes(tt.ns...), tt.start, tt.end, 1500*time.Millisecond)
			if ok != tt.ok || n != tt.n || (ok && !near(w, tt.width)) {
				t.Errorf("= %.4f, %d, %v; want %.4f, %d, %v", w, n, ok, tt.width, tt.n, tt.ok)
			}
		})
	}
}

func TestQuantile(t *testing.T) {
	for _, tt := range []struct {
		vs   []float64
		q    float64
		want float64
	}{
		{[]float64{3, 1, 2}, 0.5, 2},
		{[]float64{4, 1, 3, 2}, 0.5, 2.5},
		{[]float64{0, 10}, 0.95, 9.5},
		{[]float64{7}, 0.05, 7},
	} {
		if got := Quantile(tt.vs, tt.q); got != tt.want {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tt.vs, tt.q, got, tt.want)
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("Quantile of nothing should be NaN")
	}
}
