package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/run"
)

// spawner returns the run.Spawner that measures a fork by running this
// program again: `serbench run W --fork K/N --cases FILE --count C …`
// with the workload's own options as the parent was given them (own[W]),
// its progress read from the fork's standard output, its messages passed
// to stderr.
func (a *app) spawner(own map[string][]string) run.Spawner {
	return func(ctx context.Context, f run.Fork, events func(run.ForkEvent)) error {
		exe := a.exe
		if exe == "" {
			var err error
			if exe, err = os.Executable(); err != nil {
				return fmt.Errorf("cannot find this program to fork: %w", err)
			}
		}
		args := []string{"run", f.Workload, "--scale", string(f.Scale), "--count", strconv.Itoa(f.Count),
			"--benchtime", f.Benchtime, "--case-timeout", f.CaseTimeout.String(), "--out", f.Out, "--force", "--forks", "1",
			"--fork", fmt.Sprintf("%d/%d", f.K, f.N), "--cases", f.CasesFile}
		if f.ItersFile != "" {
			args = append(args, "--iters", f.ItersFile)
		}
		args = append(args, "--target", strconv.FormatFloat(f.Target, 'g', -1, 64), "--budget", "0")
		if !f.Deadline.IsZero() {
			args = append(args, "--deadline", f.Deadline.UTC().Format(time.RFC3339Nano))
		}
		if len(f.Subjects) > 0 {
			args = append(args, "--subject", strings.Join(f.Subjects, ","))
		}
		args = append(args, own[f.Workload]...)
		if f.CountInstructions {
			args = append(args, "--count-child")
		}
		cmd := exec.Command(exe, args...)
		if len(f.Wrap) > 0 {
			cmd = exec.Command(f.Wrap[0], append(append(f.Wrap[1:len(f.Wrap):len(f.Wrap)], exe), args...)...)
		}
		cmd.Env = append(append(os.Environ(), a.exeEnv...), f.Env...)
		cmd.Stderr = a.stderr
		dieWithParent(cmd)
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start fork: %w", err)
		}
		// An interrupt ends the fork as it ends a run: after its current
		// group, keeping what it finished.
		stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Signal(os.Interrupt) })
		defer stop()
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if e, ok := run.ParseForkEvent(sc.Text()); ok {
				events(e)
			}
		}
		_, _ = io.Copy(io.Discard, out)
		err = cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ee) && ee.ExitCode() == ExitInterrupted, ctx.Err() != nil:
			return bench.ErrInterrupted
		default:
			return err
		}
	}
}

// forkEvents is a fork's progress display: one line per case started and
// finished on standard output, for the parent to read.
type forkEvents struct{ w io.Writer }

var _ run.Progress = forkEvents{}

func (forkEvents) Begin(int, map[string]run.CaseCost) {}
func (forkEvents) End()                               {}

// Budget, Deadline and Sample: a fork's parent keeps the run's estimate.
func (forkEvents) Budget(time.Time, map[string]time.Duration) {}
func (forkEvents) Deadline(string, time.Time)                 {}
func (forkEvents) Sample(*bench.Case)                         {}

// Start implements bench.Progress.
func (p forkEvents) Start(_, _ int, c *bench.Case) {
	fmt.Fprintln(p.w, run.FormatForkEvent(run.ForkEvent{Name: c.FullName()}))
}

// Done implements bench.Progress.
func (p forkEvents) Done(_, _ int, r *results.Case) {
	fmt.Fprintln(p.w, run.FormatForkEvent(run.ForkEvent{Done: true, Name: r.FullName(), Status: r.Status, Error: r.Error}))
}

// parseFork checks --fork K/N.
func parseFork(s string) error {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(k)
	ni, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || ki < 1 || ki > ni {
		return fmt.Errorf("--fork %q: want K/N with 1 ≤ K ≤ N", s)
	}
	return nil
}

// workloadArgs are the workload options given on the command line, by
// workload, as arguments a fork is given again.
func workloadArgs(own []workloadFlags) map[string][]string {
	out := map[string][]string{}
	for _, wf := range own {
		wf.fs.VisitAll(func(f *pflag.Flag) {
			if !f.Changed {
				return
			}
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				for _, v := range sv.GetSlice() {
					out[wf.name] = append(out[wf.name], "--"+f.Name+"="+v)
				}
				return
			}
			out[wf.name] = append(out[wf.name], "--"+f.Name+"="+f.Value.String())
		})
	}
	return out
}
