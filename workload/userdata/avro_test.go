package userdata

import (
	"bytes"
	"flag"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2/ocf"
)

// avroTypesFile is an OCF (deflate codec) with every Avro type the mapper
// handles, written by hamba/avro from generic values (-genavro rewrites
// it). workload/data round-trips the same file through every format.
const avroTypesFile = "testdata/avro-types.avro"

var genAvro = flag.Bool("genavro", false, "rewrite "+avroTypesFile)

// writeAvroTypes writes avroTypesFile.
func writeAvroTypes(t *testing.T) {
	schema := `{"type":"record","name":"r","namespace":"t","fields":[
		{"name":"b","type":"boolean"},
		{"name":"i","type":"int"},
		{"name":"l","type":["null","long"]},
		{"name":"f","type":"float"},
		{"name":"d","type":"double"},
		{"name":"s","type":"string"},
		{"name":"by","type":"bytes"},
		{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
		{"name":"fx","type":{"type":"fixed","name":"F","size":2}},
		{"name":"m","type":{"type":"map","values":["null","int"]}},
		{"name":"a","type":{"type":"array","items":{"type":"record","name":"sub","fields":[{"name":"x","type":"int"}]}}},
		{"name":"u","type":["null","int","string"]},
		{"name":"dt","type":{"type":"int","logicalType":"date"}},
		{"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
		{"name":"tm","type":{"type":"int","logicalType":"time-millis"}},
		{"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":6,"scale":2}},
		{"name":"rec","type":["null","sub"]}
	]}`
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(schema, &buf, ocf.WithCodec(ocf.Deflate))
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)
	rows := []map[string]any{
		{"b": true, "i": 1, "l": map[string]any{"long": int64(1) << 40}, "f": float32(1.5), "d": 2.25, "s": "x",
			"by": []byte{1, 2}, "e": "B", "fx": [2]byte{9, 8}, "m": map[string]any{"z": map[string]any{"int": 1}, "a": nil},
			"a": []any{map[string]any{"x": 3}}, "u": map[string]any{"string": "s"}, "dt": time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC),
			"ts": ts, "tm": 90 * time.Second, "dec": big.NewRat(12345, 100), "rec": map[string]any{"t.sub": map[string]any{"x": 4}}},
		{"b": false, "i": -1, "l": nil, "f": float32(0), "d": 0.0, "s": "", "by": []byte{}, "e": "A", "fx": [2]byte{},
			"m": map[string]any{}, "a": []any{}, "u": nil, "dt": time.Unix(0, 0).UTC(), "ts": time.Unix(0, 0).UTC(),
			"tm": time.Duration(0), "dec": big.NewRat(-1, 4), "rec": nil},
	}
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(avroTypesFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAvroTypes reads avroTypesFile and checks the Arrow schema and values
// every Avro type maps to.
func TestAvroTypes(t *testing.T) {
	if *genAvro {
		writeAvroTypes(t)
	}
	d := readAll(t, avroTypesFile, Options{})
	wantSchema := []string{"b: type=bool", "i: type=int32", "l: type=int64, nullable", "f: type=float32", "d: type=float64",
		"s: type=utf8", "by: type=binary", "e: type=utf8", "fx: type=binary",
		"m: type=list<entry: struct<key: utf8, value: int32 nullable>>", "a: type=list<item: struct<x: int32>>",
		"u: type=utf8, nullable", "dt: type=date32", "ts: type=timestamp[us, tz=UTC]", "tm: type=int32", "dec: type=utf8",
		"rec: type=struct<x: int32>, nullable"}
	got := d.Schema.String()
	for _, w := range wantSchema {
		if !strings.Contains(got, w) {
			t.Errorf("schema lacks %q:\n%s", w, got)
		}
	}
	rowsGot := rowsJSON(t, d)
	for _, frag := range []string{`"l":1099511627776`, `"e":"B"`, `"fx":"CQg="`, `"m":[{"key":"a","value":null},{"key":"z","value":1}]`,
		`"a":[{"x":3}]`, `"u":"\"s\""`, `"dt":"2020-01-02"`, `"ts":"2024-05-06T07:08:09.123456Z"`,
		`"tm":90000`, `"dec":"123.45"`, `"dec":"-0.25"`, `"rec":{"x":4}`, `"rec":null`, `"u":null`, `"l":null`} {
		if !strings.Contains(rowsGot, frag) {
			t.Errorf("rows lack %s:\n%s", frag, rowsGot)
		}
	}
	notes := strings.Join(d.Notes, "\n")
	for _, n := range []string{"field m: Avro map stored as a list", "field u: Avro union of 3 types", "field tm: Avro time-millis",
		"field dec: Avro decimal"} {
		if !strings.Contains(notes, n) {
			t.Errorf("notes lack %q:\n%s", n, notes)
		}
	}
}

// TestAvroCodecs reads the same rows written with each container codec
// hamba/avro writes, several blocks each, and a string longer than the
// 1 MiB hamba/avro's own decoder refuses.
func TestAvroCodecs(t *testing.T) {
	schema := `{"type":"record","name":"r","fields":[{"name":"i","type":"long"},{"name":"s","type":"string"}]}`
	var want string
	for _, c := range []ocf.CodecName{ocf.Null, ocf.Deflate, ocf.Snappy, ocf.ZStandard} {
		var buf bytes.Buffer
		enc, err := ocf.NewEncoder(schema, &buf, ocf.WithCodec(c), ocf.WithBlockLength(7))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			s := strings.Repeat("x", i)
			if i == 42 {
				s = strings.Repeat("long", 1<<19) // 2 MiB
			}
			if err := enc.Encode(map[string]any{"i": int64(i), "s": s}); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		d := readAll(t, writeTemp(t, "c.avro", buf.String()), Options{BatchSize: 16})
		got := rowsJSON(t, d)
		if d.Rows != 50 || !strings.Contains(got, `"i":49,"s":"`+strings.Repeat("x", 49)+`"`) {
			t.Errorf("%s: %d rows", c, d.Rows)
		}
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("%s: rows differ from the null codec's", c)
		}
	}
}
