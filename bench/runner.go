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

// RunAll measures cases in order, handing each finished case to sink as
// soon as it is done. It stops early, without error from the cases
// themselves, when ctx ends: the returned error is then ErrInterrupted and
// every case finished so far has already reached sink. An error from sink
// stops the run too.
func RunAll(ctx context.Context, cases []Case, opts Options, p Progress, sink func(results.Case) error) error {
	for i := range cases {
		c := &cases[i]
		if p != nil {
			p.Start(i, len(cases), c)
		}
		r, err := Measure(ctx, *c, opts)
		if err != nil {
			return err
		}
		if err := sink(r); err != nil {
			return fmt.Errorf("bench: recording %s: %w", c.FullName(), err)
		}
		if p != nil {
			p.Done(i+1, len(cases), &r)
		}
		if ctx.Err() != nil {
			return ErrInterrupted
		}
	}
	return nil
}

// IsInterrupted reports whether err means the run was stopped by its
// context (Ctrl-C) rather than failing.
func IsInterrupted(err error) bool {
	return errors.Is(err, ErrInterrupted) || errors.Is(err, context.Canceled)
}
