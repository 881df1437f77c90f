package digest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// moreTypes is a vector of the grammar's words the digest test vectors do
// not use (their expected digests would bind every runner's suite to
// types some runtimes lack): it exercises schema.json and data.jsonl only.
const moreTypes = `{
  "schema": [
    {"name": "n", "type": "null"},
    {"name": "h", "type": "float16"},
    {"name": "lb", "type": "large_binary"},
    {"name": "fb", "type": "fixed_size_binary(3)"},
    {"name": "sv", "type": "string_view"},
    {"name": "bv", "type": "binary_view"},
    {"name": "d64", "type": "date64"},
    {"name": "t32", "type": "time32[ms]"},
    {"name": "t64", "type": "time64[ns]"},
    {"name": "dur", "type": "duration[us]"},
    {"name": "dec256", "type": "decimal256(40,3)"},
    {"name": "m", "type": {"map": {"key": "string", "value": {"list": "int64"}}}},
    {"name": "f32", "type": "float32"},
    {"name": "big", "type": "uint64"}
  ],
  "rows": [
    {"n": null, "h": 1.5, "lb": "00ff", "fb": "616263", "sv": "a view", "bv": "", "d64": 86400000, "t32": 3723004,
     "t64": 3723004005006, "dur": -5, "dec256": "-1234567890123456789012345678901234.567",
     "m": [{"key": "a", "value": [1, 2]}, {"key": "b", "value": null}], "f32": 0.1, "big": 18446744073709551615},
    {"n": null, "h": "-0.0", "lb": null, "fb": null, "sv": "", "bv": "00", "d64": null, "t32": 0,
     "t64": null, "dur": null, "dec256": "0.000", "m": [], "f32": "NaN", "big": 9007199254740993},
    {"n": null, "h": null, "lb": "", "fb": "000000", "sv": null, "bv": null, "d64": -86400000, "t32": null,
     "t64": 0, "dur": 9223372036854775807, "dec256": null, "m": null, "f32": "bits:00000001", "big": null}
  ]
}`

// roundTrip writes v's rows as schema.json and data.jsonl, reads both back
// as a vector and returns the digests of the original and of the read.
func roundTrip(t *testing.T, v *vector) (want, got Result) {
	t.Helper()
	want = digestRows(t, v, v.Rows, nil)
	schema := v.arrowSchema()
	rec, err := v.batch(schema, v.Rows)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	sj, err := SchemaJSON(schema)
	if err != nil {
		t.Fatal(err)
	}
	var rows bytes.Buffer
	if err := RowsJSON(&rows, rec); err != nil {
		t.Fatal(err)
	}
	back := &vector{}
	if err := json.Unmarshal(sj, &back.Schema); err != nil {
		t.Fatalf("schema.json does not parse: %v\n%s", err, sj)
	}
	for _, f := range back.Schema {
		if err := f.parse(); err != nil {
			t.Fatalf("schema.json field %q: %v\n%s", f.Name, err, sj)
		}
	}
	sc := bufio.NewScanner(&rows)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.UseNumber()
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("data.jsonl line %q: %v", sc.Text(), err)
		}
		back.Rows = append(back.Rows, row)
	}
	if len(back.Rows) != len(v.Rows) {
		t.Fatalf("data.jsonl has %d rows, want %d", len(back.Rows), len(v.Rows))
	}
	for i, f := range back.arrowSchema().Fields() {
		if w := schema.Field(i); !f.Equal(w) {
			t.Errorf("schema.json field %d reads back as %s, want %s", i, f, w)
		}
	}
	return want, digestRows(t, back, back.Rows, nil)
}

// TestRowsJSON: every test vector, and a vector of the types they leave
// out, written as schema.json and data.jsonl and read back by the
// vectors' own reader, has the same schema and the same digests.
func TestRowsJSON(t *testing.T) {
	vs := map[string]*vector{}
	for _, file := range vectorFiles(t) {
		v, err := readVector(file)
		if err != nil {
			t.Fatal(err)
		}
		vs[filepath.Base(file)] = v
	}
	path := filepath.Join(t.TempDir(), "more_types.json")
	if err := os.WriteFile(path, []byte(moreTypes), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := readVector(path)
	if err != nil {
		t.Fatal(err)
	}
	vs["more types"] = v
	for name, v := range vs {
		t.Run(name, func(t *testing.T) {
			want, got := roundTrip(t, v)
			if err := Diff(want, got); err != nil {
				t.Errorf("read back from data.jsonl: %v", err)
			}
		})
	}
}
