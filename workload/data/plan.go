package data

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/filebench"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
	"github.com/serbench/serbench/workload/interop"
	"github.com/serbench/serbench/workload/userdata"
)

// pair is one format × codec and its file (filecase.File: the path and
// codec, the sizes written), shared by the pair's cases.
type pair struct {
	filecase.File
	in     *input
	files  *filecase.Files
	fname  string
	format dynamic.Format // nil when holdErr is set
	// clabel is the codec's label value (codecLabel).
	clabel string
	// holdErr, when set, is why the format cannot hold the data: the pair
	// is one failed write case.
	holdErr error
	// proj, when set, reads the input's first top-level column only (a
	// Parquet or Arrow IPC pair with codec none): the read-columns case.
	proj dynamic.Format
	// projNote says what proj reads (dynamic.Projector's Projection).
	projNote string
}

// projCols are the columns a read-columns case reads: the input's first
// top-level column, with all its leaves.
var projCols = []int{0}

// newPair returns the pair of format f (nil when it cannot hold the data)
// named fname and codec c, its file in the plan's directory.
func newPair(in *input, files *filecase.Files, fname string, f dynamic.Format, c codec.Codec) *pair {
	p := &pair{File: filecase.File{Workload: Name, Codec: c, Records: in.rows, Want: -1}, in: in, files: files, fname: fname, format: f,
		clabel: codecLabel(c)}
	p.Path = filepath.Join(files.Dir, "data-"+fname+"-"+p.clabel+".bin")
	// filebench counts record batches, not rows: Want -1.
	p.Write = func() (filebench.WriteStats, error) { return p.write(p.Path, p.in.loaded()) }
	p.Read = func() (filebench.ReadStats, error) { return p.read(p.Path, p.in.loaded()) }
	if pr, ok := f.(dynamic.Projector); ok && p.clabel == "none" {
		if proj, err := dynamic.Projected(f, projCols); err == nil {
			p.proj, p.projNote = proj, pr.Projection()
			p.ReadColumns = func() (filebench.ReadStats, error) { return p.readColumns(p.Path, p.in.loaded()) }
		}
	}
	return p
}

func (p *pair) name() string { return p.fname }

// cname is the pair's codec label value.
func (p *pair) cname() string { return p.clabel }

// codecLabel is codec c's label value (and its part of the file's name),
// distinct for every level: the codec's name at its default level ("zstd"
// for --codecs zstd or zstd:3, the label of runs that name no level), and
// name-level at any other ("zstd-19" for --codecs zstd:19) — one case, file
// and report row per level, and a benchstat-friendly name (no '/', ':' or
// space).
func codecLabel(c codec.Codec) string {
	in := c.Info()
	if !in.HasLevels || !in.LevelSet {
		return in.Name
	}
	if f, ok := codec.Default().Factory(in.Name); ok && f.DefaultLevel == in.Level {
		return in.Name
	}
	return in.Name + "-" + strconv.Itoa(in.Level)
}

// seq yields batches as filebench's filecase.
func seq(bs []arrow.RecordBatch) func(yield func(*arrow.RecordBatch) bool) {
	return func(yield func(*arrow.RecordBatch) bool) {
		for i := range bs {
			if !yield(&bs[i]) {
				return
			}
		}
	}
}

// write writes batches to path with the pair's format and codec.
func (p *pair) write(path string, bs []arrow.RecordBatch) (filebench.WriteStats, error) {
	st, err := filebench.Write(context.Background(), path, p.format, p.Codec, seq(bs), filebench.Options{})
	return st, err
}

// read reads path back verifying every row against bs.
func (p *pair) read(path string, bs []arrow.RecordBatch) (filebench.ReadStats, error) {
	v := dynamic.NewVerifier(bs)
	st, err := filebench.Read(context.Background(), path, p.format, p.Codec, -1,
		func(_ int, got *arrow.RecordBatch) error { return v.Check(*got) }, filebench.Options{})
	if err == nil {
		err = v.Done()
	}
	if err != nil {
		return st, fmt.Errorf("read back %s + %s: %w", p.name(), p.cname(), err)
	}
	return st, nil
}

// readColumns reads the projCols columns of path back, verifying them
// against those columns of bs.
func (p *pair) readColumns(path string, bs []arrow.RecordBatch) (filebench.ReadStats, error) {
	want, err := dynamic.Project(bs, projCols)
	if err != nil {
		return filebench.ReadStats{}, err
	}
	defer func() {
		for _, b := range want {
			b.Release()
		}
	}()
	v := dynamic.NewVerifier(want)
	st, err := filebench.Read(context.Background(), path, p.proj, p.Codec, -1,
		func(_ int, got *arrow.RecordBatch) error { return v.Check(*got) }, filebench.Options{})
	if err == nil {
		err = v.Done()
	}
	if err != nil {
		return st, fmt.Errorf("read column %s back from %s + %s: %w", p.in.schema.Field(projCols[0]).Name, p.name(), p.cname(), err)
	}
	return st, nil
}

// columnLabel is the read-columns cases' LabelColumns value for the
// column named name: the name with every byte but letters, digits, '.',
// '_' and '-' written as '_', at most 40 bytes (a label value is part of
// the benchmark's name, which '/', '=' and spaces would break).
func columnLabel(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 40 {
		b = b[:40]
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// holdErr returns err, a format constructor's refusal of the schema, as
// wrapping errCannotHold (the formats wrap dynamic.ErrCannotHold already;
// any other refusal of a schema is also the format's limit).
func holdErr(err error) error {
	if errors.Is(err, errCannotHold) {
		return err
	}
	return fmt.Errorf("%w: %w", errCannotHold, err)
}

// head returns batches holding the first n rows of bs (slices; release
// them).
func head(bs []arrow.RecordBatch, n int64) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for _, b := range bs {
		if n <= 0 {
			break
		}
		k := min(n, b.NumRows())
		out = append(out, b.NewSlice(0, k))
		n -= k
	}
	return out
}

// roundTrip writes the input's first filecase.VerifyRecords rows to a scratch file and
// reads them back verifying every row, so that no write is timed on a
// format that does not round-trip the data.
func (p *pair) roundTrip() error {
	bs := head(p.in.loaded(), filecase.VerifyRecords)
	defer func() {
		for _, b := range bs {
			b.Release()
		}
	}()
	path := p.Path + ".verify"
	defer os.Remove(path)
	if _, err := p.write(path, bs); err != nil {
		return err
	}
	if _, err := p.read(path, bs); err != nil {
		return fmt.Errorf("round trip: %w", err)
	}
	return nil
}

// columnSizes adds the byte size of every Parquet column chunk of the
// pair's file, summed over row groups, to m.
func (p *pair) columnSizes(m map[string]float64) error {
	r, err := file.OpenParquetFile(p.Path, false)
	if err != nil {
		return fmt.Errorf("parquet column sizes: %w", err)
	}
	defer r.Close()
	md := r.MetaData()
	for g := 0; g < md.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		for c := 0; c < rg.NumColumns(); c++ {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				return fmt.Errorf("parquet column sizes: row group %d column %d: %w", g, c, err)
			}
			path := cc.PathInSchema().String()
			m[MetricColumnPrefix+path] += float64(cc.TotalCompressedSize())
		}
	}
	return nil
}

// MetricColumnChunks is, in a Parquet read-columns case, the bytes of
// the column chunks the projection reads (compressed, summed over row
// groups).
const MetricColumnChunks = "column-chunks-B"

// projectedSize sets MetricColumnChunks in m: the bytes of the chunks of
// the projCols columns' leaves in the pair's Parquet file.
func (p *pair) projectedSize(m map[string]float64) error {
	r, err := file.OpenParquetFile(p.Path, false)
	if err != nil {
		return fmt.Errorf("parquet column sizes: %w", err)
	}
	defer r.Close()
	md := r.MetaData()
	var n int64
	for g := 0; g < md.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		for c := 0; c < rg.NumColumns(); c++ {
			if md.Schema.Root().FieldIndexByField(md.Schema.ColumnRoot(c)) != projCols[0] {
				continue
			}
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				return fmt.Errorf("parquet column sizes: row group %d column %d: %w", g, c, err)
			}
			n += cc.TotalCompressedSize()
		}
	}
	m[MetricColumnChunks] = float64(n)
	return nil
}

// projectionNote is a read-columns case's note: which column it reads and
// what of the file that takes.
func projectionNote(p *pair) string {
	return fmt.Sprintf("reads column %q only (the input's first, all its leaves), verifying it: %s", p.in.schema.Field(projCols[0]).Name, p.projNote)
}

// newPlan builds the cases of every format × codec for the input. A format
// that combines with none of the codecs (Parquet takes codec none only) is
// not measured: it says why in its descriptor and, when log is not nil, on
// log. subjects are the formats to measure, in report order.
func newPlan(ctx context.Context, in *input, cfg workload.Config, s Settings, log io.Writer, subjects []Subject) (*workload.Plan, error) {
	codecs := codec.Default()
	cnames := s.Codecs
	if len(cnames) == 0 {
		cnames = codecs.Names()
	}
	// One codec per label: --codecs zstd,zstd:3 measures zstd once; zstd:1
	// and zstd:19 are two codecs (zstd-1, zstd-19).
	var cs []codec.Codec
	var clabels []string
	for _, cn := range cnames {
		c, err := codecs.Parse(cn)
		if err != nil {
			return nil, &workload.UsageError{Err: fmt.Errorf("--codecs: %w", err)}
		}
		if l := codecLabel(c); !slices.Contains(clabels, l) {
			cs, clabels = append(cs, c), append(clabels, l)
		}
	}
	files := &filecase.Files{Dir: cfg.TempDir}
	if files.Dir == "" && cfg.DryRun {
		files.Dir = os.TempDir() // never written: a dry run acquires nothing
	} else if files.Dir == "" {
		d, err := os.MkdirTemp("", "serbench-data-")
		if err != nil {
			return nil, fmt.Errorf("data: temp dir: %w", err)
		}
		files.Dir, files.OwnsDir = d, true
	}
	var cases []bench.Case
	var descs []results.Descriptor
	var used []codec.Codec
	for _, sub := range subjects {
		if len(s.Formats) > 0 && !slices.Contains(s.Formats, sub.Name()) || !cfg.WantSubject(sub.Name()) {
			continue
		}
		f, err := sub.Bind(in.schema)
		if err != nil {
			// The format cannot hold this schema: one failed case says why.
			p := newPair(in, files, sub.Name(), nil, codecs.MustParse("none"))
			p.holdErr = shortError(holdErr(err))
			files.Add(&p.File)
			cases = append(cases, holdCase(p))
			descs = append(descs, results.Descriptor{Key: filecase.LabelFormat, Name: sub.Name(), Role: results.RoleSubject,
				What: p.holdErr.Error(), Tags: []string{dynamic.LabelSchemaDriven}})
			continue
		}
		d := formatDescriptor(f.Descriptor())
		refused, n := false, len(cases)
		for _, c := range cs {
			if filebench.CheckCombination(f.Descriptor(), c) != nil {
				refused = true
				continue
			}
			if !slices.ContainsFunc(used, func(u codec.Codec) bool { return codecLabel(u) == codecLabel(c) }) {
				used = append(used, c)
			}
			p := newPair(in, files, sub.Name(), f, c)
			files.Add(&p.File)
			cases = append(cases, pairCases(p)...)
		}
		if len(cases) == n && refused {
			why := notMeasured(f.Descriptor(), cnames)
			d.Settings[SettingNotMeasured] = why
			if log != nil {
				fmt.Fprintf(log, "serbench: data: %s not measured: %s\n", sub.Name(), why)
			}
		}
		descs = append(descs, d)
	}
	descs = append(descs, codecDescriptors(used)...)
	descs = append(descs, in.descriptors()...)
	rc, rd := runnerCases(ctx, in, cfg, s.Formats, files.Dir)
	cases, descs = append(cases, rc...), append(descs, rd...)
	if ic := interopCases(cfg.Runners.Get(ctx), in, interopFormats(s.Formats), files.Dir); len(ic) > 0 {
		cases, descs = append(cases, ic...), append(descs, interop.Descriptor(Name))
	}
	plan := &workload.Plan{Cases: cases, Descriptors: descs, Env: in.env(), Identity: in.identity(),
		Close: func() error {
			err := files.Close()
			in.release()
			return err
		}}
	return plan, nil
}

// Keys of the settings the plan records in the run's environment (as
// "data.<key>" in results.Env.Extra) for the report's method to quote from
// the results: the buffer of every buffered layer and the rows each pair
// round-trips before it is timed.
const (
	envBuffer = "buffer"
	envVerify = "verify_rows"
)

// formatDescriptor describes a format with the file workloads' tags.
func formatDescriptor(d format.Descriptor) results.Descriptor {
	return filecase.Describe(d, map[string]string{"buffer": "256 KiB bufio under the encoder",
		"verified": "every row on read (NULLs, nesting, floats bit for bit)", "path": pathOf(d)})
}

// pathOf says how a format's code is driven.
func pathOf(d format.Descriptor) string {
	switch {
	case slices.Contains(d.Labels, format.LabelColumnar):
		return "columnar library over the Arrow batches"
	case slices.Contains(d.Labels, format.LabelReflection):
		return "reflection over a descriptor built from the schema at run time"
	default:
		return "schema-driven: code compiled from the schema at run time over the Arrow arrays (no generated code)"
	}
}

// SettingNotMeasured, in a format's descriptor, says why the format has
// no cases: it combines with none of the codecs --codecs lists.
const SettingNotMeasured = "not-measured"

// notMeasured says why format d has no case with the codecs cnames (d
// combines only with codec none, which they do not list).
func notMeasured(d format.Descriptor, cnames []string) string {
	why := "it needs random access to the file"
	if d.Compresses {
		why = "it compresses the data itself"
	}
	return fmt.Sprintf("%s, so it takes codec none only, which --codecs %s does not list (add none to measure it)", why, strings.Join(cnames, ","))
}

func codecDescriptors(cs []codec.Codec) []results.Descriptor {
	var out []results.Descriptor
	for _, c := range cs {
		in := c.Info()
		d := results.Descriptor{Key: filecase.LabelCodec, Name: codecLabel(c), What: in.Detail, Module: in.Library}
		if in.Version != "-" {
			d.Version = in.Version
		}
		if in.HasLevels {
			d.Settings = map[string]string{"level": strconv.Itoa(in.Level)}
		}
		out = append(out, d)
	}
	return out
}

// descriptors record the input, its columns and the inference notes.
func (in *input) descriptors() []results.Descriptor {
	set := map[string]string{
		SettingKind: in.kind, SettingCompression: in.comp, SettingBytes: strconv.FormatInt(in.fileB, 10),
		SettingRows: strconv.FormatInt(in.rows, 10), SettingLimit: strconv.FormatInt(in.limit, 10),
		SettingSkipBad: strconv.FormatBool(in.skipBad), SettingSkipped: strconv.FormatInt(in.skipped, 10),
	}
	if in.sample != "" {
		set[SettingSample] = in.sample
	}
	if in.batches > 0 {
		set[SettingBatches] = strconv.Itoa(in.batches)
	}
	if in.inner != "" {
		set[SettingInnerCompression] = in.inner
	}
	if in.inferRows != 0 {
		set[SettingInferRows] = inferRowsText(in.inferRows)
	}
	out := []results.Descriptor{{Key: KeyInput, Name: filepath.Base(in.path), What: in.path, Settings: set}}
	for i, c := range userdata.Describe(in.schema) {
		out = append(out, results.Descriptor{Key: KeyColumn, Name: c.Name, What: c.Type,
			Settings: map[string]string{"nullable": strconv.FormatBool(c.Nullable), "depth": strconv.Itoa(c.Depth), "order": strconv.Itoa(i)}})
	}
	for i, n := range in.notes {
		out = append(out, results.Descriptor{Key: KeyNote, Name: strconv.Itoa(i + 1), What: n})
	}
	return out
}

func (in *input) env() map[string]string {
	env := map[string]string{"input": in.path, "rows": strconv.FormatInt(in.rows, 10), "columns": strconv.Itoa(in.schema.NumFields()),
		"memory_limit": memoryLimitPolicy(), envBuffer: table.Bytes(filebench.DefaultBufferSize), envVerify: table.Int(filecase.VerifyRecords)}
	if g := in.opts.Schema; g != nil {
		env["schema"] = "given: " + g.Source
	}
	return env
}

// identity names the keys of env that say what is measured: the input,
// its size and, when the user gave it, its schema.
func (in *input) identity() []string {
	id := []string{"input", "rows", "columns"}
	if in.opts.Schema != nil {
		id = append(id, "schema")
	}
	return id
}

// ops lists the operations measured for p, in run order (the file
// workloads' ops).
func (p *pair) ops() []string {
	if p.Codec.Info().Name == "none" {
		if p.proj != nil {
			return []string{filecase.OpWrite, filecase.OpRead, filecase.OpReadBytes, filecase.OpReadColumns}
		}
		return []string{filecase.OpWrite, filecase.OpRead, filecase.OpReadBytes}
	}
	return []string{filecase.OpWrite, filecase.OpRead, filecase.OpReadBytes, filecase.OpDecompress}
}

func (p *pair) labels(op string) results.Labels {
	ls := results.Labels{
		{Key: filecase.LabelFormat, Value: p.name()},
		{Key: filecase.LabelCodec, Value: p.cname()},
		{Key: filecase.LabelOp, Value: op},
	}
	if op == filecase.OpReadColumns {
		ls = append(ls, results.Label{Key: filecase.LabelColumns, Value: columnLabel(p.in.schema.Field(projCols[0]).Name)})
	}
	return ls
}

// shortErrors makes the errors c's functions return short (shortError):
// they are recorded, printed and listed in the report.
func shortErrors(c bench.Case) bench.Case {
	if setup := c.Setup; setup != nil {
		c.Setup = func() error { return shortError(setup()) }
	}
	if verify := c.Verify; verify != nil {
		c.Verify = func() error { return shortError(verify()) }
	}
	if run := c.Run; run != nil {
		c.Run = func(b *bench.B) error { return shortError(run(b)) }
	}
	return c
}

// holdCase is the failed write case of a format that cannot hold the
// input's schema.
func holdCase(p *pair) bench.Case {
	return bench.Case{
		Workload: Name, Name: caseName, Labels: p.labels(filecase.OpWrite), Affinity: p.Path,
		Notes:  []string{CannotHold},
		Setup:  func() error { return p.holdErr },
		Verify: func() error { return p.holdErr },
		Run:    func(*bench.B) error { return p.holdErr },
	}
}

func pairCases(p *pair) []bench.Case {
	ops := p.ops()
	out := make([]bench.Case, 0, len(ops))
	for i, op := range ops {
		out = append(out, newCase(p, op, i == len(ops)-1))
	}
	return out
}

// Rough times of one op per byte of the rows in memory (Arrow buffers), in
// nanoseconds, on a small machine (2 cores), for estimates only (run
// --dry-run): measured on two JSON Lines inputs of 24 and 580 bytes a row
// in memory, whose times per row differed some 30-fold but per byte
// within 2× (the formats of one op differ more than that among
// themselves). A read is the codec-none read plus the codec's
// decompression.
var (
	writeNsPerByte  = map[string]float64{"none": 3, "lz4": 6, "s2": 4, "snappy": 5, "zstd": 12, "gzip": 16, "brotli": 120, "xz": 220}
	decompNsPerByte = map[string]float64{"none": 0, "lz4": 0.5, "s2": 0.5, "snappy": 1, "zstd": 2.2, "gzip": 5, "brotli": 8, "xz": 48}
)

const (
	readNsPerByte      = 6    // codec none
	readBytesNsPerByte = 0.05 // the read-bytes floor
	otherNsPerByte     = 12   // a codec not in the tables
)

// opTime is the expected time of op over memB bytes of rows in memory
// with codec codecName (see writeNsPerByte).
func opTime(memB int64, op, codecName string) time.Duration {
	per := func(m map[string]float64) float64 {
		if v, ok := m[codecName]; ok {
			return v
		}
		return otherNsPerByte
	}
	var ns float64
	switch op {
	case filecase.OpWrite:
		ns = per(writeNsPerByte)
	case filecase.OpRead, filecase.OpReadColumns:
		ns = readNsPerByte + per(decompNsPerByte)
	case filecase.OpReadBytes:
		ns = readBytesNsPerByte
	case filecase.OpDecompress:
		ns = per(decompNsPerByte)
	}
	return time.Duration(ns * float64(memB))
}

// estimateCodec names the codec whose costs the pair's estimates take:
// its outer codec or, for a format that compresses itself, its own
// (parquet-zstd: zstd; avro-ocf-deflate: gzip's, the same DEFLATE).
func (p *pair) estimateCodec() string {
	c := p.Codec.Info().Name
	if p.format != nil && p.format.Descriptor().Compresses {
		c = p.fname[strings.LastIndex(p.fname, "-")+1:]
		if c == "deflate" {
			c = "gzip"
		}
	}
	return c
}

func newCase(p *pair, op string, last bool) bench.Case {
	c := bench.Case{
		Workload: Name,
		Name:     caseName,
		Affinity: p.Path,
		Labels:   p.labels(op),
		Metrics:  map[string]float64{},
		Budget:   filecase.Budget,
		NoWarmup: true,
		OpTime:   opTime(p.in.memB, op, p.estimateCodec()),
	}
	if op == filecase.OpReadBytes || op == filecase.OpDecompress {
		c.Role = results.RoleLimit
		c.Count = filecase.LimitCount
	}
	if op != filecase.OpWrite {
		c.Group = p.name() + "/" + p.cname() + "/read"
	}
	if op == filecase.OpReadColumns {
		c.Notes = []string{projectionNote(p)}
		if p.format.Descriptor().RandomAccess {
			// Parquet reads the column's chunks only: as if the input
			// had that one column.
			c.OpTime /= time.Duration(p.in.schema.NumFields())
		}
	}
	if last {
		c.Teardown = func() { p.Remove() }
	}
	if op == filecase.OpWrite {
		c.Setup = func() error {
			if _, err := p.in.load(); err != nil {
				return err
			}
			p.files.Activate(&p.File)
			return nil
		}
		c.Verify = p.roundTrip
		c.Run = p.WriteRun(c.Metrics)
		return shortErrors(c)
	}
	c.Setup = func() error {
		if _, err := p.in.load(); err != nil {
			return err
		}
		p.files.Activate(&p.File)
		if err := p.Ensure(); err != nil {
			return fmt.Errorf("create the file to read: %w", err)
		}
		p.Metrics(c.Metrics)
		if op == filecase.OpRead && p.name() == "parquet" {
			// Which columns make the file big: the column chunks' sizes.
			return p.columnSizes(c.Metrics)
		}
		if op == filecase.OpReadColumns && p.format.Descriptor().RandomAccess {
			// What the projection reads of the file.
			return p.projectedSize(c.Metrics)
		}
		return nil
	}
	c.Verify = p.Check
	c.Run = p.ReadRun(op)
	return shortErrors(c)
}
