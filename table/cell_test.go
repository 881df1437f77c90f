package table

import (
	"testing"

	"github.com/serbench/serbench/results"
)

func TestMinP(t *testing.T) {
	tests := []struct {
		n1, n2   int
		want     float64
		testable bool
	}{
		{0, 5, 1, false},
		{1, 1, 1, false},
		{1, 2, 2.0 / 3, false},
		{2, 2, 1.0 / 3, false},
		{3, 3, 0.1, false},
		{3, 4, 2.0 / 35, false},
		{4, 4, 2.0 / 70, true},
		{2, 10, 2.0 / 66, true},
		{20, 20, 2 / 137846528820.0, true},
	}
	for _, tt := range tests {
		got := MinP(tt.n1, tt.n2)
		if d := got - tt.want; d > 1e-12 || d < -1e-12 {
			t.Errorf("MinP(%d, %d) = %v, want %v", tt.n1, tt.n2, got, tt.want)
		}
		if testable(tt.n1, tt.n2) != tt.testable {
			t.Errorf("testable(%d, %d) = %v, want %v", tt.n1, tt.n2, !tt.testable, tt.testable)
		}
	}
	for alpha, want := range map[float64]int{0.05: 4, 0.1: 3, 0.01: 5, 0.5: 2} {
		if got := MinSamples(alpha); got != want {
			t.Errorf("MinSamples(%v) = %d, want %d", alpha, got, want)
		}
	}
}

func TestFewSampleCells(t *testing.T) {
	ratio := func(ns ...float64) *results.Case {
		c := caseWith(ns...)
		for i := range c.Samples {
			c.Samples[i].VsLimit = 3
		}
		c.Summarize()
		return c
	}
	noisy2 := caseWith(10e6, 16.9e6)
	tests := []struct {
		name, got, want string
	}{
		{"NsCell n=1", Time(caseWith(1.57e9)).String(), "1.57 s (n=1)"},
		{"TimeCell n=1", Time(caseWith(1.57e9)).String(), "1.57 s (n=1)"},
		{"NsCell n=2 noisy", Time(noisy2).String(), "13.4 ms ±26% (n=2, noisy)"},
		{"TimeCell n=2 noisy", Time(noisy2).String(), "13.4 ms ±26% (n=2, noisy)"},
		{"NsCell n=2", Time(caseWith(100, 101)).String(), "100 ns ±0% (n=2)"},
		{"NsCell n=3", Time(caseWith(100, 101, 100)).String(), "100 ns ±1%"},
		{"NsCell noisy n=3", Time(caseWith(100, 150, 120)).String(), "120 ns ±25% (noisy)"},
		{"UnitCell MB/s n=1", Median(func() *results.Case { c := caseWith(1e6); c.BytesPerOp = 1 << 20; c.Summarize(); return c }(), results.UnitMBPerS, Plain).String(), "1,049 (n=1)"},
		{"UnitCell allocs n=1", Median(caseWith(1e6), results.UnitAllocsPerOp, CountF).String(), "0 (n=1)"},
		{"UnitCell fixed metric", Median(func() *results.Case { c := caseWith(1e6); c.Metrics = map[string]float64{"file-B": 409}; return c }(), "file-B", BytesF).String(), "409 B"},
		{"MemCell n=2", Mem(caseWith(1e6, 2e6)).String(), "0 / 0 (n=2)"},
		{"MemCell n=3", Mem(caseWith(1e6, 2e6, 1e6)).String(), "0 / 0"},
		{"RatioCell in-round n=2", Ratio(ratio(300, 301), results.UnitVsLimit, nil).String(), "3.00× ±0% (n=2)"},
		{"RatioCell of medians n=1", Ratio(caseWith(300), results.UnitVsLimit, caseWith(100, 100, 100)).String(), "3.00× (n=1)"},
		{"ratio of medians n=1", Ratio(caseWith(1.57e9), "", caseWith(16.9e6, 17e6, 16.8e6)).String(), "92.9× (n=1)"},
		{"ratio of medians n=3", Ratio(caseWith(2, 2, 2), "", caseWith(1, 1, 1)).String(), "2.00×"},
		{"SamplesMark n=1", "msgpack+zstd, " + Duration(1.57e9) + SamplesMark(caseWith(1.57e9)), "msgpack+zstd, 1.57 s (n=1)"},
		{"SamplesMark n=5", SamplesMark(caseWith(1, 2, 3, 4, 5)), ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
