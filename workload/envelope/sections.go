package envelope

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/serbench/serbench/table"

	ds "github.com/serbench/serbench/dataset/envelope"
	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// Performance target of the header-only read at the largest named size.
const (
	targetSpeedup = 100
	targetAllocs  = 2
)

// Sections implements workload.Workload: the seed's two tables, every
// subject's marshal, unmarshal and header-only times, the payload sweep
// plots, where flat overtakes wrapped, sizes and memory.
func (*Workload) Sections() []report.Section {
	return []report.Section{
		{Workload: Name, Title: "Findings", Render: renderFindings},
		{Workload: Name, Title: "Subjects", Render: renderSubjects},
		{Workload: Name, Title: "The seed's tables: protobuf flat vs wrapped", Render: renderSeed},
		{Workload: Name, Title: "Marshal, every subject (lower is better)", Render: renderMarshal},
		{Workload: Name, Title: "Unmarshal, every subject (lower is better)", Render: renderUnmarshal},
		{Workload: Name, Title: "Header-only read (lower is better)", Render: renderHeader},
		{Workload: Name, Title: "Time against payload size", Render: renderSweep},
		{Workload: Name, Title: "Where flat overtakes wrapped", Render: renderCrossover},
		{Workload: Name, Title: "Serialized size", Render: renderSize},
		{Workload: Name, Title: "Memory (B/op / allocs/op, lower is better)", Render: renderMemory},
	}
}

// view pivots one run's cases of this workload. Everything it knows comes
// from the recorded results: subjects and roles from the run's descriptors
// and the cases, sizes from the cases' labels.
type view struct {
	ix *table.Index // subject, size, op
	bx *table.Index // subject, bytes, op
	// subjects present, in the order the run described them, then any
	// undescribed ones in case order.
	subjects []string
	// baseline is the subject with the baseline role.
	baseline string
	// named are the seed's named sizes present ("Tiny" …), smallest first.
	named []ds.Size
	// bytes are the distinct payload sizes present, ascending.
	bytes []float64
	// outerOnly are the subjects whose header-only read is the outer-only
	// unmarshal (their header cases carry noteOuterOnly).
	outerOnly map[string]bool
}

// sweepName matches the size labels of the power-of-two sweep ("8B",
// "64KiB", "4MiB"); every other size label is one of the seed's names.
var sweepName = regexp.MustCompile(`^[0-9]+(B|KiB|MiB)$`)

func newView(run *results.Run, cases []*results.Case) view {
	v := view{
		ix:        table.NewIndex(cases, LabelSubject, "size", "op"),
		bx:        table.NewIndex(cases, LabelSubject, "bytes", "op"),
		baseline:  table.SubjectWithRole(cases, results.RoleBaseline, Baseline),
		outerOnly: map[string]bool{},
	}
	present := table.Distinct(cases, LabelSubject)
	if run != nil {
		for _, d := range run.Descriptors {
			if d.Workload == Name && d.Key == LabelSubject && slices.Contains(present, d.Name) && !slices.Contains(v.subjects, d.Name) {
				v.subjects = append(v.subjects, d.Name)
			}
		}
	}
	for _, s := range present {
		if !slices.Contains(v.subjects, s) {
			v.subjects = append(v.subjects, s)
		}
	}
	seen := map[string]bool{}
	for _, c := range cases {
		name := c.Labels.Get("size")
		b, err := strconv.Atoi(c.Labels.Get("bytes"))
		if err == nil && !seen[name] && !sweepName.MatchString(name) {
			seen[name] = true
			v.named = append(v.named, ds.Size{Name: name, Bytes: b})
		}
		if c.Labels.Get("op") == OpHeader && slices.Contains(c.Notes, noteOuterOnly) {
			v.outerOnly[c.Labels.Get(LabelSubject)] = true
		}
	}
	sort.SliceStable(v.named, func(i, j int) bool { return v.named[i].Bytes < v.named[j].Bytes })
	for _, b := range table.Distinct(cases, "bytes") {
		if f, err := strconv.ParseFloat(b, 64); err == nil {
			v.bytes = append(v.bytes, f)
		}
	}
	sort.Float64s(v.bytes)
	return v
}

func (v view) has(subject string) bool { return slices.Contains(v.subjects, subject) }

// get returns the case of subject at named size z for op.
func (v view) get(subject string, z ds.Size, op string) *results.Case {
	return v.ix.Get(subject, z.Name, op)
}

// at returns the case of subject at payload size b for op.
func (v view) at(subject string, b float64, op string) *results.Case {
	return v.bx.Get(subject, strconv.FormatFloat(b, 'f', -1, 64), op)
}

// largest is the largest named size present (XLarge at default scale).
func (v view) largest() (ds.Size, bool) {
	if len(v.named) == 0 {
		return ds.Size{}, false
	}
	return v.named[len(v.named)-1], true
}

// pairs returns the libraries measured in both layouts ("protobuf").
func (v view) pairs() []string {
	var out []string
	for _, s := range v.subjects {
		if lib, ok := strings.CutSuffix(s, "-flat"); ok && v.has(lib+"-wrapped") {
			out = append(out, lib)
		}
	}
	return out
}

// vsBaseline formats c's time as a multiple of the baseline's in the same
// group (same size and op): the in-round ratio when recorded, else the
// ratio of the medians.
func (v view) vsBaseline(c *results.Case, z ds.Size, op string) string {
	return table.RatioText(c, results.UnitVsBaseline, v.get(v.baseline, z, op))
}

func renderSubjects(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	t := report.SubjectsTable(run, Name, LabelSubject, cases)
	if t == nil {
		return nil, nil
	}
	t.Notes = []string{
		"Every subject encodes the same generated envelope (seeded; ULIDs, random payload) and must decode it back field for field, and read back its header, before it is timed.",
		"Wrapped layouts: the inner message (mimetype, type, encryption, compression, user_defined_id, data, created) is marshalled once outside the timed loop, as in the seed; marshal times the outer message only, unmarshal decodes the outer and then the inner message.",
		"The seed's \"WrappedUnmarshal\" decoded the outer message only. Here that is the header-only read of the wrapped protobuf layouts, shown as \"wrapped (outer only, as in the seed)\"; \"wrapped (outer + inner)\" is the full decode.",
		"The subjects of one payload size and op are sampled round-robin, one sample each per round, with the baseline; \"× baseline\" columns are the time ratio taken within each round (median and interval over the rounds).",
		"MB/s counts payload bytes per second.",
	}
	return []report.Block{t}, nil
}

func renderSeed(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	const flat, wrapped = "protobuf-flat", "protobuf-wrapped"
	if !v.has(flat) || !v.has(wrapped) || len(v.named) == 0 {
		return nil, nil
	}
	// sameOp is wrapped's time as a multiple of flat's for the same size
	// and op: in-round when flat is the group's baseline.
	sameOp := func(w *results.Case, z ds.Size, op string) string {
		if v.baseline == flat {
			return v.vsBaseline(w, z, op)
		}
		return medianRatioCell(w, v.get(flat, z, op))
	}
	m := &report.Table{
		Caption: "marshal: ns/op (median ±interval), B/op / allocs/op",
		Header:  []string{"size", "payload", "flat", "flat mem", "wrapped", "wrapped mem", "wrapped ÷ flat"},
	}
	u := &report.Table{
		Caption: "unmarshal: ns/op (median ±interval), B/op / allocs/op",
		Header: []string{"size", "payload", "flat", "flat mem",
			"wrapped (outer only, as in the seed)", "mem", "÷ flat",
			"wrapped (outer + inner)", "mem", "÷ flat"},
	}
	for _, z := range v.named {
		f, w := v.get(flat, z, OpMarshal), v.get(wrapped, z, OpMarshal)
		m.Rows = append(m.Rows, []string{z.Name, table.Int(float64(z.Bytes)),
			table.TimeText(f), memCell(f), table.TimeText(w), memCell(w), sameOp(w, z, OpMarshal)})
		f = v.get(flat, z, OpUnmarshal)
		o, w := v.get(wrapped, z, OpHeader), v.get(wrapped, z, OpUnmarshal)
		u.Rows = append(u.Rows, []string{z.Name, table.Int(float64(z.Bytes)),
			table.TimeText(f), memCell(f),
			table.TimeText(o), memCell(o), medianRatioCell(o, f),
			table.TimeText(w), memCell(w), sameOp(w, z, OpUnmarshal)})
	}
	m.Notes = []string{ratioRule}
	u.Notes = []string{ratioRule + " The outer-only read is a header case, measured in another group than flat's unmarshal: its ratio is that of the medians.",
		"Outer only: the outer message is decoded and the inner one stays bytes (copied), which is what the seed timed as WrappedUnmarshal. Outer + inner: what a consumer pays to read the whole event."}
	return []report.Block{m, u}, nil
}

// ratioRule explains the "÷" and "× baseline" cells.
const ratioRule = "Ratios are times: below 1× the subject is faster than the one it is divided by. Cases of the same size and op were sampled round-robin; their ratio is taken within each round (median ±interval over the rounds), so drift of the machine cancels out; results recorded without in-round ratios show the ratio of the medians."

// ratioTable is, per named size, each subject's time for op as a multiple
// of the baseline's in the same round; nil when the run has no baseline.
func ratioTable(v view, op string) *report.Table {
	if !v.has(v.baseline) {
		return nil
	}
	t := &report.Table{Caption: fmt.Sprintf("%s: time × %s's", op, v.baseline), Header: []string{"size"}}
	var subs []string
	for _, s := range v.subjects {
		if s != v.baseline {
			subs = append(subs, s)
		}
	}
	if len(subs) == 0 {
		return nil
	}
	t.Header = append(t.Header, subs...)
	for _, z := range v.named {
		if v.get(v.baseline, z, op) == nil {
			continue
		}
		row := []string{z.Name}
		for _, s := range subs {
			row = append(row, v.vsBaseline(v.get(s, z, op), z, op))
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = []string{ratioRule}
	return t
}

// opTable is ns/op per named size (rows) and subject (columns) for op;
// extra adds columns of other (subject, op) cases under a given title.
func opTable(v view, op, caption string, extra []column) *report.Table {
	t := &report.Table{Caption: caption, Header: []string{"size", "payload"}}
	var cols []column
	for _, s := range v.subjects {
		cols = append(cols, column{title: s, subject: s, op: op})
	}
	cols = append(cols, extra...)
	for _, c := range cols {
		t.Header = append(t.Header, c.title)
	}
	for _, z := range v.named {
		row := []string{z.Name, table.Int(float64(z.Bytes))}
		found := false
		for _, c := range cols {
			cs := v.get(c.subject, z, c.op)
			found = found || cs != nil
			row = append(row, table.TimeText(cs))
		}
		if found {
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// column is one subject's op shown under title.
type column struct{ title, subject, op string }

// outerOnlyColumns are the header reads of subjects whose header read is
// the outer-only unmarshal.
func outerOnlyColumns(v view) []column {
	var out []column
	for _, s := range v.subjects {
		if v.outerOnly[s] {
			out = append(out, column{title: s + " (outer only)", subject: s, op: OpHeader})
		}
	}
	return out
}

func renderMarshal(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	var blocks []report.Block
	for _, op := range []string{OpMarshal, OpMarshalReuse} {
		t := opTable(v, op, op+" (ns/op, median ±interval)", nil)
		if len(t.Rows) == 0 {
			continue
		}
		if op == OpMarshalReuse {
			t.Notes = []string{"Each subject encodes into a buffer (or Builder) it reuses from call to call; the result is valid until the next call."}
		}
		blocks = append(blocks, t)
		if r := ratioTable(v, op); r != nil {
			blocks = append(blocks, r)
		}
	}
	return blocks, nil
}

func renderUnmarshal(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	t := opTable(v, OpUnmarshal, "unmarshal, outer + inner for wrapped layouts (ns/op, median ±interval)", outerOnlyColumns(v))
	if len(t.Rows) == 0 {
		return nil, nil
	}
	t.Notes = []string{"\"(outer only)\" columns are the seed's WrappedUnmarshal: the outer message decoded, the inner left as bytes."}
	blocks := []report.Block{t}
	if r := ratioTable(v, OpUnmarshal); r != nil {
		blocks = append(blocks, r)
	}
	return blocks, nil
}

func renderHeader(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	t := opTable(v, OpHeader, "header-only read: id, topic_id, geography, publisher (ns/op, median ±interval)", nil)
	if len(t.Rows) == 0 {
		return nil, nil
	}
	blocks := []report.Block{t}
	if r := ratioTable(v, OpHeader); r != nil {
		blocks = append(blocks, r)
	}
	z, _ := v.largest()
	base := v.get(v.baseline, z, OpUnmarshal)
	d := &report.Table{
		Caption: fmt.Sprintf("header-only read at %s (%s B payload) against full unmarshal", z.Name, table.Int(float64(z.Bytes))),
		Header: []string{"subject", "header", "B/op / allocs/op", "own full unmarshal", "speed-up vs own unmarshal",
			"speed-up vs " + v.baseline + " unmarshal", fmt.Sprintf("target (≥%d×, ≤%d allocs)", targetSpeedup, targetAllocs)},
	}
	met, total := 0, 0
	for _, s := range v.subjects {
		h := v.get(s, z, OpHeader)
		if h == nil {
			continue
		}
		own := v.get(s, z, OpUnmarshal)
		verdict := "–"
		if x, ok := ratio(base, h); ok {
			a, _ := h.Median(results.UnitAllocsPerOp)
			total++
			if x >= targetSpeedup && a <= targetAllocs {
				verdict = "met"
				met++
			} else {
				verdict = "not met"
			}
		}
		d.Rows = append(d.Rows, []string{s, table.TimeText(h), memCell(h), table.TimeText(own),
			speedupCell(own, h), speedupCell(base, h), verdict})
	}
	d.Notes = []string{
		fmt.Sprintf("Speed-up = full unmarshal ns/op ÷ header ns/op (medians, same run). Goal: at the largest named size, the header-only read at least %d× faster than the full unmarshal of the flat protobuf message, with 0–%d allocs/op.", targetSpeedup, targetAllocs),
		"Readers that scan the wire form (protowire, msgp.Skip) or access fields in place (FlatBuffers) skip the payload without copying it and return strings aliasing the input; the outer-only unmarshal of the wrapped protobuf layouts copies the inner bytes, so its cost grows with the payload.",
	}
	blocks = append(blocks, d)
	if total > 0 {
		blocks = append(blocks, &report.Text{Body: fmt.Sprintf("At %s, %d of %d header-only readers meet the target.", z.Name, met, total)})
	}
	return blocks, nil
}

func renderSweep(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	var blocks []report.Block
	for _, op := range sweepOps {
		var extra []column
		if op == OpUnmarshal {
			extra = outerOnlyColumns(v)
		}
		if p := sweepPlot(run, v, op, extra); p != nil {
			blocks = append(blocks, p)
		}
	}
	if len(blocks) > 0 {
		var named []string
		for _, z := range v.named {
			named = append(named, z.Name+" = "+table.Int(float64(z.Bytes))+" B")
		}
		blocks = append(blocks, &report.Text{Body: fmt.Sprintf("Points are every payload size measured (%s – %s): the power-of-two sweep and the seed's named sizes (%s). Wrapped unmarshal is outer + inner; \"(outer only)\" lines are the seed's WrappedUnmarshal.",
			sizeText(v.bytes[0]), sizeText(v.bytes[len(v.bytes)-1]), strings.Join(named, ", "))})
	}
	return blocks, nil
}

func sweepPlot(run *results.Run, v view, op string, extra []column) *report.Plot {
	chart := table.LineChart{
		Title:  "envelope: " + op,
		XLabel: "payload", YLabel: "time per op",
		LogX: true, LogY: true, XFormat: table.Bytes, YFormat: table.Duration, BinaryX: true,
		Palette: table.RunPalette(run),
	}
	var cols []column
	for _, s := range v.subjects {
		cols = append(cols, column{title: s, subject: s, op: op})
	}
	for _, c := range append(cols, extra...) {
		ser := table.Series{Name: c.title}
		for _, b := range v.bytes {
			cs := v.at(c.subject, b, c.op)
			if cs == nil || !cs.OK() {
				continue
			}
			st, _ := cs.Stat(results.UnitNsPerOp)
			ser.X = append(ser.X, b)
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
	return &report.Plot{File: "envelope-" + op + ".svg", Caption: chart.Title + " — time per op against payload size, log-log; bars: the median's confidence interval", SVG: svg}
}

// crossPoints pairs the medians of flat (op fop) and wrapped (op wop) at
// every payload size where both were measured.
func crossPoints(v view, flat, fop, wrapped, wop string) []point {
	var pts []point
	for _, b := range v.bytes {
		f, w := v.at(flat, b, fop), v.at(wrapped, b, wop)
		if f == nil || w == nil || !f.OK() || !w.OK() {
			continue
		}
		fs, _ := f.Stat(results.UnitNsPerOp)
		ws, _ := w.Stat(results.UnitNsPerOp)
		pts = append(pts, point{bytes: b, flat: fs.Median, wrapped: ws.Median, overlap: fs.Lo <= ws.Hi && ws.Lo <= fs.Hi})
	}
	return pts
}

func renderCrossover(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	libs := v.pairs()
	if len(libs) == 0 {
		return nil, nil
	}
	var lines []string
	for _, lib := range libs {
		flat, wrapped := lib+"-flat", lib+"-wrapped"
		type cmp struct{ what, fop, wop string }
		cmps := []cmp{{lib + " marshal", OpMarshal, OpMarshal}}
		if v.outerOnly[wrapped] {
			cmps = append(cmps, cmp{lib + " unmarshal, wrapped (outer only, as in the seed)", OpUnmarshal, OpHeader})
		}
		cmps = append(cmps, cmp{lib + " unmarshal, wrapped (outer + inner)", OpUnmarshal, OpUnmarshal})
		for _, c := range cmps {
			lines = append(lines, "- "+findCrossover(crossPoints(v, flat, c.fop, wrapped, c.wop)).sentence(c.what))
		}
	}
	blocks := []report.Block{
		&report.Text{Body: strings.Join(lines, "\n")},
		&report.Text{Body: "The crossover is computed from the medians: the first payload size after the last one at which flat is not faster than wrapped. " +
			"The interpolated size is where the log of flat ÷ wrapped, linear in log size between those two points, reaches zero. " +
			"Where the confidence intervals of the two overlap, the order at that size is not established; a noisy machine can move the crossover. " +
			"The seed found wrapped faster below about 16 KiB and flat faster above, for marshal and for (outer-only) unmarshal."},
	}
	if t := allocTable(v, libs); t != nil {
		blocks = append(blocks, t)
	}
	return blocks, nil
}

// allocTable is the allocation drop of wrapped against flat unmarshal.
func allocTable(v view, libs []string) *report.Table {
	t := &report.Table{
		Caption: "unmarshal allocations (allocs/op): wrapped against flat",
		Header:  []string{"library", "size", "flat", "wrapped (outer only, as in the seed)", "change", "wrapped (outer + inner)", "change"},
	}
	for _, lib := range libs {
		flat, wrapped := lib+"-flat", lib+"-wrapped"
		for _, z := range v.named {
			f := v.get(flat, z, OpUnmarshal)
			if f == nil {
				continue
			}
			var o *results.Case
			if v.outerOnly[wrapped] {
				o = v.get(wrapped, z, OpHeader)
			}
			w := v.get(wrapped, z, OpUnmarshal)
			t.Rows = append(t.Rows, []string{lib, z.Name,
				unitCell(f, results.UnitAllocsPerOp, allocs),
				unitCell(o, results.UnitAllocsPerOp, allocs), allocChange(o, f),
				unitCell(w, results.UnitAllocsPerOp, allocs), allocChange(w, f)})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = []string{"Change = wrapped − flat allocs/op (medians). The seed saw 24 → 14 for the outer-only decode: the inner message's nested types are not decoded. msgp-wrapped has no outer-only decode (its header read is a map scan)."}
	return t
}

// allocChange is c's allocs/op minus base's, signed.
func allocChange(c, base *results.Case) string {
	if c == nil || base == nil || !c.OK() || !base.OK() {
		return "–"
	}
	a, _ := c.Median(results.UnitAllocsPerOp)
	b, _ := base.Median(results.UnitAllocsPerOp)
	d := a - b
	if d > 0 {
		return "+" + allocs(d)
	}
	return allocs(d)
}

func renderSize(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	t := &report.Table{Caption: "encoded envelope: bytes (+ bytes beyond the payload)", Header: append([]string{"size", "payload"}, v.subjects...)}
	for _, z := range v.named {
		row := []string{z.Name, table.Int(float64(z.Bytes))}
		for _, s := range v.subjects {
			row = append(row, sizeCell(v, s, z))
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return nil, nil
	}
	t.Notes = []string{"Wrapped sizes include the marshalled inner message as one bytes field of the outer message."}
	return []report.Block{t}, nil
}

// sizeCell is subject's serialized size at z, from any of its cases.
func sizeCell(v view, subject string, z ds.Size) string {
	for _, op := range namedOps {
		c := v.get(subject, z, op)
		if c == nil {
			continue
		}
		if !c.OK() {
			return table.FailedText
		}
		n, ok := c.Metrics[MetricSerialized]
		if !ok {
			continue
		}
		return fmt.Sprintf("%s (+%s)", table.Int(n), table.Int(n-float64(z.Bytes)))
	}
	return "–"
}

func renderMemory(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(run, cases)
	var blocks []report.Block
	for _, op := range namedOps {
		t := &report.Table{Caption: op + ": B/op / allocs/op", Header: append([]string{"size"}, v.subjects...)}
		for _, z := range v.named {
			row := []string{z.Name}
			found := false
			for _, s := range v.subjects {
				c := v.get(s, z, op)
				found = found || c != nil
				row = append(row, memCell(c))
			}
			if found {
				t.Rows = append(t.Rows, row)
			}
		}
		if len(t.Rows) > 0 {
			blocks = append(blocks, t)
		}
	}
	return blocks, nil
}

// Summary implements workload.Workload: at the largest named size (XLarge
// at default scale), each subject's marshal, unmarshal and header-only
// times, the header read's speed-up over the flat protobuf unmarshal and its
// allocations.
func (w *Workload) Summary(run *results.Run, cases []*results.Case) *table.Table {
	return report.Typed(w.summary(run, cases))
}

func (*Workload) summary(run *results.Run, cases []*results.Case) *report.Table {
	v := newView(run, cases)
	z, ok := v.largest()
	if !ok {
		return nil
	}
	base := v.get(v.baseline, z, OpUnmarshal)
	t := &report.Table{
		Caption: fmt.Sprintf("envelope: %s (%s B payload)", z.Name, table.Int(float64(z.Bytes))),
		Header:  []string{"subject", "marshal", "unmarshal", "header", "header vs " + v.baseline + " unmarshal", "header allocs/op"},
	}
	for _, s := range v.subjects {
		h := v.get(s, z, OpHeader)
		t.Rows = append(t.Rows, []string{s,
			table.TimeText(v.get(s, z, OpMarshal)), table.TimeText(v.get(s, z, OpUnmarshal)), table.TimeText(h),
			speedupCell(base, h), unitCell(h, results.UnitAllocsPerOp, allocs)})
	}
	return t
}

// ratio is slow's median ns/op divided by fast's.
func ratio(slow, fast *results.Case) (float64, bool) {
	if slow == nil || fast == nil || !slow.OK() || !fast.OK() {
		return 0, false
	}
	a, _ := slow.Median(results.UnitNsPerOp)
	b, _ := fast.Median(results.UnitNsPerOp)
	if a <= 0 || b <= 0 {
		return 0, false
	}
	return a / b, true
}

// speedupCell formats how many times faster fast is than slow.
func speedupCell(slow, fast *results.Case) string {
	x, ok := ratio(slow, fast)
	if !ok {
		return "–"
	}
	return table.Float(x) + "×"
}

// medianRatioCell formats c's median time as a multiple of ref's, for
// cases of different comparison groups (no in-round ratio between them).
func medianRatioCell(c, ref *results.Case) string {
	if c != nil && !c.OK() {
		return table.TimeText(c)
	}
	x, ok := ratio(c, ref)
	if !ok {
		return "–"
	}
	return table.Float(x) + "×"
}

// memCell formats B/op / allocs/op.
func memCell(c *results.Case) string {
	switch {
	case c == nil:
		return "–"
	case !c.OK():
		return table.FailedText
	}
	b, _ := c.Median(results.UnitBytesPerOp)
	a, _ := c.Median(results.UnitAllocsPerOp)
	return table.Int(b) + " / " + allocs(a)
}

// allocs formats an allocs/op median: whole numbers without decimals.
func allocs(v float64) string {
	if v == math.Trunc(v) {
		return table.Int(v)
	}
	return table.Float(v)
}

// unitCell is the median of unit written by f, marked with its sample
// count; FAILED or "–" for a case failed or absent.
func unitCell(c *results.Case, unit string, f func(float64) string) string {
	cell := table.Median(c, unit, table.Plain)
	if cell.Kind != table.Value {
		return cell.String()
	}
	cell.Format = table.Plain
	return f(cell.V) + strings.TrimPrefix(cell.String(), table.Float(cell.V))
}
