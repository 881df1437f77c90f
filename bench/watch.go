package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/serbench/serbench/results"
)

// A TimeoutError says that one call into a case's code ran past
// Options.CaseTimeout. RunAll has recorded the case FAILED and returned;
// the call is still running on a goroutine nothing can stop, holding a
// core and whatever it allocated, so the process should not measure
// anything more: its caller ends it (serbench's command line re-executes
// itself with --resume, which measures the rest in a fresh process).
type TimeoutError struct {
	// Case is the full name of the case; Stage what it was doing
	// (setup, verify or run).
	Case, Stage string
	// After is the bound it ran past.
	After time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("bench: %s timed out after %s in %s", e.Case, e.After, e.Stage)
}

// watch is where a group being measured says which call into case code
// it is making, so that RunAll, waiting on another goroutine, can see one
// that does not return.
type watch struct {
	mu    sync.Mutex
	c     *Case
	stage string
	since time.Time // zero between calls
}

func (w *watch) enter(c *Case, stage string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.c, w.stage, w.since = c, stage, time.Now()
	w.mu.Unlock()
}

func (w *watch) leave() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.since = time.Time{}
	w.mu.Unlock()
}

// overdue returns the case and stage of a call that has run longer than
// d, if one has.
func (w *watch) overdue(d time.Duration) (*Case, string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.since.IsZero() || time.Since(w.since) <= d {
		return nil, "", false
	}
	return w.c, w.stage, true
}

// measureWatched measures group g on another goroutine and waits for it,
// checking the calls it makes against opts.CaseTimeout. On a timeout it
// returns the overdue case, FAILED, and a *TimeoutError; the group's
// other members are dropped (not run), and the goroutine is abandoned.
func measureWatched(ctx context.Context, g []Case, opts Options) ([]results.Case, error) {
	if opts.CaseTimeout <= 0 {
		return MeasureGroup(ctx, g, opts)
	}
	opts.watch = &watch{}
	type outcome struct {
		rs  []results.Case
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		rs, err := MeasureGroup(ctx, g, opts)
		done <- outcome{rs, err}
	}()
	tick := time.NewTicker(min(opts.CaseTimeout/4, time.Second))
	defer tick.Stop()
	for {
		select {
		case o := <-done:
			return o.rs, o.err
		case <-tick.C:
		}
		c, stage, late := opts.watch.overdue(opts.CaseTimeout)
		if !late {
			continue
		}
		role := c.Role
		if role == "" {
			role = results.RoleSubject
		}
		te := &TimeoutError{Case: c.FullName(), Stage: stage, After: opts.CaseTimeout}
		now := time.Now().UTC()
		rc := results.Case{Workload: c.Workload, Name: c.Name, Labels: c.Labels, Role: role, Group: c.Group, Notes: c.Notes,
			Status: results.StatusFailed, Error: fmt.Sprintf("%s: timed out after %s", stage, opts.CaseTimeout),
			Metrics: copyMetrics(c.Metrics), Start: now, End: now}
		return []results.Case{rc}, te
	}
}
