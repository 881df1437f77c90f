package data

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/interop"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/table"
)

// InteropRows is how many of the input's rows the interop matrix writes
// and reads: enough for every type, null and nesting of a schema that the
// first rows show, few enough that a dozen writers and fifty reads take
// seconds, not the minutes of the measured files.
const InteropRows = 10_000

// interopCases plan the interop matrix of the user's rows (package
// interop): for each file format Go and the ready runners share, every
// writer's file read by every reader, each read checked against the
// digest of the rows. The cells are one group whose Remote builds the
// whole matrix once.
func interopCases(ready []runner.Ready, in *input, dir string) []bench.Case {
	cells := interop.Plan(ready, nil)
	if len(ready) == 0 || len(cells) == 0 {
		return nil
	}
	g := &interopGroup{ready: ready, in: in, dir: filepath.Join(dir, "interop")}
	out := make([]bench.Case, 0, len(cells))
	for _, c := range cells {
		out = append(out, bench.Case{Workload: Name, Name: interop.CaseName, Labels: c.Labels(), Group: "interop",
			Affinity: in.path, Remote: g, OpTime: 50 * time.Millisecond})
	}
	return out
}

// interopGroup measures the interop cases: it builds the matrix and hands
// each case its cell.
type interopGroup struct {
	ready []runner.Ready
	in    *input
	dir   string
}

// MeasureGroup implements bench.Remote.
func (g *interopGroup) MeasureGroup(ctx context.Context, cases []bench.Case, _ bench.Options) ([]results.Case, error) {
	fail := func(why string) []results.Case {
		out := make([]results.Case, len(cases))
		for i, c := range cases {
			out[i] = results.Case{Kind: results.KindCase, Workload: c.Workload, Name: c.Name, Labels: c.Labels, Group: c.Group,
				Status: results.StatusFailed, Error: why}
		}
		return out
	}
	d, err := g.in.load()
	if err != nil {
		return fail(err.Error()), nil
	}
	batches := head(g.in.loaded(), InteropRows)
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	m, err := interop.Run(ctx, interop.Dataset{Name: "input", Schema: d.Schema, Batches: batches}, g.ready, g.dir, interop.Options{})
	if ctx.Err() != nil {
		return nil, bench.ErrInterrupted
	}
	if err != nil {
		return fail(err.Error()), nil
	}
	byName := map[string]results.Case{}
	for _, c := range m.Cases(Name) {
		byName[cellKey(c.Labels)] = c
	}
	out := make([]results.Case, len(cases))
	for i, c := range cases {
		rc, ok := byName[cellKey(c.Labels)]
		if !ok {
			out[i] = fail("the matrix has no such cell (a runner changed since the plan)")[i]
			continue
		}
		rc.Group = c.Group
		out[i] = rc
	}
	return out, nil
}

// cellKey identifies a cell by its format, writer and reader labels.
func cellKey(ls results.Labels) string {
	return ls.Get("format") + "\x00" + ls.Get("writer") + "\x00" + ls.Get("reader")
}

// splitInterop separates the interop cells from the measured cases.
func splitInterop(cases []*results.Case) (measured, cells []*results.Case) {
	for _, c := range cases {
		if c.Labels.Get("op") == interop.OpInterop {
			cells = append(cells, c)
		} else {
			measured = append(measured, c)
		}
	}
	return measured, cells
}

// interopLine is the findings' line on the interop matrix: how many of
// its cells read back, and which formats have a ✗.
func interopLine(cells []*results.Case) string {
	if len(cells) == 0 {
		return ""
	}
	read := 0
	var bad []string
	perFormat := map[string]int{}
	for _, c := range cells {
		if c.Labels.Get(interop.LabelReads) == interop.ReadsYes {
			read++
			continue
		}
		f := c.Labels.Get("format")
		if perFormat[f] == 0 {
			bad = append(bad, f)
		}
		perFormat[f]++
	}
	if len(bad) == 0 {
		return fmt.Sprintf("Interop: every reader in every language read every writer's file (%s checked); see Who reads whose files.", table.Plural(len(cells), "file read"))
	}
	parts := make([]string, len(bad))
	for i, f := range bad {
		parts[i] = fmt.Sprintf("%s %d", f, perFormat[f])
	}
	return fmt.Sprintf("Interop: %d of %d reads of another writer's file (or its own) got the rows back; ✗ in %s; see Who reads whose files for each reason.", read, len(cells), strings.Join(parts, ", "))
}
