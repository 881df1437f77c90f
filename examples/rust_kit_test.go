package examples

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/runner/rust"
)

// TestRustKitRunner builds examples/runner-rust as its user would (cargo
// build --release of its own package, on the Rust runner kit of
// runners/rust by a path dependency) — an outside runner for serde-pickle,
// a library serbench does not ship, whose code is a kit Subject's encode,
// decode and check and kit::main — and runs it through --runner: runner
// check conforms, and a records run measures rs-pickle:serde-pickle and
// rs-pickle:serde-pickle-tuples without a FAILED case. The build goes to
// the example's own target directory (git-ignored), so a second run reuses
// it.
func TestRustKitRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Rust runner with cargo and measures it")
	}
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		t.Skip("no cargo")
	}
	out, err := exec.Command("rustc", "--version").Output()
	var major, minor int
	if err == nil {
		_, err = fmt.Sscanf(string(out), "rustc %d.%d", &major, &minor)
	}
	if err != nil || major < rust.MinRustc[0] || (major == rust.MinRustc[0] && minor < rust.MinRustc[1]) {
		t.Skipf("no rustc %d.%d or newer: %s %v", rust.MinRustc[0], rust.MinRustc[1], strings.TrimSpace(string(out)), err)
	}
	// The example's own target directory, whatever CARGO_TARGET_DIR the
	// environment has: the command below names the binary there.
	target, err := filepath.Abs(filepath.Join("runner-rust", "target"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cargo, "build", "--release", "--locked", "--color", "never")
	cmd.Dir = "runner-rust"
	cmd.Env = append(os.Environ(), "CARGO_TARGET_DIR="+target, "CARGO_TERM_PROGRESS_WHEN=never")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cargo build --release --locked in runner-rust: %v\n%s", err, out)
	}
	bin := build(t, "../cmd/serbench", "serbench")
	const command = "runner-rust/target/release/rs-pickle-runner"
	if out := serbench(t, ".", 0, bin, "runner", "check", command); !strings.Contains(out, "conforms to protocol") {
		t.Errorf("runner check:\n%s", out)
	}
	res := filepath.Join(t.TempDir(), "run")
	serbench(t, ".", 0, bin, "run", "records", "--scale", "quick", "--runners", "none", "--runner", "rs-pickle="+command, "--subject", "rs-pickle",
		"--count", "3", "--target", "0", "--budget", "0", "--out", res, "--progress", "none")
	measured(t, res, "rs-pickle:serde-pickle")
	measured(t, res, "rs-pickle:serde-pickle-tuples")
}
