package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

type runFlags struct {
	scale     string
	filter    string
	subjects  []string
	count     int
	benchtime time.Duration
	out       string
	pgDSN     string
	progress  string
}

var collectEnv = bench.CollectEnv

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
	fl := cmd.Flags()
	fl.StringVar(&f.scale, "scale", "default", "input sizes: quick, default or full")
	fl.StringVar(&f.filter, "filter", "", "only run cases whose full name matches this regular expression")
	fl.StringSliceVar(&f.subjects, "subject", nil, "only run these subjects (comma-separated)")
	fl.IntVar(&f.count, "count", 5, "samples per case")
	fl.DurationVar(&f.benchtime, "benchtime", 40*time.Millisecond, "target duration of one sample")
	fl.StringVar(&f.out, "out", "", "output directory (default ./serbench-results/<UTC time>)")
	fl.StringVar(&f.pgDSN, "pg-dsn", "", "PostgreSQL to use for pgscan instead of a throwaway local server")
	fl.StringVar(&f.progress, "progress", "auto", "progress display: auto, bar, lines or none")
	return cmd
}

func (a *app) run(ctx context.Context, names []string, f runFlags) error {
	// Validate everything before touching the disk or measuring.
	scale, err := workload.ParseScale(f.scale)
	if err != nil {
		return usageError{err}
	}
	if f.count < 1 {
		return usagef("--count must be at least 1, got %d", f.count)
	}
	if f.benchtime <= 0 {
		return usagef("--benchtime must be positive, got %s", f.benchtime)
	}
	var re *regexp.Regexp
	if f.filter != "" {
		if re, err = regexp.Compile(f.filter); err != nil {
			return usagef("--filter: %v", err)
		}
	}
	prog, err := newProgress(f.progress, a.stderr)
	if err != nil {
		return usageError{err}
	}
	var ws []workload.Workload
	if len(names) == 0 {
		ws = a.workloads
	}
	for _, n := range names {
		w, err := a.workloads.Lookup(n)
		if err != nil {
			return usageError{err}
		}
		ws = append(ws, w)
	}
	if err := checkSubjects(ws, f.subjects); err != nil {
		return usageError{err}
	}

	out := f.out
	if out == "" {
		out = filepath.Join("serbench-results", time.Now().UTC().Format("20060102T150405Z"))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return usagef("output directory: %v", err)
	}
	resPath := filepath.Join(out, "results.jsonl")
	rw, err := results.Create(resPath)
	if err != nil {
		return usagef("output directory %s is not writable: %v", out, err)
	}
	defer rw.Close()
	tmp, err := os.MkdirTemp("", "serbench-")
	if err != nil {
		return fmt.Errorf("temp dir: %w", err)
	}
	defer os.RemoveAll(tmp)

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	env := collectEnv(string(scale), f.count, a.args)
	run := &results.Run{File: resPath}
	cfg := workload.Config{Scale: scale, Subjects: f.subjects, TempDir: tmp, PGDSN: f.pgDSN}

	type planned struct {
		w    workload.Workload
		plan *workload.Plan
	}
	var plans []planned
	total := 0
	closeAll := func() {
		for _, p := range plans {
			releasePlan(a, p.w, p.plan)
		}
	}
	defer closeAll()
	for _, w := range ws {
		p, err := w.Plan(ctx, cfg)
		if err != nil {
			if len(names) == 0 && workload.IsUnavailable(err) {
				fmt.Fprintf(a.stderr, "serbench: skipping %s: %v\n", w.Name(), err)
				continue
			}
			return fmt.Errorf("%s: %w", w.Name(), err)
		}
		p.Cases = workload.FilterCases(p.Cases, re)
		for k, v := range p.Env {
			if env.Extra == nil {
				env.Extra = map[string]string{}
			}
			env.Extra[w.Name()+"."+k] = v
		}
		plans = append(plans, planned{w, p})
		total += len(p.Cases)
	}
	if total == 0 {
		return usagef("no case matches (workloads %s, --filter %q, --subject %s)", strings.Join(workloadNames(ws), ","), f.filter, strings.Join(f.subjects, ","))
	}
	run.Env = env
	if err := rw.WriteEnv(env); err != nil {
		return err
	}
	run.Env.Kind = results.KindEnv

	opts := bench.Options{Count: f.count, SampleTime: f.benchtime}
	prog.begin(total)
	done := 0
	var runErr error
	for _, p := range plans {
		prog.offset = done
		runErr = bench.RunAll(ctx, p.plan.Cases, opts, prog, func(c results.Case) error {
			run.Cases = append(run.Cases, c)
			return rw.WriteCase(c)
		})
		done += len(p.plan.Cases)
		// Release the workload's data (servers, files, in-memory inputs)
		// now, so the next workload's GCs and peak RSS do not carry it.
		releasePlan(a, p.w, p.plan)
		if runErr != nil {
			break
		}
	}
	prog.end()
	interrupted := runErr != nil && bench.IsInterrupted(runErr)
	if runErr != nil && !interrupted {
		fmt.Fprintf(a.stderr, "serbench: %v\n", runErr)
	}
	if err := rw.Close(); err != nil {
		return err
	}
	if err := writeOutputs(out, run, a.workloads.Sections()); err != nil {
		return err
	}
	a.printSummary(run, ws)
	fmt.Fprintf(a.stdout, "\nresults: %s\nreport:  %s\n", resPath, filepath.Join(out, "report.html"))
	switch {
	case interrupted:
		return exitError{ExitInterrupted, fmt.Errorf("interrupted: kept %d finished cases in %s", len(run.Cases), resPath)}
	case runErr != nil:
		return runErr
	}
	return nil
}

func workloadNames(ws []workload.Workload) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Name())
	}
	return out
}

func checkSubjects(ws []workload.Workload, subjects []string) error {
	if len(subjects) == 0 {
		return nil
	}
	valid := map[string]bool{}
	var all []string
	for _, w := range ws {
		for _, s := range w.Subjects() {
			if !valid[s] {
				valid[s] = true
				all = append(all, s)
			}
		}
	}
	for _, s := range subjects {
		if !valid[s] {
			return fmt.Errorf("unknown subject %q for %s (valid: %s)", s, strings.Join(workloadNames(ws), ", "), strings.Join(all, ", "))
		}
	}
	return nil
}

// writeOutputs writes bench.txt and the report next to results.jsonl.
func writeOutputs(dir string, run *results.Run, sections []report.Section) error {
	bf, err := os.Create(filepath.Join(dir, "bench.txt"))
	if err != nil {
		return fmt.Errorf("bench.txt: %w", err)
	}
	if err := results.WriteBenchfmt(bf, run); err != nil {
		bf.Close()
		return err
	}
	if err := bf.Close(); err != nil {
		return fmt.Errorf("bench.txt: %w", err)
	}
	doc, err := report.Build([]*results.Run{run}, sections)
	if err != nil {
		return err
	}
	return doc.WriteDir(dir)
}

// releasePlan closes a plan once and drops its cases so that their data
// can be collected, then returns the memory to the OS.
func releasePlan(a *app, w workload.Workload, p *workload.Plan) {
	if p.Close != nil {
		if err := p.Close(); err != nil {
			fmt.Fprintf(a.stderr, "serbench: %s: cleanup: %v\n", w.Name(), err)
		}
		p.Close = nil
	}
	p.Cases = nil
	debug.FreeOSMemory()
}
