package table

import (
	"fmt"
	"slices"
	"strings"

	"github.com/serbench/serbench/results"
)

// KindSection is the results-file kind of a declared section's line.
const KindSection = "section"

// Section is a titled part of a workload's report, declared as data: a
// workload lists its sections when it plans, the run records them in the
// results file, and `serbench report` renders a results file with the
// sections its run declared.
type Section struct {
	Kind     string `json:"kind"`
	Workload string `json:"workload"`
	Title    string `json:"title"`
	// Blocks are laid out in order; a block that yields nothing is left
	// out, and a section with nothing to show is omitted.
	Blocks []BlockSpec `json:"blocks"`
}

// BlockSpec declares one block of a section; exactly one field is set.
type BlockSpec struct {
	// Text is a paragraph as it stands.
	Text string `json:"text,omitempty"`
	// Table is a table built from the cases (one per Split value).
	Table *Spec `json:"table,omitempty"`
	// Plot is a line chart built from the cases (one per Split value).
	Plot *PlotSpec `json:"plot,omitempty"`
	// Subjects lists what the run recorded about the values of this
	// label key (role, library, settings): "subject", "codec".
	Subjects string `json:"subjects,omitempty"`
	// SubjectNotes follow the Subjects table.
	SubjectNotes []string `json:"subject_notes,omitempty"`
	// Derived names blocks the workload computes from the run's results
	// (its findings, rankings by rule, fitted models): the command line
	// asks the workload for them and hands them to the report.
	Derived string `json:"derived,omitempty"`
}

// Match selects cases by a label. Key "role" matches the case's role
// (subject, baseline, limit), which is no label.
type Match struct {
	Key string `json:"key"`
	// Values the label may have (any of); empty means the label is
	// present.
	Values []string `json:"values,omitempty"`
	// Not inverts the match.
	Not bool `json:"not,omitempty"`
	// Max keeps only the largest numeric value of the label among the
	// cases (the largest size measured); with Values, the first of them
	// the cases have, else the largest. Not does not apply.
	Max bool `json:"max,omitempty"`
	// Min keeps only the smallest numeric value, as Max the largest.
	Min bool `json:"min,omitempty"`
}

// Largest matches the largest numeric value of label key among the cases.
func Largest(key string) Match { return Match{Key: key, Max: true} }

// Is matches label key = any of values.
func Is(key string, values ...string) Match { return Match{Key: key, Values: values} }

// IsNot matches cases whose label key has none of values.
func IsNot(key string, values ...string) Match { return Match{Key: key, Values: values, Not: true} }

func (m Match) matches(c *results.Case) bool {
	var v string
	var has bool
	if m.Key == "role" {
		v, has = c.Role, c.Role != ""
	} else {
		v, has = c.Labels.Get(m.Key), c.Labels.Has(m.Key)
	}
	ok := has && (len(m.Values) == 0 || slices.Contains(m.Values, v))
	return ok != m.Not
}

// Spec declares a table: which cases (Where), one table per combination
// of the Split labels' values, a row per combination of the Rows labels'
// values, and the columns. With Cols set, Columns repeat for each value of
// that label (the pivot); Extra columns follow once.
type Spec struct {
	// Caption may name Split labels in braces: "{op}, {type}", and
	// write a numeric one as an integer: "{n:int}"; "{@limit}" and
	// "{@baseline}" name the subject with that role.
	Caption string   `json:"caption,omitempty"`
	Where   []Match  `json:"where,omitempty"`
	Split   []string `json:"split,omitempty"`
	Rows    []string `json:"rows"`
	// RowHeads head the row columns (default: the label keys).
	RowHeads []string `json:"row_heads,omitempty"`
	// RowFormat writes a row label's value as a number ("int": 1,000).
	RowFormat map[string]string `json:"row_format,omitempty"`
	Cols      string            `json:"cols,omitempty"`
	// Lead columns come first, after the row labels; like Extra they
	// find their cases among all the workload's cases.
	Lead    []Column `json:"lead,omitempty"`
	Columns []Column `json:"columns"`
	Extra   []Column `json:"extra,omitempty"`
	// Order fixes the order of a label's values (values not listed
	// follow in the order the cases first show them).
	Order map[string][]string `json:"order,omitempty"`
	// Sort orders the rows by the column with this head, ascending
	// ("-head" descending); cells without a number go last.
	Sort string `json:"sort,omitempty"`
	// Limits "last" puts rows of limit rows after the others.
	Limits string   `json:"limits,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	// Plot, when set, draws a chart of each table's cases right after
	// it (its own Where and Split are ignored: the table's apply).
	Plot *PlotSpec `json:"plot,omitempty"`
}

// Column declares one column: which case of the row it shows (the row's
// case under the pivot value, with At's labels replaced) and what of it.
type Column struct {
	// Head is the column's header; "{col}" is the pivot value.
	Head string `json:"head"`
	// Show is one of: "time" (ns/op, median and interval), "stat" (Unit's
	// median and interval), "median" (Unit's median, or the fixed metric),
	// "mem" (B/op / allocs/op), "ratio" (Unit = x-baseline or x-limit:
	// the in-round ratio, else this time ÷ Ref's), "faster" (this time
	// against Ref's: "3× faster"), "vs" (Unit's median ÷ Ref's; Invert:
	// Ref's ÷ this), "diff" (Unit's median − Ref's, signed), "saved" (1 −
	// Unit's median ÷ Ref's, a percentage), "sum" (Unit's median plus
	// that of the case Plus names), "rate" (Per ÷ Unit's median × Scale:
	// MB/s, rows/s), "best" (this row's Unit median, or rate with Per, ÷
	// the smallest in the column — the largest with Invert — among the
	// table's rows; the fastest is 1.00×) or "role".
	Show   string  `json:"show"`
	Invert bool    `json:"invert,omitempty"`
	Unit   string  `json:"unit,omitempty"`
	Format string  `json:"format,omitempty"`
	Scale  float64 `json:"scale,omitempty"`
	// Per divides the value by the case's fixed metric of this name, or
	// else its numeric label of this name (a per-row time); with Show
	// "rate" it is the numerator, and "bytes_per_op" names the case's
	// payload.
	Per string `json:"per,omitempty"`
	// Plus replaces labels of this column's case to find the case whose
	// Unit median Show "sum" adds (a read beside its write).
	Plus map[string]string `json:"plus,omitempty"`
	// At replaces labels of the row's case to find this column's case.
	// A value "@limit" or "@baseline" stands for the value of that label
	// on the cases with that role (the limit row's subject name); "-"
	// asks for a case without that label.
	At map[string]string `json:"at,omitempty"`
	// Ref replaces labels of this column's case to find its reference
	// (for ratio, faster, vs, and Share).
	Ref map[string]string `json:"ref,omitempty"`
	// Share adds the value as a share of another in parentheses — of
	// Ref's value when Ref is set, else of the case's fixed metric ShareOf
	// — written "pct" (12.3%) or "pct0" (12%).
	Share   string `json:"share,omitempty"`
	ShareOf string `json:"share_of,omitempty"`
}

// PlotSpec declares a line chart: X is a numeric label, a series per
// value of Series, Y the median of Unit with its interval as error bars;
// limit rows are drawn grey and dashed.
type PlotSpec struct {
	// File names the SVG; "{label}" placeholders as in Caption.
	File    string   `json:"file"`
	Caption string   `json:"caption"`
	Title   string   `json:"title"`
	Where   []Match  `json:"where,omitempty"`
	Split   []string `json:"split,omitempty"`
	X       string   `json:"x"`
	Series  string   `json:"series"`
	Unit    string   `json:"unit"`
	XLabel  string   `json:"x_label"`
	YLabel  string   `json:"y_label"`
	LogX    bool     `json:"log_x,omitempty"`
	LogY    bool     `json:"log_y,omitempty"`
	// YFormat and XFormat write the ticks ("duration", "bytes"; default
	// compact numbers); BinaryX puts a log X axis's ticks at powers of two.
	YFormat string `json:"y_format,omitempty"`
	XFormat string `json:"x_format,omitempty"`
	BinaryX bool   `json:"binary_x,omitempty"`
	// Per, when set, plots the rate Per ÷ Unit's median × Scale (rows/s)
	// instead of the median, as Column's rate.
	Per   string  `json:"per,omitempty"`
	Scale float64 `json:"scale,omitempty"`
	// MinX is the number of distinct X values a chart needs to be drawn
	// (default 1).
	MinX int `json:"min_x,omitempty"`
}

// ParseFormat maps a format name of a Spec to its Format.
func ParseFormat(name string) (Format, error) {
	switch name {
	case "", "float":
		return Plain, nil
	case "duration":
		return DurationF, nil
	case "bytes":
		return BytesF, nil
	case "int":
		return IntF, nil
	case "count":
		return CountF, nil
	case "times":
		return TimesF, nil
	case "pct":
		return PctF, nil
	case "signed-pct":
		return SignedPctF, nil
	case "seconds":
		return SecondsF, nil
	case "mib":
		return MiBF, nil
	case "compact":
		return CompactF, nil
	}
	return 0, fmt.Errorf("unknown format %q (valid: float, duration, bytes, int, count, times, pct, signed-pct, seconds, mib, compact)", name)
}

// Validate checks a section's declarations: names a builder understands,
// one field a block. A results file from another program is checked with
// it before it is rendered.
func (s *Section) Validate() error {
	if s.Workload == "" || s.Title == "" {
		return fmt.Errorf("section without workload or title")
	}
	for i, b := range s.Blocks {
		n := 0
		for _, set := range []bool{b.Text != "", b.Table != nil, b.Plot != nil, b.Subjects != "", b.Derived != ""} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("section %q block %d: %d kinds set (want exactly one of text, table, plot, subjects, derived)", s.Title, i+1, n)
		}
		if t := b.Table; t != nil {
			if len(t.Rows) == 0 {
				return fmt.Errorf("section %q table %q: no rows label", s.Title, t.Caption)
			}
			for _, c := range slices.Concat(t.Lead, t.Columns, t.Extra) {
				if err := c.validate(); err != nil {
					return fmt.Errorf("section %q table %q column %q: %w", s.Title, t.Caption, c.Head, err)
				}
			}
			for _, f := range t.RowFormat {
				if _, err := ParseFormat(f); err != nil {
					return fmt.Errorf("section %q table %q: %w", s.Title, t.Caption, err)
				}
			}
		}
		if p := b.Plot; p != nil {
			if p.X == "" || p.Series == "" || p.Unit == "" || p.File == "" {
				return fmt.Errorf("section %q plot %q: x, series, unit and file are required", s.Title, p.Caption)
			}
			if strings.ContainsAny(p.File, `/\`) {
				return fmt.Errorf("section %q plot %q: file %q is not a plain file name", s.Title, p.Caption, p.File)
			}
		}
	}
	return nil
}

var shows = []string{"time", "stat", "median", "mem", "ratio", "faster", "vs", "diff", "saved", "sum", "rate", "best", "role"}

func (c Column) validate() error {
	if !slices.Contains(shows, c.Show) {
		return fmt.Errorf("unknown show %q (valid: %s)", c.Show, strings.Join(shows, ", "))
	}
	if _, err := ParseFormat(c.Format); err != nil {
		return err
	}
	switch c.Show {
	case "stat", "median", "vs", "diff", "saved", "sum", "rate", "best":
		if c.Unit == "" {
			return fmt.Errorf("show %q needs a unit", c.Show)
		}
	case "faster":
		if len(c.Ref) == 0 {
			return fmt.Errorf("show faster needs ref")
		}
	}
	return nil
}
