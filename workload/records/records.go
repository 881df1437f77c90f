// Package records is the records workload (seed 001): a file of N flat
// records written with every format × every compression codec at its
// default level, to a real file, and read back verifying every record; plus
// the physical-limit rows (reading the file's bytes, decompressing only),
// the seed's unbuffered-write anomaly reproduced on purpose, and a
// hand-written minimal loop that measures the harness's own cost.
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

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
	ds "github.com/serbench/serbench/dataset/records"
	"github.com/serbench/serbench/filebench"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/records/recordsfmt"
)

// Name is the workload's CLI name.
const Name = "records"

// caseName is the benchmark base name of every case.
const caseName = "Records"

// Ops of a format × codec pair, in the order they run: the write creates
// the file the others use.
const (
	OpWrite      = "write"
	OpRead       = "read"
	OpReadBytes  = "read-bytes"
	OpDecompress = "decompress"
)

// Label keys and values.
const (
	// LabelFormat is the subject: a format, a bare loop.
	LabelFormat  = "subject"
	LabelCodec   = "codec"
	LabelOp      = "op"
	LabelVariant = "variant"
	// VariantUnbuffered marks the case written without any buffering.
	VariantUnbuffered = "unbuffered"
	// BareSubject is the hand-written minimal JSONL + zstd write loop.
	BareSubject = "jsonl-bare"
	// BareMsgpSubject is the hand-written minimal generated-MessagePack
	// write loop (no compression): the fastest kind of write, where a
	// fixed cost per record would show most.
	BareMsgpSubject = "msgpack-msgp-bare"
	// TagCompresses and TagRandomAccess mark, in a format's descriptor,
	// a format that compresses itself or reads a footer first: either
	// combines with codec none only.
	TagCompresses   = "compresses"
	TagRandomAccess = "random-access"
)

// Metric names: fixed per case (file and stream sizes, record count) and
// per sample (peak heap growth).
const (
	MetricFile     = "file-B"
	MetricEncoded  = "encoded-B"
	MetricRecords  = "records"
	MetricPeakHeap = "peak-heap-B"
	// MetricPipelineNs is, in a bare-loop case, the pipeline's time for
	// the same write, measured in the same sample.
	MetricPipelineNs = "pipeline-ns/op"
	// MetricPipelineRatio is, in a bare-loop case, the pipeline's time
	// over the bare loop's within one sample.
	MetricPipelineRatio = "pipeline/bare"
)

// unbufferedRecords caps the records of the unbuffered variant: every
// encoder write is a system call, so its time is linear in the records
// (about 40 s at 1M on a small machine) and the report compares time per
// record.
const unbufferedRecords = 100_000

// Workload is the records workload.
type Workload struct{}

// New returns the records workload.
func New() *Workload { return &Workload{} }

// Name implements workload.Workload.
func (*Workload) Name() string { return Name }

// Description implements workload.Workload.
func (*Workload) Description() string {
	return "a file of flat records (seed 001): every format × every codec written to disk and read back verified, with read-bytes and decompress-only floors"
}

// Subjects implements workload.Workload: the format names and the bare
// loop.
func (*Workload) Subjects() []string {
	fs, err := recordsfmt.Formats()
	if err != nil {
		return []string{BareSubject, BareMsgpSubject}
	}
	return append(fs.Names(), BareSubject, BareMsgpSubject)
}

// Plan implements workload.Workload. Files are written in cfg.TempDir
// (the system's temp dir when empty).
func (w *Workload) Plan(_ context.Context, cfg workload.Config) (*workload.Plan, error) {
	return newPlan(scales().At(cfg.Scale), cfg)
}

// scales is the workload's scale table: records per file (the seed's
// 1,000,000 at default and full).
func scales() workload.ScaleTable[int] {
	return workload.ScaleTable[int]{Quick: 100_000, Default: 1_000_000, Full: 1_000_000,
		Describe: func(n int) string { return report.Int(float64(n)) + " records" }}
}

// ScaleInfo implements workload.Scaler.
func (*Workload) ScaleInfo(s workload.Scale) string { return scales().String(s) }

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

// pair is one format × codec (× variant) and its file, shared by the pair's
// cases. Cases run one at a time, so the mutex only guards against misuse.
type pair struct {
	mu      sync.Mutex
	src     *source
	files   *fileSet
	n       int
	format  format.Format[ds.Record]
	codec   codec.Codec
	variant string
	opts    filebench.Options
	path    string
	// bare, when set, makes the pair a bare-loop comparison: its write is
	// the hand-written loop, alternated with the pipeline doing the same
	// work.
	bare *bareLoop

	verified bool  // the file at path was written completely
	fileB    int64 // its size when written
	encodedB int64 // the format's output size before compression
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

// fileSet tracks the plan's files so that at most one pair's file is on disk
// at a time and Close removes any left behind.
type fileSet struct {
	mu      sync.Mutex
	dir     string
	ownsDir bool
	current *pair
	all     []*pair
}

// activate makes p the current pair, deleting the previous pair's file.
func (s *fileSet) activate(p *pair) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current != nil && s.current != p {
		s.current.remove()
	}
	s.current = p
}

func (s *fileSet) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, p := range s.all {
		if err := p.remove(); err != nil {
			errs = append(errs, err)
		}
	}
	if s.ownsDir {
		if err := os.RemoveAll(s.dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// remove deletes the pair's file (a missing file is not an error).
func (p *pair) remove() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.verified = false
	err := removeFile(p.path)
	if p.bare != nil {
		err = errors.Join(err, p.bare.twin.remove())
	}
	return err
}

// removeFile deletes path; a missing file is not an error.
func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("records: remove %s: %w", path, err)
	}
	return nil
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
		size, err := p.bare.write(p.path, t.Records(p.n))
		return filebench.WriteStats{Records: p.n, FileBytes: size}, err
	}
	return filebench.Write(context.Background(), p.path, p.format, p.codec, t.Records(p.n), p.opts)
}

// read reads the file once with the pipeline (a bare loop writes the same
// bytes as its pipeline twin), verifying every record against the source.
func (p *pair) read() (filebench.ReadStats, error) {
	t, err := p.src.table()
	if err != nil {
		return filebench.ReadStats{}, err
	}
	return filebench.Read(context.Background(), p.path, p.format, p.codec, p.n, t.Verify(), p.opts)
}

// verifyRecords caps the records a write case round-trips before it is
// timed. A full write and read at 1M records costs as much as a sample; every
// timed read verifies every record of the full file, and a pair whose read
// fails is left out of every ranking.
const verifyRecords = 20_000

// roundTrip writes the first min(n, verifyRecords) records to a scratch
// file next to the pair's file and reads them back verifying every one, so
// that no write is timed on a subject that does not round-trip.
func (p *pair) roundTrip() error {
	q := &pair{src: p.src, n: min(p.n, verifyRecords), format: p.format, codec: p.codec, opts: p.opts, path: p.path + ".verify", bare: p.bare}
	if p.bare != nil {
		// The comparison times the pipeline too: verify it as well.
		if err := p.bare.twin.roundTrip(); err != nil {
			return fmt.Errorf("pipeline: %w", err)
		}
	}
	defer os.Remove(q.path)
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

// prepare writes the pair's file outside timing (for a read or limit case
// whose write case did not run, e.g. in a filtered run). The timed reads
// verify every record of it.
func (p *pair) prepare() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.verified = false
	ws, err := p.write()
	if err != nil {
		return err
	}
	if ws.Records != p.n {
		return fmt.Errorf("%w: wrote %d records, want %d", filebench.ErrRecordCount, ws.Records, p.n)
	}
	p.fileB, p.encodedB = ws.FileBytes, ws.EncodedBytes
	p.verified = true
	return nil
}

// setSizes records the sizes of the latest write and whether it wrote every
// record.
func (p *pair) setSizes(ws filebench.WriteStats, complete bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fileB, p.encodedB, p.verified = ws.FileBytes, ws.EncodedBytes, complete
}

// ensure makes sure a verified file is on disk, writing it if needed.
func (p *pair) ensure() error {
	p.mu.Lock()
	ok := p.verified
	p.mu.Unlock()
	if ok {
		if _, err := os.Stat(p.path); err == nil {
			return nil
		}
	}
	return p.prepare()
}

// check is the Verify of the read and limit cases: the verified file is
// still there with the size it was written with. Corruption that keeps the
// size is caught by the read itself, which verifies every record.
func (p *pair) check() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.verified {
		return errors.New("the file was not written")
	}
	fi, err := os.Stat(p.path)
	if err != nil {
		return fmt.Errorf("file written by the write case: %w", err)
	}
	if fi.Size() != p.fileB {
		return fmt.Errorf("file %s is %d bytes, was written as %d (truncated or replaced between write and read)", p.path, fi.Size(), p.fileB)
	}
	return nil
}

// metrics are the pair's fixed per-case metrics.
func (p *pair) metrics(m map[string]float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m[MetricFile] = float64(p.fileB)
	if p.encodedB > 0 {
		m[MetricEncoded] = float64(p.encodedB)
	}
	m[MetricRecords] = float64(p.n)
}

// bytesPerOp is what MB/s counts: the format's encoded stream (before
// compression), or the file for read-bytes.
func (p *pair) bytesPerOp(op string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if op == OpReadBytes || p.encodedB == 0 {
		return p.fileB
	}
	return p.encodedB
}

// newPlan builds the plan for n records; tests use small n.
func newPlan(n int, cfg workload.Config) (*workload.Plan, error) {
	if n <= 0 {
		return nil, fmt.Errorf("records: record count must be positive, got %d", n)
	}
	fs, err := recordsfmt.Formats()
	if err != nil {
		return nil, fmt.Errorf("records: formats: %w", err)
	}
	codecs := codec.Default()
	files := &fileSet{dir: cfg.TempDir}
	if files.dir == "" {
		d, err := os.MkdirTemp("", "serbench-records-")
		if err != nil {
			return nil, fmt.Errorf("records: temp dir: %w", err)
		}
		files.dir, files.ownsDir = d, true
	}
	src := &source{n: n}
	var cases []bench.Case
	add := func(p *pair) {
		files.all = append(files.all, p)
		cases = append(cases, pairCases(p)...)
	}
	for _, f := range fs.All() {
		name := f.Descriptor().Name
		if cfg.WantSubject(name) {
			for _, cname := range codecs.Names() {
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
				add(newPair(src, files, n, f, codecs.MustParse("none"), VariantUnbuffered))
			}
		}
		for _, bl := range bareLoops() {
			if name != bl.format || !cfg.WantSubject(bl.subject) {
				continue
			}
			c := codecs.MustParse(bl.codec)
			twin := newPair(src, files, n, f, c, "")
			twin.path = filepath.Join(files.dir, "records-"+bl.subject+"-pipeline.bin")
			files.all = append(files.all, twin)
			p := newPair(src, files, n, f, c, "")
			p.bare = &bareLoop{subject: bl.subject, note: bl.note, write: bl.write, twin: twin, count: bl.count}
			p.path = filepath.Join(files.dir, "records-"+bl.subject+"-"+bl.codec+".bin")
			add(p)
		}
	}
	return &workload.Plan{Cases: cases, Close: files.close, Descriptors: descriptors(fs, codecs, cfg)}, nil
}

// descriptors describes every format, bare loop and codec of the plan.
func descriptors(fs *format.Registry[ds.Record], codecs *codec.Registry, cfg workload.Config) []results.Descriptor {
	var out []results.Descriptor
	for _, f := range fs.All() {
		d := f.Descriptor()
		if !cfg.WantSubject(d.Name) {
			continue
		}
		tags := slices.Clone(d.Labels)
		if d.Compresses {
			tags = append(tags, TagCompresses)
		}
		if d.RandomAccess {
			tags = append(tags, TagRandomAccess)
		}
		out = append(out, results.Descriptor{Workload: Name, Key: LabelFormat, Name: d.Name, Role: results.RoleSubject,
			What: d.Detail, Module: d.Library, Version: d.Version, Tags: tags,
			Settings: map[string]string{"buffer": "256 KiB bufio under the encoder", "verified": "every record on read"}})
	}
	for _, bl := range bareLoops() {
		if cfg.WantSubject(bl.subject) {
			out = append(out, results.Descriptor{Workload: Name, Key: LabelFormat, Name: bl.subject, Role: results.RoleSubject, What: bl.note,
				Settings: map[string]string{"twin": bl.format + " + " + bl.codec}})
		}
	}
	for _, name := range codecs.Names() {
		c, err := codecs.Parse(name)
		if err != nil {
			continue
		}
		in := c.Info()
		d := results.Descriptor{Workload: Name, Key: LabelCodec, Name: name, What: in.Detail, Module: in.Library}
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
		{BareSubject, "jsonl", "zstd", "hand-written minimal loop (encoding/json → zstd → bufio → file), alternated with the pipeline",
			filebench.BareJSONLZstdWrite[ds.Record], 10},
		{BareMsgpSubject, "msgpack-msgp", "none", "hand-written minimal loop (generated EncodeMsg → msgp.Writer → file), alternated with the pipeline",
			filebench.BareMsgpWrite[ds.Record], 10},
	}
}

func newPair(src *source, files *fileSet, n int, f format.Format[ds.Record], c codec.Codec, variant string) *pair {
	p := &pair{src: src, files: files, n: n, format: f, codec: c, variant: variant}
	name := []string{"records", f.Descriptor().Name, c.Info().Name}
	if variant != "" {
		name = append(name, variant)
	}
	if variant == VariantUnbuffered {
		p.opts.Unbuffered = true
		p.n = min(n, unbufferedRecords)
	}
	p.path = filepath.Join(files.dir, strings.Join(name, "-")+".bin")
	return p
}

// ops lists the operations measured for p, in run order.
func (p *pair) ops() []string {
	switch {
	case p.variant == VariantUnbuffered:
		// Only the write differs from the buffered pair.
		return []string{OpWrite}
	case p.bare != nil:
		// The comparison is of writes; the read path has the same layers.
		return []string{OpWrite}
	case p.codec.Info().Name == "none":
		// Decompress-only would be reading the bytes again.
		return []string{OpWrite, OpRead, OpReadBytes}
	default:
		return []string{OpWrite, OpRead, OpReadBytes, OpDecompress}
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
		{Key: LabelFormat, Value: p.subject()},
		{Key: LabelCodec, Value: p.codec.Info().Name},
		{Key: LabelOp, Value: op},
	}
	if p.variant != "" {
		ls = append(ls, results.Label{Key: LabelVariant, Value: p.variant})
	}
	return ls
}

// sampleBudget is the time a case may spend on samples beyond its first
// (see bench.Case.Budget): one op at 1M records takes 0.05–30 s on a small
// machine, so slow ops get one or two samples and fast ones up to --count;
// reports show n. A bare-loop comparison gets no budget: it needs every
// pair of runs to tell a 10% difference from noise.
func (p *pair) sampleBudget() time.Duration {
	if p.bare != nil {
		return 0
	}
	return budget
}

// budget is the sampling budget of ordinary cases.
const budget = time.Second

// limitCount is the number of samples of the decompress floor: every
// sample costs a full GC over the in-memory records, so five would mostly
// measure the collector.
const limitCount = 3

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
		Affinity: p.path,
		Labels:   p.labels(op),
		Metrics:  map[string]float64{},
		Budget:   p.sampleBudget(),
		NoWarmup: true,
	}
	c.OpTime = p.opTime(op)
	switch op {
	case OpReadBytes:
		// A floor of a few milliseconds that allocates one read buffer:
		// readBytesPerRound samples back to back after each round's GC.
		c.Role = results.RoleLimit
		c.PerRound = readBytesPerRound
	case OpDecompress:
		c.Role = results.RoleLimit
		c.Count = limitCount
	}
	if op != OpWrite && p.bare == nil && p.variant == "" {
		// A read and its floors (read-bytes, decompress) are sampled
		// round-robin on the same file, so each read sample carries its
		// ratio to the read-bytes floor of the same round.
		c.Group = p.subject() + "/" + p.codec.Info().Name + "/read"
	}
	if p.variant == VariantUnbuffered {
		c.Notes = []string{fmt.Sprintf("no buffering: every encoder write is a system call (the seed's 22 s MsgPack Plain); the first %s records only, compare time per record", report.Int(float64(p.n)))}
	}
	if last {
		c.Teardown = func() { p.remove() }
	}
	if p.bare != nil {
		c.Notes = []string{p.bare.note}
		c.Count = p.bare.count
		c.Setup = func() error {
			p.files.activate(p)
			return nil
		}
		c.Verify = p.roundTrip
		c.Run = p.runPaired(c.Metrics)
		return c
	}
	if op == OpWrite {
		c.Setup = func() error {
			p.files.activate(p)
			return nil
		}
		c.Verify = p.roundTrip
		c.Run = func(b *bench.B) error {
			b.SetBytes(p.bytesPerOp(op))
			var peak uint64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if err := os.Remove(p.path); err != nil && !errors.Is(err, os.ErrNotExist) {
					return fmt.Errorf("remove previous file: %w", err)
				}
				b.StartTimer()
				st, err := p.write()
				if err != nil {
					return err
				}
				// Some formats are not byte-for-byte deterministic (Avro
				// OCF's random sync marker); later cases check the last
				// write's sizes.
				p.setSizes(st, st.Records == p.n)
				peak = max(peak, st.Heap.PeakDelta())
			}
			b.ReportMetric(float64(peak), MetricPeakHeap)
			// The encoded size is known once a write has run (the first
			// run may be the first sample).
			b.SetBytes(p.bytesPerOp(op))
			p.metrics(c.Metrics)
			return nil
		}
		return c
	}
	c.Setup = func() error {
		p.files.activate(p)
		if err := p.ensure(); err != nil {
			return fmt.Errorf("create the file to read: %w", err)
		}
		p.metrics(c.Metrics)
		return nil
	}
	c.Verify = p.check
	c.Run = func(b *bench.B) error {
		b.SetBytes(p.bytesPerOp(op))
		var peak uint64
		for i := 0; i < b.N; i++ {
			var (
				st  filebench.ReadStats
				err error
			)
			switch op {
			case OpRead:
				st, err = p.read()
			case OpReadBytes:
				st, err = filebench.ReadFile(context.Background(), p.path, p.opts)
				if err == nil && st.FileBytes != p.fileB {
					err = fmt.Errorf("read %d bytes, the file was written as %d", st.FileBytes, p.fileB)
				}
			case OpDecompress:
				st, err = filebench.Decompress(context.Background(), p.path, p.codec, p.opts)
				if err == nil && st.DecodedBytes != p.encodedB {
					err = fmt.Errorf("decompressed %d bytes, the encoder wrote %d", st.DecodedBytes, p.encodedB)
				}
			}
			if err != nil {
				return err
			}
			peak = max(peak, st.Heap.PeakDelta())
		}
		b.ReportMetric(float64(peak), MetricPeakHeap)
		return nil
	}
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
				if err := errors.Join(removeFile(p.path), removeFile(twin.path)); err != nil {
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
					twin.setSizes(st, true)
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
				st.EncodedBytes = twin.encodedB
				p.setSizes(st, true)
			}
			b.StartTimer()
		}
		if bareD > 0 {
			b.ReportMetric(float64(pipeD.Nanoseconds())/float64(b.N), MetricPipelineNs)
			b.ReportMetric(float64(pipeD)/float64(bareD), MetricPipelineRatio)
		}
		b.SetBytes(p.bytesPerOp(OpWrite))
		p.metrics(fixed)
		return nil
	}
}

// opTime is a rough expectation of one op on a small machine, for
// estimates only (`run --dry-run`, `list`): a microsecond or two a record
// for most pairs, far more for xz and brotli writes, a tenth for the
// floors.
func (p *pair) opTime(op string) time.Duration {
	perRecord := 1500 * time.Nanosecond
	switch op {
	case OpReadBytes:
		perRecord = 30 * time.Nanosecond
	case OpDecompress:
		perRecord = 300 * time.Nanosecond
	case OpWrite:
		switch p.codec.Info().Name {
		case "xz":
			perRecord = 12 * time.Microsecond
		case "brotli":
			perRecord = 6 * time.Microsecond
		case "gzip":
			perRecord = 3 * time.Microsecond
		}
		if p.variant == VariantUnbuffered {
			perRecord = 60 * time.Microsecond
		}
	}
	return time.Duration(p.n) * perRecord
}
