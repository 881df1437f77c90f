package userdata

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/serbench/serbench/codec"
)

// rowsJSON renders d's rows as one JSON array of objects, keys sorted.
func rowsJSON(t *testing.T, d *Data) string {
	t.Helper()
	var rows []any
	for _, b := range d.Batches {
		j, err := b.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var part []any
		dec := json.NewDecoder(bytes.NewReader(j))
		dec.UseNumber()
		if err := dec.Decode(&part); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, part...)
	}
	out, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func readAll(t *testing.T, path string, o Options) *Data {
	t.Helper()
	d, err := ReadAll(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Release)
	return d
}

func TestJSONLInference(t *testing.T) {
	d := readAll(t, "testdata/nested.jsonl", Options{})
	want := "schema:\n  fields: 7\n" +
		"    - id: type=int64, nullable\n" +
		"    - name: type=utf8, nullable\n" +
		"    - score: type=float64, nullable\n" +
		"    - active: type=bool, nullable\n" +
		"    - tags: type=list<item: utf8, nullable>, nullable\n" +
		"    - address: type=struct<city: utf8 nullable, zip: utf8 nullable, geo: struct<lat: float64 nullable, lon: float64 nullable> nullable>, nullable\n" +
		"    - extra: type=utf8, nullable"
	if got := d.Schema.String(); got != want {
		t.Errorf("schema:\n%s\nwant:\n%s", got, want)
	}
	if d.Rows != 5 {
		t.Errorf("rows = %d, want 5", d.Rows)
	}
	notes := strings.Join(d.Notes, "\n")
	for _, n := range []string{"field score: integers in some lines, fractions in others; widened to float64",
		"field extra: mixes number and string and array", "field address.geo.lat: integers in some lines"} {
		if !strings.Contains(notes, n) {
			t.Errorf("notes lack %q:\n%s", n, notes)
		}
	}
	got := rowsJSON(t, d)
	for _, frag := range []string{
		`"address":{"city":"London","geo":{"lat":51.5,"lon":-0.12},"zip":null}`,
		`"extra":"[1,2]"`, `"extra":"1"`, `"extra":"x"`,
		`"name":"Zoë \"quoted\" é😀"`, `"tags":["c",null]`, `"tags":null`, `"address":null`,
		`"id":9223372036854775807`, `"address":{"city":null,"geo":null,"zip":null}`,
	} {
		if !strings.Contains(got, frag) {
			t.Errorf("rows lack %s:\n%s", frag, got)
		}
	}
}

func TestCSVInference(t *testing.T) {
	d := readAll(t, "testdata/people.csv", Options{})
	want := []string{"id: type=int64", "name: type=utf8", "height: type=float64", "member: type=bool",
		"joined: type=date32", "last_seen: type=timestamp[us, tz=UTC]", "note: type=utf8", "empty: type=utf8"}
	s := d.Schema.String()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("schema lacks %q:\n%s", w, s)
		}
	}
	got := rowsJSON(t, d)
	for _, frag := range []string{`"name":null`, `"height":null`, `"note":null`, `"note":"multi\nline"`,
		`"note":"hello, world"`, `"member":true,"name":"Bob"`, `"last_seen":"2024-03-04T03:06:07.123456Z"`, `"joined":null`} {
		if !strings.Contains(got, frag) {
			t.Errorf("rows lack %s:\n%s", frag, got)
		}
	}
	notes := strings.Join(d.Notes, "\n")
	for _, n := range []string{"column height: integers in some rows, fractions in others; widened to float64",
		"column empty: empty in every sampled row"} {
		if !strings.Contains(notes, n) {
			t.Errorf("notes lack %q:\n%s", n, notes)
		}
	}
}

// TestInputKinds reads the same data from every kind and compression.
func TestInputKinds(t *testing.T) {
	base := readAll(t, "testdata/nested.jsonl", Options{})
	want := rowsJSON(t, base)
	for _, name := range []string{"nested.jsonl.gz", "nested.jsonl.zst", "nested.parquet", "nested.arrow",
		"nested.arrows", "nested.avro"} {
		t.Run(name, func(t *testing.T) {
			d := readAll(t, filepath.Join("testdata", name), Options{})
			if got := rowsJSON(t, d); got != want {
				t.Errorf("rows:\n%s\nwant:\n%s", got, want)
			}
			if strings.HasPrefix(name, "nested.jsonl") {
				// The same reader over the same bytes: the same batches.
				if len(d.Batches) != len(base.Batches) {
					t.Fatalf("%d batches, want %d", len(d.Batches), len(base.Batches))
				}
				for i := range d.Batches {
					if !array.RecordEqual(d.Batches[i], base.Batches[i]) {
						t.Errorf("batch %d differs from nested.jsonl's", i)
					}
				}
			}
		})
	}
}

func TestOptions(t *testing.T) {
	d := readAll(t, "testdata/nested.jsonl", Options{BatchSize: 2})
	if len(d.Batches) != 3 || d.Rows != 5 {
		t.Errorf("BatchSize 2: %d batches, %d rows", len(d.Batches), d.Rows)
	}
	for _, name := range []string{"nested.jsonl", "nested.parquet", "nested.arrow", "people.csv"} {
		p := filepath.Join("testdata", name)
		d := readAll(t, p, Options{Limit: 2, BatchSize: 3})
		if d.Rows != 2 {
			t.Errorf("%s: Limit 2: %d rows", name, d.Rows)
		}
		all := readAll(t, p, Options{})
		s := readAll(t, p, Options{SampleEvery: 2, BatchSize: 3})
		if want := (all.Rows + 1) / 2; s.Rows != want {
			t.Errorf("%s: SampleEvery 2: %d rows, want %d", name, s.Rows, want)
		}
	}
	// The sample keeps rows 0, 2, 4.
	s := readAll(t, "testdata/nested.jsonl", Options{SampleEvery: 2})
	ids := s.Batches[0].Column(0).String()
	if ids != "[1 3 9223372036854775807]" {
		t.Errorf("sampled ids %s", ids)
	}
	p := readAll(t, "testdata/nested.parquet", Options{SampleEvery: 2, BatchSize: 2})
	if got, want := rowsJSON(t, p), rowsJSON(t, s); got != want {
		t.Errorf("parquet sample:\n%s\nwant:\n%s", got, want)
	}
}

func TestSkipBad(t *testing.T) {
	d := readAll(t, "testdata/malformed.jsonl", Options{SkipBad: true})
	if d.Rows != 2 || d.Skipped != 1 {
		t.Errorf("rows %d skipped %d, want 2 and 1", d.Rows, d.Skipped)
	}
	d = readAll(t, "testdata/badcount.csv", Options{SkipBad: true})
	if d.Rows != 1 || d.Skipped != 1 {
		t.Errorf("csv: rows %d skipped %d, want 1 and 1", d.Rows, d.Skipped)
	}
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		path string // file under testdata, or "tmp:NAME:CONTENT"
		opts Options
		want []string
	}{
		{"malformed JSON", "malformed.jsonl", Options{}, []string{"malformed.jsonl:2", "malformed JSON", "byte 8"}},
		{"JSON not an object", "tmp:x.jsonl:[1,2]\n", Options{}, []string{"x.jsonl:1", "expected a JSON object, got array"}},
		{"JSON type after sample", "tmp:x.jsonl:{\"a\":1}\n{\"a\":\"s\"}\n", Options{InferRows: 1},
			[]string{"x.jsonl:2", "field a", `string "s" does not fit type int64`, "the schema was inferred from the first 1 row: pass --infer-rows all (or a larger N)", "--skip-bad"}},
		{"JSON field after sample", "tmp:x.jsonl:{\"a\":1}\n{\"b\":2}\n", Options{InferRows: 1},
			[]string{"x.jsonl:2", "field b: not in the schema"}},
		{"JSON line too long", "tmp:x.jsonl:{\"a\":\"" + strings.Repeat("x", 100) + "\"}\n", Options{MaxLineBytes: 50},
			[]string{"x.jsonl:1", "longer than 50 bytes"}},
		{"JSON empty", "tmp:x.jsonl:\n\n", Options{}, []string{"x.jsonl", "no JSON object"}},
		{"CSV field count", "badcount.csv", Options{}, []string{"badcount.csv:3", "wrong number of fields (the header has 2)"}},
		{"CSV bare quote", "tmp:x.csv:a,b\n1,x\"y\n", Options{}, []string{"x.csv:2", "bare \" in non-quoted-field"}},
		{"CSV type after sample", "tmp:x.csv:a\n1\nz\n", Options{InferRows: 1}, []string{"x.csv:3", `column 1 (a) was inferred as int64 from the first 1 row; line 3 has text "z" there: pass --infer-rows all (or a larger N)`, "--skip-bad"}},
		{"CSV timestamp zone after sample", "tmp:x.csv:t\n2024-01-01T00:00:00Z\n2024-01-01 00:00:00\n", Options{InferRows: 1},
			[]string{"x.csv:3", "column 1 (t) was inferred as timestamp[us, tz=UTC] from the first 1 row; line 3 has a timestamp without a zone"}},
		{"CSV empty", "tmp:x.csv:", Options{}, []string{"x.csv", "empty file"}},
		{"CSV unterminated quote", "tmp:x.csv:a\n\"" + strings.Repeat("x\n", 100000), Options{MaxLineBytes: 1000},
			[]string{"x.csv:2", "record longer than 1,000 bytes"}},
		{"truncated Parquet", "truncated.parquet", Options{}, []string{"truncated.parquet", "Parquet"}},
		{"not Parquet", "tmp:x.parquet:hello", Options{}, []string{"x.parquet", "not a valid Parquet file"}},
		{"truncated Arrow", "truncated.arrow", Options{}, []string{"truncated.arrow", "Arrow"}},
		{"not Avro", "tmp:x.avro:hello", Options{}, []string{"x.avro", "Avro"}},
		{"truncated gzip", "truncated.jsonl.gz", Options{}, []string{"truncated.jsonl.gz", "gzip"}},
		{"unknown extension", "tmp:x.txt:hello", Options{}, []string{"x.txt", `unknown extension ".txt"`, ".jsonl", ".parquet", ".zst"}},
		{"unknown kind", "tmp:x.jsonl:{}", Options{Kind: "yaml"}, []string{`unknown kind "yaml"`}},
		{"missing file", "nope.jsonl", Options{}, []string{"nope.jsonl", "no such file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join("testdata", tc.path)
			if rest, ok := strings.CutPrefix(tc.path, "tmp:"); ok {
				name, content, _ := strings.Cut(rest, ":")
				p = writeTemp(t, name, content)
			}
			d, err := ReadAll(p, tc.opts)
			if err == nil {
				d.Release()
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	d := readAll(t, "testdata/nested.jsonl", Options{})
	cols := Describe(d.Schema)
	var names []string
	for _, c := range cols {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, " "); got != "id name score active tags tags[] address address.city address.zip address.geo address.geo.lat address.geo.lon extra" {
		t.Errorf("Describe names: %s", got)
	}
	md := FormatSchema(d.Schema, d.Notes)
	if !strings.Contains(md, "| address.geo.lat | float64 | yes |") || !strings.Contains(md, "- field score:") {
		t.Errorf("FormatSchema:\n%s", md)
	}
}

func TestCSVNullTokens(t *testing.T) {
	d := readAll(t, "testdata/na.csv", Options{})
	if got := rowsJSON(t, d); got != `[{"s":"NA","x":1},{"s":"b","x":null},{"s":null,"x":2.5}]` {
		t.Errorf("rows %s", got)
	}
	notes := strings.Join(d.Notes, "\n")
	if !strings.Contains(notes, `column x: "NA" read as null`) || !strings.Contains(notes, `column s: "NA" kept as text`) {
		t.Errorf("notes:\n%s", notes)
	}
}

func TestExtensions(t *testing.T) {
	data, comp := Extensions()
	for _, e := range data {
		if _, ok := kindByExt(e); !ok {
			t.Errorf("data extension %s unknown to kindByExt", e)
		}
		for _, c := range comp {
			k, cn, err := Detect("x" + e + c)
			if err != nil || k == "" || cn == "none" {
				t.Errorf("Detect(x%s%s) = %s, %s, %v", e, c, k, cn, err)
			}
		}
	}
}

func TestDictionaryDecoded(t *testing.T) {
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	s := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
	mem := memory.NewGoAllocator()
	b := array.NewDictionaryBuilder(mem, dt).(*array.BinaryDictionaryBuilder)
	defer b.Release()
	for _, v := range []string{"x", "y", "x"} {
		if err := b.AppendString(v); err != nil {
			t.Fatal(err)
		}
	}
	b.AppendNull()
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(s, []arrow.Array{col}, 4)
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s), ipc.WithAllocator(mem))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := writeTemp(t, "d.arrows", buf.String())
	d := readAll(t, p, Options{})
	if got := d.Schema.Field(0).Type; !arrow.TypeEqual(got, arrow.BinaryTypes.String) {
		t.Fatalf("type %s", got)
	}
	if got := rowsJSON(t, d); got != `[{"c":"x"},{"c":"y"},{"c":"x"},{"c":null}]` {
		t.Errorf("rows %s", got)
	}
	if !strings.Contains(strings.Join(d.Notes, "\n"), "column c: dictionary-encoded") {
		t.Errorf("notes %v", d.Notes)
	}
	k := readAll(t, p, Options{KeepDictionaries: true})
	if k.Schema.Field(0).Type.ID() != arrow.DICTIONARY {
		t.Errorf("KeepDictionaries: type %s", k.Schema.Field(0).Type)
	}
}

func TestCompressedRandomAccessAndBOM(t *testing.T) {
	raw, err := os.ReadFile("testdata/nested.parquet")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w, err := codec.Default().MustParse("gzip").NewWriter(&gz)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(raw)
	w.Close()
	p := writeTemp(t, "n.parquet.gz", gz.String())
	d := readAll(t, p, Options{})
	want := rowsJSON(t, readAll(t, "testdata/nested.parquet", Options{}))
	if got := rowsJSON(t, d); got != want {
		t.Errorf("parquet.gz rows %s", got)
	}
	b := readAll(t, writeTemp(t, "bom.jsonl", "\ufeff{\"a\":1}\n"), Options{})
	if b.Rows != 1 || b.Schema.Field(0).Name != "a" {
		t.Errorf("BOM: %d rows, schema %s", b.Rows, b.Schema)
	}
}

func TestSampleFraction(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 2000; i++ {
		sb.WriteString(`{"i":` + strconv.Itoa(i) + "}\n")
	}
	p := writeTemp(t, "f.jsonl", sb.String())
	a := readAll(t, p, Options{SampleFraction: 0.1, BatchSize: 300})
	b := readAll(t, p, Options{SampleFraction: 0.1, BatchSize: 7})
	if a.Rows < 150 || a.Rows > 250 || rowsJSON(t, a) != rowsJSON(t, b) {
		t.Errorf("fraction 0.1 of 2000: %d rows; batch size changes the sample: %v", a.Rows, rowsJSON(t, a) != rowsJSON(t, b))
	}
	c := readAll(t, p, Options{SampleFraction: 0.1, SampleSeed: 2})
	if rowsJSON(t, a) == rowsJSON(t, c) {
		t.Error("seed does not change the sample")
	}
	if _, err := Open(p, Options{SampleFraction: 2}); err == nil {
		t.Error("SampleFraction 2 accepted")
	}
}

func TestSeq(t *testing.T) {
	d := readAll(t, "testdata/nested.jsonl", Options{BatchSize: 2})
	n := 0
	for b := range d.Seq() {
		if *b != d.Batches[n] {
			t.Fatal("Seq order")
		}
		n++
	}
	if n != 3 {
		t.Errorf("Seq yielded %d batches", n)
	}
}

func TestInferWholeFileAndTSV(t *testing.T) {
	p := writeTemp(t, "late.jsonl", "{\"a\":1}\n{\"a\":2}\n{\"a\":2.5}\n")
	if _, err := ReadAll(p, Options{InferRows: 2}); err == nil || !strings.Contains(err.Error(), "late.jsonl:3") {
		t.Errorf("InferRows 2: err = %v", err)
	}
	d := readAll(t, p, Options{InferRows: -1})
	if got := d.Schema.Field(0).Type; got.ID() != arrow.FLOAT64 {
		t.Errorf("InferRows -1: type %s", got)
	}
	tsv := readAll(t, writeTemp(t, "x.tsv", "a\tb\n1\thello, \"world\"\n\t\n"), Options{})
	if got := rowsJSON(t, tsv); got != `[{"a":1,"b":"hello, \"world\""},{"a":null,"b":null}]` {
		t.Errorf("tsv rows %s", got)
	}
}

// TestTooManyFields: an object with more than MaxFields distinct keys is a
// map when its values share one kind, else an error naming the line; the
// rows themselves (the columns) never become a map.
func TestTooManyFields(t *testing.T) {
	object := func(open string, value func(i int) string) string {
		var sb strings.Builder
		sb.WriteString(open)
		for i := 0; i <= MaxFields; i++ {
			if i > 0 {
				sb.WriteString(",")
			}
			sb.WriteString(`"k` + strconv.Itoa(i) + `":` + value(i))
		}
		return sb.String()
	}
	one := func(int) string { return "1" }
	d := readAll(t, writeTemp(t, "m.jsonl", object(`{"m":{`, one)+"}}\n"), Options{})
	if got := d.Schema.Field(0).Type; !arrow.TypeEqual(got, EntriesType(arrow.PrimitiveTypes.Int64)) {
		t.Errorf("type %s", got)
	}
	if notes := strings.Join(d.Notes, "\n"); !strings.Contains(notes, "field m: an object whose keys vary from row to row (more than 10,000 distinct keys)") {
		t.Errorf("notes %s", notes)
	}
	mixed := "{\"m\":{\"a\":1}}\n" + object(`{"m":{`, func(i int) string {
		if i == MaxFields {
			return `"s"`
		}
		return "1"
	}) + "}}\n"
	_, err := ReadAll(writeTemp(t, "m.jsonl", mixed), Options{})
	if err == nil || !strings.Contains(err.Error(), "m.jsonl:2: object m has more than 10000 distinct field names and its values mix number and string") {
		t.Errorf("err = %v", err)
	}
	_, err = ReadAll(writeTemp(t, "m.jsonl", object("{", one)+"}\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), "m.jsonl:1: the rows have more than 10000 distinct field names") {
		t.Errorf("err = %v", err)
	}
}

func TestKindAndCompressionOverride(t *testing.T) {
	raw, err := os.ReadFile("testdata/nested.jsonl.zst")
	if err != nil {
		t.Fatal(err)
	}
	p := writeTemp(t, "data.bin", string(raw))
	d := readAll(t, p, Options{Kind: KindJSONL, Compression: "zstd"})
	if d.Rows != 5 {
		t.Errorf("%d rows", d.Rows)
	}
	if _, err := Open(p, Options{Kind: KindJSONL, Compression: "rar"}); err == nil || !strings.Contains(err.Error(), `unknown codec "rar"`) {
		t.Errorf("err = %v", err)
	}
}
