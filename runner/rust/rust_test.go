package rust

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
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

// TestStatedVersionsAgree: the oldest rustc serbench states is the same
// wherever it is stated — Cargo.toml's rust-version, MinRustc, ErrMissing's
// line and the user-facing documents.
func TestStatedVersionsAgree(t *testing.T) {
	want := fmt.Sprintf("%d.%d", MinRustc[0], MinRustc[1])
	root := filepath.Join("..", "..")
	manifest, err := os.ReadFile(filepath.Join(root, "runners", "rust", "Cargo.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^rust-version = "([0-9.]+)"`).FindSubmatch(manifest)
	if m == nil || string(m[1]) != want {
		t.Errorf("Cargo.toml's rust-version %q, MinRustc %s", m, want)
	}
	if !strings.Contains(ErrMissing.Error(), "rustc "+want+" ") {
		t.Errorf("ErrMissing %q does not say rustc %s", ErrMissing, want)
	}
	stated := regexp.MustCompile(`rustc\s+(?:older\s+than\s+)?(1\.[0-9]+)(?:\+|\s+or\s+newer|\s+\()`)
	found := 0
	for _, doc := range []string{"README.md", "docs/your-own-subject.md", "runners/rust/README.md"} {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc)))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range stated.FindAllSubmatch(b, -1) {
			found++
			if string(m[1]) != want {
				t.Errorf("%s states %q, MinRustc is %s", doc, m[0], want)
			}
		}
	}
	if found < 3 {
		t.Errorf("found the oldest rustc stated only %d times in the documents: the pattern no longer matches how they state it", found)
	}
}

// TestBuildOutputQuiet: cargo's lines go to the build log, the terminal
// gets one progress line per progressEvery (the first crate at once), and
// a failed build returns the output's last lines.
func TestBuildOutputQuiet(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	logFile := filepath.Join(t.TempDir(), "build.log")
	cmd := exec.Command("sh", "-c", `for i in 1 2 3 4 5; do echo "   Compiling crate$i v1.0.$i"; done; echo "error: linker failed" >&2; exit 3`)
	var term strings.Builder
	tail, err := run(cmd, &term, logFile, 9)
	if err == nil {
		t.Fatal("a failing build returned no error")
	}
	if want := "serbench: rust runner: compiling 1 of at most 9 crates: crate1\n"; term.String() != want {
		t.Errorf("terminal got %q, want only %q", term.String(), want)
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "Compiling"); got != 5 || !strings.Contains(string(b), "linker failed") {
		t.Errorf("build log holds %d Compiling lines (want 5) and the error: %q", got, b)
	}
	if !strings.Contains(tail, "linker failed") {
		t.Errorf("tail %q lacks the error", tail)
	}
}

func TestLockedPackages(t *testing.T) {
	if n := lockedPackages(filepath.Join("..", "..", "runners", "rust", "Cargo.lock")); n < 50 {
		t.Errorf("runners/rust/Cargo.lock: %d packages", n)
	}
	if n := lockedPackages(filepath.Join(t.TempDir(), "none")); n != 0 {
		t.Errorf("a missing lock file: %d packages", n)
	}
}
