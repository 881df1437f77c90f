package userdata

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// sameBatches fails unless a and b hold the same schema and batches.
func sameBatches(t *testing.T, a, b *Data) {
	t.Helper()
	if !a.Schema.Equal(b.Schema) {
		t.Fatalf("schemas differ:\n%s\n%s", a.Schema, b.Schema)
	}
	if a.Rows != b.Rows || len(a.Batches) != len(b.Batches) {
		t.Fatalf("rows %d in %d batches, want %d in %d", a.Rows, len(a.Batches), b.Rows, len(b.Batches))
	}
	for i := range a.Batches {
		if !array.RecordEqual(a.Batches[i], b.Batches[i]) {
			t.Errorf("batch %d differs:\n%v\n%v", i, a.Batches[i], b.Batches[i])
		}
	}
	if got, want := strings.Join(a.Notes, "\n"), strings.Join(b.Notes, "\n"); got != want {
		t.Errorf("notes:\n%s\nwant:\n%s", got, want)
	}
}

// TestJSONArrayEqualsJSONL reads the same rows (nulls, nesting, mixed
// kinds) as a .json array, plain and compressed, and as JSON Lines content
// in a .json file, and wants the JSON Lines batches.
func TestJSONArrayEqualsJSONL(t *testing.T) {
	want := readAll(t, "testdata/nested.jsonl", Options{})
	lines, err := os.ReadFile("testdata/nested.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	array, err := os.ReadFile("testdata/nested.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"array", "testdata/nested.json"},
		{"gzip", "testdata/nested.json.gz"},
		{"zstd", "testdata/nested.json.zst"},
		{"BOM and white space before [", "tmp:x.json:\ufeff \n\t" + string(array)},
		{"one line", "tmp:x.json:" + strings.ReplaceAll(string(array), "\n", "")},
		{"JSON Lines content", "tmp:x.json:" + string(lines)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.path
			if rest, ok := strings.CutPrefix(p, "tmp:"); ok {
				name, content, _ := strings.Cut(rest, ":")
				p = writeTemp(t, name, content)
			}
			sameBatches(t, readAll(t, p, Options{}), want)
		})
	}
}

// TestJSONArrayOptions wants --limit, --sample and --skip-bad to act on an
// array's elements as on JSON Lines' lines.
func TestJSONArrayOptions(t *testing.T) {
	var elems, lines []string
	for i := range 10 {
		v := fmt.Sprintf(`{"i":%d,"s":"v%d"}`, i, i)
		if i == 3 || i == 7 {
			v = `[1,2]` // not an object
		}
		elems = append(elems, v)
		lines = append(lines, v)
	}
	arr := writeTemp(t, "x.json", "["+strings.Join(elems, ",\n")+"]")
	jl := writeTemp(t, "x.jsonl", strings.Join(lines, "\n")+"\n")
	for _, o := range []Options{
		{SkipBad: true},
		{SkipBad: true, Limit: 4},
		{SkipBad: true, SampleFraction: 0.5},
		{SkipBad: true, BatchSize: 3},
	} {
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			got, want := readAll(t, arr, o), readAll(t, jl, o)
			sameBatches(t, got, want)
			if got.Skipped != want.Skipped || got.Skipped == 0 {
				t.Errorf("skipped %d, want %d (> 0)", got.Skipped, want.Skipped)
			}
		})
	}
}

func TestJSONArrayBadInput(t *testing.T) {
	big := "[" + strings.Repeat(`{"a":1},`, 1500) + `{"a":`
	tests := []struct {
		name, content string
		opts          Options
		want          []string
	}{
		{"empty array", " [ ] ", Options{}, []string{"x.json: the array is empty: no rows to measure"}},
		{"empty file", "", Options{}, []string{"x.json: empty file: a .json input holds an array of objects"}},
		{"top-level number", "42", Options{}, []string{"x.json: the top level is a number, not an array of objects"}},
		{"top-level string", `"s"`, Options{}, []string{"x.json: the top level is a string, not an array of objects"}},
		{"not JSON", "hello", Options{}, []string{"x.json: the top level is not JSON (it starts with 'h')"}},
		{"truncated inside element", big, Options{}, []string{"x.json: element 1,501: truncated: the file ends inside this element"}},
		{"truncated inside element, skip-bad", big, Options{SkipBad: true}, []string{"x.json: element 1,501: truncated"}},
		{"truncated after element", `[{"a":1},{"a":2}`, Options{}, []string{"x.json: element 3: truncated: the file ends before the array's closing ]"}},
		{"truncated after comma", `[{"a":1},`, Options{}, []string{"x.json: element 2: truncated"}},
		{"not an object", `[{"a":1},2]`, Options{}, []string{"x.json: element 2: expected a JSON object, got number"}},
		{"missing comma", "\ufeff\n" + `[{"a":1} {"a":2}]`, Options{}, []string{"x.json: element 2: malformed JSON at byte 13", "expected comma after array element", "even with --skip-bad"}},
		{"type after sample", `[{"a":1},{"a":"s"}]`, Options{InferRows: 1},
			[]string{"x.json: element 2: field a", `string "s" does not fit type int64`, "--infer-rows all"}},
		{"content after the array", `[{"a":1}] [`, Options{}, []string{"x.json: content after the array's closing ] (byte 11)"}},
		{"element too long", `[{"a":"` + strings.Repeat("x", 100) + `"}]`, Options{MaxLineBytes: 50}, []string{"x.json: element 1: element longer than 50 bytes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTemp(t, "x.json", tc.content)
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
			if strings.Contains(err.Error(), filepath.Dir(p)+"/x.json:1") {
				t.Errorf("error %q names a line", err)
			}
		})
	}
}
