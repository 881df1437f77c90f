package features

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/serbench/serbench/table"

	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// baseline is the subject every other is compared with, as in the seed.
const baseline = "psdb"

// Sections implements workload.Workload: findings, the subjects, psdb
// against each type's limit (with the goal), every subject against the
// limit, the speed tables and plots grouped by type family, then size,
// memory and throughput.
func (*Workload) Sections() []report.Section {
	secs := []report.Section{
		{Workload: Name, Title: "Findings", Render: renderFindings},
		{Workload: Name, Title: "Subjects", Render: renderSubjects},
		{Workload: Name, Title: "psdb against its type's limit", Render: renderGoal},
		{Workload: Name, Title: "Every subject against the limit", Render: renderLimit},
	}
	for _, f := range families() {
		secs = append(secs, report.Section{Workload: Name, Title: "Speed: " + f.title + " (lower is better)", Render: speedOf(f.key)})
	}
	return append(secs,
		report.Section{Workload: Name, Title: "Serialized size (lower is better)", Render: renderSize},
		report.Section{Workload: Name, Title: "Memory efficiency (lower is better)", Render: renderMemory},
		report.Section{Workload: Name, Title: "Throughput (higher is better)", Render: renderThroughput},
	)
}

// A family is a group of types reported together.
type family struct{ key, title string }

// families lists the type families in report order.
func families() []family {
	return []family{
		{"signed", "signed integers (int8, int16, int32, int64)"},
		{"unsigned", "unsigned integers (uint8, uint16, uint32, uint64)"},
		{"float", "floats (fp8 e4m3/e5m2, fp16, float32, float64)"},
		{"bool", "bool"},
		{"string", "string"},
		{"vector", "vectors (N features × 8 values)"},
	}
}

// familyOf classifies a recorded type label (results only: the label's
// name says its family).
func familyOf(typ string) string {
	switch {
	case strings.HasSuffix(typ, "x8"):
		return "vector"
	case strings.HasPrefix(typ, "int"):
		return "signed"
	case strings.HasPrefix(typ, "uint"):
		return "unsigned"
	case strings.HasPrefix(typ, "fp"), strings.HasPrefix(typ, "float"):
		return "float"
	}
	return typ
}

// typesOf returns the types of family key among types, in their order.
func typesOf(types []string, key string) []string {
	var out []string
	for _, t := range types {
		if familyOf(t) == key {
			out = append(out, t)
		}
	}
	return out
}

// byFamily returns types in family order (within a family, as given).
func byFamily(types []string) []string {
	var out []string
	for _, f := range families() {
		out = append(out, typesOf(types, f.key)...)
	}
	for _, t := range types {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

type view struct {
	cases    []*results.Case
	ix       *table.Index
	subjects []string
	types    []string
	sizes    []string
	// limit is the physical-limit row's subject.
	limit string
}

func newView(cases []*results.Case) view {
	return view{
		cases:    cases,
		ix:       table.NewIndex(cases, "subject", "type", "n", "op"),
		subjects: table.Distinct(cases, "subject"),
		types:    byFamily(table.Distinct(cases, "type")),
		sizes:    table.Distinct(cases, "n"),
		// Schema-1 results carry no roles: their limit row was "memcpy".
		limit: table.SubjectWithRole(cases, results.RoleLimit, "memcpy"),
	}
}

func (v view) has(subject string) bool {
	for _, s := range v.subjects {
		if s == subject {
			return true
		}
	}
	return false
}

func renderSubjects(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	t := report.SubjectsTable(run, Name, "subject", cases)
	if t == nil {
		return nil, nil
	}
	t.Notes = []string{"Every subject encodes the same generated values and must decode them back bit for bit before it is timed. " +
		"Decoders return values into reused slices; every subject copies strings except psdb, which returns zero-copy views of the block (its settings say so). int32/int64 values are uniform over the non-negative range, as the seed's protobuf sizes imply. " +
		"Raw size = the values packed at natural width (8/16-bit integers: 1/2 bytes, bool: 1 bit, fp8: 1 byte, fp16: 2 bytes, strings: their bytes; a vector type's N·8 values); MB/s is raw bytes per second."}
	return []report.Block{t}, nil
}

// speedOf renders the speed tables and plots of one type family.
func speedOf(fam string) func(*results.Run, []*results.Case) ([]report.Block, error) {
	return func(run *results.Run, cases []*results.Case) ([]report.Block, error) {
		v := newView(cases)
		return renderSpeed(run, v, typesOf(v.types, fam)), nil
	}
}

func renderSpeed(run *results.Run, v view, types []string) []report.Block {
	var blocks []report.Block
	for _, op := range ops {
		for _, typ := range types {
			t := &report.Table{Caption: fmt.Sprintf("%s, %s (ns/op, median ±interval)", op, typ), Header: []string{"features"}}
			t.Header = append(t.Header, v.subjects...)
			var cmp []string
			if v.has(baseline) {
				for _, s := range []string{"proto3", "arrow", "flatbuffers"} {
					if v.has(s) {
						cmp = append(cmp, s)
						t.Header = append(t.Header, baseline+" vs "+s)
					}
				}
			}
			rows := 0
			for _, n := range v.sizes {
				row := []string{table.Int(table.Number(n))}
				any := false
				for _, s := range v.subjects {
					c := v.ix.Get(s, typ, n, op)
					if c != nil {
						any = true
					}
					row = append(row, table.TimeText(c))
				}
				if !any {
					continue
				}
				base := v.ix.Get(baseline, typ, n, op)
				for _, s := range cmp {
					other := v.ix.Get(s, typ, n, op)
					if base == nil || other == nil || !base.OK() || !other.OK() {
						row = append(row, "–")
						continue
					}
					row = append(row, table.FasterText(base, other))
				}
				t.Rows = append(t.Rows, row)
				rows++
			}
			if rows == 0 {
				continue
			}
			t.Notes = []string{table.FasterRule}
			blocks = append(blocks, t)
			if p := speedPlot(run, v, typ, op); p != nil {
				blocks = append(blocks, p)
			}
		}
	}
	return blocks
}

func speedPlot(run *results.Run, v view, typ, op string) *report.Plot {
	chart := table.LineChart{
		Title:  fmt.Sprintf("features: %s %s", typ, op),
		XLabel: "features per block (N)", YLabel: "time per op",
		LogX: true, LogY: true, YFormat: table.Duration,
		Palette: table.RunPalette(run),
	}
	for _, s := range v.subjects {
		ser := table.Series{Name: s, Limit: s == v.limit}
		for _, n := range v.sizes {
			c := v.ix.Get(s, typ, n, op)
			if c == nil || !c.OK() {
				continue
			}
			st, _ := c.Stat(results.UnitNsPerOp)
			ser.X = append(ser.X, table.Number(n))
			ser.Y = append(ser.Y, st.Median)
			ser.Lo, ser.Hi = append(ser.Lo, st.Lo), append(ser.Hi, st.Hi)
		}
		if len(ser.X) > 0 {
			chart.Series = append(chart.Series, ser)
		}
	}
	svg, err := report.SVG(&chart)
	if err != nil {
		return nil
	}
	return &report.Plot{File: fmt.Sprintf("features-%s-%s.svg", typ, op), Caption: chart.Title + " — ns/op against N, log-log; bars: the median's confidence interval; grey dashed: the limit row", SVG: svg}
}

// goalFor is the goal for psdb ÷ its type's limit at N = n: within 3× at
// N = 100, within 2× at N = 1,000 and 100,000; other sizes have none.
func goalFor(n string) (float64, bool) {
	switch n {
	case "100":
		return 3, true
	case "1000", "100000":
		return 2, true
	}
	return 0, false
}

// goalText states the goal.
const goalText = "Goal: psdb within 3× of its type's limit row at N = 100 and within 2× at N = 1,000 and 100,000 " +
	"(✓ met, ✗ not met: the median in-round ratio against the goal; other sizes have no goal)."

// limitRatio is c's time over the limit row's: the median of the in-round
// ratios, or for results without them the ratio of the medians.
func limitRatio(c, lim *results.Case) (float64, bool) {
	if c == nil || !c.OK() {
		return 0, false
	}
	if st, ok := c.Stat(results.UnitVsLimit); ok {
		return st.Median, true
	}
	if lim == nil || !lim.OK() {
		return 0, false
	}
	x, _ := c.Median(results.UnitNsPerOp)
	y, _ := lim.Median(results.UnitNsPerOp)
	if y <= 0 {
		return 0, false
	}
	return x / y, true
}

// goalCell formats psdb's ratio to the limit with its verdict; met is
// nil when the cell has no goal or no ratio.
func goalCell(c, lim *results.Case, n string) (cell string, met *bool) {
	if c == nil {
		return "–", nil
	}
	cell = table.RatioText(c, results.UnitVsLimit, lim)
	r, ok := limitRatio(c, lim)
	g, has := goalFor(n)
	if !ok || !has {
		return cell, nil
	}
	m := r <= g
	if m {
		return cell + " ✓", &m
	}
	return cell + " ✗", &m
}

// renderGoal shows, per op, psdb's time as a multiple of its type's limit
// row for every type (grouped by family) at every N measured.
func renderGoal(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
	if !v.has(v.limit) || !v.has(baseline) {
		return nil, nil
	}
	var blocks []report.Block
	for _, op := range ops {
		t := &report.Table{Caption: fmt.Sprintf("%s: psdb time as a multiple of its type's %s row", op, v.limit), Header: []string{"family", "type"}}
		for _, n := range v.sizes {
			t.Header = append(t.Header, "N = "+nInt(n))
		}
		met, cells := 0, 0
		for _, typ := range v.types {
			row := []string{familyOf(typ), typ}
			any := false
			for _, n := range v.sizes {
				c := v.ix.Get(baseline, typ, n, op)
				cell, m := goalCell(c, v.ix.Get(v.limit, typ, n, op), n)
				if c != nil {
					any = true
				}
				if m != nil {
					cells++
					if *m {
						met++
					}
				}
				row = append(row, cell)
			}
			if any {
				t.Rows = append(t.Rows, row)
			}
		}
		if len(t.Rows) == 0 {
			continue
		}
		t.Notes = []string{goalText + fmt.Sprintf(" Met in %d of %d cells with a goal.", met, cells), limitNote(run, v.limit) + " " + ratioNote(cases, v.limit)}
		blocks = append(blocks, t)
	}
	return blocks, nil
}

// limitNote says what the run's limit row did, from its recorded
// descriptor.
func limitNote(run *results.Run, limit string) string {
	d := run.Descriptor(Name, "subject", limit)
	if d == nil {
		return "The " + limit + " row has no recorded descriptor (a results file from before descriptors): it copied the raw packed bytes of every type."
	}
	note := "What the " + limit + " row does: " + d.What + "."
	if len(d.Settings) > 0 {
		keys := make([]string, 0, len(d.Settings))
		for k := range d.Settings {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + d.Settings[k]
		}
		note += " Per type — " + strings.Join(parts, "; ") + "."
	}
	return note
}

// renderLimit shows every subject's time as a multiple of the limit row at
// the largest N, one row per type.
func renderLimit(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
	if !v.has(v.limit) || len(v.sizes) == 0 {
		return nil, nil
	}
	n := v.sizes[len(v.sizes)-1]
	var subs []string
	for _, s := range v.subjects {
		if s != v.limit {
			subs = append(subs, s)
		}
	}
	var blocks []report.Block
	for _, op := range ops {
		t := &report.Table{Caption: fmt.Sprintf("%s at N = %s: time as a multiple of the type's %s row", op, nInt(n), v.limit),
			Header: append(append([]string{"type"}, subs...), v.limit+" (ns/op)")}
		for _, typ := range v.types {
			lim := v.ix.Get(v.limit, typ, n, op)
			row := []string{typ}
			any := false
			for _, s := range subs {
				c := v.ix.Get(s, typ, n, op)
				if c == nil {
					row = append(row, "–")
					continue
				}
				any = true
				row = append(row, table.RatioText(c, results.UnitVsLimit, lim))
			}
			if !any {
				continue
			}
			t.Rows = append(t.Rows, append(row, table.TimeText(lim)))
		}
		if len(t.Rows) == 0 {
			continue
		}
		t.Notes = []string{"1.0× would be as fast as the limit row of the type. " + ratioNote(cases, v.limit)}
		blocks = append(blocks, t)
	}
	return blocks, nil
}

func renderSize(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
	var blocks []report.Block
	for _, typ := range v.types {
		t := &report.Table{Caption: typ + ": bytes (and % of raw)", Header: []string{"features", "raw"}}
		var subs []string
		for _, s := range v.subjects {
			if s != v.limit {
				subs = append(subs, s)
			}
		}
		t.Header = append(t.Header, subs...)
		for _, n := range v.sizes {
			var raw float64
			row := []string{table.Int(table.Number(n)), ""}
			for _, s := range subs {
				c := v.ix.Get(s, typ, n, "encode")
				if c == nil {
					c = v.ix.Get(s, typ, n, "decode")
				}
				if c == nil {
					row = append(row, "–")
					continue
				}
				if !c.OK() {
					row = append(row, table.FailedText)
					continue
				}
				size := c.Metrics[MetricSerialized]
				raw = c.Metrics[MetricRaw]
				row = append(row, fmt.Sprintf("%s (%s)", table.Int(size), table.Pct(size/raw)))
			}
			if raw == 0 {
				continue
			}
			row[1] = table.Int(raw)
			t.Rows = append(t.Rows, row)
		}
		if len(t.Rows) > 0 {
			blocks = append(blocks, t)
		}
	}
	if len(blocks) > 0 {
		blocks = append(blocks, &report.Text{Body: "Sizes are exact properties of the formats: psdb int32 is 9 + 4·N bytes (409, 4,009, 40,009, 400,009), as in the seed. arrow-reuse's size is that of a full stream (schema + batch), like arrow's."})
	}
	return blocks, nil
}

func renderMemory(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
	var blocks []report.Block
	for _, op := range ops {
		for _, typ := range v.types {
			t := report.Pivot{Cases: cases, Where: []string{"type", typ, "op", op}, Row: "n", Col: "subject", Rows: v.sizes, Cols: v.subjects,
				Corner: "features", RowName: nInt, Cell: table.MemText, KeepEmpty: true}.Table()
			if t == nil {
				continue
			}
			t.Caption = fmt.Sprintf("%s, %s: B/op / allocs/op", op, typ)
			blocks = append(blocks, t)
		}
	}
	return blocks, nil
}

// nInt formats a size label as an integer with separators.
func nInt(n string) string { return table.Int(table.Number(n)) }

func renderThroughput(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
	n := "1000"
	if !slices.Contains(v.sizes, n) && len(v.sizes) > 0 {
		n = v.sizes[len(v.sizes)-1]
	}
	var blocks []report.Block
	for _, op := range ops {
		t := &report.Table{
			Caption: fmt.Sprintf("%s at N = %s: MB/s of raw data (%% of %s)", op, table.Int(table.Number(n)), baseline),
			Header:  append([]string{"type"}, v.subjects...),
		}
		for _, typ := range v.types {
			row := []string{typ}
			for _, s := range v.subjects {
				c, b := v.ix.Get(s, typ, n, op), v.ix.Get(baseline, typ, n, op)
				if c == nil {
					row = append(row, "–")
					continue
				}
				cell := table.Median(c, results.UnitMBPerS, table.Plain).String()
				if c.OK() && b != nil && b.OK() {
					x, _ := c.Median(results.UnitMBPerS)
					y, _ := b.Median(results.UnitMBPerS)
					if y > 0 {
						cell += " (" + strconv.FormatFloat(100*x/y, 'f', 0, 64) + "%)"
					}
				}
				row = append(row, cell)
			}
			t.Rows = append(t.Rows, row)
		}
		blocks = append(blocks, t)
	}
	return blocks, nil
}

// Summary implements workload.Workload: int32 (the seed's type) at the
// largest N, each subject's encode and decode time and its multiple of
// the limit row.
func (w *Workload) Summary(run *results.Run, cases []*results.Case) *table.Table {
	return report.Typed(w.summary(run, cases))
}

func (*Workload) summary(run *results.Run, cases []*results.Case) *report.Table {
	v := newView(cases)
	if len(v.sizes) == 0 {
		return nil
	}
	typ := string(ds.Int32)
	if !slices.Contains(v.types, typ) {
		typ = v.types[0]
	}
	n := v.sizes[len(v.sizes)-1]
	t := &report.Table{
		Caption: fmt.Sprintf("features: %s, N = %s", typ, table.Int(table.Number(n))),
		Header:  []string{"subject", "encode", "× " + v.limit, "decode", "× " + v.limit, "size"},
	}
	for _, s := range v.subjects {
		e, d := v.ix.Get(s, typ, n, "encode"), v.ix.Get(s, typ, n, "decode")
		size := "–"
		if e != nil && e.OK() {
			size = table.Int(e.Metrics[MetricSerialized])
		}
		t.Rows = append(t.Rows, []string{s,
			table.TimeText(e), table.RatioText(e, results.UnitVsLimit, v.ix.Get(v.limit, typ, n, "encode")),
			table.TimeText(d), table.RatioText(d, results.UnitVsLimit, v.ix.Get(v.limit, typ, n, "decode")),
			size})
	}
	return t
}

// ratioNote says how the ratios to the limit row were taken: within each
// sampling round (interleaved runs) or, for older results, as the ratio of
// medians measured one after another.
func ratioNote(cases []*results.Case, limit string) string {
	for _, c := range cases {
		if _, ok := c.Stat(results.UnitVsLimit); ok {
			return "Each subject was sampled round-robin with the " + limit + " row; the ratio is taken within each round (median and interval over the rounds), so machine drift cancels out."
		}
	}
	return "This run measured the cases one after another: the ratio is of the two medians, and machine drift between them is not removed."
}
