package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/results"
)

// The fixtures of issue 26.5 and 26.6, written with results.Writer (run
// go test -update to rewrite them) and read back as any results file is:
//
//   - few-old.jsonl: the data workload over movies.jsonl (10,000 rows),
//     --count 2: msgpack+zstd write and read with two samples each,
//     json write with one, and a limit row with five.
//   - few-new.jsonl: the same input; msgpack+zstd write 36× slower (two
//     samples again), json write's one sample a cold 1.57 s.
//   - few-other.jsonl: few-new's cases over github.csv (336,776 rows).
//
// The CLI's compare tests use them too.
type fewCase struct {
	format, codec, op string
	ns                []float64
}

func fewRun(input string, rows, columns int, cases []fewCase) (results.Env, []results.Case) {
	env := results.Env{CPU: "recorded CPU", Cores: 2, GOMAXPROCS: 2, GOOS: "linux", GOARCH: "amd64", GoVersion: "go1.26.0",
		Version: "0.1.0-dev", Start: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC), Scale: "quick", Count: 2,
		Command: []string{"serbench", "run", "data", "--input", input, "--count", "2"}, Host: "host-a",
		Extra: map[string]string{"data.input": input, "data.rows": strconv.Itoa(rows), "data.columns": strconv.Itoa(columns), "data.memory_limit": "none"}}
	var out []results.Case
	for _, fc := range cases {
		c := results.Case{Workload: "data", Name: "Data", Status: results.StatusOK, Role: results.RoleSubject,
			Labels: results.Labels{{Key: "format", Value: fc.format}, {Key: "codec", Value: fc.codec}, {Key: "op", Value: fc.op}}}
		for _, ns := range fc.ns {
			c.Samples = append(c.Samples, results.Sample{Iters: 1, NsPerOp: ns, BytesPerOp: 4096, AllocsPerOp: 12})
		}
		c.Summarize()
		out = append(out, c)
	}
	return env, out
}

func fewFixtures() map[string][]byte {
	old := []fewCase{
		{"msgpack", "zstd", "write", []float64{46.8e6, 47.3e6}},
		{"msgpack", "zstd", "read", []float64{21.0e6, 21.4e6}},
		{"json", "none", "write", []float64{16.9e6}},
		{"memcpy", "none", "write", []float64{1.01e6, 1.00e6, 1.02e6, 0.99e6, 1.00e6}},
	}
	new := []fewCase{
		{"msgpack", "zstd", "write", []float64{1.69e9, 1.71e9}},
		{"msgpack", "zstd", "read", []float64{21.2e6, 21.1e6}},
		{"json", "none", "write", []float64{1.57e9}},
		{"memcpy", "none", "write", []float64{1.00e6, 1.01e6, 1.00e6, 1.02e6, 0.99e6}},
	}
	out := map[string][]byte{}
	for name, spec := range map[string]struct {
		input         string
		rows, columns int
		cases         []fewCase
	}{
		"few-old.jsonl":   {"/home/u/data/movies.jsonl", 10000, 7, old},
		"few-new.jsonl":   {"/srv/ci/movies.jsonl", 10000, 7, new},
		"few-other.jsonl": {"/home/u/data/github.csv", 336776, 12, new},
	} {
		env, cases := fewRun(spec.input, spec.rows, spec.columns, spec.cases)
		var buf bytes.Buffer
		w := results.NewWriter(&buf)
		if err := w.WriteEnv(env); err != nil {
			panic(err)
		}
		for _, c := range cases {
			if err := w.WriteCase(c); err != nil {
				panic(err)
			}
		}
		if err := w.WriteEnd(results.End{Time: env.Start.Add(time.Minute), Planned: len(cases), Done: len(cases)}); err != nil {
			panic(err)
		}
		if err := w.Close(); err != nil {
			panic(err)
		}
		out[name] = buf.Bytes()
	}
	return out
}

// TestFewSamplesFixtures keeps the checked-in fixtures what fewFixtures
// writes.
func TestFewSamplesFixtures(t *testing.T) {
	for name, b := range fewFixtures() {
		golden(t, name, string(b))
	}
}

// TestCompareTooFewSamples is issue 26.5: a run 36× slower with two
// samples a side said "0 changed". Rows that no test of their sizes could
// call significant say so, the summary counts them and says what to
// rerun, and the slower ones are what a regression gate must not pass.
func TestCompareTooFewSamples(t *testing.T) {
	old, new := readRun(t, "few-old.jsonl"), readRun(t, "few-new.jsonl")
	c := NewComparison("few-old.jsonl", "few-new.jsonl", old, new, CompareOptions{})
	type row struct {
		tooFew, cannotTell, significant bool
	}
	want := map[string]row{
		"Data/format=msgpack/codec=zstd/op=write " + results.UnitNsPerOp: {true, true, false},
		"Data/format=msgpack/codec=zstd/op=read " + results.UnitNsPerOp:  {true, false, false},
		"Data/format=json/codec=none/op=write " + results.UnitNsPerOp:    {true, true, false},
		"Data/format=memcpy/codec=none/op=write " + results.UnitNsPerOp:  {false, false, false},
		// Every sample 4096 B/op: however few, they show no change.
		"Data/format=msgpack/codec=zstd/op=write " + results.UnitBytesPerOp: {false, false, false},
	}
	for _, d := range c.Deltas {
		w, ok := want[d.Name+" "+d.Unit]
		if !ok {
			continue
		}
		delete(want, d.Name+" "+d.Unit)
		if got := (row{d.TooFew, c.CannotTell(d), d.Significant}); got != w {
			t.Errorf("%s %s: got %+v, want %+v (p=%.3f n=%d+%d)", d.Name, d.Unit, got, w, d.P, d.N1, d.N2)
		}
	}
	for k := range want {
		t.Errorf("no row %s", k)
	}
	if c.Regressions() != 0 || c.Unjudged() != 3 || len(c.CannotTells()) != 2 {
		t.Errorf("regressions %d, unjudged %d, cannot tell %d; want 0, 3, 2", c.Regressions(), c.Unjudged(), len(c.CannotTells()))
	}
	for _, tt := range []struct {
		name  string
		write func(*Comparison, *strings.Builder) error
	}{
		{"compare-few.golden.txt", func(c *Comparison, w *strings.Builder) error { return c.WriteText(w) }},
		{"compare-few.golden.md", func(c *Comparison, w *strings.Builder) error { return c.WriteMarkdown(w) }},
		{"compare-few.golden.json", func(c *Comparison, w *strings.Builder) error { return c.WriteJSON(w) }},
	} {
		var out strings.Builder
		if err := tt.write(c, &out); err != nil {
			t.Fatal(err)
		}
		golden(t, tt.name, out.String())
	}
}

// TestDifferentInputs is the other half of issue 26.5: runs over
// different data are told apart by what they recorded.
func TestDifferentInputs(t *testing.T) {
	old, new, other := readRun(t, "few-old.jsonl"), readRun(t, "few-new.jsonl"), readRun(t, "few-other.jsonl")
	a, b := readRun(t, "run-a.jsonl"), readRun(t, "run-b.jsonl")
	with := func(r *results.Run, edit func(*results.Env)) *results.Run {
		cp := *r
		cp.Env.Extra = map[string]string{}
		for k, v := range r.Env.Extra {
			cp.Env.Extra[k] = v
		}
		edit(&cp.Env)
		return &cp
	}
	tests := []struct {
		name     string
		old, new *results.Run
		want     string
	}{
		{"same file in another directory", old, new, ""},
		{"another file", old, other, "OLD measured data with input movies.jsonl (10,000 rows, 7 columns), NEW with input github.csv (336,776 rows, 12 columns)"},
		{"runs that record no input", a, b, ""},
		{"another scale", a, with(b, func(e *results.Env) { e.Scale = "full" }), "OLD ran at scale quick, NEW at scale full"},
		{"another limit of one file", old, with(new, func(e *results.Env) { e.Extra["data.rows"] = "1000000" }),
			"OLD measured data with input movies.jsonl (10,000 rows, 7 columns), NEW with input movies.jsonl (1,000,000 rows, 7 columns)"},
		{"a fact one run did not record", old, with(other, func(e *results.Env) { delete(e.Extra, "data.input") }),
			"OLD measured data with 10,000 rows, 7 columns, NEW with 336,776 rows, 12 columns"},
		{"a workload only one ran", old, with(new, func(e *results.Env) {
			e.Extra = map[string]string{"pgscan.query": "select 1", "pgscan.query_rows": "1"}
		}), ""},
		{"another query", with(old, func(e *results.Env) { e.Extra["pgscan.query"], e.Extra["pgscan.query_rows"] = "select * from t", "500" }),
			with(old, func(e *results.Env) {
				e.Extra["pgscan.query"], e.Extra["pgscan.query_rows"] = "select * from u", "80000"
			}),
			"OLD measured pgscan with query `select * from t` (500 rows), NEW with query `select * from u` (80,000 rows)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DifferentInputs(tt.old, tt.new); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	c := NewComparison("few-old.jsonl", "few-other.jsonl", old, other, CompareOptions{})
	var text, md strings.Builder
	if err := c.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	c.WriteMarkdown(&md)
	for _, out := range []string{text.String(), md.String()} {
		if !strings.Contains(out, "github.csv (336,776 rows, 12 columns): these runs measured different data") {
			t.Errorf("a comparison of different data does not say so:\n%s", out)
		}
	}
}

// TestFewSampleCells is issue 26.6: every cell that prints a median of
// fewer than three samples says how many, with one rule.
// TestSideBySideMarksFewSamples renders the side-by-side view of two runs
// (Markdown and HTML) whose cases have one and two samples.
func TestSideBySideMarksFewSamples(t *testing.T) {
	runs := []*results.Run{readRun(t, "few-old.jsonl"), readRun(t, "few-new.jsonl")}
	doc, err := Build(Input{Runs: runs})
	if err != nil {
		t.Fatal(err)
	}
	var md, html strings.Builder
	doc.WriteMarkdown(&md)
	doc.WriteHTML(&html)
	golden(t, "few-side-by-side.golden.md", md.String())
	for _, want := range []string{"1.57 s (n=1)", "92.9× (n=1)", "1.70 s ±1% (n=2)"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}
