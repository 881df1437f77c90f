package report

import (
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

func TestCompare(t *testing.T) {
	mk := func(ns ...float64) *results.Run {
		c := caseWith(ns...)
		return &results.Run{Cases: []results.Case{*c}}
	}
	ds := Compare(mk(100, 101, 99, 100, 100), mk(150, 151, 149, 150, 150), CompareOptions{})
	if len(ds) == 0 || ds[0].Unit != results.UnitNsPerOp || !ds[0].Significant || ds[0].Change < 0.49 || ds[0].Change > 0.51 {
		t.Fatalf("deltas %+v", ds)
	}
	ds = Compare(mk(100, 101, 99, 100, 100), mk(100, 102, 98, 101, 99), CompareOptions{})
	if ds[0].Significant {
		t.Errorf("overlapping samples judged significant: p=%v", ds[0].P)
	}
}

// TestCompareByProcess: two cases measured in several processes are
// compared by their processes' medians, not by their pooled samples.
func TestCompareByProcess(t *testing.T) {
	// forked builds a case whose fork k took the samples procs[k-1].
	forked := func(procs ...[]float64) *results.Run {
		c := caseWith()
		for k, ns := range procs {
			for _, v := range ns {
				s := results.Sample{Iters: 1, NsPerOp: v}
				if len(procs) > 1 {
					s.Fork = k + 1
				}
				c.Samples = append(c.Samples, s)
			}
		}
		c.Summarize()
		return &results.Run{Cases: []results.Case{*c}}
	}
	fast, slow := []float64{100, 101, 99, 100, 102}, []float64{107, 108, 106, 107, 109}
	cat := func(parts ...[]float64) []float64 {
		var out []float64
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name      string
		old, new  *results.Run
		byProcess bool
		n         int
		sig       bool
	}{
		// Two of new's three processes landed 7% slower. Pooled (15
		// against 15 samples) a rank test calls it significant; by process
		// (3 against 3) it is not.
		{"pooled samples", forked(cat(fast, fast, fast)), forked(cat(fast, slow, slow)), false, 15, true},
		{"three forks each", forked(fast, fast, fast), forked(fast, slow, slow), true, 3, false},
		// A real change moves every process: four against four separate.
		{"a change in every fork", forked(fast, fast, fast, fast), forked(slow, slow, slow, slow), true, 4, true},
		// One side forked, the other not: samples it is.
		{"forked against one process", forked(fast, fast), forked(cat(slow, slow)), false, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := Compare(tt.old, tt.new, CompareOptions{})
			d := ds[0]
			if d.Unit != results.UnitNsPerOp || d.ByProcess != tt.byProcess || d.N1 != tt.n || d.Significant != tt.sig {
				t.Errorf("got by process %v, n %d+%d, significant %v (p=%.3f); want %v, %d, %v", d.ByProcess, d.N1, d.N2, d.Significant, d.P, tt.byProcess, tt.n, tt.sig)
			}
			c := NewComparison("old", "new", tt.old, tt.new, CompareOptions{})
			var b strings.Builder
			if err := c.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "processes"); got != tt.byProcess {
				t.Errorf("text names processes: %v, want %v:\n%s", got, tt.byProcess, b.String())
			}
		})
	}
}

func TestInline(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a **b** c", "a <b>b</b> c"},
		{"use `x<y`", "use <code>x&lt;y</code>"},
		{"lone ` mark", "lone ` mark"},
	}
	for _, tt := range tests {
		if got := inline(tt.in); got != tt.want {
			t.Errorf("inline(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func caseWith(ns ...float64) *results.Case {
	c := &results.Case{Workload: "w", Name: "N", Status: results.StatusOK}
	for _, v := range ns {
		c.Samples = append(c.Samples, results.Sample{Iters: 1, NsPerOp: v})
	}
	c.Summarize()
	return c
}
