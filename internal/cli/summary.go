package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

// printSummary prints what fits on a screen: per workload its headline
// table and the counts of ok, failed and noisy cases.
func (a *app) printSummary(run *results.Run, ws []workload.Workload) {
	for _, w := range ws {
		cases := run.Filter(w.Name(), nil)
		if len(cases) == 0 {
			continue
		}
		fmt.Fprintf(a.stdout, "\n%s: %s\n", w.Name(), countLine(cases))
		if t := w.Summary(run, cases); t != nil {
			writeTextTable(a.stdout, t)
		}
	}
	if l := machineLine(run); l != "" {
		fmt.Fprintf(a.stdout, "\n%s\n", l)
	}
}

// machineLine says in one line how steady the machine was during the run
// (from its probes), or "" when it recorded too few.
func machineLine(run *results.Run) string {
	d, ok := results.DriftOf(run.Probes, results.NoiseThreshold)
	if !ok {
		return ""
	}
	line := fmt.Sprintf("machine: a fixed arithmetic loop, timed %d times over the run, took %s to %s of its median (5th–95th percentile)",
		d.N, table.SignedPct(d.Lo-1), table.SignedPct(d.Hi-1))
	if m, ok := results.LoopDrift(run.Probes, results.MemoryLoop, results.NoiseThreshold); ok {
		line += fmt.Sprintf("; a memory chase %s to %s", table.SignedPct(m.Lo-1), table.SignedPct(m.Hi-1))
	}
	if slow, runs, ok := results.SlowShare(run.Probes); ok {
		line += fmt.Sprintf("; the cores ran %g× slower or worse %s of the time", results.SlowFactor, table.Pct(float64(slow)/float64(runs)))
	}
	return line
}

func writeTextTable(w interface{ Write([]byte) (int, error) }, t *table.Table) {
	if t.Caption != "" {
		fmt.Fprintln(w, t.Caption)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if len(t.Header) > 0 {
		fmt.Fprintln(tw, strings.Join(t.Header, "\t")+"\t")
	}
	for _, r := range t.Rows {
		for _, c := range r {
			fmt.Fprint(tw, c.String()+"\t")
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// countLine says how a workload's cases ended: "12 cases: 11 ok (2 noisy),
// 1 skipped".
func countLine(cases []*results.Case) string {
	ok, failed, skipped, noisy, hold, cells := 0, 0, 0, 0, 0, 0
	for _, c := range cases {
		switch {
		case c.Skipped():
			skipped++
		case c.CannotHold():
			hold++
		case isFailure(c):
			failed++
		case !c.OK():
			cells++ // an interop cell another language cannot read
		default:
			ok++
			if c.Noisy {
				noisy++
			}
		}
	}
	s := plural(len(cases), "case") + ": " + fmt.Sprint(ok) + " ok"
	if noisy > 0 {
		s += fmt.Sprintf(" (%d noisy)", noisy)
	}
	if failed > 0 {
		s += fmt.Sprintf(", %d FAILED", failed)
	}
	if hold > 0 {
		s += fmt.Sprintf(", %d cannot hold the data", hold)
	}
	if cells > 0 {
		s += fmt.Sprintf(", %d interop ✗", cells)
	}
	if skipped > 0 {
		s += fmt.Sprintf(", %d skipped", skipped)
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// isFailure reports whether c FAILED: the cases the exit status and the
// summary count, every one of them (not an interop cell, whose ✗ is the
// matrix's finding).
func isFailure(c *results.Case) bool {
	return c.Failed() && c.Labels.Get(results.OpLabel) != results.OpInterop
}
