// Package jvm builds and starts the JVM runner (runners/jvm: Maven, Java
// 17+): the serbench binary carries its sources (serbench.RunnerSources),
// builds them with Maven into its cache the first time a run needs them,
// and starts the jar from there afterwards, offline.
package jvm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	serbench "github.com/serbench/serbench"
	"github.com/serbench/serbench/runner"
)

// ErrMissing is wrapped by Build's error when java or mvn is not
// installed: the JVM subjects are then skipped with one line, as pgscan
// is without PostgreSQL.
var ErrMissing = errors.New("the JVM subjects need java (17 or newer) and mvn on the PATH (Debian: apt-get install default-jdk-headless maven)")

// Flags are the JVM's flags for every runner process: a fixed heap (no
// resizing while measuring) large enough for a comparison group's decoded
// objects (a 1 GiB heap ran out on nested's TPC-H rows as generic maps),
// and the parallel collector (throughput, as the seed's JVM defaults of
// its day).
var Flags = []string{"-Xms4g", "-Xmx4g", "-XX:+UseParallelGC", "-XX:-UsePerfData"}

// jarName is the runner's jar as the build leaves it.
const jarName = "serbench-runner.jar"

// Source is the JVM runner as a run's runner source.
func Source() runner.Source {
	return runner.Source{Name: "jvm", Language: "java", Make: Build, Find: Find}
}

// Build returns the JVM runner, building it first when the cache holds
// no jar of these sources. Progress of a build goes to log. cacheDir is
// serbench's cache directory (os.UserCacheDir()/serbench by default).
func Build(ctx context.Context, cacheDir string, log io.Writer) (*runner.Runner, error) {
	r, dir, jar, err := locate(cacheDir)
	if err != nil {
		return nil, err
	}
	exists := func() bool { _, err := os.Stat(jar); return err == nil }
	if exists() {
		return r, nil
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return nil, fmt.Errorf("%w: mvn not found", ErrMissing)
	}
	err = runner.Cached(dir, serbench.RunnerSources, exists, func(src string) error {
		fmt.Fprintf(log, "serbench: building the JVM runner (first use; Maven fetches its libraries once, then works offline) in %s\n", dir)
		start := time.Now()
		cmd := exec.CommandContext(ctx, mvn, "-B", "-q", "package", "-DskipTests")
		cmd.Dir = filepath.Join(src, "runners", "jvm")
		stop := runner.Heartbeat(log, "building the JVM runner", runner.HeartbeatEvery)
		out, err := cmd.CombinedOutput()
		stop()
		if err != nil {
			return runner.BuildFailure("building the JVM runner (mvn package in "+cmd.Dir+")", err, out, filepath.Join(dir, "build.log"))
		}
		if err := os.Rename(filepath.Join(cmd.Dir, "target", jarName), jar); err != nil {
			return fmt.Errorf("jvm runner cache: %w", err)
		}
		_ = os.RemoveAll(src)
		fmt.Fprintf(log, "serbench: JVM runner built in %s\n", time.Since(start).Round(time.Second))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Find returns the JVM runner when the cache holds its jar for these
// sources; the error wraps runner.ErrNotBuilt when it does not.
func Find(_ context.Context, cacheDir string) (*runner.Runner, error) {
	r, _, jar, err := locate(cacheDir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(jar); err != nil {
		mvn, err := exec.LookPath("mvn")
		if err != nil {
			return nil, fmt.Errorf("%w: mvn not found", ErrMissing)
		}
		return nil, &runner.NotBuiltError{Runner: "jvm", Toolchain: r.Command[0] + ", " + mvn}
	}
	return r, nil
}

// locate is the runner of these sources, its cache directory and its jar.
func locate(cacheDir string) (r *runner.Runner, dir, jar string, err error) {
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, "", "", fmt.Errorf("%w: java not found", ErrMissing)
	}
	hash, err := runner.Hash(serbench.RunnerSources)
	if err != nil {
		return nil, "", "", err
	}
	dir = filepath.Join(cacheDir, "runners", "jvm-"+hash[:12])
	jar = filepath.Join(dir, jarName)
	return &runner.Runner{Name: "jvm", Command: append(append([]string{java}, Flags...), "-jar", jar)}, dir, jar, nil
}
