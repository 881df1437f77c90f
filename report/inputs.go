package report

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/results"
)

// IdentityKeys are the facts that say what a workload measured — the
// user's input file, its rows and columns (data), a query and the rows it
// returns (pgscan --query) — as a run records them in its environment:
// under "<workload>.<key>" in results.Env.Extra, where the run copies each
// plan's Env. They are the keys the workloads name in
// workload.Plan.Identity, which the results do not record: a workload
// that declares a new identity key must add it here for compare to check
// it. (run checks the same facts when a run is resumed.)
var IdentityKeys = []string{"input", "rows", "columns", "query", "query_rows"}

// DifferentInputs says how old and new measured different data, in one
// line for a person: their scales, and for each workload both recorded,
// the identity facts (IdentityKeys) both recorded — "OLD measured data
// with input movies.jsonl (10,000 rows, 5 columns), NEW with github.csv
// (336,776 rows, 12 columns)". It returns "" when nothing both runs
// recorded differs. An input file is compared by its name, not its
// directory: the same file on two machines lives in two places, and its
// rows and columns tell two files of one name apart.
func DifferentInputs(old, new *results.Run) string {
	var out []string
	if a, b := old.Env.Scale, new.Env.Scale; a != "" && b != "" && a != b {
		out = append(out, "OLD ran at scale "+a+", NEW at scale "+b)
	}
	facts := func(r *results.Run) map[string]map[string]string {
		m := map[string]map[string]string{}
		for k, v := range r.Env.Extra {
			w, key, ok := strings.Cut(k, ".")
			if !ok || !slices.Contains(IdentityKeys, key) {
				continue
			}
			if key == "input" {
				v = filepath.Base(v)
			}
			if m[w] == nil {
				m[w] = map[string]string{}
			}
			m[w][key] = v
		}
		return m
	}
	of, nf := facts(old), facts(new)
	workloads := make([]string, 0, len(of))
	for w := range of {
		workloads = append(workloads, w)
	}
	slices.Sort(workloads)
	for _, w := range workloads {
		o, n := of[w], nf[w]
		if n == nil {
			continue
		}
		var keys []string
		differ := false
		for _, k := range IdentityKeys {
			a, ok1 := o[k]
			b, ok2 := n[k]
			if ok1 && ok2 {
				keys = append(keys, k)
				differ = differ || a != b
			}
		}
		if differ {
			out = append(out, "OLD measured "+w+" with "+describeInput(o, keys)+", NEW with "+describeInput(n, keys))
		}
	}
	return strings.Join(out, "; ")
}

// describeInput names what a workload measured from its identity facts
// keys: "input movies.jsonl (10,000 rows, 5 columns)", "query `select 1`
// (1 rows)", "10,000 rows".
func describeInput(facts map[string]string, keys []string) string {
	var what string
	var counts []string
	count := func(v, unit string) string {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			v = table.Int(f)
		}
		return v + " " + unit
	}
	for _, k := range keys {
		v := facts[k]
		switch k {
		case "input":
			what = "input " + v
		case "query":
			what = "query `" + v + "`"
		case "rows", "query_rows":
			counts = append(counts, count(v, "rows"))
		case "columns":
			counts = append(counts, count(v, "columns"))
		default:
			counts = append(counts, k+" "+v)
		}
	}
	switch {
	case what == "":
		return strings.Join(counts, ", ")
	case len(counts) == 0:
		return what
	}
	return what + " (" + strings.Join(counts, ", ") + ")"
}
