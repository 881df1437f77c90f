package report

import (
	"fmt"
	"strings"

	"github.com/serbench/serbench/table"
)

// WriteMarkdown renders the document as GitHub-flavoured Markdown.
func (d *Doc) WriteMarkdown(w *strings.Builder) {
	fmt.Fprintf(w, "# %s\n\n", d.Title)
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
		fmt.Fprintf(w, "## Where and how this was measured\n\n### Environment\n\n")
		mdTable(w, rd.Env)
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
	case *Code:
		w.WriteString("```\n")
		w.WriteString(strings.TrimRight(b.Body, "\n"))
		w.WriteString("\n```\n\n")
	}
}

func mdTable(w *strings.Builder, t *table.Table) {
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
	for _, r := range t.Rows {
		w.WriteString("|")
		for _, c := range r {
			fmt.Fprintf(w, " %s |", mdEscape(c.String()))
		}
		w.WriteString("\n")
	}
	w.WriteString("\n")
	for _, n := range t.Notes {
		fmt.Fprintf(w, "%s\n\n", n)
	}
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
