package interop

import "github.com/serbench/serbench/table"

// Blocks are the report's blocks of the matrix, declared as data: intro,
// then one ✓/✗ table per format: writers down (after the values of the
// labels by, the dataset's name say, when the matrix was built for
// several), readers across; then every ✗ with its reason.
func Blocks(intro string, by ...string) []table.BlockSpec {
	rows := append(append([]string(nil), by...), "writer")
	return []table.BlockSpec{
		{Text: intro},
		{Table: &table.Spec{
			Caption: "{format}: the writer's file (row) read by each reader (column)",
			Where:   []table.Match{table.Is("op", OpInterop)},
			Split:   []string{"format"},
			Rows:    rows, RowHeads: rows,
			Cols: "reader", SplitCols: true,
			Columns: []table.Column{{Head: "{col}", Show: "name", Label: LabelReads, Map: map[string]string{ReadsYes: "✓", ReadsNo: "✗", ReadsCannotHold: "–"}}},
		}},
		{Table: &table.Spec{
			Caption: "Why a reader could not read a file (✗ above)",
			Where:   []table.Match{table.Is("op", OpInterop), table.Is(LabelReads, ReadsNo)},
			Rows:    append(append([]string(nil), by...), "format", "writer", "reader"),
			Columns: []table.Column{{Head: "why", Show: "why"}},
		}},
		{Table: &table.Spec{
			Caption: "Where the format cannot hold the data (– above): the writer or the reader said so",
			Where:   []table.Match{table.Is("op", OpInterop), table.Is(LabelReads, ReadsCannotHold)},
			Rows:    append(append([]string(nil), by...), "format", "writer", "reader"),
			Columns: []table.Column{{Head: "why", Show: "why"}},
		}},
	}
}

// Intro introduces the matrix of rows, "the input's first rows (at most
// 10,000)" say.
func Intro(rows string) string {
	return "Each writer — Go's schema-driven format, or a subject of a runner for another language — writes " + rows +
		" to a file of the format once; every reader of that format in every language reads every file, and what it decoded is checked against the digest of the rows, column by column. " +
		"✓: the reader got the rows back exactly; ✗: it could not, and the note says why (the reader's error, or the columns that differ and the likely cause: a timestamp unit, a logical type, names a format does not allow); –: the writer or the reader cannot hold the data in that format and said so (a year beyond 9999 in text, say). " +
		"A ✗ is a fact about the two libraries, not a failure of the run."
}
