package python

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	serbench "github.com/serbench/serbench"
	"github.com/serbench/serbench/runner"
)

// TestSources: the embedded tree holds the package (its __init__ and
// __main__ included, which a plain go:embed of a directory leaves out)
// and the lock file.
func TestSources(t *testing.T) {
	dir := t.TempDir()
	if err := runner.Extract(serbench.PythonRunnerSources, dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"requirements.lock", "pyproject.toml", "serbench_runner/__init__.py", "serbench_runner/__main__.py", "serbench_runner/digest.py"} {
		if _, err := os.Stat(filepath.Join(dir, "runners", "python", f)); err != nil {
			t.Error(err)
		}
	}
}

// TestBuildAndHello creates the runner's environment in a fresh cache
// (pip fetches the wheels) and asks it what it measures. It runs when
// SERBENCH_PYTHON_TEST=1 (.ci/run sets it).
func TestBuildAndHello(t *testing.T) {
	if os.Getenv("SERBENCH_PYTHON_TEST") != "1" {
		t.Skip("set SERBENCH_PYTHON_TEST=1 to prepare the Python runner")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	r, err := Build(context.Background(), t.TempDir(), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.Hello(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.Language != "python" || len(h.Subjects) == 0 {
		t.Fatalf("hello %+v", h)
	}
	// the protobuf subject found the descriptor set Build wrote
	found := false
	for _, s := range h.Subjects {
		if s.Name == "protobuf" {
			found = true
			if s.Format != "protobuf" || s.Labels["backend"] != "upb" {
				t.Errorf("protobuf subject %+v", s)
			}
		}
	}
	if !found {
		t.Error("hello has no protobuf subject")
	}
	t.Logf("%s %s: %d subjects", h.Runtime, h.RuntimeVersion, len(h.Subjects))
}
