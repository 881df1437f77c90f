package nested

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
)

// Sections implements workload.Workload. Every section renders from the
// results alone: labels, metrics and the run's descriptors.
func (*Workload) Sections() []report.Section {
	return []report.Section{
		{Workload: Name, Title: "Findings", Render: renderFindings},
		{Workload: Name, Title: "Full schema: file size and read time", Render: renderFull},
		{Workload: Name, Title: "Sub-schema: read time against columns and the largest column", Render: renderSub},
		{Workload: Name, Title: "The seed's findings, re-checked", Render: renderClaims},
		{Workload: Name, Title: "Parquet settings and the seed's 36.8 MB", Render: renderSizes},
		{Workload: Name, Title: "Subjects", Render: renderSubjects},
	}
}

// Summary implements workload.Workload: the fastest full read per dataset.
func (w *Workload) Summary(_ *results.Run, cases []*results.Case) *table.Table {
	return report.Typed(w.summary(nil, cases))
}

func (*Workload) summary(_ *results.Run, cases []*results.Case) *report.Table {
	t := &report.Table{Header: []string{"dataset", "fastest full read", "time", "smallest file", "size"}}
	for _, ds := range datasetsIn(cases) {
		v := fullView(cases, ds)
		if len(v) == 0 {
			continue
		}
		f, s := fastest(v), smallest(v)
		t.Rows = append(t.Rows, []string{ds, f.name(), table.Seconds(f.ns) + " s", s.fileName(), table.MiB(s.size) + " MiB"})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// entry is one subject × codec of a full-schema read.
type entry struct {
	c       *results.Case
	subject string
	codec   string
	ns      float64
	size    float64
}

func (e entry) name() string { return e.subject + " " + e.codec }

// fileName names the file an entry read (the Parquet readers share one).
func (e entry) fileName() string { return fileKind(e.subject) + " " + e.codec }

// fileKind is the file format a subject reads.
func fileKind(subject string) string {
	if strings.HasPrefix(subject, "parquet") {
		return "Parquet"
	}
	return strings.TrimSuffix(subject, ParSuffix)
}

// signedDuration formats a fitted coefficient in ns, which may be negative.
func signedDuration(ns float64) string {
	if ns < 0 {
		return "−" + table.Duration(-ns)
	}
	return table.Duration(ns)
}

func datasetsIn(cases []*results.Case) []string {
	var out []string
	for _, ds := range datasetNames() {
		if len(table.Where(cases, LabelDataset, ds)) > 0 {
			out = append(out, ds)
		}
	}
	return out
}

// fullView returns the measured full-schema reads of ds (limits excluded).
func fullView(cases []*results.Case, ds string) []entry {
	var out []entry
	for _, c := range table.Where(cases, LabelDataset, ds, LabelOp, OpRead, LabelQuery, QueryAll) {
		if !c.OK() || c.IsLimit() {
			continue
		}
		ns, _ := c.Median(results.UnitNsPerOp)
		out = append(out, entry{c: c, subject: c.Labels.Get(LabelSubject), codec: c.Labels.Get(LabelCodec), ns: ns, size: c.Metrics[MetricFile]})
	}
	return out
}

func fastest(v []entry) entry {
	return slices.MinFunc(v, func(a, b entry) int { return cmpF(a.ns, b.ns) })
}

func smallest(v []entry) entry {
	return slices.MinFunc(v, func(a, b entry) int { return cmpF(a.size, b.size) })
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func isColumnar(subject string) bool {
	return strings.HasPrefix(subject, "parquet") || strings.HasPrefix(subject, "arrow")
}

// limitCase returns the named floor of ds's full read.
func limitCase(cases []*results.Case, ds, subject string) *results.Case {
	for _, c := range table.Where(cases, LabelDataset, ds, LabelSubject, subject) {
		if c.OK() {
			return c
		}
	}
	return nil
}

// writeCase returns the write of a file kind and codec.
func writeNs(cases []*results.Case, ds, subject, codec string) (float64, bool) {
	for _, c := range table.Where(cases, LabelDataset, ds, LabelOp, OpWrite, LabelSubject, subject, LabelCodec, codec) {
		if c.OK() {
			return c.Median(results.UnitNsPerOp)
		}
	}
	return 0, false
}

func writerSubject(subject string) string {
	s := strings.TrimSuffix(subject, ParSuffix)
	if strings.HasPrefix(s, "parquet") {
		return SubjectParquetGo
	}
	return s
}

func renderFull(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	var blocks []report.Block
	for _, ds := range datasetsIn(cases) {
		v := fullView(cases, ds)
		if len(v) == 0 {
			continue
		}
		slowest := slices.MaxFunc(v, func(a, b entry) int { return cmpF(a.ns, b.ns) })
		largest := slices.MaxFunc(v, func(a, b entry) int { return cmpF(a.size, b.size) })
		dec := limitCase(cases, ds, SubjectDecompress)
		rb := limitCase(cases, ds, SubjectReadBytes)
		sort.SliceStable(v, func(i, j int) bool { return v[i].ns < v[j].ns })
		t := &report.Table{Caption: fmt.Sprintf("%s: full read of %s records into Go structs, fastest first", ds, table.Int(v[0].c.Metrics[MetricRecords])),
			Header: []string{"subject", "codec", "file MiB", "read", "speed vs slowest", "size vs largest", "× gzip-only floor", "write s"}}
		for _, e := range v {
			w := "–"
			if ns, ok := writeNs(cases, ds, writerSubject(e.subject), e.codec); ok {
				w = table.Seconds(ns)
			}
			t.Rows = append(t.Rows, []string{e.subject, e.codec, table.MiB(e.size), table.TimeText(e.c),
				table.Times(slowest.ns / e.ns), table.Pct(e.size / largest.size), table.RatioText(e.c, results.UnitVsLimit, dec), w})
		}
		for _, l := range []*results.Case{dec, rb} {
			if l != nil {
				t.Rows = append(t.Rows, []string{l.Labels.Get(LabelSubject) + " (floor)", l.Labels.Get(LabelCodec), table.MiB(l.Metrics[MetricFile]), table.TimeText(l), "", "", "", ""})
			}
		}
		t.Notes = []string{"read: median s per full read (file bytes → every record in the dataset's Go structs; every record verified in Verify, every 61st after each timed read, outside the timer)",
			"speed vs slowest: the slowest subject's time over this one's (the seed's x axis); size vs largest: the file over the largest file (the seed's y axis)",
			"× gzip-only floor: in-round ratio to decompressing the JSON-gzip file without decoding (the seed's red line)"}
		blocks = append(blocks, t)
		var pts []table.Point
		for _, e := range v {
			pts = append(pts, table.Point{X: slowest.ns / e.ns, Y: e.size / largest.size, Label: e.subject + "·" + e.codec})
		}
		svg, err := report.SVG(&table.ScatterChart{Title: ds + ": file size vs full read speed (relative to the slowest)",
			XLabel: "read speed, × the slowest", YLabel: "file size, fraction of the largest", LogX: true, Points: pts})
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, &report.Plot{File: "nested-" + ds + "-full.svg", Caption: ds + ": size vs read speed, relative to the slowest", SVG: svg})
	}
	return blocks, nil
}

// qpoint is one query's read of one subject.
type qpoint struct {
	query       string
	leaves      float64
	total, maxB float64
	ns          float64
}

// subPoints returns the column-tier queries of subject on ds, the full
// read of the sub-schema codec included.
func subPoints(cases []*results.Case, ds, subject string) []qpoint {
	var out []qpoint
	for _, c := range table.Where(cases, LabelDataset, ds, LabelOp, OpRead, LabelSubject, subject, LabelCodec, subCodec(subject)) {
		if !c.OK() || c.Labels.Get(LabelQuery) == "" {
			continue
		}
		ns, _ := c.Median(results.UnitNsPerOp)
		out = append(out, qpoint{query: c.Labels.Get(LabelQuery), leaves: c.Metrics[MetricLeaves], total: c.Metrics[MetricColsB], maxB: c.Metrics[MetricColMaxB], ns: ns})
	}
	return out
}

// fit is a least-squares fit of time ≈ a + b·x1 + c·x2.
type fit struct {
	a, b, c, r2 float64
	ok          bool
}

// fitLinear fits y = a + b·x1 + c·x2 by the normal equations.
func fitLinear(x1, x2, y []float64) fit {
	n := len(y)
	if n < 4 {
		return fit{}
	}
	// Columns: 1, x1, x2.
	var m [3][4]float64
	for i := range n {
		row := [3]float64{1, x1[i], x2[i]}
		for r := range 3 {
			for c := range 3 {
				m[r][c] += row[r] * row[c]
			}
			m[r][3] += row[r] * y[i]
		}
	}
	// Gaussian elimination with partial pivoting.
	for col := range 3 {
		p := col
		for r := col + 1; r < 3; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[p][col]) {
				p = r
			}
		}
		m[col], m[p] = m[p], m[col]
		if math.Abs(m[col][col]) < 1e-300 {
			return fit{}
		}
		for r := range 3 {
			if r == col {
				continue
			}
			f := m[r][col] / m[col][col]
			for c := col; c < 4; c++ {
				m[r][c] -= f * m[col][c]
			}
		}
	}
	f := fit{a: m[0][3] / m[0][0], b: m[1][3] / m[1][1], c: m[2][3] / m[2][2], ok: true}
	var mean, ssTot, ssRes float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(n)
	for i := range n {
		pred := f.a + f.b*x1[i] + f.c*x2[i]
		ssRes += (y[i] - pred) * (y[i] - pred)
		ssTot += (y[i] - mean) * (y[i] - mean)
	}
	if ssTot > 0 {
		f.r2 = 1 - ssRes/ssTot
	}
	return f
}

// models fits the seed's model (columns, largest column) and the
// alternative (columns, total size) to pts.
func models(pts []qpoint) (withMax, withTotal fit) {
	var x1, xm, xt, y []float64
	for _, p := range pts {
		x1 = append(x1, p.leaves)
		xm = append(xm, p.maxB)
		xt = append(xt, p.total)
		y = append(y, p.ns)
	}
	return fitLinear(x1, xm, y), fitLinear(x1, xt, y)
}

// subSubjects are the subjects of the sub-schema scatter and models: the
// columns tier, then the row formats' native and decode+project tiers.
func subSubjects() []string {
	out := []string{SubjectParquetArrow, SubjectParquetArrowPar, SubjectParquetGo, SubjectArrowIPC, SubjectArrowIPCPar, SubjectAvroReaderPar}
	for _, f := range rowFormatNames() {
		out = append(out, f+ParSuffix)
	}
	return out
}

// subCodec is the codec of the file a subject's sub-schema queries read:
// zstd Parquet, the uncompressed (memory-mapped) Arrow IPC file, the row
// formats' lz4 files.
func subCodec(subject string) string {
	switch {
	case strings.HasPrefix(subject, "parquet"):
		return pqSubsetCodec
	case strings.HasPrefix(subject, "arrow-ipc"):
		return "none"
	}
	return rowSubsetCodec
}

func renderSub(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	var blocks []report.Block
	for _, ds := range datasetsIn(cases) {
		t := &report.Table{Caption: ds + ": fitted read time ≈ a + b·columns + c·(largest column MiB), over every query",
			Header: []string{"subject", "queries", "a", "b per column", "c per MiB of the largest", "R²", "R² with total size instead"}}
		var series []table.Point
		var seriesMax []table.Point
		for _, s := range subSubjects() {
			pts := subPoints(cases, ds, s)
			if len(pts) == 0 {
				continue
			}
			fm, ft := models(pts)
			row := []string{s, fmt.Sprint(len(pts)), "–", "–", "–", "–", "–"}
			if fm.ok {
				row[2], row[3], row[4], row[5] = signedDuration(fm.a), signedDuration(fm.b), signedDuration(fm.c*(1<<20)), fmt.Sprintf("%.3f", fm.r2)
			}
			if ft.ok {
				row[6] = fmt.Sprintf("%.3f", ft.r2)
			}
			t.Rows = append(t.Rows, row)
			if s == SubjectParquetArrow {
				for _, p := range pts {
					series = append(series, table.Point{X: p.leaves, Y: p.ns})
					seriesMax = append(seriesMax, table.Point{X: p.maxB, Y: p.ns})
				}
			}
		}
		if len(t.Rows) == 0 {
			continue
		}
		t.Notes = []string{"every query is a set of leaf paths; the struct comes back with only those fields filled and is checked against the projected reference. Parquet subjects read the " + pqSubsetCodec + " file, Arrow IPC the uncompressed one (memory-mapped: unqueried buffers are never touched), the row formats their " + rowSubsetCodec + " files (one query per k: decode+project, Avro's reader schema native); column sizes are the Parquet file's",
			"R² with total size: the same fit with the queried columns' total compressed size in place of the largest (the seed: the largest predicts better)"}
		blocks = append(blocks, t)
		if len(series) > 0 {
			svg, err := report.SVG(&table.ScatterChart{Title: ds + ": parquet-arrow read time vs number of columns", XLabel: "leaf columns in the query",
				YLabel: "read time", YFormat: table.Duration, Points: series})
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, &report.Plot{File: "nested-" + ds + "-columns.svg", Caption: ds + ": read time vs columns (parquet-arrow, one point per query)", SVG: svg})
			svg, err = report.SVG(&table.ScatterChart{Title: ds + ": parquet-arrow read time vs largest column", XLabel: "largest queried column, compressed bytes",
				YLabel: "read time", YFormat: table.Duration, LogX: true, Points: seriesMax})
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, &report.Plot{File: "nested-" + ds + "-maxcol.svg", Caption: ds + ": read time vs the largest column's size (the seed's plot)", SVG: svg})
		}
		// The row formats' decode-and-project tier on the queries they answer.
		rt := report.Pivot{Cases: table.Where(cases, LabelDataset, ds, LabelOp, OpRead), Row: LabelSubject, Col: LabelQuery,
			Corner: "subject (tier)", Cell: func(c *results.Case) string { return table.TimeText(c) }}
		var rowCases []*results.Case
		queries := map[string]bool{}
		for _, c := range table.Where(cases, LabelDataset, ds, LabelOp, OpRead, LabelTier, TierDecodeProject) {
			if q := c.Labels.Get(LabelQuery); q != QueryAll && q != "" && c.Labels.Get(LabelSubject) != SubjectArrowIPC {
				queries[q] = true
			}
		}
		for _, c := range table.Where(cases, LabelDataset, ds, LabelOp, OpRead) {
			q := c.Labels.Get(LabelQuery)
			if queries[q] && (c.Labels.Get(LabelTier) != TierColumns || c.Labels.Get(LabelSubject) == SubjectParquetArrow) {
				rowCases = append(rowCases, c)
			}
		}
		if len(rowCases) > 0 {
			rt.Cases = rowCases
			tb := rt.Table()
			if tb != nil {
				tb.Caption = ds + ": the projection tiers on the same queries — columns (parquet-arrow), Avro's reader schema (native skipping), decode and project (row formats, " + rowSubsetCodec + ", parallel; the zstd Arrow IPC file, whose every buffer is decompressed)"
				blocks = append(blocks, tb)
			}
		}
	}
	return blocks, nil
}

// claim is one of the seed's findings checked against the run.
type claim struct {
	text, measured string
	held, known    bool
}

func checkClaims(cases []*results.Case) []claim {
	var out []claim
	for _, ds := range datasetsIn(cases) {
		v := fullView(cases, ds)
		if len(v) == 0 {
			continue
		}
		f, s := fastest(v), smallest(v)
		out = append(out, claim{text: ds + ": the columnar file is the smallest", known: true, held: isColumnar(s.subject),
			measured: fmt.Sprintf("smallest: %s (%s MiB)", s.fileName(), table.MiB(s.size))})
		out = append(out, claim{text: ds + ": the columnar full read is the fastest", known: true, held: isColumnar(f.subject),
			measured: fmt.Sprintf("fastest: %s (%s s%s)", f.name(), table.Seconds(f.ns), table.SamplesMark(f.c))})
		pts := subPoints(cases, ds, SubjectParquetArrow)
		var full float64
		var single []float64
		for _, p := range pts {
			if p.query == QueryAll {
				full = p.ns
			}
			if p.leaves == 1 {
				single = append(single, p.ns)
			}
		}
		if full > 0 && len(single) > 0 {
			slices.Sort(single)
			med := single[len(single)/2]
			out = append(out, claim{text: ds + ": a one-column query is an order of magnitude faster than a full read", known: true, held: full/med >= 10,
				measured: fmt.Sprintf("parquet-arrow: full %s, median single leaf %s: %s", table.Duration(full), table.Duration(med), table.Times(full/med))})
		}
		fm, ft := models(pts)
		if fm.ok && ft.ok {
			out = append(out, claim{text: ds + ": read time ≈ linear in (columns, largest column size)", known: true, held: fm.r2 >= 0.9,
				measured: fmt.Sprintf("R² = %.3f over %d queries (parquet-arrow)", fm.r2, len(pts))})
			out = append(out, claim{text: ds + ": sub-schema time grows with the largest column, not the total", known: true, held: fm.r2 >= ft.r2,
				measured: fmt.Sprintf("R² with largest %.3f, with total %.3f", fm.r2, ft.r2)})
		}
	}
	return out
}

func renderClaims(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	cl := checkClaims(cases)
	if len(cl) == 0 {
		return nil, nil
	}
	t := &report.Table{Header: []string{"the seed found", "this run", "verdict"}}
	for _, c := range cl {
		v := "not held"
		if c.held {
			v = "held"
		}
		t.Rows = append(t.Rows, []string{c.text, c.measured, v})
	}
	t.Notes = []string{"The seed's columnar format was its own (dendrite, JVM); here it is Parquet read two ways. EDN is read with olympos.io/encoding/edn; the seed's other JVM formats (SMILE, Fressian, Nippy, and Java serialization and Kryo) are out of scope here: they have no maintained Go library for these records."}
	return []report.Block{t}, nil
}

func renderSizes(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	cs := table.Where(cases, LabelOp, OpSize)
	if len(cs) == 0 {
		return nil, nil
	}
	const seedB = 36.8e6
	t := &report.Table{Caption: "TPC-H Parquet (parquet-go) file size by writer settings, extrapolated to the seed's 600,572 records; closest to the seed's 36.8 MB first",
		Header: []string{"settings", "file MB here", "est. MB at 600,572", "vs 36.8 MB", "write"}}
	type row struct {
		c   *results.Case
		est float64
	}
	var rows []row
	for _, c := range cs {
		if c.OK() {
			rows = append(rows, row{c, c.Metrics[MetricFullEstB]})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return math.Abs(rows[i].est-seedB) < math.Abs(rows[j].est-seedB) })
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{r.c.Labels.Get("settings"), fmt.Sprintf("%.2f", r.c.Metrics[MetricFile]/1e6), fmt.Sprintf("%.1f", r.est/1e6),
			table.SignedPct(r.est/seedB - 1), table.TimeText(r.c)})
	}
	t.Notes = []string{"rg64k / rg1024k: most rows per row group; delta: DELTA_BINARY_PACKED integers and DELTA_LENGTH_BYTE_ARRAY strings where no dictionary is tagged; dictionaries as the dataset's struct tags ask (every low-cardinality string)",
		"each file was read back and every record verified before it counted"}
	return []report.Block{t}, nil
}

func renderSubjects(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	var blocks []report.Block
	if t := report.SubjectsTable(run, Name, LabelSubject, cases); t != nil {
		blocks = append(blocks, t)
	}
	if t := report.SubjectsTable(run, Name, LabelCodec, cases); t != nil {
		blocks = append(blocks, t)
	}
	var failed []string
	for _, c := range cases {
		if c.Status == results.StatusFailed {
			failed = append(failed, fmt.Sprintf("%s: %s", strings.TrimPrefix(c.FullName(), caseName+"/"), c.Error))
		}
	}
	if len(failed) > 0 {
		blocks = append(blocks, &report.Table{Caption: "FAILED cases (left out of every ranking)", Header: []string{"case: reason"}, Rows: func() [][]string {
			var r [][]string
			for _, f := range failed {
				r = append(r, []string{f})
			}
			return r
		}()})
	}
	return blocks, nil
}

func renderFindings(_ *results.Run, cases []*results.Case) ([]report.Block, error) {
	var lines []string
	for _, ds := range datasetsIn(cases) {
		v := fullView(cases, ds)
		if len(v) == 0 {
			continue
		}
		f, s := fastest(v), smallest(v)
		slowest := slices.MaxFunc(v, func(a, b entry) int { return cmpF(a.ns, b.ns) })
		line := fmt.Sprintf("%s: the fastest full read is %s at %s s%s (%s faster than the slowest, %s%s); the smallest file is %s at %s MiB.",
			ds, f.name(), table.Seconds(f.ns), table.SamplesMark(f.c), table.Times(slowest.ns/f.ns), slowest.name(), table.SamplesMark(slowest.c), s.fileName(), table.MiB(s.size))
		if dec := limitCase(cases, ds, SubjectDecompress); dec != nil {
			if dn, ok := dec.Median(results.UnitNsPerOp); ok && dn > 0 {
				line += fmt.Sprintf(" Decompressing the JSON-gzip file alone takes %s s%s (%s of the fastest read).", table.Seconds(dn), table.SamplesMark(dec), table.Times(dn/f.ns))
			}
		}
		lines = append(lines, line)
		var arrow, goRead entry
		for _, e := range v {
			if e.codec == pqSubsetCodec && e.subject == SubjectParquetArrow {
				arrow = e
			}
			if e.codec == pqSubsetCodec && e.subject == SubjectParquetGo {
				goRead = e
			}
		}
		if ds == "tpch" && arrow.ns > 0 && goRead.ns > 0 {
			lines = append(lines, fmt.Sprintf("tpch, Parquet %s: parquet-go's GenericReader reads it in %s s%s, pqarrow plus the column-wise assembler in %s s%s (%s).",
				pqSubsetCodec, table.Seconds(goRead.ns), table.SamplesMark(goRead.c), table.Seconds(arrow.ns), table.SamplesMark(arrow.c), table.Times(goRead.ns/arrow.ns)))
		}
	}
	lines = append(lines, subFindings(cases)...)
	held, total := 0, 0
	for _, c := range checkClaims(cases) {
		total++
		if c.held {
			held++
		}
		if strings.Contains(c.text, "one-column") && strings.HasPrefix(c.text, "tpch") {
			lines = append(lines, "tpch: "+c.measured+".")
		}
	}
	if total > 0 {
		lines = append(lines, fmt.Sprintf("Of the seed's findings checked here, %d of %d held in this run (see the table below).", held, total))
	}
	failed := map[string]string{}
	var order []string
	for _, c := range cases {
		if c.Status != results.StatusFailed {
			continue
		}
		k := c.Labels.Get(LabelSubject) + " " + c.Labels.Get(LabelCodec)
		if _, ok := failed[k]; !ok {
			order = append(order, k)
			failed[k] = c.Error
		}
	}
	if len(order) > 0 {
		lines = append(lines, fmt.Sprintf("%d subject × codec pairs FAILED verification and are left out of every ranking: %s (first: %s).",
			len(order), strings.Join(order, ", "), failed[order[0]]))
	}
	if len(lines) == 0 {
		return nil, nil
	}
	return []report.Block{table.Findings(lines)}, nil
}

// queryNs returns the median time of subject's read of query q on ds from
// the file of codec c.
func queryNs(cases []*results.Case, ds, subject, c, q string) (float64, bool) {
	for _, k := range table.Where(cases, LabelDataset, ds, LabelOp, OpRead, LabelSubject, subject, LabelCodec, c, LabelQuery, q) {
		if k.OK() {
			return k.Median(results.UnitNsPerOp)
		}
	}
	return 0, false
}

// speedups returns full ÷ query time of subject's single-leaf queries on
// ds (codec c), sorted.
func speedups(cases []*results.Case, ds, subject, c string) []float64 {
	full, ok := queryNs(cases, ds, subject, c, QueryAll)
	if !ok {
		return nil
	}
	var out []float64
	for _, k := range table.Where(cases, LabelDataset, ds, LabelOp, OpRead, LabelSubject, subject, LabelCodec, c) {
		if q := k.Labels.Get(LabelQuery); k.OK() && strings.HasPrefix(q, "k01-") {
			if ns, ok := k.Median(results.UnitNsPerOp); ok && ns > 0 {
				out = append(out, full/ns)
			}
		}
	}
	slices.Sort(out)
	return out
}

// ratios returns query ÷ full read time over the sub-schema queries of
// the subjects (each against its own full read; for a subject without
// one, against fullOf's), sorted.
func ratios(cases []*results.Case, ds, c string, subjects []string, fullOf func(string) string) []float64 {
	var out []float64
	for _, s := range subjects {
		full, ok := queryNs(cases, ds, fullOf(s), c, QueryAll)
		if !ok || full <= 0 {
			continue
		}
		for _, k := range table.Where(cases, LabelDataset, ds, LabelOp, OpRead, LabelSubject, s, LabelCodec, c) {
			if q := k.Labels.Get(LabelQuery); k.OK() && q != QueryAll && q != "" {
				if ns, ok := k.Median(results.UnitNsPerOp); ok {
					out = append(out, ns/full)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func median(v []float64) float64 { return v[len(v)/2] }

// subFindings sums up the sub-schema tiers per dataset: Parquet's
// one-column speedups (the largest column's too), Arrow IPC's two files,
// and the row formats' decode+project and native tiers.
func subFindings(cases []*results.Case) []string {
	var lines []string
	for _, ds := range datasetsIn(cases) {
		var parts []string
		if sp := speedups(cases, ds, SubjectParquetArrow, pqSubsetCodec); len(sp) > 0 {
			p := fmt.Sprintf("parquet-arrow one-column queries are %s–%s faster than the full read (median %s over %d leaves)",
				table.Times(sp[0]), table.Times(sp[len(sp)-1]), table.Times(median(sp)), len(sp))
			big := rowSingles[ds][0]
			full, ok1 := queryNs(cases, ds, SubjectParquetArrow, pqSubsetCodec, QueryAll)
			one, ok2 := queryNs(cases, ds, SubjectParquetArrow, pqSubsetCodec, "k01-"+big)
			if ok1 && ok2 && one > 0 {
				p += fmt.Sprintf("; the largest column, %s, %s", big, table.Times(full/one))
			}
			parts = append(parts, p)
		}
		if sp := speedups(cases, ds, SubjectArrowIPC, "none"); len(sp) > 0 {
			p := fmt.Sprintf("Arrow IPC (arrow-go's reader has no field selection): the uncompressed, memory-mapped file answers one-column queries %s faster than its full read (median; unqueried buffers are sliced, never read)", table.Times(median(sp)))
			if r := ratios(cases, ds, "zstd", []string{SubjectArrowIPC}, func(s string) string { return s }); len(r) > 0 {
				p += fmt.Sprintf(", the zstd file decompresses every buffer and its queries take %s of its full read (median)", table.Pct(median(r)))
			}
			parts = append(parts, p)
		}
		var dp, nat []string
		for _, f := range rowFormatNames() {
			dp = append(dp, f+ParSuffix)
		}
		nat = append(nat, SubjectAvroReaderPar)
		for _, f := range structFormatNames() {
			nat = append(nat, f+StructParSuffix)
		}
		if r := ratios(cases, ds, rowSubsetCodec, dp, func(s string) string { return s }); len(r) > 0 {
			p := fmt.Sprintf("row formats (%s, parallel) decoding and projecting take %s–%s of their full read per query (median %s)",
				rowSubsetCodec, table.Pct(r[0]), table.Pct(r[len(r)-1]), table.Pct(median(r)))
			native := func(s string) string {
				if s == SubjectAvroReaderPar {
					return "avro" + ParSuffix
				}
				return strings.TrimSuffix(s, StructParSuffix) + ParSuffix
			}
			if n := ratios(cases, ds, rowSubsetCodec, nat, native); len(n) > 0 {
				p += fmt.Sprintf("; with native skipping (Avro's reader schema, projection structs for JSON and CBOR) %s–%s (median %s)",
					table.Pct(n[0]), table.Pct(n[len(n)-1]), table.Pct(median(n)))
			}
			parts = append(parts, p)
		}
		if len(parts) > 0 {
			lines = append(lines, ds+" sub-schema: "+strings.Join(parts, "; ")+".")
		}
	}
	return lines
}
