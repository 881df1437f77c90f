package table

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/serbench/serbench/results"
)

// Kind says what a Cell holds.
type Kind uint8

// The kinds of cell.
const (
	// Missing is a place without a case: "–".
	Missing Kind = iota
	// Words is text (a name, a verdict); V may still hold a number it
	// sorts by (Num).
	Words
	// Value is one number V written in Format.
	Value
	// Stat is a median V with its interval [Lo, Hi] over N samples.
	Stat
	// Failed is a case that failed setup or verification: "FAILED".
	Failed
	// Skipped is a case that could not run here: "not run".
	Skipped
	// CannotHold is a case whose format cannot hold the data: "cannot
	// hold" (the reason is in the case's error, listed with the findings).
	CannotHold
)

// Format says how a number is written.
type Format uint8

// The formats (see the functions of the same names).
const (
	Plain Format = iota // three significant digits (Float)
	DurationF
	BytesF
	IntF
	CountF
	TimesF
	PctF
	SignedPctF
	SecondsF
	MiBF
	FasterF
	CompactF
	SmallerF
)

// Cell is one typed table cell: its value stays a number (with its
// interval and sample count) until a writer calls String. Writers sort
// and align on V when Num reports true.
type Cell struct {
	Kind   Kind    `json:"kind"`
	V      float64 `json:"v,omitempty"`
	Lo     float64 `json:"lo,omitempty"`
	Hi     float64 `json:"hi,omitempty"`
	N      int     `json:"n,omitempty"`
	Format Format  `json:"format,omitempty"`
	// Text is a Words cell's text, or words after a number ("× faster").
	Text string `json:"text,omitempty"`
	// Notes go in one parenthesis after the value: "n=1", "noisy".
	Notes []string `json:"notes,omitempty"`
	// HasV marks a Words cell that sorts by V.
	HasV bool `json:"has_v,omitempty"`
	// Then is a second value written after " / " (B/op / allocs/op).
	Then *Cell `json:"then,omitempty"`
}

// Str is a text cell.
func Str(s string) Cell { return Cell{Kind: Words, Text: s} }

// StrV is a text cell that sorts by v (a verdict beside its number).
func StrV(s string, v float64) Cell { return Cell{Kind: Words, Text: s, V: v, HasV: true} }

// Num is a number written in format f; NaN is Missing.
func Num(v float64, f Format) Cell {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Cell{Kind: Missing}
	}
	return Cell{Kind: Value, V: v, Format: f}
}

// Dash is the cell of a place without a value.
func Dash() Cell { return Cell{Kind: Missing} }

// Noisy is the note a Stat cell of a noisy case carries.
const Noisy = "noisy"

// Num reports whether the cell is a number writers sort and align by.
func (c Cell) Num() bool { return c.Kind == Value || c.Kind == Stat || (c.Kind == Words && c.HasV) }

// IsNoisy reports whether the cell carries the noisy note.
func (c Cell) IsNoisy() bool {
	for _, n := range c.Notes {
		if n == Noisy {
			return true
		}
	}
	return false
}

// With returns c with notes added (empty ones are dropped when written).
func (c Cell) With(notes ...string) Cell {
	c.Notes = append(append([]string(nil), c.Notes...), notes...)
	return c
}

// Format writes v in format f.
func (f Format) Format(v float64) string {
	switch f {
	case DurationF:
		return Duration(v)
	case BytesF:
		return Bytes(v)
	case IntF:
		return Int(v)
	case CountF:
		return Count(v)
	case TimesF:
		return Times(v)
	case PctF:
		return PctOrDash(v)
	case SignedPctF:
		return SignedPct(v)
	case SecondsF:
		return Seconds(v)
	case MiBF:
		return MiB(v)
	case CompactF:
		return Compact(v)
	case FasterF:
		return fasterWords(v)
	case SmallerF:
		return smallerWords(v)
	default:
		return Float(v)
	}
}

// String writes the cell as the report shows it.
func (c Cell) String() string {
	var out string
	switch c.Kind {
	case Missing:
		return "–"
	case Failed:
		return FailedText
	case Skipped:
		return SkippedText
	case CannotHold:
		return CannotHoldText
	case Words:
		out = c.Text
	case Value:
		out = c.Format.Format(c.V) + c.Text
	case Stat:
		s := results.Stat{Median: c.V, Lo: c.Lo, Hi: c.Hi, N: c.N}
		out = withCI(s, c.Format.Format) + c.Text
		// withCI adds the sample note itself; the other notes follow in
		// the same parenthesis.
		return joinMark(out, c.Notes)
	}
	out += mark(c.Notes...)
	if c.Then != nil {
		out += " / " + c.Then.String()
	}
	return out
}

// joinMark appends notes to s, inside the parenthesis s already ends with
// when that holds a sample count ("(n=2)" → "(n=2, noisy)").
func joinMark(s string, notes []string) string {
	var keep []string
	for _, n := range notes {
		if n != "" {
			keep = append(keep, n)
		}
	}
	if len(keep) == 0 {
		return s
	}
	if strings.HasSuffix(s, ")") {
		if i := strings.LastIndex(s, " (n="); i >= 0 {
			return s[:len(s)-1] + ", " + strings.Join(keep, ", ") + ")"
		}
	}
	return s + " (" + strings.Join(keep, ", ") + ")"
}

// status is the cell of a case that was not measured, and whether it is
// one.
func status(c *results.Case) (Cell, bool) {
	switch {
	case c == nil:
		return Cell{Kind: Missing}, true
	case c.Skipped():
		return Cell{Kind: Skipped}, true
	case c.CannotHold():
		return Cell{Kind: CannotHold}, true
	case !c.OK():
		return Cell{Kind: Failed}, true
	}
	return Cell{}, false
}

// Time is a case's ns/op: its median with its interval, marked with its
// sample count below FewSamples and "noisy" when its interval is wide;
// FAILED, "not run" or "–" for a case failed, skipped or absent.
func Time(c *results.Case) Cell { return StatOf(c, results.UnitNsPerOp, DurationF) }

// StatOf is the median of unit with its interval, written in format f; a
// fixed metric of that name (measured once) is a Value. The noisy mark
// is that of the case's time.
func StatOf(c *results.Case, unit string, f Format) Cell {
	if st, ok := status(c); ok {
		return st
	}
	s, ok := c.Stat(unit)
	if !ok {
		if v, ok := c.Metrics[unit]; ok {
			return Num(v, f)
		}
		return Cell{Kind: Missing}
	}
	cell := Cell{Kind: Stat, V: s.Median, Lo: s.Lo, Hi: s.Hi, N: s.N, Format: f}
	if c.Noisy && unit == results.UnitNsPerOp {
		cell.Notes = []string{Noisy}
	}
	return cell
}

// Median is the median of unit (or the fixed metric of that name) written
// in format f, without its interval, marked with its sample count below
// FewSamples.
func Median(c *results.Case, unit string, f Format) Cell {
	if st, ok := status(c); ok {
		return st
	}
	v, ok := c.Median(unit)
	if !ok {
		return Cell{Kind: Missing}
	}
	cell := Num(v, f)
	if s, ok := c.Stat(unit); ok {
		cell.Notes = []string{SamplesNote(s.N)}
	}
	return cell
}

// Computed is a value computed from a case's median of unit by fn (a rate,
// a per-row time), written in format f and marked with the median's
// sample count.
func Computed(c *results.Case, unit string, f Format, fn func(float64) float64) Cell {
	if st, ok := status(c); ok {
		return st
	}
	v, ok := c.Median(unit)
	if !ok {
		return Cell{Kind: Missing}
	}
	cell := Num(fn(v), f)
	if s, ok := c.Stat(unit); ok {
		cell.Notes = []string{SamplesNote(s.N)}
	}
	return cell
}

// Mem is a case's B/op and allocs/op: "1,024 / 3".
func Mem(c *results.Case) Cell {
	if st, ok := status(c); ok {
		return st
	}
	b, _ := c.Median(results.UnitBytesPerOp)
	a, _ := c.Median(results.UnitAllocsPerOp)
	s, _ := c.Stat(results.UnitBytesPerOp)
	cell := Num(b, IntF)
	then := Num(a, CountF).With(SamplesNote(s.N))
	cell.Then = &then
	return cell
}

// Ratio is c's time as a multiple of the limit row (unit
// results.UnitVsLimit) or the baseline (results.UnitVsBaseline) of its
// comparison group, from the ratios taken in the same sampling round, with
// their interval. Without in-round ratios (an older results file, a case
// measured alone) it is the ratio of the two medians, ref being the limit
// or baseline case.
func Ratio(c *results.Case, unit string, ref *results.Case) Cell {
	if st, ok := status(c); ok {
		return st
	}
	if s, ok := c.Stat(unit); ok && s.Median > 0 {
		return Cell{Kind: Stat, V: s.Median, Lo: s.Lo, Hi: s.Hi, N: s.N, Format: TimesF}
	}
	if ref == nil || !ref.OK() {
		return Cell{Kind: Missing}
	}
	a, _ := c.Median(results.UnitNsPerOp)
	b, _ := ref.Median(results.UnitNsPerOp)
	if b == 0 {
		return Cell{Kind: Missing}
	}
	return Num(a/b, TimesF).With(fewerNote(c, ref))
}

// fewerNote is the sample-count note of a value computed from the medians
// of a and b: that of the one with fewer samples.
func fewerNote(a, b *results.Case) string { return fewerNoteOf(a, b, results.UnitNsPerOp) }

// fewerNoteOf is fewerNote for unit: none when a or b measured it once (a
// fixed metric, such as a file's size).
func fewerNoteOf(a, b *results.Case, unit string) string {
	sa, ok1 := a.Stat(unit)
	sb, ok2 := b.Stat(unit)
	if !ok1 || !ok2 {
		return ""
	}
	return SamplesNote(min(sa.N, sb.N))
}

// Faster says how c's time compares with base's as people say it: "43×
// faster" (base/t) or "1.3× slower" (t/base). Its value, for sorting, is
// t ÷ base. Differ decides what the words may claim: "~ same" only where
// its test could have told the two apart and did not; a ratio "(n too
// small: 2 processes)" where the observations — samples of one process,
// or processes when there were several — are too few for any test to
// tell.
func Faster(c, base *results.Case) Cell {
	if c == nil || base == nil || !c.OK() || !base.OK() {
		return Cell{Kind: Missing}
	}
	t, ok1 := c.Stat(results.UnitNsPerOp)
	b, ok2 := base.Stat(results.UnitNsPerOp)
	if !ok1 || !ok2 || b.Median == 0 || t.Median == 0 {
		return Cell{Kind: Missing}
	}
	r := t.Median / b.Median
	// Within one comparison group, prefer the ratio taken in each round
	// (drift cancels) over the ratio of the medians.
	if x, ok := c.Stat(results.UnitVsBaseline); ok && base.Role == results.RoleBaseline && c.Group != "" && c.Group == base.Group && x.Median > 0 {
		r = x.Median
	} else if x, ok := base.Stat(results.UnitVsBaseline); ok && c.Role == results.RoleBaseline && c.Group != "" && c.Group == base.Group && x.Median > 0 {
		r = 1 / x.Median
	}
	switch d := Differ(c, base, results.UnitNsPerOp); d.Verdict {
	case Same:
		return StrV("~ same", r)
	case CannotTell:
		return Cell{Kind: Value, V: r, Format: FasterF, Text: " (" + d.Note() + ")"}
	}
	return Cell{Kind: Value, V: r, Format: FasterF}
}

// fasterWords writes the ratio t ÷ base as "n× faster" or "n× slower".
func fasterWords(r float64) string {
	if r <= 1 {
		return Float(1/r) + "× faster"
	}
	return Float(r) + "× slower"
}

// smallerWords writes the ratio size ÷ reference as "n× smaller" (ref ÷
// size) or, for a size that grew, "n× larger": never "0.8× smaller".
func smallerWords(r float64) string {
	if r > 1 {
		return Times(r) + " larger"
	}
	return Times(1/r) + " smaller"
}

// Significant reports whether a and b differ in unit at α = 0.05 by
// Differ's test.
func Significant(a, b *results.Case, unit string) bool {
	return Differ(a, b, unit).Verdict == Different
}

// Number parses a numeric label value (a size, a count); it returns 0 for
// a value that is not a number.
func Number(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return f
}

// IntLabel writes a numeric label value (a size, a row count) as an
// integer with separators: "100000" → "100,000".
func IntLabel(s string) string { return Int(Number(s)) }

// TimeText is Time(c) as text, for sentences.
func TimeText(c *results.Case) string { return Time(c).String() }

// RatioText is Ratio as text, for sentences.
func RatioText(c *results.Case, unit string, ref *results.Case) string {
	return Ratio(c, unit, ref).String()
}

// MemText is Mem(c) as text.
func MemText(c *results.Case) string { return Mem(c).String() }

// FasterText is Faster as text, for sentences.
func FasterText(c, base *results.Case) string { return Faster(c, base).String() }

var kindNames = [...]string{Missing: "missing", Words: "text", Value: "value", Stat: "stat", Failed: "failed", Skipped: "skipped", CannotHold: "cannot-hold"}

// MarshalJSON writes a cell as its text and, for a number, its value
// (with its interval and sample count when it is a statistic): what a
// script reading report.json needs, without the report's formatting rules.
func (c Cell) MarshalJSON() ([]byte, error) {
	out := struct {
		Kind  string   `json:"kind"`
		Text  string   `json:"text"`
		Value *float64 `json:"value,omitempty"`
		Lo    *float64 `json:"lo,omitempty"`
		Hi    *float64 `json:"hi,omitempty"`
		N     int      `json:"n,omitempty"`
	}{Kind: kindNames[c.Kind], Text: c.String(), N: c.N}
	if c.Num() {
		out.Value = &c.V
	}
	if c.Kind == Stat && c.N > 1 {
		out.Lo, out.Hi = &c.Lo, &c.Hi
	}
	return json.Marshal(out)
}
