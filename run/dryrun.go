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
		factor := o.History.Factor(w.Name(), string(o.Scale), o.runnerNames(), id, true)
		if t, ok := o.History.Lookup(w.Name(), string(o.Scale), o.runnerNames(), id); ok {
			pl.Measured = &t
		}
		planCases = append(planCases, p.Cases)
		cases := o.Shard.Select(w.Name(), workload.FilterCases(selectSubjects(p.Cases, o.Subjects), o.Filter))
		// Every fork calibrates and warms each case up again.
		pl.Forks = o.planForks(p)
		for i := range cases {
			pl.Cases = append(pl.Cases, cases[i].FullName())
			for _, n := range forkCounts(opts.Count, pl.Forks) {
				fo := opts
				fo.Count = n
				pl.Estimate += time.Duration(float64(bench.Estimate(&cases[i], fo)) * factor)
			}
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
