package table

import (
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

func TestFaster(t *testing.T) {
	tests := []struct {
		name    string
		c, base *results.Case
		want    string
	}{
		{"clearly faster", caseWith(50, 51, 49, 50, 50), caseWith(100, 101, 99, 100, 100), "2.00× faster"},
		{"clearly slower", caseWith(300, 301, 299, 300, 300), caseWith(100, 101, 99, 100, 100), "3.00× slower"},
		{"overlapping", caseWith(100, 103, 98, 101, 99), caseWith(101, 99, 100, 102, 98), "~ same"},
		{"too few samples", caseWith(50, 51, 49), caseWith(100, 101, 99), "2.00× faster (too few samples to test)"},
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
