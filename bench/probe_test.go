package bench

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/serbench/serbench/results"
)

func TestProberTick(t *testing.T) {
	tests := []struct {
		name  string
		every time.Duration
		ticks int
		want  int
	}{
		{"every call", 0, 4, 4},
		{"at most once an hour", time.Hour, 4, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []results.Probe
			p := &Prober{Every: tt.every, Sink: func(pr results.Probe) error { got = append(got, pr); return nil }}
			for range tt.ticks {
				if err := p.Tick(); err != nil {
					t.Fatal(err)
				}
			}
			if len(got) != tt.want {
				t.Fatalf("%d probes, want %d", len(got), tt.want)
			}
			for i, pr := range got {
				if !(pr.Ns > 0) || pr.Time.IsZero() || (i > 0 && pr.Time.Before(got[i-1].Time)) {
					t.Errorf("probe %d = %+v: want a positive time, taken after the one before", i, pr)
				}
			}
		})
	}
	var nilProber *Prober
	if err := nilProber.Tick(); err != nil {
		t.Errorf("nil Prober: %v", err)
	}
}

// TestProbeLoopIsAChain: every step feeds the next, so the loop's result
// depends on its length and seed (nothing the compiler can fold away).
func TestProbeLoopIsAChain(t *testing.T) {
	seen := map[uint64]int{}
	for n := range 8 {
		v := probeLoop(n, 0)
		if m, ok := seen[v]; ok {
			t.Fatalf("probeLoop(%d) = probeLoop(%d) = %#x", n, m, v)
		}
		seen[v] = n
	}
	if probeLoop(1000, 1) != probeLoop(1000, 0) {
		t.Error("seeds 0 and 1 should start the same chain (the seed's low bit is forced)")
	}
	if probeLoop(1000, 2) == probeLoop(1000, 0) {
		t.Error("a different seed gave the same result")
	}
}

func TestRunAllProbesAndStopsOnSinkError(t *testing.T) {
	cases := []Case{
		{Workload: "t", Name: "A", Verify: func() error { return nil }, Run: func(b *B) error { return nil }, Count: 1},
		{Workload: "t", Name: "B", Verify: func() error { return nil }, Run: func(b *B) error { return nil }, Count: 1},
	}
	n := 0
	opts := Options{Count: 1, SampleTime: time.Millisecond, Probe: &Prober{Sink: func(results.Probe) error { n++; return nil }}}
	if err := RunAll(context.Background(), cases, opts, nil, func(results.Case) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("%d probes, want 3: one before each of two cases and one at the end", n)
	}
	boom := errors.New("disk full")
	opts.Probe = &Prober{Sink: func(results.Probe) error { return boom }}
	if err := RunAll(context.Background(), cases, opts, nil, func(results.Case) error { return nil }); !errors.Is(err, boom) {
		t.Errorf("RunAll = %v, want the sink's error", err)
	}
}

// TestMemChaseIsOneCycle: following the buffer's links from any line
// visits every line once before it returns, so a probe's loads never
// settle into a short loop that the caches would hold.
func TestMemChaseIsOneCycle(t *testing.T) {
	m := newMemChase()
	if m == nil {
		t.Skip("no anonymous mappings on this system")
	}
	defer m.close()
	seen := make([]bool, m.lines)
	p := uint32(0)
	for i := uint32(0); i < m.lines; i++ {
		if seen[p] {
			t.Fatalf("line %d visited twice after %d steps of %d", p, i, m.lines)
		}
		seen[p] = true
		p = m.next(p)
	}
	if p != 0 {
		t.Fatalf("after %d steps the chase is at line %d, want back at 0", m.lines, p)
	}
}

// TestProberMemoryTime: on systems with anonymous mappings a probe
// carries a memory time once the buffer has settled (not before), and
// Close releases the buffer for the next Tick to map again.
func TestProberMemoryTime(t *testing.T) {
	if m := newMemChase(); m == nil {
		t.Skip("no anonymous mappings on this system")
	} else if err := m.close(); err != nil {
		t.Fatal(err)
	}
	var got []results.Probe
	p := &Prober{Sink: func(pr results.Probe) error { got = append(got, pr); return nil }}
	tick := func() {
		t.Helper()
		if err := p.Tick(); err != nil {
			t.Fatal(err)
		}
	}
	tick()
	if got[0].MemNs != 0 {
		t.Errorf("the first probe after setting up the buffer has memory time %v, want none (not settled)", got[0].MemNs)
	}
	p.memFrom = time.Now() // as if memSettle had passed
	tick()
	if !(got[1].MemNs > 0) {
		t.Errorf("a settled probe has no memory time: %+v", got[1])
	}
	for range 2 {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	tick()
	if got[2].MemNs != 0 || p.mem == nil {
		t.Errorf("after Close, Tick should map a new buffer and wait for it to settle: %+v", got[2])
	}
	// NoMemory (a workload measuring its own RSS): Close, then no buffer
	// and no memory time.
	p.NoMemory = true
	if err := p.Close(); err != nil {
		t.Error(err)
	}
	p.memFrom = time.Time{}
	tick()
	if got[3].MemNs != 0 || p.mem != nil {
		t.Errorf("with NoMemory a probe mapped a buffer or took a memory time: %+v", got[3])
	}
}
