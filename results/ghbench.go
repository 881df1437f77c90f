package results

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// GitHubBenchmarkFile is the name of the export for CI dashboards.
const GitHubBenchmarkFile = "github-benchmark.json"

// ghEntry is one entry of github-action-benchmark's
// "customSmallerIsBetter" format.
type ghEntry struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	Range string  `json:"range,omitempty"`
	Extra string  `json:"extra,omitempty"`
}

// WriteGitHubBenchmark exports runs in the JSON format that
// github-action-benchmark reads with `tool: customSmallerIsBetter`: one
// entry per measured case with its median ns/op and its interval, and —
// for cases sampled with a limit row — one more with the in-round ratio to
// it (unit x-limit), which moves less between CI machines. With several
// runs, names are prefixed by the host.
func WriteGitHubBenchmark(w io.Writer, runs ...*Run) error {
	entries := []ghEntry{}
	for _, run := range runs {
		prefix := ""
		if len(runs) > 1 && run.Env.Host != "" {
			prefix = run.Env.Host + ": "
		}
		for i := range run.Cases {
			c := &run.Cases[i]
			if !c.OK() {
				continue
			}
			name := prefix + c.Workload + "/" + c.FullName()
			extra := fmt.Sprintf("n=%d samples; role %s", len(c.Samples), c.Role)
			if st, ok := c.Stat(UnitNsPerOp); ok {
				entries = append(entries, ghEntry{Name: name, Unit: UnitNsPerOp, Value: st.Median, Range: rangeString(st), Extra: extra})
			}
			if st, ok := c.Stat(UnitInstructions); ok {
				entries = append(entries, ghEntry{Name: name + " (instructions)", Unit: UnitInstructions, Value: st.Median, Range: rangeString(st),
					Extra: fmt.Sprintf("n=%d counted runs under Valgrind's callgrind", st.N)})
			}
			if st, ok := c.Stat(UnitEstCycles); ok {
				entries = append(entries, ghEntry{Name: name + " (estimated cycles)", Unit: UnitEstCycles, Value: st.Median, Range: rangeString(st),
					Extra: "L1 hits + 5 × LL hits + 35 × RAM hits, from callgrind's cache simulation"})
			}
			if st, ok := c.Stat(UnitVsLimit); ok && !c.IsLimit() {
				entries = append(entries, ghEntry{Name: name + " ÷ limit", Unit: UnitVsLimit, Value: st.Median, Range: rangeString(st), Extra: "ratio to the limit row of the same sampling round"})
			}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(entries); err != nil {
		return fmt.Errorf("results: github benchmark export: %w", err)
	}
	return nil
}

// rangeString renders an interval as github-action-benchmark shows it:
// "± 4.1%".
func rangeString(s Stat) string {
	if s.N < 2 || s.Median == 0 {
		return ""
	}
	return "± " + strconv.FormatFloat(s.RelWidth()*100, 'f', 1, 64) + "%"
}
