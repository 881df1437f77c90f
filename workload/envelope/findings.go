package envelope

import (
	"fmt"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// renderFindings opens the workload: where flat overtakes wrapped for
// each library (the seed's question, checked against its ~16 KiB), and
// the fastest marshal and unmarshal at the smallest and largest named
// sizes.
func renderFindings(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	if len(v.subjects) == 0 {
		return nil, nil
	}
	var lines []string
	for _, lib := range v.pairs() {
		c := findCrossover(crossPoints(v, lib+"-flat", OpMarshal, lib+"-wrapped", OpMarshal))
		line := c.verdict(lib + " marshal")
		// The seed: wrapped faster below ~16 KiB, flat faster above.
		switch {
		case c.kind == crossAt && c.estimate >= 4<<10 && c.estimate <= 64<<10:
			line += " Seed (crossover near 16 KiB): **held**."
		case c.hi > 0:
			line += " Seed (crossover near 16 KiB): **not held**."
		}
		lines = append(lines, line)
	}
	sizes := v.named
	if len(sizes) > 0 {
		for _, z := range []int{0, len(sizes) - 1} {
			for _, op := range []string{OpMarshal, OpUnmarshal} {
				best, bestNs := "", 0.0
				for _, s := range v.subjects {
					c := v.get(s, sizes[z], op)
					if c == nil || !c.OK() {
						continue
					}
					if ns, _ := c.Median(results.UnitNsPerOp); best == "" || ns < bestNs {
						best, bestNs = s, ns
					}
				}
				if best == "" {
					continue
				}
				c := v.get(best, sizes[z], op)
				line := fmt.Sprintf("Fastest %s at %s: **%s**, %s", op, sizes[z].Name, best, table.TimeText(c))
				if base := v.get(v.baseline, sizes[z], op); best != v.baseline && base != nil && base.OK() {
					line += fmt.Sprintf(" (%s vs %s)", table.FasterText(c, base), v.baseline)
				}
				lines = append(lines, line+".")
			}
		}
	}
	if len(lines) == 0 {
		return nil, nil
	}
	return []report.Block{table.Findings(lines)}, nil
}
