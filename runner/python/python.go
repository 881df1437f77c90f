// Package python prepares and starts the Python runner (runners/python):
// the serbench binary carries its sources (serbench.PythonRunnerSources);
// the first run that needs it creates a virtual environment in serbench's
// cache from the runner's lock file (wheels only, every version pinned)
// and starts the runner from there afterwards.
//
// The runner's protobuf subject gets its message classes from the nested
// datasets' .proto files without protoc: Build writes package nestedpb's
// FileDescriptorSet into the cache, and the runner turns it into classes
// with google.protobuf's descriptor pool and message factory.
package python

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	serbench "github.com/serbench/serbench"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/runner/nestedpb"
)

// ErrMissing is wrapped by Build's error when no python3 of version 3.10
// or newer is installed.
var ErrMissing = errors.New("the Python subjects need python3 3.10 or newer with venv (Debian: apt-get install python3 python3-venv)")

// Source is the Python runner as a run's runner source.
func Source() runner.Source {
	return runner.Source{Name: "python", Language: "python", Make: Build, Find: Find}
}

// Build returns the Python runner, creating its virtual environment first
// when the cache holds none for these sources. Progress goes to log.
func Build(ctx context.Context, cacheDir string, log io.Writer) (*runner.Runner, error) {
	l, err := locate(ctx, cacheDir)
	if err != nil {
		return nil, err
	}
	py, dir, venv, pb, descs, r := l.py, l.dir, l.venv, l.pb, l.descs, l.r
	done := filepath.Join(dir, ".complete")
	exists := func() bool { _, err := os.Stat(done); return err == nil }
	err = runner.Cached(dir, serbench.PythonRunnerSources, exists, func(src string) error {
		if err := os.RemoveAll(venv); err != nil {
			return fmt.Errorf("python runner cache: %w", err)
		}
		fmt.Fprintf(log, "serbench: preparing the Python runner (first use; pip fetches pinned wheels once) in %s\n", dir)
		start := time.Now()
		lock := filepath.Join(src, "runners", "python", "requirements.lock")
		for _, step := range [][]string{
			{py, "-m", "venv", venv},
			{filepath.Join(venv, "bin", "pip"), "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--only-binary", ":all:", "-r", lock},
		} {
			stop := runner.Heartbeat(log, "preparing the Python runner", runner.HeartbeatEvery)
			out, err := exec.CommandContext(ctx, step[0], step[1:]...).CombinedOutput()
			stop()
			if err != nil {
				return runner.BuildFailure("preparing the Python runner ("+strings.Join(step, " ")+")", err, out, filepath.Join(dir, "build.log"))
			}
		}
		if err := os.WriteFile(pb, descs, 0o644); err != nil {
			return fmt.Errorf("python runner cache: %w", err)
		}
		if err := os.WriteFile(done, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
			return fmt.Errorf("python runner cache: %w", err)
		}
		fmt.Fprintf(log, "serbench: Python runner ready in %s\n", time.Since(start).Round(time.Second))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Find returns the Python runner when the cache holds its finished
// virtual environment for these sources; the error wraps
// runner.ErrNotBuilt when it does not.
func Find(ctx context.Context, cacheDir string) (*runner.Runner, error) {
	l, err := locate(ctx, cacheDir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(l.dir, ".complete")); err != nil {
		return nil, &runner.NotBuiltError{Runner: "python", Toolchain: l.py}
	}
	return l.r, nil
}

// location is where the runner of these sources lives in the cache.
type location struct {
	py, dir, venv, pb string
	descs             []byte
	r                 *runner.Runner
}

// locate finds python3 (3.10 or newer) and the cache directory of these
// sources and message descriptors.
func locate(ctx context.Context, cacheDir string) (*location, error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return nil, fmt.Errorf("%w: python3 not found", ErrMissing)
	}
	out, err := exec.CommandContext(ctx, py, "-c", "import sys; print(sys.version_info >= (3, 10))").Output()
	if err != nil || strings.TrimSpace(string(out)) != "True" {
		return nil, fmt.Errorf("%w: %s is older", ErrMissing, py)
	}
	hash, err := runner.Hash(serbench.PythonRunnerSources)
	if err != nil {
		return nil, err
	}
	descs, err := nestedpb.Descriptors()
	if err != nil {
		return nil, fmt.Errorf("python runner: %w", err)
	}
	// The descriptors are part of what is built: a changed .proto is a new
	// cache directory, as a changed Python source is.
	sum := sha256.Sum256([]byte(hash + "\x00" + string(descs)))
	dir := filepath.Join(cacheDir, "runners", "python-"+hex.EncodeToString(sum[:])[:12])
	venv, src := filepath.Join(dir, "venv"), filepath.Join(dir, "src")
	pb := filepath.Join(dir, nestedpb.File)
	r := &runner.Runner{Name: "python", Command: []string{filepath.Join(venv, "bin", "python"), "-m", "serbench_runner"},
		Env: []string{"PYTHONPATH=" + filepath.Join(src, "runners", "python"), "PYTHONDONTWRITEBYTECODE=1", nestedpb.Env + "=" + pb}}
	return &location{py: py, dir: dir, venv: venv, pb: pb, descs: descs, r: r}, nil
}
