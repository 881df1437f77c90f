package table

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/serbench/serbench/results"
)

// LanguageLabel is the label a runner's cases carry (package runner):
// the language their subject is written in. Go cases have none.
const LanguageLabel = "language"

// Language is a case's language: its language label, Go without one.
func Language(c *results.Case) string { return cmp.Or(c.Labels.Get(LanguageLabel), "go") }

// Family is the format a subject implements, folded over its variants:
// for a runner's subject ("java:jackson-json"), the format its descriptor
// records (its second tag); for a Go subject, its name up to the first
// "-" (jsonl-goccy → jsonl); then arrow-*, json*, msgpack*, avro* and
// protobuf* are one family each ("jsonl" and "json" are both json).
func Family(run *results.Run, workload, key string, c *results.Case) string {
	s := c.Labels.Get(key)
	if i := strings.IndexByte(s, ':'); i >= 0 {
		if d := run.Descriptor(workload, key, s); d != nil && len(d.Tags) > 1 {
			s = d.Tags[1]
		} else {
			s = s[i+1:]
		}
	}
	f, _, _ := strings.Cut(s, "-")
	for _, p := range []string{"arrow", "json", "msgpack", "avro", "protobuf", "parquet", "cbor"} {
		if strings.HasPrefix(f, p) {
			return p
		}
	}
	return f
}

// Languages is the same format in different languages: for each format
// family (Family of the subject under key) and language, the fastest of
// cases (ok cases of the read-like ops: a file's read, an in-memory
// decode, a zero-copy open: what), as a table of scope (a dataset) — the
// cell names its case (name: subject and codec) — and a plot of the
// families measured in more than one column, in file. A column is a
// language and an operation ("go · read (file)", "python · decode
// (memory)", "python · open (no value visited)"): operations differ in
// what they do, so each is ranked only with its own. Nil when the cases
// have fewer than two languages.
func Languages(run *results.Run, workload, key string, cases []*results.Case, scope, what, file string, name func(*results.Case) string) []Block {
	var ok []*results.Case
	for _, c := range cases {
		if c.OK() && c.Role != results.RoleLimit {
			ok = append(ok, c)
		}
	}
	slices.SortStableFunc(ok, func(a, b *results.Case) int { return cmp.Compare(Ns(a), Ns(b)) })
	var langs, cols, fams []string
	best := map[[2]string]*results.Case{}
	for _, c := range ok { // fastest first
		l, col, f := Language(c), languageColumn(c), Family(run, workload, key, c)
		if f == "" {
			continue
		}
		if !slices.Contains(langs, l) {
			langs = append(langs, l)
		}
		if !slices.Contains(cols, col) {
			cols = append(cols, col)
		}
		if !slices.Contains(fams, f) {
			fams = append(fams, f)
		}
		if best[[2]string{f, col}] == nil {
			best[[2]string{f, col}] = c
		}
	}
	if len(langs) < 2 {
		return nil
	}
	slices.Sort(cols)
	t := &Table{Caption: scope + ": the fastest " + what + " of each format in each language, by operation (its subject and codec)", Header: append([]string{"format"}, cols...)}
	ch := &LineChart{Title: scope + ": the same format in different languages", XLabel: "language · operation", YLabel: "fastest " + what, LogY: true, YFormat: Duration, Categorical: true,
		XFormat: func(x float64) string {
			if i := int(x) - 1; float64(i+1) == x && i >= 0 && i < len(cols) {
				return cols[i]
			}
			return ""
		}}
	for _, f := range fams {
		row := []Cell{Str(f)}
		s := Series{Name: f}
		for i, col := range cols {
			c := best[[2]string{f, col}]
			if c == nil {
				row = append(row, Dash())
				continue
			}
			cell := Time(c)
			cell.Text = fmt.Sprintf(" (%s)", name(c))
			row = append(row, cell)
			st, _ := c.Stat(results.UnitNsPerOp)
			s.X, s.Y, s.Lo, s.Hi = append(s.X, float64(i+1)), append(s.Y, st.Median), append(s.Lo, st.Lo), append(s.Hi, st.Hi)
		}
		t.AddRow(row...)
		if len(s.X) > 1 {
			ch.Series = append(ch.Series, s)
		}
	}
	// Each language's fastest case, fastest first (ok is sorted by time),
	// within each operation: a file read, an in-memory decode and a
	// zero-copy open are not ranked against each other.
	var sentences []string
	for _, op := range []string{results.OpRead, results.OpDecode, results.OpOpen} {
		var seen, parts []string
		for _, c := range ok {
			l := Language(c)
			if opOf(c) != op || slices.Contains(seen, l) || Family(run, workload, key, c) == "" {
				continue
			}
			seen = append(seen, l)
			parts = append(parts, fmt.Sprintf("%s %s (%s)", l, Duration(Ns(c)), name(c)))
		}
		if len(parts) > 0 {
			sentences = append(sentences, opPhrase[op]+": "+strings.Join(parts, "; "))
		}
	}
	out := []Block{&Text{Body: scope + ": the fastest " + what + " in each language, fastest first within each operation — " + strings.Join(sentences, ". ") + "."}, t}
	if len(ch.Series) > 0 {
		out = append(out, &Plot{File: file, Caption: scope + ": the fastest " + what + " of each format measured in more than one column, by language and operation (log scale; bars: the median's interval)", Chart: ch})
	}
	return out
}

// opPhrase names the operations in Languages' sentence.
var opPhrase = map[string]string{
	results.OpRead:   "file reads",
	results.OpDecode: "in-memory decodes (every value visited)",
	results.OpOpen:   "zero-copy opens (no value visited, not a decode)",
}

// opOf is a case's operation: its op label, a read when it has none. A
// runner's case labelled read (results written before the runners' ops
// had names of their own) is an in-memory decode: runners read no file.
func opOf(c *results.Case) string {
	op := c.Labels.Get(results.OpLabel)
	switch {
	case op == "":
		return results.OpRead
	case op == results.OpRead && Language(c) != "go":
		return results.OpDecode
	}
	return op
}

// languageColumn is the column of a case in Languages: its language and
// operation.
func languageColumn(c *results.Case) string {
	switch op := opOf(c); op {
	case results.OpDecode:
		return Language(c) + " · decode (memory)"
	case results.OpOpen:
		return Language(c) + " · open (no value visited)"
	case results.OpRead:
		return Language(c) + " · read (file)"
	default:
		return Language(c) + " · " + op
	}
}
