package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// bigRun is run-a.jsonl with every case copied n times under new subject
// names (a run of many subjects: long tables, a long raw output), and
// every tenth copy noisy.
func bigRun(t *testing.T, n int) *results.Run {
	t.Helper()
	r := readRun(t, "run-a.jsonl")
	base := r.Cases
	r.Cases = nil
	for i := range n {
		for _, c := range base {
			c.Labels = c.Labels.With("subject", fmt.Sprintf("%s-%03d", c.Labels.Get("subject"), i))
			c.Noisy = c.OK() && i%10 == 0
			r.Cases = append(r.Cases, c)
		}
	}
	return r
}

// bigDoc renders bigRun(n) twice (two runs side by side) with a section
// of every subject and a derived findings section.
func bigDoc(t *testing.T, n int) *Doc {
	t.Helper()
	runs := []*results.Run{bigRun(t, n), bigRun(t, n)}
	layouts := map[string][]table.Section{"features": {
		{Kind: table.KindSection, Workload: "features", Title: "Findings", Blocks: []table.BlockSpec{{Derived: "findings"}}},
		{Kind: table.KindSection, Workload: "features", Title: "Subjects", Blocks: []table.BlockSpec{{Subjects: "subject"}}},
	}}
	var derived []map[string]table.Derived
	for range runs {
		derived = append(derived, map[string]table.Derived{"features": {"findings": {table.Findings([]string{"Fastest encode: **psdb**, 21.3 ns.", "Input: generated int32 features."})}}})
	}
	doc, err := Build(Input{Runs: runs, Layouts: layouts, Derived: derived})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestMarkdownSizeBound checks that report.md does not grow with the
// number of cases: a run of 100 times the subjects renders a Markdown
// about as long as a run of 10 times, far under 300 KB, that keeps the
// findings and says where the rows it leaves out are.
func TestMarkdownSizeBound(t *testing.T) {
	var small, big, html strings.Builder
	bigDoc(t, 10).WriteMarkdown(&small)
	d := bigDoc(t, 100)
	d.WriteMarkdown(&big)
	d.WriteHTML(&html)
	const limit = 300 << 10
	if big.Len() > limit {
		t.Errorf("report.md of %d subjects is %d bytes, want ≤ %d", 100, big.Len(), limit)
	}
	if big.Len() > small.Len()*6/5 {
		t.Errorf("report.md grows with the run: %d bytes at 10× the subjects, %d at 100×", small.Len(), big.Len())
	}
	if html.Len() < 10*big.Len() {
		t.Errorf("report.html (%d bytes) should hold every row report.md (%d bytes) leaves out", html.Len(), big.Len())
	}
	md := big.String()
	for _, want := range []string{mdPointer, "Fastest encode: **psdb**, 21.3 ns.", "more rows in report.html and report.json.", "more lines in report.html and report.json.", "### Environment"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// Every table but the environment keeps its header and at most
	// mdMaxRows rows.
	rows, env := 0, false
	for _, l := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(l, "## "):
			env = l == "## Where and how this was measured"
		case env:
		case strings.HasPrefix(l, "|---"):
			rows = 0
		case strings.HasPrefix(l, "| "):
			rows++
			if rows > mdMaxRows+1 { // the header row is counted too
				t.Fatalf("a table of report.md prints more than %d rows", mdMaxRows)
			}
		}
	}
}

// TestHTMLCollapsed checks the page a reader opens: the answer block and
// the findings come before the navigation, every other section is a
// collapsed <details>, and every table is still on the page.
func TestHTMLCollapsed(t *testing.T) {
	d := bigDoc(t, 20)
	var b strings.Builder
	d.WriteHTML(&b)
	page := b.String()
	glance, nav, main := strings.Index(page, `<section class="glance">`), strings.Index(page, `<nav id="side"`), strings.Index(page, "<main>")
	if glance < 0 || nav < 0 || main < 0 || !(main < glance && glance < nav) {
		t.Errorf("the verdicts must open the page, before the navigation: <main> at %d, the answer block at %d, the navigation at %d", main, glance, nav)
	}
	if strings.Contains(page, "<details open") || strings.Contains(page, `open=""`) {
		t.Error("a section is open by default")
	}
	findings := regexp.MustCompile(`<h3 id="[^"]*-findings">`).FindAllStringIndex(page, -1)
	if len(findings) != len(d.Runs) {
		t.Fatalf("%d findings headings, want one per run", len(findings))
	}
	for _, f := range findings {
		before := page[:f[0]]
		if strings.Count(before, "<details") != strings.Count(before, "</details>") {
			t.Error("a workload's findings are inside a collapsed section")
		}
	}
	sections := 0
	for _, rd := range d.Runs {
		for _, wd := range rd.Workloads {
			sections += len(wd.Sections) - 1 // all but the findings
		}
		if len(rd.Machine) > 0 {
			sections++
		}
	}
	if len(d.SideBySide) > 0 {
		sections++
	}
	if got := strings.Count(page, `<details class="sec">`); got != sections {
		t.Errorf("%d collapsed sections, want %d (every section but the findings)", got, sections)
	}
	tables := len(d.SideBySide)
	for _, rd := range d.Runs {
		for _, wd := range rd.Workloads {
			for _, sd := range wd.Sections {
				n, _, _ := counts(sd.Blocks)
				tables += n
			}
		}
	}
	if got := strings.Count(page, `<table class="data"`); got != tables {
		t.Errorf("%d tables on the page, want every one of the %d", got, tables)
	}
}
