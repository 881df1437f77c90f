package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailedPlanLeavesNoOutDir: a run that fails before measuring (bad
// input) removes the --out directories it created, and only those.
func TestFailedPlanLeavesNoOutDir(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"a\":1}\n{bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "new", "out")
	code, _, stderr := runCLI(t, "run", "data", "--input", bad, "--out", out)
	if code != ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("exit %d, stderr %q: want 2 and one line", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("%s left behind (%v)", filepath.Join(dir, "new"), err)
	}
	// An existing empty --out is not the run's to remove.
	existing := filepath.Join(dir, "mine")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCLI(t, "run", "data", "--input", bad, "--out", existing); code != ExitUsage {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(existing); err != nil {
		t.Errorf("the user's directory was removed: %v", err)
	}
}

func TestQueryFlags(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--query", "SELECT 1"},
		{"run", "records", "--query", "SELECT 1"},
		{"run", "pgscan", "--rows", "10"},
		{"run", "pgscan", "--query", "SELECT 1", "--rows", "-1"},
		{"run", "pgscan", "--query", " ; "},
	} {
		if code, _, stderr := runCLI(t, args...); code != ExitUsage {
			t.Errorf("%q: exit %d (%s), want 2", args, code, stderr)
		}
	}
}
