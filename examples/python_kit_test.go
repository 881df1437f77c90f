package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPythonKitRunner installs the Python runner kit (runners/python) into
// a fresh virtual environment as its user would, and runs the outside
// runner of examples/runner-python, written with the kit's public API
// alone, through --runner: runner check conforms, and a records run
// measures py-pickle:pickle (and py-pickle:marshal).
func TestPythonKitRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("creates a virtual environment and measures a runner")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	if out, err := exec.Command(py, "-c", "import sys, ensurepip, venv; assert sys.version_info >= (3, 10)").CombinedOutput(); err != nil {
		t.Skipf("no python3 3.10 or newer with venv: %v\n%s", err, out)
	}
	venv := filepath.Join(t.TempDir(), "venv")
	pip := filepath.Join(venv, "bin", "pip")
	// pip builds a project directory in place (build/, *.egg-info), and
	// reuses what an earlier build left there, deleted modules included:
	// the kit is installed from a copy of what its wheel is made of.
	src, kit := filepath.Join("..", "runners", "python"), filepath.Join(t.TempDir(), "python")
	if err := os.CopyFS(filepath.Join(kit, "serbench_runner"), os.DirFS(filepath.Join(src, "serbench_runner"))); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"pyproject.toml", "README.md"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err == nil {
			err = os.WriteFile(filepath.Join(kit, f), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range [][]string{
		{py, "-m", "venv", venv},
		{pip, "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--only-binary", ":all:", "-r", filepath.Join(src, "requirements.lock")},
		{pip, "install", "--quiet", "--disable-pip-version-check", "--no-deps", kit},
	} {
		if out, err := exec.Command(step[0], step[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(step, " "), err, out)
		}
	}
	command := filepath.Join(venv, "bin", "python") + " runner-python/runner.py"
	bin := build(t, "../cmd/serbench", "serbench")
	if out := serbench(t, ".", 0, bin, "runner", "check", command); !strings.Contains(out, "conforms to protocol") {
		t.Errorf("runner check:\n%s", out)
	}
	out := filepath.Join(t.TempDir(), "run")
	serbench(t, ".", 0, bin, "run", "records", "--scale", "quick", "--runners", "none", "--runner", "py-pickle="+command, "--subject", "py-pickle",
		"--count", "3", "--target", "0", "--budget", "0", "--out", out, "--progress", "none")
	measured(t, out, "py-pickle:pickle")
	measured(t, out, "py-pickle:marshal")
}
