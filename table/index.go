package table

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/serbench/serbench/results"
)

// Index finds cases by the values of a fixed list of label keys; the
// builder and the workloads' findings use it to pivot cases into tables.
type Index struct {
	keys []string
	m    map[string]*results.Case
}

// NewIndex indexes cases by the values of keys. When two cases share the
// same values, the later one wins (a re-run case replaces the first).
func NewIndex(cases []*results.Case, keys ...string) *Index {
	ix := &Index{keys: keys, m: make(map[string]*results.Case, len(cases))}
	for _, c := range cases {
		vals := make([]string, len(keys))
		for i, k := range keys {
			vals[i] = c.Labels.Get(k)
		}
		ix.m[strings.Join(vals, "\x00")] = c
	}
	return ix
}

// Get returns the case with these label values (in key order), or nil.
func (ix *Index) Get(vals ...string) *results.Case {
	return ix.m[strings.Join(vals, "\x00")]
}

// Across returns, for each value v of the first key in firsts, the case
// with values v, rest... (nil where there is none): one line of the index,
// such as every subject's case at one size and op.
func (ix *Index) Across(firsts []string, rest ...string) []*results.Case {
	out := make([]*results.Case, len(firsts))
	for i, v := range firsts {
		out[i] = ix.Get(append([]string{v}, rest...)...)
	}
	return out
}

// Distinct returns the distinct values of label key among cases, in order
// of first appearance; cases without the label are skipped.
func Distinct(cases []*results.Case, key string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cases {
		if !c.Labels.Has(key) {
			continue
		}
		v := c.Labels.Get(key)
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// Where returns the cases whose labels have all the given key=value pairs
// (pairs alternate key, value).
func Where(cases []*results.Case, pairs ...string) []*results.Case {
	var out []*results.Case
outer:
	for _, c := range cases {
		for i := 0; i+1 < len(pairs); i += 2 {
			if c.Labels.Get(pairs[i]) != pairs[i+1] {
				continue outer
			}
		}
		out = append(out, c)
	}
	return out
}

// Descriptors returns the run's descriptors of workload with key, in the
// order recorded.
func Descriptors(run *results.Run, workload, key string) []results.Descriptor {
	var out []results.Descriptor
	for _, d := range run.Descriptors {
		if d.Workload == workload && d.Key == key {
			out = append(out, d)
		}
	}
	return out
}

// Least returns the case of cs that succeeded with the lowest by(c), the
// first of equals; nil cases and failed ones are skipped, and nil is
// returned when none is left. NaN never compares lower: a case without a
// value displaces none (but is kept when it comes first).
func Least(cs []*results.Case, by func(*results.Case) float64) *results.Case {
	var best *results.Case
	for _, c := range cs {
		if c != nil && c.OK() && (best == nil || by(c) < by(best)) {
			best = c
		}
	}
	return best
}

// Fastest is the case of cs with the lowest median time (Least by Ns):
// the "fastest X of the group" a finding names.
func Fastest(cs ...*results.Case) *results.Case { return Least(cs, Ns) }

// Timed returns the cases of cs that have a median time (Ns not NaN), in
// order.
func Timed(cs []*results.Case) []*results.Case {
	return slices.DeleteFunc(slices.Clone(cs), func(c *results.Case) bool { return math.IsNaN(Ns(c)) })
}

// ByTime returns the cases of cs that have a median time, fastest first
// (equal times keep their order).
func ByTime(cs []*results.Case) []*results.Case {
	out := Timed(cs)
	slices.SortStableFunc(out, func(a, b *results.Case) int { return cmp.Compare(Ns(a), Ns(b)) })
	return out
}

// FailedCases returns the cases of cs that FAILED (not those skipped, nor
// those whose format cannot hold the data), in order.
func FailedCases(cs []*results.Case) []*results.Case {
	return slices.DeleteFunc(slices.Clone(cs), func(c *results.Case) bool { return !c.Failed() })
}

// CannotHoldCases returns the cases of cs whose format cannot hold the
// data, in order.
func CannotHoldCases(cs []*results.Case) []*results.Case {
	return slices.DeleteFunc(slices.Clone(cs), func(c *results.Case) bool { return !c.CannotHold() })
}

// Tagged returns the names of the run's descriptors of workload with key
// that carry tag, in the order recorded.
func Tagged(run *results.Run, workload, key, tag string) []string {
	var out []string
	for _, d := range Descriptors(run, workload, key) {
		if slices.Contains(d.Tags, tag) {
			out = append(out, d.Name)
		}
	}
	return out
}
