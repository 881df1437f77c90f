package data

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/hamba/avro/v2/ocf"
	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
	"github.com/serbench/serbench/workload/workloadtest"
)

// inputSetting returns setting k of plan p's input descriptor.
func inputSetting(p *workload.Plan, k string) string {
	for _, d := range p.Descriptors {
		if d.Key == KeyInput {
			return d.Settings[k]
		}
	}
	return ""
}

// TestInnerCompression (issue 26): a Parquet input with snappy pages or an
// Avro file with deflate blocks is not described as "none" compression:
// the codec inside the file is read from its footer or header, and the
// report's input table says where it is.
func TestInnerCompression(t *testing.T) {
	dir := t.TempDir()
	sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sch)
	for i := range 100 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(strings.Repeat("x", i%7))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	pq := filepath.Join(dir, "snappy.parquet")
	f, err := os.Create(pq)
	if err != nil {
		t.Fatal(err)
	}
	tbl := array.NewTableFromRecords(sch, []arrow.RecordBatch{rec})
	defer tbl.Release()
	if err := pqarrow.WriteTable(tbl, f, 1000, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy)), pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	f.Close()
	av := filepath.Join(dir, "deflate.avro")
	f, err = os.Create(av)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := ocf.NewEncoder(`{"type":"record","name":"r","fields":[{"name":"id","type":"long"}]}`, f, ocf.WithCodec(ocf.Deflate))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := enc.Encode(map[string]any{"id": int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct{ path, inner, row string }{
		{pq, "snappy inside the file (Parquet pages)", "parquet / snappy inside the file (Parquet pages)"},
		{av, "deflate inside the file (Avro blocks)", "avro / deflate inside the file (Avro blocks)"},
		{filepath.Join(testdata, "nested.parquet"), "none (Parquet pages uncompressed)", "parquet / none (Parquet pages uncompressed)"},
		{filepath.Join(testdata, "nested.avro"), "none (Avro blocks uncompressed)", ""},
		{filepath.Join(testdata, "nested.arrow"), "inside the file, if any (Arrow IPC buffers)", ""},
		{filepath.Join(testdata, "nested.jsonl.zst"), "", "jsonl / zstd"},
	} {
		p := plan(t, Settings{Input: tc.path, Formats: []string{"msgpack"}, Codecs: []string{"none"}}, workload.Config{})
		if got := inputSetting(p, SettingInnerCompression); got != tc.inner {
			t.Errorf("%s: inner compression %q, want %q", filepath.Base(tc.path), got, tc.inner)
		}
		if tc.row == "" {
			continue
		}
		r := &results.Run{}
		for _, d := range p.Descriptors {
			d.Workload = Name
			r.Descriptors = append(r.Descriptors, d)
		}
		row := ""
		for _, cells := range inputFacts.Build(r, Name).(*table.Table).Rows {
			if cells[0].String() == "kind / compression" {
				row = cells[1].String()
			}
		}
		if row != tc.row {
			t.Errorf("%s: the input table's kind / compression %q, want %q", filepath.Base(tc.path), row, tc.row)
		}
	}
}

// TestShortError (issue 26): an error text the workload prints or records
// is one line of at most MaxErrorText bytes with its cause first, and
// still wraps what it shortens.
func TestShortError(t *testing.T) {
	schema := strings.Repeat(`{"type":"record","name":"n","fields":[`, 15000) // 575 KB
	cause := errors.New("nesting too deep")
	long := fmt.Errorf("userdata: x.avro: avro schema %s:\n%w", schema, cause)
	got := shortError(long)
	if s := got.Error(); len(s) > MaxErrorText || strings.Contains(s, "\n") || !strings.HasPrefix(s, "nesting too deep — in: userdata: x.avro: avro schema {") {
		t.Errorf("%d bytes: %q", len(s), s)
	}
	if !errors.Is(got, cause) {
		t.Error("the short error does not wrap the cause")
	}
	// No short cause at the end: the start and the end are kept.
	flat := fmt.Errorf("csv: %w: column v: nested type struct<%s> cannot be held by a flat format", dynamic.ErrCannotHold, strings.Repeat("a: struct<", 5000))
	s := shortError(flat).Error()
	if len(s) > MaxErrorText || !strings.HasPrefix(s, "csv: "+CannotHold) || !strings.HasSuffix(s, "cannot be held by a flat format") || !strings.Contains(s, " … ") {
		t.Errorf("%d bytes: %q", len(s), s)
	}
	if !errors.Is(shortError(flat), dynamic.ErrCannotHold) {
		t.Error("a shortened can't-hold error is no longer one")
	}
	if short := errors.New("short"); shortError(short) != short || shortError(nil) != nil {
		t.Error("a short error is not returned as it is")
	}
}

// TestLongErrorsCapped (issue 26): a CSV value that does not fit the
// schema inferred from the first row is quoted by the reader; the plan's
// refusal, printed on one line, stays short whatever the value's size.
func TestLongErrorsCapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wide.csv")
	if err := os.WriteFile(path, []byte("a\n1\n"+strings.Repeat("z", 500_000)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := NewWith(Settings{Input: path, InferRows: 1}, nil).Plan(context.Background(), workload.Config{Scale: workload.Quick, TempDir: t.TempDir()})
	var ue *workload.UsageError
	if !errors.As(err, &ue) || len(err.Error()) > MaxErrorText || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "wide.csv:3") {
		t.Errorf("%d bytes: %.400q", len(err.Error()), err)
	}
}

// TestFindingsMarkFewSamples (issue 26): the findings that rank pairs
// (fastest write and read, best balance) mark a median from one sample.
func TestFindingsMarkFewSamples(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", smallRun))
	if err != nil {
		t.Fatal(err)
	}
	findings := func() string {
		f := findings(run, run.Filter(Name, nil))
		if f == nil {
			t.Fatal("no findings")
		}
		return f.Body
	}
	if md := findings(); strings.Contains(md, "n=") {
		t.Fatalf("marked with three samples each:\n%s", md)
	}
	workloadtest.OneSample(run)
	md := findings()
	for _, want := range []string{"Fastest write: **protobuf-wire + none** (199 µs, n=1); fastest read, every row verified: **msgpack + none** (149 µs, n=1).",
		"(210 B, write + read 552 µs, n=1)."} {
		if !strings.Contains(md, want) {
			t.Errorf("findings lack %q:\n%s", want, md)
		}
	}
}

// TestDryRunPlan (issue 26): a dry run refuses what the run refuses (a
// malformed line), plans the same cases, and its estimates grow with the
// input and follow the scale's row limit.
func TestDryRunPlan(t *testing.T) {
	if _, err := NewWith(Settings{Input: filepath.Join(testdata, "malformed.jsonl")}, nil).Plan(context.Background(), workload.Config{Scale: workload.Quick, DryRun: true}); err == nil ||
		!strings.Contains(err.Error(), "malformed.jsonl:2") {
		t.Errorf("dry run of a malformed file: %v", err)
	}
	names := func(p *workload.Plan) string {
		var out []string
		for _, c := range p.Cases {
			out = append(out, c.FullName())
		}
		return strings.Join(out, "\n")
	}
	in := Settings{Input: filepath.Join(testdata, "nested.jsonl")}
	cfg := workload.Config{Scale: workload.Quick}
	real := plan(t, in, cfg)
	cfg.DryRun = true
	dry := plan(t, in, cfg)
	if names(real) != names(dry) {
		t.Errorf("dry run cases\n%s\nrun cases\n%s", names(dry), names(real))
	}
	estimate := func(path string, scale workload.Scale) time.Duration {
		p := plan(t, Settings{Input: path, Formats: []string{"msgpack"}, Codecs: []string{"none", "xz"}}, workload.Config{Scale: scale, DryRun: true})
		var d time.Duration
		for i := range p.Cases {
			d += bench.Estimate(&p.Cases[i], bench.Options{Count: 5, SampleTime: time.Millisecond})
		}
		return d
	}
	small, big := wordsJSONL(t, 2_000), wordsJSONL(t, 40_000)
	if s, b := estimate(small, workload.Full), estimate(big, workload.Full); b < 5*s {
		t.Errorf("estimates: %v for 2,000 rows, %v for 40,000", s, b)
	}
	if q, f := estimate(big, workload.Quick), estimate(big, workload.Full); q*2 > f {
		t.Errorf("estimates of 40,000 rows: %v at quick (10,000 rows), %v at full", q, f)
	}
	for _, c := range real.Cases {
		if c.Labels.Get(filecase.LabelOp) == filecase.OpWrite && c.Labels.Get(filecase.LabelFormat) != "csv" && c.OpTime <= 0 {
			t.Errorf("%s: no expected op time", c.FullName())
		}
	}
}
