package envelope

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/serbench/serbench/table"

	ds "github.com/serbench/serbench/dataset/envelope"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload/workloadtest"
)

// TestReportGolden renders the envelope sections from a recorded quick run
// (schema 2: descriptors, roles, groups, in-round ratios; filtered to four
// subjects and three sizes to stay small) and compares the Markdown with a
// golden file.
func TestReportGolden(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", "quick.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	run.File = "quick.jsonl"
	_, md := workloadtest.Markdown(t, run, New())
	workloadtest.Golden(t, filepath.Join("testdata", "quick.golden.md"), md)
	// The sweep plots: marshal and header, and unmarshal with the
	// outer-only reads as lines of their own.
	cases := run.Filter(Name, nil)
	plots := append(sweepPlot(OpMarshal).Build(cases), sweepPlot(OpHeader).Build(cases)...)
	for _, p := range unmarshalSweep().Build(cases) {
		if ch := p.Chart.(*table.LineChart); !slices.ContainsFunc(ch.Series, func(s table.Series) bool { return s.Name == "protobuf-wrapped (outer only)" }) {
			t.Errorf("%s: no outer-only line", p.File)
		}
		plots = append(plots, p)
	}
	for _, p := range plots {
		if ch, ok := p.Chart.(*table.LineChart); !ok || len(ch.Series) == 0 {
			t.Errorf("%s: no line chart with data", p.File)
		}
	}
	if len(plots) != len(sweepOps) {
		t.Errorf("%d plots, want %d (one per sweep op)", len(plots), len(sweepOps))
	}
	// Subjects, libraries and versions come from the recorded descriptors.
	for _, want := range []string{"| protobuf-flat | baseline | google.golang.org/protobuf v1.36.12 |", "github.com/tinylib/msgp v1.6.5"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestRatiosAreInRound checks that a ratio to the baseline is the one
// taken within each sampling round, not the ratio of the two medians: the
// two differ when the machine drifts between rounds.
func TestRatiosAreInRound(t *testing.T) {
	run := synthRun()
	for i := range run.Cases {
		c := &run.Cases[i]
		if c.Labels.Get("subject") == "protobuf-wrapped" && c.Labels.Get("size") == "Tiny" && c.Labels.Get("op") == OpMarshal {
			for j := range c.Samples {
				c.Samples[j].VsBaseline = 0.25
			}
			c.Summarize()
		}
	}
	// The seed's marshal table: its last column is wrapped ÷ flat.
	tables, err := New().Layout()[2].Blocks[0].Table.Build(run.Filter(Name, nil))
	if err != nil || len(tables) != 1 {
		t.Fatalf("%d tables, %v", len(tables), err)
	}
	m := tables[0]
	last := func(r []table.Cell) string { return r[len(r)-1].String() }
	if got := last(m.Rows[0]); got != "0.25× ±0%" {
		t.Errorf("Tiny marshal wrapped ÷ flat = %q, want the in-round 0.25× ±0%%", got)
	}
	// Without in-round ratios (an older run) the medians' ratio stands in.
	if want := table.Float((600+ds.XLarge/8.0)/(1000+ds.XLarge/10.0)) + "×"; m.Rows[1][0].String() != "XLarge" || last(m.Rows[1]) != want {
		t.Errorf("row %v: want XLarge marshal wrapped ÷ flat = %s", m.Rows[1], want)
	}
}

// TestReportSchema1 renders the recorded run as a build before schema 2
// wrote it, read through results.Read's migration: every section but the
// subjects table renders, the baseline is found by name and ratios fall
// back to the medians.
func TestReportSchema1(t *testing.T) {
	run := workloadtest.Schema1(t, filepath.Join("testdata", "quick.jsonl"), "subject")
	_, md := workloadtest.Markdown(t, run, New())
	for _, want := range []string{"### The seed's tables", "**marshal: time × protobuf-flat's**", "### Where flat overtakes wrapped",
		"protobuf-wrapped (outer only)", "| Tiny | 1,024 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(md, "### Subjects") {
		t.Error("a subjects table without descriptors")
	}
}
