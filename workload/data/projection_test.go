package data

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
	"github.com/serbench/serbench/workload/userdata"
	"github.com/serbench/serbench/workload/workloadtest"
)

// TestProjectionReads (issue 26: "projection reads for Parquet and
// Arrow"): every Parquet and Arrow IPC pair with codec none, and only
// those, has a read-columns case of the input's first column — here a
// struct holding a list and a nested struct, named with a space — in the
// pair's read group, which passes (every value verified) and fails on a
// file that does not hold the column's values; the report's projection
// table has a row per pair with the full read beside it, and says that the
// Arrow projection is a full read.
func TestProjectionReads(t *testing.T) {
	in := filepath.Join(t.TempDir(), "nested-first.jsonl")
	var lines []string
	for i := range 300 {
		lines = append(lines, fmt.Sprintf(`{"home address": {"city": "c%d", "tags": ["a", null, "b%d"], "geo": {"lat": %d.5}}, "id": %d, "note": "n%d"}`, i%7, i%3, i, i, i%11))
	}
	lines[5] = `{"home address": null, "id": 5, "note": null}`
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	formats := []string{"arrow-stream", "arrow-stream-zstd", "arrow-stream-lz4", "parquet", "parquet-zstd", "parquet-snappy", "avro-ocf", "msgpack"}
	p := plan(t, Settings{Input: in, Codecs: []string{"none", "zstd"}, Formats: formats}, workload.Config{})
	var projected []string
	for _, c := range p.Cases {
		if c.Labels.Get(filecase.LabelOp) != filecase.OpReadColumns {
			continue
		}
		projected = append(projected, c.Labels.Get(filecase.LabelFormat)+"+"+c.Labels.Get(filecase.LabelCodec))
		if got := c.Labels.Get(filecase.LabelColumns); got != "home_address" {
			t.Errorf("%s: columns label %q", c.FullName(), got)
		}
		if want := c.Labels.Get(filecase.LabelFormat) + "/none/read"; c.Group != want {
			t.Errorf("%s: group %q, want %q", c.FullName(), c.Group, want)
		}
		if c.Budget != filecase.Budget || len(c.Notes) != 1 || !strings.Contains(c.Notes[0], `"home address"`) {
			t.Errorf("%s: budget %v, notes %q", c.FullName(), c.Budget, c.Notes)
		}
		if arrow := strings.HasPrefix(c.Labels.Get(filecase.LabelFormat), "arrow"); arrow != strings.Contains(c.Notes[0], "every buffer") {
			t.Errorf("%s: note %q", c.FullName(), c.Notes[0])
		}
	}
	want := []string{"arrow-stream+none", "arrow-stream-zstd+none", "arrow-stream-lz4+none", "parquet+none", "parquet-zstd+none", "parquet-snappy+none"}
	if !slices.Equal(projected, want) {
		t.Errorf("read-columns cases %v, want %v", projected, want)
	}
	r := runPlan(t, New(), p)
	for _, c := range r.Cases {
		if c.Labels.Get(filecase.LabelOp) != filecase.OpReadColumns {
			continue
		}
		if !c.OK() {
			t.Errorf("%s: %s", c.Name+c.Labels.String(), c.Error)
		}
		chunks, isPQ := c.Metrics[MetricColumnChunks]
		if pq := strings.HasPrefix(c.Labels.Get(filecase.LabelFormat), "parquet"); pq != isPQ || pq && (chunks <= 0 || chunks >= c.Metrics[filecase.MetricFile]/2) {
			t.Errorf("%s: column chunks %v of a %v-byte file", c.Name+c.Labels.String(), c.Metrics[MetricColumnChunks], c.Metrics[filecase.MetricFile])
		}
	}
	// The full read beside each projection is its own pair's: codec none,
	// not arrow-stream + zstd.
	var cases []*results.Case
	reads := map[string]float64{}
	for i := range r.Cases {
		c := &r.Cases[i]
		cases = append(cases, c)
		if c.Labels.Get(filecase.LabelOp) == filecase.OpRead && c.Labels.Get(filecase.LabelCodec) == "none" {
			s, _ := c.Stat(results.UnitNsPerOp)
			reads[c.Labels.Get(filecase.LabelFormat)] = s.Median
		}
	}
	tbls, err := projectionTable.Build(cases)
	if err != nil || len(tbls) != 1 {
		t.Fatalf("projection table: %d tables, %v", len(tbls), err)
	}
	full := slices.Index(tbls[0].Header, "full read")
	for _, row := range tbls[0].Rows {
		if f := row[0].Text; row[full].V != reads[f] {
			t.Errorf("%s: full read %v, want codec none's %v", f, row[full].V, reads[f])
		}
	}
	_, md := workloadtest.Markdown(t, r, New())
	i := strings.Index(md, "## Reading one column (column projection)")
	if i < 0 {
		t.Fatalf("report lacks the projection section:\n%s", md)
	}
	sec := md[i:]
	sec = sec[:strings.Index(sec, "\n### Compression by algorithm")]
	for _, s := range []string{
		"Reading one column, home_address, against reading every column of the same file",
		"so its projection is a full read",
		"| format | one column | vs full read | full read | column's chunks | file |",
	} {
		if !strings.Contains(sec, s) {
			t.Errorf("projection section lacks %q:\n%s", s, sec)
		}
	}
	for _, f := range want {
		row := "| " + strings.TrimSuffix(f, "+none") + " | "
		if strings.Count(sec, row) != 1 {
			t.Errorf("projection table: %d rows %q:\n%s", strings.Count(sec, row), row, sec)
		}
	}
}

// TestProjectionVerifies: a read-columns read compares the column with
// the input's: a file of the same rows reads, one of rows shifted by one
// (the first column's values in other rows) or cut short fails.
func TestProjectionVerifies(t *testing.T) {
	in, err := readInput(context.Background(), filepath.Join(testdata, "nested.jsonl"), userdata.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.load(); err != nil {
		t.Fatal(err)
	}
	defer in.release()
	bs := in.loaded()
	n := bs[0].NumRows()
	same, shifted, short := []arrow.RecordBatch{bs[0].NewSlice(0, n-1)}, []arrow.RecordBatch{bs[0].NewSlice(1, n)}, []arrow.RecordBatch{bs[0].NewSlice(0, n-2)}
	for _, b := range slices.Concat(same, shifted, short) {
		defer b.Release()
	}
	files := &filecase.Files{Dir: t.TempDir()}
	for _, e := range dynamic.Constructors() {
		if e.Name != "parquet" && e.Name != "arrow-stream-zstd" {
			continue
		}
		f, err := e.New(in.schema, dynamic.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pr := newPair(in, files, e.Name, f, codec.Default().MustParse("none"))
		if pr.proj == nil {
			t.Fatalf("%s: no projection", e.Name)
		}
		for _, tc := range []struct {
			name    string
			written []arrow.RecordBatch
			ok      bool
		}{{"same rows", same, true}, {"shifted rows", shifted, false}, {"fewer rows", short, false}} {
			if _, err := pr.write(pr.Path, tc.written); err != nil {
				t.Fatal(err)
			}
			_, err := pr.readColumns(pr.Path, same)
			if tc.ok != (err == nil) || err != nil && !errors.Is(err, dynamic.ErrMismatch) {
				t.Errorf("%s, %s: %v", e.Name, tc.name, err)
			}
		}
	}
}

// TestColumnLabel: a column's name becomes a label value a benchmark name
// can hold.
func TestColumnLabel(t *testing.T) {
	for in, want := range map[string]string{"year": "year", "home address": "home_address", "a/b=c": "a_b_c", "": "_", "Zoë": "Zo__", strings.Repeat("x", 50): strings.Repeat("x", 40)} {
		if got := columnLabel(in); got != want {
			t.Errorf("columnLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
