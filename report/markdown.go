package report

import (
	"fmt"
	"strings"

	"github.com/serbench/serbench/table"
)

// What report.md keeps. The Markdown is the page a newcomer opens in a
// repository browser or a CI summary, so it stays short: every notice,
// the answer block, each workload's findings and texts, every plot (as a
// link with its caption) and, of each table, its caption, header, notes
// and first rows. Every row of every table is in report.html and
// report.json; every sample is in results.jsonl.
const (
	// mdMaxRows is the longest table report.md prints whole.
	mdMaxRows = 15
	// mdHeadRows is how many rows of a longer table it prints.
	mdHeadRows = 10
	// mdMaxCodeLines is the longest preformatted block (the raw medians)
	// report.md prints whole; a longer one gets its first mdHeadCode lines.
	mdMaxCodeLines = 30
	mdHeadCode     = 20
)

// mdPointer is the line report.md opens with: where the full tables are.
const mdPointer = "This page keeps each workload's findings, its plots and the first rows of each table (the fastest or first cases: tables are sorted as ranked); " +
	"every row of every table is in `report.html` (sortable, filterable) and `report.json` (typed cells), and every sample in `results.jsonl`."

// WriteMarkdown renders the document as GitHub-flavoured Markdown, its
// long tables cut to their first rows (see mdMaxRows).
func (d *Doc) WriteMarkdown(w *strings.Builder) {
	fmt.Fprintf(w, "# %s\n\n%s\n\n", d.Title, mdPointer)
	if len(d.SideBySide) > 0 {
		fmt.Fprintf(w, "## Runs side by side\n\n")
		for _, t := range d.SideBySide {
			mdTable(w, t)
		}
	}
	for i, rd := range d.Runs {
		if len(d.Runs) > 1 {
			fmt.Fprintf(w, "## Run %d: %s\n\n", i+1, rd.Run.File)
		}
		for _, n := range rd.Notices {
			fmt.Fprintf(w, "> **Note:** %s\n\n", n)
		}
		if len(rd.Glance) > 0 {
			fmt.Fprintf(w, "## At a glance\n\n")
			for _, g := range rd.Glance {
				fmt.Fprintf(w, "**%s**\n\n", g.Workload)
				for _, l := range g.Lines {
					fmt.Fprintf(w, "- %s\n", l)
				}
				w.WriteString("\n")
			}
		}
		// The answers first (each workload opens with its findings), then
		// where and how they were measured.
		for _, wd := range rd.Workloads {
			fmt.Fprintf(w, "## Workload `%s`\n\n", wd.Name)
			for _, sd := range wd.Sections {
				fmt.Fprintf(w, "### %s\n\n", sd.Title)
				for _, b := range sd.Blocks {
					mdBlock(w, b)
				}
			}
		}
		// The environment is the record of where the figures come from:
		// always whole.
		fmt.Fprintf(w, "## Where and how this was measured\n\n### Environment\n\n")
		mdRows(w, rd.Env, len(rd.Env.Rows))
		if len(rd.Machine) > 0 {
			fmt.Fprintf(w, "### Machine speed during the run\n\n")
			for _, b := range rd.Machine {
				mdBlock(w, b)
			}
		}
	}
}

func mdBlock(w *strings.Builder, b Block) {
	switch b := b.(type) {
	case *table.Table:
		mdTable(w, b)
	case *Text:
		w.WriteString(b.Body)
		w.WriteString("\n\n")
	case *Plot:
		fmt.Fprintf(w, "![%s](%s)\n\n", mdEscape(b.Caption), b.File)
		if b.Caption != "" {
			fmt.Fprintf(w, "*%s*\n\n", mdEscape(b.Caption))
		}
	case *Code:
		lines := strings.Split(strings.TrimRight(b.Body, "\n"), "\n")
		more := 0
		if len(lines) > mdMaxCodeLines {
			more = len(lines) - mdHeadCode
			lines = lines[:mdHeadCode]
		}
		w.WriteString("```\n")
		w.WriteString(strings.Join(lines, "\n"))
		w.WriteString("\n```\n\n")
		if more > 0 {
			fmt.Fprintf(w, "… %s more lines in report.html and report.json.\n\n", table.Int(float64(more)))
		}
	}
}

// mdTable writes a table, cut to its first mdHeadRows rows when it has
// more than mdMaxRows.
func mdTable(w *strings.Builder, t *table.Table) {
	n := len(t.Rows)
	if n > mdMaxRows {
		n = mdHeadRows
	}
	mdRows(w, t, n)
}

// mdRows writes a table with its first n rows and a line saying how many
// more report.html and report.json hold.
func mdRows(w *strings.Builder, t *table.Table, n int) {
	if t.Caption != "" {
		fmt.Fprintf(w, "**%s**\n\n", mdEscape(t.Caption))
	}
	if len(t.Header) > 0 {
		w.WriteString("|")
		for _, h := range t.Header {
			fmt.Fprintf(w, " %s |", mdEscape(h))
		}
		w.WriteString("\n|")
		for range t.Header {
			w.WriteString("---|")
		}
		w.WriteString("\n")
	}
	rows := t.Rows[:min(n, len(t.Rows))]
	for _, r := range rows {
		w.WriteString("|")
		for _, c := range r {
			fmt.Fprintf(w, " %s |", mdEscape(c.String()))
		}
		w.WriteString("\n")
	}
	w.WriteString("\n")
	if more := len(t.Rows) - len(rows); more > 0 {
		fmt.Fprintf(w, "… %s more rows in report.html and report.json.\n\n", table.Int(float64(more)))
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "%s\n\n", n)
	}
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
