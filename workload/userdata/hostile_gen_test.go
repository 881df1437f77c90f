package userdata

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/zstd"
	"github.com/serbench/serbench/codec"
)

// The files of testdata/hostile are made by this file's helpers:
//
//	go test ./workload/userdata -run TestGenerateHostile -genhostile
//
// Each is small and declares far more than it holds, or nests or widens
// beyond the limits, as the files of issue 26 that crashed or stalled runs.
var genHostile = flag.Bool("genhostile", false, "regenerate testdata/hostile")

const hostileDir = "testdata/hostile"

func TestGenerateHostile(t *testing.T) {
	if !*genHostile {
		t.Skip("no -genhostile")
	}
	if err := os.MkdirAll(hostileDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range hostileFiles(t) {
		if err := os.WriteFile(filepath.Join(hostileDir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", name, len(content))
	}
}

func compress(t testing.TB, name string, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := codec.Default().MustParse(name).NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zstdZeros zstd-compresses prefix and then n zero bytes, streaming, at
// the level that makes the smallest bomb.
func zstdZeros(t testing.TB, prefix []byte, n int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(prefix); err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(w, zeros{}, n); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func hostileFiles(t *testing.T) map[string][]byte {
	files := map[string][]byte{}
	sync := []byte("0123456789abcdef")
	const longSchema = `{"type":"record","name":"r","fields":[{"name":"x","type":"long"}]}`

	// Avro: a block of 2^40 bytes in a file of a hundred (hamba/avro
	// allocated it); the same gzip-compressed, where the size is unknown.
	avroBomb := append(avroHeader(longSchema, "null", sync), avroBlock(1, 1<<40, []byte{2, 4, 6, 8}, nil)...)
	files["avro-block-2e40.avro"] = avroBomb
	files["avro-block-2e40.avro.gz"] = compress(t, "gzip", avroBomb)
	// A snappy block that declares 2^31 bytes once decompressed.
	snap := binary.AppendUvarint(nil, 1<<31)
	snap = append(snap, 0, 0, 0, 0, 0, 0, 0, 0)
	files["avro-snappy-2e31.avro"] = append(avroHeader(longSchema, "snappy", sync), avroBlock(1, int64(len(snap)), snap, sync)...)
	// A record that contains itself (a stack overflow: a fatal error).
	files["avro-recursive.avro"] = append(avroHeader(`{"type":"record","name":"N","fields":[{"name":"n","type":"N"}]}`, "null", sync),
		avroBlock(1, 1, []byte{0}, sync)...)
	// An array of nulls: 2^62 items in ten bytes.
	arr := binary.AppendUvarint(nil, uint64(1)<<63)
	files["avro-null-array.avro"] = append(avroHeader(`{"type":"record","name":"r","fields":[{"name":"a","type":{"type":"array","items":"null"}}]}`, "null", sync),
		avroBlock(1, int64(len(arr)+1), append(arr, 0), sync)...)
	// A fixed type of 2^40 bytes.
	files["avro-fixed-2e40.avro"] = append(avroHeader(`{"type":"record","name":"r","fields":[{"name":"f","type":{"type":"fixed","name":"F","size":1099511627776}}]}`, "null", sync),
		avroBlock(1, 4, []byte{1, 2, 3, 4}, sync)...)
	// A block declaring 2^62 records of 8 bytes in 8 bytes.
	files["avro-count-2e62.avro"] = append(avroHeader(`{"type":"record","name":"r","fields":[{"name":"d","type":"double"}]}`, "null", sync),
		avroBlock(1<<62, 8, make([]byte, 8), sync)...)

	// Parquet: a column chunk of 2^40 bytes whose page declares 2^31-1
	// (arrow-go's GetStream allocated the chunk).
	files["parquet-chunk-2e40.parquet"] = parquetChunkBomb()
	// A root with 2^31-1 children (schema.FromParquet allocated them).
	files["parquet-root-2e31-children.parquet"] = parquetFile(func(w *thriftWriter) {
		w.list(2, tStruct, 2)
		w.schemaElement("schema", -1, -1, 1<<31-1)
		w.schemaElement("x", 2, 0, -1)
	}, 0, nil)
	// 10,000 nested groups (Describe took minutes printing their types).
	deep := parquetFile(func(w *thriftWriter) {
		const depth = 10_000
		w.list(2, tStruct, depth+2)
		w.schemaElement("schema", -1, -1, 1)
		for range depth {
			w.schemaElement("g", -1, 1, 1)
		}
		w.schemaElement("x", 1, 1, -1)
	}, 0, nil)
	files["parquet-deep-10000.parquet.gz"] = compress(t, "gzip", deep)
	// 100,001 leaf columns, one more than the limit.
	wide := parquetFile(func(w *thriftWriter) {
		w.list(2, tStruct, MaxColumns+2)
		w.schemaElement("schema", -1, -1, MaxColumns+1)
		for range MaxColumns + 1 {
			w.schemaElement("c", 1, 1, -1)
		}
	}, 0, nil)
	files["parquet-100001-columns.parquet.gz"] = compress(t, "gzip", wide)
	// 2 GB of zeros in 66 KB: decompressed to TMPDIR before the magic bytes
	// were checked.
	files["zeros-2gb.parquet.zst"] = zstdZeros(t, nil, 2_000_000_000)
	// Parquet's magic bytes, then 256 MiB of zeros.
	files["par1-zeros-256mib.parquet.zst"] = zstdZeros(t, []byte("PAR1"), 256<<20)

	// Arrow IPC streams: a batch whose body declares 2^40 bytes (arrow-go's
	// stream reader allocated it); metadata of 2^31-1 bytes.
	stream := arrowStream(t)
	files["arrow-body-2e40.arrows"] = patchStreamBody(t, stream, 1<<40)
	files["arrow-body-2e40.arrows.zst"] = compress(t, "zstd", files["arrow-body-2e40.arrows"])
	files["arrow-meta-2e31.arrows"] = append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, make([]byte, 24)...)
	// An Arrow file whose footer's block declares a body of 2^40 bytes.
	files["arrow-body-2e40.arrow"] = patchFileBlock(t, arrowFile(t), 1<<40)
	// 100 nested structs.
	files["arrow-deep-100.arrows"] = arrowDeep(t, 100)
	// A batch of 2^40 rows of nulls, which take no bytes.
	files["arrow-null-2e40-rows.arrows"] = arrowNulls(t, 1<<40)

	// CSV: 100,000 columns, all named "a", × 10 rows (renaming the
	// duplicates was quadratic: minutes).
	var sb strings.Builder
	sb.WriteString(strings.Repeat("a,", MaxColumns-1) + "a\n")
	for range 10 {
		sb.WriteString(strings.Repeat("1,", MaxColumns-1) + "1\n")
	}
	files["csv-100000-dup-columns.csv.zst"] = compress(t, "zstd", []byte(sb.String()))
	// One column more than the limit.
	files["csv-100001-columns.csv.zst"] = compress(t, "zstd", []byte(strings.Repeat(",", MaxColumns)+"\n"+strings.Repeat("1,", MaxColumns)+"1\n"))
	// An int column that turns to text at line 1,501.
	sb.Reset()
	sb.WriteString("id,x\n")
	for i := 2; i <= 1500; i++ {
		fmt.Fprintf(&sb, "%d,%d\n", i, i*7)
	}
	sb.WriteString("1501,seven\n")
	files["csv-int-then-text.csv"] = []byte(sb.String())
	sb.Reset()
	for i := 1; i <= 1500; i++ {
		fmt.Fprintf(&sb, "{\"id\":%d,\"x\":%d}\n", i, i*7)
	}
	sb.WriteString("{\"id\":1501,\"x\":\"seven\"}\n")
	files["jsonl-int-then-text.jsonl"] = []byte(sb.String())
	// Latin-1, not UTF-8.
	files["latin1.csv"] = []byte("id,name\n1,plain\n2,caf\xe9\n3,na\xefve\n")
	return files
}

// avroLong appends Avro's zigzag varint of v.
func avroLong(b []byte, v int64) []byte { return binary.AppendUvarint(b, uint64((v<<1)^(v>>63))) }

func avroString(b []byte, s string) []byte { return append(avroLong(b, int64(len(s))), s...) }

func avroHeader(schema, codec string, sync []byte) []byte {
	b := []byte("Obj\x01")
	b = avroLong(b, 2)
	b = avroString(b, "avro.schema")
	b = avroString(b, schema)
	b = avroString(b, "avro.codec")
	b = avroString(b, codec)
	b = avroLong(b, 0)
	return append(b, sync...)
}

// avroBlock is a block of count records declaring size bytes, holding data
// and then sync (nil: none).
func avroBlock(count, size int64, data, sync []byte) []byte {
	b := avroLong(nil, count)
	b = avroLong(b, size)
	b = append(b, data...)
	return append(b, sync...)
}

// thriftWriter writes Thrift's compact protocol.
type thriftWriter struct {
	b    []byte
	last []int16
}

func newThriftWriter() *thriftWriter { return &thriftWriter{last: []int16{0}} }

func zz(v int64) uint64 { return uint64((v << 1) ^ (v >> 63)) }

func (w *thriftWriter) field(id int16, typ byte) {
	last := &w.last[len(w.last)-1]
	if d := id - *last; d > 0 && d <= 15 {
		w.b = append(w.b, byte(d)<<4|typ)
	} else {
		w.b = append(w.b, typ)
		w.b = binary.AppendUvarint(w.b, zz(int64(id)))
	}
	*last = id
}

func (w *thriftWriter) i32(id int16, v int64) {
	w.field(id, tI32)
	w.b = binary.AppendUvarint(w.b, zz(v))
}

func (w *thriftWriter) i64(id int16, v int64) {
	w.field(id, tI64)
	w.b = binary.AppendUvarint(w.b, zz(v))
}

func (w *thriftWriter) str(id int16, s string) {
	w.field(id, tBinary)
	w.strElem(s)
}

func (w *thriftWriter) strElem(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

// begin opens a struct field (id > 0) or a struct list element (id 0).
func (w *thriftWriter) begin(id int16) {
	if id > 0 {
		w.field(id, tStruct)
	}
	w.last = append(w.last, 0)
}

func (w *thriftWriter) end() {
	w.b = append(w.b, tStop)
	w.last = w.last[:len(w.last)-1]
}

func (w *thriftWriter) list(id int16, et byte, n int) {
	w.field(id, tList)
	if n < 15 {
		w.b = append(w.b, byte(n)<<4|et)
	} else {
		w.b = append(w.b, 0xf0|et)
		w.b = binary.AppendUvarint(w.b, uint64(n))
	}
}

// schemaElement writes a SchemaElement list element; negative values are
// left out.
func (w *thriftWriter) schemaElement(name string, typ, repetition, children int64) {
	w.begin(0)
	if typ >= 0 {
		w.i32(1, typ)
	}
	if repetition >= 0 {
		w.i32(3, repetition)
	}
	w.str(4, name)
	if children >= 0 {
		w.i32(5, children)
	}
	w.end()
}

// parquetFile is a Parquet file of data (column chunks from offset 4) and a
// footer with the schema schema writes and the row groups rowGroups writes.
func parquetFile(schema func(*thriftWriter), numRows int64, rowGroups func(*thriftWriter), data ...[]byte) []byte {
	w := newThriftWriter()
	w.i32(1, 1)
	schema(w)
	w.i64(3, numRows)
	if rowGroups != nil {
		rowGroups(w)
	} else {
		w.list(4, tStruct, 0)
	}
	w.b = append(w.b, tStop)
	b := []byte("PAR1")
	for _, d := range data {
		b = append(b, d...)
	}
	b = append(b, w.b...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(w.b)))
	return append(b, "PAR1"...)
}

// parquetChunkBomb is a one-column file whose column chunk declares 2^40
// bytes and whose page declares 2^31-1.
func parquetChunkBomb() []byte {
	page := newThriftWriter()
	page.i32(1, 0)       // DATA_PAGE
	page.i32(2, 1<<31-1) // uncompressed_page_size
	page.i32(3, 1<<31-1) // compressed_page_size
	page.begin(5)        // data_page_header
	page.i32(1, 1)       // num_values
	page.i32(2, 0)       // PLAIN
	page.i32(3, 3)       // RLE
	page.i32(4, 3)
	page.end()
	page.b = append(page.b, tStop)
	page.b = append(page.b, 1, 0, 0, 0, 0, 0, 0, 0)
	return parquetFile(func(w *thriftWriter) {
		w.list(2, tStruct, 2)
		w.schemaElement("schema", -1, -1, 1)
		w.schemaElement("x", 2, 0, -1)
	}, 1, func(w *thriftWriter) {
		w.list(4, tStruct, 1)
		w.begin(0)
		w.list(1, tStruct, 1)
		w.begin(0)
		w.i64(2, 4)
		w.begin(3)
		w.i32(1, 2) // INT64
		w.list(2, tI32, 1)
		w.b = binary.AppendUvarint(w.b, zz(0))
		w.list(3, tBinary, 1)
		w.strElem("x")
		w.i32(4, 0) // UNCOMPRESSED
		w.i64(5, 1)
		w.i64(6, 1<<40)
		w.i64(7, 1<<40)
		w.i64(9, 4)
		w.end()
		w.end()
		w.i64(2, 1<<40)
		w.i64(3, 1)
		w.end()
	}, page.b)
}

func arrowRecord() arrow.RecordBatch {
	s := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), s)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	return b.NewRecordBatch()
}

func arrowStream(t testing.TB) []byte {
	rec := arrowRecord()
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func arrowFile(t testing.TB) []byte {
	rec := arrowRecord()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// streamMessages splits an Arrow IPC stream into its messages: the offset
// of each one's metadata, its metadata length and its body length.
func streamMessages(t testing.TB, b []byte) [][3]int64 {
	var out [][3]int64
	for at := int64(0); at+8 <= int64(len(b)); {
		if binary.LittleEndian.Uint32(b[at:]) != 0xFFFFFFFF {
			t.Fatalf("no continuation marker at %d", at)
		}
		l := int64(binary.LittleEndian.Uint32(b[at+4:]))
		if l == 0 {
			break
		}
		meta := at + 8
		body, err := messageBodyLength(b[meta : meta+l])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, [3]int64{meta, l, body})
		at = meta + l + body
	}
	return out
}

// patchStreamBody sets the last message's body length to n and cuts the
// stream after that message's metadata and 8 bytes of its body.
func patchStreamBody(t testing.TB, stream []byte, n int64) []byte {
	msgs := streamMessages(t, stream)
	m := msgs[len(msgs)-1]
	b := append([]byte(nil), stream[:m[0]+m[1]+8]...)
	pos, err := messageBodyLengthPos(b[m[0] : m[0]+m[1]])
	if err != nil || pos < 0 {
		t.Fatalf("no body length: %v", err)
	}
	binary.LittleEndian.PutUint64(b[m[0]+pos:], uint64(n))
	return b
}

// patchFileBlock sets the body length of the record batch block in an
// Arrow file's footer to n.
func patchFileBlock(t testing.TB, file []byte, n int64) []byte {
	b := append([]byte(nil), file...)
	msgs := streamMessages(t, b[8:])
	batch := msgs[len(msgs)-1]
	flen := int64(binary.LittleEndian.Uint32(b[len(b)-10:]))
	footer := int64(len(b)) - 10 - flen
	for p := footer; p+24 <= int64(len(b))-10; p++ {
		if int64(binary.LittleEndian.Uint64(b[p+16:])) == batch[2] && int64(binary.LittleEndian.Uint64(b[p:])) == batch[0] {
			binary.LittleEndian.PutUint64(b[p+16:], uint64(n))
			return b
		}
	}
	t.Fatal("record batch block not found in the footer")
	return nil
}

// arrowDeep is a stream whose schema nests depth structs.
func arrowDeep(t testing.TB, depth int) []byte {
	dt := arrow.DataType(arrow.PrimitiveTypes.Int64)
	for range depth {
		dt = arrow.StructOf(arrow.Field{Name: "s", Type: dt, Nullable: true})
	}
	s := arrow.NewSchema([]arrow.Field{{Name: "deep", Type: dt, Nullable: true}}, nil)
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// arrowNulls is a stream of one batch of n rows of a null column.
func arrowNulls(t testing.TB, n int) []byte {
	s := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.Null, Nullable: true}}, nil)
	col := array.NewNull(n)
	defer col.Release()
	rec := array.NewRecordBatch(s, []arrow.Array{col}, int64(n))
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
