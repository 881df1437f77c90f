package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// build compiles the main package in dir (a directory of this module, or
// a module of its own) into a binary under t's temporary directory.
func build(t *testing.T, dir, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build in %s: %v\n%s", dir, err, out)
	}
	return bin
}

// serbench runs bin with args in dir and returns its output; it fails t
// unless the exit status is want.
func serbench(t *testing.T, dir string, want int, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SERBENCH_CACHE="+t.TempDir())
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != want {
		t.Fatalf("%s %s: exit %d, want %d\n%s", filepath.Base(bin), strings.Join(args, " "), code, want, out)
	}
	return string(out)
}

// measured checks that the run in out measured the subject's encode and
// decode (bench.txt, the benchstat lines of measured cases) and FAILED no
// case.
func measured(t *testing.T, out, subject string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"op=encode", "op=decode"} {
		if !strings.Contains(string(b), "subject="+subject+"/codec=none/"+op) {
			t.Errorf("bench.txt has no %s %s case:\n%s", subject, op, b)
		}
	}
	r, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(r), `"status":"failed"`) {
		t.Errorf("a case FAILED:\n%s", r)
	}
}

// TestGoSubjectModule builds examples/go-subject, a module of its own
// with a serializer serbench does not ship, and runs it as its user
// would: runner check conforms, and a records run measures gob:gob.
func TestGoSubjectModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module and measures it")
	}
	bin := build(t, "go-subject", "gobsubject")
	if out := serbench(t, ".", 0, bin, "runner", "check"); !strings.Contains(out, "conforms to protocol") {
		t.Errorf("runner check:\n%s", out)
	}
	out := filepath.Join(t.TempDir(), "run")
	serbench(t, ".", 0, bin, "run", "records", "--scale", "quick", "--runners", "none", "--subject", "gob", "--count", "3", "--target", "0", "--budget", "0", "--out", out, "--progress", "none")
	measured(t, out, "gob:gob")
}

// TestNodeRunner runs the Node.js runner of examples/runner-node, written
// from docs/runner-protocol.md alone, through --runner: runner check
// conforms, and a records run measures node:json.
func TestNodeRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("builds serbench and measures a runner")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	bin := build(t, "../cmd/serbench", "serbench")
	if out := serbench(t, ".", 0, bin, "runner", "check", "node runner-node/runner.mjs"); !strings.Contains(out, "conforms to protocol") {
		t.Errorf("runner check:\n%s", out)
	}
	out := filepath.Join(t.TempDir(), "run")
	serbench(t, ".", 0, bin, "run", "records", "--scale", "quick", "--runners", "none", "--runner", "node=node runner-node/runner.mjs", "--subject", "node", "--count", "3", "--target", "0", "--budget", "0", "--out", out, "--progress", "none")
	measured(t, out, "node:json")
}
