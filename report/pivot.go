package report

import (
	"math"
	"strconv"

	"github.com/serbench/serbench/results"
)

// Pivot lays cases out as a table: one row per value of the label Row,
// one column per value of the label Col (both in the order the cases first
// show them), each cell made by Cell from the one case at that row and
// column. Where fixes other labels (key, value, key, value …). It is the
// one pivot every workload's tables use.
type Pivot struct {
	Cases []*results.Case
	// Where holds key, value pairs every case in the table matches.
	Where []string
	// Row and Col are label keys.
	Row, Col string
	// Rows and Cols, when set, fix the order and choice of values.
	Rows, Cols []string
	// Corner heads the first column (default: Row).
	Corner string
	// RowName formats a row's value (default: as is).
	RowName func(string) string
	// Cell formats one case (nil when there is none at that place).
	Cell func(c *results.Case) string
	// KeepEmpty keeps rows that have no case at all.
	KeepEmpty bool
}

// Table builds the table; it returns nil when no row has a case.
func (p Pivot) Table() *Table {
	cases := Where(p.Cases, p.Where...)
	rows, cols := p.Rows, p.Cols
	if rows == nil {
		rows = Distinct(cases, p.Row)
	}
	if cols == nil {
		cols = Distinct(cases, p.Col)
	}
	ix := NewIndex(cases, p.Row, p.Col)
	corner := p.Corner
	if corner == "" {
		corner = p.Row
	}
	t := &Table{Header: append([]string{corner}, cols...)}
	for _, r := range rows {
		name := r
		if p.RowName != nil {
			name = p.RowName(r)
		}
		row := []string{name}
		any := false
		for _, c := range cols {
			cs := ix.Get(r, c)
			if cs != nil {
				any = true
			}
			row = append(row, p.Cell(cs))
		}
		if any || p.KeepEmpty {
			t.Rows = append(t.Rows, row)
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// Units every workload's tables share.

// Seconds formats nanoseconds as seconds with three decimals ("1.234"),
// FAILED for NaN (a case without a time).
func Seconds(ns float64) string {
	if math.IsNaN(ns) {
		return Failed
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

// MemCell formats a case's B/op and allocs/op: "1,024 / 3", "1,024 / 3
// (n=1)" for medians of fewer than FewSamples samples.
func MemCell(c *results.Case) string {
	if c == nil {
		return "–"
	}
	if !c.OK() {
		return statusCell(c)
	}
	b, _ := c.Median(results.UnitBytesPerOp)
	a, _ := c.Median(results.UnitAllocsPerOp)
	s, _ := c.Stat(results.UnitBytesPerOp)
	return Int(b) + " / " + Count(a) + mark(SamplesNote(s.N))
}
