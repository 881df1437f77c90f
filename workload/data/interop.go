package data

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload/interop"
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
func interopCases(ready []runner.Ready, in *input, formats []string, dir string) []bench.Case {
	g := &interop.Group{Ready: ready, Dir: filepath.Join(dir, "interop"), Options: interop.Options{Formats: formats}, Dataset: func() (interop.Dataset, func(), error) {
		d, err := in.load()
		if err != nil {
			return interop.Dataset{}, nil, err
		}
		batches := head(in.loaded(), InteropRows)
		release := func() {
			for _, b := range batches {
				b.Release()
			}
		}
		return interop.Dataset{Name: "input", Schema: d.Schema, Batches: batches}, release, nil
	}}
	return g.Cases(Name, "interop", in.path)
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
	read, held := 0, 0
	var bad []string
	perFormat := map[string]int{}
	for _, c := range cells {
		switch c.Labels.Get(interop.LabelReads) {
		case interop.ReadsYes:
			read++
			continue
		case interop.ReadsCannotHold:
			held++
			continue
		}
		f := c.Labels.Get("format")
		if perFormat[f] == 0 {
			bad = append(bad, f)
		}
		perFormat[f]++
	}
	cannot := ""
	if held > 0 {
		cannot = fmt.Sprintf(" (%s where the format cannot hold the data)", table.Plural(held, "cell"))
	}
	if len(bad) == 0 {
		return fmt.Sprintf("Interop: every reader in every language read every writer's file it could hold (%s checked%s); see Who reads whose files.", table.Plural(len(cells), "file read"), cannot)
	}
	parts := make([]string, len(bad))
	for i, f := range bad {
		parts[i] = fmt.Sprintf("%s %d", f, perFormat[f])
	}
	return fmt.Sprintf("Interop: %d of %d reads of another writer's file (or its own) got the rows back%s; ✗ in %s; see Who reads whose files for each reason.", read, len(cells), cannot, strings.Join(parts, ", "))
}
