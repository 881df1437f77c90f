package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
)

func testRun() *Run {
	c := Case{
		Workload: "features", Name: "Features",
		Labels:     Labels{{"subject", "psdb"}, {"type", "int32"}, {"n", "100"}, {"op", "encode"}},
		Status:     StatusOK,
		BytesPerOp: 400,
		Metrics:    map[string]float64{"serialized-B": 409},
		Samples: []Sample{
			{Iters: 1000, NsPerOp: 100, BytesPerOp: 0, AllocsPerOp: 0},
			{Iters: 1000, NsPerOp: 102, BytesPerOp: 0, AllocsPerOp: 0},
			{Iters: 1000, NsPerOp: 101, BytesPerOp: 0, AllocsPerOp: 0},
			{Iters: 1000, NsPerOp: 99, BytesPerOp: 0, AllocsPerOp: 0},
			{Iters: 1000, NsPerOp: 100, BytesPerOp: 0, AllocsPerOp: 0, Metrics: map[string]float64{"peak-heap-B": 1}},
		},
	}
	c.Summarize()
	failed := Case{Workload: "features", Name: "Features", Labels: Labels{{"subject", "broken"}}, Status: StatusFailed, Error: "verify: value 3 differs"}
	return &Run{
		Env: Env{CPU: "Test CPU @ 1GHz", Cores: 2, GOMAXPROCS: 2, GOOS: "linux", GOARCH: "amd64", GoVersion: "go1.26",
			Version: "0.1.0", Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Scale: "quick", Count: 5,
			Libraries: map[string]string{"google.golang.org/protobuf": "v1.36.8"}},
		Cases: []Case{c, failed},
	}
}

func TestJSONLRoundTrip(t *testing.T) {
	run := testRun()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteEnv(run.Env); err != nil {
		t.Fatal(err)
	}
	for _, c := range run.Cases {
		if err := w.WriteCase(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 3 {
		t.Fatalf("%d lines, want 3", n)
	}
	got, err := Read(&buf, "mem")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cases) != 2 || got.Env.CPU != run.Env.CPU || !got.Env.Start.Equal(run.Env.Start) {
		t.Fatalf("read back %+v", got)
	}
	a, b := got.Cases[0], run.Cases[0]
	if a.FullName() != b.FullName() || a.Summary[UnitNsPerOp] != b.Summary[UnitNsPerOp] || a.Metrics["serialized-B"] != 409 {
		t.Errorf("case changed in the round trip:\n got %+v\nwant %+v", a, b)
	}
	if got.Cases[1].OK() || got.Cases[1].Error == "" {
		t.Errorf("failed case lost its status: %+v", got.Cases[1])
	}
}

func TestReadErrorsNameFileAndLine(t *testing.T) {
	env := `{"kind":"env","cpu":"x","start":"2026-01-02T03:04:05Z"}`
	tests := []struct {
		name, input, want string
	}{
		{"not json", "hello\n", "bad.jsonl:1: not a serbench results file"},
		{"foreign json", `{"Time":"2024","Action":"run"}` + "\n", "bad.jsonl:1: not a serbench results file: unknown kind"},
		{"broken line in the middle", env + "\n" + `{"kind":"case","workload":"f` + "\n" + env + "\n", "bad.jsonl:2:"},
		{"case before env", `{"kind":"case","workload":"f","name":"F","status":"failed"}` + "\n", "bad.jsonl:1: not a serbench results file: a case line before"},
		{"newer schema", `{"kind":"env","schema":99}` + "\n", "results schema 99 is newer"},
		{"bad role", env + "\n" + `{"kind":"descriptor","workload":"f","key":"subject","name":"x","role":"star"}` + "\n", `unknown role "star"`},
		{"bad status", env + "\n" + `{"kind":"case","workload":"f","name":"F","status":"great"}` + "\n", `bad.jsonl:2: case F: unknown status "great"`},
		{"ok without samples", env + "\n" + `{"kind":"case","workload":"f","name":"F","status":"ok"}` + "\n", "bad.jsonl:2: case F: status ok but no samples"},
		{"empty", "", "bad.jsonl: not a serbench results file: no environment line"},
		{"two envs", env + "\n" + env + "\n", "bad.jsonl:2: second environment line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.input), "bad.jsonl")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestReadCutLastLine: a run killed while writing its last line keeps every
// complete line and warns about the cut one.
func TestReadCutLastLine(t *testing.T) {
	env := `{"kind":"env","cpu":"x","start":"2026-01-02T03:04:05Z"}`
	ok := `{"kind":"case","workload":"f","name":"F","status":"failed","error":"x"}`
	run, err := Read(strings.NewReader(env+"\n"+ok+"\n"+`{"kind":"case","workload":"f`), "cut.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Cases) != 1 || len(run.Warnings) != 1 || !strings.Contains(run.Warnings[0], "cut.jsonl:3: last line cut short") {
		t.Fatalf("cases %d, warnings %q", len(run.Cases), run.Warnings)
	}
	if !run.Interrupted() || run.Env.Schema != 1 {
		t.Errorf("a file without end line must read as interrupted (got %v), schema 1 (got %d)", run.Interrupted(), run.Env.Schema)
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "nope.jsonl"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want not-exist", err)
	}
}

func TestBenchfmtExportParsesBack(t *testing.T) {
	run := testRun()
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\nBenchmarkFeatures/subject=psdb/type=int32/n=100/op=encode-2 ") {
		t.Fatalf("bench.txt lines must read as go test writes them:\n%s", buf.String())
	}
	r := benchfmt.NewReader(&buf, "bench.txt")
	n := 0
	for r.Scan() {
		rec, ok := r.Result().(*benchfmt.Result)
		if !ok {
			if se, isErr := r.Result().(*benchfmt.SyntaxError); isErr {
				t.Fatalf("syntax error: %v", se)
			}
			continue
		}
		n++
		base, parts := rec.Name.Parts()
		if string(base) != "Features" {
			t.Errorf("base name %q", base)
		}
		joined := strings.Join(func() []string {
			var s []string
			for _, p := range parts {
				s = append(s, string(p))
			}
			return s
		}(), "")
		if joined != "/subject=psdb/type=int32/n=100/op=encode-2" {
			t.Errorf("name parts %q", joined)
		}
		if v, ok := rec.Value("sec/op"); !ok || v < 99e-9 || v > 102e-9 {
			t.Errorf("sec/op = %v, %v", v, ok)
		}
		if v, ok := rec.Value("serialized-B"); !ok || v != 409 {
			t.Errorf("serialized-B = %v, %v", v, ok)
		}
		if v, ok := rec.Value("B/s"); !ok || v <= 0 {
			t.Errorf("B/s = %v, %v", v, ok)
		}
		if rec.GetConfig("cpu") != "Test CPU @ 1GHz" || rec.GetConfig("lib-google-golang-org-protobuf") != "v1.36.8" {
			t.Errorf("config not carried: %+v", rec.Config)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Errorf("%d results, want one per sample (5); failed cases are not exported", n)
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name     string
		vals     []float64
		median   float64
		lo, hi   float64
		conf     float64
		relWidth float64
	}{
		{"five samples fall back to [min,max]", []float64{10, 12, 11, 9, 10}, 10, 9, 12, 0.9375, 0.2},
		{"one sample", []float64{7}, 7, 7, 7, 0, 0},
		{"constant", []float64{3, 3, 3, 3, 3, 3}, 3, 3, 3, 0.96875, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Summarize(tt.vals)
			if s.Median != tt.median || s.Lo != tt.lo || s.Hi != tt.hi {
				t.Errorf("got median %v [%v, %v], want %v [%v, %v]", s.Median, s.Lo, s.Hi, tt.median, tt.lo, tt.hi)
			}
			if math.Abs(s.Confidence-tt.conf) > 1e-6 {
				t.Errorf("confidence %v, want %v", s.Confidence, tt.conf)
			}
			if math.Abs(s.RelWidth()-tt.relWidth) > 1e-9 {
				t.Errorf("relative width %v, want %v", s.RelWidth(), tt.relWidth)
			}
		})
	}
}

func TestNoisyFlag(t *testing.T) {
	tests := []struct {
		name  string
		ns    []float64
		noisy bool
		// limit, when set, is each sample's ratio to the limit row of its
		// round: the case is then judged by it.
		limit []float64
		role  string
	}{
		{"wide time, tight ratio: the machine drifted, the comparison holds", []float64{100, 130, 100, 80, 120}, false, []float64{2, 2.01, 2, 1.99, 2}, ""},
		{"tight time, wide ratio", []float64{100, 101, 100, 99, 100}, true, []float64{2, 2.5, 2, 1.99, 2}, ""},
		{"a limit row is judged by its time", []float64{100, 130, 100, 80, 120}, true, []float64{1, 1, 1, 1, 1}, RoleLimit},
		{"tight five", []float64{100, 101, 100, 99, 100}, false, nil, ""},
		{"one outlier of five widens [min,max]", []float64{100, 101, 100, 99, 150}, true, nil, ""},
		{"one outlier of twenty stays outside the interval", []float64{100, 101, 100, 99, 100, 100, 101, 100, 99, 100, 100, 101, 100, 99, 100, 100, 101, 100, 99, 150}, false, nil, ""},
		{"two samples that disagree", []float64{100, 120}, true, nil, ""},
		{"one sample has no interval: not noisy", []float64{100}, false, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Case{Role: tt.role}
			for i, v := range tt.ns {
				s := Sample{NsPerOp: v}
				if tt.limit != nil {
					s.VsLimit = tt.limit[i]
				}
				c.Samples = append(c.Samples, s)
			}
			c.Summarize()
			if c.Noisy != tt.noisy {
				t.Errorf("noisy = %v, want %v (judged by %s, interval %+v)", c.Noisy, tt.noisy, c.NoiseUnit(), c.Summary[c.NoiseUnit()])
			}
		})
	}
}

func TestLabels(t *testing.T) {
	ls := Labels{{"a", "1"}, {"b", "2"}}
	if ls.String() != "/a=1/b=2" || ls.Get("b") != "2" || ls.Get("c") != "" || !ls.Has("a") {
		t.Fatalf("labels %v", ls)
	}
	if got := ls.With("a", "9").With("c", "3").String(); got != "/a=9/b=2/c=3" {
		t.Errorf("With: %s", got)
	}
	if ls.String() != "/a=1/b=2" {
		t.Error("With modified the receiver")
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://bob:s3cr%40t@db.example:5432/x?sslmode=disable", "postgres://bob:xxxxx@db.example:5432/x?sslmode=disable"},
		{"--pg-dsn=postgresql://bob:pw@h/db", "--pg-dsn=postgresql://bob:xxxxx@h/db"},
		{"host=h user=bob password=hunter2 dbname=x", "host=h user=bob password=xxxxx dbname=x"},
		{"host=h password='a b\\' c' dbname=x", "host=h password=xxxxx dbname=x"},
		{"postgres://h/db?user=bob&password=pw&sslmode=disable", "postgres://h/db?user=bob&password=xxxxx&sslmode=disable"},
		{"postgres://bob@h/db", "postgres://bob@h/db"},
		{"run features --count 3", "run features --count 3"},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for dsn, want := range map[string]string{
		"postgres://bob:pw@h/db":        "pw",
		"host=h password='x y' user=u":  "x y",
		"postgres://h/db?password=q1&a": "q1",
		"postgres://bob@h/db":           "",
	} {
		if got := DSNPassword(dsn); got != want {
			t.Errorf("DSNPassword(%q) = %q, want %q", dsn, got, want)
		}
	}
}

// TestBenchfmtGolden pins the bench.txt export of a recorded run: config
// lines, names as go test writes them, every sample with its units.
func TestBenchfmtGolden(t *testing.T) {
	run, err := ReadFile(filepath.Join("testdata", "run-a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, run, run); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "bench.golden.txt")
	if *updateGolden {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update)", err)
	}
	if buf.String() != string(want) {
		t.Errorf("%s changed (go test -update if intended); got:\n%s", path, buf.String())
	}
}

var updateGolden = flag.Bool("update", false, "rewrite golden files")

func TestGitHubBenchmarkExport(t *testing.T) {
	run, err := ReadFile(filepath.Join("testdata", "run-a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteGitHubBenchmark(&buf, run); err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		Name, Unit, Range string
		Value             float64
	}
	if err := json.Unmarshal(buf.Bytes(), &entries); err != nil {
		t.Fatal(err)
	}
	byUnit := map[string]int{}
	for _, e := range entries {
		byUnit[e.Unit]++
		if e.Name == "" || e.Value <= 0 {
			t.Errorf("entry %+v", e)
		}
	}
	// 14 cases: 14 ns/op entries, and an x-limit entry for the 12 that are not the limit row.
	if byUnit[UnitNsPerOp] != 14 || byUnit[UnitVsLimit] != 12 {
		t.Errorf("entries per unit %v", byUnit)
	}
	if !strings.HasPrefix(entries[0].Name, "features/Features/subject=") || !strings.HasPrefix(entries[0].Range, "± ") {
		t.Errorf("first entry %+v", entries[0])
	}
}
