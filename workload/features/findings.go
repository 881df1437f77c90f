package features

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// seedClaim is one of the seed report's key findings, at int32 and the
// size it was made at, as a ratio this run can check: the time (or size)
// of a over b.
type seedClaim struct {
	n      string
	a, b   string
	op     string
	metric string // results.UnitNsPerOp or MetricSerialized
	// ratio is the seed's a ÷ b.
	ratio float64
	text  string
}

// seedClaims are the seed's key findings (its summary), at int32.
func seedClaims() []seedClaim {
	return []seedClaim{
		{"100000", "psdb", "proto3", "encode", results.UnitNsPerOp, 359932.0 / 556541, "psdb encodes 35% faster than proto3 at 100,000 features"},
		{"100000", "psdb", "arrow", "encode", results.UnitNsPerOp, 359932.0 / 118489, "Arrow encodes 3× faster than psdb at 100,000 features (\"67% slower\")"},
		{"100", "psdb", "arrow", "encode", results.UnitNsPerOp, 625.0 / 3831, "psdb encodes 6× faster than Arrow at 100 features"},
		{"100000", "psdb", "proto3", "encode", MetricSerialized, 1 - 0.18, "psdb blocks are 18% smaller than proto3's"},
	}
}

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
	seen := table.Distinct(cases, "type")
	for _, t := range typesOf("") {
		if slices.Contains(seen, t) {
			m.types = append(m.types, t)
		}
	}
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
	for _, op := range ops {
		var best *results.Case
		for _, s := range m.subjects {
			c := m.ix.Get(s, typ, n, op)
			if s == m.limit || c == nil || !c.OK() {
				continue
			}
			if best == nil || table.Ns(c) < table.Ns(best) {
				best = c
			}
		}
		if best == nil {
			continue
		}
		line := fmt.Sprintf("Fastest %s of %s at N = %s: **%s**, %s", op, typ, nInt(n), best.Labels.Get("subject"), table.TimeText(best))
		if lim := m.ix.Get(m.limit, typ, n, op); lim != nil {
			line += fmt.Sprintf(", at %s the %s row's time", table.RatioText(best, results.UnitVsLimit, lim), m.limit)
		}
		lines = append(lines, line+".")
	}
	if l := goalFinding(m); l != "" {
		lines = append(lines, l)
	}
	for _, cl := range seedClaims() {
		a, b := m.ix.Get(cl.a, "int32", cl.n, cl.op), m.ix.Get(cl.b, "int32", cl.n, cl.op)
		if a == nil || b == nil || !a.OK() || !b.OK() {
			continue
		}
		got := table.Ns(a) / table.Ns(b)
		how := fmt.Sprintf("%s: %s vs %s", cl.a, table.FasterText(a, b), cl.b)
		if cl.metric == MetricSerialized {
			got = a.Metrics[MetricSerialized] / b.Metrics[MetricSerialized]
			how = fmt.Sprintf("%s is %s of %s's size", cl.a, table.Pct(got), cl.b)
		}
		// The claim holds when this run's ratio is on the same side of 1.
		verdict := "**held**"
		if (got < 1) != (cl.ratio < 1) {
			verdict = "**not held**"
		}
		lines = append(lines, fmt.Sprintf("Seed: %s — %s here (%s).", cl.text, verdict, how))
	}
	return lines
}

// nInt writes a size label as an integer with separators.
func nInt(n string) string { return table.Int(table.Number(n)) }

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
	type miss struct {
		where string
		r     float64
	}
	var misses []miss
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
					misses = append(misses, miss{fmt.Sprintf("%s %s N = %s (%s)", typ, op, nInt(n), table.Times(r)), r / g})
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
	slices.SortStableFunc(misses, func(a, b miss) int { return cmp.Compare(b.r, a.r) })
	var w []string
	for _, ms := range misses[:min(6, len(misses))] {
		w = append(w, ms.where)
	}
	if len(misses) > 6 {
		w = append(w, fmt.Sprintf("%d more", len(misses)-6))
	}
	return line + "; furthest off: " + strings.Join(w, ", ") + "."
}

// Summary implements workload.Workload: the seed's type at the largest
// N (layout.go).
func (*Workload) Summary(_ *results.Run, cases []*results.Case) *table.Table {
	if ts, _ := summary.Build(cases); len(ts) > 0 {
		return ts[0]
	}
	return nil
}
