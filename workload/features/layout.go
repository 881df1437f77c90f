package features

import (
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// Layout implements workload.Workload: none yet, Sections renders the
// report by code.
func (*Workload) Layout() []table.Section { return nil }

// Derive implements workload.Workload.
func (*Workload) Derive(*results.Run, []*results.Case) table.Derived { return nil }
