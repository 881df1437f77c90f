// Package table is what a report is made of before it is written: typed
// tables, text, plots as data. Workloads declare their tables as Specs,
// which a run records in its results file; Build turns a Spec and a run's
// cases into Tables whose cells keep their values, intervals and sample
// counts (Cell) until a writer in package report formats them. The
// findings each workload computes from a run's results are Blocks of this
// package too, so no workload imports the report writers and the report
// never calls back into a workload.
//
// It also holds the one definition of how a number is written (Duration,
// Bytes, Times …) and of when two cases differ (Faster, CompareSamples), so
// that every table, finding and comparison says it the same way.
package table

import "strings"

// A Block is one element of a report section: *Table, *Text, *Plot or
// *Code.
type Block interface {
	// BlockKind is "table", "text", "plot" or "code".
	BlockKind() string
}

// Table is a titled grid of typed cells.
type Table struct {
	Caption string   `json:"caption,omitempty"`
	Header  []string `json:"header"`
	Rows    [][]Cell `json:"rows"`
	// Notes follow the table (the rules behind the numbers, footnotes).
	Notes []string `json:"notes,omitempty"`
}

// Text is a paragraph. A leading "- " on a line makes a bullet; **bold**
// and `code` spans are rendered.
type Text struct {
	Body string `json:"text"`
}

// Plot is a figure drawn from data: Chart is a *LineChart or a
// *ScatterChart. File names the SVG written beside the report (unique
// within a report; the report renames clashes).
type Plot struct {
	File    string `json:"file"`
	Caption string `json:"caption"`
	Chart   Chart  `json:"-"`
}

// A Chart is the data of a plot: *LineChart or *ScatterChart.
type Chart interface{ chart() }

func (*LineChart) chart()    {}
func (*ScatterChart) chart() {}

// Code is preformatted text (raw benchmark output).
type Code struct {
	Body string `json:"code"`
}

// BlockKind implements Block.
func (*Table) BlockKind() string { return "table" }

// BlockKind implements Block.
func (*Text) BlockKind() string { return "text" }

// BlockKind implements Block.
func (*Plot) BlockKind() string { return "plot" }

// BlockKind implements Block.
func (*Code) BlockKind() string { return "code" }

// Findings renders the few computed sentences a workload opens with, as a
// list; nil when there are none.
func Findings(lines []string) *Text {
	if len(lines) == 0 {
		return nil
	}
	return &Text{Body: "- " + strings.Join(lines, "\n- ")}
}

// AddRow appends a row of cells.
func (t *Table) AddRow(cells ...Cell) { t.Rows = append(t.Rows, cells) }

// Empty reports whether t is nil or has no rows.
func (t *Table) Empty() bool { return t == nil || len(t.Rows) == 0 }
