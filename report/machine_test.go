package report

import (
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/results"
)

// TestMachineSection renders the machine-speed section of a run that
// recorded probes (schema 3) and checks that older runs get none.
func TestMachineSection(t *testing.T) {
	withProbes, without := readRun(t, "run-probes.jsonl"), readRun(t, "run-b.jsonl")
	doc, err := Build(Input{Runs: []*results.Run{withProbes, without}})
	if err != nil {
		t.Fatal(err)
	}
	m := doc.Runs[0].Machine
	if len(m) != 2 {
		t.Fatalf("%d machine blocks, want a paragraph and a plot", len(m))
	}
	var md strings.Builder
	for _, b := range m {
		mdBlock(&md, b)
	}
	golden(t, "machine.golden.md", md.String())
	p, ok := m[1].(*Plot)
	if !ok || p.File != "run1-machine-speed.svg" || !strings.Contains(string(p.SVG), "<svg") {
		t.Errorf("plot block %T %q: want an SVG named for its run", m[1], p.File)
	}
	if len(doc.Runs[1].Machine) != 0 {
		t.Errorf("a run without probes got a machine section: %+v", doc.Runs[1].Machine)
	}
	var html strings.Builder
	doc.WriteHTML(&html)
	if !strings.Contains(html.String(), `href="#r0-machine">machine</a>`) || strings.Contains(html.String(), `href="#r1-machine"`) {
		t.Error("the page's navigation should link the machine section of the run that has one, only")
	}
	dir := t.TempDir()
	if err := doc.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
}

// machineGolden renders run's machine section as Markdown, checks it
// against the golden file name and returns its blocks.
func machineGolden(t *testing.T, run *results.Run, name string) []Block {
	t.Helper()
	doc, err := Build(Input{Runs: []*results.Run{run}})
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	for _, b := range doc.Runs[0].Machine {
		mdBlock(&md, b)
	}
	golden(t, name, md.String())
	return doc.Runs[0].Machine
}

func TestSignedPct(t *testing.T) {
	for _, tt := range []struct {
		f    float64
		want string
	}{{-0.041, "-4.1%"}, {0.05, "+5.0%"}, {-0.0001, "+0.0%"}, {0, "+0.0%"}} {
		if got := table.SignedPct(tt.f); got != tt.want {
			t.Errorf("table.SignedPct(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

// TestCompareSaysHowTheMachinesDiffered: with probes in both runs, every
// output of compare says how much slower the new run's machine was.
func TestCompareSaysHowTheMachinesDiffered(t *testing.T) {
	old, slower := readRun(t, "run-probes.jsonl"), readRun(t, "run-probes.jsonl")
	slower.Probes = append([]results.Probe(nil), slower.Probes...)
	for i := range slower.Probes {
		slower.Probes[i].Ns *= 1.03
	}
	c := NewComparison("old.jsonl", "new.jsonl", old, slower, CompareOptions{})
	want := "Machine: the fixed probe loop took 812 µs (median) in the old run and 837 µs in the new (+3.0%)"
	var txt, md, js strings.Builder
	if err := c.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), want) || !strings.Contains(md.String(), want) {
		t.Errorf("text or Markdown lacks %q:\n%s\n%s", want, txt.String(), md.String())
	}
	if !strings.Contains(js.String(), `"machine_change": 0.03`) {
		t.Errorf("JSON lacks machine_change 0.03:\n%s", js.String())
	}
	// A run without probes (an older file): no machine line.
	c = NewComparison("old.jsonl", "new.jsonl", readRun(t, "run-b.jsonl"), slower, CompareOptions{})
	txt.Reset()
	if err := c.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(txt.String(), "Machine:") {
		t.Errorf("machine line without probes in the old run:\n%s", txt.String())
	}
}

// TestNoisyCasesSayWhatTheMachineDid: a noisy case measured while the
// probes moved by 10% says so, one measured in a steady stretch says ±0%,
// and the note counts the first.
func TestNoisyCasesSayWhatTheMachineDid(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 2, 0, 0, 0, time.UTC)
	run := &results.Run{Env: results.Env{Start: t0}}
	for i, ns := range []float64{100, 100, 100, 110, 100, 100, 100, 100, 100, 100} {
		run.Probes = append(run.Probes, results.Probe{Time: t0.Add(time.Duration(i) * time.Second), Ns: ns})
	}
	noisy := func(subject string, from, to int) results.Case {
		c := results.Case{Workload: "w", Name: "W", Labels: results.Labels{{Key: "subject", Value: subject}}, Status: results.StatusOK,
			Start: t0.Add(time.Duration(from)*time.Second + time.Second/2), End: t0.Add(time.Duration(to)*time.Second + time.Second/2)}
		for _, ns := range []float64{100, 120, 90} {
			c.Samples = append(c.Samples, results.Sample{Iters: 1, NsPerOp: ns})
		}
		c.Summarize()
		return c
	}
	run.Cases = []results.Case{noisy("a", 2, 3), noisy("b", 6, 7)}
	var cases []*results.Case
	for i := range run.Cases {
		cases = append(cases, &run.Cases[i])
	}
	var tab *table.Table
	for _, sd := range genericSections(run, cases) {
		if sd.Title == "Noisy cases" {
			tab = sd.Blocks[0].(*table.Table)
		}
	}
	if tab == nil || len(tab.Header) != 6 || tab.Header[5] != "machine meanwhile" {
		t.Fatalf("noisy table %+v: want a machine column", tab)
	}
	// Case a (2.5 s to 3.5 s, 1.5 s of slack each side): the probes at 1 … 5 s.
	if got := tab.Rows[0][5].String(); got != "±10% (5 probes)" {
		t.Errorf("case a: machine %q, want ±10%% (5 probes)", got)
	}
	if got := tab.Rows[1][5].String(); got != "±0% (5 probes)" {
		t.Errorf("case b: machine %q, want ±0%% (5 probes)", got)
	}
	if note := strings.Join(tab.Notes, " "); !strings.Contains(note, "1 of the 2 noisy cases with probes were measured while the machine itself moved by more than ±5%") {
		t.Errorf("notes %q", note)
	}
	// With memory times, a sixth column: case b's stretch held a slow chase.
	for i, m := range []float64{1000, 1000, 1000, 1000, 1000, 1000, 1300, 1000, 1000, 1000} {
		run.Probes[i].MemNs = m
	}
	for _, sd := range genericSections(run, cases) {
		if sd.Title == "Noisy cases" {
			tab = sd.Blocks[0].(*table.Table)
		}
	}
	if len(tab.Header) != 7 || tab.Header[6] != "memory meanwhile" || tab.Rows[0][6].String() != "±0% (5 probes)" || tab.Rows[1][6].String() != "±30% (5 probes)" {
		t.Errorf("noisy table with memory times: %v %v", tab.Header, tab.Rows)
	}
	if note := strings.Join(tab.Notes, " "); !strings.Contains(note, "1 of the 2 noisy cases with memory times were measured while the shared caches and memory moved by more than ±5%") {
		t.Errorf("notes %q", note)
	}
	// Without probes the table keeps its five columns.
	run.Probes = nil
	for _, sd := range genericSections(run, cases) {
		if sd.Title == "Noisy cases" && len(sd.Blocks[0].(*table.Table).Header) != 5 {
			t.Errorf("header %v without probes", sd.Blocks[0].(*table.Table).Header)
		}
	}
}

// TestMachineSectionWithMemory renders the machine section of a run whose
// probes carry memory times (schema 4): a second paragraph, with the
// memory system's drift, and both loops in the plot.
func TestMachineSectionWithMemory(t *testing.T) {
	m := machineGolden(t, readRun(t, "run-probes-mem.jsonl"), "machine-memory.golden.md")
	if len(m) != 3 {
		t.Fatalf("%d machine blocks, want two paragraphs and a plot", len(m))
	}
	p, ok := m[2].(*Plot)
	if !ok || !strings.Contains(string(p.SVG), "memory chase") || !strings.Contains(string(p.SVG), "probe loop") {
		t.Errorf("plot block %T: want both loops in its legend", m[2])
	}
}

// TestMachineSectionSaysHowOftenTheCoresRanSlow: probes that recorded
// their runs (runs_ns) add the share of slow runs to the section.
func TestMachineSectionSaysHowOftenTheCoresRanSlow(t *testing.T) {
	m := machineGolden(t, readRun(t, "run-probes-slow.jsonl"), "machine-slow.golden.md")
	text, ok := m[0].(*Text)
	if !ok || !strings.Contains(text.Body, "took 1.3× its usual time or more") {
		t.Errorf("first block %T: want the share of slow runs in it", m[0])
	}
}

// TestCompareSaysHowTheMemoryDiffered: with memory times in both runs,
// compare also says how the memory chase moved, and warns when it moved
// by more than the threshold.
func TestCompareSaysHowTheMemoryDiffered(t *testing.T) {
	tests := []struct {
		name   string
		factor float64
		want   string
		warns  bool
		json   string
	}{
		{"steady", 1.01, "The memory chase took 1.40 ms and 1.42 ms (+1.0%).", false, `"memory_change": 0.01`},
		{"slower", 1.25, "The memory chase took 1.40 ms and 1.75 ms (+25.0%): the shared caches and memory were that much slower in the new run", true, `"memory_change": 0.25`},
		{"faster", 0.75, "The memory chase took 1.40 ms and 1.05 ms (-25.0%): the shared caches and memory were that much faster in the new run", true, `"memory_change": -0.25`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := readRun(t, "run-probes-mem.jsonl"), readRun(t, "run-probes-mem.jsonl")
			new.Probes = append([]results.Probe(nil), new.Probes...)
			for i := range new.Probes {
				new.Probes[i].MemNs *= tt.factor
			}
			c := NewComparison("old.jsonl", "new.jsonl", old, new, CompareOptions{})
			var txt, js strings.Builder
			if err := c.WriteText(&txt); err != nil {
				t.Fatal(err)
			}
			if err := c.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(txt.String(), tt.want) || strings.Contains(txt.String(), "limit row whose data") != tt.warns {
				t.Errorf("text lacks %q (warning %v):\n%s", tt.want, tt.warns, txt.String())
			}
			if !strings.Contains(js.String(), tt.json) {
				t.Errorf("JSON lacks %s", tt.json)
			}
		})
	}
	// Against a run without memory times (schema 3): no memory sentence.
	c := NewComparison("old.jsonl", "new.jsonl", readRun(t, "run-probes.jsonl"), readRun(t, "run-probes-mem.jsonl"), CompareOptions{})
	var txt strings.Builder
	if err := c.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(txt.String(), "memory chase") {
		t.Errorf("memory sentence against a run without memory times:\n%s", txt.String())
	}
}
