package table

import (
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

// TestLanguages: the fastest case of each format in each language and
// operation, the languages ranked by their fastest within an operation
// only (a file read, an in-memory decode and a zero-copy open are not
// one ranking), and nothing with one language only.
func TestLanguages(t *testing.T) {
	run := &results.Run{Descriptors: []results.Descriptor{
		{Workload: "w", Key: "subject", Name: "java:jackson-json", Tags: []string{"java", "json"}},
		{Workload: "w", Key: "subject", Name: "python:pyarrow-ipc", Tags: []string{"python", "arrow-ipc-stream"}},
		{Workload: "w", Key: "subject", Name: "python:msgspec", Tags: []string{"python", "json"}},
	}}
	mk := func(subject, lang string, ns float64) *results.Case {
		op := results.OpRead
		if lang != "" {
			op = results.OpDecode
		}
		if subject == "python:pyarrow-ipc" {
			op = results.OpOpen
		}
		c := &results.Case{Workload: "w", Name: "W", Status: results.StatusOK, Labels: results.Labels{{Key: "subject", Value: subject}, {Key: "op", Value: op}}}
		if lang != "" {
			c.Labels = append(c.Labels, results.Label{Key: LanguageLabel, Value: lang})
		}
		for i := 0; i < 3; i++ {
			c.Samples = append(c.Samples, results.Sample{Iters: 1, NsPerOp: ns})
		}
		c.Summarize()
		return c
	}
	name := func(c *results.Case) string { return c.Labels.Get("subject") }
	goOnly := []*results.Case{mk("jsonl", "", 2e6), mk("jsonl-goccy", "", 1e6)}
	if bs := Languages(run, "w", "subject", goOnly, "s", "read", "f.svg", name); bs != nil {
		t.Fatalf("one language: %d blocks", len(bs))
	}
	cases := append(goOnly, mk("java:jackson-json", "java", 3e6), mk("msgpack", "", 5e5), mk("python:pyarrow-ipc", "python", 1e3), mk("python:msgspec", "python", 4e6))
	bs := Languages(run, "w", "subject", cases, "s", "read", "f.svg", name)
	if len(bs) != 3 {
		t.Fatalf("%d blocks, want a sentence, a table and a plot", len(bs))
	}
	// The zero-copy open, 1,000× faster, heads no ranking of reads or
	// decodes: it is ranked only among opens.
	want := "fastest first within each operation — file reads: go 500 µs (msgpack). in-memory decodes (every value visited): java 3.00 ms (java:jackson-json); python 4.00 ms (python:msgspec). zero-copy opens (no value visited, not a decode): python 1 µs (python:pyarrow-ipc)."
	if got := bs[0].(*Text).Body; !strings.Contains(got, want) {
		t.Errorf("sentence %q\nwant it to hold %q", got, want)
	}
	tb := bs[1].(*Table)
	if strings.Join(tb.Header, "|") != "format|go · read (file)|java · decode (memory)|python · decode (memory)|python · open (no value visited)" || len(tb.Rows) != 3 || !strings.Contains(tb.Rows[2][1].String(), "jsonl-goccy") {
		t.Errorf("table %v %v", tb.Header, tb.Rows)
	}
}
