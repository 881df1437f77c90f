package pgscan

import (
	"fmt"
	"strings"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// renderFindings opens the workload at its largest table: the fastest
// Arrow reader, its share of the server's own ceiling, the comparison with
// the peer, and the seed's claim that its reader beats ADBC.
func renderFindings(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	if len(v.sizes) == 0 {
		return nil, nil
	}
	n := v.sizes[len(v.sizes)-1]
	var lines []string
	if name, rate := v.fastest(n, false); rate > 0 {
		line := fmt.Sprintf("Fastest reader of the %s-row table: **%s**, %s rows/s", report.Int(report.Number(n)), name, mrows(rate))
		if ceil, ok := v.ceiling(n); ok && ceil > 0 {
			line += fmt.Sprintf(", %s of the server's own ceiling (%s rows/s)", report.Pct(rate/ceil), mrows(ceil))
			if rate/ceil >= 0.9 {
				line += ": the server, not the client, sets the pace here"
			} else {
				line += ": the client, not the server, is the bottleneck"
			}
		}
		lines = append(lines, line+".")
	}
	if base := v.ix.Get(v.baseline, n); base != nil && base.OK() {
		if cpu, ok := base.Median(MetricClientCPU); ok {
			lines = append(lines, fmt.Sprintf("%s spends %s of client CPU per full read (%s a row).", v.baseline, report.Float(cpu)+" s", report.Duration(cpu*1e9/report.Number(n))))
		}
		if x, ok := v.speedOver(v.ix.Get(v.peer, n), n); ok {
			verdict := "**held**"
			if x < 1 {
				verdict = "**not held**"
			}
			lines = append(lines, fmt.Sprintf("Seed: its Arrow reader beats the ADBC driver — %s here: %s reads %.2f× the rows per second of %s.", verdict, v.baseline, x, v.peer))
		} else if p := v.ix.Get(v.peer, n); p != nil && p.Skipped() {
			lines = append(lines, fmt.Sprintf("The seed's comparison with ADBC was not made here: %s", strings.TrimSuffix(p.Error, ".")+"."))
		}
	}
	if len(lines) == 0 {
		return nil, nil
	}
	return []report.Block{report.Findings(lines)}, nil
}
