package features

import (
	"fmt"
	"slices"
	"strconv"

	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// baseline is the subject every other is compared with, as in the seed.
const baseline = "psdb"

// Sections implements workload.Workload: the seed's speed, size, memory,
// throughput tables, plus the share of the memcpy limit and plots.
func (*Workload) Sections() []report.Section {
	return []report.Section{
		{Workload: Name, Title: "Findings", Render: renderFindings},
		{Workload: Name, Title: "Subjects", Render: renderSubjects},
		{Workload: Name, Title: "Speed (lower is better)", Render: renderSpeed},
		{Workload: Name, Title: "Against the physical limit", Render: renderLimit},
		{Workload: Name, Title: "Serialized size (lower is better)", Render: renderSize},
		{Workload: Name, Title: "Memory efficiency (lower is better)", Render: renderMemory},
		{Workload: Name, Title: "Throughput (higher is better)", Render: renderThroughput},
	}
}

type view struct {
	cases    []*results.Case
	ix       *report.Index
	subjects []string
	types    []string
	sizes    []string
	// limit is the physical-limit row's subject.
	limit string
}

func newView(cases []*results.Case) view {
	return view{
		cases:    cases,
		ix:       report.NewIndex(cases, "subject", "type", "n", "op"),
		subjects: report.Distinct(cases, "subject"),
		types:    report.Distinct(cases, "type"),
		sizes:    report.Distinct(cases, "n"),
		limit:    report.SubjectWithRole(cases, results.RoleLimit, "memcpy"),
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
		"Decoders return owned values (strings copied) into reused slices. int32/int64 values are uniform over the non-negative range, as the seed's protobuf sizes imply. " +
		"Raw size = the values packed at natural width (bool: 1 bit, fp16: 2 bytes, strings: their bytes); MB/s is raw bytes per second."}
	return []report.Block{t}, nil
}

func renderSpeed(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
	var blocks []report.Block
	for _, op := range ops {
		for _, typ := range v.types {
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
				row := []string{report.Int(report.Number(n))}
				any := false
				for _, s := range v.subjects {
					c := v.ix.Get(s, typ, n, op)
					if c != nil {
						any = true
					}
					row = append(row, report.NsCell(c))
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
					row = append(row, report.Faster(base, other))
				}
				t.Rows = append(t.Rows, row)
				rows++
			}
			if rows == 0 {
				continue
			}
			t.Notes = []string{report.FasterRule}
			blocks = append(blocks, t)
			if p := speedPlot(run, v, typ, op); p != nil {
				blocks = append(blocks, p)
			}
		}
	}
	return blocks, nil
}

func speedPlot(run *results.Run, v view, typ, op string) *report.Plot {
	chart := report.LineChart{
		Title:  fmt.Sprintf("features: %s %s", typ, op),
		XLabel: "features per block (N)", YLabel: "time per op",
		LogX: true, LogY: true, YFormat: report.Duration,
		Palette: report.RunPalette(run),
	}
	for _, s := range v.subjects {
		ser := report.Series{Name: s, Limit: s == v.limit}
		for _, n := range v.sizes {
			c := v.ix.Get(s, typ, n, op)
			if c == nil || !c.OK() {
				continue
			}
			st, _ := c.Stat(results.UnitNsPerOp)
			ser.X = append(ser.X, report.Number(n))
			ser.Y = append(ser.Y, st.Median)
			ser.Lo, ser.Hi = append(ser.Lo, st.Lo), append(ser.Hi, st.Hi)
		}
		if len(ser.X) > 0 {
			chart.Series = append(chart.Series, ser)
		}
	}
	svg, err := chart.SVG()
	if err != nil {
		return nil
	}
	return &report.Plot{File: fmt.Sprintf("features-%s-%s.svg", typ, op), Caption: chart.Title + " — ns/op against N, log-log; bars: the median's confidence interval; grey dashed: the limit row", SVG: svg}
}

func renderLimit(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
	if !v.has(v.limit) || len(v.sizes) == 0 {
		return nil, nil
	}
	n := v.sizes[len(v.sizes)-1]
	var blocks []report.Block
	for _, op := range ops {
		var subs []string
		for _, s := range v.subjects {
			if s != v.limit {
				subs = append(subs, s)
			}
		}
		t := report.Pivot{Cases: cases, Where: []string{"n", n, "op", op}, Row: "subject", Col: "type", Rows: subs, Cols: v.types,
			Cell: func(c *results.Case) string {
				if c == nil {
					return "–"
				}
				return report.RatioCell(c, results.UnitVsLimit, v.ix.Get(v.limit, c.Labels.Get("type"), n, op))
			}}.Table()
		if t == nil {
			continue
		}
		t.Caption = fmt.Sprintf("%s at N = %s: time as a multiple of the %s row", op, nInt(n), v.limit)
		mrow := []string{v.limit + " (ns/op)"}
		for _, typ := range v.types {
			mrow = append(mrow, report.NsCell(v.ix.Get(v.limit, typ, n, op)))
		}
		t.Rows = append(t.Rows, mrow)
		t.Notes = []string{"1.0× would be as fast as copying the raw bytes. " + ratioNote(cases, v.limit)}
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
			row := []string{report.Int(report.Number(n)), ""}
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
					row = append(row, report.Failed)
					continue
				}
				size := c.Metrics[MetricSerialized]
				raw = c.Metrics[MetricRaw]
				row = append(row, fmt.Sprintf("%s (%s)", report.Int(size), report.Pct(size/raw)))
			}
			if raw == 0 {
				continue
			}
			row[1] = report.Int(raw)
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
				Corner: "features", RowName: nInt, Cell: report.MemCell, KeepEmpty: true}.Table()
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
func nInt(n string) string { return report.Int(report.Number(n)) }

func renderThroughput(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(cases)
	n := "1000"
	if !slices.Contains(v.sizes, n) && len(v.sizes) > 0 {
		n = v.sizes[len(v.sizes)-1]
	}
	var blocks []report.Block
	for _, op := range ops {
		t := &report.Table{
			Caption: fmt.Sprintf("%s at N = %s: MB/s of raw data (%% of %s)", op, report.Int(report.Number(n)), baseline),
			Header:  append([]string{"subject"}, v.types...),
		}
		for _, s := range v.subjects {
			row := []string{s}
			for _, typ := range v.types {
				c, b := v.ix.Get(s, typ, n, op), v.ix.Get(baseline, typ, n, op)
				cell := report.UnitCell(c, results.UnitMBPerS, report.Float)
				if c != nil && c.OK() && b != nil && b.OK() {
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
// memcpy.
func (*Workload) Summary(run *results.Run, cases []*results.Case) *report.Table {
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
		Caption: fmt.Sprintf("features: %s, N = %s", typ, report.Int(report.Number(n))),
		Header:  []string{"subject", "encode", "× memcpy", "decode", "× memcpy", "size"},
	}
	for _, s := range v.subjects {
		e, d := v.ix.Get(s, typ, n, "encode"), v.ix.Get(s, typ, n, "decode")
		size := "–"
		if e != nil && e.OK() {
			size = report.Int(e.Metrics[MetricSerialized])
		}
		t.Rows = append(t.Rows, []string{s,
			report.NsCell(e), report.RatioCell(e, results.UnitVsLimit, v.ix.Get(v.limit, typ, n, "encode")),
			report.NsCell(d), report.RatioCell(d, results.UnitVsLimit, v.ix.Get(v.limit, typ, n, "decode")),
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
