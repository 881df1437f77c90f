package run

import (
	"context"
	"fmt"
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
	// Estimate is the expected measuring time (see bench.Estimate).
	Estimate time.Duration
	// Err is why the workload could not be planned (it would be skipped).
	Err error
	// Forks is the number of processes the cases would be measured in.
	Forks int
}

// DryRun plans the chosen workloads without acquiring anything (no
// server, no data, no output directory) and returns, per workload, the
// cases that the same options would measure and an estimated duration.
func DryRun(ctx context.Context, o Options) ([]Planned, error) {
	ws, err := Select(o.Workloads, o.Names)
	if err != nil {
		return nil, err
	}
	if err := checkSubjects(ws, o.Subjects); err != nil {
		return nil, err
	}
	cfg := workload.Config{Scale: o.Scale, Subjects: o.Subjects, PGDSN: o.PGDSN, DryRun: true}
	opts := bench.Options{Count: o.Count, SampleTime: o.Benchtime}
	var out []Planned
	for _, w := range ws {
		pl := Planned{Workload: w.Name()}
		p, err := w.Plan(ctx, cfg)
		if err != nil {
			pl.Err = err
			out = append(out, pl)
			continue
		}
		cases := o.Shard.Select(w.Name(), workload.FilterCases(p.Cases, o.Filter))
		// Every fork calibrates and warms each case up again.
		pl.Forks = o.planForks(p)
		for i := range cases {
			pl.Cases = append(pl.Cases, cases[i].FullName())
			for _, n := range forkCounts(opts.Count, pl.Forks) {
				fo := opts
				fo.Count = n
				pl.Estimate += bench.Estimate(&cases[i], fo)
			}
		}
		if p.Close != nil {
			if err := p.Close(); err != nil {
				return nil, fmt.Errorf("%s: cleanup: %w", w.Name(), err)
			}
		}
		out = append(out, pl)
	}
	return out, nil
}
