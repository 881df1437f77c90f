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
	// Text is a paragraph as it stands ("{env:key}" is the run's recorded
	// fact); with IfEnv, only when the run recorded that fact.
	Text  string `json:"text,omitempty"`
	IfEnv string `json:"if_env,omitempty"`
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
	// Scatter is a scatter chart of two columns of a table's rows.
	Scatter *ScatterSpec `json:"scatter,omitempty"`
	// Descriptors is a table (or list) of what the run recorded.
	Descriptors *DescTable `json:"descriptors,omitempty"`
}

// DescTable declares a table of the run's descriptors of the section's
// workload with Key, a row each in the order recorded (none: no block).
// With List set, the descriptors' What follow List's text as a bulleted
// list instead; with Facts set, the first descriptor's facts make the rows
// (a head and a value each, under two blank heads); with Each set, a
// paragraph per descriptor says Each filled as a DescFact's Text (one a
// field of which was not recorded is left out).
type DescTable struct {
	Key     string       `json:"key"`
	Caption string       `json:"caption,omitempty"`
	Columns []DescColumn `json:"columns,omitempty"`
	Notes   []string     `json:"notes,omitempty"`
	List    string       `json:"list,omitempty"`
	Facts   []DescFact   `json:"facts,omitempty"`
	Each    string       `json:"each,omitempty"`
}

// DescFact is a row of a DescTable's Facts: Head and Text, in which
// "{field}" is the descriptor's field ("name", "what" or a setting) and
// "{field:FORMAT}" that field as a number in the format ("int", "bytes");
// a Text that is one such number makes a number cell. When a field of Text
// was not recorded (absent or empty), or When does not match the
// descriptor's fields, the row says Else, filled with what was recorded
// (Else "–": a missing value), or is left out without Else. Facts of one
// Head are alternatives: the first shown is the row.
type DescFact struct {
	Head string  `json:"head"`
	Text string  `json:"text"`
	When []Match `json:"when,omitempty"`
	Else string  `json:"else,omitempty"`
}

// DescColumn is a column of a DescTable: Field is "name", "what" or the
// name of a setting, written through Map; Else stands for a value Map
// lacks when set.
type DescColumn struct {
	Head  string            `json:"head"`
	Field string            `json:"field"`
	Map   map[string]string `json:"map,omitempty"`
	Else  string            `json:"else,omitempty"`
}

// ScatterSpec declares a scatter chart of the tables Of declares: a point
// per row, at the values of the columns headed X and Y, labelled by the
// row's labels joined with Join (unlabelled without Join); rows without
// both values are left out.
type ScatterSpec struct {
	Of *Spec `json:"of"`
	// File, Caption and Title may name Of's Split labels and "{max:NAME}",
	// as its Caption.
	File    string `json:"file"`
	Caption string `json:"caption"`
	Title   string `json:"title"`
	X       string `json:"x"`
	Y       string `json:"y"`
	Join    string `json:"join,omitempty"`
	XLabel  string `json:"x_label"`
	YLabel  string `json:"y_label"`
	LogX    bool   `json:"log_x,omitempty"`
	LogY    bool   `json:"log_y,omitempty"`
	// XFormat and YFormat write the ticks, as PlotSpec's.
	XFormat string `json:"x_format,omitempty"`
	YFormat string `json:"y_format,omitempty"`
	BinaryX bool   `json:"binary_x,omitempty"`
	// Frontier draws the Pareto frontier (lower X and Y are better).
	Frontier bool `json:"frontier,omitempty"`
}

// Match selects cases by a label. Key "role" matches the case's role
// (subject, baseline, limit), which is no label; key "note" a note the
// case carries (any of Values).
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
	// Based keeps the cases whose label's value stands on another (its
	// "@base:TAG" with this TAG is not itself: a format that compresses
	// itself and has an uncompressed sibling in the run).
	Based string `json:"based,omitempty"`
	// First keeps only one value of the label: the first of Values the
	// cases have, else the first the cases show (the seed's type when
	// measured).
	First bool `json:"first,omitempty"`
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
	switch m.Key {
	case "role":
		v, has = c.Role, c.Role != ""
	case "note":
		for _, n := range c.Notes {
			if slices.Contains(m.Values, n) {
				v, has = n, true
			}
		}
	default:
		v, has = c.Labels.Get(m.Key), c.Labels.Has(m.Key)
	}
	return m.holds(v, has)
}

// holds reports whether a value v (has: present) matches.
func (m Match) holds(v string, has bool) bool {
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
	// "{@baseline}" name the subject with that role; "{max:NAME}" is the
	// largest of the table's cases' fixed metric NAME, as an integer.
	Caption string   `json:"caption,omitempty"`
	Where   []Match  `json:"where,omitempty"`
	Split   []string `json:"split,omitempty"`
	Rows    []string `json:"rows"`
	// RowHeads head the row columns (default: the label keys).
	RowHeads []string `json:"row_heads,omitempty"`
	// RowFormat writes a row label's value as a number ("int": 1,000).
	RowFormat map[string]string `json:"row_format,omitempty"`
	// Join writes the row labels as one cell, joined by Join ("csv +
	// zstd"), headed by the first of RowHeads (default: the keys joined).
	Join string `json:"join,omitempty"`
	// Rank adds a first column, headed "", numbering the rows from 1 in
	// their final order (a Rest row has none).
	Rank bool   `json:"rank,omitempty"`
	Cols string `json:"cols,omitempty"`
	// SplitCols gives each table of a Split the pivot columns of its own
	// cases (default: every value of Cols in the selection, in every
	// table).
	SplitCols bool `json:"split_cols,omitempty"`
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
	Limits string `json:"limits,omitempty"`
	// Front keeps only the rows on the Pareto frontier of the columns
	// with these two heads (no other row is lower in both), ordered by
	// the first.
	Front []string `json:"front,omitempty"`
	// Top keeps the first Top rows of each table (after Sort); with Rest
	// set, one more row headed Rest ("{n} more" is the rows left out)
	// sums the columns of the rows left out.
	Top  int    `json:"top,omitempty"`
	Rest string `json:"rest,omitempty"`
	// Unpivot makes a row of each fixed metric whose name starts with
	// Prefix (of each selected case): label Key is the name's rest, metric
	// Unit its value. Its rows come in order of name.
	Unpivot *Unpivot `json:"unpivot,omitempty"`
	// Notes may hold "{goals}": how many cells with a Goal met it.
	Notes []string `json:"notes,omitempty"`
	// Empty is said, as a paragraph, when the spec makes no table from
	// cases that are there (none selected, or all without values).
	Empty string `json:"empty,omitempty"`
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
	// table's rows; the fastest is 1.00×), "role", "label" (Label's
	// value), "name" (the case's labels, each through Map) or "why" (a
	// failed case's reason: a check's verdict).
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
	// asks for a case without that label; "@base:TAG" as in Ref, and
	// "@suffix:KEY:TAG" for what the row's value of label KEY adds to its
	// base (through Map: a format's own codec as an outer codec).
	At map[string]string `json:"at,omitempty"`
	// Ref replaces labels of this column's case to find its reference
	// (for ratio, faster, vs, and Share). A value "@base:TAG" stands for
	// the value the row's own stands on: itself unless the run's
	// descriptor of it carries TAG, else the nearest shorter name (cut at
	// a "-", or that with "-none") whose descriptor does not (a format
	// that compresses itself against its uncompressed sibling:
	// parquet-zstd → parquet-none).
	Ref map[string]string `json:"ref,omitempty"`
	// Share adds the value as a share of another in parentheses — of
	// Ref's value when Ref is set, else of the case's fixed metric ShareOf
	// — written "pct" (12.3%) or "pct0" (12%).
	Share   string `json:"share,omitempty"`
	ShareOf string `json:"share_of,omitempty"`
	// Beyond names a numeric label the value is followed by its excess
	// over, in the same format: "1,503 (+479)" (an encoding beyond its
	// payload).
	Beyond string `json:"beyond,omitempty"`
	// Over aggregates the column over the values of this label (the
	// formats of a codec's row): its cell for each value, combined by Agg
	// — "count" (of values), "mean", "geomean", "min", "argmin" (the
	// value with the smallest), "at" (the cell at the value with the
	// smallest in the Over column headed By). With Gate, only the values
	// where the Over column headed Gate has a value count.
	Over string `json:"over,omitempty"`
	Agg  string `json:"agg,omitempty"`
	By   string `json:"by,omitempty"`
	Gate string `json:"gate,omitempty"`
	// OfTotal writes the value as a share of the column's total over the
	// table's rows (before Top leaves any out).
	OfTotal bool `json:"of_total,omitempty"`
	// Goal judges the value against a goal (lower is better): the goal
	// under the column's pivot value, or under "" for every column. A
	// cell with a goal is marked " ✓" (met) or " ✗".
	Goal map[string]float64 `json:"goal,omitempty"`
	// NotSelf shows "–" for a row whose Ref is its own case ("vs" a format's
	// own uncompressed file).
	NotSelf bool `json:"not_self,omitempty"`
	// Label is the label Show "label" writes (a row label under another
	// head), through Map when Map has the value; with Suffix, what the
	// value adds to its "@base:" Suffix (parquet-zstd over parquet: zstd).
	// Show "name" writes the column's case's labels Label lists
	// (comma-separated), joined " + ".
	Label  string            `json:"label,omitempty"`
	Suffix string            `json:"suffix,omitempty"`
	Map    map[string]string `json:"map,omitempty"`
}

// Unpivot turns fixed metrics into rows (see Spec.Unpivot).
type Unpivot struct {
	Prefix string `json:"prefix"`
	Key    string `json:"key"`
	Unit   string `json:"unit"`
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
	// More draws more series, after the others: the cases More.Where
	// selects (the plot's own Where does not apply; its Split does), a
	// series per value of Series named with More.Suffix.
	More *MoreSeries `json:"more,omitempty"`
}

// MoreSeries declares a plot's further series (see PlotSpec.More).
type MoreSeries struct {
	Where  []Match `json:"where"`
	Suffix string  `json:"suffix"`
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
	case "smaller":
		return SmallerF, nil
	}
	return 0, fmt.Errorf("unknown format %q (valid: float, duration, bytes, int, count, times, pct, signed-pct, seconds, mib, compact, smaller)", name)
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
		for _, set := range []bool{b.Text != "", b.Table != nil, b.Plot != nil, b.Subjects != "", b.Derived != "", b.Scatter != nil, b.Descriptors != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("section %q block %d: %d kinds set (want exactly one of text, table, plot, subjects, derived, scatter, descriptors)", s.Title, i+1, n)
		}
		t := b.Table
		if sc := b.Scatter; sc != nil {
			if t = sc.Of; t == nil || sc.X == "" || sc.Y == "" || strings.ContainsAny(sc.File, `/\`) || sc.File == "" {
				return fmt.Errorf("section %q scatter %q: of, x, y and a plain file name are required", s.Title, sc.Caption)
			}
		}
		if t != nil {
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
		if d := b.Descriptors; d != nil && d.Key == "" {
			return fmt.Errorf("section %q descriptors %q: no key", s.Title, d.Caption)
		} else if d != nil {
			texts := []string{d.Each}
			for _, f := range d.Facts {
				texts = append(texts, f.Text, f.Else)
			}
			for _, p := range placeholder.FindAllStringSubmatch(strings.Join(texts, ""), -1) {
				if _, err := ParseFormat(p[2]); err != nil {
					return fmt.Errorf("section %q descriptors %q: %w", s.Title, d.Caption, err)
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

var shows = []string{"time", "stat", "median", "mem", "ratio", "faster", "vs", "diff", "saved", "sum", "rate", "best", "role", "label", "name", "why"}

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
	case "label", "name":
		if c.Label == "" {
			return fmt.Errorf("show %s needs a label", c.Show)
		}
	}
	if c.Over != "" && !slices.Contains([]string{"count", "mean", "geomean", "min", "argmin", "at"}, c.Agg) {
		return fmt.Errorf("over %q: unknown agg %q (valid: count, mean, geomean, min, argmin, at)", c.Over, c.Agg)
	}
	return nil
}
