// Package report renders serbench results — and only results files — as
// Markdown, HTML and SVG plots. The sections of a workload's report are
// the ones its run declared (package table) and the blocks the command
// line computed from the results (table.Derived); this package builds
// their tables, draws their plots and writes them. It also compares two
// runs benchstat-style.
package report

import "github.com/serbench/serbench/table"

// A Block is one element of a report section: *table.Table, *table.Text,
// *Plot (a drawn figure) or *table.Code.
type Block = table.Block

// Text is a paragraph (see table.Text).
type Text = table.Text

// Code is preformatted text (see table.Code).
type Code = table.Code

// Plot is a drawn SVG figure, written beside the report as File.
type Plot struct {
	// File is the SVG file name (no directory), unique within a report.
	File    string
	Caption string
	SVG     []byte
}

// BlockKind implements Block.
func (*Plot) BlockKind() string { return "plot" }
