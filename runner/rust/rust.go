// Package rust builds and starts the Rust runner (runners/rust: a Cargo
// project): the serbench binary carries its sources
// (serbench.RustRunnerSources), builds them with `cargo build --release
// --locked` into its cache the first time a run needs them (cargo fetches
// the locked crates once), and starts the binary from there afterwards.
package rust

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	serbench "github.com/serbench/serbench"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/runner/nestedpb"
)

// ErrMissing is wrapped by Build's error when cargo or rustc is not
// installed, or rustc is older than MinRustc: the Rust subjects are then
// skipped with one line.
var ErrMissing = errors.New("the Rust subjects need cargo and rustc 1.89 or newer on the PATH (install Rust with rustup; Debian's cargo package may be older)")

// MinRustc is the oldest rustc that builds the runner: the highest
// rust-version among its locked crates (uuid 1.29.3's, through
// apache-avro), as runners/rust/Cargo.toml's rust-version says.
var MinRustc = [2]int{1, 89}

// binName is the runner's binary as cargo leaves it.
const binName = "serbench-runner"

// Source is the Rust runner as a run's runner source.
func Source() runner.Source {
	return runner.Source{Name: "rust", Language: "rust", Make: Build, Find: Find}
}

// Build returns the Rust runner, compiling it first when the cache holds
// no binary of these sources. A build says how far it is on log every
// few seconds; cargo's own output goes to build.log in the runner's cache
// directory. cacheDir is serbench's cache directory.
func Build(ctx context.Context, cacheDir string, log io.Writer) (*runner.Runner, error) {
	r, dir, bin, err := locate(cacheDir)
	if err != nil {
		return nil, err
	}
	withDescriptors := func() (*runner.Runner, error) { return withDescriptors(r, dir) }
	if _, err := os.Stat(bin); err == nil {
		return withDescriptors()
	}
	cargo, _, err := toolchain(ctx)
	if err != nil {
		return nil, err
	}
	// One build at a time: a second run waits for the first one's binary.
	done := func() bool { _, err := os.Stat(bin); return err == nil }
	err = runner.Cached(dir, serbench.RustRunnerSources, done, func(src string) error {
		target := filepath.Join(dir, "target")
		fmt.Fprintf(log, "serbench: building the Rust runner (first use; cargo fetches the locked crates once, a few minutes on 2 cores) in %s\n", dir)
		start := time.Now()
		cmd := exec.CommandContext(ctx, cargo, "build", "--release", "--locked", "--bin", binName, "--color", "never")
		cmd.Dir = filepath.Join(src, "runners", "rust")
		cmd.Env = append(os.Environ(), "CARGO_TARGET_DIR="+target, "CARGO_TERM_PROGRESS_WHEN=never")
		logFile := filepath.Join(dir, "build.log")
		if tail, err := run(cmd, log, logFile, lockedPackages(filepath.Join(cmd.Dir, "Cargo.lock"))); err != nil {
			what := "building the Rust runner (cargo build --release --locked in " + cmd.Dir + ")"
			return fmt.Errorf("%w (its whole output in %s)", runner.BuildFailure(what, err, []byte(tail), ""), logFile)
		}
		if err := os.Rename(filepath.Join(target, "release", binName), bin); err != nil {
			return fmt.Errorf("rust runner cache: %w", err)
		}
		// The build's intermediate files are of no use to later builds (a
		// changed source is a new directory): only the binary is kept.
		_ = os.RemoveAll(target)
		_ = os.RemoveAll(src)
		fmt.Fprintf(log, "serbench: Rust runner built in %s\n", time.Since(start).Round(time.Second))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return withDescriptors()
}

// Find returns the Rust runner when the cache holds its binary for these
// sources; the error wraps runner.ErrNotBuilt when it does not.
func Find(ctx context.Context, cacheDir string) (*runner.Runner, error) {
	r, dir, bin, err := locate(cacheDir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(bin); err != nil {
		_, version, err := toolchain(ctx)
		if err != nil {
			return nil, err
		}
		return nil, &runner.NotBuiltError{Runner: "rust", Toolchain: version}
	}
	return withDescriptors(r, dir)
}

// toolchain finds cargo and a rustc of MinRustc or newer: cargo's path
// and rustc's version line, or an error wrapping ErrMissing.
func toolchain(ctx context.Context) (cargo, version string, err error) {
	cargo, err = exec.LookPath("cargo")
	if err != nil {
		return "", "", fmt.Errorf("%w: cargo not found", ErrMissing)
	}
	rustc, err := exec.LookPath("rustc")
	if err != nil {
		return "", "", fmt.Errorf("%w: rustc not found", ErrMissing)
	}
	out, err := exec.CommandContext(ctx, rustc, "--version").Output()
	if err != nil {
		return "", "", fmt.Errorf("%w: %s --version: %v", ErrMissing, rustc, err)
	}
	if v, ok := parseVersion(string(out)); !ok || v[0] < MinRustc[0] || (v[0] == MinRustc[0] && v[1] < MinRustc[1]) {
		return "", "", fmt.Errorf("%w: %s is %s", ErrMissing, rustc, strings.TrimSpace(string(out)))
	}
	return cargo, strings.TrimSpace(string(out)), nil
}

// locate is the runner of these sources, its cache directory and its
// binary.
func locate(cacheDir string) (r *runner.Runner, dir, bin string, err error) {
	hash, err := runner.Hash(serbench.RustRunnerSources)
	if err != nil {
		return nil, "", "", err
	}
	dir = filepath.Join(cacheDir, "runners", "rust-"+hash[:12])
	bin = filepath.Join(dir, binName)
	return &runner.Runner{Name: "rust", Command: []string{bin}}, dir, bin, nil
}

// withDescriptors is r with the prost subject's message types (package
// nestedpb) written beside its binary in dir.
func withDescriptors(r *runner.Runner, dir string) (*runner.Runner, error) {
	_, env, err := nestedpb.Write(dir)
	if err != nil {
		return nil, fmt.Errorf("rust runner: %w", err)
	}
	r.Env = append(r.Env, env)
	return r, nil
}

// progressEvery is how often a build says how far it is: cargo's own
// lines go to the build log, not the terminal.
const progressEvery = 15 * time.Second

// run runs cmd, writing everything cargo writes to logFile and, to log, a
// progress line when the first crate compiles and then at most every
// progressEvery ("compiling 87 of at most 240 crates: serde"); total is the
// lock file's package count. It returns the output's last lines.
func run(cmd *exec.Cmd, log io.Writer, logFile string, total int) (string, error) {
	lf, err := os.Create(logFile)
	if err != nil {
		return "", fmt.Errorf("build log: %w", err)
	}
	defer lf.Close()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var (
		mu    sync.Mutex
		lines []string
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		compiled := 0
		var last time.Time
		for sc.Scan() {
			l := sc.Text()
			fmt.Fprintln(lf, l)
			mu.Lock()
			lines = append(lines, l)
			if len(lines) > 40 {
				lines = lines[len(lines)-40:]
			}
			mu.Unlock()
			crate, ok := strings.CutPrefix(strings.TrimSpace(l), "Compiling ")
			if !ok {
				continue
			}
			compiled++
			if time.Since(last) >= progressEvery {
				last = time.Now()
				name, _, _ := strings.Cut(crate, " ")
				fmt.Fprintf(log, "serbench: rust runner: compiling %d of at most %d crates: %s\n", compiled, total, name)
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err = cmd.Start()
	if err == nil {
		err = cmd.Wait()
	}
	pw.Close()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return strings.Join(lines, "\n"), err
}

// lockedPackages counts the packages of a Cargo.lock (0 when unreadable):
// an upper bound of the crates a build compiles.
func lockedPackages(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "[[package]]")
}

var versionRE = regexp.MustCompile(`rustc (\d+)\.(\d+)`)

// parseVersion reads the major and minor version of `rustc --version`.
func parseVersion(s string) ([2]int, bool) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return [2]int{}, false
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	return [2]int{a, b}, true
}
