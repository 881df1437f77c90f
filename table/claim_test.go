package table

import (
	"testing"

	"github.com/serbench/serbench/results"
)

// iv is a median of n samples with its interval.
func iv(v, lo, hi float64, n int) Interval { return Interval{V: v, Lo: lo, Hi: hi, N: n} }

func TestBelow(t *testing.T) {
	tests := []struct {
		name string
		a, b Interval
		want Claim
	}{
		{"disjoint below", iv(10, 9, 11, 5), iv(20, 19, 21, 5), Held},
		{"disjoint above", iv(20, 19, 21, 5), iv(10, 9, 11, 5), NotHeld},
		{"overlapping", iv(10, 9, 15, 5), iv(12, 11, 13, 5), Inconclusive},
		{"one inside the other", iv(10, 5, 30, 5), iv(12, 11, 13, 5), Inconclusive},
		{"touching", iv(10, 9, 11, 5), iv(12, 11, 13, 5), Inconclusive},
		{"medians apart, intervals overlap", iv(10, 9, 25, 5), iv(20, 19, 21, 5), Inconclusive},
		{"n=1: no interval", iv(10, 10, 10, 1), iv(1000, 990, 1010, 5), Inconclusive},
		{"n=1 both", iv(10, 10, 10, 1), iv(1000, 1000, 1000, 1), Inconclusive},
		{"n=2: too few", iv(10, 9, 11, 2), iv(1000, 990, 1010, 5), Inconclusive},
		{"n=3 is enough", iv(10, 9, 11, 3), iv(1000, 990, 1010, 3), Held},
		{"unknown value", Interval{}, iv(10, 9, 11, 5), Inconclusive},
		{"exact smaller", Exactly(409), Exactly(490), Held},
		{"exact equal", Exactly(409), Exactly(409), NotHeld},
		{"exact larger", Exactly(491), Exactly(490), NotHeld},
		{"below an exact threshold", iv(0.6, 0.5, 0.7, 5), Exactly(1), Held},
		{"reaching an exact threshold", iv(0.9, 0.8, 1, 5), Exactly(1), Inconclusive},
		{"above an exact threshold", iv(1.2, 1.1, 1.3, 5), Exactly(1), NotHeld},
		{"inverted interval", iv(10, 11, 9, 5), iv(20, 19, 21, 5), Inconclusive},
	}
	for _, tt := range tests {
		if got := Below(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Below(%+v, %+v) = %v, want %v", tt.name, tt.a, tt.b, got, tt.want)
		}
	}
}

func TestWithin(t *testing.T) {
	const lo, hi = 2.07e6, 2.65e6
	tests := []struct {
		name string
		iv   Interval
		want Claim
	}{
		{"inside", iv(2.3e6, 2.2e6, 2.4e6, 10), Held},
		{"on the edges", iv(2.3e6, lo, hi, 10), Held},
		{"below", iv(1.5e6, 1.4e6, 1.6e6, 10), NotHeld},
		{"above", iv(3e6, 2.9e6, 3.1e6, 10), NotHeld},
		{"across the lower edge", iv(2.1e6, 2e6, 2.2e6, 10), Inconclusive},
		{"across the upper edge", iv(2.6e6, 2.5e6, 2.7e6, 10), Inconclusive},
		{"wider than the range", iv(2.3e6, 1e6, 4e6, 10), Inconclusive},
		{"median outside, interval touching", iv(2.0e6, 1.9e6, lo, 10), Inconclusive},
		{"n=1", iv(2.3e6, 2.3e6, 2.3e6, 1), Inconclusive},
		{"exact inside", Exactly(2.3e6), Held},
		{"exact outside", Exactly(1e6), NotHeld},
	}
	for _, tt := range tests {
		if got := Within(tt.iv, lo, hi); got != tt.want {
			t.Errorf("%s: Within(%+v) = %v, want %v", tt.name, tt.iv, got, tt.want)
		}
	}
}

func TestAllAndLowest(t *testing.T) {
	tests := []struct {
		name string
		got  Claim
		want Claim
	}{
		{"all held", All(Held, Held), Held},
		{"one not held wins", All(Held, Inconclusive, NotHeld), NotHeld},
		{"one inconclusive", All(Held, Inconclusive, Held), Inconclusive},
		{"nothing", All(), Inconclusive},
		{"lowest of disjoint", Lowest(iv(1, 0.9, 1.1, 5), []Interval{iv(2, 1.9, 2.1, 5), iv(3, 2.9, 3.1, 5)}), Held},
		{"lowest, one overlaps", Lowest(iv(1, 0.9, 1.1, 5), []Interval{iv(2, 1.9, 2.1, 5), iv(1.2, 1, 1.4, 5)}), Inconclusive},
		{"lowest, another disjointly lower", Lowest(iv(1, 0.9, 1.1, 5), []Interval{iv(1.2, 1, 1.4, 5), iv(0.5, 0.4, 0.6, 5)}), NotHeld},
		{"lowest, another lower on one sample only", Lowest(iv(1, 0.9, 1.1, 5), []Interval{iv(0.5, 0.5, 0.5, 1)}), Inconclusive},
		{"lowest of none", Lowest(iv(1, 0.9, 1.1, 5), nil), Inconclusive},
		{"decided", Decided(true), Held},
		{"decided false", Decided(false), NotHeld},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestRivalAndSum(t *testing.T) {
	claimed := iv(1, 0.9, 1.1, 5)
	others := []Interval{iv(3, 2.9, 3.1, 5), iv(2, 1.9, 2.1, 5), iv(0.5, 0.4, 0.6, 5), iv(1.05, 1, 1.2, 5), iv(0.4, 0.4, 0.4, 1)}
	for _, tt := range []struct {
		name   string
		others []Interval
		v      Claim
		want   int
	}{
		{"held: the closest", others[:2], Held, 1},
		{"not held: the fastest that refutes", others, NotHeld, 2},
		{"inconclusive: the fastest that leaves it open", others, Inconclusive, 4},
		{"none", nil, Held, -1},
	} {
		if got := Rival(claimed, tt.others, tt.v); got != tt.want {
			t.Errorf("%s: Rival = %d, want %d", tt.name, got, tt.want)
		}
	}
	if s := Sum(iv(1, 0.5, 2, 5), iv(10, 9, 12, 3)); s != (Interval{V: 11, Lo: 9.5, Hi: 14, N: 3}) {
		t.Errorf("Sum = %+v", s)
	}
	if s := Sum(Exactly(1), iv(10, 9, 12, 3)); s.N != 3 || s.Exact || s.Lo != 10 {
		t.Errorf("Sum with an exact value = %+v", s)
	}
	if got := SeedUnchecked("fastest read: FlatBuffers", "0.07 s", "no flatbuffers pair was measured."); got != "Seed: fastest read: FlatBuffers (seed: 0.07 s) — not checked here: no flatbuffers pair was measured." {
		t.Errorf("SeedUnchecked = %q", got)
	}
}

func TestIntervalArithmeticAndText(t *testing.T) {
	q := Quotient(iv(10, 8, 12, 5), iv(20, 16, 24, 4))
	if q.V != 0.5 || q.Lo != 8.0/24 || q.Hi != 12.0/16 || q.N != 4 || q.Exact {
		t.Errorf("Quotient = %+v", q)
	}
	if q := Quotient(Exactly(409), Exactly(490)); !q.Exact || q.V != 409.0/490 {
		t.Errorf("Quotient of exact values = %+v", q)
	}
	if q := Quotient(iv(10, 8, 12, 5), iv(0, 0, 1, 5)); q.Known() {
		t.Errorf("Quotient by an interval reaching 0 = %+v, want unknown", q)
	}
	if r := iv(4, 2, 8, 5).Inverse(); r.V != 0.25 || r.Lo != 0.125 || r.Hi != 0.5 {
		t.Errorf("Inverse = %+v", r)
	}
	if s := iv(4, 2, 8, 5).Scale(2); s.V != 8 || s.Lo != 4 || s.Hi != 16 || s.N != 5 {
		t.Errorf("Scale = %+v", s)
	}
	for _, tt := range []struct {
		iv   Interval
		want string
	}{
		{iv(210e6, 198e6, 224e6, 10), "210 ms (198 … 224)"},
		{iv(999e3, 990e3, 1.2e6, 10), "999 µs (990 µs … 1.20 ms)"},
		{iv(0.5, 0.25, 0.75, 10), "0.5 (0.25 … 0.75)"},
		{iv(1.57e9, 1.57e9, 1.57e9, 1), "1.57 s (n=1)"},
		{iv(20e6, 19e6, 21e6, 2), "20.0 ms (n=2)"},
		{Exactly(409), "409 ns"},
		{Interval{}, "–"},
	} {
		f := Duration
		if tt.iv.V < 1 {
			f = Float
		}
		if got := tt.iv.Text(f); got != tt.want {
			t.Errorf("Text(%+v) = %q, want %q", tt.iv, got, tt.want)
		}
	}
	for _, tt := range []struct {
		c    Claim
		ivs  []Interval
		want string
	}{
		{Inconclusive, []Interval{iv(1, 0.9, 1.1, 5), iv(1, 0.9, 1.1, 5)}, "the intervals overlap"},
		{Inconclusive, []Interval{iv(1, 1, 1, 1), iv(1, 0.9, 1.1, 2)}, "n=1: too few samples for an interval"},
		{Inconclusive, []Interval{{}, iv(1, 0.9, 1.1, 5)}, "a value is missing"},
		{Held, []Interval{iv(1, 1, 1, 1)}, ""},
	} {
		if got := Unsettled(tt.c, tt.ivs...); got != tt.want {
			t.Errorf("Unsettled(%v, %v) = %q, want %q", tt.c, tt.ivs, got, tt.want)
		}
	}
	if got := iv(0.52, 0.5, 0.55, 5).Text(Times); got != "0.52× (0.5 … 0.55)" {
		t.Errorf("Text(Times) = %q", got)
	}
	if got := (Held).Word() + "/" + NotHeld.Word() + "/" + Inconclusive.Word(); got != "held/not held/inconclusive" {
		t.Errorf("Word = %q", got)
	}
	want := "Seed: fastest read FlatBuffers (seed: 0.07 s) — inconclusive here: flatbuffers 210 ms vs msgpack 205 ms; the intervals overlap."
	if got := SeedLine("fastest read FlatBuffers", "0.07 s", Inconclusive, "flatbuffers 210 ms vs msgpack 205 ms; the intervals overlap."); got != want {
		t.Errorf("SeedLine = %q\nwant        %q", got, want)
	}
}

// grouped is a case of comparison group g with one sample per round of
// the given times.
func grouped(name, g string, ns ...float64) *results.Case {
	c := &results.Case{Labels: results.Labels{{Key: "subject", Value: name}}, Group: g, Status: results.StatusOK}
	for i, v := range ns {
		c.Samples = append(c.Samples, results.Sample{Iters: 1, NsPerOp: v, Round: i + 1})
	}
	c.Summarize()
	return c
}

// TestTimeRatioInRound checks that two cases of one group are compared
// round by round: a machine that drifts by 3× over the rounds makes
// their ns/op intervals overlap, but a is faster in every round.
func TestTimeRatioInRound(t *testing.T) {
	a := grouped("a", "g", 100, 200, 300, 150, 250)
	b := grouped("b", "g", 110, 220, 330, 165, 275)
	r, inRound := TimeRatio(a, b)
	if !inRound || r.N != 5 || r.Hi >= 1 {
		t.Fatalf("TimeRatio = %+v (in round %v), want an in-round ratio below 1", r, inRound)
	}
	if v, _ := FasterThan(a, b); v != Held {
		t.Errorf("FasterThan in round = %v, want held", v)
	}
	if v, _ := FasterThan(b, a); v != NotHeld {
		t.Errorf("FasterThan(b, a) in round = %v, want not held", v)
	}
	// The same samples measured apart: their intervals overlap.
	a.Group, b.Group = "", ""
	if v, r := FasterThan(a, b); v != Inconclusive || r.Lo > 1 || r.Hi < 1 {
		t.Errorf("FasterThan apart = %v (%+v), want inconclusive", v, r)
	}
	// One sample each: no interval, whatever the medians.
	one, other := grouped("a", "", 10), grouped("b", "", 1000)
	if v, _ := FasterThan(one, other); v != Inconclusive {
		t.Errorf("FasterThan n=1 = %v, want inconclusive", v)
	}
	if v, _ := FasterThan(nil, other); v != Inconclusive {
		t.Errorf("FasterThan of nil = %v, want inconclusive", v)
	}
	// The fastest of a set.
	c := grouped("c", "g", 50, 100, 150, 75, 125)
	a.Group, b.Group = "g", "g"
	for _, tt := range []struct {
		name    string
		claimed *results.Case
		others  []*results.Case
		want    Claim
		rival   string
	}{
		{"c fastest", c, []*results.Case{b, a, nil}, Held, "a"},
		{"a is not: c is faster", a, []*results.Case{b, c}, NotHeld, "c"},
		{"nothing to beat", c, nil, Inconclusive, ""},
		{"apart from a one-sample rival", c, []*results.Case{a, grouped("d", "", 1)}, Inconclusive, "d"},
	} {
		if got, rival := FastestOf(tt.claimed, tt.others); got != tt.want || (rival == nil) != (tt.rival == "") || rival != nil && rival.Labels.Get("subject") != tt.rival {
			t.Errorf("%s: FastestOf = %v, %v, want %v, %q", tt.name, got, rival, tt.want, tt.rival)
		}
	}
}
