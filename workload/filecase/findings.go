package filecase

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
)

// pair is one format × codec (× variant) of a file workload's run: its
// cases by op and the Point the rules rank it by.
type pair struct {
	Point
	variant string
	op      map[string]*results.Case
	records float64
}

// pairs is a file workload's run grouped by pair: the format × codec
// matrix and, apart, the variants and bare loops.
type pairs struct {
	matrix, other []*pair
	records       float64 // the largest record count of the matrix
	failed        []*results.Case
}

// median is a case's median time and its samples (NaN, 0 when it failed).
func median(c *results.Case) (float64, int) {
	if okCase(c) {
		if s, ok := c.Stat(results.UnitNsPerOp); ok {
			return s.Median, s.N
		}
	}
	return math.NaN(), 0
}

func okCase(c *results.Case) bool { return c != nil && c.OK() }

func (p *pair) ok() bool { return okCase(p.op[OpWrite]) && okCase(p.op[OpRead]) }

// PerRecord is a case's median time per record (its records metric), NaN
// when it failed or records are unknown.
func PerRecord(c *results.Case) float64 {
	if m, _ := median(c); okCase(c) && c.Metrics[MetricRecords] > 0 {
		return m / c.Metrics[MetricRecords]
	}
	return math.NaN()
}

// group groups the cases of the named workload by pair; the run's format
// descriptors say which formats are text, random-access or compress
// themselves.
func group(name string, run *results.Run, cases []*results.Case) *pairs {
	text, random := table.Tagged(run, name, LabelFormat, format.LabelText), table.Tagged(run, name, LabelFormat, TagRandomAccess)
	ps, byKey := &pairs{}, map[string]*pair{}
	for _, c := range cases {
		if !c.OK() {
			ps.failed = append(ps.failed, c)
		}
		f, cd, v := c.Labels.Get(LabelFormat), c.Labels.Get(LabelCodec), c.Labels.Get(LabelVariant)
		p := byKey[f+"/"+cd+"/"+v]
		if p == nil {
			p = &pair{Point: Point{Format: f, Codec: cd, Text: slices.Contains(text, f), RandomAccess: slices.Contains(random, f)},
				variant: v, op: map[string]*results.Case{}}
			byKey[f+"/"+cd+"/"+v] = p
			if v == "" && f != BareSubject && f != BareMsgpSubject {
				ps.matrix = append(ps.matrix, p)
			} else {
				ps.other = append(ps.other, p)
			}
		}
		p.op[c.Labels.Get(LabelOp)] = c
		if p.FileB == 0 && c.Metrics[MetricFile] > 0 {
			p.FileB, p.records = c.Metrics[MetricFile], c.Metrics[MetricRecords]
		}
	}
	for _, p := range slices.Concat(ps.matrix, ps.other) {
		p.WriteNs, p.WriteN = median(p.op[OpWrite])
		p.ReadNs, p.ReadN = median(p.op[OpRead])
		if p.variant == VariantUnbuffered || slices.Contains(ps.matrix, p) {
			ps.records = max(ps.records, p.records)
			// The same format uncompressed, when the run has it.
			if plain := byKey[table.BaseOf(run, name, LabelFormat, p.Format, TagCompresses)+"/none/"]; plain != nil {
				p.PlainB, p.Base = plain.FileB, plain.Format
			}
		}
	}
	return ps
}

// points returns the matrix's pairs whose write and read both succeeded,
// and their Points.
func (ps *pairs) points() ([]*pair, []Point) {
	var out []*pair
	var pts []Point
	for _, p := range ps.matrix {
		if p.ok() {
			out, pts = append(out, p), append(pts, p.Point)
		}
	}
	return out, pts
}

// valued is a number followed by words.
func valued(v float64, f table.Format, text string, notes ...string) table.Cell {
	return table.Cell{Kind: table.Value, V: v, Format: f, Text: text, Notes: notes}
}

// Derive computes the derived blocks of FileLayout's sections and of
// Anomalies from the cases of the named file workload, from the results
// only.
func Derive(name string, run *results.Run, cases []*results.Case) table.Derived {
	ps := group(name, run, cases)
	d := table.Derived{"anomalies": ps.anomalies()}
	reads := slices.Concat(table.Where(cases, LabelOp, OpRead), table.Where(cases, LabelOp, results.OpDecode), table.Where(cases, LabelOp, results.OpOpen))
	if ls := table.Languages(run, name, LabelFormat, reads, scope(cases), "read", name+"-languages.svg", pairName); ls != nil {
		d["languages"] = ls
	}
	if _, pts := ps.points(); len(pts) > 0 {
		top := &table.Table{Caption: "Quick reference: top performers", Header: []string{"metric", "pair", "value", "trade-off", "rule"}}
		uc := &table.Table{Caption: "Recommendations by use case", Header: []string{"use case", "recommendation", "figures", "rule"},
			Notes: []string{"Chosen by the stated rule from this run's medians among the pairs whose write and read both succeeded; on another machine the picks may differ."}}
		for _, r := range TopRules() {
			top.AddRow(pickRow(r, pts, true)...)
		}
		for _, r := range UseCaseRules() {
			uc.AddRow(pickRow(r, pts, false)...)
		}
		d["picks"] = []table.Block{top, uc}
	}
	return d
}

// Tradeoff describes a point's other costs in a few words, a time from
// few samples marked (its total by its parts).
func Tradeoff(p Point) string {
	return fmt.Sprintf("%s MiB, %s s total (write %s%s, read %s%s)", table.MiB(p.FileB), table.Seconds(p.TotalNs()),
		table.Seconds(p.WriteNs), p.WriteMark(), table.Seconds(p.ReadNs), p.ReadMark())
}

// SavedNote is ", X% saved" for a point that saves anything, else "".
func SavedNote(p Point) string {
	if s := p.Saved(); s > 0 {
		return ", " + table.Pct(s) + " saved"
	}
	return ""
}

// pickRow is rule r's row: its pick, the pick's value when value is set
// (the time or size the rule ranks by), its trade-off and the rule.
func pickRow(r Rule, pts []Point, value bool) []table.Cell {
	cells := []table.Cell{table.Str(r.Name), table.Str("none qualifies"), table.Dash(), table.Dash(), table.Str(r.Rule)}
	if i := r.Pick(pts); i >= 0 {
		p := pts[i]
		val := valued(p.TotalNs(), table.SecondsF, " s", table.SamplesNote(fewer(p.WriteN, p.ReadN)))
		switch r.Name {
		case "Fastest write":
			val = valued(p.WriteNs, table.SecondsF, " s", table.SamplesNote(p.WriteN))
		case "Fastest read":
			val = valued(p.ReadNs, table.SecondsF, " s", table.SamplesNote(p.ReadN))
		case "Smallest file":
			val = valued(p.FileB, table.MiBF, " MiB")
		}
		cells = []table.Cell{table.Str(r.Name), table.Str(p.Subject()), val, table.Str(Tradeoff(p) + SavedNote(p)), table.Str(r.Rule)}
	}
	if !value {
		return slices.Delete(cells, 2, 3)
	}
	return cells
}

// Anomaly thresholds; at most maxSpreadLines cases are listed by name for
// disagreeing samples (the widest first).
const (
	readOverWrite  = 10.0
	spreadLimit    = 1.5
	maxSpreadLines = 10
)

// anomalies lists the remarkable facts of a run, each computed from the
// data, and what was checked.
func (ps *pairs) anomalies() []table.Block {
	all := slices.Concat(ps.matrix, ps.other)
	if len(all) == 0 {
		return nil
	}
	var slower, reads []string
	var spreads []table.Ranked // cases whose samples disagree, by slowest ÷ fastest
	noisy := 0
	for _, r := range all {
		name := r.Subject()
		if r.variant != "" {
			name += " (" + r.variant + ")"
		}
		// An uncompressed write slower per record than a compressed one of
		// the same format (the unbuffered variant's included).
		if r.Codec == "none" && okCase(r.op[OpWrite]) && (slices.Contains(ps.matrix, r) || r.variant == VariantUnbuffered) {
			var compressed []*results.Case
			for _, o := range ps.matrix {
				if o.Format == r.Format && o.Codec != "none" {
					compressed = append(compressed, o.op[OpWrite])
				}
			}
			best := table.Least(compressed, func(c *results.Case) float64 { m, _ := median(c); return m })
			if a, b := PerRecord(r.op[OpWrite]), PerRecord(best); best != nil && a > b {
				slower = append(slower, fmt.Sprintf("%s writes slower uncompressed (%s per record%s) than with %s (%s per record%s): %s — more bytes to move than the compressor costs, or a missing buffer.",
					name, table.Duration(a), table.SamplesMark(r.op[OpWrite]), best.Labels.Get(LabelCodec), table.Duration(b), table.SamplesMark(best), table.Times(a/b)))
			}
		}
		if x := r.ReadNs / r.WriteNs; r.ok() && x >= readOverWrite {
			reads = append(reads, fmt.Sprintf("%s reads %s slower than it writes (%s%s vs %s%s).", name, table.Times(x),
				table.Duration(r.ReadNs), table.SamplesMark(r.op[OpRead]), table.Duration(r.WriteNs), table.SamplesMark(r.op[OpWrite])))
		}
		for _, op := range []string{OpWrite, OpRead, OpReadBytes, OpDecompress, OpReadColumns} {
			c := r.op[op]
			if !okCase(c) || len(c.Samples) < 2 {
				continue
			}
			if c.Noisy {
				noisy++
			}
			ns := table.SampleValues(c, results.UnitNsPerOp)
			if lo, hi := slices.Min(ns), slices.Max(ns); lo > 0 && hi/lo > spreadLimit {
				spreads = append(spreads, table.Ranked{By: hi / lo, Line: fmt.Sprintf("%s %s: samples disagree, slowest ÷ fastest = %s over %d samples (%s … %s).",
					name, op, table.Times(hi/lo), len(c.Samples), table.Duration(lo), table.Duration(hi))})
			}
		}
	}
	wide := table.LargestFirst(spreads, maxSpreadLines, fmt.Sprintf("%%d more cases whose slowest sample is over %.1f× their fastest.", spreadLimit))
	out := slices.Concat(slower, reads, wide)
	if noisy > 0 {
		out = append(out, fmt.Sprintf("%d cases have a confidence interval wider than ±%.0f%% of the median (marked noisy in the tables).", noisy, results.NoiseThreshold*100))
	}
	if out = append(out, FailedLines(ps.failed)...); len(out) == 0 {
		return []table.Block{&table.Text{Body: "None: no uncompressed write slower than a compressed one, no read ≥ 10× its write, no samples more than 1.5× apart, no failed case."}}
	}
	return []table.Block{table.Findings(out), &table.Text{Body: fmt.Sprintf("Checked: an uncompressed write slower than a compressed write of the same format; a read ≥ %.0f× slower than its write; a case whose slowest sample is more than %.1f× its fastest; failed cases (never timed or ranked).", readOverWrite, spreadLimit)}}
}

// FailedLines lists failed cases one line per distinct error, in the
// order of each error's first case: "FAILED subject=csv/codec=none/op=write:
// why" for a case alone ("cannot hold: …" for a format that cannot hold the
// data), "FAILED 8 cases — csv + none, gzip (write, read);
// jsonl + zstd (read): why" for several (their names condensed by
// CondenseCases, about 300 bytes at most).
func FailedLines(failed []*results.Case) []string {
	byErr := map[string][]*results.Case{}
	var errs, out []string
	for _, c := range failed {
		key := c.Status + "\x00" + c.Error
		if byErr[key] == nil {
			errs = append(errs, key)
		}
		byErr[key] = append(byErr[key], c)
	}
	for _, k := range errs {
		cs := byErr[k]
		word, e := "FAILED", cs[0].Error
		if cs[0].CannotHold() {
			word = "cannot hold:"
		}
		if len(cs) == 1 {
			out = append(out, fmt.Sprintf("%s %s: %s", word, strings.TrimPrefix(cs[0].FullName(), cs[0].Name+"/"), e))
		} else {
			out = append(out, fmt.Sprintf("%s %d cases — %s: %s", word, len(cs), CondenseCases(cs, true, 300), e))
		}
	}
	return out
}

// CondenseCases names file-workload cases briefly: per format, the codecs
// that share the same ops, "csv + none, gzip, zstd (write); jsonl + none
// (read, read-bytes)", in the cases' order, cut after about max bytes
// ("; …"). Without ops, a format's codecs are listed once: "csv + none,
// gzip, zstd; jsonl + none".
func CondenseCases(cs []*results.Case, ops bool, max int) string {
	var keys, formats []string // format/codec and formats, in order
	opsOf := map[string][]string{}
	for _, c := range cs {
		f := c.Labels.Get(LabelFormat)
		if v := c.Labels.Get(LabelVariant); v != "" {
			f += " (" + v + ")"
		}
		k := f + "\x00" + c.Labels.Get(LabelCodec)
		if _, seen := opsOf[k]; !seen {
			keys = append(keys, k)
		}
		if !slices.Contains(formats, f) {
			formats = append(formats, f)
		}
		if op := c.Labels.Get(LabelOp); !slices.Contains(opsOf[k], op) {
			opsOf[k] = append(opsOf[k], op)
		}
	}
	// Codecs of one format with the same ops share a part.
	var parts []string
	codecs := map[string][]string{}
	for _, f := range formats {
		for _, k := range keys {
			if g, cd, _ := strings.Cut(k, "\x00"); g == f {
				part := f + " + \x00"
				if ops {
					part += " (" + strings.Join(opsOf[k], ", ") + ")"
				}
				if codecs[part] == nil {
					parts = append(parts, part)
				}
				codecs[part] = append(codecs[part], cd)
			}
		}
	}
	text := ""
	for i, part := range parts {
		head, tail, _ := strings.Cut(part, "\x00")
		p := head + strings.Join(codecs[part], ", ") + tail
		if i > 0 && len(text)+len(p) > max {
			return text + "; …"
		}
		if i > 0 {
			text += "; "
		}
		text += p
	}
	return text
}

// Summary condenses a file workload's cases (see FileLayout) for the
// terminal: the fastest pairs by round trip with their size (summary),
// then the use-case recommendations, each its pair's row.
func Summary(name string, run *results.Run, cases []*results.Case) *table.Table {
	_, pts := group(name, run, cases).points()
	t := summary(name).First(cases)
	if len(pts) == 0 || t == nil {
		return nil
	}
	// The pairs whose write and read both succeeded have a total.
	rows := slices.DeleteFunc(t.Rows, func(r []table.Cell) bool { return !r[2].Num() })
	t.Rows = slices.Clone(rows[:min(8, len(rows))])
	for _, r := range append(TopRules()[3:], UseCaseRules()...) {
		i := r.Pick(pts)
		if k := slices.IndexFunc(rows, func(row []table.Cell) bool { return i >= 0 && row[1].String() == pts[i].Subject() }); k >= 0 {
			t.AddRow(append([]table.Cell{table.Str(strings.ToLower(r.Name))}, rows[k][1:]...)...)
		}
	}
	return t
}

// scope names what a file workload's cases read: their records.
func scope(cases []*results.Case) string {
	for _, c := range cases {
		if n := c.Metrics[MetricRecords]; n > 0 {
			return table.Int(n) + " records"
		}
	}
	return "the records"
}

// pairName is a case's format and codec.
func pairName(c *results.Case) string {
	return c.Labels.Get(LabelFormat) + " + " + c.Labels.Get(LabelCodec)
}
