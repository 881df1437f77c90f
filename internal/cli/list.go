package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/run"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/workload"
)

func (a *app) listCmd() *cobra.Command {
	var user []string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List workloads, their subjects, the runners for other languages and theirs, and the scales",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "WORKLOAD\tDESCRIPTION")
			for _, w := range a.workloads {
				fmt.Fprintf(tw, "%s\t%s\n", w.Name(), w.Description())
			}
			tw.Flush()
			fmt.Fprintln(a.stdout)
			for _, w := range a.workloads {
				fmt.Fprintf(a.stdout, "%s subjects: %s\n", w.Name(), strings.Join(w.Subjects(), ", "))
			}
			fmt.Fprintf(a.stdout, "\ncodecs (NAME or NAME:LEVEL): ")
			var cs []string
			for _, name := range codec.Default().Names() {
				c, err := codec.Default().Parse(name)
				if err != nil {
					return err
				}
				if lib := c.Info().Library; lib != "" && !strings.HasPrefix(lib, "(") {
					cs = append(cs, c.Info().Name+" ("+lib+")")
				} else {
					cs = append(cs, c.Info().Name)
				}
			}
			fmt.Fprintln(a.stdout, strings.Join(cs, ", "))
			var scales []string
			for _, s := range workload.Scales() {
				scales = append(scales, string(s))
			}
			fmt.Fprintf(a.stdout, "\nscales: %s (default: default), each with what it measures, its cases and its time here\n", strings.Join(scales, ", "))
			// With the default runners and sampling, as `serbench run
			// --scale S` would: its estimates and its timing history.
			runners, err := a.runners(defaultRunners(), user)
			if err != nil {
				return err
			}
			a.listRunners(cmd.Context(), runners)
			perScale := map[workload.Scale]map[string]run.Planned{}
			for _, sc := range workload.Scales() {
				planned, err := run.DryRun(cmd.Context(), scaleOptions(a.workloads, sc, runners))
				if err != nil {
					return err
				}
				perScale[sc] = map[string]run.Planned{}
				for _, p := range planned {
					perScale[sc][p.Workload] = p
				}
			}
			width := 0
			for _, sc := range scales {
				width = max(width, len(sc))
			}
			for _, w := range a.workloads {
				fmt.Fprintln(a.stdout, w.Name())
				for _, sc := range workload.Scales() {
					var parts []string
					if s, ok := w.(workload.Scaler); ok {
						parts = append(parts, s.ScaleInfo(sc))
					}
					// A workload planned only with more to go on (data
					// without --input) has no cases to count here.
					if p := perScale[sc][w.Name()]; p.Err == nil {
						cost := "~" + roundEstimate(p.Estimate).String()
						if p.Measured != nil {
							cost = fmt.Sprintf("took %s here %s", roundEstimate(p.Measured.Actual), p.Measured.When.Format("2006-01-02"))
						}
						parts = append(parts, plural(len(p.Cases), "case")+", "+cost)
					}
					indent := "  " + string(sc) + strings.Repeat(" ", width-len(sc)+2)
					for _, l := range wrap(strings.Join(parts, ": "), listWidth-len(indent)) {
						fmt.Fprintln(a.stdout, indent+l)
						indent = strings.Repeat(" ", len(indent))
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&user, "runner", nil, "also list the subjects of a runner of your own, `NAME=COMMAND` (as run's --runner)")
	return cmd
}

// listRunners prints each runner, where it comes from and whether it is
// ready, with its subjects when it is: a built-in runner not built yet is
// not built here (its first run builds it), a user's is asked its hello.
func (a *app) listRunners(ctx context.Context, av *runner.Available) {
	if av == nil {
		return
	}
	fmt.Fprintln(a.stdout, "\nrunners for other languages (subjects NAME:subject; --runners, --runner NAME=COMMAND):")
	for _, s := range av.Sources {
		from := "built in, from serbench's own sources"
		if s.User {
			from = "yours"
		}
		r, err := s.Find(ctx, av.CacheDir)
		var h *runner.Hello
		if err == nil {
			h, err = r.Hello(ctx)
		}
		var nb *runner.NotBuiltError
		switch {
		case errors.As(err, &nb):
			fmt.Fprintf(a.stdout, "  %s (%s): not built yet, toolchain found (%s) — built on the first run that needs it\n", s.Language, from, nb.Toolchain)
		case errors.Is(err, runner.ErrNotBuilt):
			fmt.Fprintf(a.stdout, "  %s (%s): not built yet — built on the first run that needs it\n", s.Language, from)
		case err != nil:
			fmt.Fprintf(a.stdout, "  %s (%s): toolchain missing or not working, its subjects are skipped: %v\n", s.Language, from, err)
		default:
			var names []string
			for _, sub := range h.Subjects {
				names = append(names, s.Language+":"+sub.Name)
			}
			indent := "  "
			for _, l := range wrap(fmt.Sprintf("%s (%s; built; %s %s): %s", s.Language, from, h.Runtime, h.RuntimeVersion, strings.Join(names, ", ")), listWidth-4) {
				fmt.Fprintln(a.stdout, indent+l)
				indent = "    "
			}
		}
	}
}

// listWidth is the width the scale table of `serbench list` wraps at.
const listWidth = 100

// scaleOptions are the options `serbench run --scale sc` runs the main
// job's workloads with by default: its count, target, sample time, budget
// and runners, and the timing history's key for them.
func scaleOptions(ws workload.Set, sc workload.Scale, runners *runner.Available) run.Options {
	budget, _ := parseBudget("auto", sc, defaultCount, defaultTarget)
	return run.Options{Workloads: ws, Scale: sc, Count: defaultCount, Benchtime: defaultBenchtime, Target: defaultTarget,
		Budget: budget, Runners: runners, History: history(), Sampling: sampling(sc, defaultCount, defaultTarget, defaultBenchtime, budget)}
}

// wrap breaks s into lines of at most width runes at spaces (a longer
// word has a line of its own).
func wrap(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(s) {
		if cur.Len() > 0 && utf8.RuneCountInString(cur.String())+1+utf8.RuneCountInString(word) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the serbench version, revision and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(a.stdout, "serbench %s\n", versionLine())
			return nil
		},
	}
}

// versionLine is "0.1.0-dev (abc123 (modified)) go1.26 linux/amd64": the
// revision the build stamped (go build or go install in a git checkout),
// or the module version (go install …@version). A build without a stamp
// (go run, -buildvcs=false) says its revision is unknown and why, and
// names the revision of the checkout in the working directory, if it is
// this module's, as what it is: the checkout's, not necessarily the
// build's.
func versionLine() string {
	e := bench.CollectEnv("", 0, nil)
	exe, _ := os.Executable()
	bi, _ := debug.ReadBuildInfo()
	return fmt.Sprintf("%s (%s) %s %s/%s", e.Version, revisionText(bi, exe, e.Revision, e.Modified), e.GoVersion, e.GOOS, e.GOARCH)
}

// revisionText says which revision a build is: bi is its build
// information (nil: none), exe the program's path, and rev and modified
// the revision bench.CollectEnv found (the stamp's, else the working
// directory's checkout's).
func revisionText(bi *debug.BuildInfo, exe, rev string, modified bool) string {
	stamped := false
	if bi != nil {
		for _, s := range bi.Settings {
			stamped = stamped || s.Key == "vcs.revision" && s.Value != ""
		}
		stamped = stamped || bi.Main.Version != "" && bi.Main.Version != "(devel)"
	}
	mod := ""
	if modified {
		mod = " (modified)"
	}
	if stamped && rev != "" {
		return rev + mod
	}
	why := "revision unknown: built without VCS stamping (-buildvcs=false, or outside a git checkout)"
	if goRun(exe) {
		why = "revision unknown: built with go run"
	}
	if rev != "" {
		why += "; the checkout here is at " + rev + mod
	}
	return why
}

// goRun reports whether exe is a program go run built: it lives in the
// go command's temporary build directory, …/go-build…/b001/exe/NAME.
func goRun(exe string) bool {
	dir := filepath.Dir(exe)
	return filepath.Base(dir) == "exe" && strings.Contains(dir, string(filepath.Separator)+"go-build")
}
