package table

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixture is a small run of two ops × two sizes × three subjects (one a
// baseline, one a limit row), with in-round ratios, a fixed metric and a
// failed case: every kind of cell a spec can ask for.
func fixture() *results.Run {
	run := &results.Run{Env: results.Env{Schema: results.SchemaVersion}}
	add := func(subject, role, op, n string, ns []float64, vsLimit float64, failed bool) {
		c := results.Case{Workload: "w", Name: "W", Role: role, Group: op + n, Status: results.StatusOK, BytesPerOp: 4000,
			Labels:  results.Labels{{Key: "subject", Value: subject}, {Key: "op", Value: op}, {Key: "n", Value: n}},
			Metrics: map[string]float64{"size-B": ns[0] * 4, "rows": 1000}}
		if failed {
			c.Status, c.Error = results.StatusFailed, "round trip differs"
			run.Cases = append(run.Cases, c)
			return
		}
		for i, v := range ns {
			c.Samples = append(c.Samples, results.Sample{Iters: 1, NsPerOp: v, BytesPerOp: 64, AllocsPerOp: 2, Round: i + 1, VsLimit: vsLimit * v / ns[0]})
		}
		c.Summarize()
		run.Cases = append(run.Cases, c)
	}
	for _, op := range []string{"encode", "decode"} {
		for _, n := range []string{"100", "1000"} {
			k := 1.0
			if n == "1000" {
				k = 10
			}
			add("fast", results.RoleBaseline, op, n, []float64{100 * k, 101 * k, 99 * k, 100 * k, 102 * k}, 2, false)
			add("slow", results.RoleSubject, op, n, []float64{300 * k, 310 * k, 290 * k, 305 * k, 295 * k}, 6, op == "decode" && n == "1000")
			add("copy", results.RoleLimit, op, n, []float64{50 * k, 51 * k, 49 * k, 50 * k, 50 * k}, 0, false)
		}
	}
	return run
}

func TestSpecBuild(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
	}{
		{"pivot of times with comparisons", Spec{Caption: "{op} (ns/op)", Split: []string{"op"}, Rows: []string{"n"}, RowFormat: map[string]string{"n": "int"},
			Cols: "subject", Columns: []Column{{Head: "{col}", Show: "time"}},
			Extra: []Column{{Head: "fast vs slow", Show: "faster", At: map[string]string{"subject": "fast"}, Ref: map[string]string{"subject": "slow"}},
				{Head: "fast vs absent", Show: "faster", At: map[string]string{"subject": "fast"}, Ref: map[string]string{"subject": "absent"}}}}},
		{"ratios to the limit at the largest size", Spec{Caption: "{op} at N = {n:int}: × {@limit}", Where: []Match{Largest("n"), IsNot("role", results.RoleLimit)},
			Split: []string{"op", "n"}, Rows: []string{"subject"}, Order: map[string][]string{"op": {"decode", "encode"}},
			Columns: []Column{{Head: "× {@limit}", Show: "ratio", Unit: results.UnitVsLimit, Ref: map[string]string{"subject": "@limit"}},
				{Head: "÷ baseline", Show: "vs", Unit: results.UnitNsPerOp, Ref: map[string]string{"subject": "@baseline"}},
				{Head: "baseline ÷", Show: "vs", Invert: true, Unit: results.UnitNsPerOp, Ref: map[string]string{"subject": "@baseline"}},
				{Head: "size − baseline", Show: "diff", Unit: "size-B", Format: "int", Ref: map[string]string{"subject": "@baseline"}}},
			Extra: []Column{{Head: "{@limit} time", Show: "time", At: map[string]string{"subject": "@limit"}}}}},
		{"rows sorted, limit last, lead column, shares", Spec{Where: []Match{Is("op", "encode"), {Key: "n", Values: []string{"1000", "100"}, Max: true}},
			Rows: []string{"subject"}, Sort: "-MB/s", Limits: "last",
			Lead: []Column{{Head: "baseline size", Show: "median", Unit: "size-B", Format: "bytes", At: map[string]string{"subject": "fast"}}},
			Columns: []Column{{Head: "MB/s", Show: "rate", Unit: results.UnitNsPerOp, Per: "bytes_per_op", Scale: 1e3},
				{Head: "rows/s", Show: "rate", Unit: results.UnitNsPerOp, Per: "rows", Scale: 1e9, Format: "compact"},
				{Head: "ns/row", Show: "median", Unit: results.UnitNsPerOp, Per: "rows", Format: "duration"},
				{Head: "size", Show: "median", Unit: "size-B", Format: "int", Share: "pct", Ref: map[string]string{"subject": "fast"}},
				{Head: "mem", Show: "mem"},
				{Head: "B/op", Show: "stat", Unit: results.UnitBytesPerOp, Format: "int"}}}},
		{"best, saved, sum, role, per label, absent label, smallest size", Spec{Where: []Match{{Key: "n", Min: true}}, Split: []string{"n"}, Rows: []string{"subject", "op"},
			Sort: "vs fastest", Caption: "n = {n:int}",
			Columns: []Column{{Head: "vs fastest", Show: "best", Unit: results.UnitNsPerOp},
				{Head: "share of the best rate", Show: "best", Unit: results.UnitNsPerOp, Per: "rows", Scale: 1e9, Invert: true, Format: "pct"},
				{Head: "ns/n", Show: "median", Unit: results.UnitNsPerOp, Per: "n", Format: "duration"},
				{Head: "saved vs fast", Show: "saved", Unit: "size-B", Ref: map[string]string{"subject": "fast"}},
				{Head: "encode + decode", Show: "sum", Unit: results.UnitNsPerOp, At: map[string]string{"op": "encode"}, Plus: map[string]string{"op": "decode"}},
				{Head: "role", Show: "role"},
				{Head: "without op", Show: "time", At: map[string]string{"op": "-"}}}}},
		{"nothing selected", Spec{Where: []Match{Is("op", "absent")}, Rows: []string{"subject"}, Columns: []Column{{Head: "t", Show: "time"}}}},
	}
	run := fixture()
	var cases []*results.Case
	for i := range run.Cases {
		cases = append(cases, &run.Cases[i])
	}
	var out strings.Builder
	for _, tt := range tests {
		// A declaration goes through JSON as a results file carries it.
		b, err := json.Marshal(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		var spec Spec
		if err := json.Unmarshal(b, &spec); err != nil {
			t.Fatal(err)
		}
		ts, err := spec.Build(cases)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		fmt.Fprintf(&out, "## %s\n\n", tt.name)
		for _, tb := range ts {
			writeText(&out, tb)
		}
		if len(ts) == 0 {
			out.WriteString("(no table)\n\n")
		}
	}
	path := filepath.Join("testdata", "build.golden.txt")
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("%s changed (go test -update if intended); got:\n%s", path, out.String())
	}
}

// writeText writes a table as text, each numeric cell with its sort value.
func writeText(w *strings.Builder, t *Table) {
	fmt.Fprintf(w, "%s\n%s\n", t.Caption, strings.Join(t.Header, " | "))
	for _, r := range t.Rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = c.String()
			if c.Num() {
				cells[i] += fmt.Sprintf(" {%g}", c.V)
			}
		}
		w.WriteString(strings.Join(cells, " | ") + "\n")
	}
	w.WriteString("\n")
}

// TestSectionValidate refuses declarations a results file from elsewhere
// may carry that no builder can render.
func TestSectionValidate(t *testing.T) {
	tests := []struct {
		name string
		s    Section
		want string
	}{
		{"ok", Section{Workload: "w", Title: "T", Blocks: []BlockSpec{{Text: "x"}, {Subjects: "subject"}}}, ""},
		{"no title", Section{Workload: "w"}, "without workload or title"},
		{"two kinds", Section{Workload: "w", Title: "T", Blocks: []BlockSpec{{Text: "x", Derived: "d"}}}, "2 kinds set"},
		{"no kind", Section{Workload: "w", Title: "T", Blocks: []BlockSpec{{}}}, "0 kinds set"},
		{"no rows", Section{Workload: "w", Title: "T", Blocks: []BlockSpec{{Table: &Spec{Columns: []Column{{Show: "time"}}}}}}, "no rows label"},
		{"bad show", Section{Workload: "w", Title: "T", Blocks: []BlockSpec{{Table: &Spec{Rows: []string{"a"}, Columns: []Column{{Show: "total"}}}}}}, `unknown show "total" (valid: time, stat`},
		{"bad format", Section{Workload: "w", Title: "T", Blocks: []BlockSpec{{Table: &Spec{Rows: []string{"a"}, Columns: []Column{{Show: "time", Format: "hex"}}}}}}, `unknown format "hex"`},
		{"stat without unit", Section{Workload: "w", Title: "T", Blocks: []BlockSpec{{Table: &Spec{Rows: []string{"a"}, Columns: []Column{{Show: "stat"}}}}}}, "needs a unit"},
		{"plot path", Section{Workload: "w", Title: "T", Blocks: []BlockSpec{{Plot: &PlotSpec{File: "../x.svg", X: "n", Series: "s", Unit: "ns/op"}}}}, "not a plain file name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestPlotBuild draws one series per subject over n, the limit row marked.
func TestPlotBuild(t *testing.T) {
	run := fixture()
	var cases []*results.Case
	for i := range run.Cases {
		cases = append(cases, &run.Cases[i])
	}
	ps := (&PlotSpec{File: "w-{op}.svg", Caption: "{op}", Title: "{op}", Split: []string{"op"}, X: "n", Series: "subject", Unit: results.UnitNsPerOp}).Build(cases)
	if len(ps) != 2 || ps[0].File != "w-encode.svg" || ps[1].Caption != "decode" {
		t.Fatalf("plots %+v", ps)
	}
	lc := ps[1].Chart.(*LineChart)
	got := map[string]int{}
	for _, s := range lc.Series {
		got[s.Name] = len(s.X)
		if (s.Name == "copy") != s.Limit {
			t.Errorf("series %s: limit %v", s.Name, s.Limit)
		}
	}
	// The failed decode of slow at n=1000 has no point.
	if got["fast"] != 2 || got["slow"] != 1 || got["copy"] != 2 {
		t.Errorf("points per series %v", got)
	}
}
