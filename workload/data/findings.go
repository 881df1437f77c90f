package data

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload/filecase"
)

// Derive implements workload.Workload: the file workloads' derived blocks
// (the size table read against the input file) and data's own: findings,
// the uncompressed siblings and what generated code would gain — from the
// results only.
func (*Workload) Derive(run *results.Run, cases []*results.Case) table.Derived {
	// The interop cells are checks with their own section: a file one
	// language cannot read is not a failed measurement.
	cases, cells := splitInterop(cases)
	d := filecase.Derive(Name, run, cases)
	d["size"] = sizeTable(run, cases)
	d["findings"] = []table.Block{findings(run, cases, interopLine(cells))}
	d["codegen"] = codegen(run, cases)
	d["siblings"] = []table.Block{&table.Text{Body: cmp.Or(siblingsNote(run), filecase.CombinedNote)}}
	return d
}

// Summary implements workload.Workload: the file workloads' summary for
// this data.
func (*Workload) Summary(run *results.Run, cases []*results.Case) *table.Table {
	cases, _ = splitInterop(cases)
	return filecase.Summary(Name, run, cases)
}

// inputDescriptor is the run's descriptor of the input file, or nil.
func inputDescriptor(run *results.Run) *results.Descriptor {
	if ds := table.Descriptors(run, Name, KeyInput); len(ds) > 0 {
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

// findings opens the report: the input, the smallest, fastest and best
// balanced pairs, the biggest Parquet column and the failed cases, then
// the lines in more that are not empty (the interop checks').
func findings(run *results.Run, cases []*results.Case, more ...string) *table.Text {
	var lines []string
	in := inputDescriptor(run)
	if in != nil {
		cols := table.Descriptors(run, Name, KeyColumn)
		top := len(slices.DeleteFunc(slices.Clone(cols), func(c results.Descriptor) bool { return c.Settings["depth"] != "0" }))
		nested := len(cols) - top
		line := fmt.Sprintf("Input **%s** (%s): %s rows × %d columns", in.Name, in.Settings[SettingKind], table.Int(setInt(in, SettingRows)), top)
		if nested > 0 {
			line += fmt.Sprintf(" (%d nested fields)", nested)
		}
		if s := setInt(in, SettingSkipped); s > 0 {
			line += fmt.Sprintf("; %s bad lines skipped (--skip-bad)", table.Int(s))
		}
		lines = append(lines, line+".")
	}
	picks := filecase.PicksByName(Name, run, cases)
	if p, ok := picks["Smallest file"]; ok {
		vs := ""
		if p.Saved() > 0 {
			vs = ", " + table.Pct(p.Saved()) + " smaller than " + p.Format + " uncompressed"
		}
		if ref, partial := sizedInput(run); ref != nil && partial == "" {
			b := setInt(ref, SettingBytes)
			vs = fmt.Sprintf(", %s than your file (%s, %s)", vsRef(p.FileB, b), table.Bytes(b), kindLabel(ref))
		}
		lines = append(lines, fmt.Sprintf("Smallest file: **%s**, %s%s.", p.Subject(), table.Bytes(p.FileB), vs))
	}
	if w, r := picks["Fastest write"], picks["Fastest read"]; w.Name != "" && r.Name != "" {
		lines = append(lines, fmt.Sprintf("Fastest write: **%s** (%s%s%s); fastest read, every row verified: **%s** (%s%s%s).",
			w.Subject(), table.Duration(w.WriteNs), table.FewNote(w.WriteN), tiedWith(cases, filecase.OpWrite, w.Subject()),
			r.Subject(), table.Duration(r.ReadNs), table.FewNote(r.ReadN), tiedWith(cases, filecase.OpRead, r.Subject())))
	}
	if p, ok := picks["Best balance"]; ok {
		lines = append(lines, fmt.Sprintf("Best balance of size and round trip: **%s** (%s, write + read %s%s).", p.Subject(), table.Bytes(p.FileB), table.Duration(p.TotalNs()), table.FewNote(min(p.WriteN, p.ReadN))))
	}
	if ts, _ := columnsTable.Build(cases); len(ts) > 0 {
		top := ts[0].Rows[0]
		lines = append(lines, fmt.Sprintf("Column **%s** takes %s of the uncompressed Parquet file's column data (%s).", top[0], table.Pct(top[2].V), table.Bytes(top[1].V)))
	}
	if hold := table.CannotHoldCases(cases); len(hold) > 0 {
		lines = append(lines, fmt.Sprintf("%s cannot hold this data, as the format says (%s); see Anomalies for the reasons.", table.Plural(len(hold), "case"), filecase.CondenseCases(hold, false, 300)))
	}
	if failed := table.FailedCases(cases); len(failed) > 0 {
		lines = append(lines, fmt.Sprintf("%s FAILED (verification, set-up or a run error), each left out of every ranking; see Anomalies, one line per distinct error.", table.Plural(len(failed), "case")))
	}
	return table.Findings(slices.DeleteFunc(append(lines, more...), func(l string) bool { return l == "" }))
}

// sizedInput is the run's input descriptor when it recorded the file's
// size (else nil), and why the pairs' sizes do not compare with the file
// ("" when they do: they hold all its rows, not a sample or the first rows
// up to a limit).
func sizedInput(run *results.Run) (in *results.Descriptor, partial string) {
	if in = inputDescriptor(run); in == nil || !(setInt(in, SettingBytes) > 0) {
		return nil, ""
	}
	switch limit := setInt(in, SettingLimit); {
	case in.Settings[SettingSample] != "":
		return in, "the rows measured are a sample of it (--sample " + in.Settings[SettingSample] + ")"
	case limit > 0 && setInt(in, SettingRows) >= limit:
		return in, "only its first " + table.Int(limit) + " rows were measured (--limit)"
	}
	return in, ""
}

// sizeTable is the file workloads' size table (filecase.SizeTable) with
// the input file as its first row and, when the pairs hold all its rows,
// each file against it.
func sizeTable(run *results.Run, cases []*results.Case) []table.Block {
	ts, _ := filecase.SizeTable().BuildRun(run, cases)
	if len(ts) == 0 {
		return nil
	}
	t := ts[0]
	in, partial := sizedInput(run)
	if in == nil {
		return []table.Block{t}
	}
	// bytes/record is unknown when the pairs hold part of its rows.
	b, records, why := setInt(in, SettingBytes), setInt(in, SettingRows), "; "+partial+", so the sizes do not compare with it."
	if partial != "" {
		records = 0
	}
	row := []table.Cell{table.Str(in.Name), table.Str("your file: " + kindLabel(in)), table.Num(b, table.IntF), table.Num(b, table.MiBF),
		table.Num(b/records, table.Plain), table.Dash(), table.Dash()}
	if partial == "" {
		why = "(compressed as it is on disk); vs your file = how much smaller (or larger) each file is."
		t.Header, row = append(t.Header, "vs your file"), append(row, table.Dash())
		for i, r := range t.Rows {
			vs := table.Dash()
			if r[2].Kind == table.Value && r[2].V > 0 {
				vs = table.StrV(vsRef(r[2].V, b), r[2].V/b)
			}
			t.Rows[i] = append(r, vs)
		}
	}
	t.Rows = append([][]table.Cell{row}, t.Rows...)
	t.Notes = append(t.Notes, fmt.Sprintf("The first row is your file %s as given %s", in.Name, why))
	return []table.Block{t}
}

// vsRef says how size compares with a reference size: "81.0% smaller",
// "2.1× larger" or "same size".
func vsRef(size, ref float64) string {
	switch {
	case size < ref:
		return table.Pct(1-size/ref) + " smaller"
	case size > ref:
		return table.Times(size/ref) + " larger"
	}
	return "same size"
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
	if len(table.Descriptors(run, Name, filecase.LabelFormat)) == 0 {
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
	if len(blocks) == 0 && t.Empty() {
		return []table.Block{&table.Text{Body: "The records cases of this run share no format with this data's cases at codec none: run `serbench run records data --input FILE` without filters to compare."}}
	}
	return append(blocks, t) // without rows, left out of the report
}

// siblingsNote is the combined table's note naming, for this run, the
// uncompressed sibling each self-compressing format's saving is measured
// against (parquet-zstd → parquet-none), in the order recorded; "" when
// the run has none.
func siblingsNote(run *results.Run) string {
	var formats, siblings []string
	for _, f := range table.Descriptors(run, Name, filecase.LabelFormat) {
		// BaseOf is the format itself unless it compresses itself and has an
		// uncompressed sibling in the run.
		if sib := table.BaseOf(run, Name, filecase.LabelFormat, f.Name, filecase.TagCompresses); sib != f.Name {
			formats, siblings = append(formats, f.Name), append(siblings, sib)
		}
	}
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

// tiedWith is ", tied with X (time)" when the fastest of Go's file cases
// of op, pair winner ("format + codec"), cannot be told from the next
// fastest: their intervals overlap (table.Below is not Held), so naming
// one the fastest would claim what the run did not show; "" otherwise,
// and when either has too few samples for an interval (FewNote says so).
func tiedWith(cases []*results.Case, op, winner string) string {
	var pool []*results.Case
	var win *results.Case
	for _, c := range cases {
		if !c.OK() || c.IsLimit() || c.Labels.Get(filecase.LabelOp) != op || table.Language(c) != "go" {
			continue
		}
		if c.Labels.Get(filecase.LabelFormat)+" + "+c.Labels.Get(filecase.LabelCodec) == winner {
			win = c
			continue
		}
		pool = append(pool, c)
	}
	if win == nil || len(pool) == 0 {
		return ""
	}
	next := slices.MinFunc(pool, func(a, b *results.Case) int { return cmp.Compare(table.Ns(a), table.Ns(b)) })
	a, b := table.IntervalOf(win, results.UnitNsPerOp), table.IntervalOf(next, results.UnitNsPerOp)
	if !a.Known() || !b.Known() || table.Below(a, b) == table.Held {
		return "" // too few samples are marked n=N already
	}
	return fmt.Sprintf(", tied within the intervals with %s + %s at %s", next.Labels.Get(filecase.LabelFormat), next.Labels.Get(filecase.LabelCodec), table.Duration(table.Ns(next)))
}
