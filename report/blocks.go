// Package report renders serbench results — and only results files — as
// Markdown, HTML and SVG plots. Workloads contribute Sections that turn a
// run's cases into neutral Blocks (tables, text, plots, raw output); this
// package lays them out. It also compares two runs benchstat-style.
package report

import (
	"strings"

	"github.com/serbench/serbench/results"
)

// A Block is one element of a report section: *Table, *Text, *Plot or
// *Code.
type Block interface{ block() }

// Table is a titled grid of cells. Cells are plain text; renderers escape
// them.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
	// Notes follow the table (the rules behind the numbers, footnotes).
	Notes []string
}

// Text is a paragraph. A leading "- " on a line makes a bullet.
type Text struct{ Body string }

// Plot is an SVG figure, written beside the report as File.
type Plot struct {
	// File is the SVG file name (no directory), unique within a report.
	File    string
	Caption string
	SVG     []byte
}

// Code is preformatted text (raw benchmark output).
type Code struct{ Body string }

func (*Table) block() {}
func (*Text) block()  {}
func (*Plot) block()  {}
func (*Code) block()  {}

// A Section is a titled part of a workload's report.
type Section struct {
	// Workload is the workload whose cases the section renders.
	Workload string
	Title    string
	// Render builds the section from the workload's cases of one run.
	// Nil blocks (a nil *Table from SubjectsTable or Pivot.Table) are
	// left out; returning no blocks, or only nil ones, omits the section.
	Render func(run *results.Run, cases []*results.Case) ([]Block, error)
}

// Findings renders the few computed sentences a workload opens with, as a
// list.
func Findings(lines []string) *Text {
	return &Text{Body: "- " + strings.Join(lines, "\n- ")}
}
