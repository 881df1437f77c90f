package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/workload"
)

// Planned is one workload's part of a dry run: the cases a run would
// measure and how long it should take.
type Planned struct {
	Workload string
	// Cases are the full names of the cases, in run order.
	Cases []string
	// Estimate is the expected measuring time: bench.Estimate's, scaled
	// by the History of this machine when it has the workload (Measured).
	Estimate time.Duration
	// Floor is what the workload costs when the budget cuts its groups at
	// once (the fewest samples that give an interval), scaled as Estimate.
	Floor time.Duration
	// Measured is the workload's last complete run on this machine at
	// the same scale with the same runners, when the History has one.
	Measured *Timing
	// Err is why the workload could not be planned (it would be skipped).
	Err error
	// Forks is the number of processes the cases would be measured in.
	Forks int
	// Unbuilt names the runners the run would build first: their cases
	// are not in Cases, since only a runner's hello says what it has.
	Unbuilt []string
}

// DryRun plans the chosen workloads without acquiring anything (no
// server, no generated data, no output directory, no runner built; a
// runner already built is started for its hello) and returns, per
// workload, the cases that the same options would measure and an
// estimated duration. A workload that reads the user's input reads it as
// the run would. Bad input is refused as the run refuses it (a
// *workload.UsageError: a missing or unreadable input, an unknown
// extension, a malformed line); a workload that is unavailable here and was
// not named, or that cannot plan without what a dry run does not acquire,
// is returned with its Err.
func DryRun(ctx context.Context, o Options) ([]Planned, error) {
	ws, err := Select(o.Workloads, o.Names)
	if err != nil {
		return nil, err
	}
	if err := checkSubjects(ws, o.Subjects, o.Runners.Languages()); err != nil {
		return nil, err
	}
	// The runners already built say hello, so that their cases are
	// listed; none is built by a dry run (Planned.Unbuilt names them).
	peek := o.Runners.Peek()
	cfg := workload.Config{Scale: o.Scale, Subjects: o.Subjects, DryRun: true, Runners: peek}
	opts := bench.Options{Count: o.Count, SampleTime: o.Benchtime, CaseSampling: o.caseSampling(), Target: o.Target}
	var out []Planned
	var planned []workload.Workload
	var planCases [][]bench.Case
	total := 0
	for _, w := range ws {
		pl := Planned{Workload: w.Name()}
		p, err := w.Plan(ctx, cfg)
		if err != nil && ctx.Err() != nil {
			return nil, bench.ErrInterrupted
		}
		var ue *workload.UsageError
		if err != nil && errors.As(err, &ue) && (len(o.Names) > 0 || !workload.IsUnavailable(err)) {
			// What the run would refuse (exit status 2), in its words.
			return nil, fmt.Errorf("%s: %w", w.Name(), err)
		}
		if err != nil {
			pl.Err = err
			out = append(out, pl)
			continue
		}
		id := o.historyIdentity(p)
		// The cases measured in Go and by the runners err apart; each part
		// is scaled by its own history, as the run's progress line does.
		localFactor, remoteFactor := o.History.Factors(w.Name(), string(o.Scale), o.runnerNames(), id)
		if t, ok := o.History.Lookup(w.Name(), string(o.Scale), o.runnerNames(), id); ok {
			pl.Measured = &t
		}
		planCases = append(planCases, p.Cases)
		cases := o.Shard.Select(w.Name(), workload.FilterCases(selectSubjects(p.Cases, o.Subjects), o.Filter))
		// Every fork calibrates and warms each case up again.
		pl.Forks = o.planForks(p)
		for i := range cases {
			c := &cases[i]
			pl.Cases = append(pl.Cases, c.FullName())
			factor, forks := localFactor, forkCounts(opts.Count, pl.Forks)
			if c.Remote != nil {
				factor, forks = remoteFactor, []int{opts.Count}
			}
			var est, floor time.Duration
			for k, n := range forks {
				fo := opts
				fo.Count = n
				e := bench.Estimate(c, fo)
				est += e
				if len(forks) > 1 && k < 2 {
					// The budget stops a forked case after its second
					// process.
					floor += e
				}
			}
			if len(forks) == 1 {
				floor = min(bench.Floor(c, opts), est)
			}
			pl.Estimate += time.Duration(float64(est) * factor)
			pl.Floor += time.Duration(float64(floor) * factor)
		}
		if p.Close != nil {
			if err := p.Close(); err != nil {
				return nil, fmt.Errorf("%s: cleanup: %w", w.Name(), err)
			}
		}
		out = append(out, pl)
		planned = append(planned, w)
		total += len(pl.Cases)
	}
	if err := checkSelected(ws, planCases, o.Subjects, o.Runners.Languages()); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Unbuilt = peek.Unbuilt()
	}
	if total == 0 && len(planned) > 0 && o.Shard.N <= 1 {
		// The run refuses a selection without cases: so does its dry run.
		filter := ""
		if o.Filter != nil {
			filter = o.Filter.String()
		}
		return nil, workload.Usagef("no case matches (workloads %s, --filter %q, --subject %s)", strings.Join(names(ws), ","), filter, strings.Join(o.Subjects, ","))
	}
	return out, nil
}

// Budgeted is how long workloads planned as ps take in a run whose time
// budget is budget (0: none): each workload is given its share of what is
// left (budgetShare, as the run gives it) and takes its estimate, or its
// share when that is less but never less than its floor.
func Budgeted(ps []Planned, budget time.Duration) time.Duration {
	var total time.Duration
	if budget <= 0 {
		for _, p := range ps {
			total += p.Estimate
		}
		return total
	}
	est, floor := map[string]time.Duration{}, map[string]time.Duration{}
	for _, p := range ps {
		if p.Err == nil {
			est[p.Workload], floor[p.Workload] = p.Estimate, p.Floor
		}
	}
	for _, p := range ps {
		if p.Err != nil {
			continue
		}
		share := budgetShare(budget-total, p.Workload, est, floor)
		total += min(p.Estimate, max(share, p.Floor))
		delete(est, p.Workload)
		delete(floor, p.Workload)
	}
	return total
}
