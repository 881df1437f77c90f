package dynamic

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/hamba/avro/v2/ocf"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/filebench"
)

// compressible returns rows of a flat schema with repetitive values, as
// real data has them: small ints, a few distinct strings, a sparse float.
func compressible(rows int) arrow.RecordBatch {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "carrier", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "delay", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), s)
	defer b.Release()
	r := rand.New(rand.NewPCG(9, 9))
	carriers := []string{"AA", "DL", "UA", "WN", "B6"}
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(carriers[r.IntN(len(carriers))])
		if i%7 == 0 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Float64Builder).Append(float64(r.IntN(120) - 20))
		}
	}
	return b.NewRecordBatch()
}

// TestCompressedVariants: every self-compressing format says so and names
// its codec and level, pairs with codec none only, round-trips, and writes
// a file smaller than its uncompressed sibling on compressible rows.
func TestCompressedVariants(t *testing.T) {
	rec := compressible(20000)
	defer rec.Release()
	want := map[string][]string{
		"arrow-stream-zstd": {"zstd", "level 3"},
		"arrow-stream-lz4":  {"LZ4", "default level"},
		"parquet-zstd":      {"zstd level 3"},
		"parquet-snappy":    {"snappy", "no levels"},
		"avro-ocf-zstd":     {"zstandard", "level 3"},
		"avro-ocf-deflate":  {"deflate", "level 6"},
	}
	sizes := map[string]int{}
	for _, c := range Constructors() {
		f, err := c.New(rec.Schema(), Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		d := f.Descriptor()
		if d.Name != c.Name {
			t.Errorf("%s: descriptor names %s", c.Name, d.Name)
		}
		words, compressed := want[c.Name]
		if d.Compresses != compressed {
			t.Errorf("%s: Compresses = %v", c.Name, d.Compresses)
		}
		for _, w := range words {
			if !strings.Contains(d.Detail, w) {
				t.Errorf("%s: detail %q does not say %q", c.Name, d.Detail, w)
			}
		}
		if compressed && filebench.CheckCombination(d, codec.Default().MustParse("zstd")) == nil {
			t.Errorf("%s: combines with an outer codec", c.Name)
		}
		var data []byte
		if sibling(c.Name) == "parquet" {
			data = parquetRoundTrip(t, f, rec)
		} else {
			got, enc, err := roundTrip(f, []arrow.RecordBatch{rec})
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if err := Compare([]arrow.RecordBatch{rec}, got); err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			release(got)
			data = enc
		}
		sizes[c.Name] = len(data)
	}
	for name := range want {
		base := sibling(name)
		if sizes[name] >= sizes[base]*9/10 {
			t.Errorf("%s: %d bytes, %s %d: saving less than 10%%", name, sizes[name], base, sizes[base])
		}
		t.Logf("%-18s %8d bytes (%s: %d, %.1f%% saved)", name, sizes[name], base, sizes[base], 100*(1-float64(sizes[name])/float64(sizes[base])))
	}
}

// parquetRoundTrip writes rec with the Parquet format f and reads it back
// through a random-access reader, checking the rows; it returns the file.
func parquetRoundTrip(t *testing.T, f Format, rec arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := f.NewEncoder(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(&rec); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	dec, err := f.NewDecoder(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("%s: %v", f.Descriptor().Name, err)
	}
	got, err := decodeAll(dec)
	if err != nil {
		t.Fatalf("%s: %v", f.Descriptor().Name, err)
	}
	if err := Compare([]arrow.RecordBatch{rec}, got); err != nil {
		t.Fatalf("%s: %v", f.Descriptor().Name, err)
	}
	release(got)
	return buf.Bytes()
}

// TestAvroReadsEveryBlockCodec: the Avro decoder reads a file whatever
// block codec it was written with, so a format reads its siblings' files;
// a codec it does not know is refused by name.
func TestAvroReadsEveryBlockCodec(t *testing.T) {
	rec := compressible(500)
	defer rec.Release()
	var files [][]byte
	for _, ctor := range []Constructor{NewAvro, NewAvroZstd, NewAvroDeflate} {
		f, err := ctor(rec.Schema(), Options{BatchRows: 64})
		if err != nil {
			t.Fatal(err)
		}
		_, data, err := roundTrip(f, []arrow.RecordBatch{rec})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, data)
	}
	f, _ := NewAvroDeflate(rec.Schema(), Options{BatchRows: 100})
	for i, data := range files {
		dec, err := f.NewDecoder(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		got, err := decodeAll(dec)
		if err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		if err := Compare([]arrow.RecordBatch{rec}, got); err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		release(got)
	}
	snappy := bytes.Replace(files[1], []byte("zstandard"), []byte("snappy\x00\x00\x00"), 1)
	if _, err := f.NewDecoder(bytes.NewReader(snappy)); err == nil {
		t.Error("a file of an unknown codec was read")
	}
}

// avroWithBlock returns an Avro OCF file of the one-long-column schema,
// codec zstandard, whose only block (rows rows) holds block as is.
func avroWithBlock(t *testing.T, rows int64, block []byte) (*Avro, []byte) {
	t.Helper()
	s := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	ff, err := NewAvroZstd(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := ff.(*Avro)
	var buf bytes.Buffer
	sync := [16]byte{1, 2, 3}
	enc, err := ocf.NewEncoder(f.avroSchema, &buf, append(f.codec.opts, ocf.WithCodec(ocf.ZStandard), ocf.WithSyncBlock(sync))...)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil { // the header only
		t.Fatal(err)
	}
	b := buf.Bytes()
	b = binary.AppendVarint(b, rows)
	b = binary.AppendVarint(b, int64(len(block)))
	b = append(b, block...)
	return f, append(b, sync[:]...)
}

// TestAvroZstdFrameLies: a zstd block declaring far more content than its
// bytes can hold is refused before anything is allocated for it, and a
// frame that is not zstd fails with an error, both naming the codec.
func TestAvroZstdFrameLies(t *testing.T) {
	// Magic, a single-segment frame with an 8-byte content size of 1 TiB,
	// then a last raw block of 1 byte.
	frame := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
	frame = append(frame, 0xE0) // FCS flag 3 (8 bytes), single segment
	frame = binary.LittleEndian.AppendUint64(frame, 1<<40)
	frame = append(frame, 0x09, 0, 0, 'x')
	for _, tc := range []struct {
		name  string
		block []byte
		want  string
	}{
		{"1 TiB declared", frame, "declares 1099511627776 bytes of content"},
		{"not zstd", []byte("not a zstd frame at all"), "zstandard block"},
	} {
		f, data := avroWithBlock(t, 1, tc.block)
		dec, err := f.NewDecoder(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var b arrow.RecordBatch
		err = dec.Decode(&b)
		if err == nil || err == io.EOF || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "zstandard") {
			t.Errorf("%s: err = %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// TestAvroDeflateBomb: a deflate block inflating past the limit is refused
// once the limit is passed, not read to its end, and what it allocated
// stays near the limit.
func TestAvroDeflateBomb(t *testing.T) {
	const limit = 4 << 20
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, 9)
	zeros := make([]byte, 1<<20)
	for range 64 {
		fw.Write(zeros)
	}
	fw.Close()
	or := &ocfReader{codec: ocf.Deflate, raw: comp.Bytes(), maxBlock: limit}
	err := or.decompress()
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint("more than ", limit)) {
		t.Fatalf("err = %v", err)
	}
	if cap(or.block) > 2*limit {
		t.Errorf("%d bytes allocated for a limit of %d", cap(or.block), limit)
	}
	// Within the limit, the block inflates whole.
	or = &ocfReader{codec: ocf.Deflate, raw: comp.Bytes(), maxBlock: 64 << 20}
	if err := or.decompress(); err != nil || len(or.block) != 64<<20 {
		t.Fatalf("%d bytes, err = %v", len(or.block), err)
	}
}

// TestParquetRowGroups (issue 26: Parquet within 5% of pyarrow's): the
// encoded batches share one row group up to pyarrow's 1,048,576 rows, so
// a column has one dictionary, not one per batch; the file reads back.
func TestParquetRowGroups(t *testing.T) {
	rec := compressible(3000)
	defer rec.Release()
	f, err := NewParquetZstd(rec.Schema(), Options{BatchRows: 1000})
	if err != nil {
		t.Fatal(err)
	}
	batches := []arrow.RecordBatch{rec.NewSlice(0, 1000), rec.NewSlice(1000, 2000), rec.NewSlice(2000, 3000)}
	defer release(batches)
	got, data, err := roundTrip(f, batches)
	if err != nil {
		t.Fatal(err)
	}
	defer release(got)
	if err := Compare(batches, got); err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if n := pf.NumRowGroups(); n != 1 {
		t.Errorf("3 batches of 1,000 rows: %d row groups, want 1", n)
	}
	if len(got) != 3 {
		t.Errorf("read back in %d batches of at most 1,000 rows, want 3", len(got))
	}
}
