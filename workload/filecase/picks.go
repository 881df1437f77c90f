package filecase

import "github.com/serbench/serbench/results"

// A Pick is one top performer or use-case recommendation that the rules
// (TopRules, UseCaseRules) chose from a file workload's run.
type Pick struct {
	// Name is the metric or use case ("Fastest write", "Data archival");
	// Rule states the criterion in words.
	Name, Rule string
	// Point is the pair chosen, with its times and sizes.
	Point
	// Cases are the pair's cases by op.
	Cases map[string]*results.Case
}

// Picks applies the rules — the top performers, then the use cases —
// to the cases of the named file workload, among the pairs whose write and
// read both succeeded. A rule no pair qualifies for is left out.
func Picks(workloadName string, run *results.Run, cases []*results.Case) []Pick {
	ok, pts := group(workloadName, run, cases).points()
	var out []Pick
	for _, r := range append(TopRules(), UseCaseRules()...) {
		if i := r.Pick(pts); i >= 0 {
			out = append(out, Pick{Name: r.Name, Rule: r.Rule, Point: ok[i].Point, Cases: ok[i].op})
		}
	}
	return out
}

// PicksByName is Picks by rule name ("Smallest file": its pick).
func PicksByName(workloadName string, run *results.Run, cases []*results.Case) map[string]Pick {
	out := map[string]Pick{}
	for _, p := range Picks(workloadName, run, cases) {
		out[p.Name] = p
	}
	return out
}
