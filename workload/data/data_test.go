package data

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/serbench/serbench/bench"
	ds "github.com/serbench/serbench/dataset/records"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/workloadtest"
)

// testdata is the userdata package's test files.
const testdata = "../../workload/userdata/testdata"

// runPlan measures every case of p quickly and returns the run.
func runPlan(t *testing.T, w *Workload, p *workload.Plan) *results.Run {
	t.Helper()
	r := &results.Run{Env: results.Env{Kind: results.KindEnv, Schema: results.SchemaVersion, Scale: "quick", Count: 1}}
	for _, d := range p.Descriptors {
		d.Workload, d.Kind = Name, results.KindDescriptor
		r.Descriptors = append(r.Descriptors, d)
	}
	err := bench.RunAll(context.Background(), p.Cases, bench.Options{Count: 1, SampleTime: time.Millisecond}, nil, func(c results.Case) error {
		r.Cases = append(r.Cases, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func plan(t *testing.T, s Settings, cfg workload.Config) *workload.Plan {
	t.Helper()
	cfg.TempDir = t.TempDir()
	if cfg.Scale == "" {
		cfg.Scale = workload.Quick
	}
	p, err := NewWith(s, nil).Plan(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

// TestEveryInputKind plans and runs the input through every format with
// codecs none and zstd, for each input kind userdata reads (nested data and
// NULLs included): every case passes but the documented can't-hold ones.
func TestEveryInputKind(t *testing.T) {
	for _, name := range []string{"nested.jsonl", "nested.jsonl.gz", "nested.jsonl.zst", "nested.parquet", "nested.arrow", "nested.arrows", "nested.avro", "people.csv", "na.csv"} {
		t.Run(name, func(t *testing.T) {
			p := plan(t, Settings{Input: filepath.Join(testdata, name), Codecs: []string{"none", "zstd"}}, workload.Config{})
			r := runPlan(t, New(), p)
			holds := 0
			for i := range r.Cases {
				c := &r.Cases[i]
				switch {
				case c.OK():
				case strings.Contains(c.Error, CannotHold):
					holds++
				default:
					t.Errorf("%s: %s", c.FullName(), c.Error)
				}
			}
			nested := strings.HasPrefix(name, "nested")
			if nested && holds != 1 || !nested && holds != 0 {
				t.Errorf("%d can't-hold cases (nested input: csv only)", holds)
			}
			if len(r.Cases) < 40 {
				t.Errorf("only %d cases", len(r.Cases))
			}
		})
	}
}

// TestReport renders the data sections from a run over nested JSON with
// NULLs: findings first, the schema from the results, the records tables,
// the Pareto plot, the Parquet column breakdown and the codegen note.
func TestReport(t *testing.T) {
	p := plan(t, Settings{Input: filepath.Join(testdata, "nested.jsonl"), Codecs: []string{"none", "zstd"}}, workload.Config{})
	r := runPlan(t, New(), p)
	doc, md := workloadtest.Markdown(t, r, New())
	for _, s := range []string{"### Findings", "Input **nested.jsonl**", "| address.geo.lat | float64 | yes |", "Schema inference notes",
		"protobuf-wire", "schema-driven", "Combined size & performance", "Pareto frontier", "Recommendations by use case",
		"Which columns make the file big", "| address.geo.lat |", "serbench run records data --input FILE",
		"cannot hold: subject=csv/codec=none/op=write", "cannot be held by a flat format"} {
		if !strings.Contains(md, s) {
			t.Errorf("report lacks %q", s)
		}
	}
	if i, j := strings.Index(md, "### Findings"), strings.Index(md, "### Input and schema"); i < 0 || j < i {
		t.Error("Findings is not the first section")
	}
	plots := 0
	for _, w := range doc.Runs[0].Workloads {
		for _, s := range w.Sections {
			for _, b := range s.Blocks {
				if b.BlockKind() == "plot" {
					plots++
				}
			}
		}
	}
	if plots != 1 {
		t.Errorf("%d plots, want 1", plots)
	}
	if New().Summary(r, r.Filter(Name, nil)) == nil {
		t.Error("no summary")
	}
}

// TestNaNCannotHold: a float NaN (from an Arrow input) cannot be held by
// JSON Lines: its case fails with the reason instead of changing the value;
// MessagePack holds it.
func TestNaNCannotHold(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nan.arrow")
	s := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), s)
	b.Field(0).(*array.Float64Builder).AppendValues([]float64{1.5, math.NaN(), 0}, []bool{true, true, false})
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := ipc.NewFileWriter(f, ipc.WithSchema(s))
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(fw.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
	p := plan(t, Settings{Input: path, Codecs: []string{"none"}, Formats: []string{"jsonl", "msgpack"}}, workload.Config{})
	r := runPlan(t, New(), p)
	got := map[string]string{}
	for _, c := range r.Cases {
		if c.Labels.Get("op") == "write" {
			got[c.Labels.Get("subject")] = c.Error
		}
	}
	if !strings.Contains(got["jsonl"], CannotHold) || !strings.Contains(got["jsonl"], "NaN") {
		t.Errorf("jsonl write: %q, want a can't-hold failure naming NaN", got["jsonl"])
	}
	if got["msgpack"] != "" {
		t.Errorf("msgpack write failed: %s", got["msgpack"])
	}
}

// TestBadInput: malformed lines, wrong field counts, truncated files and
// unknown extensions are usage errors (exit 2) naming the file and place,
// raised by Plan before anything is measured; --skip-bad counts bad lines.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"malformed.jsonl", "malformed.jsonl:2"},
		{"badcount.csv", "badcount.csv:3"},
		{"truncated.parquet", "truncated.parquet"},
		{"truncated.arrow", "truncated.arrow"},
		{"truncated.jsonl.gz", "truncated.jsonl.gz"},
		{".", "is a directory"},
		{"../userdata_test.go", "unknown extension"},
		{"missing.jsonl", "no such file"},
	} {
		_, err := NewWith(Settings{Input: filepath.Join(testdata, tc.file)}, nil).Plan(context.Background(), workload.Config{Scale: workload.Quick, TempDir: t.TempDir()})
		var ue *workload.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want a one-line usage error containing %q", tc.file, err, tc.want)
		}
	}
	p := plan(t, Settings{Input: filepath.Join(testdata, "malformed.jsonl"), SkipBad: true, Formats: []string{"jsonl"}, Codecs: []string{"none"}}, workload.Config{})
	var skipped string
	for _, d := range p.Descriptors {
		if d.Key == KeyInput {
			skipped = d.Settings[SettingSkipped]
		}
	}
	if skipped == "" || skipped == "0" {
		t.Errorf("--skip-bad: skipped-lines %q", skipped)
	}
}

// TestNoInput: without --input the plan is unavailable (a plain run skips
// it) and, when named, a usage error naming the flag.
func TestNoInput(t *testing.T) {
	_, err := New().Plan(context.Background(), workload.Config{Scale: workload.Quick})
	var ue *workload.UsageError
	if !workload.IsUnavailable(err) || !errors.As(err, &ue) || !strings.Contains(err.Error(), "--input") {
		t.Fatalf("err = %v", err)
	}
}

// TestSettings checks --sample, --limit, --formats and --codecs.
func TestSettings(t *testing.T) {
	for _, s := range []string{"", "1/10", "0.5", "1"} {
		if _, err := ParseSample(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"0", "1/0", "2", "x", "-0.5"} {
		if _, err := ParseSample(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	for _, cfg := range []Settings{{Formats: []string{"yaml"}}, {Codecs: []string{"nope"}}, {Limit: -1}} {
		if CheckSettings(cfg) == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	p := plan(t, Settings{Input: filepath.Join(testdata, "people.csv"), Limit: 2, Sample: "1/1", Formats: []string{"msgpack", "parquet"}, Codecs: []string{"none", "lz4"}}, workload.Config{})
	subjects := map[string]bool{}
	for _, c := range p.Cases {
		subjects[c.Labels.Get("subject")+"/"+c.Labels.Get("codec")] = true
	}
	want := map[string]bool{"msgpack/none": true, "msgpack/lz4": true, "parquet/none": true}
	if fmt.Sprint(subjects) != fmt.Sprint(want) {
		t.Errorf("pairs %v, want %v", subjects, want)
	}
	for _, d := range p.Descriptors {
		if d.Key == KeyInput && d.Settings[SettingRows] != "2" {
			t.Errorf("--limit 2: rows %s", d.Settings[SettingRows])
		}
	}
}

// TestDryRun validates the input as the run does, then holds no data:
// cases are listed.
func TestDryRun(t *testing.T) {
	p, err := NewWith(Settings{Input: filepath.Join(testdata, "nested.parquet")}, nil).Plan(context.Background(), workload.Config{Scale: workload.Quick, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if len(p.Cases) == 0 {
		t.Fatal("no cases")
	}
}

var (
	genRecords = flag.String("gen-records", "", "write the records workload's records as JSON Lines to this file (-gen-n records) and exit")
	genN       = flag.Int("gen-n", 1_000_000, "records for -gen-records")
)

// TestGenerateRecordsJSONL writes, with -gen-records FILE, a JSON Lines file
// of the records workload's records (dataset/records, default seed): the
// input of the data-vs-records performance comparison.
func TestGenerateRecordsJSONL(t *testing.T) {
	if *genRecords == "" {
		t.Skip("no -gen-records")
	}
	f, err := os.Create(*genRecords)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	for r := range ds.New(ds.DefaultSeed).Records(*genN) {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLazyLoad: the plan validates without keeping rows; the first case
// loads them, and a file changed since planning fails its cases.
func TestLazyLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.jsonl")
	if err := os.WriteFile(path, []byte("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n{\"a\":4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := plan(t, Settings{Input: path, Sample: "1/2", Formats: []string{"msgpack"}, Codecs: []string{"none"}}, workload.Config{})
	for _, d := range p.Descriptors {
		if d.Key == KeyInput && d.Settings[SettingRows] != "2" {
			t.Errorf("--sample 1/2 of 4 rows: %s rows", d.Settings[SettingRows])
		}
	}
	if err := os.WriteFile(path, []byte("{\"a\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runPlan(t, New(), p)
	for _, c := range r.Cases {
		if c.OK() || !strings.Contains(c.Error, "changed since it was validated") {
			t.Errorf("%s: %s %s", c.FullName(), c.Status, c.Error)
		}
	}
}

// TestCodegenWithRecords renders the generated-code section when the
// records workload is in the same results (records' recorded small run plus
// a data run): records' msgpack-msgp vs msgpack gain, and per-record rows
// against records' same-family formats.
func TestCodegenWithRecords(t *testing.T) {
	r, err := results.ReadFile("../records/testdata/small.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	p := plan(t, Settings{Input: filepath.Join(testdata, "people.csv"), Formats: []string{"msgpack", "jsonl", "protobuf-wire"}, Codecs: []string{"none"}}, workload.Config{})
	d := runPlan(t, New(), p)
	r.Descriptors = append(r.Descriptors, d.Descriptors...)
	r.Cases = append(r.Cases, d.Cases...)
	blocks := codegen(r, r.Filter(Name, nil))
	var md strings.Builder
	for _, b := range blocks {
		fmt.Fprintf(&md, "%+v\n", b)
	}
	for _, s := range []string{"generated MessagePack code (msgpack-msgp) against reflection (msgpack)", "msgpack-msgp", "codegen", "reflection"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("codegen section lacks %q:\n%s", s, md.String())
		}
	}
}
