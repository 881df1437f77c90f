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
var seedClaims = []seedClaim{
	{"100000", "psdb", "proto3", "encode", results.UnitNsPerOp, 359932.0 / 556541, "psdb encodes 35% faster than proto3 at 100,000 features"},
	{"100000", "psdb", "arrow", "encode", results.UnitNsPerOp, 359932.0 / 118489, "Arrow encodes 3× faster than psdb at 100,000 features (\"67% slower\")"},
	{"100", "psdb", "arrow", "encode", results.UnitNsPerOp, 625.0 / 3831, "psdb encodes 6× faster than Arrow at 100 features"},
	{"100000", "psdb", "proto3", "encode", MetricSerialized, 1 - 0.18, "psdb blocks are 18% smaller than proto3's"},
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
	for _, cl := range seedClaims {
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
		lines = append(lines, fmt.Sprintf("Seed: %s — %s here (%s).", cl.text, table.Held((got < 1) == (cl.ratio < 1)), how))
	}
	return lines
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
