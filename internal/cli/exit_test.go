package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

// TestFailedCasesExitOne: a run with a FAILED case ends with exit status
// 1 and names the first, every time (a library's bug too); skipped cases,
// the "cannot hold" answers of a format and interop cells do not count,
// and the summary's count line counts exactly what the exit status does.
func TestFailedCasesExitOne(t *testing.T) {
	ok := results.Case{Name: "X", Labels: results.Labels{{Key: "subject", Value: "a"}}, Status: results.StatusOK}
	skipped := results.Case{Name: "X", Labels: results.Labels{{Key: "subject", Value: "adbc"}}, Status: results.StatusSkipped, Error: "pip install adbc-driver-postgresql"}
	cannot := results.Case{Name: "X", Labels: results.Labels{{Key: "subject", Value: "csv"}}, Status: results.StatusCannotHold, Error: "setup: cannot hold this data: column tags is a list"}
	failed := results.Case{Name: "X", Labels: results.Labels{{Key: "subject", Value: "arrow-stream"}}, Status: results.StatusFailed, Error: "verify: values differ"}
	bug := results.Case{Name: "X", Labels: results.Labels{{Key: "subject", Value: "parquet-go"}}, Status: results.StatusFailed,
		Error: "verify: bad page (an upstream bug: parquet-go/parquet-go#608)"}
	interopCell := results.Case{Name: "Interop", Labels: results.Labels{{Key: "op", Value: "interop"}}, Status: results.StatusFailed, Error: "read failed"}
	for _, tc := range []struct {
		name  string
		cases []results.Case
		code  int
		msg   string
	}{
		{"all ok", []results.Case{ok, ok}, ExitOK, ""},
		{"skipped", []results.Case{ok, skipped}, ExitOK, ""},
		{"cannot hold this data", []results.Case{ok, cannot}, ExitOK, ""},
		{"a library's bug", []results.Case{ok, bug}, ExitFailure, "1 case of 2 FAILED"},
		{"an interop cell", []results.Case{ok, interopCell}, ExitOK, ""},
		{"failed", []results.Case{ok, cannot, failed, failed}, ExitFailure, "2 cases of 4 FAILED (the first: X/subject=arrow-stream: verify: values differ)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := failedError(&results.Run{Cases: tc.cases})
			var ptrs []*results.Case
			for i := range tc.cases {
				ptrs = append(ptrs, &tc.cases[i])
			}
			if line := countLine(ptrs); strings.Contains(line, "FAILED") != (tc.code != ExitOK) {
				t.Errorf("summary %q disagrees with exit %d", line, tc.code)
			}
			var ee exitError
			switch {
			case tc.code == ExitOK && err != nil:
				t.Errorf("got %v, want success", err)
			case tc.code != ExitOK && (!errors.As(err, &ee) || ee.code != tc.code || !strings.Contains(err.Error(), tc.msg)):
				t.Errorf("got %v, want exit %d with %q", err, tc.code, tc.msg)
			}
		})
	}
}
