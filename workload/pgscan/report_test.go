package pgscan

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload/workloadtest"
)

// TestReportGolden renders the pgscan sections from a recorded quick run
// (schema 2: descriptors, roles, groups, in-round ratios; ADBC and
// ConnectorX installed; the replay and the partitioned reads) and compares
// the Markdown with a golden file. It needs no server.
func TestReportGolden(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", "quick.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	run.File = "quick.jsonl"
	doc, md := workloadtest.Markdown(t, run, New())
	workloadtest.Golden(t, filepath.Join("testdata", "quick.golden.md"), md)
	plots := 0
	for _, w := range doc.Runs[0].Workloads {
		for _, s := range w.Sections {
			for _, b := range s.Blocks {
				if b.BlockKind() == "plot" {
					plots++
				}
			}
		}
	}
	if plots != 1 || !strings.Contains(md, "](pgscan-batch-sweep.svg)") {
		t.Errorf("%d plots, want 1 (the batch sweep; one table size draws no size plot)", plots)
	}
	for _, want := range []string{
		"| pgarrow-select | baseline | github.com/serbench/serbench/pgarrow this build |",
		"| adbc | subject | adbc-driver-postgresql (Python) 1.13.0 |",
		"| connectorx | subject | connectorx (Python) 0.4.6 |",
		"| copy-discard | limit | – |",
		"time × pgarrow-select", "time × copy-discard",
		"| method | role | client CPU ns/row | rows/s |",
		"### Client-only ceiling: the replay", "time × pgx-raw", "In the replay, pgarrow-select needs",
		"### Partitioned reads", "| pgarrow-select | 4 |", "| connectorx | 2 |",
		"as many rows per second as connectorx (goal ≥ 1.5×",
		"(goal: the lowest of all Arrow readers:",
		"Client CPU per row at the 100,000-row table, lowest first",
		"pg_prewarm",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	s := New().Summary(run, run.Filter(Name, nil))
	if s == nil || len(s.Rows) != 8 || s.Header[1] != "client CPU ns/row" || s.Header[4] != "× adbc" {
		t.Errorf("summary %+v: want 8 methods, client CPU per row first and a column against the peer", s)
	}
}

// TestReportPreviousBuild renders a schema-2 run of the build before the
// replay, the partitioned reads and ConnectorX (no source label): its
// comparison still renders, lead by client CPU per row, and no replay or
// partitions section appears.
func TestReportPreviousBuild(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", "quick-v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	_, md := workloadtest.Markdown(t, run, New())
	for _, want := range []string{"### Method and peer comparison", "| method | role | client CPU ns/row | rows/s |",
		"pgarrow-select reads 3.43× as many rows per second as adbc", "Client CPU per row at the 100,000-row table"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, unwanted := range []string{"### Client-only ceiling", "### Partitioned reads", "connectorx"} {
		if strings.Contains(md, unwanted) {
			t.Errorf("report has %q", unwanted)
		}
	}
}

// TestReportSchema1 renders the recorded run as a build before schema 2
// wrote it (the method under the label key "method"), read through
// results.Read's migration: the tables still render from the medians,
// comparing with pgarrow-select and adbc by name, and no claim about the
// non-Arrow methods is made, since which methods produce Arrow is not
// recorded.
func TestReportSchema1(t *testing.T) {
	run := workloadtest.Schema1(t, filepath.Join("testdata", "quick-v1.jsonl"), "method")
	_, md := workloadtest.Markdown(t, run, New())
	for _, want := range []string{"### Rows per second by table size", "### Method and peer comparison", "### Batch-size sweep",
		"| copy-discard | limit |", "time × pgarrow-select", "pgarrow-select reads 3.43× as many rows per second as adbc"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, unwanted := range []string{"### Methods", "Fastest non-Arrow method here: pgarrow", "of the fastest non-Arrow method"} {
		if strings.Contains(md, unwanted) {
			t.Errorf("report has %q", unwanted)
		}
	}
}

// TestFindingsMarkFewSamples (issue 26): the findings that rank the
// readers mark a median from one sample, and none from three.
func TestFindingsMarkFewSamples(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", "quick.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	findings := func() string {
		blocks := New().Derive(run, run.Filter(Name, nil))["findings"]
		if len(blocks) != 1 {
			t.Fatalf("findings: %d blocks", len(blocks))
		}
		return blocks[0].(*table.Text).Body
	}
	if md := findings(); strings.Contains(md, "n=1") || strings.Contains(md, "n=2") {
		t.Fatalf("marked with more samples:\n%s", md)
	}
	workloadtest.OneSample(run)
	md := findings()
	for _, re := range []string{
		`Fastest reader of the 100,000-row table: \*\*[a-z-]+\*\*, [0-9.]+M rows/s \(n=1\), [0-9.]+% of the server's own ceiling \([0-9.]+M rows/s, n=1\)`,
		`Client CPU per row at the 100,000-row table, lowest first, and wall-clock rows/s: [a-z-]+ [0-9.]+ ns \([0-9.]+M rows/s, n=1\);`,
		`Partitioned reads \(connections\): pgarrow-select over 1: [0-9.]+M rows/s \(n=1\);`,
	} {
		if !regexp.MustCompile(re).MatchString(md) {
			t.Errorf("findings do not match %s:\n%s", re, md)
		}
	}
}
