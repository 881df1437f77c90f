package run

import (
	"context"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
)

// TestBudget: a run whose budget is spent stops its groups after the
// first rounds (Stop "run") and records the budget; without one they take
// the count.
func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		budget  time.Duration
		samples int
		stop    string
	}{
		{"spent", time.Nanosecond, 6, bench.StopRun},
		{"none", 0, 10, bench.StopCount},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := opts(t, t.TempDir(), func(o *Options) { o.Count, o.Budget = 10, tc.budget })
			out, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range out.Run.Cases {
				if !c.OK() {
					continue
				}
				if len(c.Samples) != tc.samples || c.Stop != tc.stop {
					t.Errorf("%s: %d samples, stop %q; want %d, %q", c.FullName(), len(c.Samples), c.Stop, tc.samples, tc.stop)
				}
			}
			if got, want := out.Run.Env.Extra["run.budget"], map[bool]string{true: tc.budget.String()}[tc.budget > 0]; got != want {
				t.Errorf("env run.budget %q, want %q", got, want)
			}
		})
	}
}
