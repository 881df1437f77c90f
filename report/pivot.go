package report

import (
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// Pivot lays cases out as a table: one row per value of the label Row,
// one column per value of the label Col (both in the order the cases first
// show them), each cell made by Cell from the one case at that row and
// column. Where fixes other labels (key, value, key, value …). It is the
// one pivot every workload's tables use.
type Pivot struct {
	Cases []*results.Case
	// Where holds key, value pairs every case in the table matches.
	Where []string
	// Row and Col are label keys.
	Row, Col string
	// Rows and Cols, when set, fix the order and choice of values.
	Rows, Cols []string
	// Corner heads the first column (default: Row).
	Corner string
	// RowName formats a row's value (default: as is).
	RowName func(string) string
	// Cell formats one case (nil when there is none at that place).
	Cell func(c *results.Case) string
	// KeepEmpty keeps rows that have no case at all.
	KeepEmpty bool
}

// Table builds the table; it returns nil when no row has a case.
func (p Pivot) Table() *Table {
	cases := table.Where(p.Cases, p.Where...)
	rows, cols := p.Rows, p.Cols
	if rows == nil {
		rows = table.Distinct(cases, p.Row)
	}
	if cols == nil {
		cols = table.Distinct(cases, p.Col)
	}
	ix := table.NewIndex(cases, p.Row, p.Col)
	corner := p.Corner
	if corner == "" {
		corner = p.Row
	}
	t := &Table{Header: append([]string{corner}, cols...)}
	for _, r := range rows {
		name := r
		if p.RowName != nil {
			name = p.RowName(r)
		}
		row := []string{name}
		any := false
		for _, c := range cols {
			cs := ix.Get(r, c)
			if cs != nil {
				any = true
			}
			row = append(row, p.Cell(cs))
		}
		if any || p.KeepEmpty {
			t.Rows = append(t.Rows, row)
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}
