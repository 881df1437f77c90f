package table

import (
	"math"
	"sort"
	"strings"

	"github.com/serbench/serbench/results"
)

// Claim is the verdict on a claim a seed report makes, checked against
// this run: Held, NotHeld or Inconclusive. It is decided from intervals,
// never from medians alone: two medians in one order say nothing when the
// intervals around them overlap, and a run must not refute (or confirm) a
// claim on a difference its own noise could have made. The zero value is
// Inconclusive, so a claim nothing was found for is never held.
type Claim uint8

// The verdicts on a claim.
const (
	// Inconclusive: this run neither bears the claim out nor refutes it:
	// the intervals overlap (or touch), or a value has too few samples
	// for an interval.
	Inconclusive Claim = iota
	// Held: the intervals bear the claim out.
	Held
	// NotHeld: the intervals lie clearly on the other side.
	NotHeld
)

// String writes the verdict as findings show it: "**held**", "**not
// held**", "inconclusive" (unbolded: it is no answer, and the report's
// answer block picks its lines by bold).
func (c Claim) String() string {
	switch c {
	case Held:
		return "**held**"
	case NotHeld:
		return "**not held**"
	default:
		return "inconclusive"
	}
}

// Word is the verdict without emphasis, for a table cell: "held", "not
// held", "inconclusive".
func (c Claim) Word() string { return strings.Trim(c.String(), "*") }

// Decided is the verdict on a claim about exact values (a file's size, a
// format's header): Held when ok, NotHeld otherwise. Only a fact without
// noise is decided this way; a measured one goes through its interval.
func Decided(ok bool) Claim {
	if ok {
		return Held
	}
	return NotHeld
}

// All is the verdict on a claim made of parts that must all hold ("the
// fastest of five" is "faster than each of four"): NotHeld when any part
// is, Held when every part is, Inconclusive otherwise and for no parts.
func All(parts ...Claim) Claim {
	if len(parts) == 0 {
		return Inconclusive
	}
	out := Held
	for _, p := range parts {
		switch p {
		case NotHeld:
			return NotHeld
		case Inconclusive:
			out = Inconclusive
		}
	}
	return out
}

// Interval is a value with the range this run places it in: a median with
// its confidence interval [Lo, Hi] over N samples, or an exact value (a
// size measured once, a seed's figure) with Lo = Hi = V. The zero
// Interval is an unknown value.
type Interval struct {
	V, Lo, Hi float64
	// N is the number of samples behind a median (0 for an exact value).
	N int
	// Exact marks a value without noise.
	Exact bool
}

// Exactly is the exact value v.
func Exactly(v float64) Interval { return Interval{V: v, Lo: v, Hi: v, Exact: true} }

// StatInterval is the median of s with its interval.
func StatInterval(s results.Stat) Interval {
	return Interval{V: s.Median, Lo: s.Lo, Hi: s.Hi, N: s.N}
}

// IntervalOf is c's unit as an Interval: the median of its samples with
// their confidence interval, or the fixed metric of that name (measured
// once, such as a file's size) as an exact value; the zero Interval when
// c is nil, was not measured or has neither.
func IntervalOf(c *results.Case, unit string) Interval {
	if c == nil || !c.OK() {
		return Interval{}
	}
	if s, ok := c.Stat(unit); ok {
		return StatInterval(s)
	}
	if v, ok := c.Metrics[unit]; ok {
		return Exactly(v)
	}
	return Interval{}
}

// Known reports whether iv can decide a claim: an exact value, or a
// median of at least FewSamples samples with its interval. A median of
// one or two samples has no interval worth the name (one is that sample;
// two give [min, max] at 50% confidence), the rule by which tables mark
// such values (SamplesNote).
func (iv Interval) Known() bool {
	if math.IsNaN(iv.V) || math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) || iv.Lo > iv.Hi {
		return false
	}
	return iv.Exact || iv.N >= FewSamples
}

// Scale is iv times k (k > 0): a time per op as a time per row, bytes
// as MiB.
func (iv Interval) Scale(k float64) Interval {
	iv.V, iv.Lo, iv.Hi = iv.V*k, iv.Lo*k, iv.Hi*k
	return iv
}

// Inverse is 1 ÷ iv (a rate from a time, "n× faster" from a ratio); the
// zero Interval when iv reaches zero.
func (iv Interval) Inverse() Interval {
	if !(iv.Lo > 0) {
		return Interval{}
	}
	return Interval{V: 1 / iv.V, Lo: 1 / iv.Hi, Hi: 1 / iv.Lo, N: iv.N, Exact: iv.Exact}
}

// Quotient is a ÷ b for two independent intervals: V = a.V ÷ b.V and
// the widest range the two allow, [a.Lo ÷ b.Hi, a.Hi ÷ b.Lo], which
// contains 1 exactly when a's and b's intervals overlap. It counts the
// fewer of their samples and is exact when both are; the zero Interval
// when b reaches zero or a is negative.
func Quotient(a, b Interval) Interval {
	if !(b.Lo > 0) || a.Lo < 0 {
		return Interval{}
	}
	n := min(a.N, b.N)
	switch {
	case a.Exact:
		n = b.N
	case b.Exact:
		n = a.N
	}
	return Interval{V: a.V / b.V, Lo: a.Lo / b.Hi, Hi: a.Hi / b.Lo, N: n, Exact: a.Exact && b.Exact}
}

// Text writes iv with f as a claim's line quotes it: "210 ms (198 …
// 224)", the bounds without the median's unit when they share it; an
// exact value alone ("409 B"); a median of too few samples with its
// count, "1.57 s (n=1)"; "–" for an unknown value.
func (iv Interval) Text(f func(float64) string) string {
	switch {
	case iv.Exact:
		return f(iv.V)
	case iv.N == 0 || math.IsNaN(iv.V):
		return "–"
	case !iv.Known():
		return f(iv.V) + " (" + SamplesNote(iv.N) + ")"
	}
	v, lo, hi := f(iv.V), f(iv.Lo), f(iv.Hi)
	if u := unitOf(v); u != "" && strings.HasSuffix(lo, u) && strings.HasSuffix(hi, u) {
		lo, hi = strings.TrimSuffix(lo, u), strings.TrimSuffix(hi, u)
	}
	return v + " (" + lo + " … " + hi + ")"
}

// ClaimTime is c's time as a claim's line quotes it: its median ns/op
// with its interval ("210 ms (198 … 224)", Interval.Text).
func ClaimTime(c *results.Case) string {
	return IntervalOf(c, results.UnitNsPerOp).Text(Duration)
}

// ExactBytes writes a size measured once, exactly, as seeds quote sizes:
// "400,009 B".
func ExactBytes(b float64) string { return Int(b) + " B" }

// unitOf is the unit a formatted number ends with: " ms" in "210 ms",
// "×" in "0.52×"; "" when it has none.
func unitOf(s string) string {
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		return s[i:]
	}
	if strings.HasSuffix(s, "×") {
		return "×"
	}
	return ""
}

// Below is the verdict on "a is less than b" (faster, smaller, fewer):
// Held when a's interval lies entirely below b's, NotHeld when it lies
// entirely above it, Inconclusive when the two overlap or touch, or when
// either is not Known. Between exact values it is decided: a < b or not.
func Below(a, b Interval) Claim {
	switch {
	case !a.Known() || !b.Known():
		return Inconclusive
	case a.Exact && b.Exact:
		return Decided(a.V < b.V)
	case a.Hi < b.Lo:
		return Held
	case b.Hi < a.Lo:
		return NotHeld
	}
	return Inconclusive
}

// Within is the verdict on "iv lies in [lo, hi]" (a seed's range, or a
// band around a seed's figure): Held when iv's interval lies inside it,
// NotHeld when it lies entirely outside, Inconclusive when it reaches
// across an edge or is not Known. An exact value is decided.
func Within(iv Interval, lo, hi float64) Claim {
	switch {
	case !iv.Known():
		return Inconclusive
	case iv.Lo >= lo && iv.Hi <= hi:
		return Held
	case iv.Hi < lo || iv.Lo > hi:
		return NotHeld
	}
	return Inconclusive
}

// Lowest is the verdict on "claimed is the least of others" (the
// smallest file, the fastest of a set): Held when its interval lies below
// every other's, NotHeld when some other's lies entirely below it,
// Inconclusive otherwise and when there are no others.
func Lowest(claimed Interval, others []Interval) Claim {
	parts := make([]Claim, len(others))
	for i, o := range others {
		parts[i] = Below(claimed, o)
	}
	return All(parts...)
}

// Rival is the index among others of the one a verdict v of Lowest on
// claimed rests on, to quote beside it: for Held the least of them by
// median (the closest), otherwise the least by median whose own
// comparison with claimed is v (one that refutes the claim, or one that
// leaves it open); -1 when there is none.
func Rival(claimed Interval, others []Interval, v Claim) int {
	best := -1
	for i, o := range others {
		if v != Held && Below(claimed, o) != v {
			continue
		}
		if best < 0 || o.V < others[best].V {
			best = i
		}
	}
	return best
}

// Sum is a + b for two independent intervals (a write and a read, for a
// round trip): the sums of their medians and of their bounds, which holds
// the sum whenever each holds its part. It counts the fewer of their
// samples and is exact when both are.
func Sum(a, b Interval) Interval {
	n := min(a.N, b.N)
	switch {
	case a.Exact:
		n = b.N
	case b.Exact:
		n = a.N
	}
	return Interval{V: a.V + b.V, Lo: a.Lo + b.Lo, Hi: a.Hi + b.Hi, N: n, Exact: a.Exact && b.Exact}
}

// Unsettled says why a verdict is Inconclusive, for the claim's line:
// "n=1: too few samples for an interval" when one of ivs is not Known (the
// fewest samples named), "the intervals overlap" otherwise; "" for a
// verdict that is not Inconclusive.
func Unsettled(c Claim, ivs ...Interval) string {
	if c != Inconclusive {
		return ""
	}
	fewest := -1
	for _, iv := range ivs {
		if !iv.Known() && (fewest < 0 || iv.N < fewest) {
			fewest = iv.N
		}
	}
	switch {
	case fewest > 0:
		return SamplesNote(fewest) + ": too few samples for an interval"
	case fewest == 0:
		return "a value is missing"
	}
	return "the intervals overlap"
}

// TimeRatio is a's time (ns/op) over b's with its interval. When a and b
// were sampled in one comparison group it is the median, over a's
// samples, of each sample over b's median in the same round (and
// process), as the tables' in-round ratios are: drift of the machine
// between rounds cancels out of it. Otherwise (or with fewer than
// FewSamples such pairs) it is the Quotient of their ns/op intervals.
// inRound says which. The zero Interval when either case
// has no time.
func TimeRatio(a, b *results.Case) (r Interval, inRound bool) {
	if a == nil || b == nil || !a.OK() || !b.OK() {
		return Interval{}, false
	}
	if rs := pairedRatios(a, b); len(rs) >= FewSamples {
		return StatInterval(results.Summarize(rs)), true
	}
	return Quotient(IntervalOf(a, results.UnitNsPerOp), IntervalOf(b, results.UnitNsPerOp)), false
}

// pairedRatios are a's samples over b's median ns/op of the same round
// and process, when a and b are of one comparison group; nil otherwise.
func pairedRatios(a, b *results.Case) []float64 {
	if a.Group == "" || a.Group != b.Group || a == b {
		return nil
	}
	type round struct{ fork, round int }
	of := map[round][]float64{}
	for _, s := range b.Samples {
		if s.Round > 0 && s.NsPerOp > 0 {
			k := round{s.Fork, s.Round}
			of[k] = append(of[k], s.NsPerOp)
		}
	}
	var out []float64
	for _, s := range a.Samples {
		if ns := of[round{s.Fork, s.Round}]; s.Round > 0 && len(ns) > 0 && s.NsPerOp > 0 {
			out = append(out, s.NsPerOp/middle(ns))
		}
	}
	return out
}

// middle is the median of vs (which it sorts).
func middle(vs []float64) float64 {
	sort.Float64s(vs)
	if n := len(vs); n%2 == 0 {
		return (vs[n/2-1] + vs[n/2]) / 2
	}
	return vs[len(vs)/2]
}

// FasterThan is the verdict on "a is faster than b": Below(TimeRatio(a,
// b), 1) — Held when the ratio's interval lies entirely below 1, NotHeld
// when entirely above, Inconclusive when it contains 1 or has too few
// samples. It returns the ratio it judged.
func FasterThan(a, b *results.Case) (Claim, Interval) {
	r, _ := TimeRatio(a, b)
	return Below(r, Exactly(1)), r
}

// FastestOf is the verdict on "claimed is the fastest of others": Held
// when it is faster than each (FasterThan), NotHeld when any other is
// faster than it, Inconclusive otherwise and when there are no others.
// Nil cases among others are skipped. It also returns the other the
// verdict rests on, to quote beside it (nil when there is none): for Held
// the fastest of them by median, otherwise the fastest whose comparison
// with claimed gives the verdict.
func FastestOf(claimed *results.Case, others []*results.Case) (Claim, *results.Case) {
	var parts []Claim
	var kept []*results.Case
	for _, o := range others {
		if o != nil && o != claimed {
			v, _ := FasterThan(claimed, o)
			parts, kept = append(parts, v), append(kept, o)
		}
	}
	v := All(parts...)
	var rival *results.Case
	for i, o := range kept {
		if (v == Held || parts[i] == v) && (rival == nil || Ns(o) < Ns(rival)) {
			rival = o
		}
	}
	return v, rival
}

// SeedUnchecked is the finding of a seed claim this run could not
// check: "Seed: CLAIM (seed: FIGURE) — not checked here: WHY."
func SeedUnchecked(claim, figure, why string) string {
	return "Seed: " + claim + " (seed: " + figure + ") — not checked here: " + strings.TrimSuffix(why, ".") + "."
}

// SeedLine is the finding of one seed claim checked against this run:
// "Seed: CLAIM (seed: FIGURE) — VERDICT here: EVIDENCE." The seed's own
// figure stands beside this run's so a reader can weigh the two.
func SeedLine(claim, figure string, v Claim, evidence string) string {
	return "Seed: " + claim + " (seed: " + figure + ") — " + v.String() + " here: " + strings.TrimSuffix(evidence, ".") + "."
}
