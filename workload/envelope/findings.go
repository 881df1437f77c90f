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

// Derive implements workload.Workload: the findings, the verdicts on the
// header-only read's goal, the sweep's sizes and where flat overtakes
// wrapped.
func (*Workload) Derive(run *results.Run, cases []*results.Case) table.Derived {
	m := measure(cases)
	if len(m.named) == 0 {
		return nil
	}
	seed, crossings := m.crossover()
	return table.Derived{"findings": {table.Findings(append(seed, m.fastest()...))}, "header-target": {m.headerTarget()},
		"sweep": {m.sweepText()}, "crossover": crossings}
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
			faster, _ := table.FasterThan(w, f)
			pts = append(pts, point{bytes: float64(z.Bytes), flat: fs.Median, wrapped: ws.Median, overlap: fs.Lo <= ws.Hi && ws.Lo <= fs.Hi, wrappedFaster: faster})
		}
	}
	return findCrossover(pts)
}

// The seed's crossover, "about 16 KiB", read as a band of sizes: the
// crossover is near it when it lies above nearLo and at or below nearHi,
// a factor of four either side (two steps of the power-of-two sweep).
const (
	nearLo = 4 << 10
	nearHi = 64 << 10
)

// seedCrossover is the seed's figure for its crossover claims.
const seedCrossover = "wrapped faster below about 16 KiB, flat faster above"

// crossover says, for each library measured in both layouts, where flat
// overtakes wrapped: for the findings, the seed's claims (marshal and,
// where the wrapped layout has one, outer-only unmarshal near 16 KiB; the
// outer-only unmarshal's fewer allocations); for its section, marshal and
// unmarshal with how many sizes were within the noise.
func (m measured) crossover() (seed []string, blocks []table.Block) {
	var lines []string
	for _, s := range m.subjects {
		lib, ok := strings.CutSuffix(s, "-flat")
		if !ok || !slices.Contains(m.subjects, lib+"-wrapped") {
			continue
		}
		c := m.crossing(lib, OpMarshal, OpMarshal)
		if l := c.seedLine(lib + " marshal"); l != "" {
			seed = append(seed, l)
		}
		lines = append(lines, c.sentence(lib+" marshal"))
		if slices.Contains(m.outerOnly, lib+"-wrapped") {
			u := m.crossing(lib, OpUnmarshal, OpHeader)
			if l := u.seedLine(lib + " unmarshal (wrapped: the outer message only, as in the seed)"); l != "" {
				seed = append(seed, l)
			}
			lines = append(lines, u.sentence(lib+" unmarshal, wrapped (outer only, as in the seed)"))
		}
		lines = append(lines, m.crossing(lib, OpUnmarshal, OpUnmarshal).sentence(lib+" unmarshal, wrapped (outer + inner)"))
	}
	if len(lines) == 0 {
		return nil, nil
	}
	if l := m.allocClaim(); l != "" {
		seed = append(seed, l)
	}
	return seed, []table.Block{table.Findings(lines), &table.Text{Body: "The crossover is computed from the medians: the first payload size after the last one at which flat is not faster than wrapped. " +
		"The interpolated size is where the log of flat ÷ wrapped, linear in log size between those two points, reaches zero. " +
		"Where the confidence intervals of the two overlap, the order at that size is not established; a noisy machine can move the crossover. " +
		"The seed found wrapped faster below about 16 KiB and flat faster above, for marshal and for (outer-only) unmarshal. " +
		"Its claim is checked on the sizes where the order is established (the interval of wrapped ÷ flat, taken within each sampling round where both were sampled together, lies wholly on one side of 1): the crossover lies above the largest size at which wrapped is established faster and at or below the next one at which flat is. " +
		"It is held when that bracket lies within " + sizeText(nearLo) + " … " + sizeText(nearHi) + ", not held when it lies outside, and inconclusive when it reaches across (as when the intervals at the sizes next to the crossover overlap)."}}
}

// seedLine checks the seed's crossover claim for what (a library and
// op) against c: "" when nothing was compared.
func (c crossing) seedLine(what string) string {
	if c.n == 0 {
		return ""
	}
	return table.SeedLine(what+": flat overtakes wrapped near 16 KiB, taken as above "+sizeText(nearLo)+" and at most "+sizeText(nearHi), seedCrossover,
		c.near(nearLo, nearHi), c.bracket()+"; by the medians, "+c.byMedians())
}

// allocClaim checks the seed's claim that unmarshalling only the outer
// message of a wrapped layout makes fewer allocations than unmarshalling
// the flat message, at every named size, for each library whose wrapped
// layout has that read; "" when none was measured. Each library is quoted
// at the size that decides its verdict (the largest when all hold).
func (m measured) allocClaim() string {
	var all []table.Claim
	var here []string
	for _, w := range m.outerOnly {
		lib, ok := strings.CutSuffix(w, "-wrapped")
		if !ok {
			continue
		}
		type sized struct {
			z    ds.Size
			a, b table.Interval
		}
		var got []sized
		var parts []table.Claim
		for _, z := range m.named {
			x, y := table.IntervalOf(m.ix.Get(w, z.Name, OpHeader), results.UnitAllocsPerOp), table.IntervalOf(m.ix.Get(lib+"-flat", z.Name, OpUnmarshal), results.UnitAllocsPerOp)
			if x.N > 0 && y.N > 0 {
				v := table.Below(x, y)
				got, parts = append(got, sized{z, x, y}), append(parts, v)
			}
		}
		if len(got) == 0 {
			continue
		}
		// Quoted: the first size with the library's verdict (the one
		// that refutes it, or leaves it open), the largest when it holds.
		v := table.All(parts...)
		q := got[len(got)-1]
		if i := slices.Index(parts, v); v != table.Held && i >= 0 {
			q = got[i]
		}
		at, a, b := q.z, q.a, q.b
		allocs := func(x float64) string { return table.Count(x) }
		h := fmt.Sprintf("%s (outer only) %s vs %s-flat %s allocs/op at %s", w, a.Text(allocs), lib, b.Text(allocs), at.Name)
		if u := table.Unsettled(v, a, b); u != "" {
			h += " (" + u + ")"
		}
		all, here = append(all, v), append(here, h)
	}
	if len(all) == 0 {
		return ""
	}
	return table.SeedLine("unmarshalling only the outer message of a wrapped layout makes fewer allocations than unmarshalling the flat message, at every named size",
		"14 vs 24 allocs/op at every size", table.All(all...), strings.Join(here, "; "))
}

// fastest names the fastest marshal and unmarshal at the smallest and
// largest named sizes, against the baseline.
func (m measured) fastest() []string {
	var lines []string
	for _, z := range slices.Compact([]ds.Size{m.named[0], m.named[len(m.named)-1]}) {
		for _, op := range []string{OpMarshal, OpUnmarshal} {
			best := table.Fastest(m.ix.Across(m.subjects, z.Name, op)...)
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

// headerTarget judges each subject's header-only read at the largest
// named size by the goal: how many times faster than the baseline's full
// unmarshal, and its allocations.
func (m measured) headerTarget() *table.Text {
	z := m.named[len(m.named)-1]
	base := m.ix.Get(m.baseline, z.Name, OpUnmarshal)
	var met, missed []string
	for _, s := range m.subjects {
		h := m.ix.Get(s, z.Name, OpHeader)
		if h == nil || !h.OK() || base == nil || !base.OK() || table.Ns(h) <= 0 {
			continue
		}
		if a, _ := h.Median(results.UnitAllocsPerOp); table.Ns(base)/table.Ns(h) >= targetSpeedup && a <= targetAllocs {
			met = append(met, s)
		} else {
			missed = append(missed, s)
		}
	}
	if len(met)+len(missed) == 0 {
		return nil
	}
	body := fmt.Sprintf("At %s, %d of %d header-only readers meet the target (≥%d× faster than %s's unmarshal, ≤%d allocs/op)", z.Name, len(met), len(met)+len(missed), targetSpeedup, m.baseline, targetAllocs)
	if len(met) > 0 {
		body += "; met: " + strings.Join(met, ", ")
	}
	if len(missed) > 0 {
		body += "; not met: " + strings.Join(missed, ", ")
	}
	return &table.Text{Body: body + "."}
}

// sweepText names the sizes the sweep plots show.
func (m measured) sweepText() *table.Text {
	var named []string
	for _, z := range m.named {
		named = append(named, z.Name+" = "+table.Int(float64(z.Bytes))+" B")
	}
	return &table.Text{Body: fmt.Sprintf("Points are every payload size measured (%s – %s): the power-of-two sweep and the seed's named sizes (%s). Wrapped unmarshal is outer + inner; \"(outer only)\" lines are the seed's WrappedUnmarshal.",
		sizeText(float64(m.sizes[0].Bytes)), sizeText(float64(m.sizes[len(m.sizes)-1].Bytes)), strings.Join(named, ", "))}
}

// Summary implements workload.Workload: the declared summary at the
// largest named size (XLarge at default scale).
func (*Workload) Summary(_ *results.Run, cases []*results.Case) *table.Table {
	return summary.First(cases)
}
