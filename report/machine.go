package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/results"
)

// machinePoints caps the points of the machine-speed plot: longer runs
// are drawn as the medians of consecutive probes.
const machinePoints = 240

// machineBlocks describes how steady the machine was during run, from the
// probes it recorded: a paragraph and a plot of the probe loop's time over
// the run. A run without three probes (older files, tiny runs) gets none.
func machineBlocks(run *results.Run) []Block {
	d, ok := results.DriftOf(run.Probes, results.NoiseThreshold)
	if !ok {
		return nil
	}
	wide := float64(d.Wide) / float64(d.Triples)
	text := fmt.Sprintf("Between cases, serbench timed a fixed arithmetic loop (register arithmetic only: no memory traffic, "+
		"no allocation, no system call), %s times over %s, one probe every %s (median). Its time moves with the machine alone — "+
		"the CPU's clock, the hypervisor, neighbours on a shared host — not with what was measured. "+
		"From the 5th to the 95th percentile it ranged over **%s … %s** of its median; "+
		"in %s of %s windows of three consecutive probes the extremes lay more than ±%.0f%% from the window's median (%s): "+
		"that is how often a perfectly steady case sampled three times, %s apart, would have been flagged noisy on this machine.",
		table.Int(float64(d.N)), span(d.Span), table.Duration(float64(d.Gap)),
		table.SignedPct(d.Lo-1), table.SignedPct(d.Hi-1),
		table.Int(float64(d.Wide)), table.Int(float64(d.Triples)), results.NoiseThreshold*100, table.Pct(wide), table.Duration(float64(d.Gap)))
	if math.Max(1-d.Lo, d.Hi-1) > results.NoiseThreshold {
		text += fmt.Sprintf(" The machine drifted by more than the ±%.0f%% noise threshold: cases whose samples span seconds "+
			"inherit that spread, and differences between runs smaller than it are the machine's, not the subjects'. "+
			"In-round ratios (×limit, `compare --normalize`) cancel the part of the drift that is shared by the members of a round.",
			results.NoiseThreshold*100)
	}
	if t := slowText(run.Probes); t != "" {
		text += " " + t
	}
	blocks := []Block{&Text{Body: text}}
	caption := "time of the fixed probe loop over the run, ÷ its median"
	if m, ok := results.LoopDrift(run.Probes, results.MemoryLoop, results.NoiseThreshold); ok {
		blocks = append(blocks, &Text{Body: memoryText(m)})
		caption = "times of the fixed probe loop and of the memory chase over the run, each ÷ its median"
	}
	if svg, err := machinePlot(run.Probes); err == nil {
		blocks = append(blocks, &Plot{File: "machine-speed.svg", Caption: caption, SVG: svg})
	}
	return blocks
}

// slowText says how much of the time the machine ran slow (SlowShare),
// or "" when the probes did not record their runs.
func slowText(probes []results.Probe) string {
	slow, runs, ok := results.SlowShare(probes)
	if !ok {
		return ""
	}
	return fmt.Sprintf("The probe's fastest run is made to look past brief slowdowns; counting every run instead, "+
		"**%s of its %s runs** (about a millisecond each) took %s× its usual time or more: "+
		"that is the share of the time the cores ran slow, in stretches — a neighbour on a shared core, the host's clock. "+
		"A sample that falls in such a stretch sits among the slowest of its case; "+
		"when the stretches take much of the time, medians move between runs and more cases are noisy (docs/method.md, \"Short samples\").",
		table.Pct(float64(slow)/float64(runs)), table.Int(float64(runs)), strconv.FormatFloat(results.SlowFactor, 'g', -1, 64))
}

// memoryText describes the memory chase's drift m.
func memoryText(m results.Drift) string {
	text := fmt.Sprintf("Alongside that loop serbench timed a memory chase: a fixed chain of dependent loads through a buffer "+
		"larger than a core's own caches, so it waits on the shared cache and memory, which neighbours on a shared host "+
		"slow down while the cores stay as fast as before. Timed %s times, from the 5th to the 95th percentile it ranged over "+
		"**%s … %s** of its median.", table.Int(float64(m.N)), table.SignedPct(m.Lo-1), table.SignedPct(m.Hi-1))
	if math.Max(1-m.Lo, m.Hi-1) > results.NoiseThreshold {
		text += fmt.Sprintf(" The memory system drifted by more than the ±%.0f%% noise threshold: cases whose data does not "+
			"fit in a core's own caches (large inputs, decoders that allocate their output afresh) inherit part of that spread, "+
			"and ratios to a limit row whose data stays in the cache do not cancel it.", results.NoiseThreshold*100)
	}
	return text
}

// span formats a run's length: seconds up to two minutes, then minutes.
func span(d time.Duration) string {
	if d <= 2*time.Minute {
		return table.Duration(float64(d))
	}
	return table.Float(d.Minutes()) + " min"
}

// machinePlot draws the probes' times relative to their median against
// minutes since the first probe, with the noise threshold's band.
func machinePlot(probes []results.Probe) ([]byte, error) {
	ps := append([]results.Probe(nil), probes...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Time.Before(ps[j].Time) })
	t0 := ps[0].Time
	s := loopSeries(ps, results.CPULoop, "probe loop", t0)
	lines := []table.Series{s}
	if mem := results.MemoryLoop.Timed(ps); len(mem) >= 3 {
		lines = append(lines, loopSeries(mem, results.MemoryLoop, "memory chase", t0))
	}
	x0, x1 := s.X[0], s.X[len(s.X)-1]
	th := results.NoiseThreshold
	band := func(name string, y float64) table.Series {
		return table.Series{Name: name, X: []float64{x0, x1}, Y: []float64{y, y}, Limit: true}
	}
	c := table.LineChart{Title: "Machine speed during the run", XLabel: "minutes since the first probe",
		YLabel: "probe time ÷ median (higher = slower)", Series: append(lines,
			band(fmt.Sprintf("+%.0f%% (noise threshold)", th*100), 1+th), band(fmt.Sprintf("−%.0f%%", th*100), 1-th)),
		YFormat: func(v float64) string { return table.Float(v) + "×" },
		XFormat: func(v float64) string { return table.Float(v) }}
	return lineSVG(&c)
}

// loopSeries is one loop's times of probes ps (in time order), ÷ their
// median, against minutes since t0: at most machinePoints points, each
// the median of consecutive probes.
func loopSeries(ps []results.Probe, loop results.ProbeLoop, name string, t0 time.Time) table.Series {
	ns := make([]float64, len(ps))
	for i, p := range ps {
		ns[i] = loop.Of(p)
	}
	med := results.Quantile(ns, 0.5)
	per := (len(ps) + machinePoints - 1) / machinePoints
	s := table.Series{Name: name}
	if per > 1 {
		s.Name = fmt.Sprintf("%s (median of %d probes)", name, per)
	}
	for i := 0; i < len(ps); i += per {
		j := min(i+per, len(ps))
		s.X = append(s.X, ps[(i+j-1)/2].Time.Sub(t0).Minutes())
		s.Y = append(s.Y, results.Quantile(ns[i:j], 0.5)/med)
	}
	return s
}
