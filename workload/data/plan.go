package data

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/dataset/userdata"
	"github.com/serbench/serbench/filebench"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/run"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/records"
)

// verifyRows caps the rows a write case round-trips before it is timed (as
// records' verifyRecords): every timed read verifies every row of the full
// file.
const verifyRows = 20_000

// budget is the sampling budget of a case, limitCount the samples of a
// limit row (records' values).
const (
	budget     = time.Second
	limitCount = 3
)

// pair is one format × codec and its file, shared by the pair's cases.
type pair struct {
	mu     sync.Mutex
	in     *input
	files  *fileSet
	fname  string
	format dynamic.Format // nil when holdErr is set
	codec  codec.Codec
	path   string
	// holdErr, when set, is why the format cannot hold the data: the pair
	// is one failed write case.
	holdErr error

	verified bool
	fileB    int64
	encodedB int64
}

// fileSet keeps at most one pair's file on disk at a time.
type fileSet struct {
	mu      sync.Mutex
	dir     string
	ownsDir bool
	current *pair
	all     []*pair
}

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
		errs = append(errs, p.remove())
	}
	if s.ownsDir {
		errs = append(errs, os.RemoveAll(s.dir))
	}
	return errors.Join(errs...)
}

func (p *pair) remove() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.verified = false
	if err := os.Remove(p.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("data: remove %s: %w", p.path, err)
	}
	return nil
}

func (p *pair) name() string  { return p.fname }
func (p *pair) cname() string { return p.codec.Info().Name }

// seq yields batches as filebench's records.
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
	st, err := filebench.Write(context.Background(), path, p.format, p.codec, seq(bs), filebench.Options{})
	return st, err
}

// read reads path back verifying every row against bs.
func (p *pair) read(path string, bs []arrow.RecordBatch) (filebench.ReadStats, error) {
	v := dynamic.NewVerifier(bs)
	st, err := filebench.Read(context.Background(), path, p.format, p.codec, -1,
		func(_ int, got *arrow.RecordBatch) error { return v.Check(*got) }, filebench.Options{})
	if err == nil {
		err = v.Done()
	}
	if err != nil {
		return st, fmt.Errorf("read back %s + %s: %w", p.name(), p.cname(), err)
	}
	return st, nil
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

// roundTrip writes the input's first verifyRows rows to a scratch file and
// reads them back verifying every row, so that no write is timed on a
// format that does not round-trip the data.
func (p *pair) roundTrip() error {
	bs := head(p.in.loaded(), verifyRows)
	defer func() {
		for _, b := range bs {
			b.Release()
		}
	}()
	path := p.path + ".verify"
	defer os.Remove(path)
	if _, err := p.write(path, bs); err != nil {
		return err
	}
	if _, err := p.read(path, bs); err != nil {
		return fmt.Errorf("round trip: %w", err)
	}
	return nil
}

// prepare writes the pair's file outside timing.
func (p *pair) prepare() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.verified = false
	st, err := p.write(p.path, p.in.loaded())
	if err != nil {
		return err
	}
	p.fileB, p.encodedB, p.verified = st.FileBytes, st.EncodedBytes, true
	return nil
}

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

func (p *pair) metrics(m map[string]float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m[records.MetricFile] = float64(p.fileB)
	if p.encodedB > 0 {
		m[records.MetricEncoded] = float64(p.encodedB)
	}
	m[records.MetricRecords] = float64(p.in.rows)
}

func (p *pair) bytesPerOp(op string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if op == records.OpReadBytes || p.encodedB == 0 {
		return p.fileB
	}
	return p.encodedB
}

// columnSizes adds the byte size of every Parquet column chunk of the
// pair's file, summed over row groups, to m.
func (p *pair) columnSizes(m map[string]float64) error {
	r, err := file.OpenParquetFile(p.path, false)
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

// newPlan builds the cases of every format × codec for the input.
func newPlan(in *input, cfg workload.Config) (*workload.Plan, error) {
	codecs := codec.Default()
	cnames := cfg.Codecs
	if len(cnames) == 0 {
		cnames = codecs.Names()
	}
	files := &fileSet{dir: cfg.TempDir}
	if files.dir == "" && cfg.DryRun {
		files.dir = os.TempDir() // never written: a dry run acquires nothing
	} else if files.dir == "" {
		d, err := os.MkdirTemp("", "serbench-data-")
		if err != nil {
			return nil, fmt.Errorf("data: temp dir: %w", err)
		}
		files.dir, files.ownsDir = d, true
	}
	var cases []bench.Case
	var descs []results.Descriptor
	var used []string
	for _, ctor := range dynamic.Constructors() {
		if len(cfg.Formats) > 0 && !slices.Contains(cfg.Formats, ctor.Name) || !cfg.WantSubject(ctor.Name) {
			continue
		}
		f, err := ctor.New(in.schema, dynamic.Options{})
		if err != nil {
			// The format cannot hold this schema: one failed case says why.
			p := &pair{in: in, files: files, fname: ctor.Name, codec: codecs.MustParse("none"), holdErr: holdErr(err)}
			p.path = filepath.Join(files.dir, "data-"+ctor.Name+"-none.bin")
			files.all = append(files.all, p)
			cases = append(cases, holdCase(p))
			descs = append(descs, results.Descriptor{Key: records.LabelFormat, Name: ctor.Name, Role: results.RoleSubject,
				What: holdErr(err).Error(), Tags: []string{dynamic.LabelSchemaDriven}})
			continue
		}
		descs = append(descs, formatDescriptor(f.Descriptor()))
		for _, cn := range cnames {
			c, err := codecs.Parse(cn)
			if err != nil {
				return nil, &run.UsageError{Err: fmt.Errorf("--codecs: %w", err)}
			}
			if filebench.CheckCombination(f.Descriptor(), c) != nil {
				continue
			}
			if !slices.Contains(used, c.Info().Name) {
				used = append(used, c.Info().Name)
			}
			p := &pair{in: in, files: files, fname: ctor.Name, format: f, codec: c}
			p.path = filepath.Join(files.dir, "data-"+ctor.Name+"-"+c.Info().Name+".bin")
			files.all = append(files.all, p)
			cases = append(cases, pairCases(p)...)
		}
	}
	descs = append(descs, codecDescriptors(codecs, used)...)
	descs = append(descs, in.descriptors()...)
	plan := &workload.Plan{Cases: cases, Descriptors: descs, Env: in.env(),
		Close: func() error {
			err := files.close()
			in.release()
			return err
		}}
	return plan, nil
}

// formatDescriptor describes a format with records' tags.
func formatDescriptor(d format.Descriptor) results.Descriptor {
	tags := slices.Clone(d.Labels)
	if d.Compresses {
		tags = append(tags, records.TagCompresses)
	}
	if d.RandomAccess {
		tags = append(tags, records.TagRandomAccess)
	}
	return results.Descriptor{Key: records.LabelFormat, Name: d.Name, Role: results.RoleSubject,
		What: d.Detail, Module: d.Library, Version: d.Version, Tags: tags,
		Settings: map[string]string{"buffer": "256 KiB bufio under the encoder", "verified": "every row on read (NULLs, nesting, floats bit for bit)", "path": pathOf(d)}}
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

func codecDescriptors(codecs *codec.Registry, names []string) []results.Descriptor {
	var out []results.Descriptor
	for _, name := range names {
		c, err := codecs.Parse(name)
		if err != nil {
			continue
		}
		in := c.Info()
		d := results.Descriptor{Key: records.LabelCodec, Name: name, What: in.Detail, Module: in.Library}
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
	return map[string]string{"input": in.path, "rows": strconv.FormatInt(in.rows, 10), "columns": strconv.Itoa(in.schema.NumFields()),
		"memory_limit": memoryLimitPolicy()}
}

// ops lists the operations measured for p, in run order (records' ops).
func (p *pair) ops() []string {
	if p.cname() == "none" {
		return []string{records.OpWrite, records.OpRead, records.OpReadBytes}
	}
	return []string{records.OpWrite, records.OpRead, records.OpReadBytes, records.OpDecompress}
}

func (p *pair) labels(op string) results.Labels {
	return results.Labels{
		{Key: records.LabelFormat, Value: p.name()},
		{Key: records.LabelCodec, Value: p.cname()},
		{Key: records.LabelOp, Value: op},
	}
}

// holdCase is the failed write case of a format that cannot hold the
// input's schema.
func holdCase(p *pair) bench.Case {
	return bench.Case{
		Workload: Name, Name: caseName, Labels: p.labels(records.OpWrite), Affinity: p.path,
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

func newCase(p *pair, op string, last bool) bench.Case {
	rows := p.in.rows
	if rows == 0 {
		rows = p.in.limit
	}
	c := bench.Case{
		Workload: Name,
		Name:     caseName,
		Affinity: p.path,
		Labels:   p.labels(op),
		Metrics:  map[string]float64{},
		Budget:   budget,
		NoWarmup: true,
		OpTime:   opTime(rows, op, p.cname()),
	}
	if op == records.OpReadBytes || op == records.OpDecompress {
		c.Role = results.RoleLimit
		c.Count = limitCount
	}
	if op != records.OpWrite {
		c.Group = p.name() + "/" + p.cname() + "/read"
	}
	if last {
		c.Teardown = func() { p.remove() }
	}
	if op == records.OpWrite {
		c.Setup = func() error {
			if _, err := p.in.load(); err != nil {
				return err
			}
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
				st, err := p.write(p.path, p.in.loaded())
				if err != nil {
					return err
				}
				p.mu.Lock()
				p.fileB, p.encodedB, p.verified = st.FileBytes, st.EncodedBytes, true
				p.mu.Unlock()
				peak = max(peak, st.Heap.PeakDelta())
			}
			b.ReportMetric(float64(peak), records.MetricPeakHeap)
			b.SetBytes(p.bytesPerOp(op))
			p.metrics(c.Metrics)
			return nil
		}
		return c
	}
	c.Setup = func() error {
		if _, err := p.in.load(); err != nil {
			return err
		}
		p.files.activate(p)
		if err := p.ensure(); err != nil {
			return fmt.Errorf("create the file to read: %w", err)
		}
		p.metrics(c.Metrics)
		if op == records.OpRead && p.name() == "parquet" {
			// Which columns make the file big: the column chunks' sizes.
			return p.columnSizes(c.Metrics)
		}
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
			case records.OpRead:
				st, err = p.read(p.path, p.in.loaded())
			case records.OpReadBytes:
				st, err = filebench.ReadFile(context.Background(), p.path, filebench.Options{})
				if err == nil && st.FileBytes != p.fileB {
					err = fmt.Errorf("read %d bytes, the file was written as %d", st.FileBytes, p.fileB)
				}
			case records.OpDecompress:
				st, err = filebench.Decompress(context.Background(), p.path, p.codec, filebench.Options{})
				if err == nil && st.DecodedBytes != p.encodedB {
					err = fmt.Errorf("decompressed %d bytes, the encoder wrote %d", st.DecodedBytes, p.encodedB)
				}
			}
			if err != nil {
				return err
			}
			peak = max(peak, st.Heap.PeakDelta())
		}
		b.ReportMetric(float64(peak), records.MetricPeakHeap)
		return nil
	}
	return c
}
