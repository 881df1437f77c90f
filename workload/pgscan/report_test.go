package pgscan

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload/workloadtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

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
	doc, md := workloadtest.Markdown(t, run, New().Sections())
	workloadtest.Golden(t, filepath.Join("testdata", "quick.golden.md"), md, *update)
	plots := 0
	for _, w := range doc.Runs[0].Workloads {
		for _, s := range w.Sections {
			for _, b := range s.Blocks {
				if p, ok := b.(*report.Plot); ok {
					plots++
					if !strings.Contains(string(p.SVG), "<svg") {
						t.Errorf("%s is not an SVG", p.File)
					}
				}
			}
		}
	}
	if plots != 1 {
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
	_, md := workloadtest.Markdown(t, run, New().Sections())
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
	run := schema1(t, filepath.Join("testdata", "quick-v1.jsonl"), "method")
	_, md := workloadtest.Markdown(t, run, New().Sections())
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

// schema1 rewrites the recorded run at path as a build before schema 2
// wrote it — no schema field, descriptors or end line, no roles, groups or
// in-round ratios, the subject under the label key subjectKey — and reads
// it back, so that the test goes through results.Read's migration.
func schema1(t *testing.T, path, subjectKey string) *results.Run {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		switch m["kind"] {
		case results.KindDescriptor, results.KindEnd:
			continue
		case results.KindEnv:
			delete(m, "schema")
		case results.KindCase:
			delete(m, "role")
			delete(m, "group")
			delete(m, "summary")
			for _, l := range m["labels"].([]any) {
				if l := l.(map[string]any); l["k"] == "subject" {
					l["k"] = subjectKey
				}
			}
			samples, _ := m["samples"].([]any)
			for _, s := range samples {
				s := s.(map[string]any)
				delete(s, "round")
				delete(s, "vs_baseline")
				delete(s, "vs_limit")
			}
		}
		enc, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(enc, '\n'))
	}
	run, err := results.Read(&out, path)
	if err != nil {
		t.Fatal(err)
	}
	if run.Env.Schema != 1 || len(run.Descriptors) != 0 {
		t.Fatalf("schema %d, %d descriptors: not a schema-1 run", run.Env.Schema, len(run.Descriptors))
	}
	return run
}
