package data

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload/filecase"
)

// Derive implements workload.Workload: the file workloads' derived blocks
// (the size table read against the input file) and data's own: findings,
// the input and its schema, the formats not measured, the Parquet column
// sizes and what generated code would gain — from the results only.
func (*Workload) Derive(run *results.Run, cases []*results.Case) table.Derived {
	d := filecase.Derive(Name, run, cases, inputRef(run))
	d["findings"] = []table.Block{findings(run, cases)}
	d["input"] = inputBlocks(run)
	d["columns"] = []table.Block{columns(run, cases)}
	d["codegen"] = codegen(run, cases)
	if b := inFormat(run, cases); b != nil {
		d["in-format"] = []table.Block{b}
	}
	if note := siblingsNote(run); note != "" && len(d["combined"]) > 0 {
		if t, ok := d["combined"][0].(*table.Table); ok {
			t.Notes = []string{note}
		}
	}
	var lines []string
	for _, f := range descriptors(run, filecase.LabelFormat) {
		if why := f.Settings[SettingNotMeasured]; why != "" {
			lines = append(lines, fmt.Sprintf("%s was not measured: %s.", f.Name, why))
		}
	}
	if len(lines) > 0 {
		d["not-measured"] = []table.Block{&table.Text{Body: strings.Join(lines, "\n\n")}}
	}
	return d
}

// Summary implements workload.Workload: the file workloads' summary for
// this data.
func (*Workload) Summary(run *results.Run, cases []*results.Case) *table.Table {
	return filecase.Summary(Name, run, cases)
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

// findings opens the report: the input, the smallest, fastest and best
// balanced pairs, the biggest Parquet column and the failed cases.
func findings(run *results.Run, cases []*results.Case) *table.Text {
	var lines []string
	in := inputDescriptor(run)
	if in != nil {
		top, nested := 0, 0
		for _, c := range descriptors(run, KeyColumn) {
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
		vs := ""
		if p.Saved() > 0 {
			vs = ", " + table.Pct(p.Saved()) + " smaller than " + p.Format + " uncompressed"
		}
		if ref := inputRef(run); ref != nil && !ref.Partial {
			vs = fmt.Sprintf(", %s than your file (%s, %s)", filecase.VsRef(p.FileB, ref.Bytes), table.Bytes(ref.Bytes), kindLabel(in))
		}
		lines = append(lines, fmt.Sprintf("Smallest file: **%s**, %s%s.", p.Subject(), table.Bytes(p.FileB), vs))
	}
	if w, r := picks["Fastest write"], picks["Fastest read"]; w.Name != "" && r.Name != "" {
		lines = append(lines, fmt.Sprintf("Fastest write: **%s** (%s%s); fastest read, every row verified: **%s** (%s%s).",
			w.Subject(), table.Duration(w.WriteNs), fewNote(w.WriteN), r.Subject(), table.Duration(r.ReadNs), fewNote(r.ReadN)))
	}
	if p, ok := picks["Best balance"]; ok {
		lines = append(lines, fmt.Sprintf("Best balance of size and round trip: **%s** (%s, write + read %s%s).", p.Subject(), table.Bytes(p.FileB), table.Duration(p.TotalNs()), fewNote(min(p.WriteN, p.ReadN))))
	}
	if cols, total := columnSizes(cases); len(cols) > 0 && total > 0 {
		lines = append(lines, fmt.Sprintf("Column **%s** takes %s of the uncompressed Parquet file's column data (%s).", cols[0].path, table.Pct(cols[0].bytes/total), table.Bytes(cols[0].bytes)))
	}
	var hold []*results.Case
	other := 0
	for _, c := range cases {
		if c.Status == results.StatusFailed && strings.Contains(c.Error, CannotHold) {
			hold = append(hold, c)
		} else if c.Status == results.StatusFailed {
			other++
		}
	}
	if len(hold) > 0 {
		lines = append(lines, fmt.Sprintf("%s FAILED because the format cannot hold this data (%s); see Anomalies for the reasons.", plural(len(hold), "case"), filecase.CondenseCases(hold, false, 300)))
	}
	if other > 0 {
		lines = append(lines, fmt.Sprintf("%s FAILED otherwise (verification, set-up or a run error), each left out of every ranking; see Anomalies, one line per distinct error.", plural(other, "case")))
	}
	return table.Findings(lines)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// inputRef is the input file as the size table's reference row, from the
// input descriptor (nil if the run recorded none or not its size).
func inputRef(run *results.Run) *filecase.SizeRef {
	in := inputDescriptor(run)
	if in == nil || !(setInt(in, SettingBytes) > 0) {
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

// kinds name the input kinds for people.
var kinds = map[string]string{"jsonl": "JSON Lines", "json": "JSON", "csv": "CSV", "tsv": "TSV", "parquet": "Parquet", "arrow": "Arrow", "arrows": "Arrow stream", "avro": "Avro"}

// kindLabel names the input's kind and the codec around it: "CSV",
// "JSON Lines, gzip".
func kindLabel(in *results.Descriptor) string {
	k := in.Settings[SettingKind]
	if n, ok := kinds[k]; ok {
		k = n
	}
	if c := in.Settings[SettingCompression]; c != "" && c != "none" {
		k += ", " + c
	}
	return k
}

// inputBlocks describe the input file, its schema and the inference
// notes, as the run recorded them in its descriptors.
func inputBlocks(run *results.Run) []table.Block {
	in := inputDescriptor(run)
	if in == nil {
		return nil
	}
	limit, skip := table.Num(setInt(in, SettingLimit), table.IntF), "off: a malformed line fails the run"
	if !(setInt(in, SettingLimit) > 0) {
		limit = table.Str("none (the whole input)")
	}
	if in.Settings[SettingSkipBad] == "true" {
		skip = table.Int(setInt(in, SettingSkipped)) + " bad lines skipped and counted"
	}
	facts := &table.Table{Caption: "Input", Header: []string{"", ""}, Rows: [][]table.Cell{
		{table.Str("file"), table.Str(in.What)},
		{table.Str("kind / compression"), table.Str(in.Settings[SettingKind] + " / " + compressionText(in.Settings[SettingCompression], in.Settings[SettingInnerCompression]))},
		{table.Str("file size"), table.Num(setInt(in, SettingBytes), table.BytesF)},
		{table.Str("rows measured"), table.Num(setInt(in, SettingRows), table.IntF)},
		{table.Str("row limit"), limit},
	}}
	if v := in.Settings[SettingSample]; v != "" {
		facts.AddRow(table.Str("sample"), table.Str(v))
	}
	if v := in.Settings[SettingInferRows]; v != "" {
		facts.AddRow(table.Str("--infer-rows"), table.Str(v))
	}
	facts.AddRow(table.Str("--skip-bad"), table.Str(skip))
	schema := &table.Table{Caption: "Schema (as read: stored for Parquet, Arrow and Avro, inferred for JSON Lines and CSV)", Header: []string{"column", "Arrow type", "nullable"},
		Notes: []string{"Nested fields are dotted paths; list elements end in []."}}
	for _, c := range descriptors(run, KeyColumn) {
		null := "no"
		if c.Settings["nullable"] == "true" {
			null = "yes"
		}
		schema.AddRow(table.Str(c.Name), table.Str(c.What), table.Str(null))
	}
	var notes []string
	for _, n := range descriptors(run, KeyNote) {
		notes = append(notes, n.What)
	}
	blocks := []table.Block{facts}
	if len(schema.Rows) > 0 {
		blocks = append(blocks, schema)
	}
	if len(notes) > 0 {
		blocks = append(blocks, &table.Text{Body: "Schema inference notes:\n\n- " + strings.Join(notes, "\n- ")})
	}
	return blocks
}

// column is one Parquet column chunk path and its size.
type column struct {
	path  string
	bytes float64
}

// columnSizes reads the per-column metrics of the Parquet read case,
// biggest first, and their total.
func columnSizes(cases []*results.Case) (out []column, total float64) {
	if pq := table.Where(cases, filecase.LabelFormat, "parquet", filecase.LabelOp, filecase.OpRead); len(pq) > 0 {
		for k, v := range pq[0].Metrics {
			if p, ok := strings.CutPrefix(k, MetricColumnPrefix); ok {
				out, total = append(out, column{path: p, bytes: v}), total+v
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].bytes != out[j].bytes {
			return out[i].bytes > out[j].bytes
		}
		return out[i].path < out[j].path
	})
	return out, total
}

// maxColumnRows caps the columns listed by name.
const maxColumnRows = 30

// columns is the table of the Parquet column chunks' sizes.
func columns(run *results.Run, cases []*results.Case) table.Block {
	cols, total := columnSizes(cases)
	in := inputDescriptor(run)
	if len(cols) == 0 {
		if in == nil {
			return nil
		}
		return &table.Text{Body: "No Parquet read case in this run: include the parquet format (--formats parquet, and no --filter excluding its read) to see which columns make the file big."}
	}
	rows := math.NaN()
	if in != nil {
		rows = setInt(in, SettingRows)
	}
	t := &table.Table{Header: []string{"column", "bytes", "share", "bytes/row"},
		Notes: []string{"From the footer of the Parquet file the parquet read case read (dictionary encoding on, no compression): each column chunk's stored bytes, summed over row groups. " +
			"share = the column's bytes ÷ all column chunks' bytes. A column with a high share is where a smaller type, a dictionary-friendly value or dropping the column pays most; a compressing codec shrinks every column, not this ranking's order necessarily."}}
	for i, c := range cols {
		if i == maxColumnRows {
			var rest float64
			for _, o := range cols[i:] {
				rest += o.bytes
			}
			t.AddRow(table.Str(fmt.Sprintf("(%d more columns)", len(cols)-i)), table.Num(rest, table.IntF), table.Num(rest/total, table.PctF), table.Dash())
			break
		}
		t.AddRow(table.Str(c.path), table.Num(c.bytes, table.IntF), table.Num(c.bytes/total, table.PctF), table.Num(c.bytes/rows, table.Plain))
	}
	return t
}

// recordsTwins maps a data format to the records formats of its family it
// is compared with when their names differ: the same format (records'
// reflection or hand-written mapping on records' own data) and, where
// records has one, its generated code.
var recordsTwins = map[string][]string{"parquet": {"parquet-none"}, "msgpack": {"msgpack", "msgpack-msgp"}, "protobuf-dynamicpb": {"protobuf"}, "protobuf-wire": {"protobuf"},
	"avro-ocf-zstd": {"avro-ocf-zstandard"}, "arrow-stream-zstd": {"arrow-file-zstd"}, "arrow-stream-lz4": {"arrow-file-lz4"}}

// codegen compares this data's schema-driven paths with the records
// workload's formats of the same family (codec none), when the run
// measured both.
func codegen(run *results.Run, cases []*results.Case) []table.Block {
	if len(descriptors(run, filecase.LabelFormat)) == 0 {
		return nil
	}
	// records' plain pairs only: not its unbuffered variant.
	rec := run.Filter(filecase.RecordsWorkload, func(c *results.Case) bool { return c.Labels.Get(filecase.LabelVariant) == "" })
	if len(rec) == 0 {
		return []table.Block{&table.Text{Body: "Every format here runs code driven by the schema at run time (see Method); none is generated for this data. " +
			"The records workload is not in this results file, so its generated-code-vs-reflection rows cannot say what generated code would gain. " +
			"Measure both in one run: `serbench run records data --input FILE` (records at the same --scale)."}}
	}
	recIx, dataIx := table.NewIndex(rec, filecase.LabelFormat, filecase.LabelCodec, filecase.LabelOp), table.NewIndex(cases, filecase.LabelFormat, filecase.LabelCodec, filecase.LabelOp)
	// perRow is the median time per record (row) of format f's op at codec
	// none, NaN when unknown.
	perRow := func(ix *table.Index, f, op string) float64 { return filecase.PerRecord(ix.Get(f, "none", op)) }
	var blocks []table.Block
	// records' own codegen-vs-reflection pair: MessagePack by reflection
	// (vmihailenco) and generated (msgp).
	w := perRow(recIx, "msgpack", filecase.OpWrite) / perRow(recIx, "msgpack-msgp", filecase.OpWrite)
	if r := perRow(recIx, "msgpack", filecase.OpRead) / perRow(recIx, "msgpack-msgp", filecase.OpRead); !math.IsNaN(w) || !math.IsNaN(r) {
		blocks = append(blocks, &table.Text{Body: fmt.Sprintf("In the records workload of this run, generated MessagePack code (msgpack-msgp) against reflection (msgpack), both uncompressed on the same records: reflection takes %s the generated write's time and %s the generated read's. "+
			"That is the gain generated code has over a generic path on flat records.", table.Num(w, table.TimesF), table.Num(r, table.TimesF))})
	}
	t := &table.Table{
		Caption: "Per record: this data's schema-driven path against the records workload's format of the same family (codec none)",
		Header:  []string{"data format", "records format", "records code", "data write/row", "records write/record", "ratio", "data read/row", "records read/record", "ratio"},
		Notes: []string{"ratio = this data's time per row ÷ records' time per record. The two workloads measure different records unless --input is a file of records' own data; " +
			"then, against a codegen row, a ratio above 1× is the factor generated code would gain here; against a reflection row, a ratio below 1× is what the schema-driven path already saves over reflection."},
	}
	for _, f := range table.Distinct(cases, filecase.LabelFormat) {
		twins, ok := recordsTwins[f]
		if !ok {
			twins = []string{f}
		}
		for _, twin := range twins {
			if dataIx.Get(f, "none", filecase.OpWrite) == nil && dataIx.Get(f, "none", filecase.OpRead) == nil ||
				recIx.Get(twin, "none", filecase.OpWrite) == nil && recIx.Get(twin, "none", filecase.OpRead) == nil {
				continue
			}
			code := "–"
			if d := run.Descriptor(filecase.RecordsWorkload, filecase.LabelFormat, twin); d != nil {
				for _, tag := range d.Tags {
					if tag == "codegen" || tag == "reflection" || tag == "handwritten" {
						code = tag
					}
				}
			}
			row := []table.Cell{table.Str(f), table.Str(twin), table.Str(code)}
			for _, op := range []string{filecase.OpWrite, filecase.OpRead} {
				d, r := perRow(dataIx, f, op), perRow(recIx, twin, op)
				row = append(row, table.Num(d, table.DurationF), table.Num(r, table.DurationF), table.Num(d/r, table.TimesF))
			}
			t.AddRow(row...)
		}
	}
	if len(t.Rows) > 0 {
		blocks = append(blocks, t)
	}
	if len(blocks) == 0 {
		blocks = append(blocks, &table.Text{Body: "The records cases of this run share no format with this data's cases at codec none: run `serbench run records data --input FILE` without filters to compare."})
	}
	return blocks
}

// selfCompressing returns the run's formats that compress themselves, in
// the order recorded, each with its uncompressed sibling and the codec it
// compresses with (its name's part after the sibling's: parquet-zstd →
// parquet, zstd).
func selfCompressing(run *results.Run) (formats, siblings, codecs []string) {
	for _, f := range descriptors(run, filecase.LabelFormat) {
		if !slices.Contains(f.Tags, filecase.TagCompresses) {
			continue
		}
		sib := filecase.PlainOf(Name, run, f.Name)
		if sib == f.Name {
			continue // no uncompressed sibling in the run
		}
		formats, siblings = append(formats, f.Name), append(siblings, sib)
		codecs = append(codecs, strings.TrimPrefix(f.Name, strings.TrimSuffix(sib, "-none")+"-"))
	}
	return formats, siblings, codecs
}

// siblingsNote is the combined table's note naming, for this run, the
// sibling each self-compressing format's saving is measured against; ""
// when the run has none.
func siblingsNote(run *results.Run) string {
	formats, siblings, _ := selfCompressing(run)
	if len(formats) == 0 {
		return ""
	}
	var parts []string
	for i := 0; i < len(formats); {
		j := i
		for j < len(formats) && siblings[j] == siblings[i] {
			j++
		}
		parts = append(parts, strings.Join(formats[i:j], " and ")+" against "+siblings[i])
		i = j
	}
	return "% saved = 1 − file ÷ the same format uncompressed (codec none); for a format that compresses itself, its uncompressed sibling: " + strings.Join(parts, ", ") + "."
}

// aroundCodec is the outer codec that compresses as a format's own codec
// does (deflate: gzip, the same DEFLATE with a header).
var aroundCodec = map[string]string{"deflate": "gzip"}

// inFormat compares each format that compresses itself (Parquet pages, Arrow
// IPC buffers, Avro blocks) with its uncompressed sibling and with the same
// codec around the sibling, when the run measured them.
func inFormat(run *results.Run, cases []*results.Case) table.Block {
	formats, siblings, codecs := selfCompressing(run)
	if len(formats) == 0 {
		return nil
	}
	ix := table.NewIndex(cases, filecase.LabelFormat, filecase.LabelCodec, filecase.LabelOp)
	size := func(f, c string) float64 {
		if w := ix.Get(f, c, filecase.OpWrite); w != nil && w.OK() {
			return w.Metrics[filecase.MetricFile]
		}
		return math.NaN()
	}
	med := func(f, c, op string) float64 {
		if k := ix.Get(f, c, op); k != nil && k.OK() {
			if st, ok := k.Stat(results.UnitNsPerOp); ok {
				return st.Median
			}
		}
		return math.NaN()
	}
	t := &table.Table{Caption: "Compression inside the format, against its uncompressed sibling and the same codec around it",
		Header: []string{"format", "codec inside", "size (MiB)", "% saved", "write cost", "read cost", "same codec around", "its size (MiB)", "its write cost", "its read cost"},
		Notes: []string{"% saved = 1 − file ÷ the uncompressed sibling's file; write cost and read cost = the median time ÷ the sibling's with codec none (1× = free). " +
			"same codec around = the sibling with that codec as the outer codec (deflate: gzip), where this run measured it: compressing inside keeps the format's structure (a Parquet reader still reads one column; an Arrow or Avro reader decompresses per buffer or block), compressing around compresses the stream whole."}}
	for i, f := range formats {
		sib, c := siblings[i], codecs[i]
		s, ps := size(f, "none"), size(sib, "none")
		around := c
		if a, ok := aroundCodec[c]; ok {
			around = a
		}
		row := []table.Cell{table.Str(f), table.Str(c), mibCell(s), table.Num(1-s/ps, table.PctF),
			table.Num(med(f, "none", filecase.OpWrite)/med(sib, "none", filecase.OpWrite), table.TimesF),
			table.Num(med(f, "none", filecase.OpRead)/med(sib, "none", filecase.OpRead), table.TimesF)}
		if as := size(sib, around); !math.IsNaN(as) {
			row = append(row, table.Str(sib+" + "+around), mibCell(as),
				table.Num(med(sib, around, filecase.OpWrite)/med(sib, "none", filecase.OpWrite), table.TimesF),
				table.Num(med(sib, around, filecase.OpRead)/med(sib, "none", filecase.OpRead), table.TimesF))
		} else {
			row = append(row, table.Dash(), table.Dash(), table.Dash(), table.Dash())
		}
		t.AddRow(row...)
	}
	return t
}

// mibCell is a size in MiB, "–" when unknown.
func mibCell(b float64) table.Cell {
	if math.IsNaN(b) || b <= 0 {
		return table.Dash()
	}
	return table.Num(b, table.MiBF)
}
