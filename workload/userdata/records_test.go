package userdata

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// topo is the hand-written TopoJSON-like test file: one top-level object
// whose records are in objects.countries.geometries (4), with a member
// name holding a dot ("v1.2").
const topo = "testdata/topo.json"

// TestOneObjectRefused: a .json file holding one object (pretty-printed or
// on one line, compressed or not) is refused with one line naming its
// member arrays, arrays of objects first and longest first; arrays of
// non-objects get a clear line; JSON Lines content and arrays of objects
// are read as before.
func TestOneObjectRefused(t *testing.T) {
	raw, err := os.ReadFile(topo)
	if err != nil {
		t.Fatal(err)
	}
	oneLine := strings.Join(strings.Fields(string(raw)), " ")
	tests := []struct {
		name, path string // path: a file, or "tmp:NAME:CONTENT"
		opts       Options
		want       []string
		one        bool     // a *OneObjectError is wanted
		arrays     []string // its arrays, if given
	}{
		{"topojson", topo, Options{}, []string{"topo.json: holds one JSON object, not records; name the member array that holds the records with --records PATH (arrays of objects: objects.countries.geometries (4), objects.land.geometries (2), /objects/v1.2/geometries (1); 4 more)"},
			true, []string{"objects.countries.geometries", "objects.land.geometries", "/objects/v1.2/geometries", "arcs", "bbox", "transform.scale", "transform.translate"}},
		{"topojson on one line", "tmp:t.json:" + oneLine, Options{}, []string{"objects.countries.geometries (4)"}, true, nil},
		{"topojson gzip", "gz:t.json.gz:" + string(raw), Options{}, []string{"t.json.gz: holds one JSON object", "objects.countries.geometries (4)"}, true, nil},
		{"skip-bad does not apply", topo, Options{SkipBad: true}, []string{"holds one JSON object"}, true, nil},
		{"no arrays", "tmp:x.json:{\"a\": 1,\n \"b\": {\"c\": \"x\"}}", Options{}, []string{"x.json: holds one JSON object, not records, and no member of it is an array to take them from"}, true, []string{}},
		{"no arrays of objects", `tmp:x.json:{"v": [1, 2, 3], "w": {"m": [[1], null]}}`, Options{},
			[]string{"x.json: holds one JSON object, not records, and none of its member arrays holds objects (other arrays: v (3 numbers), w.m (2 arrays and nulls))"}, true, []string{"v", "w.m"}},
		{"empty object", "tmp:x.json: {} ", Options{}, []string{"no member of it is an array"}, true, []string{}},
		{"array of numbers", "tmp:x.json:[1, 2, 3]", Options{}, []string{"x.json: element 1 of the top-level array is a number, not an object: records are JSON objects"}, false, nil},
		{"array of arrays", "tmp:x.json:[[1], [2]]", Options{}, []string{"x.json: element 1 of the top-level array is an array, not an object"}, false, nil},
		{"array of nulls", "tmp:x.json:[null]", Options{}, []string{"element 1 of the top-level array is null, not an object"}, false, nil},
		{"array of numbers, skip-bad", "tmp:x.json:[1, 2, [3]]", Options{SkipBad: true}, []string{"x.json: no JSON object among the elements read (number, array): records are JSON objects"}, false, nil},
		{"truncated object", `tmp:x.json:{"a": [{"b": 1}`, Options{}, []string{"x.json:1: malformed JSON"}, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.path
			if rest, ok := strings.CutPrefix(p, "tmp:"); ok {
				name, content, _ := strings.Cut(rest, ":")
				p = writeTemp(t, name, content)
			} else if rest, ok := strings.CutPrefix(p, "gz:"); ok {
				name, content, _ := strings.Cut(rest, ":")
				p = writeTemp(t, name, string(compress(t, "gzip", []byte(content))))
			}
			d, err := ReadAll(p, tc.opts)
			if err == nil {
				d.Release()
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if strings.ContainsAny(msg, "\n\r") || len(msg) > maxMessage+len(p) {
				t.Errorf("error is not one short line: %q", msg)
			}
			var oe *OneObjectError
			if errors.As(err, &oe) != tc.one {
				t.Fatalf("OneObjectError %v, want %v", oe != nil, tc.one)
			}
			if oe != nil && tc.arrays != nil {
				var got []string
				for _, c := range oe.Arrays {
					got = append(got, c.Path)
				}
				if !slices.Equal(got, tc.arrays) {
					t.Errorf("arrays %q, want %q", got, tc.arrays)
				}
			}
		})
	}
	// Still records: JSON Lines content in a .json file, an array of
	// objects.
	for _, content := range []string{"{\"a\":1}\n{\"a\":2}\n", `[{"a":1},{"a":2}]`} {
		if d := readAll(t, writeTemp(t, "x.json", content), Options{}); d.Rows != 2 {
			t.Errorf("%q: %d rows, want 2", content, d.Rows)
		}
	}
}

// TestOneObjectMessageShort: a long path and many arrays still make one
// line of about maxMessage bytes (within the workload's 300), naming fewer
// arrays.
func TestOneObjectMessageShort(t *testing.T) {
	long := strings.Repeat("very_long_member_name_", 4)
	e := &OneObjectError{Path: "/data/" + strings.Repeat("d", 60) + "/map.json", More: 50}
	for i := range 5 {
		e.Arrays = append(e.Arrays, Candidate{Path: fmt.Sprintf("%s.%s%d", long, long, i), Len: 1000, Elems: "objects"})
	}
	msg := e.Error()
	if len(msg) > 300 || !strings.Contains(msg, "--records PATH (arrays of objects: ") || !strings.Contains(msg, "54 more") {
		t.Errorf("%d bytes: %s", len(msg), msg)
	}
}

func TestRecordsPath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		segs []string
		out  string // FormatRecordsPath(segs)
	}{
		{"features", []string{"features"}, "features"},
		{"objects.countries.geometries", []string{"objects", "countries", "geometries"}, "objects.countries.geometries"},
		{"/objects/countries", []string{"objects", "countries"}, "objects.countries"},
		{"/objects/v1.2/geometries", []string{"objects", "v1.2", "geometries"}, "/objects/v1.2/geometries"},
		{"/a~1b/~0c/~01", []string{"a/b", "~c", "~1"}, "a/b.~c.~1"},
		{"/", []string{""}, "/"},
		{"/a//b", []string{"a", "", "b"}, "/a//b"},
		{"/~1x", []string{"/x"}, "/~1x"},
	} {
		segs, err := ParseRecordsPath(tc.in)
		if err != nil || !slices.Equal(segs, tc.segs) {
			t.Errorf("ParseRecordsPath(%q) = %q, %v; want %q", tc.in, segs, err, tc.segs)
			continue
		}
		out := FormatRecordsPath(segs)
		if out != tc.out {
			t.Errorf("FormatRecordsPath(%q) = %q, want %q", segs, out, tc.out)
		}
		if back, err := ParseRecordsPath(out); err != nil || !slices.Equal(back, segs) {
			t.Errorf("%q does not parse back: %q, %v", out, back, err)
		}
	}
	for _, bad := range []string{"a..b", ".a", "a.", "/a~2", "/a~", strings.Repeat("a.", MaxDepth) + "a"} {
		if _, err := ParseRecordsPath(bad); err == nil {
			t.Errorf("ParseRecordsPath(%q) accepted", bad)
		}
	}
}

// TestRecordsSelects: Options.Records reads a member array's elements as
// the rows, the same batches as the same elements in a top-level array,
// with a note saying where the rows came from; --limit, --skip-bad and
// compression apply as to an array.
func TestRecordsSelects(t *testing.T) {
	countries := `[{"type": "Polygon", "arcs": [[0]], "id": "004", "properties": {"name": "Afghanistan"}},
        {"type": "Polygon", "arcs": [[1]], "id": "008", "properties": {"name": "Albania"}},
        {"type": "MultiPolygon", "arcs": [[[2]], [[3]]], "id": "010", "properties": {"name": "Antarctica"}},
        {"type": "Polygon", "arcs": [[-2, 4]], "id": "032", "properties": {"name": "Argentina \"AR\" \u00e9"}}]`
	raw, err := os.ReadFile(topo)
	if err != nil {
		t.Fatal(err)
	}
	zst := writeTemp(t, "topo.json.zst", string(compress(t, "zstd", raw)))
	for _, tc := range []struct {
		name, path, records, want string
		opts                      Options
		rows                      int64
	}{
		{"dotted", topo, "objects.countries.geometries", countries, Options{}, 4},
		{"pointer", topo, "/objects/countries/geometries", countries, Options{}, 4},
		{"key with a dot", topo, "/objects/v1.2/geometries", `[{"type": "Point", "coordinates": [1, 2]}]`, Options{}, 1},
		{"compressed", zst, "objects.countries.geometries", countries, Options{}, 4},
		{"limit and batches", topo, "objects.countries.geometries", countries, Options{Limit: 3, BatchSize: 2}, 3},
		{"skip-bad", "tmp:" + `{"meta": {"n": [1, {"x": "}"}]}, "rows": [{"a": 1}, 7, {"a": 2}], "after": {"z": [[], "]"]}}`,
			"rows", `[{"a": 1}, 7, {"a": 2}]`, Options{SkipBad: true}, 2},
		{"first of duplicates", "tmp:" + `{"rows": [{"a": 1}], "rows": [{"b": 2}, {"b": 3}]}`, "rows", `[{"a": 1}]`, Options{}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.path
			if content, ok := strings.CutPrefix(p, "tmp:"); ok {
				p = writeTemp(t, "x.json", content)
			}
			o := tc.opts
			o.Records = tc.records
			got := readAll(t, p, o)
			if got.Rows != tc.rows {
				t.Fatalf("%d rows, want %d", got.Rows, tc.rows)
			}
			want := readAll(t, writeTemp(t, "want.json", tc.want), tc.opts)
			note := got.Notes[len(got.Notes)-1]
			if !strings.Contains(note, "(--records)") {
				t.Errorf("last note %q", note)
			}
			got.Notes = got.Notes[:len(got.Notes)-1]
			sameBatches(t, got, want)
			if got.Skipped != want.Skipped {
				t.Errorf("skipped %d, want %d", got.Skipped, want.Skipped)
			}
		})
	}
	if rows := rowsJSON(t, readAll(t, topo, Options{Records: "objects.countries.geometries"})); !strings.Contains(rows, `"properties":{"name":"Argentina \"AR\" é"}`) {
		t.Errorf("rows %s", rows)
	}
}

// TestRecordsBad: a path that names no array, an array of non-objects,
// --records on an input that is not one object, and a file broken around
// the records are one-line errors naming the file and the path.
func TestRecordsBad(t *testing.T) {
	tests := []struct {
		name, path, records string // path: a file, "tmp:NAME:CONTENT"
		want                []string
	}{
		{"no such member", topo, "objects.lands.geometries",
			[]string{"topo.json: --records objects.lands.geometries: objects has no member \"lands\" (arrays of objects: objects.countries.geometries (4),"}},
		{"dotted key", topo, "objects.v1.2.geometries", []string{"objects has no member \"v1\"", "/objects/v1.2/geometries (1)"}},
		{"an object, not an array", topo, "objects.land", []string{"--records objects.land: objects.land is an object, not an array ("}},
		{"a string on the way", topo, "type.x", []string{"--records type.x: type is a string, not an object"}},
		{"array of arrays", topo, "arcs", []string{"topo.json: element 1 of arcs is an array, not an object: --records names an array of objects"}},
		{"array of numbers", topo, "bbox", []string{"element 1 of bbox is a number, not an object"}},
		{"empty array", `tmp:x.json:{"a": {"b": []}}`, "a.b", []string{"x.json: the array a.b is empty: no rows to measure"}},
		{"top-level array", `tmp:x.json:[{"a": 1}]`, "a", []string{"x.json: --records a: the top level is an array, not an object: an array of objects is read as it is, without --records"}},
		{"top-level string", `tmp:x.json:"s"`, "a", []string{"--records a: the top level is a string, not an object"}},
		{"empty file", `tmp:x.json:`, "a", []string{"x.json: empty file"}},
		{"JSON Lines", "tmp:x.jsonl:{\"a\": [{\"b\": 1}]}\n", "a", []string{"x.jsonl: --records selects a member array of a .json file holding one JSON object, not rows of a jsonl input"}},
		{"CSV", "tmp:x.csv:a\n1\n", "a", []string{"not rows of a csv input"}},
		{"bad path", topo, "a..b", []string{"topo.json: --records \"a..b\": an empty member name", "/a.b/c"}},
		{"truncated before", `tmp:x.json:{"m": "x`, "a", []string{"x.json: --records a: truncated: the file ends inside the top-level object"}},
		{"malformed before", `tmp:x.json:{"m": [1 2], "a": [{"b": 1}]}`, "a", []string{"x.json: --records a: malformed JSON at byte 10: expected ',' or ']' after an array element"}},
		{"truncated after", `tmp:x.json:{"a": [{"b": 1}], "z": [1, `, "a", []string{"x.json: after the records array: truncated"}},
		{"malformed after", `tmp:x.json:{"a": [{"b": 1}], "z" 1}`, "a", []string{"x.json: after the records array: malformed JSON at byte 22: expected ':' after a member name"}},
		{"content after", "tmp:x.json:{\"a\": [{\"b\": 1}]}\n{\"a\": []}\n", "a", []string{"x.json: content after the top-level object (byte 18)"}},
		{"malformed element", `tmp:x.json:{"a": [{"b": 1}, {"b" 2}]}`, "a", []string{"x.json: element 2 of a: malformed JSON"}},
		{"element type after the sample", `tmp:x.json:{"a": [{"b": 1}, {"b": "s"}]}`, "a", []string{"x.json: element 2 of a: field b: string \"s\" does not fit type int64"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.path
			if rest, ok := strings.CutPrefix(p, "tmp:"); ok {
				name, content, _ := strings.Cut(rest, ":")
				p = writeTemp(t, name, content)
			}
			d, err := ReadAll(p, Options{Records: tc.records, InferRows: 1})
			if err == nil {
				d.Release()
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

// varyingKeys returns n JSON Lines rows whose "skin_variations" object
// (in two rows out of three) holds a few keys drawn from 200 code points,
// different from row to row, each with a record as its value; "pos" is a
// small object of stable keys and "wide" a record of 40 fields present in
// every row.
func varyingKeys(n int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"name":"e%d","pos":{"x":%d,"y":%d},"wide":{`, i, i, -i)
		for f := range 40 {
			if f > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"f%02d":%d`, f, i*f)
		}
		b.WriteString("}")
		if i%3 != 2 {
			b.WriteString(`,"skin_variations":{`)
			for j, k := range rng.Perm(200)[:1+rng.IntN(4)] {
				if j > 0 {
					b.WriteByte(',')
				}
				cp := fmt.Sprintf("1F%03X", 0x300+k)
				fmt.Fprintf(&b, `"%s":{"unified":"%s-%d","sheet_x":%d,"has_img":%t}`, cp, cp, i, j, j%2 == 0)
			}
			b.WriteString("}")
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// TestMapInference: an object field whose keys vary from row to row (and
// whose values unify) is a map, stored as a list of {key, value} entries
// in each object's order, with a note; objects of stable keys, wide or
// small, and objects whose values mix kinds stay structs.
func TestMapInference(t *testing.T) {
	d := readAll(t, writeTemp(t, "emoji.jsonl", varyingKeys(300)), Options{})
	value := arrow.StructOf(
		arrow.Field{Name: "unified", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "sheet_x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "has_img", Type: arrow.FixedWidthTypes.Boolean, Nullable: true})
	for _, tc := range []struct {
		col  string
		want arrow.DataType
	}{
		{"skin_variations", EntriesType(value)},
		{"pos", arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, arrow.Field{Name: "y", Type: arrow.PrimitiveTypes.Int64, Nullable: true})},
	} {
		f, ok := d.Schema.FieldsByName(tc.col)
		if !ok || !arrow.TypeEqual(f[0].Type, tc.want) {
			t.Errorf("column %s: %v, want %s", tc.col, f, tc.want)
		}
	}
	if f, _ := d.Schema.FieldsByName("wide"); len(f) != 1 || f[0].Type.ID() != arrow.STRUCT || f[0].Type.(*arrow.StructType).NumFields() != 40 {
		t.Errorf("wide: %v, want a struct of 40 fields", f)
	}
	if n := len(Describe(d.Schema)); n > 60 {
		t.Errorf("%d columns and nested fields", n)
	}
	notes := strings.Join(d.Notes, "\n")
	if !strings.Contains(notes, "field skin_variations: an object whose keys vary from row to row (") || !strings.Contains(notes, "stored as a map: a list of {key, value} entries") {
		t.Errorf("notes:\n%s", notes)
	}
	rows := rowsJSON(t, d)
	first := varyingKeys(1)
	i := strings.Index(first, `"skin_variations":{"`) + len(`"skin_variations":{"`)
	key := first[i : i+5]
	if !strings.Contains(rows, `"skin_variations":[{"key":"`+key+`","value":{"has_img":true,"sheet_x":0,"unified":"`+key+`-0"}}`) {
		t.Errorf("row 0: %.400s", rows)
	}

	for _, tc := range []struct {
		name, content string
		want          string // the column's type
	}{
		{"sparse, values mix kinds", sparse(20, func(i int) string {
			if i%2 == 0 {
				return `"s"`
			}
			return "1"
		}), "struct<"},
		{"sparse, one kind", sparse(20, func(i int) string { return strings.Repeat("1", 1+i%3) }), "list<item: struct<key: utf8, value: int64"},
		{"ints and floats unify", sparse(20, func(i int) string { return fmt.Sprintf("%d.5", i) }), "list<item: struct<key: utf8, value: float64"},
		{"seven keys stay a struct", sparse(7, func(int) string { return "1" }), "struct<"},
		{"map in list elements", `{"m":[{"k1":1},{"k2":2},{"k3":3},{"k4":4},{"k5":5},{"k6":6},{"k7":7},{"k8":8}]}` + "\n", "list<item: list<item: struct<key: utf8, value: int64"},
		{"map of maps", nested(), "list<item: struct<key: utf8, value: list<item: struct<key: utf8, value: bool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := readAll(t, writeTemp(t, "x.jsonl", tc.content), Options{})
			if got := typeString(d.Schema.Field(0).Type); !strings.HasPrefix(got, tc.want) {
				t.Errorf("type %s, want %s…", got, tc.want)
			}
		})
	}
}

// sparse returns rows of one object column "m" whose every row holds one
// key of n, with values value(i).
func sparse(n int, value func(i int) string) string {
	var b strings.Builder
	for i := range 3 * n {
		fmt.Fprintf(&b, "{\"m\":{\"k%d\":%s}}\n", i%n, value(i))
	}
	return b.String()
}

// nested returns rows of a map whose values are maps.
func nested() string {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "{\"m\":{\"u%d\":{\"d%d\":true,\"d%d\":false}}}\n", i, i, i+100)
	}
	return b.String()
}
