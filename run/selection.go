package run

import (
	"slices"
	"sort"
	"strings"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

// Labels the selection reads from the cases of runners and of the interop
// matrix (runner.Join's and interop.Cell's).
const (
	labelLanguage       = "language"
	labelWriter         = "writer"
	labelReader         = "reader"
	labelWriterLanguage = "writer_language"
	labelReaderLanguage = "reader_language"
	opInterop           = "interop" // interop.OpInterop
	subjectInterop      = "interop" // interop.Subject
)

// runnerSubject reports whether name can only be known once the runners
// have said hello: a language ("python"), a runner's subject
// ("python:orjson", "java:jackson") or the interop matrix. checkSubjects
// leaves such names to checkSelected, which runs on the plans.
func runnerSubject(name string, languages []string) bool {
	return strings.Contains(name, ":") || name == subjectInterop || slices.Contains(languages, name)
}

// selectSubjects keeps, of a plan's cases measured by runners for other
// languages (label language) and of its interop cells (op interop), those
// that --subject selects; the Go cases are the workload's to select
// (workload.Config.WantSubject). A runner case is selected by its subject
// ("python:orjson") or its language ("python"); a runner's limit row
// stays while a subject of its group does. A cell is selected by the
// matrix's subject ("interop"), or by its writer or reader, named as a
// party ("go:jsonl", "python:pyarrow"), a language or, for Go's side, the
// Go subject of the same format ("jsonl").
func selectSubjects(cases []bench.Case, subjects []string) []bench.Case {
	if len(subjects) == 0 {
		return cases
	}
	want := func(names ...string) bool {
		for _, n := range names {
			if n != "" && slices.Contains(subjects, n) {
				return true
			}
		}
		return false
	}
	keep := make([]bool, len(cases))
	groups := map[string]bool{} // runner groups with a selected subject
	for i, c := range cases {
		ls := c.Labels
		switch {
		case ls.Get(results.OpLabel) == opInterop:
			w, r := ls.Get(labelWriter), ls.Get(labelReader)
			keep[i] = want(subjectInterop, w, r, ls.Get(labelWriterLanguage), ls.Get(labelReaderLanguage),
				strings.TrimPrefix(w, "go:"), strings.TrimPrefix(r, "go:"))
		case ls.Get(labelLanguage) == "":
			keep[i] = true // a Go case: selected by its workload
		case c.Role != results.RoleLimit:
			keep[i] = want(ls.Get("subject"), ls.Get(labelLanguage))
			if keep[i] {
				groups[c.Group] = true
			}
		}
	}
	var out []bench.Case
	for i, c := range cases {
		if keep[i] || c.Role == results.RoleLimit && c.Labels.Get(labelLanguage) != "" && groups[c.Group] {
			out = append(out, c)
		}
	}
	return out
}

// checkSelected refuses a --subject name that only the runners or the
// interop matrix could know (runnerSubject; langs are the runners'
// languages) when no planned case has it,
// naming the valid subjects of the plans.
func checkSelected(ws []workload.Workload, plans [][]bench.Case, subjects, langs []string) error {
	valid := map[string]bool{}
	for _, w := range ws {
		for _, s := range w.Subjects() {
			valid[s] = true
		}
	}
	for _, cases := range plans {
		for _, c := range cases {
			ls := c.Labels
			for _, k := range []string{"subject", labelLanguage, labelWriter, labelReader, labelWriterLanguage, labelReaderLanguage} {
				// Go's side of a cell ("go" as its language) is selected
				// by its Go subject, not by a language name.
				if v := ls.Get(k); v != "" && v != "go" && (k == "subject" || k == labelLanguage || ls.Get(results.OpLabel) == opInterop) {
					valid[v] = true
				}
			}
		}
	}
	for _, s := range subjects {
		if runnerSubject(s, langs) && !valid[s] {
			all := make([]string, 0, len(valid))
			for v := range valid {
				all = append(all, v)
			}
			sort.Strings(all)
			return workload.Usagef("unknown subject %q for %s (valid: %s; a runner's subjects need its runner: --runners)", s, strings.Join(names(ws), ", "), strings.Join(all, ", "))
		}
	}
	return nil
}
