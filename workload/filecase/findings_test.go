package filecase

import (
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// fileCase is a case of workload "w" for format f, codec c and op, ok with
// a median of ms milliseconds over n samples, or FAILED with err.
func fileCase(f, c, op string, ms float64, n int, err string) results.Case {
	k := results.Case{Workload: "w", Name: "W", Labels: results.Labels{{Key: LabelFormat, Value: f}, {Key: LabelCodec, Value: c}, {Key: LabelOp, Value: op}},
		Metrics: map[string]float64{MetricFile: 1000, MetricRecords: 100}}
	if err != "" {
		k.Status, k.Error = results.StatusFailed, err
		return k
	}
	k.Status = results.StatusOK
	k.Summary = map[string]results.Stat{results.UnitNsPerOp: {Median: ms * 1e6, Lo: ms * 1e6, Hi: ms * 1e6, N: n}}
	for range n {
		k.Samples = append(k.Samples, results.Sample{Iters: 1, NsPerOp: ms * 1e6})
	}
	return k
}

// TestFewSamplesMarked (issue 26): the terminal summary and the top
// performers of a file workload mark a median from one or two samples,
// (n=1) or (n=2), and only those.
func TestFewSamplesMarked(t *testing.T) {
	run := &results.Run{Cases: []results.Case{
		fileCase("jsonl", "none", OpWrite, 10, 1, ""),
		fileCase("jsonl", "none", OpRead, 5, 5, ""),
		fileCase("jsonl", "zstd", OpWrite, 20, 3, ""),
		fileCase("jsonl", "zstd", OpRead, 8, 2, ""),
	}}
	run.Cases[2].Metrics[MetricFile] = 300
	run.Cases[3].Metrics[MetricFile] = 300
	cases := run.Filter("w", nil)
	sum := Summary("w", run, cases)
	rows := map[string][]string{}
	for _, r := range sum.Rows {
		if _, ok := rows[r[1].String()]; !ok {
			for _, c := range r {
				rows[r[1].String()] = append(rows[r[1].String()], c.String())
			}
		}
	}
	for pair, want := range map[string][]string{
		"jsonl + none": {"15.0 ms (n=1)", "10 ms (n=1)", "5.00 ms"},
		"jsonl + zstd": {"28.0 ms (n=2)", "20.0 ms", "8.00 ms (n=2)"},
	} {
		if got := rows[pair]; got == nil || strings.Join(got[2:5], "|") != strings.Join(want, "|") {
			t.Errorf("summary row of %s: %q, want total, write, read %q", pair, got, want)
		}
	}
	var md strings.Builder
	for _, b := range Derive("w", run, cases)["picks"] {
		for _, r := range b.(*table.Table).Rows {
			md.WriteString("|")
			for _, c := range r {
				md.WriteString(" " + c.String() + " |")
			}
			md.WriteString("\n")
		}
	}
	for _, want := range []string{"| Fastest write | jsonl + none | 0.010 s (n=1) |", "| Fastest read | jsonl + none | 0.005 s |",
		"| Smallest file | jsonl + zstd | 0.00 MiB |", "(write 0.020, read 0.008 (n=2))"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("recommendations lack %q:\n%s", want, md.String())
		}
	}
}

// TestFailedGrouped (issue 26): failed cases are listed one line per
// distinct error, with the count and the cases' names condensed.
func TestFailedGrouped(t *testing.T) {
	cs := []results.Case{
		fileCase("csv", "none", OpWrite, 0, 0, "csv: cannot hold this data: nested"),
		fileCase("csv", "zstd", OpWrite, 0, 0, "csv: cannot hold this data: nested"),
		fileCase("jsonl", "none", OpRead, 0, 0, "read back: row 3 differs"),
		fileCase("csv", "gzip", OpRead, 0, 0, "csv: cannot hold this data: nested"),
		fileCase("csv", "gzip", OpWrite, 0, 0, "csv: cannot hold this data: nested"),
	}
	var failed []*results.Case
	for i := range cs {
		if strings.Contains(cs[i].Error, "cannot hold") {
			cs[i].Status = results.StatusCannotHold
		}
		failed = append(failed, &cs[i])
	}
	got := FailedLines(failed)
	want := []string{
		"cannot hold: 4 cases — csv + none, zstd (write); csv + gzip (read, write): csv: cannot hold this data: nested",
		"FAILED subject=jsonl/codec=none/op=read: read back: row 3 differs",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := CondenseCases(failed, false, 300); got != "csv + none, zstd, gzip; jsonl + none" {
		t.Errorf("without ops: %q", got)
	}
	if got := CondenseCases(failed, true, 20); got != "csv + none, zstd (write); …" {
		t.Errorf("capped: %q", got)
	}
}
