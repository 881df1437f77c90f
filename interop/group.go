package interop

import (
	"context"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
)

// Group is a matrix planned as bench cases: Cases lists one case per cell
// (Plan's), all in one comparison group whose Remote is the Group, and
// MeasureGroup builds the whole matrix once and hands each case its cell.
// A workload that shows who reads whose files plans a Group per dataset.
type Group struct {
	// Ready are the runners that take part.
	Ready []runner.Ready
	// Dir holds the matrix's files (Run's dir).
	Dir string
	// Options are Run's (Extra brings a dataset's own formats).
	Options Options
	// Dataset returns the rows every writer writes, and a func releasing
	// them once the matrix is built; it is called in MeasureGroup, so
	// generating data is setup, not planning.
	Dataset func() (Dataset, func(), error)
	// Labels are added to every case's (the dataset's name, say).
	Labels results.Labels
}

// Cases returns the cases of the matrix's cells for workload, in Plan's
// order, in comparison group group; nil without runners or cells.
func (g *Group) Cases(workload, group, affinity string) []bench.Case {
	cells := Plan(g.Ready, g.Options)
	if len(g.Ready) == 0 || len(cells) == 0 {
		return nil
	}
	out := make([]bench.Case, 0, len(cells))
	for _, c := range cells {
		ls := append(c.Labels(), g.Labels...)
		out = append(out, bench.Case{Workload: workload, Name: CaseName, Labels: ls, Group: group,
			Affinity: affinity, Remote: g, OpTime: 50 * time.Millisecond})
	}
	return out
}

// MeasureGroup implements bench.Remote: it builds the matrix and returns
// each case its cell, a FAILED case when the matrix could not be built
// at all. Only an interruption is an error.
func (g *Group) MeasureGroup(ctx context.Context, cases []bench.Case, _ bench.Options) ([]results.Case, error) {
	fail := func(c bench.Case, why string) results.Case {
		return results.Case{Kind: results.KindCase, Workload: c.Workload, Name: c.Name, Labels: c.Labels, Group: c.Group,
			Status: results.StatusFailed, Error: why}
	}
	failAll := func(why string) []results.Case {
		out := make([]results.Case, len(cases))
		for i, c := range cases {
			out[i] = fail(c, why)
		}
		return out
	}
	ds, release, err := g.Dataset()
	if err != nil {
		return failAll(err.Error()), nil
	}
	if release != nil {
		defer release()
	}
	m, err := Run(ctx, ds, g.Ready, g.Dir, g.Options)
	if ctx.Err() != nil {
		return nil, bench.ErrInterrupted
	}
	if err != nil {
		return failAll(err.Error()), nil
	}
	byName := map[string]results.Case{}
	for _, c := range m.Cases("") {
		byName[cellKey(c.Labels)] = c
	}
	out := make([]results.Case, len(cases))
	for i, c := range cases {
		rc, ok := byName[cellKey(c.Labels)]
		if !ok {
			out[i] = fail(c, "the matrix has no such cell (a runner changed since the plan)")
			continue
		}
		rc.Workload, rc.Group = c.Workload, c.Group
		rc.Labels = append(rc.Labels, g.Labels...)
		out[i] = rc
	}
	return out, nil
}

// cellKey identifies a cell by its format, writer and reader labels.
func cellKey(ls results.Labels) string {
	return ls.Get("format") + "\x00" + ls.Get("writer") + "\x00" + ls.Get("reader")
}
