package filecase

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// FileSections returns the report sections every file workload shares, for
// the workload named workloadName: combined size and time, file size,
// write, read against its floors, compression by algorithm, the
// size-vs-time scatter with its Pareto frontier, and the top performers
// with the use-case recommendations (the rules of rules.go, records'). The
// workload's cases must carry this package's labels (subject, codec, op),
// ops and metrics (MetricFile, MetricRecords, MetricPeakHeap); its format
// descriptors its tags (TagCompresses, TagRandomAccess, text).
func FileSections(workloadName string) []report.Section {
	return FileSectionsRef(workloadName, nil)
}

// SizeRef is a reference row of the file size table: a file every pair's
// size reads against (the data workload's input, as the user has it).
type SizeRef struct {
	// Name is the file's name; What says what it is ("your file: csv,
	// gzip").
	Name, What string
	// Bytes is its size on disk.
	Bytes float64
	// Records is the rows it holds, when they are the rows the pairs were
	// written from (0 otherwise: bytes/record then unknown).
	Records float64
	// Partial says the pairs hold only part of its rows (a row limit or a
	// sample): their sizes do not compare with it. Why says why.
	Partial bool
	Why     string
}

// FileSectionsRef is FileSections with ref, if not nil, giving the file
// size table a reference row and a "vs <ref>" column, from the results.
func FileSectionsRef(workloadName string, ref func(*results.Run) *SizeRef) []report.Section {
	s := sections{workloadName, ref}
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
	return report.Section{Workload: workloadName, Title: "Anomalies found in this run", Render: sections{workload: workloadName}.renderAnomalies}
}

// sections renders the report sections of one file workload (records or
// another workload with the same labels, ops and metrics).
type sections struct {
	workload string
	ref      func(*results.Run) *SizeRef // the size table's reference row; nil for none
}

// FormatInfo is what the reports need to know of a format, read from the
// descriptor the run recorded.
type FormatInfo struct {
	results.Descriptor
	// Compresses: the format compresses its data itself; RandomAccess: it
	// reads a footer first. Either combines with codec none only.
	Compresses, RandomAccess, Text bool
}

// StreamOnly reports whether the format combines with an outer codec.
func (f FormatInfo) StreamOnly() bool { return !f.Compresses && !f.RandomAccess }

// Formats returns what the run recorded of its subjects by name. A
// results file from before descriptors were recorded yields an empty map:
// its report then omits what it cannot know.
func Formats(run *results.Run, workload string) map[string]FormatInfo {
	out := map[string]FormatInfo{}
	for _, d := range run.Descriptors {
		if d.Workload != workload || d.Key != LabelFormat {
			continue
		}
		out[d.Name] = FormatInfo{Descriptor: d,
			Compresses:   slices.Contains(d.Tags, TagCompresses),
			RandomAccess: slices.Contains(d.Tags, TagRandomAccess),
			Text:         slices.Contains(d.Tags, format.LabelText)}
	}
	return out
}

// A Row is one format × codec (× variant) pair and its cases (nil when
// the run has no case of that op).
type Row struct {
	Format, Codec, Variant string
	Write, Read            *results.Case
	ReadBytes, Decompress  *results.Case
	plain                  *Row // the same format uncompressed; nil if unknown
	desc                   FormatInfo
}

// Subject is "format + codec", with the variant in parentheses.
func (r *Row) Subject() string {
	s := r.Format + " + " + r.Codec
	if r.Variant != "" {
		s += " (" + r.Variant + ")"
	}
	return s
}

// any returns one of the row's cases that carries the file metrics.
func (r *Row) any() *results.Case {
	for _, c := range []*results.Case{r.Write, r.Read, r.ReadBytes, r.Decompress} {
		if c != nil && c.Metrics[MetricFile] > 0 {
			return c
		}
	}
	return nil
}

// FileB is the pair's file size (0 when unknown).
func (r *Row) FileB() float64 {
	if c := r.any(); c != nil {
		return c.Metrics[MetricFile]
	}
	return 0
}

// Records is the records (rows) of the pair's file (0 when unknown).
func (r *Row) Records() float64 {
	if c := r.any(); c != nil {
		return c.Metrics[MetricRecords]
	}
	return 0
}

// OK reports whether both the write and the read succeeded.
func (r *Row) OK() bool { return r.Write != nil && r.Write.OK() && r.Read != nil && r.Read.OK() }

// Median is a case's median time per op, NaN when it failed or has none.
func Median(c *results.Case) float64 {
	if c == nil || !c.OK() {
		return math.NaN()
	}
	v, ok := c.Median(results.UnitNsPerOp)
	if !ok {
		return math.NaN()
	}
	return v
}

// PerRecord is a case's median time per record of the row.
func (r *Row) PerRecord(c *results.Case) float64 {
	n := r.Records()
	if n == 0 {
		return math.NaN()
	}
	return Median(c) / n
}

// TotalNs is the median write time plus the median read time.
func (r *Row) TotalNs() float64 { return Median(r.Write) + Median(r.Read) }

func (r *Row) saved() float64 {
	if r.plain == nil || r.plain.FileB() == 0 || r.FileB() == 0 {
		return math.NaN()
	}
	return 1 - r.FileB()/r.plain.FileB()
}

// samples is the number of samples behind a case's median time (0 when
// it failed or has none).
func samples(c *results.Case) int {
	if c == nil || !c.OK() {
		return 0
	}
	s, ok := c.Stat(results.UnitNsPerOp)
	if !ok {
		return 0
	}
	return s.N
}

func (r *Row) point() Point {
	p := Point{Format: r.Format, Codec: r.Codec, WriteNs: Median(r.Write), ReadNs: Median(r.Read), FileB: r.FileB(),
		WriteN: samples(r.Write), ReadN: samples(r.Read),
		Text: r.desc.Text, RandomAccess: r.desc.RandomAccess}
	if r.plain != nil {
		p.PlainB, p.Base = r.plain.FileB(), r.plain.Format
	}
	return p
}

// A View holds a file workload's run as rows: the format × codec matrix,
// the bare loops and the unbuffered variant.
type View struct {
	// Rows is the matrix, in run order; Bares the bare-loop comparisons
	// (BareSubject, BareMsgpSubject); Unbuffered the VariantUnbuffered row
	// (nil when the run has none).
	Rows       []*Row
	Bares      []*Row
	Unbuffered *Row
	// Codecs are the matrix's codecs in run order; Records the largest
	// record count of its rows.
	Codecs  []string
	Records float64
	failed  []*results.Case
}

// NewView groups the cases of the named workload into rows; run supplies
// the format descriptors.
func NewView(workload string, run *results.Run, cases []*results.Case) *View {
	info := Formats(run, workload)
	v := &View{}
	byKey := map[string]*Row{}
	var order []*Row
	for _, c := range cases {
		if !c.OK() {
			v.failed = append(v.failed, c)
		}
		f, cd, vr := c.Labels.Get(LabelFormat), c.Labels.Get(LabelCodec), c.Labels.Get(LabelVariant)
		key := f + "\x00" + cd + "\x00" + vr
		r := byKey[key]
		if r == nil {
			r = &Row{Format: f, Codec: cd, Variant: vr, desc: info[f]}
			byKey[key] = r
			order = append(order, r)
		}
		switch c.Labels.Get(LabelOp) {
		case OpWrite:
			r.Write = c
		case OpRead:
			r.Read = c
		case OpReadBytes:
			r.ReadBytes = c
		case OpDecompress:
			r.Decompress = c
		}
	}
	seen := map[string]bool{}
	for _, r := range order {
		switch {
		case r.Format == BareSubject || r.Format == BareMsgpSubject:
			v.Bares = append(v.Bares, r)
			continue
		case r.Variant == VariantUnbuffered:
			v.Unbuffered = r
			continue
		case r.Variant != "":
			continue
		}
		v.Rows = append(v.Rows, r)
		if !seen[r.Codec] {
			seen[r.Codec] = true
			v.Codecs = append(v.Codecs, r.Codec)
		}
		if n := r.Records(); n > v.Records {
			v.Records = n
		}
	}
	for _, r := range append(append([]*Row{}, v.Rows...), v.Unbuffered) {
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
func plainKey(r *Row, info map[string]FormatInfo) string {
	if !r.desc.Compresses {
		return r.Format + "\x00none\x00"
	}
	name := r.Format
	for {
		i := strings.LastIndex(name, "-")
		if i < 0 {
			return r.Format + "\x00none\x00"
		}
		name = name[:i]
		for _, cand := range []string{name, name + "-none"} {
			if d, ok := info[cand]; ok && !d.Compresses {
				return cand + "\x00none\x00"
			}
		}
	}
}

// Points returns the rows whose write and read both succeeded, as points,
// with the rows they came from.
func (v *View) Points() ([]Point, []*Row) {
	var pts []Point
	var rows []*Row
	for _, r := range v.Rows {
		if r.OK() {
			pts = append(pts, r.point())
			rows = append(rows, r)
		}
	}
	return pts, rows
}

func sizeCell(r *Row) string {
	if r.FileB() == 0 {
		return "–"
	}
	return table.MiB(r.FileB())
}

func (s sections) renderCombined(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := NewView(s.workload, run, cases)
	if len(v.Rows) == 0 {
		return nil, nil
	}
	t := &report.Table{
		Caption: fmt.Sprintf("%s records: file size, write, read and total time (seconds, medians)", table.Int(v.Records)),
		Header:  []string{"format", "codec", "size (MiB)", "write (s)", "read (s)", "total (s)", "% saved"},
	}
	for _, r := range v.Rows {
		total := "–"
		if r.Write != nil && r.Read != nil {
			total = table.Seconds(r.TotalNs())
		}
		t.Rows = append(t.Rows, []string{r.Format, r.Codec, sizeCell(r), secsCell(r.Write), secsCell(r.Read), total, table.PctOrDash(r.saved())})
	}
	t.Notes = []string{"% saved = 1 − file ÷ the same format uncompressed (codec none; for a format that compresses itself, its uncompressed sibling: parquet-none, avro-ocf, arrow-file)."}
	return []report.Block{t}, nil
}

func secsCell(c *results.Case) string {
	if c == nil {
		return "–"
	}
	return table.Seconds(Median(c))
}

func (s sections) renderSize(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := NewView(s.workload, run, cases)
	if len(v.Rows) == 0 {
		return nil, nil
	}
	t := &report.Table{Header: []string{"format", "codec", "size (bytes)", "size (MiB)", "bytes/record", "% saved", "vs plain"}}
	var ref *SizeRef
	if s.ref != nil {
		if ref = s.ref(run); ref != nil && ref.Bytes <= 0 {
			ref = nil
		}
	}
	compare := ref != nil && !ref.Partial
	if compare {
		t.Header = append(t.Header, "vs your file")
	}
	if ref != nil {
		perRec := "–"
		if ref.Records > 0 {
			perRec = table.Float(ref.Bytes / ref.Records)
		}
		row := []string{ref.Name, ref.What, table.Int(ref.Bytes), table.MiB(ref.Bytes), perRec, "–", "–"}
		if compare {
			row = append(row, "–")
		}
		t.Rows = append(t.Rows, row)
	}
	for _, r := range v.Rows {
		size := r.FileB()
		if size == 0 {
			row := []string{r.Format, r.Codec, table.FailedText, "–", "–", "–", "–"}
			if compare {
				row = append(row, "–")
			}
			t.Rows = append(t.Rows, row)
			continue
		}
		vs := "–"
		if r.plain != nil && r.plain != r && r.plain.FileB() > 0 {
			vs = table.Times(r.plain.FileB()/size) + " smaller"
		}
		row := []string{r.Format, r.Codec, table.Int(size), table.MiB(size), table.Float(size / r.Records()), table.PctOrDash(r.saved()), vs}
		if compare {
			row = append(row, VsRef(size, ref.Bytes))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"Sizes are measured on disk after each write. vs plain = the same format uncompressed ÷ this file."}
	switch {
	case compare:
		t.Notes = append(t.Notes, fmt.Sprintf("The first row is your file %s as given (compressed as it is on disk); vs your file = how much smaller (or larger) each file is.", ref.Name))
	case ref != nil:
		t.Notes = append(t.Notes, fmt.Sprintf("The first row is your file %s as given; %s, so the sizes do not compare with it.", ref.Name, ref.Why))
	}
	return []report.Block{t}, nil
}

// VsRef says how size compares with a reference size: "81.0% smaller",
// "2.1× larger" or "same size".
func VsRef(size, ref float64) string {
	switch {
	case size < ref:
		return table.Pct(1-size/ref) + " smaller"
	case size > ref:
		return table.Times(size/ref) + " larger"
	}
	return "same size"
}

// sortedByTime returns rows with a case for op sorted by median time,
// failed ones last.
func sortedByTime(rows []*Row, pick func(*Row) *results.Case) []*Row {
	var out []*Row
	for _, r := range rows {
		if pick(r) != nil {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := Median(pick(out[i])), Median(pick(out[j]))
		if math.IsNaN(a) != math.IsNaN(b) {
			return !math.IsNaN(a)
		}
		return a < b
	})
	return out
}

// RecsPerSec is a table cell: n records over the case's median time.
func RecsPerSec(c *results.Case, n float64) string {
	t := Median(c)
	if math.IsNaN(t) || t == 0 {
		return "–"
	}
	return table.Int(n / (t / 1e9))
}

func heapCell(c *results.Case) string {
	if c == nil || !c.OK() {
		return "–"
	}
	h, ok := c.Median(MetricPeakHeap)
	if !ok {
		return "–"
	}
	return table.Bytes(h)
}

func vsFastest(c *results.Case, fastest float64) string {
	t := Median(c)
	if math.IsNaN(t) || !(fastest > 0) {
		return "–"
	}
	return table.Times(t / fastest)
}

func (s sections) renderWrite(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := NewView(s.workload, run, cases)
	rows := sortedByTime(v.Rows, func(r *Row) *results.Case { return r.Write })
	if len(rows) == 0 {
		return nil, nil
	}
	fastest := Median(rows[0].Write)
	t := &report.Table{
		Caption: fmt.Sprintf("Write %s records (fastest first)", table.Int(v.Records)),
		Header:  []string{"format", "codec", "time", "records/s", "MB/s", "peak heap", "vs fastest"},
	}
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{r.Format, r.Codec, table.TimeText(r.Write), RecsPerSec(r.Write, r.Records()),
			table.Median(r.Write, results.UnitMBPerS, table.Plain).String(), heapCell(r.Write), vsFastest(r.Write, fastest)})
	}
	t.Notes = []string{"records/s = records ÷ median time; MB/s counts the encoded stream before compression; vs fastest = time ÷ the fastest write's time."}
	return []report.Block{t}, nil
}

func (s sections) renderRead(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := NewView(s.workload, run, cases)
	rows := sortedByTime(v.Rows, func(r *Row) *results.Case { return r.Read })
	if len(rows) == 0 {
		return nil, nil
	}
	fastest := Median(rows[0].Read)
	t := &report.Table{
		Caption: fmt.Sprintf("Read and verify %s records (fastest first)", table.Int(v.Records)),
		Header:  []string{"format", "codec", "time", "records/s", "MB/s", "peak heap", "vs fastest", "read-bytes floor", "decompress floor", "× floor"},
	}
	for _, r := range rows {
		floor := r.Decompress
		if floor == nil {
			floor = r.ReadBytes
		}
		x := "–"
		if f := Median(floor); f > 0 {
			x = table.Times(Median(r.Read) / f)
		}
		dec := "–"
		if r.Decompress != nil {
			dec = table.TimeText(r.Decompress)
		}
		t.Rows = append(t.Rows, []string{r.Format, r.Codec, table.TimeText(r.Read), RecsPerSec(r.Read, r.Records()),
			table.Median(r.Read, results.UnitMBPerS, table.Plain).String(), heapCell(r.Read), vsFastest(r.Read, fastest),
			table.TimeText(r.ReadBytes), dec, x})
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
	v := NewView(s.workload, run, cases)
	t := &report.Table{Header: []string{"codec", "formats", "average % saved", "best format", "its size (MiB)", "its % saved", "write cost", "read cost"}}
	for _, cd := range v.Codecs {
		if cd == "none" {
			continue
		}
		var saved, wcost, rcost []float64
		var best *Row
		n := 0
		for _, r := range v.Rows {
			if r.Codec != cd || !r.OK() {
				continue
			}
			n++
			if s := r.saved(); !math.IsNaN(s) {
				saved = append(saved, s)
			}
			if best == nil || r.FileB() < best.FileB() {
				best = r
			}
			if r.plain != nil && r.plain.OK() {
				wcost = append(wcost, Median(r.Write)/Median(r.plain.Write))
				rcost = append(rcost, Median(r.Read)/Median(r.plain.Read))
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
		t.Rows = append(t.Rows, []string{cd, strconv.Itoa(n), table.PctOrDash(avg), best.Format, table.MiB(best.FileB()), table.PctOrDash(best.saved()),
			table.Times(geomean(wcost)), table.Times(geomean(rcost))})
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
	v := NewView(s.workload, run, cases)
	pts, rows := v.Points()
	if len(pts) == 0 {
		return nil, nil
	}
	var rp []table.Point
	for _, p := range pts {
		rp = append(rp, table.Point{X: p.FileB, Y: p.TotalNs(), Label: p.Subject()})
	}
	var blocks []report.Block
	chart := table.ScatterChart{
		Title:  fmt.Sprintf("%s: file size against write + read time, %s records", s.workload, table.Int(v.Records)),
		XLabel: "file size", YLabel: "write + read",
		LogX: true, LogY: true, XFormat: table.Bytes, YFormat: table.Duration, BinaryX: true,
		Points: rp, Frontier: true,
	}
	if svg, err := report.SVG(&chart); err == nil {
		blocks = append(blocks, &report.Plot{File: s.workload + "-size-vs-time.svg", Caption: chart.Title + " — log-log; the line joins the Pareto frontier", SVG: svg})
	}
	t := &report.Table{
		Caption: "The Pareto frontier: no other pair is both smaller and faster (smallest file first)",
		Header:  []string{"format", "codec", "size (MiB)", "write (s)", "read (s)", "total (s)", "% saved"},
	}
	for _, i := range table.ParetoFront(rp) {
		r := rows[i]
		t.Rows = append(t.Rows, []string{r.Format, r.Codec, table.MiB(r.FileB()), table.Seconds(Median(r.Write)), table.Seconds(Median(r.Read)), table.Seconds(r.TotalNs()), table.PctOrDash(r.saved())})
	}
	sort.SliceStable(t.Rows, func(i, j int) bool { return table.Number(t.Rows[i][2]) < table.Number(t.Rows[j][2]) })
	t.Notes = []string{"Every pair off this list is beaten on both size and round-trip time by one on it."}
	return append(blocks, t), nil
}

// Tradeoff describes a point's other costs in a few words, a time from
// few samples marked (its total by its parts).
func Tradeoff(p Point) string {
	return fmt.Sprintf("%s MiB, %s s total (write %s%s, read %s%s)", table.MiB(p.FileB), table.Seconds(p.TotalNs()),
		table.Seconds(p.WriteNs), p.WriteMark(), table.Seconds(p.ReadNs), p.ReadMark())
}

func (s sections) renderRecommendations(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	v := NewView(s.workload, run, cases)
	pts, _ := v.Points()
	if len(pts) == 0 {
		return nil, nil
	}
	top := &report.Table{Caption: "Quick reference: top performers", Header: []string{"metric", "pair", "value", "trade-off", "rule"}}
	for _, r := range TopRules() {
		i := r.Pick(pts)
		if i < 0 {
			top.Rows = append(top.Rows, []string{r.Name, "none qualifies", "–", "–", r.Rule})
			continue
		}
		p := pts[i]
		var val string
		switch r.Name {
		case "Fastest write":
			val = table.Seconds(p.WriteNs) + " s" + p.WriteMark()
		case "Fastest read":
			val = table.Seconds(p.ReadNs) + " s" + p.ReadMark()
		case "Smallest file":
			val = table.MiB(p.FileB) + " MiB"
		default:
			val = table.Seconds(p.TotalNs()) + " s" + p.TotalMark()
		}
		top.Rows = append(top.Rows, []string{r.Name, p.Subject(), val, Tradeoff(p) + SavedNote(p), r.Rule})
	}
	uc := &report.Table{Caption: "Recommendations by use case", Header: []string{"use case", "recommendation", "figures", "rule"}}
	for _, r := range UseCaseRules() {
		i := r.Pick(pts)
		if i < 0 {
			uc.Rows = append(uc.Rows, []string{r.Name, "none qualifies", "–", r.Rule})
			continue
		}
		uc.Rows = append(uc.Rows, []string{r.Name, pts[i].Subject(), Tradeoff(pts[i]) + SavedNote(pts[i]), r.Rule})
	}
	uc.Notes = []string{"Chosen by the stated rule from this run's medians among the pairs whose write and read both succeeded; on another machine the picks may differ."}
	return []report.Block{top, uc}, nil
}

// SavedNote is ", X% saved" for a point that saves anything, else "".
func SavedNote(p Point) string {
	if s := p.Saved(); !math.IsNaN(s) && s > 0 {
		return ", " + table.Pct(s) + " saved"
	}
	return ""
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
func anomalies(v *View) []string {
	var out []string
	all := append(append([]*Row{}, v.Rows...), v.Unbuffered)
	all = append(all, v.Bares...)
	// An uncompressed write slower than a compressed one of the same format.
	for _, r := range append(append([]*Row{}, v.Rows...), v.Unbuffered) {
		if r == nil || r.Codec != "none" || r.Write == nil || !r.Write.OK() {
			continue
		}
		var best *Row
		for _, o := range v.Rows {
			if o.Format == r.Format && o.Codec != "none" && o.Write != nil && o.Write.OK() &&
				(best == nil || Median(o.Write) < Median(best.Write)) {
				best = o
			}
		}
		if best != nil && r.PerRecord(r.Write) > best.PerRecord(best.Write) {
			out = append(out, fmt.Sprintf("%s writes slower uncompressed (%s per record%s) than with %s (%s per record%s): %s — more bytes to move than the compressor costs, or a missing buffer.",
				r.Subject(), table.Duration(r.PerRecord(r.Write)), table.SamplesMark(r.Write), best.Codec, table.Duration(best.PerRecord(best.Write)), table.SamplesMark(best.Write),
				table.Times(r.PerRecord(r.Write)/best.PerRecord(best.Write))))
		}
	}
	for _, r := range all {
		if r == nil || !r.OK() {
			continue
		}
		if x := Median(r.Read) / Median(r.Write); x >= readOverWrite {
			out = append(out, fmt.Sprintf("%s reads %s slower than it writes (%s%s vs %s%s).", r.Subject(), table.Times(x),
				table.Duration(Median(r.Read)), table.SamplesMark(r.Read), table.Duration(Median(r.Write)), table.SamplesMark(r.Write)))
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
		for _, c := range []*results.Case{r.Write, r.Read, r.ReadBytes, r.Decompress} {
			if c == nil || !c.OK() {
				continue
			}
			if c.Noisy && len(c.Samples) > 1 {
				noisy++
			}
			if lo, hi, ok := spread(c); ok && hi/lo > spreadLimit {
				spreads = append(spreads, disagree{hi / lo, fmt.Sprintf("%s %s: samples disagree, slowest ÷ fastest = %s over %d samples (%s … %s).",
					r.Subject(), c.Labels.Get(LabelOp), table.Times(hi/lo), len(c.Samples), table.Duration(lo), table.Duration(hi))})
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
	return append(out, FailedLines(v.failed)...)
}

// maxFailedNames caps the length of the case list of one FailedLines line.
const maxFailedNames = 300

// FailedLines lists failed cases one line per distinct error, in the
// order of each error's first case: "FAILED subject=csv/codec=none/op=write:
// why" for a case alone, "FAILED 8 cases — csv + none, gzip (write, read);
// jsonl + zstd (read): why" for several (their names condensed by
// CondenseCases).
func FailedLines(failed []*results.Case) []string {
	byErr := map[string][]*results.Case{}
	var order []string
	for _, c := range failed {
		if _, ok := byErr[c.Error]; !ok {
			order = append(order, c.Error)
		}
		byErr[c.Error] = append(byErr[c.Error], c)
	}
	var out []string
	for _, e := range order {
		cs := byErr[e]
		if len(cs) == 1 {
			out = append(out, fmt.Sprintf("FAILED %s: %s", strings.TrimPrefix(cs[0].FullName(), cs[0].Name+"/"), e))
			continue
		}
		out = append(out, fmt.Sprintf("FAILED %d cases — %s: %s", len(cs), CondenseCases(cs, true, maxFailedNames), e))
	}
	return out
}

// CondenseCases names file-workload cases briefly: per format, the codecs
// that share the same ops, "csv + none, gzip, zstd (write); jsonl + none
// (read, read-bytes)", in the cases' order, cut after about max bytes
// ("; …"). Without ops, a format's codecs are listed once: "csv + none,
// gzip, zstd; jsonl + none".
func CondenseCases(cs []*results.Case, ops bool, max int) string {
	type fmtGroup struct {
		name   string
		codecs []string
		ops    map[string][]string
	}
	var groups []*fmtGroup
	byName := map[string]*fmtGroup{}
	for _, c := range cs {
		f := c.Labels.Get(LabelFormat)
		if v := c.Labels.Get(LabelVariant); v != "" {
			f += " (" + v + ")"
		}
		g := byName[f]
		if g == nil {
			g = &fmtGroup{name: f, ops: map[string][]string{}}
			byName[f] = g
			groups = append(groups, g)
		}
		cd := c.Labels.Get(LabelCodec)
		if _, ok := g.ops[cd]; !ok {
			g.codecs = append(g.codecs, cd)
		}
		if op := c.Labels.Get(LabelOp); !slices.Contains(g.ops[cd], op) {
			g.ops[cd] = append(g.ops[cd], op)
		}
	}
	var parts []string
	for _, g := range groups {
		// Codecs with the same ops share a part.
		var keys []string
		codecsOf := map[string][]string{}
		for _, cd := range g.codecs {
			k := ""
			if ops {
				k = " (" + strings.Join(g.ops[cd], ", ") + ")"
			}
			if _, ok := codecsOf[k]; !ok {
				keys = append(keys, k)
			}
			codecsOf[k] = append(codecsOf[k], cd)
		}
		for _, k := range keys {
			parts = append(parts, g.name+" + "+strings.Join(codecsOf[k], ", ")+k)
		}
	}
	text := ""
	for i, p := range parts {
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
	v := NewView(s.workload, run, cases)
	if len(v.Rows) == 0 && len(v.Bares) == 0 && v.Unbuffered == nil {
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

// FileSummary condenses a file workload's cases (see FileSections) for the
// terminal: the fastest pairs by round trip with their size, then the
// use-case recommendations.
func FileSummary(workloadName string, run *results.Run, cases []*results.Case) *report.Table {
	v := NewView(workloadName, run, cases)
	pts, _ := v.Points()
	if len(pts) == 0 {
		return nil
	}
	idx := make([]int, len(pts))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return pts[idx[a]].TotalNs() < pts[idx[b]].TotalNs() })
	t := &report.Table{
		Caption: fmt.Sprintf("%s: %s records, fastest round trips (write + read) and recommendations", workloadName, table.Int(v.Records)),
		Header:  []string{"", "pair", "total", "write", "read", "size"},
	}
	times := func(p Point) []string {
		return []string{table.Duration(p.TotalNs()) + p.TotalMark(), table.Duration(p.WriteNs) + p.WriteMark(), table.Duration(p.ReadNs) + p.ReadMark()}
	}
	for k, i := range idx[:min(8, len(idx))] {
		p := pts[i]
		t.Rows = append(t.Rows, slices.Concat([]string{strconv.Itoa(k + 1), p.Subject()}, times(p), []string{table.Bytes(p.FileB)}))
	}
	for _, r := range append(TopRules()[3:], UseCaseRules()...) {
		i := r.Pick(pts)
		if i < 0 {
			continue
		}
		p := pts[i]
		t.Rows = append(t.Rows, slices.Concat([]string{strings.ToLower(r.Name), p.Subject()}, times(p), []string{table.Bytes(p.FileB)}))
	}
	return t
}

// OrDash is s, or "–" when s is empty.
func OrDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
