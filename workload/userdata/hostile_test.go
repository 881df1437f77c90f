package userdata

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	pqcompress "github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestHostile reads each file of testdata/hostile (hostile_gen_test.go
// makes them): before the limits, each ended the process ("fatal error:
// runtime: out of memory", a stack overflow) or ran for minutes. Each must
// now fail at once with one line naming what is wrong, or be read quickly.
func TestHostile(t *testing.T) {
	tests := []struct {
		file string
		want []string // substrings of the error; nil: read without error
	}{
		{"avro-block-2e40.avro", []string{"block 1 declares 1,099,511,627,776 bytes but the file holds 4 more: not a valid Avro file (or truncated)"}},
		{"avro-block-2e40.avro.gz", []string{"block 1 declares 1,099,511,627,776 bytes but the input ends after 4: not a valid Avro file (or truncated)"}},
		{"avro-snappy-2e31.avro", []string{"block 1 decompresses to more than 1 GiB, the limit for one Avro block"}},
		{"avro-recursive.avro", []string{"field n.n.n", "nests deeper than 64 levels, the limit (a recursive type?)"}},
		{"avro-null-array.avro", []string{"field a: an Avro array of items that take no bytes (null) is not supported"}},
		{"avro-fixed-2e40.avro", []string{"field f: Avro fixed type of 1,099,511,627,776 bytes, more than the limit of 1 MiB"}},
		{"avro-count-2e62.avro", []string{"block 1 declares 4,611,686,018,427,387,904 records in 8 bytes, where each takes 8 or more"}},
		{"parquet-chunk-2e40.parquet", []string{"row group 0, column x: the column chunk declares 1,099,511,627,776 bytes but the file holds 33 more: not a valid Parquet file (or truncated)"}},
		{"parquet-root-2e31-children.parquet", []string{`schema element "schema" declares 2,147,483,647 children but 1 element follows it: not a valid Parquet file`}},
		{"parquet-deep-10000.parquet.gz", []string{"the Parquet schema nests groups deeper than 130 at g.g.g", "the limit (64 levels of nesting once read as Arrow"}},
		{"parquet-100001-columns.parquet.gz", []string{"the Parquet schema has more than 100,000 leaf columns, the limit"}},
		{"zeros-2gb.parquet.zst", []string{"the zstd-decompressed data starts with 00 00 00 00 00 00 00 00, not Parquet's magic bytes \"PAR1\": not a Parquet file"}},
		{"par1-zeros-256mib.parquet.zst", []string{"decompresses to more than 64 MiB (max(64 × its 8,212 compressed bytes, 64 MiB), the limit for compressed Parquet files", "decompress it yourself"}},
		{"arrow-body-2e40.arrows", []string{"message 1 declares a body of 1,099,511,627,776 bytes but the file holds 8 more: not a valid Arrow IPC stream (or truncated)"}},
		{"arrow-body-2e40.arrows.zst", []string{"message 1 declares a body of 1,099,511,627,776 bytes but the stream ends after 8"}},
		{"arrow-meta-2e31.arrows", []string{"message 0 declares 2,147,483,647 bytes of metadata (the limit is 64 MiB)"}},
		{"arrow-body-2e40.arrow", []string{"record batch 0's block at offset 136 declares 144 bytes of metadata and 1,099,511,627,776 of body but the file holds 176 there: not a valid Arrow IPC file (or truncated)"}},
		{"arrow-deep-100.arrows", []string{"message 0: the schema nests deeper than 64 levels, the limit (Arrow C++ refuses deeper data too)"}},
		{"csv-100001-columns.csv.zst", []string{"the header has 100,001 columns, more than the limit of 100,000"}},
		{"csv-100000-dup-columns.csv.zst", nil},
		{"csv-int-then-text.csv", []string{"csv-int-then-text.csv:1501: column 2 (x) was inferred as int64 from the first 1,000 rows; line 1,501 has text \"seven\" there: " +
			"pass --infer-rows all (or a larger N) to infer the schema from more rows, or --skip-bad to skip such lines"}},
		{"jsonl-int-then-text.jsonl", []string{"jsonl-int-then-text.jsonl:1501: field x: string \"seven\" does not fit type int64; the schema was inferred from the first 1,000 rows: " +
			"pass --infer-rows all (or a larger N) to infer the schema from more rows, or --skip-bad to skip such lines"}},
		{"latin1.csv", nil},
	}
	seen := map[string]bool{"arrow-null-2e40-rows.arrows": true} // TestSplitBatches
	for _, tc := range tests {
		seen[tc.file] = true
		t.Run(tc.file, func(t *testing.T) {
			start := time.Now()
			d, err := ReadAll(filepath.Join(hostileDir, tc.file), Options{TempDir: t.TempDir()})
			el := time.Since(start)
			if el > 20*time.Second {
				t.Errorf("took %v", el)
			}
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				d.Release()
				return
			}
			if err == nil {
				d.Release()
				t.Fatalf("no error, want %q", tc.want)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error of more than one line:\n%s", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error\n%s\nlacks\n%s", msg, w)
				}
			}
			t.Logf("%v: %s", el.Round(time.Millisecond), msg)
		})
	}
	ents, err := os.ReadDir(hostileDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !seen[e.Name()] {
			t.Errorf("%s: no test", e.Name())
		}
	}
}

// TestWideCSV reads 100,000 columns × 10 rows — the most columns allowed —
// in seconds, and prints its schema in one screen.
func TestWideCSV(t *testing.T) {
	var sb strings.Builder
	for c := range MaxColumns {
		if c > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "c%d", c)
	}
	sb.WriteByte('\n')
	for r := range 10 {
		for c := range MaxColumns {
			if c > 0 {
				sb.WriteByte(',')
			}
			switch c % 4 {
			case 0:
				fmt.Fprintf(&sb, "%d", r*c)
			case 1:
				fmt.Fprintf(&sb, "s%d", r+c)
			case 2:
				fmt.Fprintf(&sb, "%d.5", r)
			default:
				sb.WriteString([]string{"", "true", "NA"}[r%3])
			}
		}
		sb.WriteByte('\n')
	}
	p := writeTemp(t, "wide.csv", sb.String())
	for _, p := range []string{p, filepath.Join(hostileDir, "csv-100000-dup-columns.csv.zst")} {
		start := time.Now()
		d := readAll(t, p, Options{})
		el := time.Since(start)
		if d.Rows != 10 || d.Schema.NumFields() != MaxColumns {
			t.Fatalf("%d rows, %d columns", d.Rows, d.Schema.NumFields())
		}
		start = time.Now()
		md := FormatSchema(d.Schema, d.Notes)
		t.Logf("%s: read in %v, schema printed in %v: %d notes, %d lines", filepath.Base(p), el, time.Since(start), len(d.Notes), strings.Count(md, "\n"))
		if el > 10*time.Second {
			t.Errorf("read in %v", el)
		}
		if n := strings.Count(md, "\n"); n > MaxSchemaRows+MaxSchemaNotes+10 {
			t.Errorf("FormatSchema printed %d lines:\n%s", n, md)
		}
		if len(d.Notes) > 10 {
			t.Errorf("%d notes: %q…", len(d.Notes), d.Notes[:10])
		}
		t.Logf("\n%s", shorten(md, 3000))
	}
}

// TestInvalidUTF8Noted: a Latin-1 CSV is read, with a note naming the first
// value that is not UTF-8 and the format that cannot hold it.
func TestInvalidUTF8Noted(t *testing.T) {
	d := readAll(t, filepath.Join(hostileDir, "latin1.csv"), Options{})
	notes := strings.Join(d.Notes, "\n")
	want := "column name: invalid UTF-8 in row 2 (line 3), the first such value: JSON Lines, whose strings must be UTF-8, cannot hold it"
	if !strings.Contains(notes, want) {
		t.Errorf("notes\n%s\nlack\n%s", notes, want)
	}
	if strings.Count(notes, "invalid UTF-8") != 1 {
		t.Errorf("more than one UTF-8 note:\n%s", notes)
	}
	// Nested, in an Arrow stream: a struct of a list of strings.
	dt := arrow.StructOf(arrow.Field{Name: "b", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true})
	s := arrow.NewSchema([]arrow.Field{{Name: "a", Type: dt, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), s)
	defer b.Release()
	sb := b.Field(0).(*array.StructBuilder)
	lb := sb.FieldBuilder(0).(*array.ListBuilder)
	vb := lb.ValueBuilder().(*array.StringBuilder)
	for _, row := range [][]string{{"ok"}, {}, {"x", "caf\xe9"}} {
		sb.Append(true)
		lb.Append(true)
		for _, v := range row {
			vb.Append(v)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	j := readAll(t, writeTemp(t, "x.arrows", buf.String()), Options{BatchSize: 2})
	if notes := strings.Join(j.Notes, "\n"); !strings.Contains(notes, "column a.b[]: invalid UTF-8 in row 3, the first") {
		t.Errorf("nested: notes\n%s", notes)
	}
	h := readAll(t, writeTemp(t, "h.csv", "caf\xe9,b\n1,2\n"), Options{})
	if notes := strings.Join(h.Notes, "\n"); !strings.Contains(notes, `column name "caf\xe9" is not valid UTF-8`) {
		t.Errorf("header: notes\n%s", notes)
	}
}

// TestDeepestAllowed: a schema at the depth limit is read, and described
// quickly in a bounded text.
func TestDeepestAllowed(t *testing.T) {
	p := writeTemp(t, "deep.arrows", string(arrowDeep(t, MaxDepth)))
	start := time.Now()
	d := readAll(t, p, Options{})
	cols := Describe(d.Schema)
	md := FormatSchema(d.Schema, d.Notes)
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v", el)
	}
	if len(cols) != MaxDepth+1 {
		t.Errorf("%d columns described", len(cols))
	}
	for _, c := range cols {
		if len(c.Type) > maxTypeText+len("…") {
			t.Errorf("type of %d bytes: %s", len(c.Type), shorten(c.Type, 200))
		}
	}
	if n := strings.Count(md, "\n"); n > MaxSchemaRows+10 {
		t.Errorf("FormatSchema printed %d lines", n)
	}
	if _, err := ReadAll(writeTemp(t, "deeper.arrows", string(arrowDeep(t, MaxDepth+1))), Options{}); err == nil ||
		!strings.Contains(err.Error(), "nests deeper than 64 levels") {
		t.Errorf("depth %d: err = %v", MaxDepth+1, err)
	}
}

// TestTypeString: Describe's types print as Arrow prints them, cut at
// maxTypeText bytes.
func TestTypeString(t *testing.T) {
	for _, dt := range []arrow.DataType{
		arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, arrow.Field{Name: "b", Type: arrow.ListOf(arrow.BinaryTypes.String)}),
		arrow.MapOf(arrow.BinaryTypes.String, arrow.ListOfNonNullable(arrow.PrimitiveTypes.Int32)),
		arrow.LargeListOf(arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float64)),
		arrow.ListViewOf(arrow.PrimitiveTypes.Int8),
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String},
		arrow.SparseUnionOf([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int8}}, []arrow.UnionTypeCode{0}),
	} {
		if got, want := typeString(dt), dt.String(); got != want {
			t.Errorf("typeString = %s, want %s", got, want)
		}
	}
	var fs []arrow.Field
	for i := range 1000 {
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("f%d", i), Type: arrow.PrimitiveTypes.Int64})
	}
	got := typeString(arrow.StructOf(fs...))
	if want := arrow.StructOf(fs...).String(); !strings.HasSuffix(got, "…") || !strings.HasPrefix(want, strings.TrimSuffix(got, "…")) ||
		len(got) > maxTypeText+len("…") {
		t.Errorf("wide struct: %s", got)
	}
}

// TestSplitBatches: an Arrow input's batches larger than BatchSize are
// split, so that a batch of 2^40 rows of nulls (a few hundred bytes) is
// sampled and cut to the limit at once.
func TestSplitBatches(t *testing.T) {
	start := time.Now()
	d := readAll(t, filepath.Join(hostileDir, "arrow-null-2e40-rows.arrows"), Options{SampleEvery: 3, Limit: 100_000, BatchSize: 1000})
	if d.Rows != 100_000 || len(d.Batches) < 100 {
		t.Errorf("%d rows in %d batches", d.Rows, len(d.Batches))
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("took %v", el)
	}
	base := readAll(t, "testdata/nested.arrows", Options{})
	s := readAll(t, "testdata/nested.arrows", Options{BatchSize: 2})
	if len(s.Batches) != 3 || s.Rows != base.Rows || rowsJSON(t, s) != rowsJSON(t, base) {
		t.Errorf("BatchSize 2: %d batches, %d rows", len(s.Batches), s.Rows)
	}
}

// TestValidFilesPassChecks: files written by arrow-go — Parquet of several
// compressed row groups with nested and dictionary-encoded columns, an
// Arrow file with a dictionary — pass the footer and block checks.
func TestValidFilesPassChecks(t *testing.T) {
	mem := memory.NewGoAllocator()
	dict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	s := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "x", Type: arrow.BinaryTypes.String, Nullable: true})), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64), Nullable: true},
		{Name: "d", Type: dict, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	for i := range 1000 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		lb := b.Field(1).(*array.ListBuilder)
		lb.Append(true)
		sb := lb.ValueBuilder().(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.StringBuilder).Append(fmt.Sprint("v", i%7))
		mb := b.Field(2).(*array.MapBuilder)
		mb.Append(true)
		mb.KeyBuilder().(*array.StringBuilder).Append("k")
		mb.ItemBuilder().(*array.Float64Builder).Append(float64(i) / 2)
		if err := b.Field(3).(*array.BinaryDictionaryBuilder).AppendString(fmt.Sprint("d", i%3)); err != nil {
			t.Fatal(err)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	var pq bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(128), parquet.WithCompression(pqcompress.Codecs.Zstd), parquet.WithDictionaryDefault(true))
	w, err := pqarrow.NewFileWriter(s, &pq, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d := readAll(t, writeTemp(t, "ok.parquet", pq.String()), Options{BatchSize: 100})
	if d.Rows != 1000 {
		t.Errorf("parquet: %d rows", d.Rows)
	}

	var af bytes.Buffer
	fw, err := ipc.NewFileWriter(&af, ipc.WithSchema(s))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := fw.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	a := readAll(t, writeTemp(t, "ok.arrow", af.String()), Options{})
	if a.Rows != 3000 || !strings.Contains(rowsJSON(t, a), `"d":"d2"`) {
		t.Errorf("arrow: %d rows", a.Rows)
	}
	if got, want := rowsJSON(t, d), rowsJSON(t, readAll(t, writeTemp(t, "ok2.arrow", af.String()), Options{Limit: 1000})); got != want {
		t.Errorf("parquet and arrow rows differ")
	}
}
