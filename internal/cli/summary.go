package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/serbench/serbench/report"
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
		ok, failed, noisy := 0, 0, 0
		for _, c := range cases {
			switch {
			case !c.OK():
				failed++
			case c.Noisy:
				noisy++
				ok++
			default:
				ok++
			}
		}
		fmt.Fprintf(a.stdout, "\n%s: %d cases, %d ok, %d failed, %d noisy\n", w.Name(), len(cases), ok, failed, noisy)
		if t := w.Summary(cases); t != nil {
			writeTextTable(a.stdout, t)
		}
	}
}

func writeTextTable(w interface{ Write([]byte) (int, error) }, t *report.Table) {
	if t.Caption != "" {
		fmt.Fprintln(w, t.Caption)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if len(t.Header) > 0 {
		fmt.Fprintln(tw, strings.Join(t.Header, "\t")+"\t")
	}
	for _, r := range t.Rows {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	tw.Flush()
}
