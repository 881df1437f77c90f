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
			Metrics: map[string]float64{"size-B": ns[0] * 4, "rows": 1000, "col-b": 300, "col-a": 700}}
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
		{"pareto front of size and time, metric in the caption", Spec{Caption: "{max:rows} rows", Where: []Match{Is("op", "encode"), Is("n", "100")}, Rows: []string{"subject"},
			Columns: []Column{{Head: "size", Show: "median", Unit: "size-B", Format: "int"}, {Head: "time", Show: "time"}}, Front: []string{"size", "time"}}},
		{"top rows with the rest summed, share of the total", Spec{Where: []Match{Is("op", "encode")}, Rows: []string{"subject", "n"}, Sort: "-size",
			Columns: []Column{{Head: "size", Show: "median", Unit: "size-B", Format: "int"}, {Head: "share", Show: "median", Unit: "size-B", Format: "pct", OfTotal: true}},
			Top:     3, Rest: "({n} more)"}},
		{"top rows without a rest row", Spec{Where: []Match{Is("op", "encode")}, Rows: []string{"subject", "n"}, Sort: "size",
			Columns: []Column{{Head: "size", Show: "median", Unit: "size-B", Format: "int"}}, Top: 2}},
		{"goals by pivot value, a label through a map, against itself", Spec{Where: []Match{IsNot("role", results.RoleLimit)}, Split: []string{"op"}, Rows: []string{"subject"}, Cols: "n",
			Columns: []Column{{Head: "n={col}", Show: "ratio", Unit: results.UnitVsLimit, Goal: map[string]float64{"100": 3, "1000": 2.5}}},
			Lead:    []Column{{Head: "kind", Show: "label", Label: "subject", Map: map[string]string{"fast": "quick"}}},
			Extra:   []Column{{Head: "size vs fast", Show: "vs", Unit: "size-B", Format: "smaller", Ref: map[string]string{"subject": "fast"}, NotSelf: true, At: map[string]string{"n": "100"}}},
			Notes:   []string{"Goal: 3× at 100, 2.5× at 1000. {goals}"}}},
		{"the excess over a label", Spec{Where: []Match{Is("op", "encode"), Is("subject", "fast", "copy")}, Rows: []string{"n"}, Cols: "subject",
			Columns: []Column{{Head: "{col}", Show: "median", Unit: "size-B", Format: "int", Beyond: "n"}}}},
		{"first of the values present, else the first shown", Spec{Caption: "{op}, {subject}", Where: []Match{{Key: "op", Values: []string{"absent", "decode"}, First: true}, {Key: "subject", Values: []string{"absent"}, First: true}},
			Split: []string{"op", "subject"}, Rows: []string{"n"}, Columns: []Column{{Head: "time", Show: "time"}}}},
		{"aggregates over a label, gated by another column", Spec{Where: []Match{Is("n", "1000")}, Rows: []string{"op"},
			Columns: []Column{{Head: "measured", Show: "time", Over: "subject", Agg: "count", Gate: "measured"},
				{Head: "mean size", Show: "median", Unit: "size-B", Format: "int", Over: "subject", Agg: "mean", Gate: "measured"},
				{Head: "geomean time", Show: "median", Unit: results.UnitNsPerOp, Format: "duration", Over: "subject", Agg: "geomean", Gate: "measured"},
				{Head: "fastest", Show: "median", Unit: results.UnitNsPerOp, Over: "subject", Agg: "argmin", Gate: "measured"},
				{Head: "its time", Show: "time", Over: "subject", Agg: "min", Gate: "measured"},
				{Head: "its size", Show: "median", Unit: "size-B", Format: "int", Over: "subject", Agg: "at", By: "its time"}}}},
		{"row labels joined, ranked, the rest summed", Spec{Where: []Match{Is("op", "encode")}, Rows: []string{"subject", "n"}, Join: " @ ", Rank: true, Sort: "size",
			Columns: []Column{{Head: "size", Show: "median", Unit: "size-B", Format: "int"}, {Head: "vs fastest", Show: "best", Unit: results.UnitNsPerOp}},
			Top:     4, Rest: "({n} more)"}},
		{"row labels joined under a head, ranked by time", Spec{Where: []Match{Is("op", "decode")}, Rows: []string{"subject", "n"}, RowHeads: []string{"case"},
			Join: " + ", RowFormat: map[string]string{"n": "int"}, Rank: true, Sort: "-time", Columns: []Column{{Head: "time", Show: "time"}, {Head: "why", Show: "why"}}}},
		{"metrics as rows", Spec{Where: []Match{Is("op", "encode"), Is("n", "100"), Is("subject", "fast")}, Rows: []string{"metric"},
			Unpivot: &Unpivot{Prefix: "col-", Key: "metric", Unit: "v"}, Columns: []Column{{Head: "bytes", Show: "median", Unit: "v", Format: "int"}, {Head: "per row", Show: "median", Unit: "v", Per: "rows"}}}},
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
	for _, n := range t.Notes {
		w.WriteString(n + "\n")
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

// TestBaseOf resolves a value to the one it stands on by the run's
// descriptors: a format that compresses itself to its uncompressed
// sibling.
func TestBaseOf(t *testing.T) {
	run := &results.Run{}
	for name, tags := range map[string][]string{"parquet-none": nil, "parquet-zstd": {"compresses"}, "avro-ocf": nil, "avro-ocf-deflate": {"compresses"}, "lonely-zstd": {"compresses"}} {
		run.Descriptors = append(run.Descriptors, results.Descriptor{Workload: "w", Key: "format", Name: name, Tags: tags})
	}
	tests := []struct{ in, want string }{
		{"parquet-zstd", "parquet-none"}, {"avro-ocf-deflate", "avro-ocf"}, {"avro-ocf", "avro-ocf"}, {"lonely-zstd", "lonely-zstd"}, {"unknown", "unknown"},
	}
	for _, tt := range tests {
		if got := BaseOf(run, "w", "format", tt.in, "compresses"); got != tt.want {
			t.Errorf("BaseOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := BaseOf(nil, "w", "format", "parquet-zstd", "compresses"); got != "parquet-zstd" {
		t.Errorf("without a run: %q", got)
	}
	if ds := Descriptors(run, "w", "format"); len(ds) != 5 || len(Descriptors(run, "w", "codec")) != 0 || len(Descriptors(run, "x", "format")) != 0 {
		t.Errorf("Descriptors: %d", len(ds))
	}
	// In a spec: the saving against the base, and "–" against itself.
	var cases []*results.Case
	for _, f := range []string{"parquet-none", "parquet-zstd"} {
		cases = append(cases, &results.Case{Workload: "w", Status: results.StatusOK, Labels: results.Labels{{Key: "format", Value: f}}, Metrics: map[string]float64{"file-B": map[string]float64{"parquet-none": 1000, "parquet-zstd": 250}[f]}})
	}
	spec := Spec{Rows: []string{"format"}, Columns: []Column{{Head: "saved", Show: "saved", Unit: "file-B", Ref: map[string]string{"format": "@base:compresses"}},
		{Head: "vs base", Show: "vs", Unit: "file-B", Format: "smaller", NotSelf: true, Ref: map[string]string{"format": "@base:compresses"}}}}
	ts, err := spec.BuildRun(run, cases)
	if err != nil || len(ts) != 1 {
		t.Fatal(ts, err)
	}
	var got []string
	for _, r := range ts[0].Rows {
		got = append(got, r[1].String()+" "+r[2].String())
	}
	if want := []string{"0.0% –", "75.0% 4.00× smaller"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows %q, want %q", got, want)
	}
	// Only the formats that stand on another, what each adds to it, and
	// the base with that codec around it (through a map).
	for _, k := range []results.Case{
		{Workload: "w", Status: results.StatusOK, Labels: results.Labels{{Key: "format", Value: "avro-ocf"}, {Key: "codec", Value: "gzip"}}, Metrics: map[string]float64{"file-B": 300}},
		{Workload: "w", Status: results.StatusOK, Labels: results.Labels{{Key: "format", Value: "avro-ocf-deflate"}, {Key: "codec", Value: "none"}}, Metrics: map[string]float64{"file-B": 320}},
	} {
		cases = append(cases, &k)
	}
	for _, c := range cases[:2] {
		c.Labels = c.Labels.With("codec", "none")
	}
	spec = Spec{Where: []Match{{Key: "format", Based: "compresses"}, Is("codec", "none")}, Rows: []string{"format"},
		Columns: []Column{{Head: "inside", Show: "label", Label: "format", Suffix: "compresses"}},
		Extra: []Column{{Head: "around", Show: "name", Label: "format,codec", Map: map[string]string{"deflate": "gzip"}, At: map[string]string{"format": "@base:compresses", "codec": "@suffix:format:compresses"}},
			{Head: "its size", Show: "median", Unit: "file-B", Map: map[string]string{"deflate": "gzip"}, At: map[string]string{"format": "@base:compresses", "codec": "@suffix:format:compresses"}}}}
	ts, err = spec.BuildRun(run, cases)
	if err != nil || len(ts) != 1 {
		t.Fatal(ts, err)
	}
	got = nil
	for _, r := range ts[0].Rows {
		got = append(got, r[0].String()+" "+r[1].String()+" "+r[2].String()+" "+r[3].String())
	}
	// parquet-zstd, without a value but its label, is no row.
	if want := []string{"avro-ocf-deflate deflate avro-ocf + gzip 300"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows %q, want %q", got, want)
	}
}

// TestScatterBuild plots two columns of a declared table, a point per row
// that has both, labelled by its row labels.
func TestScatterBuild(t *testing.T) {
	run := fixture()
	var cases []*results.Case
	for i := range run.Cases {
		cases = append(cases, &run.Cases[i])
	}
	sc := &ScatterSpec{Of: &Spec{Split: []string{"op"}, Rows: []string{"subject", "n"}, Columns: []Column{{Head: "size", Show: "median", Unit: "size-B"}, {Head: "time", Show: "time"}}},
		File: "w-{op}.svg", Caption: "{op}", Title: "{op}", X: "size", Y: "time", Join: "·", Frontier: true}
	ps, err := sc.Build(run, cases)
	if err != nil || len(ps) != 2 || ps[1].File != "w-decode.svg" {
		t.Fatalf("plots %+v, %v", ps, err)
	}
	ch := ps[1].Chart.(*ScatterChart)
	// The failed decode of slow at n=1000 has no point.
	if len(ch.Points) != 5 || ch.Points[0].Label != "fast·100" || ch.Points[0].X != 400 || !ch.Frontier {
		t.Errorf("points %+v", ch.Points)
	}
	// Ranked, with its row labels joined: a point is named by the labels.
	ranked := *sc.Of
	ranked.Rank, ranked.Join, sc.Of, sc.Join = true, "+", &ranked, " "
	if ps, err := sc.Build(run, cases); err != nil || ps[1].Chart.(*ScatterChart).Points[0].Label != "fast+100" {
		t.Errorf("ranked: %+v, %v", ps, err)
	}
	s := Section{Workload: "w", Title: "T", Blocks: []BlockSpec{{Scatter: &ScatterSpec{Of: sc.Of, File: "../x.svg", X: "a", Y: "b"}}}}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "plain file name") {
		t.Errorf("Validate = %v", err)
	}
}

// TestEmptyDerived leaves out a derived block that came out empty: nil, a
// nil pointer or a table without rows.
func TestEmptyDerived(t *testing.T) {
	d := Derived{"x": {nil, (*Text)(nil), &Table{Header: []string{"a"}}, &Text{Body: "kept"}}}
	bs, err := BuildSection(nil, Section{Workload: "w", Title: "T", Blocks: []BlockSpec{{Derived: "x"}}}, nil, d)
	if err != nil || len(bs) != 1 || bs[0].(*Text).Body != "kept" {
		t.Errorf("blocks %+v, %v", bs, err)
	}
}

// TestEmptyText says the spec's Empty text when it makes no table.
func TestEmptyText(t *testing.T) {
	run := fixture()
	cases := []*results.Case{&run.Cases[0]}
	bs, err := (&Spec{Where: []Match{Is("op", "absent")}, Rows: []string{"subject"}, Columns: []Column{{Head: "t", Show: "time"}}, Empty: "none here"}).Blocks(run, cases)
	if err != nil || len(bs) != 1 || bs[0].(*Text).Body != "none here" {
		t.Fatalf("blocks %+v, %v", bs, err)
	}
	if bs, _ := (&Spec{Rows: []string{"subject"}, Columns: []Column{{Head: "t", Show: "time"}}, Empty: "none here"}).Blocks(run, nil); len(bs) != 0 {
		t.Errorf("without cases: %+v", bs)
	}
}

// TestPlotMore draws more series from other cases, named with a suffix:
// the cases a note or a label selects.
func TestPlotMore(t *testing.T) {
	run := fixture()
	var cases []*results.Case
	for i := range run.Cases {
		cases = append(cases, &run.Cases[i])
	}
	cases[0].Notes = []string{"outer"} // fast encode 100
	tests := []struct {
		name string
		more *MoreSeries
		want []string
	}{
		{"none", nil, []string{"fast", "slow", "copy"}},
		{"by note", &MoreSeries{Where: []Match{Is("note", "outer")}, Suffix: " (outer)"}, []string{"fast", "slow", "copy", "fast (outer)"}},
		{"by label", &MoreSeries{Where: []Match{Is("op", "encode"), Is("subject", "slow")}, Suffix: "'"}, []string{"fast", "slow", "copy", "slow'"}},
	}
	for _, tt := range tests {
		p := &PlotSpec{File: "f.svg", Where: []Match{Is("op", "decode")}, X: "n", Series: "subject", Unit: results.UnitNsPerOp, More: tt.more}
		ps := p.Build(cases)
		var got []string
		for _, s := range ps[0].Chart.(*LineChart).Series {
			got = append(got, s.Name)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: series %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestDescTable lists what the run recorded: a table of fields and
// settings through a map, or a bulleted list; nothing without descriptors.
func TestDescTable(t *testing.T) {
	run := &results.Run{Descriptors: []results.Descriptor{
		{Workload: "w", Key: "column", Name: "id", What: "int64", Settings: map[string]string{"nullable": "false"}},
		{Workload: "w", Key: "column", Name: "tags", What: "list<utf8>", Settings: map[string]string{"nullable": "true"}},
		{Workload: "w", Key: "note", Name: "1", What: "a note"},
		{Workload: "x", Key: "column", Name: "other"},
	}}
	cols := []DescColumn{{Head: "column", Field: "name"}, {Head: "type", Field: "what"}, {Head: "null", Field: "nullable", Map: map[string]string{"true": "yes"}, Else: "no"}}
	tests := []struct {
		name string
		d    DescTable
		want string
	}{
		{"table", DescTable{Key: "column", Columns: cols}, "id int64 no|tags list<utf8> yes"},
		{"list", DescTable{Key: "note", List: "Notes:"}, "Notes:\n\n- a note"},
		{"none", DescTable{Key: "absent", Columns: cols}, "<nil>"},
		{"a paragraph each", DescTable{Key: "column", Each: "{name} is {what}, nullable: {nullable}."}, "id is int64, nullable: false.\n\ntags is list<utf8>, nullable: true."},
		{"a paragraph each, none recorded", DescTable{Key: "note", Each: "{name}: {nullable}"}, "<nil>"},
	}
	for _, tt := range tests {
		var got string
		switch b := tt.d.Build(run, "w").(type) {
		case *Table:
			var rows []string
			for _, r := range b.Rows {
				rows = append(rows, r[0].String()+" "+r[1].String()+" "+r[2].String())
			}
			got = strings.Join(rows, "|")
		case *Text:
			got = b.Body
		default:
			got = fmt.Sprint(b)
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	s := Section{Workload: "w", Title: "T", Blocks: []BlockSpec{{Descriptors: &DescTable{}}}}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "no key") {
		t.Errorf("Validate = %v", err)
	}
	s.Blocks[0].Descriptors = &DescTable{Key: "input", Facts: []DescFact{{Head: "rows", Text: "{rows:furlongs}"}}}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("Validate = %v", err)
	}
}

// TestDescFacts: one descriptor's facts as rows — numbers in a format,
// conditions, fallbacks said with what was recorded, alternatives of one
// head.
func TestDescFacts(t *testing.T) {
	facts := []DescFact{
		{Head: "file", Text: "{name} ({what})"},
		{Head: "size", Text: "{bytes:bytes}", Else: "–"},
		{Head: "rows", Text: "{rows:int} rows"},
		{Head: "codec", Text: "{codec} around; {inner}", When: []Match{IsNot("codec", "none")}},
		{Head: "codec", Text: "{inner}", Else: "{codec}"},
		{Head: "limit", Text: "{limit:int}", When: []Match{IsNot("limit", "0")}, Else: "none"},
		{Head: "sample", Text: "{sample}"},
	}
	tests := []struct {
		name     string
		settings map[string]string
		want     string
	}{
		{"all recorded", map[string]string{"bytes": "2048", "rows": "12000", "codec": "gzip", "inner": "snappy", "limit": "100", "sample": "1/2"},
			"file=f.csv (the input)|size=2,048 B {2048}|rows=12,000 rows|codec=gzip around; snappy|limit=100 {100}|sample=1/2"},
		{"outer none, limit 0", map[string]string{"bytes": "10", "rows": "1", "codec": "none", "inner": "snappy", "limit": "0"},
			"file=f.csv (the input)|size=10 B {10}|rows=1 rows|codec=snappy|limit=none"},
		{"nothing inside, nothing recorded", map[string]string{"codec": "none"},
			"file=f.csv (the input)|size=–|codec=none|limit=none"},
	}
	for _, tt := range tests {
		run := &results.Run{Descriptors: []results.Descriptor{{Workload: "w", Key: "input", Name: "f.csv", What: "the input", Settings: tt.settings}}}
		tab, ok := (&DescTable{Key: "input", Caption: "Input", Facts: facts}).Build(run, "w").(*Table)
		if !ok || strings.Join(tab.Header, "|") != "|" || tab.Caption != "Input" {
			t.Fatalf("%s: %#v", tt.name, tab)
		}
		var rows []string
		for _, r := range tab.Rows {
			v := r[1].String()
			if r[1].Kind == Value {
				v += fmt.Sprintf(" {%g}", r[1].V)
			}
			rows = append(rows, r[0].String()+"="+v)
		}
		if got := strings.Join(rows, "|"); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestSplitCols: a matrix per format, each with the readers of its own
// format only, a verdict through a map and the reason of a failed check.
func TestSplitCols(t *testing.T) {
	var cases []*results.Case
	add := func(format, writer, reader string, ok bool) {
		c := &results.Case{Workload: "w", Name: "I", Status: results.StatusOK,
			Labels:  results.Labels{{Key: "format", Value: format}, {Key: "writer", Value: writer}, {Key: "reader", Value: reader}, {Key: "reads", Value: "yes"}},
			Samples: []results.Sample{{Iters: 1, NsPerOp: 10}}}
		if !ok {
			c.Status, c.Error, c.Samples, c.Labels[3].Value = results.StatusFailed, "indefinite lengths", nil, "no"
		}
		c.Summarize()
		cases = append(cases, c)
	}
	add("a", "x", "x", true)
	add("a", "x", "y", false)
	add("a", "y", "x", true)
	add("a", "y", "y", true)
	add("b", "z", "z", true)
	for _, split := range []bool{true, false} {
		s := Spec{Caption: "{format}", Split: []string{"format"}, Rows: []string{"writer"}, Cols: "reader", SplitCols: split,
			Columns: []Column{{Head: "{col}", Show: "name", Label: "reads", Map: map[string]string{"yes": "✓", "no": "✗"}}}}
		ts, err := s.Build(cases)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tb := range ts {
			got = append(got, tb.Caption+": "+strings.Join(tb.Header, " "))
			for _, r := range tb.Rows {
				var cells []string
				for _, c := range r {
					cells = append(cells, c.String())
				}
				got = append(got, strings.Join(cells, " "))
			}
		}
		want := []string{"a: writer x y", "x ✓ ✗", "y ✓ ✓", "b: writer z", "z ✓"}
		if !split {
			want = []string{"a: writer x y z", "x ✓ ✗ –", "y ✓ ✓ –", "b: writer x y z", "z – – ✓"}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("SplitCols %v:\n%s\nwant\n%s", split, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	why := Spec{Where: []Match{Is("reads", "no")}, Rows: []string{"format", "writer", "reader"}, Columns: []Column{{Head: "why", Show: "why"}}}
	ts, err := why.Build(cases)
	if err != nil || len(ts) != 1 || len(ts[0].Rows) != 1 || ts[0].Rows[0][3].String() != "indefinite lengths" {
		t.Fatalf("why table %v, %v", ts, err)
	}
}

// TestIfEnv: a text that quotes a recorded fact shows only when the run
// recorded it.
func TestIfEnv(t *testing.T) {
	sec := Section{Title: "S", Blocks: []BlockSpec{{IfEnv: "w.k", Text: "k is {env:w.k}"}, {Text: "always"}}}
	for _, tc := range []struct {
		extra map[string]string
		want  []string
	}{
		{map[string]string{"w.k": "3"}, []string{"k is 3", "always"}},
		{nil, []string{"always"}},
	} {
		run := &results.Run{Env: results.Env{Extra: tc.extra}}
		bs, err := BuildSection(run, sec, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range bs {
			got = append(got, b.(*Text).Body)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("extra %v: %q, want %q", tc.extra, got, tc.want)
		}
	}
}
