package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/results"
)

// fuzzSeeds are hand-made results files besides those in testdata.
var fuzzSeeds = [][]byte{
	nil,
	[]byte(`{"kind":"env"}` + "\n"),
	// One sample: no interval; a case measured in two processes.
	[]byte(`{"kind":"env","schema":4}` + "\n" +
		`{"kind":"case","workload":"f","name":"F","labels":[{"k":"subject","v":"a"}],"status":"ok","samples":[{"iters":1,"ns_op":5e14}]}` + "\n" +
		`{"kind":"case","workload":"f","name":"F","labels":[{"k":"subject","v":"b"}],"status":"ok","samples":[{"iters":1,"ns_op":3,"fork":1},{"iters":1,"ns_op":3,"fork":2}]}` + "\n"),
	// Zero B/op in one run, some in the other; huge and tiny values.
	[]byte(`{"kind":"env","schema":4}` + "\n" +
		`{"kind":"case","workload":"f","name":"F","status":"ok","bytes_per_op":9223372036854775807,"samples":[{"iters":1,"ns_op":1e15,"b_op":1.8e19,"allocs_op":1.8e19},{"iters":2,"ns_op":0.25,"b_op":0}]}` + "\n" +
		`{"kind":"probe","t":"0001-01-01T00:00:00Z","ns":1e15,"mem_ns":1e-300}` + "\n" +
		`{"kind":"probe","t":"9999-12-31T23:59:59Z","ns":1e-300,"mem_ns":1e15}` + "\n" +
		`{"kind":"probe","t":"5000-01-01T00:00:00Z","ns":1,"mem_ns":1}` + "\n"),
}

// seedRuns returns the fuzz seeds and the bytes of every results file in
// testdata.
func seedRuns(f *testing.F) [][]byte {
	f.Helper()
	files := append([][]byte(nil), fuzzSeeds...)
	paths, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, b)
	}
	return files
}

// addPairs seeds a two-file target with each file alone (the second
// empty), each with itself and each with the next.
func addPairs(f *testing.F, files [][]byte, extra ...any) {
	f.Helper()
	for i, a := range files {
		f.Add(append([]any{a, []byte(nil)}, extra...)...)
		f.Add(append([]any{a, a}, extra...)...)
		if i+1 < len(files) {
			f.Add(append([]any{a, files[i+1]}, extra...)...)
		}
	}
}

// read parses b as a results file, nil when Read refuses it.
func read(b []byte, name string) *results.Run {
	r, err := results.Read(bytes.NewReader(b), name)
	if err != nil {
		return nil
	}
	return r
}

// fuzzInput declares, for every workload of runs, a Subjects section and
// a section of derived cells (every kind of cell and chart of package
// table over the run's cases), as a workload's layout and findings would.
func fuzzInput(runs []*results.Run) Input {
	in := Input{Runs: runs, Layouts: map[string][]table.Section{}}
	for _, r := range runs {
		d := map[string]table.Derived{}
		for _, w := range r.Workloads() {
			in.Layouts[w] = []table.Section{{Title: "Subjects", Blocks: []table.BlockSpec{{Subjects: "subject"}}}, {Title: "Cells", Blocks: []table.BlockSpec{{Derived: "cells"}}}}
			blocks, _ := cellsSection(r, r.Filter(w, nil))
			d[w] = table.Derived{"cells": blocks}
		}
		in.Derived = append(in.Derived, d)
	}
	return in
}

func cellsSection(run *results.Run, cases []*results.Case) ([]Block, error) {
	var blocks []Block
	col := ""
	for _, c := range cases {
		for _, l := range c.Labels {
			if l.Key != "subject" && col == "" {
				col = l.Key
			}
		}
	}
	if col != "" {
		spec := table.Spec{Rows: []string{"subject"}, Cols: col, Columns: []table.Column{{Head: "{col}", Show: "time"}, {Head: "mem", Show: "mem"}},
			Extra: []table.Column{{Head: "vs first", Show: "faster", Ref: map[string]string{"subject": cases[0].Labels.Get("subject")}}}, Sort: "-vs first"}
		ts, err := spec.Build(cases)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			blocks = append(blocks, t)
		}
	}
	base := table.SubjectWithRole(cases, results.RoleBaseline, "")
	limit := table.SubjectWithRole(cases, results.RoleLimit, "")
	ix := table.NewIndex(cases, "subject")
	t := &table.Table{Header: []string{"case", "ns", "unit", "mem", "x-limit", "x-baseline", "faster"}}
	var line table.Series
	var pts []table.Point
	for i, c := range cases {
		t.AddRow(table.Str(c.FullName()), table.Time(c), table.Median(c, results.UnitBytesPerOp, table.BytesF), table.Mem(c),
			table.Ratio(c, results.UnitVsLimit, ix.Get(limit)), table.Ratio(c, results.UnitVsBaseline, ix.Get(base)), table.Faster(c, cases[0]))
		if s, ok := c.Stat(results.UnitNsPerOp); ok && c.OK() {
			line.X = append(line.X, float64(i+1))
			line.Y = append(line.Y, s.Median)
			line.Lo = append(line.Lo, s.Lo)
			line.Hi = append(line.Hi, s.Hi)
			b, _ := c.Median(results.UnitBytesPerOp)
			pts = append(pts, table.Point{X: b, Y: s.Median, Label: c.Labels.Get("subject")})
		}
	}
	blocks = append(blocks, t)
	for _, log := range []bool{false, true} {
		lc := table.LineChart{Title: "ns/op", LogX: log, LogY: log, BinaryX: log, YFormat: table.Duration, Series: []table.Series{line}, Palette: table.RunPalette(run)}
		if _, err := drawChart(&lc); err == nil {
			blocks = append(blocks, &table.Plot{File: "line.svg", Chart: &lc})
		}
		sc := table.ScatterChart{Title: "B/op and ns/op", LogX: log, LogY: log, Points: pts, Frontier: true}
		if _, err := drawChart(&sc); err == nil {
			blocks = append(blocks, &table.Plot{File: "scatter.svg", Chart: &sc})
		}
	}
	return blocks, nil
}

// FuzzBuild renders reports of whatever results.Read accepts: one run
// without sections, two runs side by side and their shards merged with
// sections made of this package's building blocks. Build must not panic,
// hang or fail, and the document must render as Markdown, HTML and files.
func FuzzBuild(f *testing.F) {
	addPairs(f, seedRuns(f))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ra := read(a, "a.jsonl")
		if ra == nil {
			return
		}
		runs := []*results.Run{ra}
		if rb := read(b, "b.jsonl"); rb != nil {
			runs = append(runs, rb)
		}
		merged := results.MergeShards(runs)
		for _, tt := range []struct {
			in    Input
			write bool
		}{
			{Input{Runs: runs[:1]}, false},
			{Input{Runs: runs}, false},
			{fuzzInput(merged), true},
		} {
			doc, err := Build(tt.in)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			var md, html strings.Builder
			doc.WriteMarkdown(&md)
			doc.WriteHTML(&html)
			if tt.write {
				if err := doc.WriteDir(dir); err != nil {
					t.Fatalf("WriteDir: %v", err)
				}
			}
		}
	})
}

// FuzzCompare compares two runs whatever results.Read accepts, plain and
// normalized, and prints the comparison in every format. Nothing may
// panic or hang, and the printing must not fail.
func FuzzCompare(f *testing.F) {
	addPairs(f, seedRuns(f), false, uint8(5))
	f.Add(fuzzSeeds[2], fuzzSeeds[3], true, uint8(10))
	f.Fuzz(func(t *testing.T, a, b []byte, normalize bool, pct uint8) {
		old, new := read(a, "old.jsonl"), read(b, "new.jsonl")
		if old == nil || new == nil {
			return
		}
		// compare --threshold takes a percentage in (0, 100); 0 here is
		// the default.
		opts := CompareOptions{Normalize: normalize, Threshold: float64(pct%100) / 100}
		ds := Compare(old, new, opts)
		for _, d := range ds {
			if d.Old == nil && d.New == nil {
				t.Errorf("delta %+v has neither case", d)
			}
		}
		c := NewComparison("old.jsonl", "new.jsonl", old, new, opts)
		c.Shared()
		c.Regressions()
		c.Changes()
		c.Geomean()
		for name, write := range map[string]func(io.Writer) error{"text": c.WriteText, "markdown": c.WriteMarkdown, "json": c.WriteJSON} {
			if err := write(io.Discard); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		if _, err := WriteCompare(io.Discard, "old.jsonl", "new.jsonl", ds); err != nil {
			t.Errorf("WriteCompare: %v", err)
		}
	})
}
