package cli

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// forkChildEnv marks a process started by a test's run as one of its
// forks: the test binary then acts as serbench.
const forkChildEnv = "SERBENCH_CLI_TEST_FORK"

// TestMain lets runs started by the tests fork: os.Executable is the test
// binary, which, started with forkChildEnv set, runs the command line it
// was given instead of the tests.
func TestMain(m *testing.M) {
	if os.Getenv(forkChildEnv) == "1" {
		reg, err := Subjects()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		ws := Workloads(reg)
		if os.Getenv(hangEnv) == "1" {
			ws = append(ws, hangWorkload{})
		}
		os.Exit(mainWith(context.Background(), os.Args[1:], os.Stdout, os.Stderr, ws, nil))
	}
	if err := os.Setenv(forkChildEnv, "1"); err != nil {
		panic(err)
	}
	// The command-line tests measure Go subjects: runners for other
	// languages are built and tested in package runner and its own tests.
	if os.Getenv("SERBENCH_RUNNERS") == "" {
		if err := os.Setenv("SERBENCH_RUNNERS", "none"); err != nil {
			panic(err)
		}
	}
	// Their runs must not teach the user's timing history.
	cache, err := os.MkdirTemp("", "serbench-cli-cache-")
	if err != nil {
		panic(err)
	}
	if err := os.Setenv("SERBENCH_CACHE", cache); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}
