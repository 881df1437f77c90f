package pgscan

import (
	"fmt"
	"strings"

	"github.com/serbench/serbench/table"

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
	what := fmt.Sprintf("the %s-row table", table.Int(table.Number(n)))
	if queryDescriptor(run) != nil {
		what = fmt.Sprintf("your query's %s rows", table.Int(table.Number(n)))
	}
	var lines []string
	// Client CPU per row first: when the server sets the pace, it is what
	// tells the readers apart.
	var parts []string
	for _, m := range byClientCPU(v.ix, v.methods, n) {
		if v.limit[m] {
			continue
		}
		c := v.ix.Get(m, n)
		ns, ok := nsPerRow(c, MetricClientCPU, n)
		r, ok2 := rowsPerSec(c)
		if !ok || !ok2 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s ns (%s rows/s%s)", m, table.Float(ns), mrows(r), fewNote(c)))
	}
	if len(parts) > 0 {
		lines = append(lines, fmt.Sprintf("Client CPU per row at %s, lowest first, and wall-clock rows/s: %s.", what, strings.Join(parts, "; ")))
	}
	if name, rate := v.fastest(n, false); rate > 0 {
		line := fmt.Sprintf("Fastest reader of %s: **%s**, %s rows/s%s", what, name, mrows(rate), table.SamplesMark(v.ix.Get(name, n)))
		if ceil, ok := v.ceiling(n); ok && ceil > 0 {
			line += fmt.Sprintf(", %s of the server's own ceiling (%s rows/s%s)", table.Pct(rate/ceil), mrows(ceil), fewNote(v.ceilingCase(n)))
			if rate/ceil >= 0.9 {
				line += ": the server, not the client, sets the pace here"
			} else {
				line += ": the client, not the server, is the bottleneck"
			}
		}
		lines = append(lines, line+".")
	}
	if base := v.ix.Get(v.baseline, n); base != nil && base.OK() {
		if x, ok := v.speedOver(v.ix.Get(v.peer, n), n); ok {
			verdict := "**held**"
			if x < 1 {
				verdict = "**not held**"
			}
			lines = append(lines, fmt.Sprintf("Seed: its Arrow reader beats the ADBC driver — %s here: %s reads %.2f× the rows per second of %s.", verdict, v.baseline, x, v.peer))
		} else if p := v.ix.Get(v.peer, n); p != nil && p.Skipped() {
			lines = append(lines, fmt.Sprintf("The seed's comparison with ADBC was not made here: %s", strings.TrimSuffix(p.Error, ".")+"."))
		}
		if p := v.ix.Get(v.peer2, n); p != nil && p.Skipped() {
			lines = append(lines, fmt.Sprintf("The comparison with ConnectorX was not made here: %s", strings.TrimSuffix(p.Error, ".")+"."))
		}
		for _, g := range v.goals(n, true) {
			lines = append(lines, "Goal: "+g)
		}
	}
	if line := parallelFinding(v, n); line != "" {
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil, nil
	}
	return []report.Block{table.Findings(lines)}, nil
}

// fewNote is ", n=1" or ", n=2" for a case whose median time rests on
// fewer than table.FewSamples samples, to close a parenthesis with;
// else "".
func fewNote(c *results.Case) string {
	if c == nil {
		return ""
	}
	s, ok := c.Stat(results.UnitNsPerOp)
	if !ok {
		return ""
	}
	if note := table.SamplesNote(s.N); note != "" {
		return ", " + note
	}
	return ""
}

// parallelFinding states how pgarrow's rows/s grew with connections at
// size n.
func parallelFinding(v view, n string) string {
	var parts []string
	var one float64
	for _, c := range v.parallel {
		if c.Labels.Get("rows") != n || c.Labels.Get(LabelSubject) != v.baseline {
			continue
		}
		r, ok := rowsPerSec(c)
		if !ok {
			continue
		}
		p := c.Labels.Get(LabelPartitions)
		if p == "1" {
			one = r
		}
		s := fmt.Sprintf("%s over %s: %s rows/s%s", v.baseline, p, mrows(r), table.SamplesMark(c))
		if one > 0 && p != "1" {
			s += fmt.Sprintf(" (%.2f× one connection)", r/one)
		}
		parts = append(parts, s)
	}
	if len(parts) < 2 {
		return ""
	}
	return "Partitioned reads (connections): " + strings.Join(parts, "; ") + "."
}
