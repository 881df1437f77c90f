// Package userdata reads a user's own data file — JSON Lines, a JSON array
// of objects (.json) or the member array of one JSON object
// (Options.Records), CSV/TSV, Parquet, Arrow IPC (file or stream) or Avro
// OCF, optionally compressed — as a stream of Arrow record batches with
// bounded memory, whatever the file's size.
//
// Self-describing inputs (Parquet, Arrow, Avro) keep their stored schema. For
// JSON Lines and CSV the schema is inferred from a first pass over a sample of
// the input (Options.InferRows, the first 1000 rows by default; -1 scans the
// whole file), then the file is read again from the start. A JSON object
// field whose keys vary from row to row is inferred as a map, stored as a
// list of {key, value} entries (MapMinKeys gives the rule). Every decision the
// inference takes that a user might not expect (an int column widened to
// float64, a mix of kinds stored as text, a column always empty in the sample)
// is reported by Reader.Notes.
//
// Errors name the file and the line (text inputs) or the byte offset or batch
// (binary inputs) and what was wrong, in one line. With Options.SkipBad a
// text input's bad lines are skipped and counted (Reader.Skipped) instead.
//
// A corrupt or hostile file cannot make the reader allocate beyond what it
// holds: the sizes an Avro block, a Parquet column chunk or an Arrow IPC
// message declares are checked against the file (or read as the bytes
// arrive, for a compressed stream) before anything is allocated for them;
// schemas are bounded (MaxColumns leaf columns, MaxDepth levels); and a
// compressed Parquet or Arrow file must start with its magic bytes and may
// expand MaxDecompressRatio times (MinDecompressCap at least) on its way to
// the temporary file it is read from. Such inputs are refused with an error
// naming the limit.
package userdata

import (
	"bufio"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/serbench/serbench/codec"
)

// Kind is an input file format.
type Kind string

// The input kinds.
const (
	KindJSONL       Kind = "jsonl"
	KindJSON        Kind = "json" // a top-level array of objects, or JSON Lines content
	KindCSV         Kind = "csv"
	KindTSV         Kind = "tsv"
	KindParquet     Kind = "parquet"
	KindArrowFile   Kind = "arrow"  // Arrow IPC file format (also Feather v2)
	KindArrowStream Kind = "arrows" // Arrow IPC stream format
	KindAvro        Kind = "avro"
)

// Defaults of Options.
const (
	DefaultBatchSize    = 64 << 10
	DefaultInferRows    = 1000
	DefaultMaxLineBytes = 64 << 20
)

// Options tune Open. The zero value reads every row in batches of
// DefaultBatchSize rows, infers text schemas from the first DefaultInferRows
// rows and fails on the first bad line.
type Options struct {
	// Kind overrides the kind derived from the file name's extension.
	Kind Kind
	// Compression overrides the compression derived from the extension: a
	// codec name ("gzip", "zstd", …), "bzip2", or "none".
	Compression string
	// Limit is the maximum number of rows returned (after sampling); 0 means
	// no limit.
	Limit int64
	// SampleEvery keeps only every k-th row (rows 0, k, 2k, …) when k > 1:
	// a deterministic, streaming sample of a huge input. Text inputs skip the
	// other lines without parsing them (so bad lines among them go unnoticed).
	SampleEvery int64
	// SampleFraction, when in (0, 1), keeps each row with this probability,
	// chosen by a hash of the row number and SampleSeed: a deterministic,
	// streaming sample (combined with SampleEvery, rows must pass both).
	SampleFraction float64
	// SampleSeed varies the rows SampleFraction picks.
	SampleSeed uint64
	// SkipBad skips and counts malformed lines of text inputs (JSON Lines,
	// CSV) instead of failing. Binary inputs always fail on corruption.
	SkipBad bool
	// BatchSize is the most rows of a record batch (0 = DefaultBatchSize);
	// the larger batches of an Arrow input are split.
	BatchSize int
	// InferRows is the number of rows a text input's schema is inferred from
	// (0 = DefaultInferRows; negative = the whole file, a full extra pass).
	InferRows int
	// MaxLineBytes bounds one line of a JSON Lines input and one record of
	// a CSV input (0 = DefaultMaxLineBytes), so a file without newlines or
	// with an unterminated quote cannot exhaust memory.
	MaxLineBytes int
	// Allocator allocates the batches' buffers (nil = a Go allocator).
	Allocator memory.Allocator
	// TempDir is where a compressed input that must be read at random
	// (Parquet, Arrow files) is decompressed to (empty: os.TempDir). A
	// program that cleans up after killed runs passes a directory it owns.
	TempDir string
	// Records names the member array whose elements are the rows of a
	// .json input holding one top-level object (a GeoJSON
	// FeatureCollection: "features"; a TopoJSON Topology:
	// "objects.countries.geometries"): a dotted path of member names, or
	// a JSON Pointer ("/a.b/c") for names holding a dot (ParseRecordsPath).
	// Empty: such an input is refused with a *OneObjectError listing its
	// member arrays. Only for KindJSON.
	Records string
	// Schema, when set, is the schema a text input (JSON Lines, JSON, CSV,
	// TSV) is read into instead of one inferred (AvroSchema, ProtoSchema):
	// a row that does not fit it is an error naming its line and field (or
	// skipped, with SkipBad). An input that carries its own schema
	// (Parquet, Arrow, Avro) is refused.
	Schema *Schema
	// KeepDictionaries keeps dictionary-encoded top-level columns of
	// Parquet and Arrow inputs as they are; by default they are decoded to
	// their value type (which every dynamic format can hold), with a note.
	KeepDictionaries bool
}

func (o Options) batchSize() int {
	if o.BatchSize > 0 {
		return o.BatchSize
	}
	return DefaultBatchSize
}

// sampling reports whether rows are sampled at all.
func (o Options) sampling() bool {
	return o.SampleEvery > 1 || (o.SampleFraction > 0 && o.SampleFraction < 1)
}

// keep reports whether the sample keeps row (0-based, before sampling).
func (o Options) keep(row int64) bool {
	if o.SampleEvery > 1 && row%o.SampleEvery != 0 {
		return false
	}
	if o.SampleFraction > 0 && o.SampleFraction < 1 {
		// splitmix64 of the row number and seed, as a fraction of 2^53.
		z := uint64(row) + o.SampleSeed*0x9e3779b97f4a7c15 + 0x9e3779b97f4a7c15
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		return float64(z>>11)/(1<<53) < o.SampleFraction
	}
	return true
}

func (o Options) inferRows() int {
	if o.InferRows == 0 {
		return DefaultInferRows
	}
	return o.InferRows
}

func (o Options) maxLine() int {
	if o.MaxLineBytes > 0 {
		return o.MaxLineBytes
	}
	return DefaultMaxLineBytes
}

// kindByExt maps a file extension to its kind.
func kindByExt(ext string) (Kind, bool) {
	switch ext {
	case ".jsonl", ".ndjson":
		return KindJSONL, true
	case ".json":
		return KindJSON, true
	case ".csv":
		return KindCSV, true
	case ".tsv":
		return KindTSV, true
	case ".parquet", ".pq":
		return KindParquet, true
	case ".arrow", ".feather", ".ipc":
		return KindArrowFile, true
	case ".arrows":
		return KindArrowStream, true
	case ".avro":
		return KindAvro, true
	}
	return "", false
}

// compressionByExt maps a compression extension to its codec name.
func compressionByExt(ext string) (string, bool) {
	switch ext {
	case ".gz", ".gzip":
		return "gzip", true
	case ".zst", ".zstd":
		return "zstd", true
	case ".lz4":
		return "lz4", true
	case ".br":
		return "brotli", true
	case ".xz":
		return "xz", true
	case ".sz":
		return "snappy", true
	case ".s2":
		return "s2", true
	case ".bz2":
		return "bzip2", true
	}
	return "", false
}

// Extensions returns the recognised data and compression extensions, sorted,
// for help texts and error messages.
func Extensions() (data, compression []string) {
	data = []string{".arrow", ".arrows", ".avro", ".csv", ".feather", ".ipc", ".json", ".jsonl", ".ndjson", ".parquet", ".pq", ".tsv"}
	compression = []string{".br", ".bz2", ".gz", ".gzip", ".lz4", ".s2", ".sz", ".xz", ".zst", ".zstd"}
	return data, compression
}

// Detect returns the kind and compression ("none" if uncompressed) the name
// of path implies, e.g. "x.jsonl.zst" → (jsonl, zstd).
func Detect(path string) (Kind, string, error) {
	base := strings.ToLower(filepath.Base(path))
	comp := "none"
	ext := filepath.Ext(base)
	if c, ok := compressionByExt(ext); ok {
		comp = c
		base = strings.TrimSuffix(base, ext)
		ext = filepath.Ext(base)
	}
	if k, ok := kindByExt(ext); ok {
		return k, comp, nil
	}
	data, cs := Extensions()
	return "", comp, fmt.Errorf("userdata: %s: unknown extension %q (valid: %s, optionally followed by %s)",
		path, ext, strings.Join(data, " "), strings.Join(cs, " "))
}

// source is one input kind's batch producer.
type source interface {
	schema() *arrow.Schema
	// next returns the next batch (owned by the caller), or nil at the end.
	next() (arrow.RecordBatch, error)
	close() error
}

// Reader streams an input file as Arrow record batches. Use it from one
// goroutine.
type Reader struct {
	path    string
	kind    Kind
	comp    string
	src     source
	notes   []string
	skipped *int64
	opts    Options
	cur     arrow.RecordBatch
	sch     *arrow.Schema // the batches' schema (dictionaries decoded)
	undict  []int         // top-level dictionary columns to decode
	unmap   []int         // columns with a map in them, read as entry lists
	rows    int64         // rows returned so far
	seen    int64         // rows seen by sampling of binary inputs
	err     error
	done    bool
	cleanup []func() error
	// utf8Done is set once invalid UTF-8 has been noted.
	utf8Done bool
	// pending is a batch larger than BatchSize, returned in slices from
	// pendingOff on.
	pending    arrow.RecordBatch
	pendingOff int64
}

// Open opens the file at path for reading with opts.
func Open(path string, opts Options) (*Reader, error) {
	kind, comp, err := Detect(path)
	if opts.Kind != "" {
		kind = opts.Kind
		if _, ok := kindByName(kind); !ok {
			return nil, fmt.Errorf("userdata: %s: unknown kind %q (valid: jsonl, json, csv, tsv, parquet, arrow, arrows, avro)", path, kind)
		}
	} else if err != nil {
		return nil, err
	}
	if opts.Compression != "" {
		comp = opts.Compression
	}
	if opts.Records != "" && kind != KindJSON {
		return nil, fmt.Errorf("userdata: %s: --records selects a member array of a .json file holding one JSON object, not rows of a %s input", path, kind)
	}
	if opts.Schema != nil {
		switch kind {
		case KindJSONL, KindJSON, KindCSV, KindTSV:
		default:
			return nil, fmt.Errorf("userdata: %s: a %s file %w", path, kind, errGivenBinary)
		}
	}
	if opts.SampleFraction < 0 || opts.SampleFraction > 1 {
		return nil, fmt.Errorf("userdata: %s: SampleFraction %v outside [0, 1]", path, opts.SampleFraction)
	}
	if opts.Allocator == nil {
		opts.Allocator = memory.NewGoAllocator()
	}
	r := &Reader{path: path, kind: kind, comp: comp, opts: opts, skipped: new(int64)}
	if err := r.open(); err != nil {
		r.Close()
		return nil, oneLine(err)
	}
	return r, nil
}

// oneLine returns err with line breaks and other control characters in its
// text (from a library quoting the input) escaped, so that every error is
// one line.
func oneLine(err error) error {
	msg := err.Error()
	if !strings.ContainsFunc(msg, isControl) {
		return err
	}
	var b strings.Builder
	for _, c := range msg {
		if isControl(c) {
			fmt.Fprintf(&b, "\\x%02x", c)
		} else {
			b.WriteRune(c)
		}
	}
	return &lineError{err, b.String()}
}

func isControl(c rune) bool { return c < 0x20 || c == 0x7f }

// lineError is an error whose text was made one line.
type lineError struct {
	err error
	msg string
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.err }

func kindByName(k Kind) (Kind, bool) {
	switch k {
	case KindJSONL, KindJSON, KindCSV, KindTSV, KindParquet, KindArrowFile, KindArrowStream, KindAvro:
		return k, true
	}
	return "", false
}

// openStream opens path decompressed as a stream; the returned closer closes
// both the decompressor and the file.
func openStream(path, comp string) (io.Reader, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("userdata: %w", err)
	}
	br := bufio.NewReaderSize(f, 256<<10)
	switch comp {
	case "none", "":
		return br, f.Close, nil
	case "bzip2":
		return bufio.NewReaderSize(bzip2.NewReader(br), 256<<10), f.Close, nil
	}
	c, err := codec.Default().Parse(comp)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("userdata: %s: %w", path, err)
	}
	dc, err := c.NewReader(br)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("userdata: %s: %s: %w", path, comp, err)
	}
	return bufio.NewReaderSize(&decompErr{dc, comp}, 256<<10), func() error {
		dc.Close()
		return f.Close()
	}, nil
}

// decompErr names the codec in errors from the decompressor.
type decompErr struct {
	r    io.Reader
	comp string
}

func (d *decompErr) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s decompression: %w", d.comp, err)
	}
	return n, err
}

// openRandom returns a random-access file holding path's decompressed bytes
// and its size: the file itself when uncompressed, else a temporary file
// removed on close. A compressed input's first bytes must start with one of
// magics before the rest is decompressed, and it may expand to
// decompressCap of its size at most, so that a small decompression bomb
// cannot fill the temporary directory.
func (r *Reader) openRandom(what string, magics ...string) (*os.File, int64, error) {
	if r.comp == "none" || r.comp == "" {
		f, err := os.Open(r.path)
		if err != nil {
			return nil, 0, fmt.Errorf("userdata: %w", err)
		}
		r.cleanup = append(r.cleanup, f.Close)
		fi, err := f.Stat()
		if err != nil {
			return nil, 0, fmt.Errorf("userdata: %w", err)
		}
		return f, fi.Size(), nil
	}
	fi, err := os.Stat(r.path)
	if err != nil {
		return nil, 0, fmt.Errorf("userdata: %w", err)
	}
	in, closeIn, err := openStream(r.path, r.comp)
	if err != nil {
		return nil, 0, err
	}
	defer closeIn()
	head := make([]byte, 8)
	n, err := io.ReadFull(in, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, 0, fmt.Errorf("userdata: %s: %w", r.path, err)
	}
	head = head[:n]
	ok := false
	for _, m := range magics {
		ok = ok || strings.HasPrefix(string(head), m)
	}
	if !ok {
		return nil, 0, fmt.Errorf("userdata: %s: the %s-decompressed data starts with % x, not %s's magic bytes %q: not a %s file",
			r.path, r.comp, head, what, magics[0], what)
	}
	tmp, err := os.CreateTemp(r.opts.TempDir, "serbench-userdata-*")
	if err != nil {
		return nil, 0, fmt.Errorf("userdata: %s: temporary file for decompression: %w", r.path, err)
	}
	name := tmp.Name()
	r.cleanup = append(r.cleanup, func() error { tmp.Close(); return os.Remove(name) })
	limit := decompressCap(fi.Size())
	if _, err := tmp.Write(head); err != nil {
		return nil, 0, fmt.Errorf("userdata: %s: decompress to %s: %w", r.path, name, err)
	}
	w := &limitedWriter{w: tmp, n: limit - int64(len(head))}
	size, err := io.Copy(w, in)
	if errors.Is(err, errLimit) {
		return nil, 0, fmt.Errorf("userdata: %s: decompresses to more than %s (max(%d × its %s compressed bytes, %s), the limit for compressed %s files, which are decompressed to a temporary file first): decompress it yourself and pass the result",
			r.path, sizeText(limit), MaxDecompressRatio, thousands(fi.Size()), sizeText(MinDecompressCap), what)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("userdata: %s: decompress to %s: %w", r.path, name, err)
	}
	return tmp, size + int64(len(head)), nil
}

// decompressCap is the most a compressed random-access input of
// compressed bytes may expand to.
func decompressCap(compressed int64) int64 {
	return max(MaxDecompressRatio*compressed, MinDecompressCap)
}

func (r *Reader) open() error {
	var (
		src source
		err error
	)
	// Assign through typed results only on success: a nil *jsonSource in
	// the interface would not be a nil source.
	switch r.kind {
	case KindJSONL:
		var s *jsonSource
		if s, err = newJSONSource(r); err == nil {
			src = s
		}
	case KindJSON:
		var s *jsonSource
		if s, err = newJSONFileSource(r); err == nil {
			src = s
		}
	case KindCSV, KindTSV:
		if g := r.opts.Schema; g != nil {
			var s *givenCSVSource
			if s, err = newGivenCSVSource(r, g); err == nil {
				src = s
			}
			break
		}
		var s *csvSource
		if s, err = newCSVSource(r); err == nil {
			src = s
		}
	case KindParquet:
		var s *parquetSource
		if s, err = newParquetSource(r); err == nil {
			src = s
		}
	case KindArrowFile, KindArrowStream:
		var s *arrowSource
		if s, err = newArrowSource(r); err == nil {
			src = s
		}
	case KindAvro:
		var s *avroSource
		if s, err = newAvroSource(r); err == nil {
			src = s
		}
	default:
		err = fmt.Errorf("userdata: %s: unknown kind %q", r.path, r.kind)
	}
	r.src = src
	if err == nil {
		err = r.checkSchema(src.schema())
	}
	if err == nil {
		r.sch = r.decodedSchema(src.schema())
		r.checkNamesUTF8(r.sch)
	}
	return err
}

// textSampling reports whether sampling and SkipBad are applied by the source
// itself (text inputs) rather than by Next.
func (r *Reader) textSampling() bool {
	switch r.kind {
	case KindJSONL, KindJSON, KindCSV, KindTSV:
		return true
	}
	return false
}

// Path returns the input file's path.
func (r *Reader) Path() string { return r.path }

// Kind returns the input's kind.
func (r *Reader) Kind() Kind { return r.kind }

// Compression returns the input's compression ("none" if uncompressed).
func (r *Reader) Compression() string { return r.comp }

// Schema returns the schema of every batch.
func (r *Reader) Schema() *arrow.Schema { return r.sch }

// Notes returns the notes of schema inference, one sentence each.
func (r *Reader) Notes() []string { return append([]string(nil), r.notes...) }

// Skipped returns the number of bad lines skipped so far (Options.SkipBad).
func (r *Reader) Skipped() int64 { return *r.skipped }

// Rows returns the number of rows returned so far.
func (r *Reader) Rows() int64 { return r.rows }

// Next advances to the next batch and reports whether there is one. After
// false, Err tells whether the input ended or failed.
func (r *Reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.done || r.err != nil {
		return false
	}
	for {
		if r.opts.Limit > 0 && r.rows >= r.opts.Limit {
			r.done = true
			return false
		}
		rec, err := r.nextChunk()
		if err != nil {
			r.err = oneLine(err)
			return false
		}
		if rec == nil {
			r.done = true
			return false
		}
		if len(r.undict) > 0 {
			rec, err = r.decodeDictionaries(rec)
			if err != nil {
				r.err = fmt.Errorf("userdata: %s: decode dictionary: %w", r.path, err)
				return false
			}
		}
		if len(r.unmap) > 0 {
			rec = r.unmapColumns(rec)
		}
		if !r.textSampling() && r.opts.sampling() {
			rec, err = r.sample(rec)
			if err != nil {
				r.err = fmt.Errorf("userdata: %s: sample: %w", r.path, err)
				return false
			}
		}
		if r.opts.Limit > 0 && r.rows+rec.NumRows() > r.opts.Limit {
			s := rec.NewSlice(0, r.opts.Limit-r.rows)
			rec.Release()
			rec = s
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		if !r.utf8Done {
			r.checkUTF8(rec)
		}
		r.rows += rec.NumRows()
		r.cur = rec
		return true
	}
}

// nextChunk returns the source's next batch, split in batches of at most
// BatchSize rows: an Arrow input's batches can be of any size (2^40 rows of
// nulls take no bytes), and dictionary decoding and sampling go through
// every row of a batch.
func (r *Reader) nextChunk() (arrow.RecordBatch, error) {
	if r.pending == nil {
		rec, err := r.src.next()
		if err != nil || rec == nil {
			return nil, err
		}
		if rec.NumRows() <= int64(r.opts.batchSize()) {
			return rec, nil
		}
		r.pending, r.pendingOff = rec, 0
	}
	n := r.pending.NumRows()
	end := min(r.pendingOff+int64(r.opts.batchSize()), n)
	rec := r.pending.NewSlice(r.pendingOff, end)
	r.pendingOff = end
	if end == n {
		r.pending.Release()
		r.pending = nil
	}
	return rec, nil
}

// RecordBatch returns the current batch. It is valid until the next call to
// Next or Close; Retain it to keep it longer.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Err returns the error that stopped Next, or nil at a clean end.
func (r *Reader) Err() error { return r.err }

// Close releases the current batch and closes the input. It is safe to call
// more than once.
func (r *Reader) Close() error {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.pending != nil {
		r.pending.Release()
		r.pending = nil
	}
	var errs []error
	if r.src != nil {
		errs = append(errs, r.src.close())
		r.src = nil
	}
	for i := len(r.cleanup) - 1; i >= 0; i-- {
		errs = append(errs, r.cleanup[i]())
	}
	r.cleanup = nil
	r.done = true
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("userdata: close %s: %w", r.path, err)
	}
	return nil
}

// location formats "file:line" for error messages.
func location(path string, line int64) string { return fmt.Sprintf("%s:%d", path, line) }
