package report

import (
	"sort"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// countSection is the "Instruction counts" section of a workload whose
// cases were counted (run --metric instructions): each counted case's
// instructions and estimated cycles per op with their range over the
// counted runs, its ratio to the fewest instructions of its comparison
// group, and its cache and branch misses; the cases that were to be
// counted and were not, with why. Nil when nothing was counted.
func countSection(cases []*results.Case) []SectionDoc {
	fewest := map[string]float64{}
	var counted []*results.Case
	notes := map[string]int{}
	for _, c := range cases {
		if !c.OK() {
			continue
		}
		if c.Counted() {
			counted = append(counted, c)
			if s, ok := c.Stat(results.UnitInstructions); ok && c.Group != "" && !c.IsLimit() {
				if f, seen := fewest[c.Group]; !seen || s.Median < f {
					fewest[c.Group] = s.Median
				}
			}
		} else if c.CountNote != "" {
			notes[c.CountNote]++
		}
	}
	if len(counted) == 0 && len(notes) == 0 {
		return nil
	}
	var rows [][]table.Cell
	for _, c := range counted {
		ratio := table.Dash()
		if s, ok := c.Stat(results.UnitInstructions); ok && fewest[c.Group] > 0 && !c.IsLimit() {
			ratio = table.Num(s.Median/fewest[c.Group], table.TimesF)
		}
		avg := func(get func(results.Count) float64) table.Cell {
			var sum float64
			for _, k := range c.Counts {
				sum += get(k)
			}
			return table.Num(sum/float64(len(c.Counts)), table.CountF)
		}
		rows = append(rows, []table.Cell{table.Str(c.FullName()),
			table.StatOf(c, results.UnitInstructions, table.CountF), ratio,
			table.StatOf(c, results.UnitEstCycles, table.CountF),
			avg(func(k results.Count) float64 { return k.L1Misses }),
			avg(func(k results.Count) float64 { return k.LLMisses }),
			avg(func(k results.Count) float64 { return k.BranchMisses })})
	}
	t := &table.Table{
		Header: []string{"case", "instructions/op", "vs fewest in group", "est. cycles/op", "L1 misses/op", "LL misses/op", "branch misses/op"},
		Rows:   rows,
		Notes: []string{"Counted by Valgrind's callgrind in a child process: only while the case's timer runs (set-up, verification and the harness are not counted), " +
			"on one thread; a Go case with the collector off while it is counted (its work is not counted; allocation is), a Rust runner's in its own timed loop. " +
			"Each case is counted in several runs of the same iterations; the range is over them. Estimated cycles = L1 hits + 5 × LL hits + 35 × RAM hits from callgrind's cache simulation " +
			"(iai-callgrind's formula): a model of a simple machine, not this one's cycles. Counts repeat on a shared machine where time does not; " +
			"they do not see memory bandwidth, SIMD width or what another core does, so time stays the headline."},
	}
	if len(rows) == 0 {
		t = nil
	}
	var blocks []Block
	if t != nil {
		blocks = append(blocks, t)
	}
	if len(notes) > 0 {
		keys := make([]string, 0, len(notes))
		for k := range notes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var nrows [][]table.Cell
		for _, k := range keys {
			nrows = append(nrows, []table.Cell{table.Num(float64(notes[k]), table.IntF), table.Str(k)})
		}
		blocks = append(blocks, &table.Table{Header: []string{"cases", "not counted, or counted with a caveat, because"}, Rows: nrows})
	}
	return []SectionDoc{{Title: "Instruction counts", Blocks: blocks}}
}
