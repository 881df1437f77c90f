package table

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/serbench/serbench/results"
)

// Duration formats nanoseconds with a unit that keeps 3–4 significant
// digits: "625 ns", "4.06 µs", "360 µs", "1.23 s".
func Duration(ns float64) string {
	switch a := math.Abs(ns); {
	case a >= 1 && a == math.Trunc(a) && isPow10(a):
		return durPow10(a)
	case a == 0:
		return "0"
	case a < 1e3:
		return sig(ns) + " ns"
	case a < 1e6:
		return sig(ns/1e3) + " µs"
	case a < 1e9:
		return sig(ns/1e6) + " ms"
	default:
		return sig(ns/1e9) + " s"
	}
}

// Bytes formats a byte count exactly below 10,000 and in binary units above.
func Bytes(b float64) string {
	switch a := math.Abs(b); {
	case a < 1e4:
		return Int(b) + " B"
	case a < 1<<20:
		return sig(b/1024) + " KiB"
	case a < 1<<30:
		return sig(b/(1<<20)) + " MiB"
	default:
		return sig(b/(1<<30)) + " GiB"
	}
}

// Int formats a number rounded to an integer with thousands separators.
func Int(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	// Formatted as a float: past int64's range (allocs/op of a huge
	// batch, a custom metric) a conversion to int64 would print garbage.
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	if s == "-0" {
		s = "0"
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Float formats with 3 significant digits (no exponent for usual ranges).
func Float(v float64) string { return sig(v) }

// Pct formats a fraction as a percentage with one decimal.
func Pct(frac float64) string { return strconv.FormatFloat(frac*100, 'f', 1, 64) + "%" }

func sig(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 1000:
		return Int(v)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// WideInterval is the relative half-width above which an interval is
// printed as its range ("12 ns (9.1 ns … 40 ns)") instead of "±x%": a
// "±980%" reads as nonsense, a range does not.
const WideInterval = 0.5

// FewSamples is the sample count below which a median is printed with its
// count: a median of one sample is that sample, one of two their mean —
// one cold sample (a busy machine, a slow op whose time budget allowed
// one) becomes the answer, and no interval or test can say so.
const FewSamples = 3

// SamplesNote is the one rule by which the report marks a value from few
// samples: "n=1" or "n=2" for n below FewSamples, "" otherwise (and for
// n = 0, a value that is no statistic). Every cell that prints a median —
// every Cell that holds a median, the side-by-side view and
// compare — asks it, so they agree.
func SamplesNote(n int) string {
	if n <= 0 || n >= FewSamples {
		return ""
	}
	return "n=" + strconv.Itoa(n)
}

// SamplesMark is SamplesNote for c's time, as a suffix: " (n=1)",
// " (n=2)" or "". Text that quotes a case's median outside a cell (a
// finding, a ranking) appends it, so a subject ranked on one sample says
// so.
func SamplesMark(c *results.Case) string {
	if c == nil {
		return ""
	}
	s, ok := c.Stat(results.UnitNsPerOp)
	if !ok {
		return ""
	}
	return mark(SamplesNote(s.N))
}

// FewNote is SamplesNote(n) to close a parenthesis with: ", n=1",
// ", n=2" or "".
func FewNote(n int) string {
	if s := SamplesNote(n); s != "" {
		return ", " + s
	}
	return ""
}

// FewNoteOf is FewNote for c's time.
func FewNoteOf(c *results.Case) string {
	if c == nil {
		return ""
	}
	s, _ := c.Stat(results.UnitNsPerOp)
	return FewNote(s.N)
}

// Ns is c's median time (ns/op); NaN when c is nil, failed or has none.
func Ns(c *results.Case) float64 {
	if c == nil || !c.OK() {
		return math.NaN()
	}
	if s, ok := c.Stat(results.UnitNsPerOp); ok && s.Median > 0 {
		return s.Median
	}
	return math.NaN()
}

// Plural writes n and what, plural unless n is 1: "1 case", "3 cases".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Met is the verdict on a goal: "met" when this run reaches it, "**not
// met**" otherwise.
func Met(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

// Ranked is a line of a finding and the measure it is ranked by (how far
// off a goal, how wide a spread).
type Ranked struct {
	Line string
	By   float64
}

// LargestFirst returns the lines of rs, largest By first (equal ones in
// order), at most n of them and, when there are more, a last line saying
// how many: fmt.Sprintf(more, the count left off) ("%d more").
func LargestFirst(rs []Ranked, n int, more string) []string {
	rs = slices.Clone(rs)
	slices.SortStableFunc(rs, func(a, b Ranked) int { return cmp.Compare(b.By, a.By) })
	var out []string
	for i, r := range rs {
		if i == n {
			return append(out, fmt.Sprintf(more, len(rs)-n))
		}
		out = append(out, r.Line)
	}
	return out
}

// mark joins notes ("n=2", "noisy") into one parenthesised suffix, "" when
// all are empty.
func mark(notes ...string) string {
	var keep []string
	for _, n := range notes {
		if n != "" {
			keep = append(keep, n)
		}
	}
	if len(keep) == 0 {
		return ""
	}
	return " (" + strings.Join(keep, ", ") + ")"
}

// WithCI formats a statistic as "median ±x%" using f for the median, or as
// "median (lo … hi)" when the interval is wider than ±50%; a median of
// fewer than FewSamples samples carries its count: "1.57 s (n=1)",
// "16.9 ms ±3% (n=2)".
func WithCI(s results.Stat, f func(float64) string) string {
	return withCI(s, f)
}

// withCI is WithCI with further notes ("noisy") in the same parentheses
// as the sample count.
func withCI(s results.Stat, f func(float64) string, notes ...string) string {
	out := f(s.Median)
	switch {
	case s.N <= 1:
	case s.RelWidth() > WideInterval:
		out += " (" + f(s.Lo) + " … " + f(s.Hi) + ")"
	default:
		out += " ±" + strconv.FormatFloat(s.RelWidth()*100, 'f', 0, 64) + "%"
	}
	return out + mark(append([]string{SamplesNote(s.N)}, notes...)...)
}

// Count formats a count: an integer when it is one ("61 allocs" not
// "61.0"), three significant digits otherwise (an average of 0.5).
func Count(v float64) string {
	if v == math.Trunc(v) {
		return Int(v)
	}
	return sig(v)
}

// FasterRule is the note that explains Faster's arithmetic in reports.
const FasterRule = "n× faster = t_other ÷ t; n× slower = t ÷ t_other (within a comparison group the median of the ratios taken in each sampling round, otherwise the ratio of the medians). " +
	"The unit of repetition is the process: with one process per case the samples are tested (Mann-Whitney U, α = 0.05); with several (--forks) each process's samples are tested on its own, and the difference counts when it is significant in every process in the same direction, or when the processes' medians differ significantly (4 or more a side). " +
	"\"~ same\" only where that test could have found a difference, found none, and the two intervals overlap; where the samples or processes are too few for any test to tell, the cell says \"n too small\" with the count instead."

// testable reports whether samples of sizes n1 and n2 can ever yield a
// Mann-Whitney p-value at or below α (see MinP).
func testable(n1, n2 int) bool { return MinP(n1, n2) <= Alpha }

// Alpha is the significance level of every test the report makes
// (benchmath's default, as benchstat's).
const Alpha = 0.05

// MinP is the smallest two-sided p-value the Mann-Whitney U test can give
// samples of sizes n1 and n2, whatever their values: 2/C(n1+n2, n1), the
// chance that two sets of the same distribution separate completely (1
// when either is empty). With 2 samples a side it is 0.333, with 3 0.1,
// with 4 0.029: below 4 a side no difference can be significant at 0.05.
func MinP(n1, n2 int) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// MinSamples is the smallest n for which n samples a side can reach a
// p-value at or below alpha (4 for 0.05).
func MinSamples(alpha float64) int {
	n := 1
	for MinP(n, n) > alpha && n < 1000 {
		n++
	}
	return n
}

// FailedText is the cell text for a case that failed verification or setup.
const FailedText = "FAILED"

// CannotHoldText is the cell text for a case whose format cannot hold the
// data.
const CannotHoldText = "cannot hold"

// SkippedText is the cell text for a case that could not run here.
const SkippedText = "not run"

func isPow10(a float64) bool {
	l := math.Log10(a)
	return math.Abs(l-math.Round(l)) < 1e-9
}

// durPow10 labels exact powers of ten without decimals (plot ticks).
func durPow10(a float64) string {
	switch {
	case a < 1e3:
		return strconv.FormatFloat(a, 'f', 0, 64) + " ns"
	case a < 1e6:
		return strconv.FormatFloat(a/1e3, 'f', 0, 64) + " µs"
	case a < 1e9:
		return strconv.FormatFloat(a/1e6, 'f', 0, 64) + " ms"
	default:
		return strconv.FormatFloat(a/1e9, 'f', 0, 64) + " s"
	}
}

// Seconds formats nanoseconds as seconds with three decimals ("1.234"),
// FAILED for NaN (a case without a time).
func Seconds(ns float64) string {
	if math.IsNaN(ns) {
		return FailedText
	}
	return strconv.FormatFloat(ns/1e9, 'f', 3, 64)
}

// MiB formats bytes as mebibytes with two decimals ("12.34").
func MiB(b float64) string { return strconv.FormatFloat(b/(1<<20), 'f', 2, 64) }

// PctOrDash formats a fraction as a percentage, "–" for NaN.
func PctOrDash(f float64) string {
	if math.IsNaN(f) {
		return "–"
	}
	return Pct(f)
}

// SignedPct formats a fraction as a signed percentage with one decimal
// ("+3.2%", "-4.1%"); a value that rounds to zero is "+0.0%", not "-0.0%".
func SignedPct(f float64) string {
	if f > -0.0005 {
		return "+" + Pct(math.Max(f, 0))
	}
	return Pct(f)
}

// Times formats a ratio as "3.21×", "–" when it is not finite.
func Times(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return Float(x) + "×"
}

// SubjectWithRole returns the subject (label "subject") of the first case
// with role, or fallback when none has it (results files from before
// roles were recorded).
func SubjectWithRole(cases []*results.Case, role, fallback string) string {
	for _, c := range cases {
		if c.Role == role {
			return c.Labels.Get("subject")
		}
	}
	return fallback
}
