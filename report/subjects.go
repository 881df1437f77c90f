package report

import (
	"strings"

	"github.com/serbench/serbench/results"
)

// SubjectsTable lists what a run recorded about the values of label key
// (usually "subject") that the cases use: role, library and version,
// settings and what each does — from the run's descriptors, never from the
// build rendering the report. It returns nil when the run recorded no
// descriptors for key (a results file from before schema 2).
func SubjectsTable(run *results.Run, workload, key string, cases []*results.Case) *Table {
	var names []string
	seen := map[string]bool{}
	for _, c := range cases {
		if v := c.Labels.Get(key); v != "" && !seen[v] {
			seen[v] = true
			names = append(names, v)
		}
	}
	t := &Table{Header: []string{key, "role", "library", "settings", "what it does"}}
	for _, n := range names {
		d := run.Descriptor(workload, key, n)
		if d == nil {
			continue
		}
		t.Rows = append(t.Rows, []string{n, d.Role, orDash(d.Library()), orDash(d.SettingsString()), d.What})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	// Drop the role column for components (codecs) that have none.
	if key != "subject" {
		for i := range t.Rows {
			t.Rows[i] = append(t.Rows[i][:1], t.Rows[i][2:]...)
		}
		t.Header = append(t.Header[:1:1], t.Header[2:]...)
	}
	return t
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "–"
	}
	return s
}
