package interop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/runner/jvm"
	"github.com/serbench/serbench/runner/python"
	"github.com/serbench/serbench/runner/rust"
	"github.com/serbench/serbench/workload/userdata"
)

// mustInteroperate are the formats whose files Go, Java and Python must
// all read from each other on the test dataset.
var mustInteroperate = []string{"jsonl", "avro-ocf", "parquet", "arrow-ipc"}

// readyRunners builds (into serbench's cache, once) and starts the runners
// the environment asks for: SERBENCH_JVM_TEST=1, SERBENCH_PYTHON_TEST=1,
// SERBENCH_RUST_TEST=1.
func readyRunners(t *testing.T) []runner.Ready {
	t.Helper()
	var srcs []runner.Source
	if os.Getenv("SERBENCH_JVM_TEST") == "1" {
		for _, tool := range []string{"java", "mvn"} {
			if _, err := exec.LookPath(tool); err != nil {
				t.Skipf("%s not installed", tool)
			}
		}
		srcs = append(srcs, jvm.Source())
	}
	if os.Getenv("SERBENCH_PYTHON_TEST") == "1" {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("python3 not installed")
		}
		srcs = append(srcs, python.Source())
	}
	if os.Getenv("SERBENCH_RUST_TEST") == "1" {
		if _, err := exec.LookPath("cargo"); err != nil {
			t.Skip("cargo not installed")
		}
		srcs = append(srcs, rust.Source())
	}
	if len(srcs) == 0 {
		t.Skip("set SERBENCH_JVM_TEST=1, SERBENCH_PYTHON_TEST=1 and/or SERBENCH_RUST_TEST=1 to build the runners")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	a := &runner.Available{Sources: srcs, CacheDir: filepath.Join(cache, "serbench"), Log: &log}
	t0 := time.Now()
	ready := a.Get(context.Background())
	t.Logf("runners ready in %s: %s", time.Since(t0).Round(time.Millisecond), log.String())
	if len(ready) != len(srcs) {
		t.Fatalf("%d of %d runners ready: %s", len(ready), len(srcs), log.String())
	}
	return ready
}

// TestMatrix builds the matrix of the small nested dataset between Go and
// the runners: every cell is decided, and the formats that must
// interoperate do, in every direction.
func TestMatrix(t *testing.T) {
	ready := readyRunners(t)
	ds := testDataset(t, 60)
	m, err := Run(context.Background(), ds, ready, workDir(t, "small"), Options{Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + m.Table())
	if m.Invocations != 2*len(ready) {
		t.Errorf("%d runner invocations, want %d (an export and an import per runner)", m.Invocations, 2*len(ready))
	}
	langs := map[string]bool{}
	for _, c := range m.Cells {
		langs[c.WriterLanguage] = true
		if c.Status != OK && (c.Status != Failed || c.Reason == "") {
			t.Errorf("undecided cell %+v", c)
		}
		if !contains(mustInteroperate, c.Format) {
			continue
		}
		if c.Status != OK {
			t.Errorf("%s: %s → %s: %s", c.Format, c.Writer, c.Reader, c.Reason)
		}
	}
	for _, rd := range ready {
		if !langs[rd.Hello.Language] {
			t.Errorf("no %s writer in the matrix", rd.Hello.Language)
		}
	}
	for _, c := range m.Cases("interop") {
		if c.Status == "" || (!c.OK() && c.Error == "") {
			t.Errorf("case %s: %+v", c.FullName(), c)
		}
	}
}

// TestMatrixUserFile builds the matrix of a user's file of the data
// workload's test data (SERBENCH_INTEROP_FILE names another one), inferred
// as the data workload infers it; every cell must be decided.
func TestMatrixUserFile(t *testing.T) {
	ready := readyRunners(t)
	path := os.Getenv("SERBENCH_INTEROP_FILE")
	if path == "" {
		// a real-shaped file: serbench's own results, nested and irregular
		path = filepath.Join("..", "workload", "data", "testdata", "nested-run.jsonl")
	}
	ds, err := loadUserFile(path)
	if err != nil {
		t.Skipf("%s: %v", path, err)
	}
	m, err := Run(context.Background(), ds, ready, workDir(t, "user"), Options{Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s", path, ds.Schema)
	t.Log("\n" + m.Table())
	for _, c := range m.Cells {
		if c.Status != OK && (c.Status != Failed || c.Reason == "") {
			t.Errorf("undecided cell %+v", c)
		}
	}
}

// workDir is a fresh directory for a matrix's files: under
// $SERBENCH_INTEROP_DIR (kept, to look at the files) when set.
func workDir(t *testing.T, name string) string {
	if d := os.Getenv("SERBENCH_INTEROP_DIR"); d != "" {
		dir := filepath.Join(d, name)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

// loadUserFile reads a user's file as the data workload does.
func loadUserFile(path string) (Dataset, error) {
	d, err := userdata.ReadAll(path, userdata.Options{})
	if err != nil {
		return Dataset{}, err
	}
	return Dataset{Name: "user-" + strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), Schema: d.Schema, Batches: d.Batches}, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
