package records

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/serbench/serbench/filebench"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// Sections implements workload.Workload: the seed's tables (combined,
// file size, write, read, compression by algorithm, trade-offs,
// recommendations), the size-vs-time scatter with its Pareto frontier, the
// limit rows, the harness-overhead check and the anomalies found in the data.
func (*Workload) Sections() []report.Section {
	s := sections{Name}
	out := []report.Section{
		{Workload: Name, Title: "Findings", Render: s.renderFindings},
		{Workload: Name, Title: "Method", Render: s.renderMethod},
	}
	out = append(out, FileSections(Name)...)
	return append(out,
		report.Section{Workload: Name, Title: "Harness overhead: pipeline vs a bare loop", Render: s.renderBare},
		report.Section{Workload: Name, Title: "The seed's anomaly: an unbuffered write", Render: s.renderUnbuffered},
		AnomaliesSection(Name),
	)
}

// FileSections returns the report sections that any file workload shares
// with records, for the workload named workloadName: combined size and
// time, file size, write, read against its floors, compression by
// algorithm, the size-vs-time scatter with its Pareto frontier, and the top
// performers with the use-case recommendations (records' rules). The
// workload's cases must carry records' labels (subject, codec, op), ops and
// metrics (MetricFile, MetricRecords, MetricPeakHeap); its format
// descriptors records' tags (TagCompresses, TagRandomAccess, text).
func FileSections(workloadName string) []report.Section {
	s := sections{workloadName}
	return []report.Section{
		{Workload: workloadName, Title: "Combined size & performance", Render: s.renderCombined},
		{Workload: workloadName, Title: "File size", Render: s.renderSize},
		{Workload: workloadName, Title: "Write performance", Render: s.renderWrite},
		{Workload: workloadName, Title: "Read performance, against the read-bytes and decompress-only floors", Render: s.renderRead},
		{Workload: workloadName, Title: "Compression by algorithm", Render: s.renderByCodec},
		{Workload: workloadName, Title: "Speed vs compression trade-offs", Render: s.renderTradeoffs},
		{Workload: workloadName, Title: "Top performers and recommendations", Render: s.renderRecommendations},
	}
}

// AnomaliesSection returns the section listing the remarkable facts of a
// file workload's run (see FileSections): slow uncompressed writes, reads
// far slower than writes, disagreeing samples and failed cases.
func AnomaliesSection(workloadName string) report.Section {
	return report.Section{Workload: workloadName, Title: "Anomalies found in this run", Render: sections{workloadName}.renderAnomalies}
}

// sections renders the report sections of one file workload (records or
// another workload with the same labels, ops and metrics).
type sections struct{ workload string }

// fmtInfo is what the reports need to know of a format, read from the
// descriptor the run recorded.
type fmtInfo struct {
	results.Descriptor
	// Compresses: the format compresses its data itself; RandomAccess: it
	// reads a footer first. Either combines with codec none only.
	Compresses, RandomAccess, Text bool
}

// StreamOnly reports whether the format combines with an outer codec.
func (f fmtInfo) StreamOnly() bool { return !f.Compresses && !f.RandomAccess }

// formatInfo returns what the run recorded of its subjects by name. A
// results file from before descriptors were recorded yields an empty map:
// its report then omits what it cannot know.
func formatInfo(run *results.Run, workload string) map[string]fmtInfo {
	out := map[string]fmtInfo{}
	for _, d := range run.Descriptors {
		if d.Workload != workload || d.Key != LabelFormat {
			continue
		}
		out[d.Name] = fmtInfo{Descriptor: d,
			Compresses:   slices.Contains(d.Tags, TagCompresses),
			RandomAccess: slices.Contains(d.Tags, TagRandomAccess),
			Text:         slices.Contains(d.Tags, format.LabelText)}
	}
	return out
}

// row is one format × codec (× variant) pair and its cases.
type row struct {
	format, codec, variant string
	write, read            *results.Case
	readBytes, decompress  *results.Case
	plain                  *row // the same format uncompressed; nil if unknown
	desc                   fmtInfo
}

func (r *row) subject() string {
	s := r.format + " + " + r.codec
	if r.variant != "" {
		s += " (" + r.variant + ")"
	}
	return s
}

// any returns one of the row's cases that carries the file metrics.
func (r *row) any() *results.Case {
	for _, c := range []*results.Case{r.write, r.read, r.readBytes, r.decompress} {
		if c != nil && c.Metrics[MetricFile] > 0 {
			return c
		}
	}
	return nil
}

func (r *row) fileB() float64 {
	if c := r.any(); c != nil {
		return c.Metrics[MetricFile]
	}
	return 0
}

func (r *row) records() float64 {
	if c := r.any(); c != nil {
		return c.Metrics[MetricRecords]
	}
	return 0
}

// ok reports whether both the write and the read succeeded.
func (r *row) ok() bool { return r.write != nil && r.write.OK() && r.read != nil && r.read.OK() }

func median(c *results.Case) float64 {
	if c == nil || !c.OK() {
		return math.NaN()
	}
	v, ok := c.Median(results.UnitNsPerOp)
	if !ok {
		return math.NaN()
	}
	return v
}

// perRecord is a case's median time per record of the row.
func (r *row) perRecord(c *results.Case) float64 {
	n := r.records()
	if n == 0 {
		return math.NaN()
	}
	return median(c) / n
}

func (r *row) totalNs() float64 { return median(r.write) + median(r.read) }

func (r *row) saved() float64 {
	if r.plain == nil || r.plain.fileB() == 0 || r.fileB() == 0 {
		return math.NaN()
	}
	return 1 - r.fileB()/r.plain.fileB()
}

func (r *row) point() point {
	p := point{Format: r.format, Codec: r.codec, WriteNs: median(r.write), ReadNs: median(r.read), FileB: r.fileB(),
		Text: r.desc.Text, RandomAccess: r.desc.RandomAccess}
	if r.plain != nil {
		p.PlainB, p.Base = r.plain.fileB(), r.plain.format
	}
	return p
}

// view holds a run's rows: the format × codec matrix, the bare loops and the
// unbuffered variant.
type view struct {
	rows       []*row // the matrix, in run order
	bares      []*row
	unbuffered *row
	failed     []*results.Case
	codecs     []string
	records    float64
}

func newView(workload string, run *results.Run, cases []*results.Case) *view {
	info := formatInfo(run, workload)
	v := &view{}
	byKey := map[string]*row{}
	var order []*row
	for _, c := range cases {
		if !c.OK() {
			v.failed = append(v.failed, c)
		}
		f, cd, vr := c.Labels.Get(LabelFormat), c.Labels.Get(LabelCodec), c.Labels.Get(LabelVariant)
		key := f + "\x00" + cd + "\x00" + vr
		r := byKey[key]
		if r == nil {
			r = &row{format: f, codec: cd, variant: vr, desc: info[f]}
			byKey[key] = r
			order = append(order, r)
		}
		switch c.Labels.Get(LabelOp) {
		case OpWrite:
			r.write = c
		case OpRead:
			r.read = c
		case OpReadBytes:
			r.readBytes = c
		case OpDecompress:
			r.decompress = c
		}
	}
	seen := map[string]bool{}
	for _, r := range order {
		switch {
		case r.format == BareSubject || r.format == BareMsgpSubject:
			v.bares = append(v.bares, r)
			continue
		case r.variant == VariantUnbuffered:
			v.unbuffered = r
			continue
		case r.variant != "":
			continue
		}
		v.rows = append(v.rows, r)
		if !seen[r.codec] {
			seen[r.codec] = true
			v.codecs = append(v.codecs, r.codec)
		}
		if n := r.records(); n > v.records {
			v.records = n
		}
	}
	for _, r := range append(append([]*row{}, v.rows...), v.unbuffered) {
		if r != nil {
			r.plain = byKey[plainKey(r, info)]
		}
	}
	return v
}

// plainKey names the row a pair's savings are measured against: the same
// format with codec none, or — for a format that compresses itself — its
// uncompressed sibling (parquet-zstd → parquet-none, avro-ocf-deflate →
// avro-ocf, arrow-file-lz4 → arrow-file).
func plainKey(r *row, info map[string]fmtInfo) string {
	if !r.desc.Compresses {
		return r.format + "\x00none\x00"
	}
	name := r.format
	for {
		i := strings.LastIndex(name, "-")
		if i < 0 {
			return r.format + "\x00none\x00"
		}
		name = name[:i]
		for _, cand := range []string{name, name + "-none"} {
			if d, ok := info[cand]; ok && !d.Compresses {
				return cand + "\x00none\x00"
			}
		}
	}
}

// points returns the rows whose write and read both succeeded, as points,
// with the rows they came from.
func (v *view) points() ([]point, []*row) {
	var pts []point
	var rows []*row
	for _, r := range v.rows {
		if r.ok() {
			pts = append(pts, r.point())
			rows = append(rows, r)
		}
	}
	return pts, rows
}

func sizeCell(r *row) string {
	if r.fileB() == 0 {
		return "–"
	}
	return report.MiB(r.fileB())
}

func (s sections) renderMethod(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(s.workload, run, cases)
	if len(v.rows) == 0 {
		return nil, nil
	}
	info := formatInfo(run, s.workload)
	ft := &report.Table{Caption: "Formats", Header: []string{"format", "library", "kind", "outer codecs", "detail"}}
	for _, f := range report.Distinct(cases, LabelFormat) {
		d, ok := info[f]
		if !ok {
			continue
		}
		outer := "all"
		if !d.StreamOnly() {
			outer = "none only (compresses itself or needs random access)"
		}
		ft.Rows = append(ft.Rows, []string{f, d.Library(), strings.Join(d.Tags, ", "), outer, d.What})
	}
	ct := &report.Table{Caption: "Codecs (default level)", Header: []string{"codec", "library", "level", "detail"}}
	for _, name := range v.codecs {
		d := run.Descriptor(s.workload, LabelCodec, name)
		if d == nil {
			ct.Rows = append(ct.Rows, []string{name, "–", "–", "–"})
			continue
		}
		level := d.Settings["level"]
		if level == "" {
			level = "–"
		}
		ct.Rows = append(ct.Rows, []string{name, orDash(d.Library()), level, d.What})
	}
	counts := map[int]int{}
	for _, c := range cases {
		if c.OK() {
			counts[len(c.Samples)]++
		}
	}
	var ns []int
	for n := range counts {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	var cs []string
	for _, n := range ns {
		cs = append(cs, fmt.Sprintf("%d cases with n=%d", counts[n], n))
	}
	text := &report.Text{Body: fmt.Sprintf(
		"The %s records are generated once, before any timing, and held in memory in a packed table without pointers (16 bytes a record and one shared string of emails), so the collector does not mark them record by record during timed ops; each record is unpacked into a reused value as it is encoded. Each write streams them through the format's encoder, the codec and a %s buffer into a real file in the temp directory; "+
			"each read streams the file back (read → decompress → decode) and checks every record against the source records (that check is part of the timed read). "+
			"Before a write is timed, the pair round-trips its first %s records (all of them when fewer) through a scratch file; every timed read verifies every record of the full file, and a pair whose read fails is left out of every ranking. "+
			"Times are medians of n samples (one op per sample, a GC before each; a case's first run counts as its first sample, and no new sample starts once a case has spent %s sampling, so slow ops have n=1 or 2); "+
			"total = write + read. MB/s counts the format's encoded stream (its bytes before compression) for write, read and decompress, and the file's bytes for read-bytes. "+
			"Peak heap is the largest growth of the heap in use over its level at the start of the op, sampled on the op's own goroutine every %s records (every buffer for the limit rows) and at the end of each stage. "+
			"read-bytes (the file's bytes into a buffer, nothing else) and decompress (read + decompress, no decoding) are limit rows, the floors under each read. "+
			"Samples: %s.",
		report.Int(v.records), report.Bytes(filebench.DefaultBufferSize), report.Int(verifyRecords), report.Duration(float64(budget)), report.Int(filebench.SampleEvery),
		strings.Join(cs, ", "))}
	return []report.Block{text, ft, ct}, nil
}

func (s sections) renderCombined(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(s.workload, run, cases)
	if len(v.rows) == 0 {
		return nil, nil
	}
	t := &report.Table{
		Caption: fmt.Sprintf("%s records: file size, write, read and total time (seconds, medians)", report.Int(v.records)),
		Header:  []string{"format", "codec", "size (MiB)", "write (s)", "read (s)", "total (s)", "% saved"},
	}
	for _, r := range v.rows {
		total := "–"
		if r.write != nil && r.read != nil {
			total = report.Seconds(r.totalNs())
		}
		t.Rows = append(t.Rows, []string{r.format, r.codec, sizeCell(r), secsCell(r.write), secsCell(r.read), total, report.PctOrDash(r.saved())})
	}
	t.Notes = []string{"% saved = 1 − file ÷ the same format uncompressed (codec none; for a format that compresses itself, its uncompressed sibling: parquet-none, avro-ocf, arrow-file)."}
	return []report.Block{t}, nil
}

func secsCell(c *results.Case) string {
	if c == nil {
		return "–"
	}
	return report.Seconds(median(c))
}

func (s sections) renderSize(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(s.workload, run, cases)
	if len(v.rows) == 0 {
		return nil, nil
	}
	t := &report.Table{Header: []string{"format", "codec", "size (bytes)", "size (MiB)", "bytes/record", "% saved", "vs plain"}}
	for _, r := range v.rows {
		size := r.fileB()
		if size == 0 {
			t.Rows = append(t.Rows, []string{r.format, r.codec, report.Failed, "–", "–", "–", "–"})
			continue
		}
		vs := "–"
		if r.plain != nil && r.plain != r && r.plain.fileB() > 0 {
			vs = report.Times(r.plain.fileB()/size) + " smaller"
		}
		t.Rows = append(t.Rows, []string{r.format, r.codec, report.Int(size), report.MiB(size), report.Float(size / r.records()), report.PctOrDash(r.saved()), vs})
	}
	t.Notes = []string{"Sizes are measured on disk after each write. vs plain = the same format uncompressed ÷ this file."}
	return []report.Block{t}, nil
}

// sortedByTime returns rows with a case for op sorted by median time,
// failed ones last.
func sortedByTime(rows []*row, pick func(*row) *results.Case) []*row {
	var out []*row
	for _, r := range rows {
		if pick(r) != nil {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := median(pick(out[i])), median(pick(out[j]))
		if math.IsNaN(a) != math.IsNaN(b) {
			return !math.IsNaN(a)
		}
		return a < b
	})
	return out
}

func recsPerSec(c *results.Case, n float64) string {
	t := median(c)
	if math.IsNaN(t) || t == 0 {
		return "–"
	}
	return report.Int(n / (t / 1e9))
}

func heapCell(c *results.Case) string {
	if c == nil || !c.OK() {
		return "–"
	}
	h, ok := c.Median(MetricPeakHeap)
	if !ok {
		return "–"
	}
	return report.Bytes(h)
}

func vsFastest(c *results.Case, fastest float64) string {
	t := median(c)
	if math.IsNaN(t) || !(fastest > 0) {
		return "–"
	}
	return report.Times(t / fastest)
}

func (s sections) renderWrite(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(s.workload, run, cases)
	rows := sortedByTime(v.rows, func(r *row) *results.Case { return r.write })
	if len(rows) == 0 {
		return nil, nil
	}
	fastest := median(rows[0].write)
	t := &report.Table{
		Caption: fmt.Sprintf("Write %s records (fastest first)", report.Int(v.records)),
		Header:  []string{"format", "codec", "time", "records/s", "MB/s", "peak heap", "vs fastest"},
	}
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{r.format, r.codec, report.TimeCell(r.write), recsPerSec(r.write, r.records()),
			report.UnitCell(r.write, results.UnitMBPerS, report.Float), heapCell(r.write), vsFastest(r.write, fastest)})
	}
	t.Notes = []string{"records/s = records ÷ median time; MB/s counts the encoded stream before compression; vs fastest = time ÷ the fastest write's time."}
	return []report.Block{t}, nil
}

func (s sections) renderRead(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(s.workload, run, cases)
	rows := sortedByTime(v.rows, func(r *row) *results.Case { return r.read })
	if len(rows) == 0 {
		return nil, nil
	}
	fastest := median(rows[0].read)
	t := &report.Table{
		Caption: fmt.Sprintf("Read and verify %s records (fastest first)", report.Int(v.records)),
		Header:  []string{"format", "codec", "time", "records/s", "MB/s", "peak heap", "vs fastest", "read-bytes floor", "decompress floor", "× floor"},
	}
	for _, r := range rows {
		floor := r.decompress
		if floor == nil {
			floor = r.readBytes
		}
		x := "–"
		if f := median(floor); f > 0 {
			x = report.Times(median(r.read) / f)
		}
		dec := "–"
		if r.decompress != nil {
			dec = report.TimeCell(r.decompress)
		}
		t.Rows = append(t.Rows, []string{r.format, r.codec, report.TimeCell(r.read), recsPerSec(r.read, r.records()),
			report.UnitCell(r.read, results.UnitMBPerS, report.Float), heapCell(r.read), vsFastest(r.read, fastest),
			report.TimeCell(r.readBytes), dec, x})
	}
	t.Notes = []string{
		"read-bytes: the file's bytes read into a buffer and discarded; decompress: read and decompress, no decoding (codec none has none). " +
			"× floor = read time ÷ the decompress-only time (read-bytes for codec none): how much of the read the decoder and verification cost. " +
			"The files were just written, so reads come from the page cache, as they would for a file read back soon after writing.",
	}
	return []report.Block{t}, nil
}

// geomean returns the geometric mean of xs (NaN when empty).
func geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

func (s sections) renderByCodec(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(s.workload, run, cases)
	t := &report.Table{Header: []string{"codec", "formats", "average % saved", "best format", "its size (MiB)", "its % saved", "write cost", "read cost"}}
	for _, cd := range v.codecs {
		if cd == "none" {
			continue
		}
		var saved, wcost, rcost []float64
		var best *row
		n := 0
		for _, r := range v.rows {
			if r.codec != cd || !r.ok() {
				continue
			}
			n++
			if s := r.saved(); !math.IsNaN(s) {
				saved = append(saved, s)
			}
			if best == nil || r.fileB() < best.fileB() {
				best = r
			}
			if r.plain != nil && r.plain.ok() {
				wcost = append(wcost, median(r.write)/median(r.plain.write))
				rcost = append(rcost, median(r.read)/median(r.plain.read))
			}
		}
		if best == nil {
			continue
		}
		var avg float64
		for _, s := range saved {
			avg += s
		}
		avg /= float64(len(saved))
		t.Rows = append(t.Rows, []string{cd, strconv.Itoa(n), report.PctOrDash(avg), best.format, report.MiB(best.fileB()), report.PctOrDash(best.saved()),
			report.Times(geomean(wcost)), report.Times(geomean(rcost))})
	}
	if len(t.Rows) == 0 {
		return nil, nil
	}
	sort.SliceStable(t.Rows, func(i, j int) bool { return pctVal(t.Rows[i][2]) > pctVal(t.Rows[j][2]) })
	t.Notes = []string{"Outer codecs only, over the formats whose write and read both succeeded, most compressing first. " +
		"average % saved = arithmetic mean over those formats; write cost and read cost = geometric mean over them of the time with the codec ÷ the same format's time with codec none (1× = free, below 1× = faster than uncompressed)."}
	return []report.Block{t}, nil
}

func pctVal(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return math.Inf(-1)
	}
	return f
}

func (s sections) renderTradeoffs(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(s.workload, run, cases)
	pts, rows := v.points()
	if len(pts) == 0 {
		return nil, nil
	}
	var rp []report.Point
	for _, p := range pts {
		rp = append(rp, report.Point{X: p.FileB, Y: p.TotalNs(), Label: p.Subject()})
	}
	var blocks []report.Block
	chart := report.ScatterChart{
		Title:  fmt.Sprintf("%s: file size against write + read time, %s records", s.workload, report.Int(v.records)),
		XLabel: "file size", YLabel: "write + read",
		LogX: true, LogY: true, XFormat: report.Bytes, YFormat: report.Duration, BinaryX: true,
		Points: rp, Frontier: true,
	}
	if svg, err := chart.SVG(); err == nil {
		blocks = append(blocks, &report.Plot{File: s.workload + "-size-vs-time.svg", Caption: chart.Title + " — log-log; the line joins the Pareto frontier", SVG: svg})
	}
	t := &report.Table{
		Caption: "The Pareto frontier: no other pair is both smaller and faster (smallest file first)",
		Header:  []string{"format", "codec", "size (MiB)", "write (s)", "read (s)", "total (s)", "% saved"},
	}
	for _, i := range report.ParetoFront(rp) {
		r := rows[i]
		t.Rows = append(t.Rows, []string{r.format, r.codec, report.MiB(r.fileB()), report.Seconds(median(r.write)), report.Seconds(median(r.read)), report.Seconds(r.totalNs()), report.PctOrDash(r.saved())})
	}
	sort.SliceStable(t.Rows, func(i, j int) bool { return report.Number(t.Rows[i][2]) < report.Number(t.Rows[j][2]) })
	t.Notes = []string{"Every pair off this list is beaten on both size and round-trip time by one on it."}
	return append(blocks, t), nil
}

// tradeoff describes a point's other costs in a few words.
func tradeoff(p point) string {
	return fmt.Sprintf("%s MiB, %s s total (write %s, read %s)", report.MiB(p.FileB), report.Seconds(p.TotalNs()), report.Seconds(p.WriteNs), report.Seconds(p.ReadNs))
}

func (s sections) renderRecommendations(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(s.workload, run, cases)
	pts, _ := v.points()
	if len(pts) == 0 {
		return nil, nil
	}
	top := &report.Table{Caption: "Quick reference: top performers", Header: []string{"metric", "pair", "value", "trade-off", "rule"}}
	for _, r := range topRules() {
		i := r.Pick(pts)
		if i < 0 {
			top.Rows = append(top.Rows, []string{r.Name, "none qualifies", "–", "–", r.Rule})
			continue
		}
		p := pts[i]
		var val string
		switch r.Name {
		case "Fastest write":
			val = report.Seconds(p.WriteNs) + " s"
		case "Fastest read":
			val = report.Seconds(p.ReadNs) + " s"
		case "Smallest file":
			val = report.MiB(p.FileB) + " MiB"
		default:
			val = report.Seconds(p.TotalNs()) + " s"
		}
		top.Rows = append(top.Rows, []string{r.Name, p.Subject(), val, tradeoff(p) + savedNote(p), r.Rule})
	}
	uc := &report.Table{Caption: "Recommendations by use case", Header: []string{"use case", "recommendation", "figures", "rule"}}
	for _, r := range useCaseRules() {
		i := r.Pick(pts)
		if i < 0 {
			uc.Rows = append(uc.Rows, []string{r.Name, "none qualifies", "–", r.Rule})
			continue
		}
		uc.Rows = append(uc.Rows, []string{r.Name, pts[i].Subject(), tradeoff(pts[i]) + savedNote(pts[i]), r.Rule})
	}
	uc.Notes = []string{"Chosen by the stated rule from this run's medians among the pairs whose write and read both succeeded; on another machine the picks may differ."}
	return []report.Block{top, uc}, nil
}

func savedNote(p point) string {
	if s := p.Saved(); !math.IsNaN(s) && s > 0 {
		return ", " + report.Pct(s) + " saved"
	}
	return ""
}

func (s sections) renderBare(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(s.workload, run, cases)
	if len(v.bares) == 0 {
		return nil, nil
	}
	t := &report.Table{
		Caption: "Each sample runs the hand-written loop and the pipeline (format and codec interfaces, counting, heap sampling) once each, alternating which goes first, from a collected heap; the ratio is taken within each sample",
		Header:  []string{"write", "bare loop", "pipeline", "pipeline ÷ bare (median, interval)", "samples", "verdict"},
	}
	var lines []string
	for _, r := range v.bares {
		c := r.write
		if c == nil {
			continue
		}
		name := r.format + " vs " + strings.TrimSuffix(r.format, "-bare") + " + " + r.codec
		if !c.OK() {
			t.Rows = append(t.Rows, []string{name, report.Failed, "–", "–", "–", c.Error})
			continue
		}
		pipe, ok1 := c.Stat(MetricPipelineNs)
		x, ok2 := c.Stat(MetricPipelineRatio)
		if !ok1 || !ok2 {
			continue
		}
		verdict := "within the 10% target"
		switch {
		case x.Median > 1.10:
			verdict = "OVER the 10% target"
		case x.Hi > 1.10:
			verdict = "within the 10% target (median); the interval reaches past it"
		}
		t.Rows = append(t.Rows, []string{name, report.TimeCell(c), report.Duration(pipe.Median),
			fmt.Sprintf("%s [%s … %s]", report.Times(x.Median), report.Times(x.Lo), report.Times(x.Hi)), strconv.Itoa(x.N), verdict})
		lines = append(lines, fmt.Sprintf("%s: the pipeline takes %s against the bare loop's time (median of %d paired samples; interval %s … %s at %s confidence).",
			name, report.SignedPct(x.Median-1), x.N, report.SignedPct(x.Lo-1), report.SignedPct(x.Hi-1), report.Pct(x.Confidence)))
	}
	if len(t.Rows) == 0 {
		return nil, nil
	}
	t.Notes = []string{"The two loops are the slowest-per-byte kind of write measured here (text + compression) and the fastest (generated code, no compression), where a fixed cost per record would weigh most. The read path has the same layers (format and codec interfaces, counting, heap sampling)."}
	blocks := []report.Block{t}
	if len(lines) > 0 {
		blocks = append(blocks, &report.Text{Body: "- " + strings.Join(lines, "\n- ")})
	}
	return blocks, nil
}

func (s sections) renderUnbuffered(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(s.workload, run, cases)
	u := v.unbuffered
	if u == nil || u.write == nil {
		return nil, nil
	}
	var buffered *row
	var fastestComp *row
	for _, r := range v.rows {
		if r.format != u.format || r.write == nil || !r.write.OK() {
			continue
		}
		if r.codec == u.codec {
			buffered = r
		} else if fastestComp == nil || median(r.write) < median(fastestComp.write) {
			fastestComp = r
		}
	}
	t := &report.Table{Header: []string{"write", "records", "time", "records/s", "time per record vs buffered"}}
	base := math.NaN()
	add := func(name string, r *row) {
		t.Rows = append(t.Rows, []string{name, report.Int(r.records()), report.TimeCell(r.write), recsPerSec(r.write, r.records()), report.Times(r.perRecord(r.write) / base)})
	}
	if buffered != nil {
		base = buffered.perRecord(buffered.write)
		add(buffered.subject()+", buffered", buffered)
	}
	add(u.subject(), u)
	if fastestComp != nil {
		add(fastestComp.subject()+" (fastest compressed write)", fastestComp)
	}
	body := "The seed measured MsgPack Plain at 22 s to write and under a second with every compressor. " +
		"Its harness handed the encoder's output straight to the file: every small write the encoder makes (a key, a value) became a system call. " +
		"A compressor buffers internally, so the compressed variants hid the missing buffer. " +
		"Here the same write is run on purpose without any buffer (filebench's Unbuffered option) next to the standard buffered pipeline. " +
		"Its cost is one system call per encoder write, linear in the records, so it runs on the first records only and is compared per record."
	if buffered != nil && u.write.OK() {
		body += fmt.Sprintf(" In this run the unbuffered write takes %s the buffered one per record", report.Times(u.perRecord(u.write)/base))
		if fastestComp != nil {
			body += fmt.Sprintf(" and %s the fastest compressed write (%s)", report.Times(u.perRecord(u.write)/fastestComp.perRecord(fastestComp.write)), fastestComp.subject())
		}
		if u.records() < buffered.records() {
			body += fmt.Sprintf("; at the full %s records that would be about %s", report.Int(buffered.records()), report.Duration(u.perRecord(u.write)*buffered.records()))
		}
		body += "."
	}
	return []report.Block{&report.Text{Body: body}, t}, nil
}

// Anomaly thresholds.
const (
	readOverWrite = 10.0
	spreadLimit   = 1.5
	// maxSpreadLines caps the cases listed by name for disagreeing samples
	// (the widest first).
	maxSpreadLines = 10
)

// anomalies lists the remarkable facts of a run, each computed from the
// data.
func anomalies(v *view) []string {
	var out []string
	all := append(append([]*row{}, v.rows...), v.unbuffered)
	all = append(all, v.bares...)
	// An uncompressed write slower than a compressed one of the same format.
	for _, r := range append(append([]*row{}, v.rows...), v.unbuffered) {
		if r == nil || r.codec != "none" || r.write == nil || !r.write.OK() {
			continue
		}
		var best *row
		for _, o := range v.rows {
			if o.format == r.format && o.codec != "none" && o.write != nil && o.write.OK() &&
				(best == nil || median(o.write) < median(best.write)) {
				best = o
			}
		}
		if best != nil && r.perRecord(r.write) > best.perRecord(best.write) {
			out = append(out, fmt.Sprintf("%s writes slower uncompressed (%s per record) than with %s (%s per record): %s — more bytes to move than the compressor costs, or a missing buffer.",
				r.subject(), report.Duration(r.perRecord(r.write)), best.codec, report.Duration(best.perRecord(best.write)), report.Times(r.perRecord(r.write)/best.perRecord(best.write))))
		}
	}
	for _, r := range all {
		if r == nil || !r.ok() {
			continue
		}
		if x := median(r.read) / median(r.write); x >= readOverWrite {
			out = append(out, fmt.Sprintf("%s reads %s slower than it writes (%s vs %s).", r.subject(), report.Times(x), report.Duration(median(r.read)), report.Duration(median(r.write))))
		}
	}
	noisy := 0
	type disagree struct {
		x    float64
		text string
	}
	var spreads []disagree
	for _, r := range all {
		if r == nil {
			continue
		}
		for _, c := range []*results.Case{r.write, r.read, r.readBytes, r.decompress} {
			if c == nil || !c.OK() {
				continue
			}
			if c.Noisy && len(c.Samples) > 1 {
				noisy++
			}
			if lo, hi, ok := spread(c); ok && hi/lo > spreadLimit {
				spreads = append(spreads, disagree{hi / lo, fmt.Sprintf("%s %s: samples disagree, slowest ÷ fastest = %s over %d samples (%s … %s).",
					r.subject(), c.Labels.Get(LabelOp), report.Times(hi/lo), len(c.Samples), report.Duration(lo), report.Duration(hi))})
			}
		}
	}
	sort.SliceStable(spreads, func(i, j int) bool { return spreads[i].x > spreads[j].x })
	for i, d := range spreads {
		if i == maxSpreadLines {
			out = append(out, fmt.Sprintf("%d more cases whose slowest sample is over %.1f× their fastest.", len(spreads)-i, spreadLimit))
			break
		}
		out = append(out, d.text)
	}
	if noisy > 0 {
		out = append(out, fmt.Sprintf("%d cases have a confidence interval wider than ±%.0f%% of the median (marked noisy in the tables).", noisy, results.NoiseThreshold*100))
	}
	for _, c := range v.failed {
		out = append(out, fmt.Sprintf("FAILED %s: %s", strings.TrimPrefix(c.FullName(), c.Name+"/"), c.Error))
	}
	return out
}

// spread returns the fastest and slowest sample of a case with at least two.
func spread(c *results.Case) (lo, hi float64, ok bool) {
	if len(c.Samples) < 2 {
		return 0, 0, false
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range c.Samples {
		lo, hi = min(lo, s.NsPerOp), max(hi, s.NsPerOp)
	}
	return lo, hi, lo > 0
}

func (s sections) renderAnomalies(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := newView(s.workload, run, cases)
	if len(v.rows) == 0 && len(v.bares) == 0 && v.unbuffered == nil {
		return nil, nil
	}
	list := anomalies(v)
	if len(list) == 0 {
		return []report.Block{&report.Text{Body: "None: no uncompressed write slower than a compressed one, no read ≥ 10× its write, no samples more than 1.5× apart, no failed case."}}, nil
	}
	return []report.Block{
		&report.Text{Body: "- " + strings.Join(list, "\n- ")},
		&report.Text{Body: fmt.Sprintf("Checked: an uncompressed write slower than a compressed write of the same format; a read ≥ %.0f× slower than its write; a case whose slowest sample is more than %.1f× its fastest; failed cases (never timed or ranked).", readOverWrite, spreadLimit)},
	}, nil
}

// Summary implements workload.Workload: the fastest pairs by round trip
// with their size, then the use-case recommendations.
func (*Workload) Summary(run *results.Run, cases []*results.Case) *report.Table {
	return FileSummary(Name, run, cases)
}

// FileSummary condenses a file workload's cases (see FileSections) for the
// terminal: the fastest pairs by round trip with their size, then the
// use-case recommendations.
func FileSummary(workloadName string, run *results.Run, cases []*results.Case) *report.Table {
	v := newView(workloadName, run, cases)
	pts, _ := v.points()
	if len(pts) == 0 {
		return nil
	}
	idx := make([]int, len(pts))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return pts[idx[a]].TotalNs() < pts[idx[b]].TotalNs() })
	t := &report.Table{
		Caption: fmt.Sprintf("%s: %s records, fastest round trips (write + read) and recommendations", workloadName, report.Int(v.records)),
		Header:  []string{"", "pair", "total", "write", "read", "size"},
	}
	for k, i := range idx[:min(8, len(idx))] {
		p := pts[i]
		t.Rows = append(t.Rows, []string{strconv.Itoa(k + 1), p.Subject(), report.Duration(p.TotalNs()), report.Duration(p.WriteNs), report.Duration(p.ReadNs), report.Bytes(p.FileB)})
	}
	for _, r := range append(topRules()[3:], useCaseRules()...) {
		i := r.Pick(pts)
		if i < 0 {
			continue
		}
		p := pts[i]
		t.Rows = append(t.Rows, []string{strings.ToLower(r.Name), p.Subject(), report.Duration(p.TotalNs()), report.Duration(p.WriteNs), report.Duration(p.ReadNs), report.Bytes(p.FileB)})
	}
	return t
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
