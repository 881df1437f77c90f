// Package jvm builds and starts the JVM runner (runners/jvm: Maven, Java
// 17+): the serbench binary carries its sources (serbench.RunnerSources),
// builds them with Maven into its cache the first time a run needs them,
// and starts the jar from there afterwards, offline.
package jvm

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
	"strings"
	"syscall"
	"time"

	serbench "github.com/serbench/serbench"
	"github.com/serbench/serbench/runner"
)

// ErrMissing is wrapped by Build's error when java or mvn is not
// installed: the JVM subjects are then skipped with one line, as pgscan
// is without PostgreSQL.
var ErrMissing = errors.New("the JVM subjects need java (17 or newer) and mvn on the PATH (Debian: apt-get install default-jdk-headless maven)")

// Flags are the JVM's flags for every runner process: a fixed heap (no
// resizing while measuring) and the parallel collector (throughput, as
// the seed's JVM defaults of its day).
var Flags = []string{"-Xms1g", "-Xmx1g", "-XX:+UseParallelGC", "-XX:-UsePerfData"}

// jarName is the runner's jar as the build leaves it.
const jarName = "serbench-runner.jar"

// Build returns the JVM runner, building it first when the cache holds
// no jar of these sources. Progress of a build goes to log. cacheDir is
// serbench's cache directory (os.UserCacheDir()/serbench by default).
func Build(ctx context.Context, cacheDir string, log io.Writer) (*runner.Runner, error) {
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("%w: java not found", ErrMissing)
	}
	hash, err := sourcesHash(serbench.RunnerSources)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cacheDir, "runners", "jvm-"+hash[:12])
	jar := filepath.Join(dir, jarName)
	r := &runner.Runner{Name: "jvm", Command: append(append([]string{java}, Flags...), "-jar", jar)}
	if _, err := os.Stat(jar); err == nil {
		return r, nil
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return nil, fmt.Errorf("%w: mvn not found", ErrMissing)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("jvm runner cache: %w", err)
	}
	// One build at a time: a second run waits for the first one's jar.
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("jvm runner cache: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, fmt.Errorf("jvm runner cache: %w", err)
	}
	if _, err := os.Stat(jar); err == nil {
		return r, nil
	}
	src := filepath.Join(dir, "src")
	if err := os.RemoveAll(src); err != nil {
		return nil, fmt.Errorf("jvm runner cache: %w", err)
	}
	if err := extract(serbench.RunnerSources, src); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "serbench: building the JVM runner (first use; Maven fetches its libraries once, then works offline) in %s\n", dir)
	start := time.Now()
	cmd := exec.CommandContext(ctx, mvn, "-B", "-q", "package", "-DskipTests")
	cmd.Dir = filepath.Join(src, "runners", "jvm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("building the JVM runner (mvn package in %s): %v\n%s", cmd.Dir, err, tailOf(out, 4000))
	}
	built := filepath.Join(cmd.Dir, "target", jarName)
	if err := os.Rename(built, jar); err != nil {
		return nil, fmt.Errorf("jvm runner cache: %w", err)
	}
	_ = os.RemoveAll(src)
	fmt.Fprintf(log, "serbench: JVM runner built in %s\n", time.Since(start).Round(time.Second))
	return r, nil
}

// sourcesHash is the SHA-256 of every embedded file's path and bytes, in
// path order: a changed source is a new jar.
func sourcesHash(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("jvm runner sources: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// extract writes the embedded tree under dir.
func extract(fsys fs.FS, dir string) error {
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return fmt.Errorf("jvm runner sources: %w", err)
	}
	return nil
}

// tailOf is the last n bytes of b, from a line start.
func tailOf(b []byte, n int) string {
	s := string(b)
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return "…\n" + s
}
