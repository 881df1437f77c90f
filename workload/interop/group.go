package interop

import (
	"context"
	"slices"
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
	// For estimates: the matrix costs two start-ups of each runner (its
	// export and its import invocation) and a file read per cell.
	est := time.Duration(len(g.Ready))*2*runnerStart + time.Duration(len(cells))*cellRead
	out := make([]bench.Case, 0, len(cells))
	for _, c := range cells {
		ls := append(c.Labels(), g.Labels...)
		out = append(out, bench.Case{Workload: workload, Name: CaseName, Labels: ls, Group: group,
			Affinity: affinity, Remote: g, OpTime: est / time.Duration(len(cells))})
	}
	return out
}

// Rough costs for a matrix's estimate: a runner process's start-up (the
// JVM's, Python importing pyarrow) and one cell's file write and read.
const (
	runnerStart = 3 * time.Second
	cellRead    = 150 * time.Millisecond
)

// only returns the options restricted to the formats of cases: a run
// filtered to some cells (serbench run --filter) builds only their
// formats' files, not the whole matrix.
func (g *Group) only(cases []bench.Case) Options {
	want := map[string]bool{}
	for _, c := range cases {
		want[c.Labels.Get("format")] = true
	}
	o := g.Options
	all := len(want) == 0
	o.Formats = nil
	for _, f := range Formats() {
		if (all || want[f.Name]) && (g.Options.Formats == nil || slices.Contains(g.Options.Formats, f.Name)) {
			o.Formats = append(o.Formats, f.Name)
		}
	}
	o.Extra = nil
	for _, f := range g.Options.Extra {
		if all || want[f.Name] {
			o.Extra = append(o.Extra, f)
		}
	}
	if o.Formats == nil {
		o.Formats = []string{} // none of the shared formats, not all of them
	}
	return o
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
	m, err := Run(ctx, ds, g.Ready, g.Dir, g.only(cases))
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
