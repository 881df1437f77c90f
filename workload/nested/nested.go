// Package nested is the nested workload (seed 004, Dendrite): for nested
// records, how much a columnar file saves when a query reads only a few
// columns, and how its full read compares with row formats.
//
// Three datasets (dataset/nested: tpch, media, userevents) are written to
// real files: Parquet (parquet-go, five page codecs), an Arrow IPC file,
// and row formats (JSON with two libraries, MessagePack, CBOR, Protocol
// Buffers, Avro) × gzip and lz4, newline-separated or length-prefixed as
// the seed's. Each file is read back into the dataset's Go structs and
// verified against the generator: fully (full schema, with the floors of
// reading the bytes and decompressing only) and, for sub-schema queries, a
// set of leaf paths at a time, every subject returning the struct with only
// those fields filled, checked against nested.Project of the reference.
package nested

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload/interop"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
	dsn "github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/media"
	"github.com/serbench/serbench/dataset/nested/tpch"
	"github.com/serbench/serbench/dataset/nested/userevents"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/arrowipc"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/subject"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/nested/nestedarrow"
)

// Name is the workload's CLI name.
const Name = "nested"

// caseName is the benchmark base name of every case.
const caseName = "Nested"

// Label keys.
const (
	LabelSubject = "subject"
	LabelDataset = "dataset"
	LabelCodec   = "codec"
	LabelOp      = "op"
	LabelQuery   = "query"
	LabelTier    = "tier"
)

// Ops.
const (
	OpWrite      = "write"
	OpRead       = "read"
	OpReadBytes  = "read-bytes"
	OpDecompress = "decompress"
	// OpSize writes TPC-H Parquet with one set of settings, for the size
	// table (the seed's 36.8 MB).
	OpSize = "size"
)

// Subjects.
const (
	SubjectParquetArrow    = "parquet-arrow"
	SubjectParquetArrowPar = "parquet-arrow-par"
	SubjectParquetGo       = "parquet-go"
	SubjectParquetGoPar    = "parquet-go-par"
	SubjectArrowIPC        = "arrow-ipc"
	// SubjectArrowIPCPar decodes and assembles an IPC file's record
	// batches across GOMAXPROCS goroutines.
	SubjectArrowIPCPar = "arrow-ipc-par"
	// SubjectAvroReaderPar reads Avro with a reader schema of the query's
	// fields only, in parallel batches: Avro's native skipping.
	SubjectAvroReaderPar = "avro-reader-schema-par"
	// StructParSuffix marks a reflection-driven row format read into a
	// projection struct of the query's fields, in parallel batches.
	StructParSuffix   = "-struct-par"
	SubjectReadBytes  = "read-bytes"
	SubjectDecompress = "decompress"
	// ParSuffix marks a row format's parallel reader (the seed's -par).
	ParSuffix = "-par"
)

// Projection tiers of a sub-schema read.
const (
	// TierColumns reads only the queried columns' chunks.
	TierColumns = "columns"
	// TierDecodeProject decodes whole records and projects them.
	TierDecodeProject = "decode+project"
	// TierNative uses a row format's own skipping (an Avro reader schema).
	TierNative = "native"
)

// QueryAll names the full-schema query.
const QueryAll = "all"

// Metric names.
const (
	MetricFile     = "file-B"
	MetricRecords  = "records"
	MetricLeaves   = "leaves"
	MetricColsB    = "cols-total-B"
	MetricColMaxB  = "cols-max-B"
	MetricFullEstB = "full-est-B"
)

// structFormatNames are the row formats with a projection-struct reader.
func structFormatNames() []string { return []string{"json", "json-goccy", "cbor"} }

// rowCodecs are the stream codecs of the row formats.
func rowCodecs() []string { return []string{"gzip", "lz4"} }

// datasetNames lists the datasets in order.
func datasetNames() []string { return []string{"tpch", "media", "userevents"} }

// Workload is the nested workload.
type Workload struct {
	reg *subject.Registry // nil: the built-in row formats
}

// New returns the nested workload.
func New() *Workload { return &Workload{} }

// Name implements workload.Workload.
func (*Workload) Name() string { return Name }

// Description implements workload.Workload.
func (*Workload) Description() string {
	return "nested records (seed 004): Parquet and Arrow vs row formats × gzip/lz4, full reads into Go structs and sub-schema queries of k leaves"
}

// Subjects implements workload.Workload.
func (w *Workload) Subjects() []string {
	out := []string{SubjectParquetArrow, SubjectParquetArrowPar, SubjectParquetGo, SubjectParquetGoPar, SubjectArrowIPC, SubjectArrowIPCPar}
	rows := subject.Names(builtinRows())
	if w.reg != nil {
		rows = w.reg.Names(Name)
	}
	for _, f := range rows {
		out = append(out, f, f+ParSuffix)
	}
	out = append(out, SubjectAvroReaderPar)
	for _, f := range structFormatNames() {
		if slices.Contains(rows, f) {
			out = append(out, f+StructParSuffix)
		}
	}
	return append(out, SubjectReadBytes, SubjectDecompress)
}

// sizes is what one scale measures.
type sizes struct {
	// Records per dataset.
	TPCH, Media, UserEvents int
	// Singles is the number of single-leaf queries (0: every leaf).
	Singles int
	// PerK is the number of random subsets per k.
	PerK int
	// Rungs, when set, are the k of the ladder (kLadder) measured; every
	// scale measures all leaves but one. The subsets of the other rungs
	// are still drawn, so a subset is the same leaves at every scale.
	Rungs []int
	// RunnerDatasets are the datasets the runners for other languages
	// read, and whose interop matrix they take part in (nil: every one).
	RunnerDatasets []string
	// DecodeProject measures the row formats' decode-and-project readers
	// on the sub-schema queries. Such a read decodes every record whole
	// whatever the query, so it costs about the full read the report
	// already has; the native-skipping readers (reader schema, projection
	// structs) and the columnar ones are measured on the queries at every
	// scale.
	DecodeProject bool
}

func (s sizes) records(ds string) int {
	switch ds {
	case "tpch":
		return s.TPCH
	case "media":
		return s.Media
	}
	return s.UserEvents
}

// scales is the workload's scale table.
func scales() workload.ScaleTable[sizes] {
	return workload.ScaleTable[sizes]{
		Quick: sizes{TPCH: 4000, Media: 4000, UserEvents: 200, Singles: 3, PerK: 1, DecodeProject: true},
		// The default answers the seed's questions on all three datasets
		// within the main job's budget: fewer records, fewer queries (the
		// fitted time per column needs a few points spread over the
		// number of columns, not five at every rung of the ladder), no
		// decode-and-project row reads of sub-schemas (a full read each),
		// and the other languages on the seed's TPC-H; full measures every
		// leaf, five subsets per k, and every dataset in every language.
		Default: sizes{TPCH: 20_000, Media: 20_000, UserEvents: 1000, Singles: 6, PerK: 1, Rungs: []int{2, 5, 13, 34}, RunnerDatasets: []string{"tpch"}},
		Full:    sizes{TPCH: tpch.FullRecords, Media: 401_000, UserEvents: 31_000, Singles: 0, PerK: 5, DecodeProject: true},
		Describe: func(s sizes) string {
			singles := "every leaf"
			if s.Singles > 0 {
				singles = strconv.Itoa(s.Singles) + " single leaves"
			}
			langs := "other languages on every dataset"
			if s.RunnerDatasets != nil {
				langs = "other languages on " + strings.Join(s.RunnerDatasets, ", ")
			}
			rows := ""
			if !s.DecodeProject {
				rows = "; sub-schemas not read by decoding rows whole"
			}
			ks := "k"
			if s.Rungs != nil {
				var r []string
				for _, k := range s.Rungs {
					r = append(r, strconv.Itoa(k))
				}
				ks = "k of " + strings.Join(r, ", ") + " and all but one"
			}
			subsets := strconv.Itoa(s.PerK) + " subsets"
			if s.PerK == 1 {
				subsets = "1 subset"
			}
			return fmt.Sprintf("tpch %s, media %s, userevents %s records; %s, %s per %s%s; %s",
				table.Int(float64(s.TPCH)), table.Int(float64(s.Media)), table.Int(float64(s.UserEvents)), singles, subsets, ks, rows, langs)
		}}
}

// ScaleInfo implements workload.Scaler.
func (*Workload) ScaleInfo(s workload.Scale) string { return scales().String(s) }

// Plan implements workload.Workload. Files go to cfg.TempDir (a new temp
// dir when empty); nothing is generated until a case's Setup.
func (w *Workload) Plan(ctx context.Context, cfg workload.Config) (*workload.Plan, error) {
	rows, err := w.rows()
	if err != nil {
		return nil, fmt.Errorf("nested: %w", err)
	}
	return newPlan(ctx, scales().At(cfg.Scale), cfg, datasetNames(), rows)
}

// newPlan builds the plan for the named datasets.
func newPlan(ctx context.Context, sz sizes, cfg workload.Config, datasets []string, rows []Subject) (*workload.Plan, error) {
	dir := cfg.TempDir
	owns := false
	if !cfg.DryRun {
		d, err := os.MkdirTemp(cfg.TempDir, "serbench-nested-")
		if err != nil {
			return nil, fmt.Errorf("nested: temp dir: %w", err)
		}
		dir, owns = d, true
	}
	var cases []bench.Case
	var wants []runner.Want
	var igs []*interop.Group
	for _, name := range datasets {
		n := sz.records(name)
		var (
			cs  []bench.Case
			ws  []runner.Want
			ig  *interop.Group
			err error
		)
		switch name {
		case "tpch":
			load := func() ([]tpch.LineItem, error) {
				// dbgen's own progress lines are not serbench's: kept only
				// for the error of a child that fails.
				t, err := tpch.Load(ctx, tpch.Options{})
				if err != nil {
					return nil, fmt.Errorf("tpch: %w", err)
				}
				return t.Slice(n), nil
			}
			cs, ws, ig, err = datasetCases(name, n, sz, cfg, dir, load, Dataset{Name: name, Type: reflect.TypeFor[tpch.LineItem](), Avro: tpch.AvroSchema()}, rows)
		case "media":
			load := func() ([]media.Record, error) { return media.Generate(n), nil }
			cs, ws, ig, err = datasetCases(name, n, sz, cfg, dir, load, Dataset{Name: name, Type: reflect.TypeFor[media.Record](), Avro: media.AvroSchema()}, rows)
		case "userevents":
			load := func() ([]userevents.Record, error) { return userevents.Generate(n), nil }
			cs, ws, ig, err = datasetCases(name, n, sz, cfg, dir, load, Dataset{Name: name, Type: reflect.TypeFor[userevents.Record](), Avro: userevents.AvroSchema()}, rows)
		default:
			err = fmt.Errorf("unknown dataset %q", name)
		}
		if err != nil {
			return nil, fmt.Errorf("nested: %s: %w", name, err)
		}
		cases = append(cases, cs...)
		if sz.RunnerDatasets == nil || slices.Contains(sz.RunnerDatasets, name) {
			wants = append(wants, ws...)
			igs = append(igs, ig)
		}
	}
	descs := descriptors(cfg, rows)
	if cfg.Runners != nil {
		// The runners' cases and the interop cells are selected by
		// --subject in the run (run.selectSubjects), as every workload's.
		ready := cfg.Runners.Get(ctx)
		rc, rd := runner.Join(Name, caseName, filepath.Join(dir, "runners"), MetricFile, ready, wants)
		cases = append(cases, rc...)
		descs = append(descs, rd...)
		// Who reads whose files, on every dataset: the nested schemas are
		// where languages disagree, and protobuf's file exists only here.
		if ic := interopCases(igs, ready, dir); len(ic) > 0 {
			cases = append(cases, ic...)
			descs = append(descs, interop.Descriptor(Name))
		}
	}
	// One child process (Forks: 1): every dataset's cases share its
	// Affinity, so the child generates each dataset once, as this process
	// would, and measures with the fork runtime settings: reads allocate
	// their records afresh, and under MADV_FREE a sample no longer pays
	// page faults for the heap the scavenger returned meanwhile.
	p := &workload.Plan{Cases: cases, Descriptors: descs, Forks: 1}
	if owns {
		p.Close = func() error { return os.RemoveAll(dir) }
	}
	return p, nil
}

// source holds a dataset's records, generated once in the first Setup
// that needs them, and the projected references of the queries.
type source[T any] struct {
	once sync.Once
	load func() ([]T, error)
	recs []T
	err  error
	// out is the destination every read fills (cleared before each).
	out []T
}

func (s *source[T]) get() ([]T, error) {
	s.once.Do(func() {
		s.recs, s.err = s.load()
		if s.err == nil {
			s.out = make([]T, len(s.recs))
		}
	})
	return s.recs, s.err
}

// release drops the records once the dataset's last case is done.
func (s *source[T]) release() {
	s.recs, s.out = nil, nil
}

// dfile is one file of a dataset: a format (and codec) and its path.
type dfile[T any] struct {
	mu    sync.Mutex
	src   *source[T]
	path  string
	kind  string // "parquet", "arrow-ipc" or a row format name
	codec string
	write func(path string, recs []T) (int64, error)
	// written and size describe the file on disk.
	written bool
	size    int64
}

// ensure writes the file once.
func (f *dfile[T]) ensure() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.written {
		fi, err := os.Stat(f.path)
		if err == nil && fi.Size() == f.size {
			return nil
		}
		if err == nil {
			return fmt.Errorf("file %s is %d bytes, was written as %d (truncated or replaced)", f.path, fi.Size(), f.size)
		}
		return fmt.Errorf("file written earlier: %w", err)
	}
	recs, err := f.src.get()
	if err != nil {
		return err
	}
	size, err := f.write(f.path, recs)
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(f.path), err)
	}
	f.written, f.size = true, size
	return nil
}

func (f *dfile[T]) remove() {
	f.mu.Lock()
	defer f.mu.Unlock()
	os.Remove(f.path)
	f.written = false
}

// reader reads a file into out (zeroed), returning only the leaves of q
// (nil: all).
type reader[T any] func(path string, q *query, out []T) error

// query is a set of leaves.
type query struct {
	id     string
	leaves []string // nil for the full schema
	cols   []int    // leaf indices in schema order
}

// kLadder is the seed's Fibonacci-like ladder of subset sizes.
func kLadder() []int { return []int{2, 3, 5, 8, 13, 21, 34} }

// makeQueries draws a dataset's queries: single leaves, seeded random
// subsets for each k of the seed's Fibonacci-like ladder (the scale's
// Rungs of it) and of all leaves but one, and all leaves.
func makeQueries(name string, leaves []string, sz sizes) []*query {
	n := len(leaves)
	rng := rand.New(rand.NewPCG(0x5eed_0004, uint64(len(name))*7919+uint64(n)))
	mk := func(id string, idx []int) *query {
		slices.Sort(idx)
		q := &query{id: id, cols: idx}
		for _, i := range idx {
			q.leaves = append(q.leaves, leaves[i])
		}
		return q
	}
	var out []*query
	singles := rng.Perm(n)
	if sz.Singles > 0 && sz.Singles < n {
		singles = singles[:sz.Singles]
		// The row formats' two single leaves are always among them.
		for _, l := range rowSingles[name] {
			if i := slices.Index(leaves, l); i >= 0 && !slices.Contains(singles, i) {
				singles = append(singles, i)
			}
		}
	}
	slices.Sort(singles)
	for _, i := range singles {
		out = append(out, mk(fmt.Sprintf("k01-%s", leaves[i]), []int{i}))
	}
	ladder := kLadder()
	for i, k := range append(slices.Clone(ladder), n-1) {
		if k >= n || k < 2 || (i == len(ladder) && slices.Contains(ladder, k)) {
			continue // all but one is a rung already drawn
		}
		keep := sz.Rungs == nil || slices.Contains(sz.Rungs, k) || k == n-1
		for j := range sz.PerK {
			idx := rng.Perm(n)[:k]
			if keep {
				out = append(out, mk(fmt.Sprintf("k%02d-%d", k, j+1), idx))
			}
		}
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	q := mk(QueryAll, all)
	q.leaves = nil
	return append(out, q)
}

// rowSingles are the single-leaf queries the row formats and the
// compressed Arrow IPC file answer: the dataset's largest column (by
// compressed Parquet size, measured: TPC-H's line comment, media's image
// URIs, userevents' event times) and a small one.
var rowSingles = map[string][2]string{
	"tpch":       {"comment", "line_number"},
	"media":      {"images.uri", "media.format"},
	"userevents": {"devices.connections.events.at", "language"},
}

// rowQueries picks the queries row formats and the compressed Arrow IPC
// file also answer (decode and project costs about a full read whatever
// the query, so one query per k is enough to show it): the two single
// leaves of rowSingles and the first subset of every k.
func rowQueries(name string, qs []*query) map[string]bool {
	out := map[string]bool{}
	for _, l := range rowSingles[name] {
		out["k01-"+l] = true
	}
	for _, q := range qs {
		if k, j, ok := strings.Cut(q.id, "-"); ok && k != "k01" && j == "1" {
			out[q.id] = true
		}
	}
	return out
}

// pqSubsetCodec is the Parquet codec of the sub-schema queries.
const pqSubsetCodec = "zstd"

// rowSubsetCodec is the row formats' codec of the sub-schema queries.
const rowSubsetCodec = "lz4"

// verifyStride is how many records apart the records of a sample's last
// timed read are spot checked after the timer stops; every record is checked
// in Verify.
const verifyStride = 61

// datasetCases builds one dataset's cases.
func datasetCases[T any](name string, n int, sz sizes, cfg workload.Config, dir string, load func() ([]T, error),
	dset Dataset, subjects []Subject) ([]bench.Case, []runner.Want, *interop.Group, error) {
	leaves := dsn.Leaves[T]()
	src := &source[T]{load: load}
	avroSchema := dset.Avro
	var rows []rowFormat[T]
	for _, s := range subjects {
		if !s.Accepts(name) {
			continue
		}
		// Bound once at planning so that a chosen format refusing the
		// dataset is an error before anything is measured, not a failed
		// case.
		chosen := cfg.WantSubject(s.Name()) || cfg.WantSubject(s.Name()+ParSuffix) || cfg.WantSubject(s.Name()+StructParSuffix)
		if _, err := s.Bind(dset); chosen && err != nil {
			return nil, nil, nil, fmt.Errorf("row format %s: %w", s.Name(), err)
		}
		rows = append(rows, typedRows[T](s, dset))
	}
	codecs := codec.Default()
	queries := makeQueries(name, leaves, sz)
	rowQ := rowQueries(name, queries)
	ds := &dsCases[T]{name: name, n: n, src: src, leaves: leaves, cfg: cfg}

	// Files.
	var files []*dfile[T]
	add := func(kind, cname string, write func(string, []T) (int64, error)) *dfile[T] {
		f := &dfile[T]{src: src, kind: kind, codec: cname, write: write,
			path: filepath.Join(dir, fmt.Sprintf("%s-%s-%s", name, kind, cname))}
		files = append(files, f)
		return f
	}
	pqFiles := map[string]*dfile[T]{}
	for _, c := range parquetCodecNames() {
		s := pqSettings{codec: c, rowGroup: RowGroupRows}
		pqFiles[c] = add("parquet", c, func(path string, recs []T) (int64, error) { return writeParquet(path, recs, s) })
	}
	am, err := nestedarrow.NewMapping[T]()
	if err != nil {
		return nil, nil, nil, err
	}
	// Arrow IPC files: zstd-compressed buffers (every buffer is
	// decompressed whatever the query) and uncompressed (memory-mapped,
	// unqueried buffers never touched); both in batches of ipcRows.
	ipcRows := ipcBatchRows(n)
	ipcFiles := map[string]*dfile[T]{}
	for _, c := range ipcCodecs() {
		af, err := arrowipc.New("arrow-ipc", am, arrowipc.File, c, ipcRows)
		if err != nil {
			return nil, nil, nil, err
		}
		ipcFiles[c] = add("arrow-ipc", c, func(path string, recs []T) (int64, error) { return writeFormat(path, af, recs) })
	}
	rowFiles := map[string]*dfile[T]{}
	for _, rf := range rows {
		for _, cname := range rowCodecs() {
			c, err := codecs.Parse(cname)
			if err != nil {
				return nil, nil, nil, err
			}
			rf := rf
			rowFiles[rf.Name()+"/"+cname] = add(rf.Name(), cname, func(path string, recs []T) (int64, error) { return writeRows(path, rf, c, recs) })
		}
	}
	ds.files = files
	ds.colFile = pqFiles[pqSubsetCodec]

	// Readers.
	pqArrow := func(par bool) reader[T] {
		return func(path string, q *query, out []T) error {
			var cols []int
			if q.leaves != nil {
				cols = q.cols
			}
			return pqArrowRead(path, cols, q.leaves, out, par)
		}
	}
	pqGo := func(par bool) reader[T] {
		return func(path string, q *query, out []T) error { return pqGoRead(path, q.leaves, out, par) }
	}
	ipcReader := func(par bool) reader[T] {
		return func(path string, q *query, out []T) error { return ipcRead(path, ipcRows, q.leaves, out, par) }
	}
	rowRead := func(rf rowFormat[T], c codec.Codec, par bool) reader[T] {
		return func(path string, q *query, out []T) error {
			if par {
				return readRowsPar(path, rf, c, out, projectFn[T](q))
			}
			return readRows(path, rf, c, out, projectFn[T](q))
		}
	}

	var cases []bench.Case
	// Writes, one per file.
	for _, f := range files {
		subject := f.kind
		if f.kind == "parquet" {
			subject = SubjectParquetGo
		}
		if !cfg.WantSubject(subject) {
			continue
		}
		cases = append(cases, ds.writeCase(f, subject))
	}
	// Full-schema reads: every subject, both floors.
	full := queries[len(queries)-1]
	group := name + "/" + QueryAll + "/read"
	for _, c := range parquetCodecNames() {
		f := pqFiles[c]
		for _, s := range []struct {
			subject string
			r       reader[T]
		}{{SubjectParquetArrow, pqArrow(false)}, {SubjectParquetArrowPar, pqArrow(true)}, {SubjectParquetGo, pqGo(false)}, {SubjectParquetGoPar, pqGo(true)}} {
			if cfg.WantSubject(s.subject) {
				cases = append(cases, ds.readCase(f, s.subject, full, TierColumns, group, s.r))
			}
		}
	}
	for _, c := range ipcCodecs() {
		for _, s := range []struct {
			subject string
			par     bool
		}{{SubjectArrowIPC, false}, {SubjectArrowIPCPar, true}} {
			if cfg.WantSubject(s.subject) {
				cases = append(cases, ds.readCase(ipcFiles[c], s.subject, full, ipcTier(c), group, ipcReader(s.par)))
			}
		}
	}
	for _, rf := range rows {
		for _, cname := range rowCodecs() {
			c := codecs.MustParse(cname)
			f := rowFiles[rf.Name()+"/"+cname]
			for _, par := range []bool{false, true} {
				subject := rf.Name()
				if par {
					subject += ParSuffix
				}
				if cfg.WantSubject(subject) {
					cases = append(cases, ds.readCase(f, subject, full, TierDecodeProject, group, rowRead(rf, c, par)))
				}
			}
		}
	}
	// The limit rows read the JSON-gzip file (the seed's red line): there
	// are none in a registry without the json format.
	jsonGz := rowFiles["json/gzip"]
	if jsonGz != nil && cfg.WantSubject(SubjectDecompress) {
		cases = append(cases, ds.limitCase(jsonGz, SubjectDecompress, group, codecs.MustParse("gzip")))
	}
	if jsonGz != nil && cfg.WantSubject(SubjectReadBytes) {
		cases = append(cases, ds.limitCase(jsonGz, SubjectReadBytes, group, nil))
	}
	// Sub-schema queries.
	pqf := pqFiles[pqSubsetCodec]
	for _, q := range queries[:len(queries)-1] {
		group := name + "/" + q.id + "/read"
		for _, s := range []struct {
			subject string
			r       reader[T]
		}{{SubjectParquetArrow, pqArrow(false)}, {SubjectParquetArrowPar, pqArrow(true)}, {SubjectParquetGo, pqGo(false)}} {
			// Every query reads parquet-arrow; the parallel reader the
			// subsets and the first single leaf; parquet-go's
			// GenericReader (the contrast, slower on a pruned schema than
			// on the full one) the row formats' queries, one per k, which
			// keeps the default scale within minutes.
			if s.subject == SubjectParquetArrowPar && len(q.leaves) == 1 && q != queries[0] {
				continue
			}
			if s.subject == SubjectParquetGo && !rowQ[q.id] {
				continue
			}
			if cfg.WantSubject(s.subject) {
				rc := ds.readCase(pqf, s.subject, q, TierColumns, group, s.r)
				if s.subject == SubjectParquetGo {
					// Up to a second per read on a pruned schema.
					rowSweep(&rc)
				}
				cases = append(cases, rc)
			}
		}
		// The uncompressed, memory-mapped IPC file: every query serially,
		// the parallel reader as the Parquet one.
		if cfg.WantSubject(SubjectArrowIPC) {
			cases = append(cases, ds.readCase(ipcFiles["none"], SubjectArrowIPC, q, TierColumns, group, ipcReader(false)))
		}
		if cfg.WantSubject(SubjectArrowIPCPar) && (len(q.leaves) > 1 || q == queries[0]) {
			cases = append(cases, ds.readCase(ipcFiles["none"], SubjectArrowIPCPar, q, TierColumns, group, ipcReader(true)))
		}
		if !rowQ[q.id] {
			continue
		}
		if cfg.WantSubject(SubjectArrowIPC) {
			cases = append(cases, ds.readCase(ipcFiles["zstd"], SubjectArrowIPC, q, TierDecodeProject, group, ipcReader(false)))
		}
		// Row formats: the parallel readers of the lz4 files only (a
		// decode-and-project read costs about a full read whatever the
		// query; one codec and the parallel reader keep the sweep within
		// the default scale's minutes), one sample after verification.
		for _, rf := range rows {
			subject := rf.Name() + ParSuffix
			if sz.DecodeProject && cfg.WantSubject(subject) {
				rc := ds.readCase(rowFiles[rf.Name()+"/"+rowSubsetCodec], subject, q, TierDecodeProject, group, rowRead(rf, codecs.MustParse(rowSubsetCodec), true))
				rowSweep(&rc)
				cases = append(cases, rc)
			}
		}
		if rowFiles["avro/"+rowSubsetCodec] != nil && cfg.WantSubject(SubjectAvroReaderPar) {
			af, mixed, err := avroProjected[T](avroSchema, q.leaves)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("avro reader schema for %s: %w", q.id, err)
			}
			var post func(*T)
			if mixed {
				post = projectFn[T](q)
			}
			rsc := codecs.MustParse(rowSubsetCodec)
			rc := ds.readCase(rowFiles["avro/"+rowSubsetCodec], SubjectAvroReaderPar, q, TierNative, group,
				func(path string, _ *query, out []T) error { return readRowsPar(path, af, rsc, out, post) })
			rowSweep(&rc)
			cases = append(cases, rc)
		}
		// Projection structs (native skipping of the reflection decoders).
		for _, rf := range rows {
			subject := rf.Name() + StructParSuffix
			dec := structDecoders()[rf.Name()]
			if dec == nil || !cfg.WantSubject(subject) {
				continue
			}
			pf, err := projStructFormat(rf, q.leaves, dec)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("projection struct for %s: %w", q.id, err)
			}
			rc := ds.readCase(rowFiles[rf.Name()+"/"+rowSubsetCodec], subject, q, TierNative, group, rowRead(pf, codecs.MustParse(rowSubsetCodec), true))
			rowSweep(&rc)
			cases = append(cases, rc)
		}
	}
	// The Parquet size table (TPC-H only).
	if name == "tpch" && cfg.WantSubject(SubjectParquetGo) {
		for _, s := range sizeSettings() {
			cases = append(cases, ds.sizeCase(dir, s))
		}
	}
	if len(cases) > 0 {
		last := &cases[len(cases)-1]
		td := last.Teardown
		last.Teardown = func() {
			if td != nil {
				td()
			}
			for _, f := range files {
				f.remove()
			}
			src.release()
			ds.colMu.Lock()
			ds.lastQ, ds.lastWant = nil, nil
			ds.colMu.Unlock()
		}
	}
	// The runners' queries: at full scale (one runner process per query
	// and language).
	var rq []*query
	if cfg.Scale == workload.Full {
		rq = queries
	}
	wants, err := ds.runnerWants(am, rq)
	if err != nil {
		return nil, nil, nil, err
	}
	return cases, wants, ds.interopGroup(am, typedRows[T](protobufRows(), dset)), nil
}

// sizeSettings are the Parquet settings of the size table.
func sizeSettings() []pqSettings {
	var out []pqSettings
	for _, c := range []string{"snappy", "zstd", "gzip"} {
		for _, rg := range []int64{RowGroupRows, 1 << 20} {
			for _, delta := range []bool{false, true} {
				out = append(out, pqSettings{codec: c, rowGroup: rg, delta: delta})
			}
		}
	}
	return out
}

// ipcCodecs are the Arrow IPC files' buffer compressions.
func ipcCodecs() []string { return []string{"none", "zstd"} }

// ipcTier is the projection tier of an IPC file: an uncompressed file is
// memory-mapped and its unqueried buffers never read; a compressed one has
// every buffer decompressed.
func ipcTier(codec string) string {
	if codec == "none" {
		return TierColumns
	}
	return TierDecodeProject
}

// projectFn returns the projection of q's leaves (nil for all).
func projectFn[T any](q *query) func(*T) {
	if q.leaves == nil {
		return nil
	}
	p, err := dsn.NewProjector[T](q.leaves)
	if err != nil {
		return func(*T) {}
	}
	return func(v *T) { *v = p.Project(v) }
}

// dsCases builds the cases of one dataset.
type dsCases[T any] struct {
	name    string
	n       int
	src     *source[T]
	leaves  []string
	cfg     workload.Config
	files   []*dfile[T]
	colFile *dfile[T] // the Parquet file whose column sizes queries report
	colMu   sync.Mutex
	cols    []columnChunk
	// lastQ and lastWant cache the latest query's projected reference.
	lastQ    *query
	lastWant []T
}

// projected returns the reference records projected onto q's leaves. The
// last query's projection is kept: the cases of one query (a comparison
// group) are set up one after another and share it.
func (d *dsCases[T]) projected(q *query, recs []T) ([]T, error) {
	if q.leaves == nil {
		return recs, nil
	}
	d.colMu.Lock()
	defer d.colMu.Unlock()
	if d.lastQ == q {
		return d.lastWant, nil
	}
	p, err := dsn.NewProjector[T](q.leaves)
	if err != nil {
		return nil, err
	}
	want := make([]T, len(recs))
	for i := range recs {
		want[i] = p.Project(&recs[i])
	}
	d.lastQ, d.lastWant = q, want
	return want, nil
}

// columns returns the compressed size of every leaf column of colFile.
func (d *dsCases[T]) columns() ([]columnChunk, error) {
	d.colMu.Lock()
	defer d.colMu.Unlock()
	if d.cols != nil {
		return d.cols, nil
	}
	if err := d.colFile.ensure(); err != nil {
		return nil, err
	}
	cols, err := pqColumns(d.colFile.path)
	if err != nil {
		return nil, err
	}
	for i, c := range cols {
		if i >= len(d.leaves) || c.path != d.leaves[i] {
			return nil, fmt.Errorf("parquet column %d is %q, want leaf %q", i, c.path, d.leaves[min(i, len(d.leaves)-1)])
		}
	}
	if len(cols) != len(d.leaves) {
		return nil, fmt.Errorf("parquet file has %d columns, want %d leaves", len(cols), len(d.leaves))
	}
	d.cols = cols
	return cols, nil
}

func (d *dsCases[T]) labels(subject, cname, op, q, tier string) results.Labels {
	ls := results.Labels{{Key: LabelSubject, Value: subject}, {Key: LabelDataset, Value: d.name}}
	if cname != "" {
		ls = append(ls, results.Label{Key: LabelCodec, Value: cname})
	}
	ls = append(ls, results.Label{Key: LabelOp, Value: op})
	if q != "" {
		ls = append(ls, results.Label{Key: LabelQuery, Value: q}, results.Label{Key: LabelTier, Value: tier})
	}
	return ls
}

// perRecord is a rough op time per record for estimates.
func (d *dsCases[T]) perRecord() time.Duration {
	switch d.name {
	case "tpch":
		return 2 * time.Microsecond
	case "media":
		return time.Microsecond
	}
	return 40 * time.Microsecond
}

// subjectCost is a subject's read time per record relative to half of
// perRecord (measured at the default scale on two cores), for estimates.
func subjectCost(subject string) time.Duration {
	switch strings.TrimSuffix(subject, ParSuffix) {
	case "edn":
		return 60
	case "json":
		return 10
	case SubjectParquetGo:
		return 6
	case "json-goccy", "cbor", "protobuf":
		return 4
	case "msgpack", "avro", SubjectAvroReaderPar:
		return 3
	}
	return 2
}

// writeCase times writing f's format to a scratch file.
func (d *dsCases[T]) writeCase(f *dfile[T], subject string) bench.Case {
	c := bench.Case{Workload: Name, Name: caseName, Labels: d.labels(subject, f.codec, OpWrite, "", ""),
		Affinity: d.name, Metrics: map[string]float64{}, Count: 2, Budget: time.Second, NoWarmup: true,
		OpTime: time.Duration(d.n) * 2 * d.perRecord()}
	scratch := f.path + ".w"
	c.Setup = f.ensure
	c.Verify = func() error {
		// The file the reads use was written by the same code; read it
		// back fully with the serial reader of its kind (Verify of the
		// read cases does), here only check it exists.
		return f.ensure()
	}
	c.Run = func(b *bench.B) error {
		recs, err := d.src.get()
		if err != nil {
			return err
		}
		var size int64
		for i := 0; i < b.N; i++ {
			if size, err = f.write(scratch, recs); err != nil {
				return err
			}
		}
		b.StopTimer()
		os.Remove(scratch)
		c.Metrics[MetricFile] = float64(size)
		c.Metrics[MetricRecords] = float64(d.n)
		b.StartTimer()
		return nil
	}
	return c
}

// readCase reads f with r for query q, verifying every record in Verify
// and a stride of them after each timed run.
func (d *dsCases[T]) readCase(f *dfile[T], subject string, q *query, tier, group string, r reader[T]) bench.Case {
	c := bench.Case{Workload: Name, Name: caseName, Labels: d.labels(subject, f.codec, OpRead, q.id, tier),
		Group: group, Affinity: d.name, Metrics: map[string]float64{}, Budget: readBudget, MinCount: 3, NoWarmup: true,
		OpTime: time.Duration(d.n) * d.perRecord() * subjectCost(subject) / 2}
	if q.leaves != nil && tier == TierColumns {
		c.OpTime = c.OpTime * time.Duration(len(q.leaves)) / time.Duration(len(d.leaves))
	}
	var want []T // the projected reference
	c.Setup = func() error {
		if err := f.ensure(); err != nil {
			return err
		}
		recs, err := d.src.get()
		if err != nil {
			return err
		}
		if want, err = d.projected(q, recs); err != nil {
			return err
		}
		cols, err := d.columns()
		if err != nil {
			return err
		}
		k, total, largest := len(d.leaves), int64(0), int64(0)
		for _, i := range q.cols {
			total += cols[i].bytes
			largest = max(largest, cols[i].bytes)
		}
		if q.leaves != nil {
			k = len(q.leaves)
		}
		c.Metrics[MetricLeaves] = float64(k)
		c.Metrics[MetricColsB] = float64(total)
		c.Metrics[MetricColMaxB] = float64(largest)
		c.Metrics[MetricFile] = float64(f.size)
		c.Metrics[MetricRecords] = float64(d.n)
		return nil
	}
	read := func(stride int) error {
		out := d.src.out
		clear(out)
		return guarded(func() error { return r(f.path, q, out) })
	}
	var df dsn.Differ[T]
	check := func(stride int) error {
		out := d.src.out
		if len(out) != len(want) {
			return fmt.Errorf("read %d records, want %d", len(out), len(want))
		}
		for i := 0; i < len(want); i += stride {
			if err := df.Diff(&out[i], &want[i]); err != nil {
				return fmt.Errorf("record %d: %w", i, err)
			}
		}
		return nil
	}
	c.Verify = func() error {
		if err := read(1); err != nil {
			return err
		}
		return check(1)
	}
	c.Run = func(b *bench.B) error {
		b.SetBytes(f.size)
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			clear(d.src.out)
			b.StartTimer()
			if err := guarded(func() error { return r(f.path, q, d.src.out) }); err != nil {
				return err
			}
			if i == b.N-1 {
				// Spot-check the sample's last read (every read starts
				// from cleared records).
				b.StopTimer()
				if err := check(verifyStride); err != nil {
					return err
				}
				b.StartTimer()
			}
		}
		return nil
	}
	c.Teardown = func() { want = nil }
	return c
}

// rowSweep sets a sub-schema case of the row-format sweep (and
// parquet-go's pruned reads) to one timed read after its verification: a
// decode+project read costs about a full read whatever the query, and one
// sample per query keeps the default scale within 8 minutes (the report
// shows n = 1 for these).
func rowSweep(c *bench.Case) { c.Count, c.Budget = 1, time.Second }

// readBudget is the sampling time of a read case or floor, MinCount 3: a
// column read of a few milliseconds gets the run's count of cheap samples
// (a 95% interval of its median instead of the [min, max] of three), a
// whole-file read of a tenth of a second or more gets three.
const readBudget = 250 * time.Millisecond

// readTimeout bounds one read: a reader that hangs (a deadlock in a
// library's goroutines) fails its case instead of stalling the run.
const readTimeout = 2 * time.Minute

// guarded runs read, returning an error, with the goroutine stacks written
// to stderr, if it does not finish within readTimeout (it is left
// running). The goroutine and timer cost about a microsecond a read.
func guarded(read func() error) error {
	done := make(chan error, 1)
	go func() {
		var err error
		defer func() { done <- err }()
		defer format.CatchPanic("read", &err)
		err = read()
	}()
	t := time.NewTimer(readTimeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		fmt.Fprintf(os.Stderr, "nested: a read still running after %s; goroutines:\n", readTimeout)
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
		return fmt.Errorf("read still running after %s (a deadlock?); goroutine stacks written to stderr", readTimeout)
	}
}

// limitCase is a floor under the full read of f: reading its bytes (dec
// nil) or decompressing it only.
func (d *dsCases[T]) limitCase(f *dfile[T], subject, group string, dec codec.Codec) bench.Case {
	op := OpReadBytes
	if dec != nil {
		op = OpDecompress
	}
	c := bench.Case{Workload: Name, Name: caseName, Labels: d.labels(subject, f.codec, op, QueryAll, ""),
		Role: results.RoleLimit, Group: group, Affinity: d.name, Metrics: map[string]float64{}, Budget: readBudget, MinCount: 3,
		Notes:  []string{fmt.Sprintf("floor: %s of the %s-%s file", op, f.kind, f.codec)},
		OpTime: time.Duration(d.n) * d.perRecord() / 10}
	var want int64
	c.Setup = func() error {
		if err := f.ensure(); err != nil {
			return err
		}
		c.Metrics[MetricFile] = float64(f.size)
		return nil
	}
	run := func() (int64, error) {
		fh, err := os.Open(f.path)
		if err != nil {
			return 0, err
		}
		defer fh.Close()
		var rd interface{ Read([]byte) (int, error) } = fh
		if dec != nil {
			cr, err := dec.NewReader(fh)
			if err != nil {
				return 0, err
			}
			defer cr.Close()
			rd = cr
		}
		buf := make([]byte, 256<<10)
		var n int64
		for {
			k, err := rd.Read(buf)
			n += int64(k)
			if errors.Is(err, errEOF) {
				return n, nil
			}
			if err != nil {
				return n, err
			}
		}
	}
	c.Verify = func() error {
		n, err := run()
		if err != nil {
			return err
		}
		if dec == nil && n != f.size {
			return fmt.Errorf("read %d bytes of %d", n, f.size)
		}
		want = n
		return nil
	}
	c.Run = func(b *bench.B) error {
		b.SetBytes(f.size)
		for i := 0; i < b.N; i++ {
			n, err := run()
			if err != nil {
				return err
			}
			if n != want {
				return fmt.Errorf("got %d bytes, want %d", n, want)
			}
		}
		return nil
	}
	return c
}

// sizeCase writes TPC-H Parquet with settings s and reports its size and
// the size it extrapolates to at the seed's record count.
func (d *dsCases[T]) sizeCase(dir string, s pqSettings) bench.Case {
	setting := fmt.Sprintf("%s-rg%dk", s.codec, s.rowGroup>>10)
	if s.delta {
		setting += "-delta"
	}
	ls := d.labels(SubjectParquetGo, s.codec, OpSize, "", "")
	ls = append(ls, results.Label{Key: "settings", Value: setting})
	c := bench.Case{Workload: Name, Name: caseName, Labels: ls, Affinity: d.name, Metrics: map[string]float64{},
		Count: 1, NoWarmup: true, Notes: []string{s.String()}, OpTime: time.Duration(d.n) * 2 * d.perRecord()}
	path := filepath.Join(dir, d.name+"-size-"+setting+".parquet")
	c.Setup = func() error { _, err := d.src.get(); return err }
	c.Verify = func() error {
		recs, err := d.src.get()
		if err != nil {
			return err
		}
		size, err := writeParquet(path, recs, s)
		if err != nil {
			return err
		}
		defer os.Remove(path)
		out := d.src.out
		clear(out)
		if err := pqArrowRead(path, nil, nil, out, true); err != nil {
			return fmt.Errorf("read back: %w", err)
		}
		var df dsn.Differ[T]
		for i := range recs {
			if err := df.Diff(&out[i], &recs[i]); err != nil {
				return fmt.Errorf("read back: record %d: %w", i, err)
			}
		}
		c.Metrics[MetricFile] = float64(size)
		c.Metrics[MetricFullEstB] = float64(size) * float64(tpch.FullRecords) / float64(d.n)
		c.Metrics[MetricRecords] = float64(d.n)
		return nil
	}
	c.Run = func(b *bench.B) error {
		recs, err := d.src.get()
		if err != nil {
			return err
		}
		for i := 0; i < b.N; i++ {
			if _, err := writeParquet(path, recs, s); err != nil {
				return err
			}
		}
		b.StopTimer()
		os.Remove(path)
		b.StartTimer()
		return nil
	}
	return c
}

// descriptors describes every subject and codec of the plan.
func descriptors(cfg workload.Config, rows []Subject) []results.Descriptor {
	arrowV := format.ModuleVersion("github.com/apache/arrow-go/v18", "v18.8.0")
	pqV := format.ModuleVersion("github.com/parquet-go/parquet-go", "v0.32.1")
	par := "row groups across GOMAXPROCS goroutines, each with its own reader"
	var out []results.Descriptor
	add := func(d results.Descriptor) {
		if cfg.WantSubject(d.Name) {
			d.Workload, d.Key = Name, LabelSubject
			if d.Role == "" {
				d.Role = results.RoleSubject
			}
			out = append(out, d)
		}
	}
	pqWrite := fmt.Sprintf("written by parquet-go (dictionaries as the datasets' struct tags ask, ≤%d rows per row group)", RowGroupRows)
	colSettings := func(parallel string) map[string]string {
		return map[string]string{"projection": "only the queried columns' chunks", "parallel": parallel,
			"dictionary": "as tagged", "verified": "every record in Verify, every 61st after each timed read"}
	}
	add(results.Descriptor{Name: SubjectParquetArrow, Module: "github.com/apache/arrow-go/v18", Version: arrowV,
		What:     "Parquet " + pqWrite + ", read by arrow-go pqarrow into Arrow (dictionary columns as dictionaries) and assembled into the Go structs column by column (generic, reflection-planned)",
		Settings: colSettings("no"), Tags: []string{"columnar"}})
	add(results.Descriptor{Name: SubjectParquetArrowPar, Module: "github.com/apache/arrow-go/v18", Version: arrowV,
		What: "parquet-arrow with " + par, Settings: colSettings("row groups"), Tags: []string{"columnar", "parallel"}})
	add(results.Descriptor{Name: SubjectParquetGo, Module: "github.com/parquet-go/parquet-go", Version: pqV,
		What:     "Parquet " + pqWrite + ", read with parquet-go's GenericReader[T] (a pruned schema for sub-schema reads): the idiomatic API",
		Settings: colSettings("no"), Tags: []string{"columnar"}})
	add(results.Descriptor{Name: SubjectParquetGoPar, Module: "github.com/parquet-go/parquet-go", Version: pqV,
		What: "parquet-go with " + par, Settings: colSettings("row groups"), Tags: []string{"columnar", "parallel"}})
	ipcWhat := "Arrow IPC file (written through nestedarrow's reflection mapping, an eighth of the records per record batch), memory-mapped and opened with ipc.NewMappedFileReader, each batch assembled into the Go structs by the Parquet subjects' assembler (queried fields found by name). arrow-go v18.8.0's IPC reader has no field selection and loads a batch whole: codec none slices the body buffers out of the mapping, so unqueried columns cost only metadata (tier columns); codec zstd decompresses every buffer whatever the query (tier decode+project)"
	ipcSettings := func(parallel string) map[string]string {
		return map[string]string{"projection": "none: unqueried buffers never touched (mmap, zero copy); zstd: every buffer decompressed", "parallel": parallel, "compression": "none, zstd buffers"}
	}
	add(results.Descriptor{Name: SubjectArrowIPC, Module: "github.com/apache/arrow-go/v18", Version: arrowV,
		What: ipcWhat, Settings: ipcSettings("no"), Tags: []string{"columnar"}})
	add(results.Descriptor{Name: SubjectArrowIPCPar, Module: "github.com/apache/arrow-go/v18", Version: arrowV,
		What:     "arrow-ipc with record batches decoded and assembled across GOMAXPROCS goroutines (RecordBatchAt is safe for concurrent use)",
		Settings: ipcSettings("record batches"), Tags: []string{"columnar", "parallel"}})
	for _, rf := range rows {
		d := rf.Describe("")
		frame := d.Settings[SettingFraming]
		d.Settings = map[string]string{SettingFraming: frame, "projection": "decode and project", "parallel": "no", "codecs": "gzip, lz4 (stream)"}
		d.Tags = []string{"row"}
		add(d)
		add(results.Descriptor{Name: rf.Name() + ParSuffix, Module: d.Module, Version: d.Version,
			What:     fmt.Sprintf("%s decoded in batches of %d records across GOMAXPROCS goroutines (the seed's -par); one goroutine decompresses and splits", rf.Name(), ParBatch),
			Settings: map[string]string{SettingFraming: frame, "projection": "decode and project", "parallel": fmt.Sprintf("batches of %d", ParBatch)}, Tags: []string{"row", "parallel"}})
	}
	add(results.Descriptor{Name: SubjectAvroReaderPar, Module: "github.com/hamba/avro/v2", Version: format.ModuleVersion("github.com/hamba/avro/v2", "v2.31.0"),
		What:     fmt.Sprintf("the Avro lz4 file decoded with a reader schema of only the queried fields, resolved against the writer schema (hamba/avro skips the rest), in batches of %d records across GOMAXPROCS; a named record wanted with different fields at two places (TPC-H's nation) keeps their union and is projected after", ParBatch),
		Settings: map[string]string{"projection": "reader schema (native skipping)", "parallel": fmt.Sprintf("batches of %d", ParBatch)}, Tags: []string{"row", "parallel"}})
	for _, rf := range rows {
		if structDecoders()[rf.Name()] == nil {
			continue
		}
		add(results.Descriptor{Name: rf.Name() + StructParSuffix, Module: rf.Desc.Module, Version: rf.Desc.Version,
			What:     fmt.Sprintf("the %s %s file decoded into a projection struct — a Go type built with reflect.StructOf holding only the queried fields, tags kept — so the decoder skips the other keys without building their values (it still scans them), then copied into the dataset's struct; batches of %d records across GOMAXPROCS", rf.Name(), rowSubsetCodec, ParBatch),
			Settings: map[string]string{"projection": "projection struct (native skipping)", "parallel": fmt.Sprintf("batches of %d", ParBatch)}, Tags: []string{"row", "parallel"}})
	}
	add(results.Descriptor{Name: SubjectReadBytes, Role: results.RoleLimit, What: "reads the JSON-gzip file's bytes (256 KiB reads): the I/O floor"})
	add(results.Descriptor{Name: SubjectDecompress, Role: results.RoleLimit, Module: "github.com/klauspost/compress",
		What: "decompresses the JSON-gzip file without decoding: the seed's red line, a floor for any gzip-based reader"})
	codecs := codec.Default()
	for _, name := range parquetCodecNames() {
		d := results.Descriptor{Workload: Name, Key: LabelCodec, Name: name, Module: "github.com/parquet-go/parquet-go", Version: pqV,
			What: "Parquet page codec (parquet-go)"}
		if name == "lz4" {
			d.What = "Parquet page codec LZ4_RAW (parquet-go); for row formats the lz4 frame stream"
		}
		if name == "gzip" {
			d.What = "Parquet page codec (parquet-go); for row formats the gzip stream"
		}
		if slices.Contains(rowCodecs(), name) {
			if c, err := codecs.Parse(name); err == nil {
				in := c.Info()
				d.What += "; stream: " + in.Library + " " + in.Version
				if in.HasLevels {
					d.Settings = map[string]string{"stream level": strconv.Itoa(in.Level)}
				}
			}
		}
		out = append(out, d)
	}
	return out
}
