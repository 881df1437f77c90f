package rust

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	serbench "github.com/serbench/serbench"
	"github.com/serbench/serbench/runner"
)

// TestSources: the embedded tree holds what `cargo build --locked` needs
// (the manifest, the lock file, the build script, the sources and the
// benches the manifest names) and no build output.
func TestSources(t *testing.T) {
	dir := t.TempDir()
	if err := runner.Extract(serbench.RustRunnerSources, dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"Cargo.toml", "Cargo.lock", "build.rs", "src/main.rs", "src/lib.rs", "src/digest.rs", "benches/criterion_check.rs"} {
		if _, err := os.Stat(filepath.Join(dir, "runners", "rust", f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "runners", "rust", "target")); err == nil {
		t.Error("the embedded sources hold a target directory")
	}
}

// TestMissing: without cargo on the PATH, Build fails with ErrMissing
// (the subjects are skipped with its one line).
func TestMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Build(context.Background(), t.TempDir(), os.Stderr)
	if !errors.Is(err, ErrMissing) {
		t.Fatalf("Build without cargo: %v, want ErrMissing", err)
	}
}

func TestParseVersion(t *testing.T) {
	for s, want := range map[string][2]int{"rustc 1.95.0 (59807616e 2026-04-14)": {1, 95}, "rustc 1.88.0": {1, 88}} {
		if v, ok := parseVersion(s); !ok || v != want {
			t.Errorf("parseVersion(%q) = %v, %v", s, v, ok)
		}
	}
	if _, ok := parseVersion("cargo 1.95.0"); ok {
		t.Error("parsed a line without rustc")
	}
}

// TestBuildAndHello compiles the runner into serbench's cache when it
// holds no build of these sources (cargo fetches the locked crates;
// minutes on 2 cores) and asks it what it measures. It runs when
// SERBENCH_RUST_TEST=1.
func TestBuildAndHello(t *testing.T) {
	if os.Getenv("SERBENCH_RUST_TEST") != "1" {
		t.Skip("set SERBENCH_RUST_TEST=1 to build the Rust runner")
	}
	if _, err := exec.LookPath("cargo"); err != nil {
		t.Skip("cargo not installed")
	}
	// serbench's own cache (or $SERBENCH_CACHE): a build takes minutes on
	// 2 cores, and the runs that follow in CI use the same one.
	cache := os.Getenv("SERBENCH_CACHE")
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(dir, "serbench")
	}
	r, err := Build(context.Background(), cache, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.Hello(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.Language != "rust" || len(h.Subjects) == 0 {
		t.Fatalf("hello %+v", h)
	}
	t.Logf("%s %s: %d subjects", h.Runtime, h.RuntimeVersion, len(h.Subjects))
}
