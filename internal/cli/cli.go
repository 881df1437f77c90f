// Package cli implements the serbench command line: run, list, report,
// compare and version.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/subject"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/data"
	"github.com/serbench/serbench/workload/envelope"
	"github.com/serbench/serbench/workload/features"
	"github.com/serbench/serbench/workload/nested"
	"github.com/serbench/serbench/workload/pgscan"
	"github.com/serbench/serbench/workload/records"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// usagef marks bad input from the user: exit status 2 (a
// *workload.UsageError, the type the run and the workloads return too).
func usagef(format string, args ...any) error { return workload.Usagef(format, args...) }

// exitError carries a specific exit status with its message.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// Subjects returns a registry holding every built-in Go subject of the
// workloads, registered by each workload's Register function, and the
// runners for other languages serbench ships (runner.RegistryKey).
func Subjects() (*subject.Registry, error) {
	r := subject.NewRegistry()
	for _, register := range []func(*subject.Registry) error{
		features.Register,
		records.Register,
		envelope.Register,
		data.Register,
		pgscan.Register,
		nested.Register,
		func(r *subject.Registry) error { return runner.Register(r, builtinRunners()...) },
	} {
		if err := register(r); err != nil {
			return nil, fmt.Errorf("built-in subjects: %w", err)
		}
	}
	return r, nil
}

// Workloads returns every workload serbench knows, in run order, measuring
// the subjects of reg and saying what they tell before measuring on
// os.Stderr.
func Workloads(reg *subject.Registry) workload.Set { return workloadsLogging(os.Stderr, reg) }

// workloadsLogging is Workloads with the data workload's schema printed on
// log.
func workloadsLogging(log io.Writer, reg *subject.Registry) workload.Set {
	return workload.Set{
		features.New().WithSubjects(reg),
		records.New().WithSubjects(reg),
		envelope.New().WithSubjects(reg),
		pgscan.New().WithSubjects(reg),
		nested.New().WithSubjects(reg),
		data.New().WithLog(log).WithSubjects(reg).WithCorpus(filepath.Join(cacheDir(), "corpus")),
	}
}

// app holds what the commands share.
type app struct {
	stdout, stderr io.Writer
	workloads      workload.Set
	// reg holds the subjects the workloads were given and the runners
	// (runner.RegistryKey); nil: the built-in runners.
	reg  *subject.Registry
	args []string
	// exe and exeEnv run a fork: this program (os.Executable when empty)
	// with these extra environment variables.
	exe    string
	exeEnv []string
	// exit ends the process (os.Exit): a run whose measuring does not
	// stop after a signal is ended with it.
	exit func(code int)
}

// Main runs the command line with args (without the program name) and
// returns the process exit status.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	reg, err := Subjects()
	if err != nil {
		fmt.Fprintf(stderr, "serbench: %v\n", err)
		return ExitFailure
	}
	return mainWith(ctx, args, stdout, stderr, workloadsLogging(stderr, reg), reg)
}

// mainWith is Main with the set of workloads it knows and the registry
// of its subjects and runners (nil: serbench's built-in runners).
func mainWith(ctx context.Context, args []string, stdout, stderr io.Writer, ws workload.Set, reg *subject.Registry) int {
	a := &app{stdout: stdout, stderr: stderr, workloads: ws, reg: reg, args: append([]string{"serbench"}, args...), exit: os.Exit}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	msg := strings.TrimSpace(err.Error())
	fmt.Fprintf(stderr, "serbench: %s\n", msg)
	var ue *workload.UsageError
	var ee exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue), isFlagError(err):
		return ExitUsage
	default:
		return ExitFailure
	}
}

// isFlagError recognises cobra/pflag's own parse errors, which are usage
// errors too.
func isFlagError(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand flag", "invalid argument", "flag needs an argument", "unknown command", "accepts ", "requires at least", "bad flag syntax"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "serbench",
		Short: "Measure serialization formats, codecs and data paths on your machine",
		Long: "serbench runs named workloads — reproductions of published serialization benchmarks — " +
			"through many formats and codecs, verifies every round trip, measures each case repeatedly " +
			"with confidence intervals, and writes Markdown/HTML/SVG reports, JSON Lines and benchstat input.\n\n" +
			"Exit status:\n" +
			"  0    success: every case ok, skipped (a peer not installed), \"cannot hold\" (its format cannot\n" +
			"       represent the data: nested columns in CSV, NaN in JSON), or an interop cell another\n" +
			"       language cannot read\n" +
			"  1    a case FAILED (results and report are still written), an error while running, or\n" +
			"       compare --fail-on-regression found a regression\n" +
			"  2    bad input: an unknown name or flag, an --out that holds a run or is in use by another run\n" +
			"  130  interrupted (Ctrl-C, SIGTERM): finished cases are kept; run --resume finishes the run",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// `serbench completion bash|zsh|fish|powershell` and `serbench --version`.
	root.Version = versionLine()
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &workload.UsageError{Err: err} })
	root.AddCommand(a.runCmd(), a.listCmd(), a.reportCmd(), a.compareCmd(), a.runnerCmd(), a.versionCmd())
	return root
}

// Run is the entry point used by cmd/serbench.
func Run() int {
	ctx := context.Background()
	return Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
}
