package table

import (
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

// TestLanguages: the fastest case of each format in each language, the
// languages ranked by their fastest, and nothing with one language only.
func TestLanguages(t *testing.T) {
	run := &results.Run{Descriptors: []results.Descriptor{
		{Workload: "w", Key: "subject", Name: "java:jackson-json", Tags: []string{"java", "json"}},
	}}
	mk := func(subject, lang string, ns float64) *results.Case {
		c := &results.Case{Workload: "w", Name: "W", Status: results.StatusOK, Labels: results.Labels{{Key: "subject", Value: subject}}}
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
	cases := append(goOnly, mk("java:jackson-json", "java", 3e6), mk("msgpack", "", 5e5))
	bs := Languages(run, "w", "subject", cases, "s", "read", "f.svg", name)
	if len(bs) != 3 {
		t.Fatalf("%d blocks, want a sentence, a table and a plot", len(bs))
	}
	if got := bs[0].(*Text).Body; !strings.Contains(got, "go 500 µs (msgpack); java 3.00 ms (java:jackson-json)") {
		t.Errorf("sentence %q", got)
	}
	tb := bs[1].(*Table)
	if strings.Join(tb.Header, " ") != "format go java" || len(tb.Rows) != 2 || !strings.Contains(tb.Rows[1][1].String(), "jsonl-goccy") {
		t.Errorf("table %v %v", tb.Header, tb.Rows)
	}
}
