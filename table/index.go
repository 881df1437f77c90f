package table

import (
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
