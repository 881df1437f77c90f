package features

import (
	"fmt"
	"slices"
	"strings"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// seedClaim is one of the seed report's key findings, at int32 and the
// size it was made at, as a ratio this run can check: the time (or size,
// or allocations) of a over b.
type seedClaim struct {
	n      string
	a, b   string
	op     string
	metric string // results.UnitNsPerOp, MetricSerialized or results.UnitAllocsPerOp
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

// renderFindings opens the workload with what a reader should take away,
// computed from this run: the seed type's fastest subject and its gap to
// the limit row, and the seed's key findings checked one by one.
func renderFindings(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
	if len(v.sizes) == 0 {
		return nil, nil
	}
	typ := "int32"
	if !slices.Contains(v.types, typ) {
		typ = v.types[0]
	}
	n := v.sizes[len(v.sizes)-1]
	var lines []string
	for _, op := range ops {
		best, bestNs := "", 0.0
		for _, s := range v.subjects {
			c := v.ix.Get(s, typ, n, op)
			if s == v.limit || c == nil || !c.OK() {
				continue
			}
			if ns, _ := c.Median(results.UnitNsPerOp); best == "" || ns < bestNs {
				best, bestNs = s, ns
			}
		}
		if best == "" {
			continue
		}
		c := v.ix.Get(best, typ, n, op)
		line := fmt.Sprintf("Fastest %s of %s at N = %s: **%s**, %s", op, typ, nInt(n), best, table.TimeText(c))
		if lim := v.ix.Get(v.limit, typ, n, op); lim != nil {
			line += fmt.Sprintf(", at %s the %s row's time", table.RatioText(c, results.UnitVsLimit, lim), v.limit)
		}
		lines = append(lines, line+".")
	}
	if l := goalFinding(v); l != "" {
		lines = append(lines, l)
	}
	for _, cl := range seedClaims() {
		if !slices.Contains(v.sizes, cl.n) {
			continue
		}
		a, b := v.ix.Get(cl.a, "int32", cl.n, cl.op), v.ix.Get(cl.b, "int32", cl.n, cl.op)
		if a == nil || b == nil || !a.OK() || !b.OK() {
			continue
		}
		var got float64
		var how string
		switch cl.metric {
		case MetricSerialized:
			got = a.Metrics[MetricSerialized] / b.Metrics[MetricSerialized]
			how = fmt.Sprintf("%s is %s of %s's size", cl.a, table.Pct(got), cl.b)
		default:
			x, y := a.Metrics[cl.metric], b.Metrics[cl.metric]
			if st, ok := a.Stat(cl.metric); ok {
				x = st.Median
			}
			if st, ok := b.Stat(cl.metric); ok {
				y = st.Median
			}
			if y == 0 {
				continue
			}
			got = x / y
			how = fmt.Sprintf("%s: %s vs %s", cl.a, table.FasterText(a, b), cl.b)
		}
		// The claim holds when this run's ratio is on the same side of 1.
		held := (got < 1) == (cl.ratio < 1)
		verdict := "**held**"
		if !held {
			verdict = "**not held**"
		}
		lines = append(lines, fmt.Sprintf("Seed: %s — %s here (%s).", cl.text, verdict, how))
	}
	if len(lines) == 0 {
		return nil, nil
	}
	return []report.Block{table.Findings(lines)}, nil
}

// goalFinding summarizes psdb against its type's limit: in how many
// (type, N, op) cells with a goal it is met, and the worst misses.
func goalFinding(v view) string {
	if !v.has(v.limit) || !v.has(baseline) {
		return ""
	}
	type miss struct {
		where string
		r     float64
	}
	var misses []miss
	cells := 0
	for _, typ := range v.types {
		for _, n := range v.sizes {
			g, ok := goalFor(n)
			if !ok {
				continue
			}
			for _, op := range ops {
				r, ok := limitRatio(v.ix.Get(baseline, typ, n, op), v.ix.Get(v.limit, typ, n, op))
				if !ok {
					continue
				}
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
	line := fmt.Sprintf("psdb within its goal of its type's %s row (3× at N = 100, 2× at 1,000 and 100,000) in **%d of %d** cells", v.limit, cells-len(misses), cells)
	if len(misses) == 0 {
		return line + "."
	}
	slices.SortFunc(misses, func(a, b miss) int {
		if a.r > b.r {
			return -1
		}
		if a.r < b.r {
			return 1
		}
		return 0
	})
	var w []string
	for i, m := range misses {
		if i == 6 {
			w = append(w, fmt.Sprintf("%d more", len(misses)-6))
			break
		}
		w = append(w, m.where)
	}
	return line + "; furthest off: " + strings.Join(w, ", ") + "."
}
