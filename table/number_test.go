package table

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

func TestFormatters(t *testing.T) {
	tests := []struct{ got, want string }{
		{Duration(625.3), "625 ns"},
		{Duration(4056), "4.06 µs"},
		{Duration(359932), "360 µs"},
		{Duration(1.5e9), "1.50 s"},
		{Duration(0), "0"},
		{Int(400009), "400,009"},
		{Int(-1234567), "-1,234,567"},
		{Bytes(409), "409 B"},
		{Bytes(400009), "391 KiB"},
		{Pct(1.0225), "102.2%"},
		{Float(0.718), "0.718"},
		{Float(12.345), "12.3"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
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

// forked is a case measured in len(procs) processes, procs[f] the ns/op
// of process f's samples, each multiplied by k.
func forked(k float64, procs ...[]float64) *results.Case {
	c := &results.Case{Workload: "w", Name: "N", Status: results.StatusOK}
	for f, ns := range procs {
		for _, v := range ns {
			c.Samples = append(c.Samples, results.Sample{Iters: 1, NsPerOp: k * v, Fork: f})
		}
	}
	c.Summarize()
	return c
}

// TestFasterNeverSameFarApart is the property the "~ same" verdict owes
// a reader: two subjects 100× apart never read "~ same", whatever the
// processes (2, 3 or 5), the samples each took (1 to 10) and the noise
// within and between processes; and no "~ same" cell, of any two
// subjects, sits on disjoint intervals.
func TestFasterNeverSameFarApart(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 1))
	noisy := func(k float64, forks, per int) *results.Case {
		procs := make([][]float64, forks)
		for f := range procs {
			shift := 1 + 0.6*(rng.Float64()-0.5) // a process's own state
			for range per {
				procs[f] = append(procs[f], 1000*shift*(1+0.2*rng.ExpFloat64()))
			}
		}
		return forked(k, procs...)
	}
	for _, forks := range []int{2, 3, 5} {
		for _, per := range []int{1, 2, 3, 5, 10} {
			for i := range 50 {
				a, b := noisy(1, forks, per), noisy(100, forks, per)
				for _, pair := range [][2]*results.Case{{a, b}, {b, a}} {
					if got := Faster(pair[0], pair[1]).String(); strings.HasPrefix(got, "~ same") {
						t.Fatalf("%d forks × %d samples, trial %d: 100× apart rendered %q", forks, per, i, got)
					}
				}
				// Two subjects close together: "~ same" only on overlapping intervals.
				c := noisy(1+0.3*rng.Float64(), forks, per)
				if got := Faster(a, c).String(); got == "~ same" {
					sa, _ := a.Stat(results.UnitNsPerOp)
					sc, _ := c.Stat(results.UnitNsPerOp)
					if sa.Hi < sc.Lo || sc.Hi < sa.Lo {
						t.Fatalf("%d forks × %d samples, trial %d: \"~ same\" on disjoint intervals %v and %v", forks, per, i, sa, sc)
					}
				}
			}
		}
	}
}

func TestFaster(t *testing.T) {
	tests := []struct {
		name    string
		c, base *results.Case
		want    string
	}{
		{"clearly faster", caseWith(50, 51, 49, 50, 50), caseWith(100, 101, 99, 100, 100), "2.00× faster"},
		{"clearly slower", caseWith(300, 301, 299, 300, 300), caseWith(100, 101, 99, 100, 100), "3.00× slower"},
		{"overlapping", caseWith(100, 103, 98, 101, 99), caseWith(101, 99, 100, 102, 98), "~ same"},
		{"too few samples", caseWith(50, 51, 49), caseWith(100, 101, 99), "2.00× faster (n too small: 3 samples)"},
		{"too few processes", forked(1, []float64{50, 51}, []float64{49, 50}), forked(1, []float64{100, 101}, []float64{99, 100}), "2.00× faster (n too small: 2 processes)"},
		{"every process agrees", forked(1, []float64{50, 51, 49, 50, 52}, []float64{49, 50, 48, 51, 50}), forked(1, []float64{100, 101, 99, 102, 98}, []float64{99, 100, 101, 98, 97}), "1.99× faster"},
		{"processes quiet", forked(1, []float64{100, 103, 98, 101, 99}, []float64{100, 102, 98, 101, 97}), forked(1, []float64{101, 99, 100, 102, 98}, []float64{99, 101, 100, 98, 103}), "~ same"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Faster(tt.c, tt.base).String(); got != tt.want {
				t.Errorf("Faster = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParetoFront(t *testing.T) {
	pts := []Point{{X: 1, Y: 10}, {X: 2, Y: 5}, {X: 3, Y: 6}, {X: 4, Y: 1}, {X: 5, Y: 1}}
	got := ParetoFront(pts)
	want := []int{0, 1, 3}
	if len(got) != len(want) {
		t.Fatalf("front %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("front %v, want %v", got, want)
		}
	}
}

func TestWithCIAndCount(t *testing.T) {
	tests := []struct {
		s    results.Stat
		want string
	}{
		{results.Stat{Median: 100, Lo: 98, Hi: 104, N: 10}, "100 ns ±4%"},
		{results.Stat{Median: 100, Lo: 40, Hi: 1080, N: 10}, "100 ns (40.0 ns … 1.08 µs)"},
		{results.Stat{Median: 100, Lo: 100, Hi: 100, N: 1}, "100 ns (n=1)"},
		{results.Stat{Median: 100, Lo: 98, Hi: 104, N: 2}, "100 ns ±4% (n=2)"},
		{results.Stat{Median: 100, Lo: 98, Hi: 104, N: 3}, "100 ns ±4%"},
	}
	for _, tt := range tests {
		if got := WithCI(tt.s, Duration); got != tt.want {
			t.Errorf("WithCI(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
	for v, want := range map[float64]string{61: "61", 0.5: "0.5", 1234: "1,234", 2.25: "2.25"} {
		if got := Count(v); got != want {
			t.Errorf("Count(%v) = %q, want %q", v, got, want)
		}
	}
}
