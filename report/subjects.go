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

// RatioCell formats a case's time as a multiple of the limit row (unit
// results.UnitVsLimit) or the baseline (results.UnitVsBaseline) of its
// comparison group, from the ratios taken in the same sampling round:
// "3.2× ±4%". When the case has no in-round ratio (a results file from
// before interleaving, or a case measured alone) it falls back to the
// ratio of the two medians, ref being the limit or baseline case.
func RatioCell(c *results.Case, unit string, ref *results.Case) string {
	if c == nil {
		return "–"
	}
	if !c.OK() {
		return statusCell(c)
	}
	if s, ok := c.Stat(unit); ok && s.Median > 0 {
		return WithCI(s, func(v float64) string { return Float(v) + "×" })
	}
	if ref == nil || !ref.OK() {
		return "–"
	}
	a, _ := c.Median(results.UnitNsPerOp)
	b, _ := ref.Median(results.UnitNsPerOp)
	if b == 0 {
		return "–"
	}
	return Float(a/b) + "×" + fewerMark(c, ref)
}

// fewerMark is the sample-count mark (SamplesNote) of a value computed
// from the medians of a and b: that of the one with fewer samples.
func fewerMark(a, b *results.Case) string {
	sa, _ := a.Stat(results.UnitNsPerOp)
	sb, _ := b.Stat(results.UnitNsPerOp)
	return mark(SamplesNote(min(sa.N, sb.N)))
}

// SubjectWithRole returns the subject (label "subject") of the first case
// with role, or fallback when none has it (results files from before
// roles were recorded).
func SubjectWithRole(cases []*results.Case, role, fallback string) string {
	for _, c := range cases {
		if c.Role == role {
			return c.Labels.Get("subject")
		}
	}
	return fallback
}
