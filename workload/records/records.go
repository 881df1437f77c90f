// Package records is the records workload (seed 001): a file of N flat
// records written with every format × every compression codec at its
// default level, to a real file, and read back verifying every record; plus
// the physical-limit rows (reading the file's bytes, decompressing only),
// the seed's unbuffered-write anomaly reproduced on purpose, and a
// hand-written minimal loop that measures the harness's own cost. The
// cases' labels, ops and metrics, the pair's file and the report tables it
// shares with the data workload are package workload/filecase's.
package records

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
	ds "github.com/serbench/serbench/dataset/records"
	"github.com/serbench/serbench/filebench"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/subject"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
	"github.com/serbench/serbench/workload/records/recordsfmt"
)

// Name is the workload's CLI name (filecase.RecordsWorkload: the data
// workload compares its cases with records').
const Name = filecase.RecordsWorkload

// caseName is the benchmark base name of every case.
const caseName = "Records"

// unbufferedRecords caps the records of the unbuffered variant: every
// encoder write is a system call, so its time is linear in the records
// (about 40 s at 1M on a small machine) and the report compares time per
// record.
const unbufferedRecords = 100_000

// Workload is the records workload.
type Workload struct {
	reg *subject.Registry // nil: the built-in subjects
}

// New returns the records workload measuring its built-in formats.
func New() *Workload { return &Workload{} }

// WithSubjects sets the registry whose records subjects the workload measures
// (Register adds the built-in ones to r) and returns w.
func (w *Workload) WithSubjects(r *subject.Registry) *Workload {
	w.reg = r
	return w
}

// Subject is the shape of a records subject: a streaming format of
// records.Record (filecase.FormatSubject makes one of a format.Format).
type Subject = filecase.Subject[ds.Record]

// Register adds the built-in formats (recordsfmt.Formats) to r.
func Register(r *subject.Registry) error {
	ss, err := builtin()
	if err != nil {
		return err
	}
	return subject.Add(r, Name, ss...)
}

// builtin returns the built-in formats as subjects.
func builtin() ([]Subject, error) {
	fs, err := recordsfmt.Formats()
	if err != nil {
		return nil, fmt.Errorf("records: formats: %w", err)
	}
	var ss []Subject
	for _, f := range fs.All() {
		ss = append(ss, filecase.FormatSubject(f))
	}
	return ss, nil
}

// subjects returns the subjects the workload measures.
func (w *Workload) subjects() ([]Subject, error) {
	if w.reg == nil {
		return builtin()
	}
	return subject.For[*arrow.Schema, format.Format[ds.Record]](w.reg, Name)
}

// Name implements workload.Workload.
func (*Workload) Name() string { return Name }

// Description implements workload.Workload.
func (*Workload) Description() string {
	return "a file of flat records (seed 001): every format × every codec written to disk and read back verified, with read-bytes and decompress-only floors"
}

// Subjects implements workload.Workload: the format names and the bare
// loop.
func (w *Workload) Subjects() []string {
	ss, _ := w.subjects()
	return append(subject.Names(ss), filecase.BareSubject, filecase.BareMsgpSubject)
}

// Plan implements workload.Workload. Files are written in cfg.TempDir
// (the system's temp dir when empty).
func (w *Workload) Plan(ctx context.Context, cfg workload.Config) (*workload.Plan, error) {
	return w.newPlan(ctx, scales().At(cfg.Scale), cfg)
}

// scales is the workload's scale table: records per file. Full writes the
// seed's 1,000,000; the default a tenth of them, which keeps the seed's
// tables whole (their verdicts compare sizes and times per record, and a
// file of 100,000 records — 17 MB of JSON Lines — is still larger than
// every codec's window and the machine's caches) within the main job's
// budget.
func scales() workload.ScaleTable[int] {
	return workload.ScaleTable[int]{Quick: 25_000, Default: 100_000, Full: 1_000_000,
		Describe: func(n int) string { return table.Int(float64(n)) + " records" }}
}

// ScaleInfo implements workload.Scaler.
func (*Workload) ScaleInfo(s workload.Scale) string {
	if s == workload.Full {
		return scales().String(s) + ", every format × every codec"
	}
	return scales().String(s) + ", the seed's formats × every codec, the others × " + strings.Join(scaleCodecs, ", ")
}

// source holds the plan's records, generated once (outside every timed
// region) into a compact table and shared by every case: the timed write
// encodes them from memory and the timed read checks each decoded record
// against them. The table has no pointers, so the collections during and
// between timed ops do not mark a million records each time.
type source struct {
	once sync.Once
	n    int
	tab  *ds.Table
	err  error
}

func (s *source) table() (*ds.Table, error) {
	s.once.Do(func() { s.tab, s.err = ds.NewTable(ds.New(ds.DefaultSeed), s.n) })
	return s.tab, s.err
}

// pair is one format × codec (× variant) and its file (filecase.File: the
// path, codec and pipeline options, the sizes written), shared by the
// pair's cases.
type pair struct {
	filecase.File
	src     *source
	files   *filecase.Files
	n       int
	format  format.Format[ds.Record]
	variant string
	// bare, when set, makes the pair a bare-loop comparison: its write is
	// the hand-written loop, alternated with the pipeline doing the same
	// work.
	bare *bareLoop
}

// bareLoop is a hand-written minimal write loop and the pipeline pair doing
// the same encode+write; the bare pair's case runs the two alternately.
type bareLoop struct {
	subject string
	note    string
	write   func(path string, src iter.Seq[*ds.Record]) (int64, error)
	twin    *pair // the pipeline with the same format and codec
	count   int   // pairs of runs (samples)
}

func (p *pair) subject() string {
	if p.bare != nil {
		return p.bare.subject
	}
	return p.format.Descriptor().Name
}

// write writes the file once: with the pair's pipeline, or with the bare
// loop for a bare pair.
func (p *pair) write() (filebench.WriteStats, error) {
	t, err := p.src.table()
	if err != nil {
		return filebench.WriteStats{}, err
	}
	if p.bare != nil {
		size, err := p.bare.write(p.Path, t.Records(p.n))
		return filebench.WriteStats{Records: p.n, FileBytes: size}, err
	}
	return filebench.Write(context.Background(), p.Path, p.format, p.Codec, t.Records(p.n), p.Opts)
}

// read reads the file once with the pipeline (a bare loop writes the same
// bytes as its pipeline twin), verifying every record against the source.
func (p *pair) read() (filebench.ReadStats, error) {
	t, err := p.src.table()
	if err != nil {
		return filebench.ReadStats{}, err
	}
	return filebench.Read(context.Background(), p.Path, p.format, p.Codec, p.n, t.Verify(), p.Opts)
}

// roundTrip writes the first min(n, filecase.VerifyRecords) records to a
// scratch file next to the pair's file and reads them back verifying every
// one, so that no write is timed on a subject that does not round-trip.
func (p *pair) roundTrip() error {
	q := &pair{File: filecase.File{Path: p.Path + ".verify", Codec: p.Codec, Opts: p.Opts},
		src: p.src, n: min(p.n, filecase.VerifyRecords), format: p.format, bare: p.bare}
	if p.bare != nil {
		// The comparison times the pipeline too: verify it as well.
		if err := p.bare.twin.roundTrip(); err != nil {
			return fmt.Errorf("pipeline: %w", err)
		}
	}
	defer os.Remove(q.Path)
	ws, err := q.write()
	if err != nil {
		return err
	}
	if ws.Records != q.n {
		return fmt.Errorf("%w: wrote %d records, want %d", filebench.ErrRecordCount, ws.Records, q.n)
	}
	if _, err := q.read(); err != nil {
		return fmt.Errorf("round trip: %w", err)
	}
	return nil
}

// newPlan builds the plan for n records; tests use small n.
func (w *Workload) newPlan(ctx context.Context, n int, cfg workload.Config) (*workload.Plan, error) {
	if n <= 0 {
		return nil, fmt.Errorf("records: record count must be positive, got %d", n)
	}
	ss, err := w.subjects()
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	schema := recordsfmt.Arrow().Schema
	var fs []format.Format[ds.Record]
	for _, s := range ss {
		if !cfg.WantSubject(s.Name()) && !slices.ContainsFunc(bareLoops(), func(b bareSpec) bool { return b.format == s.Name() && cfg.WantSubject(b.subject) }) {
			continue
		}
		f, err := s.Bind(schema)
		if err != nil {
			return nil, fmt.Errorf("records: %s: %w", s.Name(), err)
		}
		fs = append(fs, f)
	}
	codecs := codec.Default()
	files := &filecase.Files{Dir: cfg.TempDir}
	if files.Dir == "" {
		d, err := os.MkdirTemp("", "serbench-records-")
		if err != nil {
			return nil, fmt.Errorf("records: temp dir: %w", err)
		}
		files.Dir, files.OwnsDir = d, true
	}
	src := &source{n: n}
	var cases []bench.Case
	add := func(p *pair) {
		files.Add(&p.File)
		cases = append(cases, pairCases(p)...)
	}
	for _, f := range fs {
		name := f.Descriptor().Name
		if cfg.WantSubject(name) {
			for _, cname := range codecs.Names() {
				if !allCodecs(cfg.Scale, name, cname) {
					continue
				}
				c, err := codecs.Parse(cname)
				if err != nil {
					return nil, fmt.Errorf("records: codec %s: %w", cname, err)
				}
				if filebench.CheckCombination(f.Descriptor(), c) != nil {
					continue
				}
				add(newPair(src, files, n, f, c, ""))
			}
			if name == "msgpack" {
				// The seed's anomaly, reproduced on purpose.
				add(newPair(src, files, n, f, codecs.MustParse("none"), filecase.VariantUnbuffered))
			}
		}
		for _, bl := range bareLoops() {
			if name != bl.format || !cfg.WantSubject(bl.subject) {
				continue
			}
			c := codecs.MustParse(bl.codec)
			twin := newPair(src, files, n, f, c, "")
			twin.Path = filepath.Join(files.Dir, "records-"+bl.subject+"-pipeline.bin")
			files.Add(&twin.File)
			p := newPair(src, files, n, f, c, "")
			p.bare = &bareLoop{subject: bl.subject, note: bl.note, write: bl.write, twin: twin, count: bl.count}
			p.Twin = &twin.File
			p.Path = filepath.Join(files.Dir, "records-"+bl.subject+"-"+bl.codec+".bin")
			add(p)
		}
	}
	descs := descriptors(fs, codecs, cfg)
	rc, rd, err := runnerCases(ctx, src, n, cfg, files.Dir)
	if err != nil {
		return nil, errors.Join(err, files.Close())
	}
	return &workload.Plan{Cases: append(cases, rc...), Close: files.Close, Descriptors: append(descs, rd...), Env: env(cfg.Scale)}, nil
}

// seedFormats are the seed's formats: every scale writes them with every
// codec, the seed's table whole.
var seedFormats = []string{"jsonl", "msgpack", "flatbuffers"}

// scaleCodecs are the codecs the other formats are written with below the
// full scale: none, and zstd, the codec the seed and every scale's findings
// recommend most often; the full scale takes every codec with every format.
var scaleCodecs = []string{"none", "zstd"}

// allCodecs reports whether format is written with codec at scale.
func allCodecs(scale workload.Scale, format, codec string) bool {
	return scale == workload.Full || slices.Contains(seedFormats, format) || slices.Contains(scaleCodecs, codec)
}

// Keys of the settings the plan records in the run's environment (as
// "records.<key>" in results.Env.Extra): the report's method quotes them
// from the results, not from the build that renders it.
const (
	envBuffer    = "buffer"
	envVerify    = "verify_records"
	envBudget    = "sample_budget"
	envHeapEvery = "heap_sample_every"
	envCoverage  = "coverage"
)

// env is the plan's environment: the buffer of every buffered layer, the
// records each pair round-trips before it is timed, the sampling budget of
// a case and how often the heap is sampled.
func env(scale workload.Scale) map[string]string {
	coverage := "every format with every codec"
	if scale != workload.Full {
		coverage = "the seed's formats (" + strings.Join(seedFormats, ", ") + ") with every codec, the other formats with " + strings.Join(scaleCodecs, " and ") + " only (--scale full: every format with every codec)"
	}
	return map[string]string{envBuffer: table.Bytes(filebench.DefaultBufferSize), envVerify: table.Int(filecase.VerifyRecords),
		envBudget: table.Duration(float64(budgetFor(scales().At(scale)))), envHeapEvery: "every " + table.Int(filebench.SampleEvery) + " records",
		envCoverage: coverage}
}

// descriptors describes every format, bare loop and codec of the plan.
func descriptors(fs []format.Format[ds.Record], codecs *codec.Registry, cfg workload.Config) []results.Descriptor {
	var out []results.Descriptor
	for _, f := range fs {
		d := f.Descriptor()
		if !cfg.WantSubject(d.Name) {
			continue
		}
		desc := filecase.Describe(d, map[string]string{"buffer": "256 KiB bufio under the encoder", "verified": "every record on read"})
		desc.Workload = Name
		out = append(out, desc)
	}
	for _, bl := range bareLoops() {
		if cfg.WantSubject(bl.subject) {
			out = append(out, results.Descriptor{Workload: Name, Key: filecase.LabelFormat, Name: bl.subject, Role: results.RoleSubject, What: bl.note,
				Settings: map[string]string{"twin": bl.format + " + " + bl.codec}})
		}
	}
	for _, name := range codecs.Names() {
		c, err := codecs.Parse(name)
		if err != nil {
			continue
		}
		in := c.Info()
		d := results.Descriptor{Workload: Name, Key: filecase.LabelCodec, Name: name, What: in.Detail, Module: in.Library}
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

// bareSpec names a hand-written loop and the format and codec of the
// pipeline it is compared with.
type bareSpec struct {
	subject, format, codec, note string
	write                        func(path string, src iter.Seq[*ds.Record]) (int64, error)
	count                        int
}

// bareLoops lists the hand-written loops: a slow, compressing write and the
// fastest kind of write.
func bareLoops() []bareSpec {
	return []bareSpec{
		{filecase.BareSubject, "jsonl", "zstd", "hand-written minimal loop (encoding/json → zstd → bufio → file), alternated with the pipeline",
			filebench.BareJSONLZstdWrite[ds.Record], 10},
		{filecase.BareMsgpSubject, "msgpack-msgp", "none", "hand-written minimal loop (generated EncodeMsg → msgp.Writer → file), alternated with the pipeline",
			filebench.BareMsgpWrite[ds.Record], 10},
	}
}

func newPair(src *source, files *filecase.Files, n int, f format.Format[ds.Record], c codec.Codec, variant string) *pair {
	p := &pair{File: filecase.File{Workload: Name, Codec: c}, src: src, files: files, n: n, format: f, variant: variant}
	name := []string{"records", f.Descriptor().Name, c.Info().Name}
	if variant != "" {
		name = append(name, variant)
	}
	if variant == filecase.VariantUnbuffered {
		p.Opts.Unbuffered = true
		p.n = min(n, unbufferedRecords)
	}
	p.Path = filepath.Join(files.Dir, strings.Join(name, "-")+".bin")
	p.Records, p.Want = int64(p.n), p.n
	p.Write, p.Read = p.write, p.read
	return p
}

// ops lists the operations measured for p, in run order.
func (p *pair) ops() []string {
	switch {
	case p.variant == filecase.VariantUnbuffered:
		// Only the write differs from the buffered pair.
		return []string{filecase.OpWrite}
	case p.bare != nil:
		// The comparison is of writes; the read path has the same layers.
		return []string{filecase.OpWrite}
	case p.Codec.Info().Name == "none":
		// Decompress-only would be reading the bytes again.
		return []string{filecase.OpWrite, filecase.OpRead, filecase.OpReadBytes}
	default:
		return []string{filecase.OpWrite, filecase.OpRead, filecase.OpReadBytes, filecase.OpDecompress}
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

func (p *pair) labels(op string) results.Labels {
	ls := results.Labels{
		{Key: filecase.LabelFormat, Value: p.subject()},
		{Key: filecase.LabelCodec, Value: p.Codec.Info().Name},
		{Key: filecase.LabelOp, Value: op},
	}
	if p.variant != "" {
		ls = append(ls, results.Label{Key: filecase.LabelVariant, Value: p.variant})
	}
	return ls
}

// sampleBudget is the time a case may spend on samples beyond its first
// (see bench.Case.Budget): budgetFor the pair's records. A bare-loop
// comparison gets no budget: it needs every pair of runs to tell a 10%
// difference from noise.
func (p *pair) sampleBudget() time.Duration {
	if p.bare != nil {
		return 0
	}
	return budgetFor(p.n)
}

// minBudget is the least sampling budget of a case, whatever its records:
// nested's whole-file reads get the same.
const minBudget = 250 * time.Millisecond

// budgetFor is the sampling budget of a case over n records: at the seed's
// 1M records filecase.Budget (one op takes 0.05–30 s on a small machine, so
// slow ops get one or two samples and fast ones up to --count; reports show
// n), and the same share of it as of the records below that — as many
// samples of an op as it gets at the seed's scale, in a tenth of the time
// for a tenth of the records — but at least minBudget.
func budgetFor(n int) time.Duration {
	full := scales().Full
	return max(minBudget, time.Duration(int64(filecase.Budget)*int64(min(n, full))/int64(full)))
}

// readBytesPerRound is how many samples the read-bytes floor takes back
// to back in a round, after one GC and an untimed run (bench.Case.PerRound):
// it reads the file into one reused buffer, so its samples need no GC
// each. It took three samples, one per GC, before, and each was the first
// read after the collection had freed a million decoded records: 1.5–2×
// the next read's time (refilling the buffer's pages), and noisy (55 of
// the 98 floors of a main job). Now it takes the run's count in four
// rounds, as many as a read of a quarter second takes within its budget.
const readBytesPerRound = 5

func newCase(p *pair, op string, last bool) bench.Case {
	c := bench.Case{
		Workload: Name,
		Name:     caseName,
		// A pair's write and reads share its file: one shard runs them all.
		Affinity: p.Path,
		Labels:   p.labels(op),
		Metrics:  map[string]float64{},
		Budget:   p.sampleBudget(),
		NoWarmup: true,
	}
	c.OpTime = p.opTime(op)
	switch op {
	case filecase.OpReadBytes:
		// A floor of a few milliseconds that allocates one read buffer:
		// readBytesPerRound samples back to back after each round's GC.
		c.Role = results.RoleLimit
		c.PerRound = readBytesPerRound
	case filecase.OpDecompress:
		c.Role = results.RoleLimit
		c.Count = filecase.LimitCount
	}
	if op != filecase.OpWrite && p.bare == nil && p.variant == "" {
		// A read and its floors (read-bytes, decompress) are sampled
		// round-robin on the same file, so each read sample carries its
		// ratio to the read-bytes floor of the same round.
		c.Group = p.subject() + "/" + p.Codec.Info().Name + "/read"
	}
	if p.variant == filecase.VariantUnbuffered {
		c.Notes = []string{fmt.Sprintf("no buffering: every encoder write is a system call (the seed's 22 s MsgPack Plain); the first %s records only, compare time per record", table.Int(float64(p.n)))}
	}
	if last {
		c.Teardown = func() { p.Remove() }
	}
	if p.bare != nil {
		c.Notes = []string{p.bare.note}
		c.Count = p.bare.count
		c.Setup = func() error {
			p.files.Activate(&p.File)
			return nil
		}
		c.Verify = p.roundTrip
		c.Run = p.runPaired(c.Metrics)
		return c
	}
	if op == filecase.OpWrite {
		c.Setup = func() error {
			p.files.Activate(&p.File)
			return nil
		}
		c.Verify = p.roundTrip
		c.Run = p.WriteRun(c.Metrics)
		return c
	}
	c.Setup = func() error {
		p.files.Activate(&p.File)
		if err := p.Ensure(); err != nil {
			return fmt.Errorf("create the file to read: %w", err)
		}
		p.Metrics(c.Metrics)
		return nil
	}
	c.Verify = p.Check
	c.Run = p.ReadRun(op)
	return c
}

// runPaired is the Run of a bare-loop case. Each iteration runs the bare
// loop and the pipeline once each, alternating which goes first, from the
// same collected heap: the bare loop's run is the case's timed op, and each
// sample reports the pipeline's time and pipeline ÷ bare for the same
// iteration. Pairing cancels the slow drift of a shared machine that two
// cases minutes apart would see.
func (p *pair) runPaired(fixed map[string]float64) func(b *bench.B) error {
	pipelineFirst := false
	twin := p.bare.twin
	return func(b *bench.B) error {
		var bareD, pipeD time.Duration
		for i := 0; i < b.N; i++ {
			pipelineFirst = !pipelineFirst
			for _, pipeline := range []bool{pipelineFirst, !pipelineFirst} {
				b.StopTimer()
				if err := errors.Join(p.Delete(), twin.Delete()); err != nil {
					return err
				}
				runtime.GC()
				if pipeline {
					t0 := time.Now()
					st, err := twin.write()
					pipeD += time.Since(t0)
					if err != nil {
						return fmt.Errorf("pipeline: %w", err)
					}
					if st.Records != twin.n {
						return fmt.Errorf("pipeline: %w: wrote %d records, want %d", filebench.ErrRecordCount, st.Records, twin.n)
					}
					twin.SetSizes(st, true)
					continue
				}
				b.StartTimer()
				t0 := time.Now()
				st, err := p.write()
				bareD += time.Since(t0)
				b.StopTimer()
				if err != nil {
					return err
				}
				// The bare loop writes the twin's bytes: same encoded size.
				st.EncodedBytes = twin.EncodedBytes()
				p.SetSizes(st, true)
			}
			b.StartTimer()
		}
		if bareD > 0 {
			b.ReportMetric(float64(pipeD.Nanoseconds())/float64(b.N), filecase.MetricPipelineNs)
			b.ReportMetric(float64(pipeD)/float64(bareD), filecase.MetricPipelineRatio)
		}
		b.SetBytes(p.BytesPerOp(filecase.OpWrite))
		p.Metrics(fixed)
		return nil
	}
}

// opTime is a rough expectation of one op on a small machine, for
// estimates only (filecase.OpTime); an unbuffered write takes a system call
// per encoder write, some 60 µs a record.
func (p *pair) opTime(op string) time.Duration {
	if op == filecase.OpWrite && p.variant == filecase.VariantUnbuffered {
		return time.Duration(p.n) * 60 * time.Microsecond
	}
	return filecase.OpTime(int64(p.n), op, p.Codec.Info().Name)
}
