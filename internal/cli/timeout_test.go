package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload"
)

// hangEnv adds hangWorkload to the workloads of the test binary acting as
// serbench.
const hangEnv = "SERBENCH_CLI_TEST_HANG"

// hangWorkload has three cases, each its own group; the second one's
// set-up never returns, as a pathological input or a hung server would.
type hangWorkload struct{}

func (hangWorkload) Name() string                                       { return "hang" }
func (hangWorkload) Description() string                                { return "a case that never ends (tests)" }
func (hangWorkload) Subjects() []string                                 { return []string{"a", "stuck", "c"} }
func (hangWorkload) Layout() []table.Section                            { return nil }
func (hangWorkload) Derive(*results.Run, []*results.Case) table.Derived { return nil }
func (hangWorkload) Summary(*results.Run, []*results.Case) *table.Table { return nil }

func (hangWorkload) Plan(context.Context, workload.Config) (*workload.Plan, error) {
	p := &workload.Plan{}
	for _, s := range []string{"a", "stuck", "c"} {
		c := bench.Case{Workload: "hang", Name: "Hang", Group: s, Labels: results.Labels{{Key: "subject", Value: s}},
			Verify: func() error { return nil },
			Run: func(b *bench.B) error {
				for i := 0; i < b.N; i++ {
					time.Sleep(time.Microsecond)
				}
				return nil
			}}
		if s == "stuck" {
			c.Setup = func() error {
				for {
					time.Sleep(time.Hour) // a set-up that never returns
				}
			}
		}
		p.Cases = append(p.Cases, c)
		p.Descriptors = append(p.Descriptors, results.Descriptor{Key: "subject", Name: s, Role: results.RoleSubject, What: "test subject " + s})
	}
	return p, nil
}

// TestCaseTimeoutGoesOn: a real serbench process whose second case never
// finishes its set-up records it FAILED ("timed out after …") once
// --case-timeout has passed, replaces itself with a fresh process that
// resumes the run, measures the third case and exits 1 (a FAILED case),
// with the report written and every case once.
func TestCaseTimeoutGoesOn(t *testing.T) {
	t.Setenv(hangEnv, "1")
	dir := filepath.Join(t.TempDir(), "run")
	t0 := time.Now()
	code, out := serbench(t, t.TempDir(), "run", "hang", "--count", "2", "--benchtime", "1ms", "--progress", "none",
		"--case-timeout", "1s", "--out", dir)
	if code != ExitFailure {
		t.Fatalf("exit %d, want %d: %s", code, ExitFailure, out)
	}
	if d := time.Since(t0); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
	for _, want := range []string{"Hang/subject=stuck timed out after 1s in setup: recorded as FAILED; measuring the rest in a fresh process",
		"1 case of 3 FAILED"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	names := caseNames(t, filepath.Join(dir, "results.jsonl"))
	if want := []string{"hang Hang/subject=a ok", "hang Hang/subject=c ok", "hang Hang/subject=stuck failed"}; !slices.Equal(names, want) {
		t.Errorf("cases %v, want %v", names, want)
	}
	r, err := results.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Cases {
		if c.Labels.Get("subject") == "stuck" && c.Error != "setup: timed out after 1s" {
			t.Errorf("the stuck case's error: %q", c.Error)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Errorf("no report: %v", err)
	}
}

func TestResumeArgs(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
	}{
		{[]string{"run", "hang"}, []string{"run", "hang", "--resume", "--out", "D"}},
		{[]string{"run", "--force", "--out", "X"}, []string{"run", "--out", "X", "--resume"}},
		{[]string{"run", "--force=true", "--out=X", "--resume"}, []string{"run", "--out=X", "--resume"}},
		{[]string{"run", "w", "--fork", "1/2", "--cases", "F", "--out", "O", "--force", "--forks", "1"}, []string{"run", "w", "--fork", "1/2", "--cases", "F", "--out", "O", "--forks", "1", "--resume"}},
	} {
		if got := resumeArgs(tc.in, "D"); !slices.Equal(got, tc.want) {
			t.Errorf("resumeArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
