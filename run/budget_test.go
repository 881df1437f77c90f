package run

import (
	"context"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
)

// TestBudget: a run whose budget is spent stops its subjects at their
// floor (Stop "run"), within a turn, and records the budget; without one
// they take the count.
func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget time.Duration
		stop   string
	}{
		{"spent", time.Nanosecond, bench.StopRun},
		{"none", 0, bench.StopCount},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := opts(t, t.TempDir(), func(o *Options) { o.Count, o.Budget = 40, tc.budget })
			out, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range out.Run.Cases {
				if !c.OK() {
					continue
				}
				n := len(c.Samples)
				if tc.stop == bench.StopCount {
					if n != 40 || c.Stop != bench.StopCount {
						t.Errorf("%s: %d samples, stop %q; want 40, %q", c.FullName(), n, c.Stop, bench.StopCount)
					}
					continue
				}
				// A cut keeps the floor: twenty samples of a fast op (many
				// iterations a sample), the six rounds of a slow one. The
				// references (baseline, limit row) sample while the
				// others do, so a fast turn may give them their count.
				floor := 6
				if c.Samples[0].Iters > 1 {
					floor = 20
				}
				ref := c.Role == results.RoleBaseline || c.Role == results.RoleLimit
				switch {
				case n < floor || n > 40:
					t.Errorf("%s: %d samples, want %d to 40", c.FullName(), n, floor)
				case !ref && (c.Stop != bench.StopRun || n == 40):
					t.Errorf("%s: %d samples, stop %q; want fewer than 40, %q", c.FullName(), n, c.Stop, bench.StopRun)
				case ref && c.Stop != bench.StopRun && c.Stop != bench.StopCount:
					t.Errorf("%s (%s): stop %q, want %q or %q", c.FullName(), c.Role, c.Stop, bench.StopRun, bench.StopCount)
				}
			}
			if got, want := out.Run.Env.Extra["run.budget"], map[bool]string{true: tc.budget.String()}[tc.budget > 0]; got != want {
				t.Errorf("env run.budget %q, want %q", got, want)
			}
		})
	}
}

// TestBudgetShare: the floors of the workloads left come first; the time
// left above them is shared by what each could spend above its floor.
func TestBudgetShare(t *testing.T) {
	m := time.Minute
	est := map[string]time.Duration{"fast": 4 * m, "fixed": 6 * m}
	floor := map[string]time.Duration{"fast": 1 * m, "fixed": 6 * m}
	tests := []struct {
		name  string
		avail time.Duration
		w     string
		est   map[string]time.Duration
		floor map[string]time.Duration
		want  time.Duration
	}{
		{"time for everything", 10 * m, "fast", est, floor, 4 * m},
		{"time for the floors and half the rest", 8*m + 30*time.Second, "fast", est, floor, 2*m + 30*time.Second},
		{"a workload without flex gets its floor", 8*m + 30*time.Second, "fixed", est, floor, 6 * m},
		{"floors alone exceed the time left", 5 * m, "fast", est, floor, 1 * m},
		{"the budget already spent", -m, "fast", est, floor, 1 * m},
		{"nothing to cut", 3 * m, "fixed", map[string]time.Duration{"fixed": 6 * m}, map[string]time.Duration{"fixed": 6 * m}, 3 * m},
		{"no estimates", 3 * m, "x", map[string]time.Duration{}, map[string]time.Duration{}, 3 * m},
	}
	for _, tt := range tests {
		if got := budgetShare(tt.avail, tt.w, tt.est, tt.floor); got != tt.want {
			t.Errorf("%s: budgetShare(%s, %s) = %s, want %s", tt.name, tt.avail, tt.w, got, tt.want)
		}
	}
}

// TestBudgeted: what a dry run says a budgeted run takes — each workload
// its estimate, or its share of what the budget leaves when that is less,
// but never less than its floor — and the estimates' sum without a budget.
func TestBudgeted(t *testing.T) {
	m := time.Minute
	ps := []Planned{
		{Workload: "a", Estimate: 4 * m, Floor: m},
		{Workload: "down", Err: context.Canceled},
		{Workload: "b", Estimate: 10 * m, Floor: 2 * m},
	}
	for _, tc := range []struct {
		name   string
		budget time.Duration
		want   time.Duration
	}{
		{"none", 0, 14 * m},
		{"generous", time.Hour, 14 * m},
		{"tight: shared above the floors", 8 * m, 8 * m},
		{"below the floors: the floors", m, 3 * m},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Budgeted(ps, tc.budget); got != tc.want {
				t.Errorf("Budgeted(%s) = %s, want %s", tc.budget, got, tc.want)
			}
		})
	}
}
