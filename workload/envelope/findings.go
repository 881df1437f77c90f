package envelope

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	ds "github.com/serbench/serbench/dataset/envelope"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// The goal the report judges the header-only read by, at the largest
// named size: this many times faster than the baseline's full unmarshal,
// with at most this many allocations.
const (
	targetSpeedup = 100
	targetAllocs  = 2
)

// sweepName matches the size labels of the power-of-two sweep ("8B",
// "64KiB", "4MiB"); every other size label is one of the seed's names.
var sweepName = regexp.MustCompile(`^[0-9]+(B|KiB|MiB)$`)

// measured indexes one run's cases of this workload for the derived
// blocks; everything in it comes from the recorded results.
type measured struct {
	ix           *table.Index // subject, size, op
	subjects     []string     // in case order
	baseline     string       // the subject with the baseline role
	sizes, named []ds.Size    // every size present, and the seed's named ones, smallest first
	// outerOnly are the subjects whose header read is the outer-only
	// unmarshal (their header cases carry noteOuterOnly).
	outerOnly []string
}

func measure(cases []*results.Case) measured {
	m := measured{ix: table.NewIndex(cases, LabelSubject, "size", "op"), subjects: table.Distinct(cases, LabelSubject),
		baseline: table.SubjectWithRole(cases, results.RoleBaseline, Baseline)}
	for _, c := range cases {
		name, s := c.Labels.Get("size"), c.Labels.Get(LabelSubject)
		if b, err := strconv.Atoi(c.Labels.Get("bytes")); err == nil && !slices.ContainsFunc(m.sizes, func(z ds.Size) bool { return z.Name == name }) {
			m.sizes = append(m.sizes, ds.Size{Name: name, Bytes: b})
		}
		if c.Labels.Get("op") == OpHeader && slices.Contains(c.Notes, noteOuterOnly) && !slices.Contains(m.outerOnly, s) {
			m.outerOnly = append(m.outerOnly, s)
		}
	}
	slices.SortStableFunc(m.sizes, func(a, b ds.Size) int { return cmp.Compare(a.Bytes, b.Bytes) })
	m.named = slices.DeleteFunc(slices.Clone(m.sizes), func(z ds.Size) bool { return sweepName.MatchString(z.Name) })
	return m
}

// Derive implements workload.Workload: the findings, the header-only
// read against its goal, the payload sweep's plots, where flat overtakes
// wrapped and the serialized sizes.
func (*Workload) Derive(run *results.Run, cases []*results.Case) table.Derived {
	m := measure(cases)
	if len(m.named) == 0 {
		return nil
	}
	seed, crossings := m.crossover()
	return table.Derived{"findings": {table.Findings(append(seed, m.fastest()...))}, "header-target": m.headerTarget(),
		"sweep": m.sweep(run), "crossover": crossings, "size": {m.serialized()}}
}

// crossing is where lib's flat layout (op fop) overtakes its wrapped
// one (op wop), from their medians at every size where both were measured.
func (m measured) crossing(lib, fop, wop string) crossing {
	var pts []point
	for _, z := range m.sizes {
		f, w := m.ix.Get(lib+"-flat", z.Name, fop), m.ix.Get(lib+"-wrapped", z.Name, wop)
		if f != nil && w != nil && f.OK() && w.OK() {
			fs, _ := f.Stat(results.UnitNsPerOp)
			ws, _ := w.Stat(results.UnitNsPerOp)
			pts = append(pts, point{bytes: float64(z.Bytes), flat: fs.Median, wrapped: ws.Median, overlap: fs.Lo <= ws.Hi && ws.Lo <= fs.Hi})
		}
	}
	return findCrossover(pts)
}

// crossover says, for each library measured in both layouts, where flat
// overtakes wrapped: for the findings, marshal against the seed's ~16 KiB;
// for its section, marshal and unmarshal with how many sizes were within
// the noise, and the allocations wrapping saves on unmarshal.
func (m measured) crossover() (seed []string, blocks []table.Block) {
	var lines []string
	allocs := &table.Table{
		Caption: "unmarshal allocations (allocs/op): wrapped against flat",
		Header:  []string{"library", "size", "flat", "wrapped (outer only, as in the seed)", "change", "wrapped (outer + inner)", "change"},
		Notes:   []string{"Change = wrapped − flat allocs/op (medians). The seed saw 24 → 14 for the outer-only decode: the inner message's nested types are not decoded. msgp-wrapped has no outer-only decode (its header read is a map scan)."},
	}
	for _, s := range m.subjects {
		lib, ok := strings.CutSuffix(s, "-flat")
		if !ok || !slices.Contains(m.subjects, lib+"-wrapped") {
			continue
		}
		c := m.crossing(lib, OpMarshal, OpMarshal)
		line := c.verdict(lib + " marshal")
		if c.kind == crossAt && c.estimate >= 4<<10 && c.estimate <= 64<<10 {
			line += " Seed (crossover near 16 KiB): **held**."
		} else if c.hi > 0 {
			line += " Seed (crossover near 16 KiB): **not held**."
		}
		seed, lines = append(seed, line), append(lines, c.sentence(lib+" marshal"))
		outer := slices.Contains(m.outerOnly, lib+"-wrapped")
		if outer {
			lines = append(lines, m.crossing(lib, OpUnmarshal, OpHeader).sentence(lib+" unmarshal, wrapped (outer only, as in the seed)"))
		}
		lines = append(lines, m.crossing(lib, OpUnmarshal, OpUnmarshal).sentence(lib+" unmarshal, wrapped (outer + inner)"))
		for _, z := range m.named {
			f, w, o := m.ix.Get(s, z.Name, OpUnmarshal), m.ix.Get(lib+"-wrapped", z.Name, OpUnmarshal), (*results.Case)(nil)
			if outer {
				o = m.ix.Get(lib+"-wrapped", z.Name, OpHeader)
			}
			if f != nil {
				allocs.AddRow(table.Str(lib), table.StrV(z.Name, float64(z.Bytes)), allocsCell(f), allocsCell(o), allocChange(o, f), allocsCell(w), allocChange(w, f))
			}
		}
	}
	if len(lines) == 0 {
		return nil, nil
	}
	if allocs.Empty() {
		allocs = nil
	}
	return seed, []table.Block{table.Findings(lines), &table.Text{Body: "The crossover is computed from the medians: the first payload size after the last one at which flat is not faster than wrapped. " +
		"The interpolated size is where the log of flat ÷ wrapped, linear in log size between those two points, reaches zero. " +
		"Where the confidence intervals of the two overlap, the order at that size is not established; a noisy machine can move the crossover. " +
		"The seed found wrapped faster below about 16 KiB and flat faster above, for marshal and for (outer-only) unmarshal."}, allocs}
}

// fastest names the fastest marshal and unmarshal at the smallest and
// largest named sizes, against the baseline.
func (m measured) fastest() []string {
	var lines []string
	for _, z := range slices.Compact([]ds.Size{m.named[0], m.named[len(m.named)-1]}) {
		for _, op := range []string{OpMarshal, OpUnmarshal} {
			var best *results.Case
			for _, s := range m.subjects {
				if c := m.ix.Get(s, z.Name, op); c != nil && c.OK() && (best == nil || ns(c) < ns(best)) {
					best = c
				}
			}
			if best == nil {
				continue
			}
			s := best.Labels.Get(LabelSubject)
			line := fmt.Sprintf("Fastest %s at %s: **%s**, %s", op, z.Name, s, table.TimeText(best))
			if base := m.ix.Get(m.baseline, z.Name, op); s != m.baseline && base != nil && base.OK() {
				line += fmt.Sprintf(" (%s vs %s)", table.FasterText(best, base), m.baseline)
			}
			lines = append(lines, line+".")
		}
	}
	return lines
}

// headerTarget sets each subject's header-only read at the largest named
// size against its own full unmarshal and the baseline's, and judges it
// by the goal.
func (m measured) headerTarget() []table.Block {
	z := m.named[len(m.named)-1]
	base := m.ix.Get(m.baseline, z.Name, OpUnmarshal)
	t := &table.Table{
		Caption: fmt.Sprintf("header-only read at %s (%s B payload) against full unmarshal", z.Name, table.Int(float64(z.Bytes))),
		Header: []string{"subject", "header", "B/op / allocs/op", "own full unmarshal", "speed-up vs own unmarshal",
			"speed-up vs " + m.baseline + " unmarshal", fmt.Sprintf("target (≥%d×, ≤%d allocs)", targetSpeedup, targetAllocs)},
		Notes: []string{fmt.Sprintf("Speed-up = full unmarshal ns/op ÷ header ns/op (medians, same run). Goal: at the largest named size, the header-only read at least %d× faster than the full unmarshal of the flat protobuf message, with 0–%d allocs/op.", targetSpeedup, targetAllocs),
			"Readers that scan the wire form (protowire, msgp.Skip) or access fields in place (FlatBuffers) skip the payload without copying it and return strings aliasing the input; the outer-only unmarshal of the wrapped protobuf layouts copies the inner bytes, so its cost grows with the payload."},
	}
	met, total := 0, 0
	for _, s := range m.subjects {
		h, own := m.ix.Get(s, z.Name, OpHeader), m.ix.Get(s, z.Name, OpUnmarshal)
		if h == nil {
			continue
		}
		x, verdict := speedup(base, h), table.Dash()
		if a, _ := h.Median(results.UnitAllocsPerOp); x.Kind == table.Value {
			total, verdict = total+1, table.Str("not met")
			if x.V >= targetSpeedup && a <= targetAllocs {
				met, verdict = met+1, table.Str("met")
			}
		}
		t.AddRow(table.Str(s), table.Time(h), table.Mem(h), table.Time(own), speedup(own, h), x, verdict)
	}
	if t.Empty() {
		return nil
	}
	var verdicts *table.Text
	if total > 0 {
		verdicts = &table.Text{Body: fmt.Sprintf("At %s, %d of %d header-only readers meet the target.", z.Name, met, total)}
	}
	return []table.Block{t, verdicts}
}

// sweep plots each sweep op's time against payload size, every size
// measured, with the outer-only reads beside the full unmarshal.
func (m measured) sweep(run *results.Run) []table.Block {
	var blocks []table.Block
	for _, op := range sweepOps {
		ch := &table.LineChart{Title: "envelope: " + op, XLabel: "payload", YLabel: "time per op", LogX: true, LogY: true,
			XFormat: table.Bytes, YFormat: table.Duration, BinaryX: true, Palette: table.RunPalette(run)}
		for _, s := range m.subjects {
			ch.Series = append(ch.Series, m.series(s, s, op)...)
		}
		for _, s := range m.outerOnly {
			if op == OpUnmarshal {
				ch.Series = append(ch.Series, m.series(s+" (outer only)", s, OpHeader)...)
			}
		}
		if len(ch.Series) > 0 {
			blocks = append(blocks, &table.Plot{File: "envelope-" + op + ".svg", Chart: ch,
				Caption: ch.Title + " — time per op against payload size, log-log; bars: the median's confidence interval"})
		}
	}
	if len(blocks) == 0 {
		return nil
	}
	var named []string
	for _, z := range m.named {
		named = append(named, z.Name+" = "+table.Int(float64(z.Bytes))+" B")
	}
	return append(blocks, &table.Text{Body: fmt.Sprintf("Points are every payload size measured (%s – %s): the power-of-two sweep and the seed's named sizes (%s). Wrapped unmarshal is outer + inner; \"(outer only)\" lines are the seed's WrappedUnmarshal.",
		sizeText(float64(m.sizes[0].Bytes)), sizeText(float64(m.sizes[len(m.sizes)-1].Bytes)), strings.Join(named, ", "))})
}

// series is subject's median time for op, with its interval, at every
// size measured: none when it has no time.
func (m measured) series(name, subject, op string) []table.Series {
	ser := table.Series{Name: name}
	for _, z := range m.sizes {
		if c := m.ix.Get(subject, z.Name, op); c != nil && c.OK() {
			st, _ := c.Stat(results.UnitNsPerOp)
			ser.X, ser.Y = append(ser.X, float64(z.Bytes)), append(ser.Y, st.Median)
			ser.Lo, ser.Hi = append(ser.Lo, st.Lo), append(ser.Hi, st.Hi)
		}
	}
	if len(ser.X) == 0 {
		return nil
	}
	return []table.Series{ser}
}

// serialized is each subject's encoded envelope at the named sizes, from
// the first of its cases there that recorded it, with the bytes it adds to
// the payload.
func (m measured) serialized() *table.Table {
	t := &table.Table{Caption: "encoded envelope: bytes (+ bytes beyond the payload)", Header: append([]string{"size", "payload"}, m.subjects...),
		Notes: []string{"Wrapped sizes include the marshalled inner message as one bytes field of the outer message."}}
	for _, z := range m.named {
		row := []table.Cell{table.StrV(z.Name, float64(z.Bytes)), table.Num(float64(z.Bytes), table.IntF)}
		for _, s := range m.subjects {
			// Backwards, so that the first op whose case failed or
			// recorded the size has the last word.
			cell := table.Dash()
			for _, op := range slices.Backward(namedOps[:]) {
				if c := m.ix.Get(s, z.Name, op); c != nil && !c.OK() {
					cell = table.Cell{Kind: table.Failed}
				} else if c != nil && c.Metrics[MetricSerialized] > 0 {
					n := c.Metrics[MetricSerialized]
					cell = table.Cell{Kind: table.Value, V: n, Format: table.IntF, Text: " (+" + table.Int(n-float64(z.Bytes)) + ")"}
				}
			}
			row = append(row, cell)
		}
		t.AddRow(row...)
	}
	return t
}

// Summary implements workload.Workload: at the largest named size (XLarge
// at default scale), each subject's marshal, unmarshal and header-only
// times, the header read's speed-up over the baseline's unmarshal and its
// allocations.
func (*Workload) Summary(_ *results.Run, cases []*results.Case) *table.Table {
	m := measure(cases)
	if len(m.named) == 0 {
		return nil
	}
	z := m.named[len(m.named)-1]
	base := m.ix.Get(m.baseline, z.Name, OpUnmarshal)
	t := &table.Table{Caption: fmt.Sprintf("envelope: %s (%s B payload)", z.Name, table.Int(float64(z.Bytes))),
		Header: []string{"subject", "marshal", "unmarshal", "header", "header vs " + m.baseline + " unmarshal", "header allocs/op"}}
	for _, s := range m.subjects {
		h := m.ix.Get(s, z.Name, OpHeader)
		t.AddRow(table.Str(s), table.Time(m.ix.Get(s, z.Name, OpMarshal)), table.Time(m.ix.Get(s, z.Name, OpUnmarshal)), table.Time(h), speedup(base, h), allocsCell(h))
	}
	return t
}

// ns is c's median ns/op.
func ns(c *results.Case) float64 {
	v, _ := c.Median(results.UnitNsPerOp)
	return v
}

// speedup is how many times faster fast is than slow: slow's median
// ns/op divided by fast's.
func speedup(slow, fast *results.Case) table.Cell {
	if slow == nil || fast == nil || !slow.OK() || !fast.OK() || ns(slow) <= 0 || ns(fast) <= 0 {
		return table.Dash()
	}
	return table.Num(ns(slow)/ns(fast), table.TimesF)
}

// allocsCell is c's median allocs/op.
func allocsCell(c *results.Case) table.Cell {
	return table.Median(c, results.UnitAllocsPerOp, table.CountF)
}

// allocChange is c's allocs/op minus base's, signed.
func allocChange(c, base *results.Case) table.Cell {
	if c == nil || base == nil || !c.OK() || !base.OK() {
		return table.Dash()
	}
	a, _ := c.Median(results.UnitAllocsPerOp)
	b, _ := base.Median(results.UnitAllocsPerOp)
	if a > b {
		return table.StrV("+"+table.Count(a-b), a-b)
	}
	return table.StrV(table.Count(a-b), a-b)
}
