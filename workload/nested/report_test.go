package nested

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/table"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/workloadtest"
)

const smallRun = "small.jsonl"

// TestRecordSmallRun re-records the results file of the golden test when
// run with -record: every dataset at a tiny size, a few subjects of each
// kind, the floors and the Parquet size table.
func TestRecordSmallRun(t *testing.T) {
	cfg := workload.Config{TempDir: t.TempDir(), Subjects: []string{SubjectParquetArrow, SubjectParquetArrowPar, SubjectParquetGo,
		SubjectArrowIPC, SubjectArrowIPCPar, "json", "json-par", "json" + StructParSuffix, "protobuf-par", "msgpack", SubjectAvroReaderPar, SubjectReadBytes, SubjectDecompress}}
	p, err := newPlan(context.Background(), sizes{TPCH: 2000, Media: 2000, UserEvents: 100, Singles: 4, PerK: 1}, cfg, datasetNames(), builtinRows())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	workloadtest.Record{Scale: "tiny", Bench: bench.Options{Count: 3, SampleTime: time.Millisecond}}.Write(t, filepath.Join("testdata", smallRun), New(), p)
}

// TestReportGolden renders the sections from the recorded small run and
// compares the Markdown with a golden file.
func TestReportGolden(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", smallRun))
	if err != nil {
		t.Fatal(err)
	}
	run.File = smallRun
	_, md := workloadtest.Markdown(t, run, New())
	workloadtest.Golden(t, filepath.Join("testdata", "small.golden.md"), md)
	for _, s := range []string{"### Findings", "R² with total size", "the seed found", "held", "est. MB at 600,572", "× floor"} {
		if !strings.Contains(md, s) {
			t.Errorf("report lacks %q", s)
		}
	}
	if i, j := strings.Index(md, "### Findings"), strings.Index(md, "### Full schema"); i < 0 || j < i {
		t.Error("the findings do not come first")
	}
	if plots := strings.Count(md, ".svg)"); plots != 9 {
		t.Errorf("%d plots, want 9 (three per dataset)", plots)
	}
	if tab := New().Summary(run, run.Filter(Name, nil)); tab == nil || len(tab.Rows) != 3 {
		t.Errorf("summary: %v", tab)
	}
}

// TestFitLinear checks the least-squares fit on an exact plane and R².
func TestFitLinear(t *testing.T) {
	var x1, x2, y []float64
	for i := range 10 {
		a, b := float64(i), float64((i*7)%5)
		x1, x2 = append(x1, a), append(x2, b)
		y = append(y, 3+2*a+0.5*b)
	}
	f := fitLinear(x1, x2, y)
	if !f.ok || abs(f.a-3) > 1e-9 || abs(f.b-2) > 1e-9 || abs(f.c-0.5) > 1e-9 || abs(f.r2-1) > 1e-9 {
		t.Errorf("fit = %+v, want a=3 b=2 c=0.5 R²=1", f)
	}
	if fitLinear(x1[:3], x2[:3], y[:3]).ok {
		t.Error("a fit of three points should not be ok")
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// TestFindingsMarkFewSamples (issue 26): the findings that rank subjects
// (the fastest and the slowest full read, the floor, the two Parquet
// readers) mark a median from one sample, and none from three.
func TestFindingsMarkFewSamples(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", smallRun))
	if err != nil {
		t.Fatal(err)
	}
	findings := func() string {
		blocks := New().Derive(run, run.Filter(Name, nil))["findings"]
		if len(blocks) != 1 {
			t.Fatalf("findings: %d blocks", len(blocks))
		}
		return blocks[0].(*table.Text).Body
	}
	if md := findings(); strings.Contains(md, "(n=") {
		t.Fatalf("marked with three samples each:\n%s", md)
	}
	workloadtest.OneSample(run)
	md := findings()
	for _, want := range []string{
		"tpch: the fastest full read is arrow-ipc none at 1.78 ms (n=1) (30.2× faster than the slowest, json-par lz4 (n=1));",
		"Decompressing the JSON-gzip file alone takes 4.78 ms (n=1) (2.69× of the fastest read).",
		"parquet-go's GenericReader reads it in 20.3 ms (n=1), pqarrow plus the column-wise assembler in 16.1 ms (n=1) (1.26×).",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("findings lack %q:\n%s", want, md)
		}
	}
}

// TestReportRunnerRows: a runner's subject (language:name, decoding from
// memory: no file) joins the full-read table with its in-round ratio to
// its own copy floor, and the floors table shows the full read's copy, not
// a query's.
func TestReportRunnerRows(t *testing.T) {
	run, err := results.ReadFile(filepath.Join("testdata", smallRun))
	if err != nil {
		t.Fatal(err)
	}
	add := func(subject, role, op, query, tier string, ns, vsLimit float64) {
		c := results.Case{Kind: results.KindCase, Workload: Name, Name: caseName, Role: role, Status: results.StatusOK, Group: "tpch/" + query + "/read/java",
			Labels: results.Labels{{Key: LabelSubject, Value: subject}, {Key: LabelDataset, Value: "tpch"}, {Key: LabelCodec, Value: "none"},
				{Key: LabelOp, Value: op}, {Key: LabelQuery, Value: query}, {Key: LabelTier, Value: tier}, {Key: "language", Value: "java"}},
			Metrics: map[string]float64{MetricRecords: 2000}}
		for i := range 3 {
			c.Samples = append(c.Samples, results.Sample{Iters: 1, NsPerOp: ns, Round: i + 1, VsLimit: vsLimit})
		}
		c.Summarize()
		run.Cases = append(run.Cases, c)
	}
	add("java:parquet-java", results.RoleSubject, OpRead, QueryAll, TierColumns, 9e6, 30)
	add("java:copy", results.RoleLimit, OpReadBytes, QueryAll, "", 3e5, 0)
	add("java:copy", results.RoleLimit, OpReadBytes, "k01-comment", "", 7e4, 0)
	_, md := workloadtest.Markdown(t, run, New())
	for _, want := range []string{"| java:parquet-java | none | – | 9.00 ms ±0% | ", " | – | 30.0× ±0% |", "| tpch | java:copy | none | – | 300 µs ±0% |",
		"the smallest file is Parquet gzip at 0.24 MiB"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(md, "| tpch | java:copy | none | – | 70.0 µs") {
		t.Error("the floors table shows a query's copy")
	}
}
