// Package data is the data workload: the user's own file (`serbench run data
// --input FILE`) — JSON Lines, a JSON array of objects or the member array
// of one JSON object (--records), CSV/TSV, Parquet, Arrow IPC or Avro OCF,
// optionally compressed — read into Arrow record batches (package
// workload/userdata), then written with every schema-driven format of
// package format/dynamic × every codec to a real file through filebench,
// the pipeline the records workload uses, and read back verifying every row
// (NULLs and nesting included). The cases carry the file workloads' labels,
// ops and metrics (package workload/filecase, which it shares with the
// records workload), so the report reuses their tables, Pareto plot and
// recommendation rules, and adds what only this data has: its schema, a
// per-column size breakdown from Parquet's column chunks and what generated
// code would gain.
//
// Planning streams through the whole input (up to the row limit, bounded
// memory) before anything is measured: a malformed line, a truncated file,
// an unknown extension or a .json file holding one object without
// --records is a *workload.UsageError naming the file and the line or
// offset (or the member arrays to choose from). The rows are loaded into memory by the workload's first case, so
// other workloads of the same run are measured without them.
package data

import (
	"context"
	"fmt"
	"google.golang.org/protobuf/reflect/protoreflect"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/serbench/serbench/table"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/spf13/pflag"

	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/corpus"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/subject"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
	"github.com/serbench/serbench/workload/userdata"
)

// Name is the workload's CLI name.
const Name = "data"

// caseName is the benchmark base name of every case.
const caseName = "Data"

// Descriptor keys beyond the file workloads' subject and codec (package
// filecase): the input file, its columns in schema order (nested fields as
// dotted paths) and the notes of schema inference.
const (
	KeyInput  = "input"
	KeyColumn = "column"
	KeyNote   = "schema-note"
)

// Settings of the input descriptor.
const (
	SettingKind        = "kind"
	SettingCompression = "compression"
	SettingRows        = "rows"
	SettingBytes       = "file-bytes"
	SettingLimit       = "limit"
	SettingSample      = "sample"
	SettingSkipped     = "skipped-lines"
	SettingSkipBad     = "skip-bad"
	SettingBatches     = "batches"
	// SettingInferRows is --infer-rows as given ("all" or a row count);
	// absent: the reader's default.
	SettingInferRows = "infer-rows"
	// SettingInnerCompression says how a Parquet, Arrow or Avro input
	// compresses its data inside the file ("snappy (Parquet pages)"), as
	// opposed to SettingCompression, the codec around the whole file.
	SettingInnerCompression = "inner-compression"
)

// MetricColumnPrefix prefixes the per-column metrics of the Parquet read
// case: "column-B:" + the column chunk's path holds the bytes of that
// column's chunks summed over the row groups (as stored: dictionary-encoded,
// uncompressed).
const MetricColumnPrefix = "column-B:"

// CannotHold marks, in a failed case's recorded error, a format that cannot
// hold the input's schema or one of its values (nested data in CSV, NaN in
// JSON): the documented failures, as opposed to a bug. It is the text of
// dynamic.ErrCannotHold, which the formats wrap (the workload tests for it
// with errors.Is; a report, which has only the recorded text, with this).
var CannotHold = dynamic.ErrCannotHold.Error()

// errCannotHold is wrapped by the errors of cases whose format cannot hold
// the data.
var errCannotHold = dynamic.ErrCannotHold

// Settings are the data workload's options (its flags, see AddFlags).
type Settings struct {
	// Input is the user's data file (empty: the workload is unavailable).
	Input string
	// Limit caps the rows read from Input (0: the scale's default).
	Limit int64
	// Sample thins a huge Input while it streams: "1/K" keeps every K-th
	// row, a fraction F in (0, 1] keeps each row with probability F
	// (deterministic); empty keeps every row.
	Sample string
	// SkipBad skips and counts Input's malformed lines instead of failing.
	SkipBad bool
	// InferRows is the number of rows a text Input's schema is inferred
	// from (0: the reader's default; negative: the whole input).
	InferRows int
	// Formats and Codecs restrict the formats and codecs measured (empty:
	// all of them).
	Formats, Codecs []string
	// Records names the member array that holds the records of a .json
	// Input whose top level is one object (--records: a dotted path or a
	// JSON Pointer, userdata.ParseRecordsPath); empty: such an input is
	// refused, naming its member arrays.
	Records string
	// Avsc, or Proto with Message, names the user's schema of a text
	// Input (an Avro .avsc; a .proto file and the message of the rows):
	// the rows are read into it instead of a schema inferred from them
	// (userdata.AvroSchema, userdata.ProtoSchema).
	Avsc, Proto, Message string
}

// Workload is the data workload.
type Workload struct {
	// reg holds the subjects (nil: the built-in formats).
	reg *subject.Registry
	// s holds the input settings: the command line's flags (AddFlags) or
	// those given to NewWith.
	s Settings
	// inferRows is --infer-rows as given, parsed into s by CheckFlags.
	inferRows string
	// log receives the schema before anything is measured (nil: none).
	log io.Writer
	// corpusDir is where --input corpus:NAME files are fetched to
	// (WithCorpus; empty: under the system's temporary directory).
	corpusDir string
}

// WithCorpus sets the directory the public datasets of --input
// corpus:NAME are fetched into on first use and returns w.
func (w *Workload) WithCorpus(dir string) *Workload {
	w.corpusDir = dir
	return w
}

// New returns the data workload without an input: it plans only once its
// flags (AddFlags) name one.
func New() *Workload { return &Workload{} }

// NewWith returns the data workload with the input settings s and a writer
// that receives the input's schema when the plan is made (nil: none).
func NewWith(s Settings, log io.Writer) *Workload {
	return &Workload{s: s, log: log}
}

// WithLog sets the writer that receives the input's schema when the plan is
// made (nil: none) and returns w.
func (w *Workload) WithLog(log io.Writer) *Workload {
	w.log = log
	return w
}

// WithSubjects sets the registry whose data subjects the workload measures
// (Register adds the built-in ones to r) and returns w.
func (w *Workload) WithSubjects(r *subject.Registry) *Workload {
	w.reg = r
	return w
}

// Subject is the shape of a data subject: a schema-driven format of record
// batches, bound to the input's Arrow schema (an error wrapping
// results.ErrCannotHold when it cannot hold it).
type Subject = filecase.Subject[arrow.RecordBatch]

// Register adds the built-in formats (format/dynamic's constructors) to r.
func Register(r *subject.Registry) error { return subject.Add(r, Name, builtin()...) }

// builtin returns format/dynamic's formats as subjects.
func builtin() []Subject {
	var ss []Subject
	for _, c := range dynamic.Constructors() {
		ss = append(ss, Subject{
			Desc: results.Descriptor{Key: filecase.LabelFormat, Name: c.Name, Role: results.RoleSubject, Tags: []string{dynamic.LabelSchemaDriven}},
			Bind: func(schema *arrow.Schema) (dynamic.Format, error) { return c.New(schema, dynamic.Options{}) },
		})
	}
	return ss
}

// subjects returns the subjects the workload measures.
func (w *Workload) subjects() ([]Subject, error) { return subject.Of(w.reg, Name, builtin) }

// AddFlags implements workload.Options: --input and its companions.
func (w *Workload) AddFlags(fl *pflag.FlagSet) {
	fl.StringVar(&w.s.Input, "input", w.s.Input, "data workload: your file (.jsonl, .json array of objects, .csv, .tsv, .parquet, .arrow/.feather, .arrows, .avro; optionally .gz, .zst, …). "+
		"A .json file holding one object is refused, naming its member arrays: choose one with --records. "+
		fmt.Sprintf("A JSON object field whose keys vary from row to row is a map, a list of {key, value} entries: its values share one kind and, of its n distinct keys, an object holds on average under %.0f%% (n > %d) or under %.0f%% (n ≥ %d)",
			100*userdata.MapMaxPresence, userdata.MapMinKeys, 100*userdata.MapSparsePresence, userdata.MapSparseMinKeys))
	fl.StringVar(&w.s.Records, "records", w.s.Records, "data workload: the member array holding the records of a .json file whose top level is one object, as a dotted `PATH` (features, objects.countries.geometries) or a JSON Pointer for a name holding a dot (/objects/a.b/geometries; ~1 is /, ~0 is ~)")
	fl.Int64Var(&w.s.Limit, "limit", w.s.Limit, "data workload: read at most N rows (default: the scale's, 10,000 quick, 1,000,000 default, all at full)")
	fl.StringVar(&w.s.Sample, "sample", w.s.Sample, "data workload: keep every K-th row (1/K) or a deterministic fraction F of the rows (0 < F ≤ 1) of a huge input")
	fl.BoolVar(&w.s.SkipBad, "skip-bad", w.s.SkipBad, "data workload: skip and count malformed lines instead of failing")
	fl.StringVar(&w.inferRows, "infer-rows", w.inferRows, fmt.Sprintf("data workload: the rows a JSON Lines or CSV input's schema is inferred from, `N|all` (default: the first %s; all: every row, an extra pass over the input); raise it when a later row does not fit the inferred schema", table.Int(DefaultInferRows)))
	fl.StringVar(&w.s.Avsc, "avsc", w.s.Avsc, "data workload: read a JSON Lines, JSON or CSV input into this Avro schema (a record's .avsc) instead of inferring one; a row that does not fit is an error naming its line and field")
	fl.StringVar(&w.s.Proto, "proto", w.s.Proto, "data workload: read a JSON Lines, JSON or CSV input into the message --message of this .proto file (protojson's mapping; imports resolved beside it) instead of inferring a schema")
	fl.StringVar(&w.s.Message, "message", w.s.Message, "data workload: the message of --proto the rows are (a full name, shop.Order, or one unique in the file)")
	fl.StringSliceVar(&w.s.Formats, "formats", w.s.Formats, "data workload: only these formats, in Go and every runner (comma-separated; default all)")
	fl.StringSliceVar(&w.s.Codecs, "codecs", w.s.Codecs, "data workload: only these codecs (comma-separated; default all)")
}

// CheckFlags implements workload.Options: naming the workload needs
// --input, and so do its other flags; the values must parse (CheckSettings).
func (w *Workload) CheckFlags(named, set bool) error {
	switch {
	case strings.HasPrefix(w.s.Input, corpus.Prefix):
		if _, err := corpus.Lookup(strings.TrimPrefix(w.s.Input, corpus.Prefix)); err != nil {
			return &workload.UsageError{Err: fmt.Errorf("--input: %w", err)}
		}
	case named && w.s.Input == "":
		return workload.Usagef("the data workload needs --input FILE (e.g. serbench run data --input events.jsonl)")
	case set && w.s.Input == "":
		return workload.Usagef("--limit, --sample, --skip-bad, --infer-rows, --formats, --codecs, --avsc, --proto and --message apply to the data workload: give --input FILE (--records too)")
	}
	if w.inferRows != "" {
		n, err := ParseInferRows(w.inferRows)
		if err != nil {
			return &workload.UsageError{Err: err}
		}
		w.s.InferRows = n
	}
	if err := checkSettings(w.s, w.Subjects()); err != nil {
		return &workload.UsageError{Err: err}
	}
	return nil
}

// Name implements workload.Workload.
func (*Workload) Name() string { return Name }

// Description implements workload.Workload.
func (*Workload) Description() string {
	return "your own file (--input FILE: JSON Lines, CSV, Parquet, Arrow, Avro, compressed or not): every schema-driven format × codec written and read back verified, with the records report and recommendations for this data; with --avsc or --proto also your own schema (avro-avsc, protobuf-message)"
}

// Subjects implements workload.Workload: the schema-driven formats,
// protobuf-message with --proto and avro-avsc with --avsc.
func (w *Workload) Subjects() []string {
	ss, _ := w.subjects()
	names := subject.Names(ss)
	if w.s.Proto != "" && !slices.Contains(names, SubjectProtobufMessage) {
		names = append(names, SubjectProtobufMessage)
	}
	if w.s.Avsc != "" && !slices.Contains(names, SubjectAvroAvsc) {
		names = append(names, SubjectAvroAvsc)
	}
	return names
}

// SubjectProtobufMessage is the subject --proto adds: the rows as the
// user's own message (dynamic.ProtobufMessage).
const SubjectProtobufMessage = "protobuf-message"

// messageSubject is the subject writing rows as md's messages.
func messageSubject(md protoreflect.MessageDescriptor) Subject {
	return Subject{
		Desc: results.Descriptor{Key: filecase.LabelFormat, Name: SubjectProtobufMessage, Role: results.RoleSubject, Tags: []string{dynamic.LabelSchemaDriven}},
		Bind: func(schema *arrow.Schema) (dynamic.Format, error) {
			return dynamic.NewProtobufMessage(schema, md, dynamic.Options{})
		},
	}
}

// SubjectAvroAvsc is the subject --avsc adds: the rows as datums of the
// user's own record schema (dynamic.AvroGiven).
const SubjectAvroAvsc = dynamic.SubjectAvroGiven

// avscSubject is the subject writing rows in the record schema avsc.
func avscSubject(avsc []byte) Subject {
	return Subject{
		Desc: results.Descriptor{Key: filecase.LabelFormat, Name: SubjectAvroAvsc, Role: results.RoleSubject, Tags: []string{dynamic.LabelSchemaDriven}},
		Bind: func(schema *arrow.Schema) (dynamic.Format, error) {
			return dynamic.NewAvroGiven(schema, avsc, dynamic.Options{})
		},
	}
}

// FormatNames lists the built-in formats, in report order.
func FormatNames() []string {
	var out []string
	for _, c := range dynamic.Constructors() {
		out = append(out, c.Name)
	}
	return out
}

// scales is the workload's scale table: the rows read when --limit is not
// given (0: the whole input).
func scales() workload.ScaleTable[int64] {
	return workload.ScaleTable[int64]{Quick: 10_000, Default: 1_000_000, Full: 0,
		Describe: func(n int64) string {
			if n == 0 {
				return "the whole input"
			}
			return "the input's first " + table.Int(float64(n)) + " rows"
		}}
}

// ScaleInfo implements workload.Scaler.
func (*Workload) ScaleInfo(s workload.Scale) string { return scales().String(s) }

// Sample is a parsed --sample: every K-th row, or each row with a
// probability.
type Sample struct {
	Every    int64
	Fraction float64
}

// ParseSample parses a --sample value: "1/K" keeps every K-th row (K ≥ 1),
// a number F in (0, 1] keeps each row with probability F, chosen by a hash
// of the row number (deterministic); "" keeps every row.
func ParseSample(s string) (Sample, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Sample{}, nil
	}
	if k, ok := strings.CutPrefix(s, "1/"); ok {
		n, err := strconv.ParseInt(k, 10, 64)
		if err != nil || n < 1 {
			return Sample{}, fmt.Errorf("--sample %q: want 1/K with K a positive integer, or a fraction in (0, 1]", s)
		}
		return Sample{Every: n}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0 && f <= 1) {
		return Sample{}, fmt.Errorf("--sample %q: want a fraction in (0, 1] or 1/K", s)
	}
	return Sample{Fraction: f}, nil
}

// DefaultInferRows is the rows a text input's schema is inferred from
// when --infer-rows is not given.
const DefaultInferRows = userdata.DefaultInferRows

// ParseInferRows parses an --infer-rows value: a positive number of rows,
// or "all" for the whole input (-1); "" is the reader's default (0).
func ParseInferRows(s string) (int, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "":
		return 0, nil
	case "all":
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("--infer-rows %q: want N (a positive number of rows, default %s) or all (the whole input, an extra pass over it)", s, table.Int(DefaultInferRows))
	}
	return n, nil
}

// givenSchema reads the schema s gives (--avsc, --proto), nil when none.
func givenSchema(s Settings) (*userdata.Schema, error) {
	switch {
	case s.Avsc != "":
		return userdata.AvroSchema(s.Avsc)
	case s.Proto != "":
		return userdata.ProtoSchema(s.Proto, s.Message)
	}
	return nil, nil
}

// inferRowsText is an InferRows setting as --infer-rows takes it.
func inferRowsText(n int) string {
	if n < 0 {
		return "all"
	}
	return strconv.Itoa(n)
}

// CheckSettings validates the settings s (sample, limit, formats, codecs)
// without reading the input; CheckFlags calls it before anything runs.
func CheckSettings(s Settings) error { return checkSettings(s, FormatNames()) }

// checkSettings is CheckSettings with names the valid formats.
func checkSettings(s Settings, names []string) error {
	if _, err := ParseSample(s.Sample); err != nil {
		return err
	}
	if s.Limit < 0 {
		return fmt.Errorf("--limit must not be negative, got %d", s.Limit)
	}
	if s.Records != "" {
		if _, err := userdata.ParseRecordsPath(s.Records); err != nil {
			return err
		}
	}
	switch {
	case s.Avsc != "" && s.Proto != "":
		return fmt.Errorf("--avsc and --proto each give the input's schema: give one")
	case s.Proto != "" && s.Message == "":
		return fmt.Errorf("--proto %s needs --message NAME, the message of the rows", s.Proto)
	case s.Message != "" && s.Proto == "":
		return fmt.Errorf("--message names a message of --proto FILE: give --proto")
	case (s.Avsc != "" || s.Proto != "") && s.InferRows != 0:
		return fmt.Errorf("--infer-rows infers a schema; --avsc and --proto give one: give one or the other")
	}
	for _, f := range s.Formats {
		if !slices.Contains(names, f) {
			return fmt.Errorf("--formats: unknown format %q (valid: %s)", f, strings.Join(names, ", "))
		}
	}
	for _, c := range s.Codecs {
		if _, err := codec.Default().Parse(c); err != nil {
			// The codec registry's error names the valid codecs or levels.
			return fmt.Errorf("--codecs: %w", err)
		}
	}
	return nil
}

// Plan implements workload.Workload. It streams through the whole input (at
// most the limit's rows), validating every line without keeping it, and
// so does a dry run: the same errors, the same schema and cases, and the
// rows and bytes the estimates need. The first case's Setup loads the
// rows. Files are written in cfg.TempDir.
func (w *Workload) Plan(ctx context.Context, cfg workload.Config) (*workload.Plan, error) {
	s := w.s
	if s.Input == "" {
		return nil, &workload.UsageError{Err: fmt.Errorf("needs --input FILE (serbench run data --input events.jsonl): %w: %w", workload.ErrNeedsInput, workload.ErrUnavailable)}
	}
	if err := checkSettings(s, w.Subjects()); err != nil {
		return nil, &workload.UsageError{Err: err}
	}
	ss, err := w.subjects()
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if name, ok := strings.CutPrefix(s.Input, corpus.Prefix); ok {
		e, err := corpus.Lookup(name)
		if err != nil {
			return nil, &workload.UsageError{Err: fmt.Errorf("--input: %w", err)}
		}
		dir := w.corpusDir
		if dir == "" {
			dir = filepath.Join(os.TempDir(), "serbench-corpus")
		}
		cache := &corpus.Cache{Dir: dir, Log: w.log}
		if s.Input, err = cache.Path(ctx, e); err != nil {
			return nil, fmt.Errorf("--input %s%s: %w", corpus.Prefix, name, err)
		}
		if s.Records == "" {
			s.Records = e.Records
		}
	}
	smp, _ := ParseSample(s.Sample)
	limit := s.Limit
	if limit == 0 {
		limit = scales().At(cfg.Scale)
	}
	opts := userdata.Options{Limit: limit, SampleEvery: smp.Every, SampleFraction: smp.Fraction, SkipBad: s.SkipBad, InferRows: s.InferRows, Records: s.Records, TempDir: cfg.TempDir}
	if opts.Schema, err = givenSchema(s); err != nil {
		return nil, &workload.UsageError{Err: err}
	}
	if g := opts.Schema; g != nil && g.Message != nil && !slices.Contains(subject.Names(ss), SubjectProtobufMessage) {
		ss = append(ss, messageSubject(g.Message))
	}
	if g := opts.Schema; g != nil && g.Avsc != nil && !slices.Contains(subject.Names(ss), SubjectAvroAvsc) {
		ss = append(ss, avscSubject(g.Avsc))
	}
	in, err := readInput(ctx, s.Input, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &workload.UsageError{Err: shortError(err)}
	}
	in.limit, in.sample, in.skipBad, in.inferRows = limit, s.Sample, s.SkipBad, s.InferRows
	if in.given, err = givenFor(opts.Schema); err != nil {
		in.release()
		return nil, err
	}
	if w.log != nil && !cfg.DryRun {
		fmt.Fprintf(w.log, "serbench: data: %s\n", in.summary())
		fmt.Fprint(w.log, userdata.FormatSchema(in.schema, in.notes))
	}
	p, err := newPlan(ctx, in, cfg, s, w.log, ss)
	if err != nil {
		in.release()
		return nil, err
	}
	return p, nil
}

// input is the user's data: validated by the plan, loaded into memory by
// the first case that needs it.
type input struct {
	path, kind, comp string
	// inner is how the file compresses its data inside (Parquet pages,
	// Avro blocks), "" for a text input (innerCompression).
	inner string
	fileB int64
	// memB is the bytes of the rows in memory (Arrow buffers), counted
	// while the plan validated them: with rows, what the estimates scale
	// with.
	memB int64
	opts userdata.Options
	// given is the user's schema as the runners get it (nil: inferred).
	given     *runner.Given
	schema    *arrow.Schema
	notes     []string
	rows      int64
	skipped   int64
	batches   int
	limit     int64
	sample    string
	skipBad   bool
	inferRows int

	mu      sync.Mutex
	data    *userdata.Data // nil until load
	loadErr error
	// unlimit restores the runtime's memory limit that load lowered.
	unlimit func()
}

// memoryHeadroom is what the soft memory limit allows above the input
// held in memory: a case's working set (an xz writer's two encoders take
// about 100 MB) and the garbage the collector has not reached yet. Without
// a limit the collector lets the heap grow to twice the live heap, and
// the input is most of that: 1M rows of 8 columns from a 5 GB file peaked
// at 741 MB RSS, 460 MB under a 400 MiB limit (the xz writes 0–13% slower,
// every other case within noise).
const memoryHeadroom = 256 << 20

// limitMemory sets the Go runtime's soft memory limit to inMemory +
// memoryHeadroom unless a limit is already set (GOMEMLIMIT, or a program
// embedding the workload) and returns what restores the previous one.
func limitMemory(inMemory int64) (restore func()) {
	prev := debug.SetMemoryLimit(-1)
	if prev != math.MaxInt64 {
		return func() {}
	}
	debug.SetMemoryLimit(inMemory + memoryHeadroom)
	return func() { debug.SetMemoryLimit(prev) }
}

// sizeInMemory is the bytes of the buffers behind d's batches.
func sizeInMemory(d *userdata.Data) int64 {
	var n int64
	for _, b := range d.Batches {
		for _, col := range b.Columns() {
			n += dataSize(col.Data())
		}
	}
	return n
}

// dataSize is the bytes of an array's buffers, its children's and its
// dictionary's.
func dataSize(d arrow.ArrayData) int64 {
	if d == nil {
		return 0
	}
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataSize(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += dataSize(d.Dictionary()) // a typed nil otherwise
	}
	return n
}

// load reads the rows into memory once (outside every timed region) and
// returns them.
func (in *input) load() (*userdata.Data, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.data != nil || in.loadErr != nil {
		return in.data, in.loadErr
	}
	d, err := userdata.ReadAll(in.path, in.opts)
	switch {
	case err != nil:
		in.loadErr = fmt.Errorf("load the input: %w", err)
	case d.Rows != in.rows || !d.Schema.Equal(in.schema):
		d.Release()
		in.loadErr = fmt.Errorf("load the input: %s changed since it was validated (%d rows, planned %d)", in.path, d.Rows, in.rows)
	default:
		in.data = d
		in.unlimit = limitMemory(sizeInMemory(d))
	}
	return in.data, in.loadErr
}

// batches returns the loaded rows (load must have succeeded).
func (in *input) loaded() []arrow.RecordBatch {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.data == nil {
		return nil
	}
	return in.data.Batches
}

func (in *input) release() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.data != nil {
		in.data.Release()
		in.data = nil
	}
	if in.unlimit != nil {
		in.unlimit()
		in.unlimit = nil
	}
}

func (in *input) summary() string {
	s := fmt.Sprintf("%s (%s, compression: %s, %s): %s rows, %d columns", in.path, in.kind, compressionText(in.comp, in.inner), table.Bytes(float64(in.fileB)),
		table.Int(float64(in.rows)), in.schema.NumFields())
	if in.limit > 0 && in.rows >= in.limit {
		s += fmt.Sprintf(" (limit %s)", table.Int(float64(in.limit)))
	}
	if in.sample != "" {
		s += ", sampled " + in.sample
	}
	if in.skipped > 0 {
		s += fmt.Sprintf(", %s bad lines skipped", table.Int(float64(in.skipped)))
	}
	return s + "; schema:"
}

// readInput validates the file: it streams every row up to the limit
// (bounded memory, nothing kept) so that bad input fails the plan — a dry
// run's too, which then knows the rows and bytes it estimates from. The
// rows are loaded later, by load.
func readInput(ctx context.Context, path string, opts userdata.Options) (*input, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--input: %w", err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("--input %s is a directory", path)
	}
	in := &input{path: path, fileB: fi.Size(), opts: opts}
	r, err := userdata.Open(path, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	in.kind, in.comp, in.schema = string(r.Kind()), r.Compression(), r.Schema()
	in.inner = innerCompression(path, r.Kind(), in.comp)
	for r.Next() {
		in.batches++
		for _, col := range r.RecordBatch().Columns() {
			in.memB += dataSize(col.Data())
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	in.rows, in.skipped, in.notes = r.Rows(), r.Skipped(), r.Notes()
	if in.rows == 0 {
		return nil, fmt.Errorf("%s: no rows to measure", path)
	}
	return in, nil
}

// memoryLimitPolicy says, for the results' environment, which soft memory
// limit the cases run under.
func memoryLimitPolicy() string {
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		return fmt.Sprintf("%d MiB (soft; set before the run: GOMEMLIMIT)", limit>>20)
	}
	return fmt.Sprintf("the input held in memory + %d MiB (soft, runtime/debug.SetMemoryLimit; GOMEMLIMIT overrides)", memoryHeadroom>>20)
}
