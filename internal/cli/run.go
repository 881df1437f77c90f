package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/callgrind"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/run"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/runner/jvm"
	"github.com/serbench/serbench/runner/python"
	"github.com/serbench/serbench/runner/rust"
	"github.com/serbench/serbench/workload"
)

type runFlags struct {
	scale     string
	filter    string
	subjects  []string
	count     int
	benchtime time.Duration
	target    float64
	budget    string
	timeout   time.Duration
	out       string
	progress  string
	force     bool
	resume    bool
	shard     string
	runID     string
	dryRun    bool
	forks     int
	runners   []string
	user      []string // --runner NAME=COMMAND
	fork      string   // "K/N" in a fork (hidden)
	cases     string   // a fork's case list (hidden)
	iters     string   // a fork's iterations per sample (hidden)
	deadline  string   // a fork's end of the run's budget (hidden)
	metric    string
	countKid  bool // a fork counting instructions under Valgrind (hidden)
	// own are the options of the workloads that have some (options.go).
	own []workloadFlags
}

// Defaults of --count and --benchtime: fifty samples of 2 ms. A small
// shared machine runs slower by half or more for stretches of one to a
// few hundred milliseconds at a time (docs/method.md, "Short samples"):
// a sample of 10 ms often straddles such a stretch, so samples disagree
// in degrees and the median's interval is wide, while most samples of
// 2 ms fall wholly inside or wholly outside one — the slow ones then sit
// at the top of the sorted samples, outside the interval of the median
// (the 18th to the 32nd of fifty). Fifty samples of 2 ms are half the
// sampling time of the twenty of 10 ms before them.
// defaultTarget is --target's default: a group's ratios known to ±3%
// (95% intervals) stop sampling early; close or noisy groups take up to
// --count samples.
const defaultTarget = 0.03

const (
	defaultCount     = 50
	defaultBenchtime = 2 * time.Millisecond
)

// defaultBudget is what --budget auto gives the main job: a run at the
// default scale with the default --count and a sampling --target. It is
// a minute short of the main job's goal of 12 minutes on two cores, which
// a new user's `go run` counts from before the build, the set-up of the
// first workload and the report.
const defaultBudget = 11 * time.Minute

// defaultCaseTimeout bounds one call into a case's code: the slowest
// legitimate one, a sample of pgscan's largest table at full scale, takes
// under a minute on a small machine.
const defaultCaseTimeout = 10 * time.Minute

func (a *app) runCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [WORKLOAD...]",
		Short: "Measure workloads (all of them when none is named) and write results and a report",
		Long: "run measures the named workloads — every workload when none is named — at the chosen scale,\n" +
			"verifying each case's round trip before timing it. It writes DIR/results.jsonl (one line per case,\n" +
			"as each finishes), DIR/bench.txt (for benchstat), DIR/report.md, DIR/report.html and SVG plots.",
		RunE: func(cmd *cobra.Command, args []string) error { return a.run(cmd.Context(), args, f) },
	}
	fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fl.StringVar(&f.scale, "scale", "default", "input sizes: quick, default or full")
	fl.StringVar(&f.filter, "filter", "", "only run cases whose full name matches this regular expression")
	fl.StringSliceVar(&f.subjects, "subject", nil, "only run these subjects (comma-separated)")
	fl.IntVar(&f.count, "count", defaultCount, "samples per case (50 give a 95% interval of the median from the 18th to the 32nd sample), within count × 5 × benchtime of sampling (at least 6 samples) unless the case sets its own budget")
	fl.DurationVar(&f.benchtime, "benchtime", defaultBenchtime, "target duration of one sample")
	fl.Float64Var(&f.target, "target", defaultTarget, "stop sampling a case once the 95% intervals of its ratios to its group's baseline and limit row are narrower than ±this fraction (after 6 rounds; --count caps the samples); 0: take --count samples of every case")
	fl.DurationVar(&f.timeout, "case-timeout", defaultCaseTimeout, "FAIL a case whose set-up, verification or one sample runs longer than this, and go on with the rest in a fresh process (0: no limit)")
	fl.StringVar(&f.out, "out", "", "output directory (default ./serbench-results/<UTC time>)")
	fl.StringVar(&f.progress, "progress", "auto", "progress display: auto, bar, lines or none")
	fl.BoolVar(&f.force, "force", false, "replace the run already in --out")
	fl.BoolVar(&f.resume, "resume", false, "finish the run already in --out: keep its finished cases, run the rest")
	fl.StringVar(&f.shard, "shard", "", "run only shard `K/N` (1 ≤ K ≤ N), or auto/N to take K from $JOB_COMPLETION_INDEX+1; serbench report merges the shards' results")
	fl.BoolVar(&f.dryRun, "dry-run", false, "list the cases and an estimated duration per workload; measure nothing")
	fl.StringVar(&f.budget, "budget", "auto", "the time the run should take: past each workload's share of it, groups stop at their floor (6 samples of a slow op, 20 of a fast one) and forks after 2 processes (set-up and the floors still run); auto: "+defaultBudget.String()+" at the default scale with the default --count and a --target, else none; 0: none")
	fl.IntVar(&f.forks, "forks", 0, "measure each case in N child processes one after another, the samples split among them, for the workloads that can fork (features and envelope: 4 by default, nested: 1); the others always measure in this process")
	fl.StringSliceVar(&f.runners, "runners", defaultRunners(), "measure the subjects of these runners for other languages beside Go's where the workload can (jvm, python, rust; none: Go only); a runner whose toolchain is missing is skipped with one line")
	fl.StringArrayVar(&f.user, "runner", nil, "add a runner of your own: `NAME=COMMAND` speaking docs/runner-protocol.md, its subjects measured as NAME:subject (repeatable; serbench.toml's [runners] adds them for every run in its directory)")
	fl.StringVar(&f.fork, "fork", "", "internal: this process is fork K/N of a run")
	fl.StringVar(&f.cases, "cases", "", "internal: measure exactly the cases listed in this file")
	fl.StringVar(&f.iters, "iters", "", "internal: iterations per sample of each case, as an earlier fork calibrated them")
	fl.StringVar(&f.deadline, "deadline", "", "internal: when the run's budget for this fork's workload runs out (RFC 3339)")
	fl.StringVar(&f.metric, "metric", "time", "what to measure: time; instructions (Go subjects' instructions and estimated cycles per op under Valgrind's callgrind, repeatable on a shared machine; the runners' subjects by time); or time,instructions")
	fl.BoolVar(&f.countKid, "count-child", false, "internal: this fork counts instructions under Valgrind")
	_ = fl.MarkHidden("count-child")
	_ = fl.MarkHidden("deadline")
	_ = fl.MarkHidden("iters")
	_ = fl.MarkHidden("fork")
	_ = fl.MarkHidden("cases")
	fl.StringVar(&f.runID, "run-id", "", "the id the shards of one run share (default: derived from the command line and the build)")
	cmd.Flags().AddFlagSet(fl)
	f.own = a.addWorkloadFlags(cmd)
	cmd.SetHelpFunc(a.runHelp(f.own))
	return cmd
}

func (a *app) run(ctx context.Context, names []string, f runFlags) error {
	// Validate everything before touching the disk or measuring.
	scale, err := workload.ParseScale(f.scale)
	if err != nil {
		return &workload.UsageError{Err: err}
	}
	if f.count < 1 {
		return usagef("--count must be at least 1, got %d", f.count)
	}
	if f.benchtime <= 0 {
		return usagef("--benchtime must be positive, got %s", f.benchtime)
	}
	if f.timeout < 0 {
		return usagef("--case-timeout must be positive or 0 (no limit), got %s", f.timeout)
	}
	if f.target < 0 || f.target >= 1 {
		return usagef("--target must be a fraction from 0 (off) up to 1, got %g", f.target)
	}
	budget, err := parseBudget(f.budget, scale, f.count, f.target)
	if err != nil {
		return err
	}
	metric, err := run.ParseMetric(f.metric)
	if err != nil {
		return &workload.UsageError{Err: err}
	}
	runners, err := a.runners(f.runners, f.user)
	if err != nil {
		return err
	}
	if f.fork != "" {
		runners = nil // a fork measures Go cases only; its parent measures the runners'
	}
	var re *regexp.Regexp
	if f.filter != "" {
		if re, err = regexp.Compile(f.filter); err != nil {
			return usagef("--filter: %v", err)
		}
	}
	shard, err := run.ParseShard(f.shard, os.Getenv)
	if err != nil {
		return &workload.UsageError{Err: err}
	}
	if f.forks < 0 {
		return usagef("--forks must be at least 1, got %d", f.forks)
	}
	prog, err := newProgress(f.progress, a.stderr)
	if err != nil {
		return &workload.UsageError{Err: err}
	}
	prog.count = f.count
	var rp run.Progress = prog
	spawn := a.spawner(workloadArgs(f.own))
	var caseNames []string
	var iters map[string]int
	var deadline time.Time
	if f.fork != "" {
		// A fork measures its parent's selection and reports to it.
		if err := parseFork(f.fork); err != nil {
			return &workload.UsageError{Err: err}
		}
		if f.cases == "" {
			return usagef("--fork needs --cases FILE")
		}
		if caseNames, err = run.ReadCasesFile(f.cases); err != nil {
			return &workload.UsageError{Err: err}
		}
		rp, spawn = forkEvents{a.stdout}, nil
		if f.iters != "" {
			if iters, err = run.ReadItersFile(f.iters); err != nil {
				return &workload.UsageError{Err: err}
			}
		}
		if f.deadline != "" {
			if deadline, err = time.Parse(time.RFC3339Nano, f.deadline); err != nil {
				return usagef("--deadline: %v", err)
			}
		}
	}
	if err := checkWorkloadFlags(names, f.own); err != nil {
		return err
	}
	var counter *callgrind.Counter
	valgrind := ""
	switch {
	case f.countKid:
		if f.fork == "" {
			return usagef("--count-child is for a fork (--fork K/N)")
		}
		if counter, err = callgrind.NewCounter(); err != nil {
			return err
		}
	case metric.Instructions && !f.dryRun:
		if valgrind, err = callgrind.Find(ctx, a.stderr); err != nil {
			fmt.Fprintf(a.stderr, "serbench: %v; measuring by time\n", err)
			metric = run.Metric{Time: true}
		}
	}
	if f.dryRun {
		return a.dryRun(ctx, run.Options{Workloads: a.workloads, Names: names, Scale: scale, Filter: re, Subjects: f.subjects,
			Count: f.count, Benchtime: f.benchtime, Target: f.target, Shard: shard, Forks: f.forks, Runners: runners, History: history(),
			Budget: budget, Sampling: sampling(scale, f.count, f.target, f.benchtime, budget)})
	}
	out := f.out
	if out == "" {
		out = filepath.Join("serbench-results", time.Now().UTC().Format("20060102T150405Z"))
	}
	ctx, measured := a.stopOnSignal(ctx, filepath.Join(out, run.ResultsFile))
	defer measured()
	created := missingDirs(out)
	oldReport, _ := os.Stat(filepath.Join(out, "report.html"))
	res, err := run.Run(ctx, run.Options{
		Workloads: a.workloads, Names: names, Scale: scale, Filter: re, Subjects: f.subjects,
		Count: f.count, Benchtime: f.benchtime, Target: f.target, Out: out, Force: f.force, Resume: f.resume,
		Progress: rp, Args: a.args, Log: a.stderr, Shard: shard, RunID: f.runID,
		Forks: f.forks, Spawn: spawn, Cases: caseNames, Iters: iters, ResultsOnly: f.fork != "",
		Measured: measured, CaseTimeout: f.timeout, Runners: runners, History: history(), Budget: budget, Deadline: deadline,
		Sampling: sampling(scale, f.count, f.target, f.benchtime, budget), Metric: metric, Valgrind: valgrind, Counter: counter,
	})
	if res == nil && !errors.Is(err, run.ErrOutInUse) {
		// Failed before measuring: leave no empty --out (outdir.go). A
		// directory another run is writing to is that run's, even while
		// it is still empty.
		removeCreated(created)
	}
	if ue := (*workload.UsageError)(nil); errors.As(err, &ue) {
		return ue
	}
	if res == nil && bench.IsInterrupted(err) {
		return exitError{ExitInterrupted, errors.New("interrupted before any case was measured")}
	}
	if res == nil {
		return err
	}
	if err == nil && res.TimedOut != nil {
		return a.resumeAfterTimeout(res, out)
	}
	if f.fork != "" {
		if err == nil && res.Interrupted {
			err = exitError{ExitInterrupted, errors.New("fork interrupted")}
		}
		return err
	}
	a.printSummary(res.Run, res.Workloads)
	a.printOutputs(res, oldReport)
	if err != nil {
		return err
	}
	if res.Interrupted {
		return exitError{ExitInterrupted, fmt.Errorf("interrupted: kept %d finished cases in %s (--resume finishes the run)", len(res.Run.Cases), res.ResultsPath)}
	}
	return failedError(res.Run)
}

// printOutputs names the run's results file and its report, each only
// if this run wrote it: a run whose report could not be written (a full
// disk, a read-only directory) says so on stderr, and the report.html a
// resumed run found in the directory (old, as it was before the run) is
// not this run's.
func (a *app) printOutputs(res *run.Outcome, old os.FileInfo) {
	var lines []string
	if fi, err := os.Stat(res.ResultsPath); err == nil && fi.Mode().IsRegular() {
		lines = append(lines, "results: "+res.ResultsPath)
	}
	html := filepath.Join(res.Dir, "report.html")
	if fi, err := os.Stat(html); err == nil && fi.Mode().IsRegular() && (old == nil || !os.SameFile(old, fi) || !fi.ModTime().Equal(old.ModTime()) || fi.Size() != old.Size()) {
		lines = append(lines, "report:  "+html)
	}
	if len(lines) > 0 {
		fmt.Fprintf(a.stdout, "\n%s\n", strings.Join(lines, "\n"))
	}
}

// maxTimeoutRestarts bounds how often one run starts afresh after
// timeouts (each is a case recorded FAILED, so a run has at most as many).
const maxTimeoutRestarts = 100

// restartsEnv counts a run's fresh starts after timeouts.
const restartsEnv = "SERBENCH_TIMEOUT_RESTARTS"

// resumeAfterTimeout replaces this process with a fresh serbench that
// resumes the run: the case that timed out is recorded FAILED, but its
// code is still running here, holding a core and its memory, and nothing
// can stop it but the end of the process. The fresh process keeps the
// pid (a fork's parent goes on reading it) and takes the run's locks
// again once exec has closed this one's.
func (a *app) resumeAfterTimeout(res *run.Outcome, out string) error {
	n, _ := strconv.Atoi(os.Getenv(restartsEnv))
	if n >= maxTimeoutRestarts {
		return fmt.Errorf("%v; %d fresh starts after timeouts already: stopping (--resume goes on)", res.TimedOut, n)
	}
	fmt.Fprintf(a.stderr, "serbench: %s timed out after %s in %s: recorded as FAILED; measuring the rest in a fresh process\n",
		res.TimedOut.Case, res.TimedOut.After, res.TimedOut.Stage)
	exe := a.exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("%v; cannot find this program to go on (%v): --resume goes on", res.TimedOut, err)
		}
	}
	args := append([]string{exe}, resumeArgs(a.args[1:], out)...)
	env := append(append(os.Environ(), a.exeEnv...), fmt.Sprintf("%s=%d", restartsEnv, n+1))
	err := syscall.Exec(exe, args, env)
	return fmt.Errorf("%v; could not start a fresh process (%v): --resume goes on", res.TimedOut, err)
}

// resumeArgs turns a run's command line (without the program name) into
// the one that resumes it in out: --resume instead of --force, and --out
// named.
func resumeArgs(args []string, out string) []string {
	var r []string
	hasOut, hasResume := false, false
	for _, s := range args {
		switch {
		case s == "--force" || strings.HasPrefix(s, "--force="):
			continue
		case s == "--resume" || strings.HasPrefix(s, "--resume="):
			hasResume = true
		case s == "--out" || strings.HasPrefix(s, "--out="):
			hasOut = true
		}
		r = append(r, s)
	}
	if !hasResume {
		r = append(r, "--resume")
	}
	if !hasOut {
		r = append(r, "--out", out)
	}
	return r
}

// stopGrace is how long a run stopped by a signal may take to stop the
// case it is measuring (the engine checks between samples, so a sample or
// a set-up that does not end — a hung server, a pathological input — would
// keep it running): past that, or on a second signal, the process exits at
// once with status 130. Every case finished is already on disk, and the
// results file without its end line reads as a killed run that --resume
// finishes. SERBENCH_STOP_GRACE (a duration) overrides it.
const stopGrace = 15 * time.Second

// stopOnSignal returns a context that ends on SIGINT or SIGTERM, and the
// function to call once measuring has ended (idempotent). Between the
// signal and that call a watchdog runs: see stopGrace.
func (a *app) stopOnSignal(parent context.Context, results string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	grace := stopGrace
	if d, err := time.ParseDuration(os.Getenv("SERBENCH_STOP_GRACE")); err == nil && d >= 0 {
		grace = d
	}
	go func() {
		select {
		case <-done:
			return
		case <-sigs:
			cancel()
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		why := ""
		select {
		case <-done:
			return
		case s := <-sigs:
			why = "a second " + s.String()
		case <-t.C:
			why = fmt.Sprintf("the case being measured did not stop within %s", grace)
		}
		fmt.Fprintf(a.stderr, "serbench: %s: exiting now; the finished cases are kept in %s, and --resume finishes the run\n", why, results)
		a.exit(ExitInterrupted)
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			close(done)
			signal.Stop(sigs)
		})
	}
}

// failedError is the error (exit status 1) of a run with FAILED cases, or
// nil: every FAILED case counts (isFailure), as the summary counts them. A
// case whose format cannot hold the data (nested columns in CSV, NaN in
// JSON) has a status of its own, a documented answer; an interop cell
// another language cannot read is a finding of the matrix; a skipped case
// is a peer not installed.
func failedError(r *results.Run) error {
	var failed []*results.Case
	for i := range r.Cases {
		if c := &r.Cases[i]; isFailure(c) {
			failed = append(failed, c)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return exitError{ExitFailure, fmt.Errorf("%s of %d FAILED (the first: %s: %s); the report lists them all", plural(len(failed), "case"), len(r.Cases), failed[0].FullName(), failed[0].Error)}
}

// sampling describes how a run samples (--count, --target, --benchtime,
// --budget, the last as "auto" when it is what auto gives at the run's
// scale), for the timing history: a run's timing predicts another's only
// when both sample alike, and the description names the values rather
// than "the defaults", so a history written before the defaults changed
// does not predict a run after.
func sampling(scale workload.Scale, count int, target float64, benchtime, budget time.Duration) string {
	b := budget.String()
	if auto, _ := parseBudget("auto", scale, defaultCount, defaultTarget); budget == auto {
		b = "auto"
	}
	return fmt.Sprintf("count %d, target %g, sample %s, budget %s", count, target, benchtime, b)
}

// parseBudget resolves --budget: a duration, 0 (none), or auto (the
// main job's defaultBudget when the run samples as the main job does).
func parseBudget(v string, scale workload.Scale, count int, target float64) (time.Duration, error) {
	switch v {
	case "auto":
		if scale == workload.Default && count == defaultCount && target > 0 {
			return defaultBudget, nil
		}
		return 0, nil
	case "0", "none", "off":
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, usagef("--budget must be a duration such as 12m, 0 (none) or auto, got %q", v)
	}
	return d, nil
}

// dryRun prints what a run with the same options would measure.
func (a *app) dryRun(ctx context.Context, o run.Options) error {
	planned, err := run.DryRun(ctx, o)
	if ue := (*workload.UsageError)(nil); errors.As(err, &ue) {
		return ue
	}
	if err != nil {
		return err
	}
	var total time.Duration
	n := 0
	for _, p := range planned {
		if p.Err != nil {
			if workload.IsUnavailable(p.Err) {
				fmt.Fprintln(a.stdout, run.NotInRun(p.Workload, p.Err))
			} else {
				fmt.Fprintf(a.stdout, "%s: cannot be planned here: %v\n", p.Workload, p.Err)
			}
			continue
		}
		procs := ""
		if p.Forks > 1 {
			procs = fmt.Sprintf(" in %d processes", p.Forks)
		}
		measured := ""
		if p.Measured != nil {
			measured = fmt.Sprintf(" (its last whole run here took %s, on %s)", roundEstimate(p.Measured.Actual), p.Measured.When.Format("2006-01-02"))
		}
		fmt.Fprintf(a.stdout, "%s: %s%s, about %s%s\n", p.Workload, plural(len(p.Cases), "case"), procs, roundEstimate(p.Estimate), measured)
		for _, c := range p.Cases {
			fmt.Fprintf(a.stdout, "  %s\n", c)
		}
		total += p.Estimate
		n += len(p.Cases)
	}
	about := roundEstimate(total).String()
	if b := run.Budgeted(planned, o.Budget); o.Budget > 0 && b < total {
		// The run cuts groups past each workload's share of its budget.
		about = fmt.Sprintf("%s within the run's budget of %s (%s without it)", roundEstimate(b), o.Budget, roundEstimate(total))
	}
	fmt.Fprintf(a.stdout, "total: %s, about %s (estimates from the target sample time and each workload's expected op times, scaled by this machine's last whole run of the workload where there is one)\n", plural(n, "case"), about)
	if len(planned) > 0 && len(planned[0].Unbuilt) > 0 {
		// Only a runner's hello says which subjects it has.
		fmt.Fprintf(a.stdout, "not listed: the cases of the %s runner (not built yet: the run builds it first, once)\n", strings.Join(planned[0].Unbuilt, ", "))
	}
	return nil
}

// roundEstimate rounds a duration to what an estimate can claim.
func roundEstimate(d time.Duration) time.Duration {
	switch {
	case d > 10*time.Minute:
		return d.Round(time.Minute)
	case d > time.Minute:
		return d.Round(10 * time.Second)
	case d > 10*time.Second:
		return d.Round(time.Second)
	case d > time.Second:
		return d.Round(100 * time.Millisecond)
	default:
		return d.Round(10 * time.Millisecond)
	}
}

// defaultRunners is --runners' default: every runner, or the list in
// $SERBENCH_RUNNERS (none: Go only).
func defaultRunners() []string {
	if v := os.Getenv("SERBENCH_RUNNERS"); v != "" {
		return strings.Split(v, ",")
	}
	return []string{"jvm", "python", "rust"}
}

// builtinRunners are the runners for other languages serbench ships, by
// --runners name.
func builtinRunners() []runner.Source {
	return []runner.Source{jvm.Source(), python.Source(), rust.Source()}
}

// runnerSources are the runners the app's registry holds (the built-in
// ones without a registry): the choices of --runners and runner check.
func (a *app) runnerSources() ([]runner.Source, error) {
	if a.reg == nil {
		return builtinRunners(), nil
	}
	return runner.Sources(a.reg)
}

// runners resolves --runners: the named runners, built into serbench's
// cache when a workload first asks for them; nil for "none".
func (a *app) runners(names, user []string) (*runner.Available, error) {
	own, err := userRunners(user)
	if err != nil {
		return nil, err
	}
	all, err := a.runnerSources()
	if err != nil {
		return nil, err
	}
	valid := make([]string, len(all))
	for i, s := range all {
		valid[i] = s.Name
	}
	var chosen []runner.Source
	for _, n := range names {
		if n == "none" {
			if len(names) > 1 {
				return nil, usagef("--runners: none cannot be combined with other runners")
			}
			chosen = nil
			break
		}
		i := slices.Index(valid, n)
		if i < 0 {
			return nil, usagef("--runners: unknown runner %q (valid: %s, or none)", n, strings.Join(valid, ", "))
		}
		chosen = append(chosen, all[i])
	}
	// The user's runners join the registry beside serbench's, so that
	// everything that lists runners sees them.
	if a.reg != nil {
		if err := runner.Register(a.reg, own...); err != nil {
			return nil, usagef("%v", err)
		}
	}
	chosen = append(chosen, own...)
	if len(chosen) == 0 {
		return nil, nil
	}
	return &runner.Available{Sources: chosen, CacheDir: cacheDir(), Log: a.stderr}, nil
}

// cacheDir is where serbench keeps what it builds and learns on this
// machine (the runners, the timing history): $SERBENCH_CACHE, or
// serbench under the user's cache directory.
func cacheDir() string {
	if d := os.Getenv("SERBENCH_CACHE"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "serbench")
}

// history is this machine's timing history (run.History), which scales
// estimates and the progress line's ETA.
func history() *run.History { return &run.History{Path: filepath.Join(cacheDir(), "timings.json")} }
