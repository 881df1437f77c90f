package dynamic

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/serbench/serbench/format"
)

// ArrowStream is the Arrow IPC stream format: batches written as they come,
// uncompressed (an outer codec may wrap it) or with every buffer compressed
// by the IPC format's own codec (zstd or LZ4 frame), read back with the
// same boundaries.
type ArrowStream struct {
	schema *arrow.Schema
	o      Options
	// codec is the buffer compression: "" (none), "zstd" or "lz4".
	codec string
}

// ipcMaxNesting is how deep arrow-go's IPC writer and reader nest: they
// stop at kMaxNestingDepth (64) levels of recursion, the column itself
// being the first, with "max recursion depth reached".
const ipcMaxNesting = 63

// NewArrowStream returns the Arrow IPC stream format for schema; a column
// nested deeper than arrow-go's IPC recursion limit is refused (wrapping
// ErrCannotHold) rather than failing every write.
func NewArrowStream(schema *arrow.Schema, o Options) (Format, error) {
	return newArrowStream(schema, o, "")
}

// NewArrowStreamZstd returns the Arrow IPC stream format for schema with
// zstd buffer compression ("arrow-stream-zstd"), refusing what
// NewArrowStream refuses.
func NewArrowStreamZstd(schema *arrow.Schema, o Options) (Format, error) {
	return newArrowStream(schema, o, "zstd")
}

// NewArrowStreamLZ4 returns the Arrow IPC stream format for schema with
// LZ4 frame buffer compression ("arrow-stream-lz4"), refusing what
// NewArrowStream refuses.
func NewArrowStreamLZ4(schema *arrow.Schema, o Options) (Format, error) {
	return newArrowStream(schema, o, "lz4")
}

func newArrowStream(schema *arrow.Schema, o Options, codec string) (Format, error) {
	f := &ArrowStream{schema: schema, o: o, codec: codec}
	if err := checkNesting(f.name(), schema, ipcMaxNesting, "arrow-go's Arrow IPC"); err != nil {
		return nil, err
	}
	return f, nil
}

// name is the format's name: arrow-stream, arrow-stream-zstd or
// arrow-stream-lz4.
func (f *ArrowStream) name() string {
	if f.codec == "" {
		return "arrow-stream"
	}
	return "arrow-stream-" + f.codec
}

// ipcCompression says how each codec compresses the buffers, with its
// level (arrow-go's compressors take none: they use the libraries'
// defaults).
var ipcCompression = map[string]string{
	"":     "no buffer compression",
	"zstd": "every buffer compressed with zstd (arrow-go's ipc.WithZstd: klauspost/compress at its default level, SpeedDefault ≈ zstd level 3)",
	"lz4":  "every buffer compressed as an LZ4 frame (arrow-go's ipc.WithLZ4: pierrec/lz4 at its default level, fast, 64 KiB blocks)",
}

// Descriptor implements format.Format.
func (f *ArrowStream) Descriptor() format.Descriptor {
	d := descriptor(f.name(), arrowLib+"/arrow/ipc", format.ModuleVersion(arrowLib, "v18.8.0"),
		"IPC stream format, the input's batches as they are, "+ipcCompression[f.codec],
		format.LabelBinary, format.LabelColumnar)
	d.Compresses = f.codec != ""
	return d
}

type ipcEncoder struct {
	name   string
	schema *arrow.Schema
	w      *ipc.Writer
}

func (e *ipcEncoder) Encode(v *arrow.RecordBatch) error {
	if !(*v).Schema().Equal(e.schema) {
		return fmt.Errorf("%s: batch schema %s differs from the format's %s", e.name, (*v).Schema(), e.schema)
	}
	if err := e.w.Write(*v); err != nil {
		return fmt.Errorf("%s: write: %w", e.name, shortErr(err))
	}
	return nil
}

func (e *ipcEncoder) Close() error {
	if err := e.w.Close(); err != nil {
		return fmt.Errorf("%s: close: %w", e.name, shortErr(err))
	}
	return nil
}

// NewEncoder implements format.Format.
func (f *ArrowStream) NewEncoder(w io.Writer) (format.Encoder[arrow.RecordBatch], error) {
	opts := []ipc.Option{ipc.WithSchema(f.schema), ipc.WithAllocator(f.o.alloc())}
	switch f.codec {
	case "zstd":
		opts = append(opts, ipc.WithZstd())
	case "lz4":
		opts = append(opts, ipc.WithLZ4())
	}
	return &ipcEncoder{name: f.name(), schema: f.schema, w: ipc.NewWriter(w, opts...)}, nil
}

type ipcDecoder struct {
	name string
	sr   *ipc.Reader
	n    int
}

func (d *ipcDecoder) Decode(v *arrow.RecordBatch) (err error) {
	defer format.CatchPanic(d.name, &err)
	if d.sr.Next() {
		*v = d.sr.RecordBatch()
		d.n++
		return nil
	}
	if err := d.sr.Err(); err != nil {
		return format.Unexpected(fmt.Sprintf("%s: batch %d", d.name, d.n), shortErr(err))
	}
	d.sr.Release()
	return io.EOF
}

// NewDecoder implements format.Format. It reads a stream with any buffer
// compression; decompressed buffers count against MaxBufferBytes.
func (f *ArrowStream) NewDecoder(r io.Reader) (dec format.Decoder[arrow.RecordBatch], err error) {
	defer format.CatchPanic(f.name(), &err)
	sr, err := ipc.NewReader(r, ipc.WithSchema(f.schema), ipc.WithAllocator(f.o.readAlloc()))
	if err != nil {
		return nil, format.Unexpected(f.name()+": open", shortErr(err))
	}
	return &ipcDecoder{name: f.name(), sr: sr}, nil
}

// Projection implements Projector.
func (f *ArrowStream) Projection() string {
	read := "every buffer of every batch read"
	if f.codec != "" {
		read += ", decompressed"
	}
	return read + " and decoded (arrow-go's IPC stream reader has no column selection), then the columns picked"
}

// NewColumnDecoder implements Projector. arrow-go's IPC stream reader
// loads every buffer of a batch, so this decodes every column, then picks
// cols: a full read.
func (f *ArrowStream) NewColumnDecoder(r io.Reader, cols []int) (format.Decoder[arrow.RecordBatch], error) {
	s, err := ProjectSchema(f.schema, cols)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.name(), err)
	}
	dec, err := f.NewDecoder(r)
	if err != nil {
		return nil, err
	}
	return &pickDecoder{dec: dec, schema: s, cols: slices.Clone(cols)}, nil
}

// Parquet is Parquet through pqarrow with pyarrow's default limits (see
// pqRowGroupRows): the encoded batches buffered into row groups of up to
// 1,048,576 rows, dictionary encoding on, the Arrow schema stored in the
// file so it reads back exactly. The pages are uncompressed (parquet: an uncompressed
// baseline; the file is random access, so no outer codec applies either)
// or compressed by Parquet's own codec (parquet-zstd, parquet-snappy).
type Parquet struct {
	schema *arrow.Schema
	o      Options
	codec  pqCodec
}

// pqCodec is a Parquet page codec with its level.
type pqCodec struct {
	suffix string
	codec  compress.Compression
	level  int
	// detail names the codec and its level in the descriptor.
	detail string
}

// The page codecs. zstd's level is stated (3: klauspost/compress's
// SpeedDefault, also arrow-go's default); snappy has no levels.
var (
	pqNone   = pqCodec{codec: compress.Codecs.Uncompressed, level: compress.DefaultCompressionLevel, detail: "uncompressed"}
	pqZstd   = pqCodec{suffix: "zstd", codec: compress.Codecs.Zstd, level: 3, detail: "pages compressed with zstd level 3 (klauspost/compress SpeedDefault)"}
	pqSnappy = pqCodec{suffix: "snappy", codec: compress.Codecs.Snappy, level: compress.DefaultCompressionLevel, detail: "pages compressed with snappy (golang/snappy, no levels)"}
)

// NewParquet returns Parquet for schema, uncompressed.
func NewParquet(schema *arrow.Schema, o Options) (Format, error) {
	return newParquet(schema, o, pqNone)
}

// NewParquetZstd returns Parquet for schema with zstd-compressed pages
// ("parquet-zstd").
func NewParquetZstd(schema *arrow.Schema, o Options) (Format, error) {
	return newParquet(schema, o, pqZstd)
}

// NewParquetSnappy returns Parquet for schema with snappy-compressed pages
// ("parquet-snappy").
func NewParquetSnappy(schema *arrow.Schema, o Options) (Format, error) {
	return newParquet(schema, o, pqSnappy)
}

func newParquet(schema *arrow.Schema, o Options, c pqCodec) (Format, error) {
	f := &Parquet{schema: schema, o: o, codec: c}
	if _, err := pqarrow.ToParquet(schema, nil, pqarrow.DefaultWriterProps()); err != nil {
		return nil, fmt.Errorf("%s: schema: %w", f.name(), shortErr(err))
	}
	return f, nil
}

// name is the format's name: parquet, parquet-zstd or parquet-snappy.
func (f *Parquet) name() string {
	if f.codec.suffix == "" {
		return "parquet"
	}
	return "parquet-" + f.codec.suffix
}

// Descriptor implements format.Format.
func (f *Parquet) Descriptor() format.Descriptor {
	d := descriptor(f.name(), arrowLib+"/parquet/pqarrow", format.ModuleVersion(arrowLib, "v18.8.0"),
		fmt.Sprintf("row groups of up to %d rows (batches buffered), dictionary on (plain past a %s dictionary), %s data pages — pyarrow's defaults —, %s, Arrow schema stored; read in batches of %d rows",
			pqRowGroupRows, "1 MiB", "1 MiB", f.codec.detail, f.o.batchRows()),
		format.LabelBinary, format.LabelColumnar, format.LabelContainer)
	d.RandomAccess = true
	d.Compresses = f.codec.suffix != ""
	return d
}

type pqEncoder struct {
	name   string
	schema *arrow.Schema
	w      *pqarrow.FileWriter
}

func (e *pqEncoder) Encode(v *arrow.RecordBatch) error {
	if !(*v).Schema().Equal(e.schema) {
		return fmt.Errorf("%s: batch schema %s differs from the format's %s", e.name, (*v).Schema(), e.schema)
	}
	// Buffered: batches fill the current row group up to pqRowGroupRows
	// rows, as pyarrow's write_table does with a table, rather than one
	// row group per batch.
	if err := e.w.WriteBuffered(*v); err != nil {
		return fmt.Errorf("%s: write: %w", e.name, shortErr(err))
	}
	return nil
}

func (e *pqEncoder) Close() error {
	if err := e.w.Close(); err != nil {
		return fmt.Errorf("%s: close: %w", e.name, shortErr(err))
	}
	return nil
}

// The Parquet writer's limits, pyarrow's defaults (pyarrow 26
// write_table: row_group_size None = up to 1024 × 1024 rows a row group;
// data_page_size and dictionary_pagesize_limit 1 MiB), so that the files
// compare with what pyarrow writes: a column falls back from dictionary
// to plain encoding at the same dictionary size, and the rows of every
// batch up to 1,048,576 share one row group (one dictionary a column).
const (
	pqRowGroupRows = 1 << 20
	pqPageBytes    = 1 << 20
)

// nopCloser keeps pqarrow's Close from closing the caller's writer.
type nopCloser struct{ io.Writer }

// NewEncoder implements format.Format.
func (f *Parquet) NewEncoder(w io.Writer) (format.Encoder[arrow.RecordBatch], error) {
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(true),
		parquet.WithCompression(f.codec.codec), parquet.WithCompressionLevel(f.codec.level), parquet.WithAllocator(f.o.alloc()),
		parquet.WithMaxRowGroupLength(pqRowGroupRows), parquet.WithDataPageSize(pqPageBytes), parquet.WithDictionaryPageSizeLimit(pqPageBytes))
	fw, err := pqarrow.NewFileWriter(f.schema, nopCloser{w}, props,
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(f.o.alloc())))
	if err != nil {
		return nil, fmt.Errorf("%s: new writer: %w", f.name(), err)
	}
	return &pqEncoder{name: f.name(), schema: f.schema, w: fw}, nil
}

type pqDecoder struct {
	name   string
	schema *arrow.Schema
	pf     *file.Reader
	rr     pqarrow.RecordReader
	n      int
	cur    arrow.RecordBatch
}

func (d *pqDecoder) Decode(v *arrow.RecordBatch) (err error) {
	defer format.CatchPanic(d.name, &err)
	if d.cur != nil {
		d.cur.Release()
		d.cur = nil
	}
	if d.rr.Next() {
		rec := d.rr.RecordBatch()
		cols := make([]arrow.Array, rec.NumCols())
		for i := range cols {
			cols[i] = retype(rec.Column(i), d.schema.Field(i).Type)
		}
		d.cur = array.NewRecordBatch(d.schema, cols, rec.NumRows())
		for _, c := range cols {
			c.Release()
		}
		*v = d.cur
		d.n++
		return nil
	}
	if err := d.rr.Err(); err != nil && err != io.EOF {
		return fmt.Errorf("%s: batch %d: %w", d.name, d.n, shortErr(err))
	}
	d.rr.Release()
	d.pf.Close()
	return io.EOF
}

// NewDecoder implements format.Format; r must be a format.SizedReaderAt.
func (f *Parquet) NewDecoder(r io.Reader) (dec format.Decoder[arrow.RecordBatch], err error) {
	return f.open(r, nil, f.schema)
}

// Projection implements Projector.
func (f *Parquet) Projection() string {
	read := "only the columns' chunks read"
	if f.codec.suffix != "" {
		read += " and decompressed"
	}
	return read + " (pqarrow's record reader over their leaf columns)"
}

// NewColumnDecoder implements Projector: only the leaf columns of cols
// are read (pqarrow's GetRecordReader with their indices); r must be a
// format.SizedReaderAt.
func (f *Parquet) NewColumnDecoder(r io.Reader, cols []int) (format.Decoder[arrow.RecordBatch], error) {
	s, err := ProjectSchema(f.schema, cols)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.name(), err)
	}
	return f.open(r, cols, s)
}

// open returns a decoder of the top-level columns cols (nil: all) of the
// file in r, whose batches have schema want.
func (f *Parquet) open(r io.Reader, cols []int, want *arrow.Schema) (dec format.Decoder[arrow.RecordBatch], err error) {
	name := f.name()
	defer format.CatchPanic(name, &err)
	ra, ok := r.(format.SizedReaderAt)
	if !ok {
		return nil, fmt.Errorf("%s: needs random access (format.SizedReaderAt), got %T", name, r)
	}
	pf, err := file.NewParquetReader(ra, file.WithReadProps(parquet.NewReaderProperties(f.o.readAlloc())))
	if err != nil {
		return nil, fmt.Errorf("%s: open (truncated?): %w", name, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(f.o.batchRows())}, f.o.readAlloc())
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var leaves []int
	if cols != nil {
		if len(fr.Manifest.Fields) != f.schema.NumFields() {
			pf.Close()
			return nil, fmt.Errorf("%s: the file has %d columns, the format's schema %d", name, len(fr.Manifest.Fields), f.schema.NumFields())
		}
		for _, c := range cols {
			n := len(leaves)
			leaves = appendLeaves(leaves, &fr.Manifest.Fields[c])
			if len(leaves) == n {
				pf.Close()
				return nil, fmt.Errorf("%s: column %s has no leaf column in the file", name, f.schema.Field(c).Name)
			}
		}
	}
	rr, err := fr.GetRecordReader(context.Background(), leaves, nil)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("%s: record reader: %w", name, err)
	}
	if !sameLayoutSchema(rr.Schema(), want) {
		rr.Release()
		pf.Close()
		return nil, fmt.Errorf("%s: file schema %s differs from the format's %s", name, rr.Schema(), want)
	}
	return &pqDecoder{name: name, schema: want, pf: pf, rr: rr}, nil
}

// appendLeaves appends the Parquet leaf column indices under field f.
func appendLeaves(leaves []int, f *pqarrow.SchemaField) []int {
	if f.IsLeaf() {
		return append(leaves, f.ColIndex)
	}
	for i := range f.Children {
		leaves = appendLeaves(leaves, &f.Children[i])
	}
	return leaves
}

// sameLayoutSchema reports whether batches of schema a can be relabelled as
// schema b (see sameLayout).
func sameLayoutSchema(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() {
		return false
	}
	for i := range a.Fields() {
		if a.Field(i).Name != b.Field(i).Name || !sameLayout(a.Field(i).Type, b.Field(i).Type) {
			return false
		}
	}
	return true
}

// sameLayout reports whether arrays of type a are arrays of type b but for
// the names, nullability flags and metadata of nested fields — what a
// Parquet round trip changes (list elements come back named "element",
// fields carry PARQUET:field_id metadata).
func sameLayout(a, b arrow.DataType) bool {
	if a.ID() != b.ID() {
		return false
	}
	switch at := a.(type) {
	case *arrow.StructType:
		bt := b.(*arrow.StructType)
		if at.NumFields() != bt.NumFields() {
			return false
		}
		for i := range at.Fields() {
			if at.Field(i).Name != bt.Field(i).Name || !sameLayout(at.Field(i).Type, bt.Field(i).Type) {
				return false
			}
		}
		return true
	case *arrow.ListType:
		return sameLayout(at.Elem(), b.(*arrow.ListType).Elem())
	case *arrow.LargeListType:
		return sameLayout(at.Elem(), b.(*arrow.LargeListType).Elem())
	}
	if msForSeconds(a, b) {
		return true
	}
	return arrow.TypeEqual(a, b)
}

// retype returns arr relabelled with type dt (sameLayout holds).
func retype(arr arrow.Array, dt arrow.DataType) arrow.Array {
	d := retypeData(arr.Data(), dt)
	defer d.Release()
	return array.MakeFromData(d)
}

// msForSeconds reports whether a is the timestamp[ms] or time32[ms] Parquet
// stores for timestamp[s] or time32[s] b (Parquet has no seconds unit).
func msForSeconds(a, b arrow.DataType) bool {
	switch at := a.(type) {
	case *arrow.TimestampType:
		bt, ok := b.(*arrow.TimestampType)
		return ok && at.Unit == arrow.Millisecond && bt.Unit == arrow.Second && at.TimeZone == bt.TimeZone
	case *arrow.Time32Type:
		bt, ok := b.(*arrow.Time32Type)
		return ok && at.Unit == arrow.Millisecond && bt.Unit == arrow.Second
	}
	return false
}

func retypeData(d arrow.ArrayData, dt arrow.DataType) arrow.ArrayData {
	if msForSeconds(d.DataType(), dt) {
		// Exact: the writer multiplied seconds by 1000.
		var buf *memory.Buffer
		if dt.ID() == arrow.TIME32 {
			raw := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())
			secs := make([]int32, len(raw))
			for i, v := range raw {
				secs[i] = v / 1000
			}
			buf = memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(secs))
		} else {
			raw := arrow.Int64Traits.CastFromBytes(d.Buffers()[1].Bytes())
			secs := make([]int64, len(raw))
			for i, v := range raw {
				secs[i] = v / 1000
			}
			buf = memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(secs))
		}
		defer buf.Release()
		return array.NewData(dt, d.Len(), []*memory.Buffer{d.Buffers()[0], buf}, nil, d.NullN(), d.Offset())
	}
	children := d.Children()
	nc := make([]arrow.ArrayData, len(children))
	for k, c := range children {
		var ct arrow.DataType
		switch t := dt.(type) {
		case *arrow.StructType:
			ct = t.Field(k).Type
		case arrow.ListLikeType:
			ct = t.Elem()
		default:
			ct = c.DataType()
		}
		nc[k] = retypeData(c, ct)
	}
	out := array.NewData(dt, d.Len(), d.Buffers(), nc, d.NullN(), d.Offset())
	for _, c := range nc {
		c.Release()
	}
	return out
}
