package features

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// seedClaim is one of the seed report's key findings at int32 and the
// size it was made at, as this run can check it: a's value of metric
// lies below b's (a is faster, or smaller).
type seedClaim struct {
	n      string
	a, b   string
	op     string
	metric string // results.UnitNsPerOp, results.UnitAllocsPerOp or MetricSerialized
	text   string
	// seed is the seed's own figure, quoted beside this run's.
	seed string
}

// seedClaims are the seed's key findings (its summary), at int32.
var seedClaims = []seedClaim{
	{"100000", "psdb", "proto3", "encode", results.UnitNsPerOp, "psdb encodes 35% faster than proto3 at 100,000 features", "359,932 ns vs 556,541 ns, 0.65×"},
	{"100000", "arrow", "psdb", "encode", results.UnitNsPerOp, "Arrow encodes 3× faster than psdb at 100,000 features (\"67% slower\")", "118,489 ns vs 359,932 ns, 0.33×"},
	{"100", "psdb", "arrow", "encode", results.UnitNsPerOp, "psdb encodes 6× faster than Arrow at 100 features", "625 ns vs 3,831 ns, 0.16×"},
	{"100000", "psdb", "proto3", "encode", MetricSerialized, "psdb blocks are 18% smaller than proto3's", "400,009 B vs 487,225 B, 82.1%"},
	{"100000", "psdb", "arrow", "encode", results.UnitAllocsPerOp, "psdb makes 93% fewer allocations than Arrow", "4 vs 66 allocs/op"},
}

// smallScale is the seed's claim that psdb excels at small-to-medium
// scales: the fastest encoder of the seed's three formats at each of
// these sizes, with the seed's times (psdb, proto3, arrow).
var smallScale = []struct{ n, seed string }{
	{"100", "psdb 625 ns vs proto3 696 ns and arrow 3,831 ns"},
	{"1000", "psdb 4,056 ns vs proto3 6,004 ns and arrow 5,191 ns"},
}

// psdbHeader is the size of a psdb block's header (layout 1): the seed
// sizes every int32 block at it plus the raw values, exactly.
const psdbHeader = 9

// measured is what a run's cases hold: the cases by subject, type, n and
// op, and the label values in report order.
type measured struct {
	ix                     *table.Index
	subjects, types, sizes []string
	// limit is the limit row's subject (results before roles: memcpy).
	limit string
}

func measure(cases []*results.Case) measured {
	m := measured{ix: table.NewIndex(cases, "subject", "type", "n", "op"), subjects: table.Distinct(cases, "subject"), sizes: table.Distinct(cases, "n"),
		limit: table.SubjectWithRole(cases, results.RoleLimit, "memcpy")}
	// The types measured, in the report's order.
	seen := table.Distinct(cases, "type")
	m.types = slices.DeleteFunc(typesOf(""), func(t string) bool { return !slices.Contains(seen, t) })
	return m
}

// seedType is the seed's type (int32) when measured, else the first.
func (m measured) seedType() string {
	if slices.Contains(m.types, string(ds.Int32)) || len(m.types) == 0 {
		return string(ds.Int32)
	}
	return m.types[0]
}

// Derive implements workload.Workload: the findings and what the limit
// row under psdb's goal tables does, from the run's results.
func (*Workload) Derive(run *results.Run, cases []*results.Case) table.Derived {
	m := measure(cases)
	if len(m.sizes) == 0 {
		return nil
	}
	d := table.Derived{"findings": {table.Findings(findings(m))}}
	if slices.Contains(m.subjects, m.limit) && slices.Contains(m.subjects, baseline) {
		d["limit-note"] = []table.Block{&table.Text{Body: limitNote(run, m.limit)}}
	}
	return d
}

// findings says what a reader should take away: the seed type's fastest
// subject and its gap to the limit row, psdb against its goal, and the
// seed's key findings checked one by one.
func findings(m measured) []string {
	typ, n := m.seedType(), m.sizes[len(m.sizes)-1]
	var lines []string
	readers := slices.DeleteFunc(slices.Clone(m.subjects), func(s string) bool { return s == m.limit })
	for _, op := range ops {
		best := table.Fastest(m.ix.Across(readers, typ, n, op)...)
		if best == nil {
			continue
		}
		line := fmt.Sprintf("Fastest %s of %s at N = %s: **%s**, %s", op, typ, table.IntLabel(n), best.Labels.Get("subject"), table.TimeText(best))
		if lim := m.ix.Get(m.limit, typ, n, op); lim != nil {
			line += fmt.Sprintf(", at %s the %s row's time", table.RatioText(best, results.UnitVsLimit, lim), m.limit)
		}
		lines = append(lines, line+".")
	}
	if l := goalFinding(m); l != "" {
		lines = append(lines, l)
	}
	return append(lines, seedLines(m)...)
}

// seedLines checks the seed's key findings at int32 against this run,
// each with the seed's figure beside this run's; a claim whose cases this
// run did not measure is left out.
func seedLines(m measured) []string {
	var lines []string
	for _, cl := range seedClaims {
		a, b := m.ix.Get(cl.a, "int32", cl.n, cl.op), m.ix.Get(cl.b, "int32", cl.n, cl.op)
		if a == nil || b == nil || !a.OK() || !b.OK() {
			continue
		}
		var v table.Claim
		var here string
		switch cl.metric {
		case results.UnitNsPerOp:
			var r table.Interval
			v, r = table.FasterThan(a, b)
			here = fmt.Sprintf("%s %s vs %s %s, ratio %s", cl.a, table.ClaimTime(a), cl.b, table.ClaimTime(b), r.Text(table.Times))
			if u := table.Unsettled(v, r); u != "" {
				here += "; " + u
			}
		default:
			f := table.ExactBytes
			if cl.metric == results.UnitAllocsPerOp {
				f = func(x float64) string { return table.Count(x) + " allocs/op" }
			}
			x, y := table.IntervalOf(a, cl.metric), table.IntervalOf(b, cl.metric)
			v = table.Below(x, y)
			here = fmt.Sprintf("%s %s vs %s %s", cl.a, x.Text(f), cl.b, y.Text(f))
			if q := table.Quotient(x, y); q.Exact && cl.metric == MetricSerialized {
				here += ", " + table.Pct(q.V)
			}
			if u := table.Unsettled(v, x, y); u != "" {
				here += "; " + u
			}
		}
		lines = append(lines, table.SeedLine(cl.text, cl.seed, v, here))
	}
	if l := smallScaleLine(m); l != "" {
		lines = append(lines, l)
	}
	if l := headerLine(m); l != "" {
		lines = append(lines, l)
	}
	return lines
}

// smallScaleLine checks the seed's claim that psdb excels at small to
// medium scales: at each such size measured, psdb encodes int32 faster
// than proto3 and Arrow (the seed's three formats).
func smallScaleLine(m measured) string {
	var parts []table.Claim
	var here, seed []string
	for _, z := range smallScale {
		p := m.ix.Get("psdb", "int32", z.n, "encode")
		others := []*results.Case{m.ix.Get("proto3", "int32", z.n, "encode"), m.ix.Get("arrow", "int32", z.n, "encode")}
		if p == nil || !p.OK() || slices.ContainsFunc(others, func(c *results.Case) bool { return c == nil || !c.OK() }) {
			continue
		}
		v, rival := table.FastestOf(p, others)
		parts = append(parts, v)
		at := fmt.Sprintf("N = %s: psdb %s vs proto3 %s and arrow %s", table.IntLabel(z.n), table.ClaimTime(p), table.ClaimTime(others[0]), table.ClaimTime(others[1]))
		if v == table.Inconclusive {
			_, r := table.FasterThan(p, rival)
			at += " (against " + rival.Labels.Get("subject") + ": " + table.Unsettled(v, r) + ")"
		}
		here, seed = append(here, at), append(seed, "N = "+table.IntLabel(z.n)+": "+z.seed)
	}
	if len(parts) == 0 {
		return ""
	}
	return table.SeedLine("psdb is the fastest int32 encoder of psdb, proto3 and Arrow at small to medium scales", strings.Join(seed, "; "), table.All(parts...), strings.Join(here, "; "))
}

// headerLine checks the seed's layout: every int32 block psdb wrote is
// the raw values plus its 9-byte header, exactly (sizes are a property
// of the format, so they must match the seed's to the byte).
func headerLine(m measured) string {
	var sizes []string
	ok := true
	for _, n := range m.sizes {
		c := m.ix.Get("psdb", "int32", n, "encode")
		if c == nil || !c.OK() || c.Metrics[MetricRaw] == 0 {
			continue
		}
		got, raw := c.Metrics[MetricSerialized], c.Metrics[MetricRaw]
		ok = ok && got == raw+psdbHeader
		sizes = append(sizes, fmt.Sprintf("%s at %s", table.ExactBytes(got), table.IntLabel(n)))
	}
	if len(sizes) == 0 {
		return ""
	}
	return table.SeedLine("a psdb block is its 9-byte header and the raw data", "409 B at 100 … 400,009 B at 100,000", table.Decided(ok), "int32 blocks of "+strings.Join(sizes, ", "))
}

// limitNote says what the run's limit row did, from its recorded
// descriptor.
func limitNote(run *results.Run, limit string) string {
	d := run.Descriptor(Name, "subject", limit)
	if d == nil {
		return "The " + limit + " row has no recorded descriptor (a results file from before descriptors): it copied the raw packed bytes of every type."
	}
	note := "What the " + limit + " row does: " + d.What + "."
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(d.Settings)) {
		parts = append(parts, k+": "+d.Settings[k])
	}
	if len(parts) > 0 {
		note += " Per type — " + strings.Join(parts, "; ") + "."
	}
	return note
}

// goalFinding summarizes psdb against its type's limit: in how many
// (type, N, op) cells with a goal it is met, and the worst misses.
func goalFinding(m measured) string {
	var misses []table.Ranked // by how far off the goal
	cells := 0
	for _, typ := range m.types {
		for _, n := range m.sizes {
			g, ok := goals[n]
			for _, op := range ops {
				// In-round, else the ratio of the medians, as in the goal table.
				x := table.Ratio(m.ix.Get(baseline, typ, n, op), results.UnitVsLimit, m.ix.Get(m.limit, typ, n, op))
				if !ok || !x.Num() {
					continue
				}
				r := x.V
				cells++
				if r > g {
					misses = append(misses, table.Ranked{Line: fmt.Sprintf("%s %s N = %s (%s)", typ, op, table.IntLabel(n), table.Times(r)), By: r / g})
				}
			}
		}
	}
	if cells == 0 {
		return ""
	}
	line := fmt.Sprintf("psdb within its goal of its type's %s row (3× at N = 100, 2× at 1,000 and 100,000) in **%d of %d** cells", m.limit, cells-len(misses), cells)
	if len(misses) == 0 {
		return line + "."
	}
	return line + "; furthest off: " + strings.Join(table.LargestFirst(misses, 6, "%d more"), ", ") + "."
}

// Summary implements workload.Workload: the seed's type at the largest
// N (layout.go).
func (*Workload) Summary(_ *results.Run, cases []*results.Case) *table.Table {
	return summary.First(cases)
}
