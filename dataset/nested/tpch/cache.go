package tpch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// FullSHA256 is the hex SHA-256 that ends the cache file of the full dataset
// (the checksum Tables.Marshal appends): the dataset's identity. Loading
// checks it, so a dbgen that drew different rows is an error, not a silently
// different benchmark.
const FullSHA256 = "6a5bfafd1360760f8b1ae5af8741a5cad78b9f93d4e4516c5f8fe908455d8288"

// Environment variables that turn a process into the generating child.
const (
	childOutEnv   = "SERBENCH_TPCH_DBGEN_OUT"   // file the child writes
	childLinesEnv = "SERBENCH_TPCH_DBGEN_LINES" // line items it generates
)

// RunChildIfRequested makes the current process the dbgen child when the
// parent asked for one (through environment variables Load sets): it
// generates the tables, writes them to the file the parent named and exits
// the process, with status 1 and a message on stderr on failure. Otherwise it
// returns at once.
//
// The main package of every binary that calls Load — and TestMain of every
// test package that does — must call it before doing anything else, since
// Load re-executes the binary (os.Executable, no arguments) to generate the
// tables outside the calling process.
func RunChildIfRequested() {
	out, ok := os.LookupEnv(childOutEnv)
	if !ok {
		return
	}
	if err := runChild(out, os.Getenv(childLinesEnv)); err != nil {
		fmt.Fprintf(os.Stderr, "tpch child: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// runChild generates lines line items and writes their tables to out.
func runChild(out, lines string) error {
	n, err := strconv.Atoi(lines)
	if err != nil {
		return fmt.Errorf("bad %s %q: %w", childLinesEnv, lines, err)
	}
	t, err := runDbgen(n)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, t.Marshal(), 0o644); err != nil {
		return fmt.Errorf("write tables: %w", err)
	}
	return nil
}

// DefaultCacheDir returns $XDG_CACHE_HOME/serbench when XDG_CACHE_HOME is set,
// else os.UserCacheDir()/serbench.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "serbench"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("tpch: cache directory: %w", err)
	}
	return filepath.Join(d, "serbench"), nil
}

// Options says where Load keeps the tables and how it generates them.
type Options struct {
	// CacheDir holds the tables file; DefaultCacheDir() when empty. It is
	// created when missing.
	CacheDir string
	// Executable is the binary re-executed to generate the tables; the
	// running binary (os.Executable) when empty. It must call
	// RunChildIfRequested first thing.
	Executable string
	// Output receives the child's standard output and error (dbgen's
	// progress lines, failures); discarded when nil.
	Output io.Writer
}

// FileName returns the name of the full dataset's cache file, which carries
// the dataset hash.
func FileName() string {
	return fmt.Sprintf("tpch-sf0.1-%d-%.16s.bin", FullRecords, FullSHA256)
}

// Load returns the tables of the full dataset (FullRecords line items) from
// the cache file FileName() in opts.CacheDir. When the file is missing or
// fails verification (magic, checksum, indexes, length, FullSHA256), Load
// deletes it, generates the tables in a child process (10–25 s and 1.2 GB
// resident in the child; nothing stays in the calling process), verifies them and
// renames them into place, so that later runs and concurrent processes reuse
// them. Take a prefix of the result for smaller scales.
func Load(ctx context.Context, opts Options) (*Tables, error) {
	dir := opts.CacheDir
	if dir == "" {
		var err error
		if dir, err = DefaultCacheDir(); err != nil {
			return nil, err
		}
	}
	return loadOrGenerate(ctx, filepath.Join(dir, FileName()), FullRecords, FullSHA256,
		func(ctx context.Context, path string) error { return GenerateFile(ctx, opts, path, FullRecords) })
}

// Generate returns the first n line items (n is capped at FullRecords), loading
// or generating the cached tables as Load does.
func Generate(ctx context.Context, opts Options, n int) ([]LineItem, error) {
	t, err := Load(ctx, opts)
	if err != nil {
		return nil, err
	}
	return t.Slice(n), nil
}

// LoadFile reads a tables file written by GenerateFile, verifying it as Load
// does (magic, checksum, indexes, length) but accepting any line count.
func LoadFile(path string) (*Tables, error) {
	t, _, err := readFile(path)
	return t, err
}

// readFile reads and decodes the tables file at path, returning its bytes too.
func readFile(path string) (*Tables, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("tpch: %w", err)
	}
	t, err := Unmarshal(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return t, data, nil
}

// checkFile decodes the tables file at path, checking that it holds lines
// line items and ends with checksum want (hex; any when empty).
func checkFile(path string, lines int, want string) (*Tables, error) {
	t, data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	if t.Len() != lines {
		return nil, fmt.Errorf("tpch: %s holds %d line items, want %d", path, t.Len(), lines)
	}
	if got := hex.EncodeToString(data[len(data)-sha256.Size:]); want != "" && got != want {
		return nil, fmt.Errorf("tpch: %s has dataset hash %s, want %s", path, got, want)
	}
	return t, nil
}

// loadOrGenerate reads and checks the tables file at path, or, when it is
// missing or bad, replaces it with one written by generate and checks that.
func loadOrGenerate(ctx context.Context, path string, lines int, want string,
	generate func(ctx context.Context, path string) error) (*Tables, error) {
	t, err := checkFile(path, lines, want)
	if err == nil {
		return t, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		if rmErr := os.Remove(path); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
			return nil, fmt.Errorf("tpch: remove bad cache file: %w (after: %w)", rmErr, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("tpch: cache directory: %w", err)
	}
	removeStale(path)
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("tpch: cache file: %w", err)
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName) // fails harmlessly after the rename
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("tpch: cache file: %w", err)
	}
	if err := generate(ctx, tmpName); err != nil {
		return nil, err
	}
	t, err = checkFile(tmpName, lines, want)
	if err != nil {
		return nil, fmt.Errorf("tpch: freshly generated tables: %w", err)
	}
	if err := os.Chmod(tmpName, 0o644); err != nil {
		return nil, fmt.Errorf("tpch: cache file: %w", err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return nil, fmt.Errorf("tpch: cache file: %w", err)
	}
	return t, nil
}

// GenerateFile runs the dbgen child (see RunChildIfRequested) to write the
// tables of the first lines line items to path, bypassing the cache: for
// tests and small experiments. The child takes about 10 s whatever lines is
// (dbgen's start-up and the part and customer tables dominate). Read the file
// with LoadFile.
func GenerateFile(ctx context.Context, opts Options, path string, lines int) error {
	exe := opts.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("tpch: find the binary to run dbgen in: %w", err)
		}
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), childOutEnv+"="+path, childLinesEnv+"="+strconv.Itoa(lines))
	tail := &tailWriter{max: 2048}
	var stderr io.Writer = tail
	if opts.Output != nil {
		stderr = io.MultiWriter(opts.Output, tail)
	}
	cmd.Stdout, cmd.Stderr = opts.Output, stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(string(tail.b)); msg != "" {
			return fmt.Errorf("tpch: dbgen child %s: %w: %s", exe, err, msg)
		}
		return fmt.Errorf("tpch: dbgen child %s: %w", exe, err)
	}
	if info, err := os.Stat(path); err != nil || info.Size() == 0 {
		return fmt.Errorf("tpch: dbgen child %s exited without writing %s: does its main call tpch.RunChildIfRequested first?", exe, path)
	}
	return nil
}

// staleAge is the age beyond which a temporary tables file is taken as left
// behind by a process that died while generating (generation takes seconds).
const staleAge = time.Hour

// removeStale deletes the temporary files of path older than staleAge, best
// effort: a leftover is 118 MB.
func removeStale(path string) {
	old, _ := filepath.Glob(path + ".tmp*")
	for _, p := range old {
		if info, err := os.Stat(p); err == nil && time.Since(info.ModTime()) > staleAge {
			os.Remove(p)
		}
	}
}

// tailWriter keeps the last max bytes written to it: the end of the child's
// standard error, for the error message when the child fails.
type tailWriter struct {
	b   []byte
	max int
}

// Write implements io.Writer.
func (w *tailWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	if len(w.b) > w.max {
		w.b = append(w.b[:0], w.b[len(w.b)-w.max:]...)
	}
	return len(p), nil
}

// GenerateLineItems runs the dbgen child (through GenerateFile, in a
// temporary directory it removes) and returns the first lines line items:
// for tests, which need the program to call RunChildIfRequested first.
// The child's output is included in the error when it fails.
func GenerateLineItems(ctx context.Context, lines int) ([]LineItem, error) {
	dir, err := os.MkdirTemp("", "tpch-lines-")
	if err != nil {
		return nil, fmt.Errorf("tpch: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tables.bin")
	var out strings.Builder
	if err := GenerateFile(ctx, Options{Output: &out}, path, lines); err != nil {
		return nil, fmt.Errorf("%w\nchild output:\n%s", err, out.String())
	}
	tb, err := LoadFile(path)
	if err != nil {
		return nil, err
	}
	if tb.Len() != lines {
		return nil, fmt.Errorf("tpch: the child wrote %d line items, want %d", tb.Len(), lines)
	}
	return tb.Slice(lines), nil
}
