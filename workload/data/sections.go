package data

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload/filecase"
)

// Sections implements workload.Workload: computed findings, the input and
// its schema, the method and which paths are schema-driven, the records
// workload's tables, Pareto plot and recommendations for this data, the
// per-column size breakdown, what generated code would gain, and the
// anomalies. Every section renders from the results only.
func (*Workload) Sections() []report.Section {
	out := []report.Section{
		{Workload: Name, Title: "Findings", Render: renderFindings},
		{Workload: Name, Title: "Input and schema", Render: renderInput},
		{Workload: Name, Title: "Method: schema-driven formats", Render: renderMethod},
	}
	out = append(out, filecase.FileSectionsRef(Name, inputRef)...)
	return append(out,
		report.Section{Workload: Name, Title: "Which columns make the file big (Parquet column chunks)", Render: renderColumns},
		report.Section{Workload: Name, Title: "What generated code would gain", Render: renderCodegen},
		filecase.AnomaliesSection(Name),
	)
}

// Summary implements workload.Workload: the file workloads' summary
// (filecase.FileSummary, records' too) for this data.
func (w *Workload) Summary(run *results.Run, cases []*results.Case) *table.Table {
	return report.Typed(w.summary(run, cases))
}

func (*Workload) summary(run *results.Run, cases []*results.Case) *report.Table {
	return filecase.FileSummary(Name, run, cases)
}

// descriptors returns the run's data descriptors with key k, in the order
// recorded.
func descriptors(run *results.Run, k string) []results.Descriptor {
	var out []results.Descriptor
	for _, d := range run.Descriptors {
		if d.Workload == Name && d.Key == k {
			out = append(out, d)
		}
	}
	return out
}

func inputDescriptor(run *results.Run) *results.Descriptor {
	if ds := descriptors(run, KeyInput); len(ds) > 0 {
		return &ds[0]
	}
	return nil
}

func setInt(d *results.Descriptor, k string) float64 {
	v, err := strconv.ParseFloat(d.Settings[k], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// fewNote is ", n=1" or ", n=2" for a median of fewer than
// table.FewSamples samples (to close a parenthesis with), else "".
func fewNote(n int) string {
	if s := table.SamplesNote(n); s != "" {
		return ", " + s
	}
	return ""
}

// maxNamesText caps the case names a finding lists.
const maxNamesText = 300

// countOK counts the cases that succeeded or were skipped.
func countOK(cases []*results.Case) int {
	n := 0
	for _, c := range cases {
		if c.Status != results.StatusFailed {
			n++
		}
	}
	return n
}

// cannotHold returns the failed cases whose format cannot hold the data.
func cannotHold(cases []*results.Case) []*results.Case {
	var out []*results.Case
	for _, c := range cases {
		if c.Status == results.StatusFailed && strings.Contains(c.Error, CannotHold) {
			out = append(out, c)
		}
	}
	return out
}

func renderFindings(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	in := inputDescriptor(run)
	if in == nil && len(cases) == 0 {
		return nil, nil
	}
	var lines []string
	if in != nil {
		cols := descriptors(run, KeyColumn)
		top, nested := 0, 0
		for _, c := range cols {
			if c.Settings["depth"] == "0" {
				top++
			} else {
				nested++
			}
		}
		line := fmt.Sprintf("Input **%s** (%s): %s rows × %d columns", in.Name, in.Settings[SettingKind], table.Int(setInt(in, SettingRows)), top)
		if nested > 0 {
			line += fmt.Sprintf(" (%d nested fields)", nested)
		}
		if s := setInt(in, SettingSkipped); s > 0 {
			line += fmt.Sprintf("; %s bad lines skipped (--skip-bad)", table.Int(s))
		}
		lines = append(lines, line+".")
	}
	picks := map[string]filecase.Pick{}
	for _, p := range filecase.Picks(Name, run, cases) {
		picks[p.Name] = p
	}
	if p, ok := picks["Smallest file"]; ok {
		vs := savedText(p)
		if ref := inputRef(run); ref != nil && !ref.Partial && ref.Bytes > 0 {
			vs = fmt.Sprintf(", %s than your file (%s, %s)", filecase.VsRef(p.FileB, ref.Bytes), table.Bytes(ref.Bytes), kindLabel(in))
		}
		lines = append(lines, fmt.Sprintf("Smallest file: **%s**, %s%s.", p.Subject, table.Bytes(p.FileB), vs))
	}
	w, okw := picks["Fastest write"]
	r, okr := picks["Fastest read"]
	if okw && okr {
		lines = append(lines, fmt.Sprintf("Fastest write: **%s** (%s%s); fastest read, every row verified: **%s** (%s%s).",
			w.Subject, table.Duration(w.WriteNs), fewNote(w.WriteN), r.Subject, table.Duration(r.ReadNs), fewNote(r.ReadN)))
	}
	if p, ok := picks["Best balance"]; ok {
		lines = append(lines, fmt.Sprintf("Best balance of size and round trip: **%s** (%s, write + read %s%s).", p.Subject, table.Bytes(p.FileB), table.Duration(p.WriteNs+p.ReadNs), fewNote(min(p.WriteN, p.ReadN))))
	}
	if cols := columnSizes(cases); len(cols) > 0 {
		var total float64
		for _, c := range cols {
			total += c.bytes
		}
		if total > 0 {
			lines = append(lines, fmt.Sprintf("Column **%s** takes %s of the uncompressed Parquet file's column data (%s).", cols[0].path, table.Pct(cols[0].bytes/total), table.Bytes(cols[0].bytes)))
		}
	}
	if ch := cannotHold(cases); len(ch) > 0 {
		lines = append(lines, fmt.Sprintf("%s FAILED because the format cannot hold this data (%s); see Anomalies for the reasons.", plural(len(ch), "case"), filecase.CondenseCases(ch, false, maxNamesText)))
	}
	if n := len(cases) - countOK(cases) - len(cannotHold(cases)); n > 0 {
		lines = append(lines, fmt.Sprintf("%s FAILED otherwise (verification, set-up or a run error), each left out of every ranking; see Anomalies, one line per distinct error.", plural(n, "case")))
	}
	if len(lines) == 0 {
		return nil, nil
	}
	return []report.Block{table.Findings(lines)}, nil
}

// inputRef is the input file as the size table's reference row, from the
// input descriptor (nil if the run recorded none or not its size).
func inputRef(run *results.Run) *filecase.SizeRef {
	in := inputDescriptor(run)
	if in == nil || setInt(in, SettingBytes) <= 0 {
		return nil
	}
	ref := &filecase.SizeRef{Name: in.Name, What: "your file: " + kindLabel(in), Bytes: setInt(in, SettingBytes)}
	rows, limit := setInt(in, SettingRows), setInt(in, SettingLimit)
	switch {
	case in.Settings[SettingSample] != "":
		ref.Partial, ref.Why = true, "the rows measured are a sample of it (--sample "+in.Settings[SettingSample]+")"
	case limit > 0 && rows >= limit:
		ref.Partial, ref.Why = true, "only its first "+table.Int(limit)+" rows were measured (--limit)"
	default:
		ref.Records = rows
	}
	return ref
}

// kindLabel names the input's kind and the codec around it: "CSV",
// "JSON Lines, gzip".
func kindLabel(in *results.Descriptor) string {
	k := in.Settings[SettingKind]
	switch k {
	case "jsonl":
		k = "JSON Lines"
	case "json", "csv", "tsv":
		k = strings.ToUpper(k)
	case "parquet":
		k = "Parquet"
	case "arrow":
		k = "Arrow"
	case "arrows":
		k = "Arrow stream"
	case "avro":
		k = "Avro"
	}
	if c := in.Settings[SettingCompression]; c != "" && c != "none" {
		k += ", " + c
	}
	return k
}

func savedText(p filecase.Pick) string {
	if !math.IsNaN(p.Saved) && p.Saved > 0 {
		return ", " + table.Pct(p.Saved) + " smaller than " + p.Format + " uncompressed"
	}
	return ""
}

func renderInput(run *results.Run, _ []*results.Case) ([]report.Block, error) {
	in := inputDescriptor(run)
	if in == nil {
		return nil, nil
	}
	facts := &report.Table{Caption: "Input", Header: []string{"", ""}}
	add := func(k, v string) { facts.Rows = append(facts.Rows, []string{k, v}) }
	add("file", in.What)
	add("kind / compression", in.Settings[SettingKind]+" / "+compressionText(in.Settings[SettingCompression], in.Settings[SettingInnerCompression]))
	add("file size", table.Bytes(setInt(in, SettingBytes)))
	add("rows measured", table.Int(setInt(in, SettingRows)))
	if l := setInt(in, SettingLimit); l > 0 {
		add("row limit", table.Int(l))
	} else {
		add("row limit", "none (the whole input)")
	}
	if s := in.Settings[SettingSample]; s != "" {
		add("sample", s)
	}
	if s := in.Settings[SettingInferRows]; s != "" {
		add("--infer-rows", s)
	}
	skip := "off: a malformed line fails the run"
	if in.Settings[SettingSkipBad] == "true" {
		skip = table.Int(setInt(in, SettingSkipped)) + " bad lines skipped and counted"
	}
	add("--skip-bad", skip)
	blocks := []report.Block{facts}
	cols := descriptors(run, KeyColumn)
	if len(cols) > 0 {
		t := &report.Table{Caption: "Schema (as read: stored for Parquet, Arrow and Avro, inferred for JSON Lines and CSV)", Header: []string{"column", "Arrow type", "nullable"}}
		for _, c := range cols {
			null := "no"
			if c.Settings["nullable"] == "true" {
				null = "yes"
			}
			t.Rows = append(t.Rows, []string{c.Name, c.What, null})
		}
		t.Notes = []string{"Nested fields are dotted paths; list elements end in []."}
		blocks = append(blocks, t)
	}
	if notes := descriptors(run, KeyNote); len(notes) > 0 {
		var ls []string
		for _, n := range notes {
			ls = append(ls, n.What)
		}
		blocks = append(blocks, &report.Text{Body: "Schema inference notes:\n\n- " + strings.Join(ls, "\n- ")})
	}
	return blocks, nil
}

func renderMethod(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	fmts := descriptors(run, filecase.LabelFormat)
	if len(fmts) == 0 {
		return nil, nil
	}
	t := &report.Table{Caption: "Formats", Header: []string{"format", "library", "code path", "outer codecs", "detail"}}
	for _, d := range fmts {
		outer := "all"
		for _, tag := range d.Tags {
			if tag == filecase.TagRandomAccess || tag == filecase.TagCompresses {
				outer = "none only (random access or compresses itself)"
			}
		}
		if why := d.Settings[SettingNotMeasured]; why != "" {
			outer += "; not measured: " + why
		}
		path := d.Settings["path"]
		if path == "" {
			path = "–"
			outer = "–"
		}
		lib := d.Library()
		if lib == "" {
			lib = "–"
		}
		t.Rows = append(t.Rows, []string{d.Name, lib, path, outer, d.What})
	}
	text := &report.Text{Body: fmt.Sprintf("The input is read once, before any timing, into Arrow record batches held in memory (at most the row limit). "+
		"No code is generated for the user's data: every format is driven by the Arrow schema at run time. Each write streams the batches through the format's encoder, the codec and a 256 KiB buffer into a real file; "+
		"each read streams the file back (read → decompress → decode) and compares every decoded row with the input — NULLs, nesting and floats bit for bit — inside the timed read. "+
		"Before a write is timed, the pair round-trips the first %s rows through a scratch file. A format that cannot hold the schema or one of its values (nested data in CSV, NaN in JSON) is a FAILED case with the reason, never a silent change. "+
		"Sampling, floors (read-bytes, decompress) and medians are the records workload's; its tables, plot and recommendation rules follow.", table.Int(filecase.VerifyRecords))}
	return []report.Block{text, t}, nil
}

// column is one Parquet column chunk path and its sizes.
type column struct {
	path  string
	bytes float64
}

// columnSizes reads the per-column metrics of the Parquet read case,
// biggest first.
func columnSizes(cases []*results.Case) []column {
	for _, c := range cases {
		if c.Labels.Get(filecase.LabelFormat) != "parquet" || c.Labels.Get(filecase.LabelOp) != filecase.OpRead {
			continue
		}
		var out []column
		for k, v := range c.Metrics {
			if p, ok := strings.CutPrefix(k, MetricColumnPrefix); ok {
				out = append(out, column{path: p, bytes: v})
			}
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].bytes != out[j].bytes {
				return out[i].bytes > out[j].bytes
			}
			return out[i].path < out[j].path
		})
		return out
	}
	return nil
}

// maxColumnRows caps the columns listed by name.
const maxColumnRows = 30

func renderColumns(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	cols := columnSizes(cases)
	if len(cols) == 0 {
		if inputDescriptor(run) == nil {
			return nil, nil
		}
		return []report.Block{&report.Text{Body: "No Parquet read case in this run: include the parquet format (--formats parquet, and no --filter excluding its read) to see which columns make the file big."}}, nil
	}
	rows := 0.0
	if in := inputDescriptor(run); in != nil {
		rows = setInt(in, SettingRows)
	}
	var total float64
	for _, c := range cols {
		total += c.bytes
	}
	t := &report.Table{Header: []string{"column", "bytes", "share", "bytes/row"}}
	for i, c := range cols {
		if i == maxColumnRows {
			var rest float64
			for _, o := range cols[i:] {
				rest += o.bytes
			}
			t.Rows = append(t.Rows, []string{fmt.Sprintf("(%d more columns)", len(cols)-i), table.Int(rest), table.Pct(rest / total), "–"})
			break
		}
		perRow := "–"
		if rows > 0 {
			perRow = table.Float(c.bytes / rows)
		}
		t.Rows = append(t.Rows, []string{c.path, table.Int(c.bytes), table.Pct(c.bytes / total), perRow})
	}
	t.Notes = []string{"From the footer of the Parquet file the parquet read case read (dictionary encoding on, no compression): each column chunk's stored bytes, summed over row groups. " +
		"share = the column's bytes ÷ all column chunks' bytes. A column with a high share is where a smaller type, a dictionary-friendly value or dropping the column pays most; a compressing codec shrinks every column, not this ranking's order necessarily."}
	return []report.Block{t}, nil
}

// recordsTwins maps a data format to the records formats of its family it
// is compared with: the same format (records' reflection or hand-written
// mapping on records' own data) and, where records has one, its generated
// code.
func recordsTwins(name string) []string {
	switch name {
	case "parquet":
		return []string{"parquet-none"}
	case "msgpack":
		return []string{"msgpack", "msgpack-msgp"}
	case "protobuf-dynamicpb", "protobuf-wire":
		return []string{"protobuf"}
	}
	return []string{name}
}

func medianNs(c *results.Case) float64 {
	if c == nil || !c.OK() {
		return math.NaN()
	}
	v, ok := c.Median(results.UnitNsPerOp)
	if !ok {
		return math.NaN()
	}
	return v
}

// perRow is a case's median time per record (row).
func perRow(c *results.Case) float64 {
	if c == nil {
		return math.NaN()
	}
	n := c.Metrics[filecase.MetricRecords]
	if n <= 0 {
		return math.NaN()
	}
	return medianNs(c) / n
}

func renderCodegen(run *results.Run, cases []*results.Case) ([]report.Block, error) {
	if len(descriptors(run, filecase.LabelFormat)) == 0 {
		return nil, nil
	}
	// records' plain pairs only: not its unbuffered variant.
	rec := run.Filter(filecase.RecordsWorkload, func(c *results.Case) bool { return c.Labels.Get(filecase.LabelVariant) == "" })
	if len(rec) == 0 {
		return []report.Block{&report.Text{Body: "Every format here runs code driven by the schema at run time (see Method); none is generated for this data. " +
			"The records workload is not in this results file, so its generated-code-vs-reflection rows cannot say what generated code would gain. " +
			"Measure both in one run: `serbench run records data --input FILE` (records at the same --scale)."}}, nil
	}
	recIx := table.NewIndex(rec, filecase.LabelFormat, filecase.LabelCodec, filecase.LabelOp)
	dataIx := table.NewIndex(cases, filecase.LabelFormat, filecase.LabelCodec, filecase.LabelOp)
	var blocks []report.Block
	// records' own codegen-vs-reflection pair: MessagePack by reflection
	// (vmihailenco) and generated (msgp), codec none.
	refl := recIx.Get("msgpack", "none", filecase.OpWrite)
	gen := recIx.Get("msgpack-msgp", "none", filecase.OpWrite)
	reflR := recIx.Get("msgpack", "none", filecase.OpRead)
	genR := recIx.Get("msgpack-msgp", "none", filecase.OpRead)
	if w, r := medianNs(refl)/medianNs(gen), medianNs(reflR)/medianNs(genR); !math.IsNaN(w) || !math.IsNaN(r) {
		blocks = append(blocks, &report.Text{Body: fmt.Sprintf("In the records workload of this run, generated MessagePack code (msgpack-msgp) against reflection (msgpack), both uncompressed on the same records: reflection takes %s the generated write's time and %s the generated read's. "+
			"That is the gain generated code has over a generic path on flat records.", timesOrDash(w), timesOrDash(r))})
	}
	t := &report.Table{
		Caption: "Per record: this data's schema-driven path against the records workload's format of the same family (codec none)",
		Header:  []string{"data format", "records format", "records code", "data write/row", "records write/record", "ratio", "data read/row", "records read/record", "ratio"},
	}
	info := map[string]results.Descriptor{}
	for _, d := range run.Descriptors {
		if d.Workload == filecase.RecordsWorkload && d.Key == filecase.LabelFormat {
			info[d.Name] = d
		}
	}
	for _, f := range table.Distinct(cases, filecase.LabelFormat) {
		dw, dr := dataIx.Get(f, "none", filecase.OpWrite), dataIx.Get(f, "none", filecase.OpRead)
		if dw == nil && dr == nil {
			continue
		}
		for _, twin := range recordsTwins(f) {
			rw, rr := recIx.Get(twin, "none", filecase.OpWrite), recIx.Get(twin, "none", filecase.OpRead)
			if rw == nil && rr == nil {
				continue
			}
			code := "–"
			if d, ok := info[twin]; ok {
				for _, tag := range d.Tags {
					if tag == "codegen" || tag == "reflection" || tag == "handwritten" {
						code = tag
					}
				}
			}
			t.Rows = append(t.Rows, []string{f, twin, code,
				durOrDash(perRow(dw)), durOrDash(perRow(rw)), timesOrDash(perRow(dw) / perRow(rw)),
				durOrDash(perRow(dr)), durOrDash(perRow(rr)), timesOrDash(perRow(dr) / perRow(rr))})
		}
	}
	if len(t.Rows) > 0 {
		t.Notes = []string{"ratio = this data's time per row ÷ records' time per record. The two workloads measure different records unless --input is a file of records' own data; " +
			"then, against a codegen row, a ratio above 1× is the factor generated code would gain here; against a reflection row, a ratio below 1× is what the schema-driven path already saves over reflection."}
		blocks = append(blocks, t)
	}
	if len(blocks) == 0 {
		blocks = append(blocks, &report.Text{Body: "The records cases of this run share no format with this data's cases at codec none: run `serbench run records data --input FILE` without filters to compare."})
	}
	return blocks, nil
}

func timesOrDash(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
		return "–"
	}
	return table.Times(x)
}

func durOrDash(ns float64) string {
	if math.IsNaN(ns) || ns <= 0 {
		return "–"
	}
	return table.Duration(ns)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
