package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

// TestFailedCasesExitOne: a run with a FAILED case ends with exit status
// 1 and names the first; skipped cases, the documented "cannot hold this
// data" answers of a format, interop cells and a measured library's known
// bug do not count as failures.
func TestFailedCasesExitOne(t *testing.T) {
	ok := results.Case{Name: "X", Labels: results.Labels{{Key: "subject", Value: "a"}}, Status: results.StatusOK}
	skipped := results.Case{Name: "X", Labels: results.Labels{{Key: "subject", Value: "adbc"}}, Status: results.StatusSkipped, Error: "pip install adbc-driver-postgresql"}
	cannot := results.Case{Name: "X", Labels: results.Labels{{Key: "subject", Value: "csv"}}, Status: results.StatusCannotHold, Error: "setup: cannot hold this data: column tags is a list"}
	failed := results.Case{Name: "X", Labels: results.Labels{{Key: "subject", Value: "arrow-stream"}}, Status: results.StatusFailed, Error: "verify: values differ"}
	bug := results.Case{Name: "X", Labels: results.Labels{{Key: "subject", Value: "parquet-go"}}, Status: results.StatusFailed,
		Error: "verify: bad page (" + results.KnownBug + "parquet-go/parquet-go#608)"}
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
		{"a library's known bug", []results.Case{ok, bug}, ExitOK, ""},
		{"an interop cell", []results.Case{ok, interopCell}, ExitOK, ""},
		{"failed", []results.Case{ok, cannot, failed, failed}, ExitFailure, "2 cases of 4 FAILED (the first: X/subject=arrow-stream: verify: values differ)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := failedError(&results.Run{Cases: tc.cases})
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
