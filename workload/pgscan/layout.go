package pgscan

import "github.com/serbench/serbench/table"

// Layout implements workload.Workload: the findings, the user's query,
// the methods, then the tables by sampling group — the main group by table
// size and method, the replay, the partitioned reads, the batch-size
// sweep — and memory.
//
// Every table but the methods' divides by the rows label (rows/s from the
// time per read, CPU and bytes per row) or compares with the best method
// of its table size (the fastest, the fastest non-Arrow, the server's
// ceiling), which a table.Spec cannot express: they are derived blocks
// (findings.go), computed from the results only.
func (*Workload) Layout() []table.Section {
	return []table.Section{
		{Title: "Findings", Blocks: []table.BlockSpec{{Derived: "findings"}}},
		{Title: "Your query", Blocks: []table.BlockSpec{{Derived: "query"}}},
		{Title: "Methods", Blocks: []table.BlockSpec{{Subjects: LabelSubject}, {Derived: "methods"}}},
		{Title: "Rows per second by table size (higher is better)", Blocks: []table.BlockSpec{{Derived: "by-size"}}},
		{Title: "Method and peer comparison", Blocks: []table.BlockSpec{{Derived: "comparison"}}},
		{Title: "Client-only ceiling: the replay", Blocks: []table.BlockSpec{{Derived: "replay"}}},
		{Title: "Partitioned reads", Blocks: []table.BlockSpec{{Derived: "parallel"}}},
		{Title: "Batch-size sweep (pgarrow over SELECT)", Blocks: []table.BlockSpec{{Derived: "sweep"}}},
		{Title: "Memory per row", Blocks: []table.BlockSpec{{Derived: "memory"}}},
	}
}
