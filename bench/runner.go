package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/serbench/serbench/results"
)

// Progress receives one call before each case (done cases so far, total,
// and the case about to run) and one after each (with its result).
type Progress interface {
	Start(done, total int, c *Case)
	Done(done, total int, r *results.Case)
}

// A SampleProgress is also told of each sample a runner's group takes
// (Options.OnSample): the group's cases are Done only when the whole group
// is, minutes after it started.
type SampleProgress interface {
	Progress
	Sample(c *Case)
}

// RunAll measures cases, handing each finished case to sink as soon as
// its group is done. Cases that share a non-empty Group are measured
// together by MeasureGroup, at the place of the group's first case; the
// others alone, in order. It stops early, without error from the cases
// themselves, when ctx ends: the returned error is then ErrInterrupted and
// every case finished so far has already reached sink. An error from sink
// stops the run too. With opts.CaseTimeout set, a call into a case's code
// that does not return in time ends the run: the case reaches sink FAILED
// ("timed out after …"), the rest of its group is left unmeasured, and the
// error is a *TimeoutError. With opts.Probe set, the machine is probed before
// each group (at most once per opts.Probe.Every) and at the end.
func RunAll(ctx context.Context, cases []Case, opts Options, p Progress, sink func(results.Case) error) error {
	done := 0
	for _, g := range Groups(cases) {
		if err := opts.Probe.Tick(); err != nil {
			return fmt.Errorf("bench: recording a probe: %w", err)
		}
		if p != nil {
			p.Start(done, len(cases), &g[0])
		}
		gopts := opts
		if sp, ok := p.(SampleProgress); ok && g[0].Remote != nil {
			byName := make(map[string]*Case, len(g))
			for i := range g {
				byName[g[i].FullName()] = &g[i]
			}
			gopts.OnSample = func(name string) {
				if c := byName[name]; c != nil {
					sp.Sample(c)
				}
			}
		}
		rs, err := measureWatched(ctx, g, gopts)
		var te *TimeoutError
		if err != nil && !errors.As(err, &te) {
			return err
		}
		for i := range rs {
			if err := sink(rs[i]); err != nil {
				return fmt.Errorf("bench: recording %s: %w", rs[i].FullName(), err)
			}
			done++
			if p != nil {
				p.Done(done, len(cases), &rs[i])
			}
		}
		if te != nil {
			return te
		}
		if ctx.Err() != nil {
			return ErrInterrupted
		}
	}
	if err := opts.Probe.Tick(); err != nil {
		return fmt.Errorf("bench: recording a probe: %w", err)
	}
	return nil
}

// Groups splits cases into the units RunAll measures: each comparison
// group in full (its members in plan order) at the position of its first
// member, and every case without a group on its own.
func Groups(cases []Case) [][]Case {
	var out [][]Case
	at := map[string]int{}
	for _, c := range cases {
		if c.Group == "" {
			out = append(out, []Case{c})
			continue
		}
		key := c.Workload + "\x00" + c.Group
		if i, ok := at[key]; ok {
			out[i] = append(out[i], c)
			continue
		}
		at[key] = len(out)
		out = append(out, []Case{c})
	}
	return out
}

// IsInterrupted reports whether err means the run was stopped by its
// context (Ctrl-C) rather than failing.
func IsInterrupted(err error) bool {
	return errors.Is(err, ErrInterrupted) || errors.Is(err, context.Canceled)
}
