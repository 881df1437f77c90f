package records

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload/filecase"
)

// Derive implements workload.Workload: the file workloads' derived blocks
// and records' own (findings, the samples, bare-loop verdicts, the unbuffered
// write), from the results only.
func (*Workload) Derive(run *results.Run, cases []*results.Case) table.Derived {
	d := filecase.Derive(Name, run, cases)
	d["findings"] = []table.Block{findings(run, cases)}
	d["samples"] = []table.Block{samples(cases)}
	d["bare"] = []table.Block{bare(cases)}
	d["unbuffered"] = []table.Block{unbuffered(cases)}
	return d
}

// Summary implements workload.Workload: the fastest pairs by round trip
// with their size, then the use-case recommendations.
func (*Workload) Summary(run *results.Run, cases []*results.Case) *table.Table {
	return filecase.Summary(Name, run, cases)
}

// findings opens the workload with the top performers of this run, the gap
// between the fastest read and its floor, and the seed's key findings
// checked against this run.
func findings(run *results.Run, cases []*results.Case) *table.Text {
	var lines []string
	picks := map[string]filecase.Pick{}
	for _, p := range filecase.Picks(Name, run, cases) {
		picks[p.Name] = p
		switch p.Name {
		case "Fastest write":
			lines = append(lines, fmt.Sprintf("Fastest write: **%s**, %s (%s).", p.Subject(), table.TimeText(p.Cases[filecase.OpWrite]), filecase.Tradeoff(p.Point)))
		case "Fastest read":
			line := fmt.Sprintf("Fastest read: **%s**, %s", p.Subject(), table.TimeText(p.Cases[filecase.OpRead]))
			if fl := p.Cases[filecase.OpReadBytes]; fl != nil && fl.OK() {
				line += fmt.Sprintf(", %s the time of just reading the file's bytes", table.RatioText(p.Cases[filecase.OpRead], results.UnitVsLimit, fl))
			}
			lines = append(lines, line+".")
		case "Smallest file":
			lines = append(lines, fmt.Sprintf("Smallest file: **%s**, %s MiB%s.", p.Subject(), table.MiB(p.FileB), filecase.SavedNote(p.Point)))
		case "Best balance":
			lines = append(lines, fmt.Sprintf("Best balance of size and round-trip time: **%s** (%s).", p.Subject(), filecase.Tradeoff(p.Point)))
		}
	}
	lines = append(lines, seedClaims(picks, cases)...)
	return table.Findings(lines)
}

// seedClaims checks seed 001's headline claims against this run, each
// with the seed's figure beside ours. The timed claims are decided by
// intervals among the seed's own pairs (its three formats × every codec,
// the standard pipeline): held when the claimed pair's interval lies
// below every other's, not held when another's lies below it,
// inconclusive otherwise. Sizes are exact and decided. The best balance
// is this run's rule (Best balance); any MessagePack implementation
// holds it and the best compression.
func seedClaims(picks map[string]filecase.Pick, cases []*results.Case) []string {
	type pair struct{ format, codec string }
	op := func(p pair, o string) *results.Case {
		cs := table.Where(cases, filecase.LabelFormat, p.format, filecase.LabelCodec, p.codec, filecase.LabelOp, o, filecase.LabelVariant, "")
		if len(cs) == 0 || !cs[0].OK() {
			return nil
		}
		return cs[0]
	}
	var pairs []pair
	for _, c := range table.Where(cases, filecase.LabelOp, filecase.OpWrite, filecase.LabelVariant, "") {
		if p := (pair{c.Labels.Get(filecase.LabelFormat), c.Labels.Get(filecase.LabelCodec)}); slices.Contains(seedFormats, p.format) && op(p, filecase.OpRead) != nil && c.OK() {
			pairs = append(pairs, p)
		}
	}
	name := func(p pair) string { return p.format + " + " + p.codec }
	var lines []string
	// fastest is a timed claim: claimed's interval of f below every other
	// pair's.
	fastest := func(claim, figure string, claimed pair, f func(pair) table.Interval, text func(table.Interval) string) {
		var others []table.Interval
		var names []pair
		for _, p := range pairs {
			if p != claimed {
				others, names = append(others, f(p)), append(names, p)
			}
		}
		c := f(claimed)
		if !slices.Contains(pairs, claimed) || len(others) == 0 {
			lines = append(lines, table.SeedUnchecked(claim, figure, name(claimed)+" was not measured here"))
			return
		}
		v := table.Lowest(c, others)
		evidence := name(claimed) + " " + text(c)
		if i := table.Rival(c, others, v); i >= 0 {
			rel := map[table.Claim]string{table.Held: "the next", table.NotHeld: "faster", table.Inconclusive: "not told apart from"}[v]
			evidence += fmt.Sprintf("; %s: %s %s", rel, name(names[i]), text(others[i]))
		}
		if v == table.Inconclusive {
			evidence += " (" + table.Unsettled(v, append(others, c)...) + ")"
		}
		lines = append(lines, table.SeedLine(claim, figure, v, evidence))
	}
	timeOf := func(o string) func(pair) table.Interval {
		return func(p pair) table.Interval { return table.IntervalOf(op(p, o), results.UnitNsPerOp) }
	}
	dur := func(iv table.Interval) string { return iv.Text(table.Duration) }
	fastest("the fastest write is JSONL + Zstd", "0.44 s", pair{"jsonl", "zstd"}, timeOf(filecase.OpWrite), dur)
	fastest("the fastest read is FlatBuffers plain", "0.07 s, zero-copy", pair{"flatbuffers", "none"}, timeOf(filecase.OpRead), dur)
	fastest("the fastest round trip is FlatBuffers plain", "0.72 s", pair{"flatbuffers", "none"}, func(p pair) table.Interval {
		return table.Sum(timeOf(filecase.OpWrite)(p), timeOf(filecase.OpRead)(p))
	}, dur)
	fastest("the best compression is MsgPack + XZ", "0.94 MB", pair{"msgpack", "xz"}, func(p pair) table.Interval {
		if c := op(p, filecase.OpWrite); c != nil {
			if b, ok := c.Metrics[filecase.MetricFile]; ok {
				return table.Exactly(b)
			}
		}
		return table.Interval{}
	}, func(iv table.Interval) string { return iv.Text(table.ExactBytes) })
	if got, ok := picks["Best balance"]; ok {
		held := strings.HasPrefix(got.Format, "msgpack") && got.Codec == "zstd"
		lines = append(lines, table.SeedLine("the best balance is MsgPack + Zstd", "1.22 s round trip, 7.64 MB", table.Decided(held), "by this run's best-balance rule it is "+got.Subject()))
	}
	return lines
}

// samples follows the method: the records each file holds and the samples
// each case took.
func samples(cases []*results.Case) *table.Text {
	var records float64
	counts := map[int]int{}
	for _, c := range cases {
		if records = max(records, c.Metrics[filecase.MetricRecords]); c.OK() {
			counts[len(c.Samples)]++
		}
	}
	if records == 0 {
		return nil
	}
	var cs []string
	for _, n := range slices.Sorted(maps.Keys(counts)) {
		cs = append(cs, fmt.Sprintf("%d cases with n=%d", counts[n], n))
	}
	return &table.Text{Body: fmt.Sprintf("Each file holds %s records. Samples: %s.", table.Int(records), strings.Join(cs, ", "))}
}

// bare states, for each bare loop, how much time the pipeline adds to it
// against the 10% target.
func bare(cases []*results.Case) *table.Text {
	var lines []string
	for _, c := range table.Where(cases, filecase.LabelOp, filecase.OpWrite) {
		x, ok := c.Stat(filecase.MetricPipelineRatio)
		if !c.OK() || !ok {
			continue
		}
		verdict := "within the 10% target"
		switch {
		case x.Median > 1.10:
			verdict = "OVER the 10% target"
		case x.Hi > 1.10:
			verdict = "within the 10% target (median); the interval reaches past it"
		}
		f := c.Labels.Get(filecase.LabelFormat)
		lines = append(lines, fmt.Sprintf("%s vs %s + %s: %s — the pipeline takes %s against the bare loop's time (median of %d paired samples; interval %s … %s at %s confidence).",
			f, strings.TrimSuffix(f, "-bare"), c.Labels.Get(filecase.LabelCodec), verdict, table.SignedPct(x.Median-1), x.N, table.SignedPct(x.Lo-1), table.SignedPct(x.Hi-1), table.Pct(x.Confidence)))
	}
	return table.Findings(lines)
}

// unbuffered says what the seed's anomaly costs in this run: the
// unbuffered write per record against the same write buffered and the
// format's fastest compressed write.
func unbuffered(cases []*results.Case) *table.Text {
	us := table.Where(cases, filecase.LabelVariant, filecase.VariantUnbuffered, filecase.LabelOp, filecase.OpWrite)
	if len(us) == 0 {
		return nil
	}
	u := us[0]
	perRecord, codec := filecase.PerRecord, u.Labels.Get(filecase.LabelCodec)
	// The same write buffered (the last such case) and the fastest per record at any other codec.
	writes := table.Where(cases, filecase.LabelFormat, u.Labels.Get(filecase.LabelFormat), filecase.LabelOp, filecase.OpWrite, filecase.LabelVariant, "")
	buffered := table.NewIndex(writes, filecase.LabelCodec).Get(codec)
	fastest := table.Least(slices.DeleteFunc(slices.Clone(writes), func(c *results.Case) bool { return c.Labels.Get(filecase.LabelCodec) == codec }), perRecord)
	body := "The seed measured MsgPack Plain at 22 s to write and under a second with every compressor. " +
		"Its harness handed the encoder's output straight to the file: every small write the encoder makes (a key, a value) became a system call. " +
		"A compressor buffers internally, so the compressed variants hid the missing buffer. " +
		"Here the same write is run on purpose without any buffer (filebench's Unbuffered option) next to the standard buffered pipeline. " +
		"Its cost is one system call per encoder write, linear in the records, so it runs on the first records only and is compared per record."
	if x := perRecord(u) / perRecord(buffered); !math.IsNaN(x) {
		body += fmt.Sprintf(" In this run the unbuffered write takes %s the buffered one per record", table.Times(x))
		if fastest != nil {
			body += fmt.Sprintf(" and %s the fastest compressed write (%s + %s)", table.Times(perRecord(u)/perRecord(fastest)), fastest.Labels.Get(filecase.LabelFormat), fastest.Labels.Get(filecase.LabelCodec))
		}
		if n := buffered.Metrics[filecase.MetricRecords]; u.Metrics[filecase.MetricRecords] < n {
			body += fmt.Sprintf("; at the full %s records that would be about %s", table.Int(n), table.Duration(perRecord(u)*n))
		}
		body += "."
	}
	return &table.Text{Body: body}
}
