// Package run is serbench's run pipeline: plan the chosen workloads, filter
// their cases, verify and measure them (comparison groups interleaved),
// release each workload's resources as soon as it is done, and write the
// outputs — results.jsonl as cases finish, then bench.txt and the reports.
// The command line calls it in a few lines; so can any other program.
package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/callgrind"
	"github.com/serbench/serbench/pgserver"
	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/workload"
)

// Options say what to run and where to write it.
type Options struct {
	// Workloads are every workload known, in run order.
	Workloads workload.Set
	// Names select workloads by name; empty runs every workload, skipping
	// those unavailable on this machine with a message.
	Names []string
	Scale workload.Scale
	// Filter keeps the cases whose full name matches (nil: all).
	Filter *regexp.Regexp
	// Subjects keeps these subjects only (empty: all).
	Subjects []string
	// Count is the number of samples per case; Benchtime the target time
	// of one sample.
	Count     int
	Benchtime time.Duration
	// Target is the sequential-sampling target (bench.Options.Target): 0
	// takes Count samples of every case.
	Target float64
	// Out is the output directory (created when missing).
	Out string
	// Force replaces a run already in Out; Resume finishes it, keeping its
	// finished cases. Without either, a run in Out is an error.
	Force, Resume bool
	// Shard, when set, runs only that part of the plan.
	Shard Shard
	// RunID names the run its shards share; default: derived from the
	// command line (without --shard) and the build's revision.
	RunID string
	// Progress is told about every case (may be nil).
	Progress Progress
	// Args is the command line, recorded (with secrets redacted).
	Args []string
	// Log receives one-line messages (skipped workloads, cleanup errors).
	Log io.Writer
	// Forks, when positive, overrides the number of child processes of
	// every workload that can fork (workload.Plan.Forks ≥ 1); 1 measures
	// in one child process. Workloads that cannot fork ignore it.
	Forks int
	// Spawn launches forks; nil measures every workload in this process.
	Spawn Spawner
	// Cases, when non-nil, keeps exactly the cases with these full names
	// (a fork measuring its parent's selection).
	Cases []string
	// Iters gives cases (by full name) their iterations per sample, as a
	// fork's parent learnt them from its first fork: they skip calibration.
	Iters map[string]int
	// CaseTimeout bounds one call into a case's code (set-up,
	// verification, one sample); 0 means no bound. See Outcome.TimedOut.
	CaseTimeout time.Duration
	// Measured, when set, is called once measuring has ended (every case
	// done, or the context ended and the case in progress stopped),
	// before the end line and the report are written.
	Measured func()
	// ResultsOnly writes results.jsonl only: no bench.txt, no report (a
	// fork, whose parent writes them).
	ResultsOnly bool
	// Runners are the runners for other languages the workloads may use
	// (nil: Go subjects only). A fork gets none: runner cases are measured
	// by this process, the runner being a process of its own.
	Runners *runner.Available
	// Budget, when positive, is the time the run should take: each
	// workload gets the part of what is left that its estimate is of the
	// estimates left, and past it its groups stop after the fewest rounds
	// that give an interval (bench.Options.Deadline) and its forks after
	// two processes. What a run cannot do in less (set-up, those rounds)
	// it still does: the budget cuts samples, never cases.
	Budget time.Duration
	// Deadline, when set, is the budget's end for every workload of the
	// run: a fork gets its parent's (Fork.Deadline).
	Deadline time.Time
	// Sampling names how the run samples when that differs from the main
	// job (its count, target, sample time or budget), "" otherwise: the
	// timing History keeps such runs apart.
	Sampling string
	// Metric says what is measured: time (the zero Metric too),
	// instructions, or both.
	Metric Metric
	// Valgrind is the valgrind executable a run counting instructions
	// starts its counting children under ("": none found).
	Valgrind string
	// Counter, set in a counting child (under Valgrind), counts the Go
	// cases' instructions instead of timing them.
	Counter *callgrind.Counter
	// History, when set, scales the progress line's estimates by this
	// machine's past runs and records each workload run whole (nothing
	// filtered, sharded or resumed) that finished.
	History *History
}

// runnerNames are the runners the options ask for, for History's keys.
func (o Options) runnerNames() []string {
	if o.Runners == nil {
		return nil
	}
	var out []string
	for _, s := range o.Runners.Sources {
		out = append(out, s.Name)
	}
	return out
}

// whole reports whether a run with these options measures every case of
// its workloads' plans: only such runs go into the History.
func (o Options) whole() bool {
	return o.Filter == nil && len(o.Subjects) == 0 && o.Shard.N <= 1 && o.Cases == nil && o.Iters == nil
}

// CostKey keys a case's estimated cost in Progress.Begin's map.
func CostKey(workload, fullName string) string { return workload + "\x00" + fullName }

// Progress follows a run: Begin with the number of case runs and each
// case's estimated cost (by CostKey), then the bench callbacks for each case
// (counts over the whole run), then End. A case measured in several
// processes (forks) counts once per process.
type Progress interface {
	bench.SampleProgress
	Begin(total int, cost map[string]CaseCost)
	// Budget is told, before Begin, when the run's time budget ends and
	// each workload's floor (what it costs when its groups are cut at
	// once), and Deadline, as each workload starts, when its groups are
	// cut: the time left a progress line shows follows what the budget
	// will cut. A run without a budget calls neither.
	Budget(end time.Time, floors map[string]time.Duration)
	Deadline(workload string, at time.Time)
	End()
}

// CaseCost is a case's estimated cost: of one run (bench.Estimate; a forked
// case's run is one process's share of its samples, its calibration
// included) and the number of runs (the processes that measure it).
type CaseCost struct {
	PerRun time.Duration
	Runs   int
	// Floor is what all its runs cost when the budget cuts them at once.
	Floor time.Duration
}

// Total is the cost of all the case's runs.
func (c CaseCost) Total() time.Duration { return c.PerRun * time.Duration(max(c.Runs, 1)) }

// Outcome is what a run produced.
type Outcome struct {
	// Run is everything recorded, resumed cases included.
	Run *results.Run
	// Dir is the output directory; ResultsPath its results file.
	Dir, ResultsPath string
	// Interrupted is set when the context ended before every case ran.
	Interrupted bool
	// TimedOut is set when a case ran past Options.CaseTimeout: it is
	// recorded FAILED, the run ended there without writing its report,
	// and the case's code may still be running in this process, so the
	// caller measures the rest in a fresh one (with Resume).
	TimedOut *bench.TimeoutError
	// Workloads are the workloads that ran, in order.
	Workloads []workload.Workload
}

// Files a run writes into its directory.
const (
	ResultsFile = "results.jsonl"
	BenchFile   = "bench.txt"
)

// Select resolves names to workloads, in the order given, each once; no
// names means all of them.
func Select(all workload.Set, names []string) ([]workload.Workload, error) {
	if len(names) == 0 {
		return all, nil
	}
	var out []workload.Workload
	for _, n := range names {
		w, err := all.Lookup(n)
		if err != nil {
			return nil, &workload.UsageError{Err: err}
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out, nil
}

// ProbeEvery is how often a run times the machine with bench.Prober:
// about 4 ms of arithmetic a second, 0.4% of the run.
const ProbeEvery = time.Second

// Run plans, measures and writes. Every case is written to results.jsonl
// as soon as it is measured; when ctx ends the run stops after the current
// comparison group, records that it was interrupted and still renders the
// report from what it finished. The error is non-nil for bad options
// (a *workload.UsageError), for a workload that could not be planned, and for
// output that could not be written.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	ws, err := Select(o.Workloads, o.Names)
	if err != nil {
		return nil, err
	}
	if err := checkSubjects(ws, o.Subjects, o.Runners.Languages()); err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Force && o.Resume {
		return nil, workload.Usagef("--force and --resume exclude each other")
	}
	// The output directory is this run's until it returns: a second run
	// on it stops here, before reading or writing anything.
	outLock, err := lockOut(o.Out)
	if err != nil {
		return nil, err
	}
	defer outLock.Close()
	resPath := filepath.Join(o.Out, ResultsFile)
	prev, err := o.previous(resPath)
	if err != nil {
		return nil, err
	}
	if n := RemoveStaleTemps("", o.Log); n > 0 {
		fmt.Fprintf(o.Log, "serbench: removed %d temporary directories of runs that were killed\n", n)
	}
	pgserver.RemoveStale("")
	tmpDir, err := newTempDir("")
	if err != nil {
		return nil, err
	}
	defer tmpDir.Remove()
	tmp := tmpDir.path

	scale := o.Scale
	if prev != nil {
		if scale != workload.Scale(prev.Env.Scale) {
			return nil, workload.Usagef("--resume: the run in %s is at scale %s, not %s", o.Out, prev.Env.Scale, scale)
		}
	}
	env := bench.CollectEnv(string(scale), o.Count, results.RedactArgs(o.Args))
	env.Benchtime = o.Benchtime
	if o.Budget > 0 {
		if env.Extra == nil {
			env.Extra = map[string]string{}
		}
		env.Extra["run.budget"] = o.Budget.String()
	}
	if o.Shard.N > 1 {
		env.Shard = o.Shard.String()
		env.RunID = o.RunID
		if env.RunID == "" {
			env.RunID = runID(o.Args, env.Revision)
		}
	}
	cfg := workload.Config{Scale: scale, Subjects: o.Subjects, TempDir: tmp, Runners: o.Runners}

	// Plan every workload before measuring anything, so that a bad filter
	// or a workload that cannot start fails before the first case.
	type planned struct {
		w    workload.Workload
		plan *workload.Plan
	}
	var plans []planned
	release := func(p planned) {
		if p.plan.Close != nil {
			if err := p.plan.Close(); err != nil {
				fmt.Fprintf(o.Log, "serbench: %s: cleanup: %v\n", p.w.Name(), err)
			}
			p.plan.Close = nil
		}
		p.plan.Cases = nil
		debug.FreeOSMemory()
	}
	defer func() {
		for _, p := range plans {
			release(p)
		}
	}()
	done := map[string]bool{}
	if prev != nil {
		for i := range prev.Cases {
			done[prev.Cases[i].Workload+"\x00"+prev.Cases[i].FullName()] = true
		}
	}
	total := 0
	var ran []workload.Workload
	var planCases [][]bench.Case // each plan's cases, before the selection
	forks := map[string]int{}
	for _, w := range ws {
		p, err := w.Plan(ctx, cfg)
		if err != nil && ctx.Err() != nil {
			// Stopped while planning (a server starting, an input being
			// read): nothing was measured, and the error is the stop's.
			return nil, bench.ErrInterrupted
		}
		if err != nil {
			if len(o.Names) == 0 && workload.IsUnavailable(err) {
				fmt.Fprintf(o.Log, "serbench: %s\n", NotInRun(w.Name(), err))
				continue
			}
			return nil, fmt.Errorf("%s: %w", w.Name(), err)
		}
		pl := planned{w, p}
		plans = append(plans, pl)
		if err := checkPlan(w.Name(), p); err != nil {
			return nil, err
		}
		if err := sameIdentity(prev, w.Name(), p); err != nil {
			return nil, err
		}
		planCases = append(planCases, p.Cases)
		p.Cases = notDone(o.Shard.Select(w.Name(), workload.FilterCases(selectSubjects(p.Cases, o.Subjects), o.Filter)), done)
		if o.Cases != nil {
			p.Cases = only(p.Cases, o.Cases)
		}
		for i := range p.Cases {
			if n := o.Iters[p.Cases[i].FullName()]; n > 0 {
				p.Cases[i].Iters = n
			}
		}
		if f := o.forks(p); f >= 1 {
			forks[w.Name()] = f
			if p.Env == nil {
				p.Env = map[string]string{}
			}
			p.Env["forks"] = forksFact(f, o.Count, ForkGODEBUG(os.Getenv("GODEBUG")))
		}
		for k, v := range p.Env {
			if env.Extra == nil {
				env.Extra = map[string]string{}
			}
			env.Extra[w.Name()+"."+k] = results.Redact(v)
		}
		total += len(p.Cases) * max(1, forks[w.Name()])
		ran = append(ran, w)
	}
	if err := checkSelected(ws, planCases, o.Subjects, o.Runners.Languages()); err != nil {
		return nil, err
	}
	if total == 0 && prev != nil {
		// Killed after its last case (while writing the report): render
		// the outputs from what is recorded.
		fmt.Fprintf(o.Log, "serbench: --resume: every case of %s is already finished; writing its report\n", resPath)
		out := &Outcome{Run: prev, Dir: o.Out, ResultsPath: resPath, Workloads: ran}
		if !o.ResultsOnly {
			if err := WriteOutputs(o.Out, []*results.Run{prev}, o.Workloads); err != nil {
				return out, err
			}
		}
		return out, nil
	}
	if total == 0 && o.Shard.N > 1 && prev == nil {
		fmt.Fprintf(o.Log, "serbench: shard %s has no case (the plan has fewer units than shards); writing an empty run\n", o.Shard)
	} else if total == 0 {
		filter := ""
		if o.Filter != nil {
			filter = o.Filter.String()
		}
		return nil, workload.Usagef("no case matches (workloads %s, --filter %q, --subject %s)", strings.Join(names(ws), ","), filter, strings.Join(o.Subjects, ","))
	}

	for _, p := range plans {
		if f := forks[p.w.Name()]; f > 1 && len(p.plan.Cases) > 0 {
			fmt.Fprintf(o.Log, "serbench: %s: each case measured in %d processes, one after another (--forks)\n", p.w.Name(), f)
		}
	}

	var rw *results.Writer
	rec := &results.Run{File: resPath, Env: env}
	if prev != nil {
		rec = prev
		rw, err = results.Append(resPath)
	} else {
		rw, err = results.Create(resPath)
	}
	if err != nil {
		return nil, workload.Usagef("output directory %s is not writable: %v", o.Out, err)
	}
	defer rw.Close()
	if prev == nil {
		if err := rw.WriteEnv(env); err != nil {
			return nil, err
		}
		rec.Env.Kind, rec.Env.Schema = results.KindEnv, results.SchemaVersion
	}
	for _, p := range plans {
		for _, d := range p.plan.Descriptors {
			d.Workload = p.w.Name()
			d = withOperations(d, p.plan.Cases)
			if rec.Descriptor(d.Workload, d.Key, d.Name) != nil {
				continue
			}
			if err := rw.WriteDescriptor(d); err != nil {
				return nil, err
			}
			d.Kind = results.KindDescriptor
			rec.Descriptors = append(rec.Descriptors, d)
		}
	}

	for _, p := range plans {
		if err := recordLayout(rw, rec, p.w); err != nil {
			return nil, err
		}
	}

	probe := func(p results.Probe) error {
		rec.Probes = append(rec.Probes, p)
		return rw.WriteProbe(p)
	}
	opts := bench.Options{Count: o.Count, SampleTime: o.Benchtime, CaseSampling: o.caseSampling(), Target: o.Target, CaseTimeout: o.CaseTimeout, Probe: &bench.Prober{Every: ProbeEvery, Sink: probe}}
	defer opts.Probe.Close()
	prog := &offsetProgress{p: o.Progress}
	// Each case's estimated cost, and each workload's (all cases, and
	// those measured in Go), for the progress line and the History.
	cost := map[string]CaseCost{}
	estimate, local := map[string]time.Duration{}, map[string]time.Duration{}
	// The estimates and floors (each workload's cost when the budget cuts
	// all it can) of the workloads not yet run, scaled by the timing
	// history.
	left, leftFloor := map[string]time.Duration{}, map[string]time.Duration{}
	for _, p := range plans {
		name := p.w.Name()
		f := max(forks[name], 1)
		localFactor, remoteFactor := o.History.Factors(name, string(o.Scale), o.runnerNames(), o.historyIdentity(p.plan))
		for i := range p.plan.Cases {
			c := p.plan.Cases[i]
			if c.Remote == nil && f > 1 {
				// Each process calibrates (warms up) the case and takes
				// its share of the samples.
				c.Count = (max(c.Count, o.Count) + f - 1) / f
			}
			e := bench.Estimate(&c, opts)
			estimate[name] += e * time.Duration(f)
			factor, runs := remoteFactor, 1
			if c.Remote == nil {
				local[name] += e * time.Duration(f)
				factor, runs = localFactor, f
			}
			var fl time.Duration
			if c.Remote == nil && f > 1 {
				// The budget stops a forked case after its second
				// process, each process taking its whole share.
				fl = e * time.Duration(min(f, 2))
			} else {
				fl = bench.Floor(&c, opts)
			}
			scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * factor) }
			left[name] += scale(e * time.Duration(runs))
			floor := scale(min(fl, e*time.Duration(runs)))
			leftFloor[name] += floor
			cc := CaseCost{PerRun: scale(e), Runs: runs, Floor: floor}
			if o.Metric.Instructions && c.Remote == nil && o.Counter == nil {
				// Counted under Valgrind: the progress line only sees the
				// counts where nothing is timed; counting's cost is told
				// in its own lines otherwise.
				if !o.Metric.Time {
					cc = CaseCost{PerRun: countEstimate(&c), Runs: 1}
				}
				left[name] += countEstimate(&c)
			}
			cost[CostKey(c.Workload, c.FullName())] = cc
		}
	}
	if o.Progress != nil {
		if o.Budget > 0 && o.Deadline.IsZero() {
			o.Progress.Budget(time.Now().Add(o.Budget), maps.Clone(leftFloor))
		}
		o.Progress.Begin(total, cost)
	}
	var runErr error
	finished, nCases := 0, 0
	for _, p := range plans {
		nCases += len(p.plan.Cases)
	}
	runStart := time.Now()
	for _, p := range plans {
		n := len(p.plan.Cases)
		nPlanned, started := n, time.Now()
		opts.Deadline = o.Deadline
		if o.Budget > 0 && o.Deadline.IsZero() {
			opts.Deadline = started.Add(budgetShare(o.Budget-time.Since(runStart), p.w.Name(), left, leftFloor))
			if o.Progress != nil {
				o.Progress.Deadline(p.w.Name(), opts.Deadline)
			}
		}
		delete(left, p.w.Name())
		delete(leftFloor, p.w.Name())
		emit := func(c results.Case) error {
			c.Error = results.Redact(c.Error)
			rec.Cases = append(rec.Cases, c)
			finished++
			return rw.WriteCase(c)
		}
		counting := o.Metric.Instructions && o.Counter == nil && o.Spawn != nil && n > 0
		timeLocal := o.Metric.Time || !o.Metric.Instructions
		if counting {
			local, remote := splitRemote(p.plan.Cases)
			byName := make(map[string]*bench.Case, len(local))
			for i := range local {
				byName[local[i].FullName()] = &local[i]
			}
			counts := 0
			onEvent := func(e ForkEvent) {
				c := byName[e.Name]
				switch {
				case c == nil:
				case timeLocal:
					// Timed afterwards: the counts are a pass before the
					// progress line's cases, told on the log.
					if e.Done {
						counts++
						fmt.Fprintf(o.Log, "serbench: %s: instructions %d/%d: %s %s\n", p.w.Name(), counts, len(local), e.Name, e.Status)
					}
				case !e.Done:
					prog.Start(counts, 0, c)
				default:
					counts++
					prog.Done(counts, 0, &results.Case{Workload: c.Workload, Name: c.Name, Labels: c.Labels, Status: e.Status, Error: e.Error})
				}
			}
			counted, err := countInstructions(ctx, o, p.w.Name(), local, tmp, onEvent)
			if err != nil && bench.IsInterrupted(err) {
				runErr = err
				break
			}
			if err != nil {
				fmt.Fprintf(o.Log, "serbench: %s: %v; measuring by time\n", p.w.Name(), err)
				timeLocal = true
				counted = nil
			}
			remoteKeys := map[string]bool{}
			for i := range remote {
				remoteKeys[remote[i].FullName()] = true
			}
			if err == nil && len(remote) > 0 {
				byRunner, rerr := countRemote(ctx, o, remote, opts, tmp)
				if rerr != nil && bench.IsInterrupted(rerr) {
					runErr = rerr
					break
				}
				if rerr != nil {
					fmt.Fprintf(o.Log, "serbench: %s: the runners' instructions: %v\n", p.w.Name(), rerr)
				}
				if counted == nil {
					counted = map[string]results.Case{}
				}
				for name, c := range byRunner {
					counted[name] = c
					remoteKeys[name] = false // counted: taken like a Go case's counts
				}
			}
			timed := emit
			emit = func(c results.Case) error {
				return timed(withCounts(c, counted, remoteKeys[c.FullName()]))
			}
			if !timeLocal {
				// Counted, not timed: the Go cases are the child's; the
				// runners' cases are timed (they cannot be counted).
				for i := range local {
					c, ok := counted[local[i].FullName()]
					if !ok {
						c = results.Case{Workload: local[i].Workload, Name: local[i].Name, Labels: local[i].Labels, Role: local[i].Role, Group: local[i].Group,
							Status: results.StatusFailed, Error: "instructions: the counting child did not reach the case"}
					}
					if runErr = timed(c); runErr != nil {
						break
					}
				}
				prog.offset += len(local)
				p.plan.Cases = remote
				n = len(remote)
			}
		}
		if runErr != nil {
			break
		}
		if o.Counter != nil {
			// A counting child: count the Go cases, time nothing.
			local, _ := splitRemote(p.plan.Cases)
			runErr = countAll(ctx, o.Counter, local, prog, emit)
		} else if f := forks[p.w.Name()]; f >= 1 && n > 0 {
			// Cases a runner measures in its own process stay here: a
			// fork plans without runners.
			local, remote := splitRemote(p.plan.Cases)
			runErr = measureForked(ctx, o, p.w.Name(), local, f, opts.Deadline, tmp, prog, emit, probe)
			n = len(local)*f + len(remote)
			if runErr == nil && len(remote) > 0 {
				prog.offset += len(local) * f
				runErr = bench.RunAll(ctx, remote, opts, prog, emit)
				prog.offset -= len(local) * f
			}
		} else {
			// A workload that measures this process's resident memory
			// runs without the memory probe's buffer.
			if opts.Probe.NoMemory = p.plan.MeasuresRSS; opts.Probe.NoMemory {
				runErr = opts.Probe.Close()
			}
			if runErr == nil {
				runErr = bench.RunAll(ctx, p.plan.Cases, opts, prog, emit)
			}
		}
		prog.offset += n
		// The runners' part of the workload, for the timing history, while
		// the plan still says which cases are theirs.
		remote := remoteWall(rec.Cases, p.w.Name(), p.plan.Cases)
		// Release the workload's data (servers, files, in-memory inputs)
		// now, so the next workload's GCs and peak RSS do not carry it.
		release(p)
		if runErr != nil {
			break
		}
		if o.whole() && prev == nil && n > 0 && !o.Metric.Instructions {
			t := Timing{Estimate: estimate[p.w.Name()], Local: local[p.w.Name()], Actual: time.Since(started),
				Remote: remote, Cases: nPlanned, When: time.Now().UTC()}
			if err := o.History.Record(p.w.Name(), string(o.Scale), o.runnerNames(), o.historyIdentity(p.plan), t); err != nil {
				fmt.Fprintf(o.Log, "serbench: %v\n", err)
			}
		}
	}
	if o.Progress != nil {
		o.Progress.End()
	}
	if o.Measured != nil {
		o.Measured()
	}
	out := &Outcome{Run: rec, Dir: o.Out, ResultsPath: resPath, Workloads: ran}
	out.Interrupted = runErr != nil && bench.IsInterrupted(runErr)
	if errors.As(runErr, &out.TimedOut) {
		runErr = nil
	}
	end := results.End{Time: time.Now().UTC(), Interrupted: runErr != nil || out.TimedOut != nil, Planned: nCases, Done: finished}
	switch {
	case out.TimedOut != nil:
		end.Error = results.Redact(out.TimedOut.Error())
	case out.Interrupted:
		end.Error = "interrupted"
	case runErr != nil:
		end.Error = results.Redact(runErr.Error())
	}
	if err := rw.WriteEnd(end); err != nil {
		return out, err
	}
	end.Kind = results.KindEnd
	rec.End = &end
	if err := rw.Close(); err != nil {
		return out, err
	}
	if !o.ResultsOnly && out.TimedOut == nil {
		if err := WriteOutputs(o.Out, []*results.Run{rec}, o.Workloads); err != nil {
			return out, err
		}
	}
	if runErr != nil && !out.Interrupted {
		return out, runErr
	}
	return out, nil
}

// previous returns the run already in the results file at path that
// --resume finishes (nil when there is none to finish), or the error for a
// file that --force or --resume must be asked for. A last line cut short
// is removed from the file first, so that the resumed run's lines start on
// a line of their own; a file left with nothing before its environment
// line was complete holds no run, and the run starts afresh.
func (o Options) previous(path string) (*results.Run, error) {
	_, statErr := os.Stat(path)
	switch {
	case statErr != nil:
		if others := othersFiles(o.Out); len(others) > 0 {
			return nil, workload.Usagef("%s holds no serbench run but files a run would overwrite (%s): choose another --out", o.Out, strings.Join(others, ", "))
		}
		return nil, nil
	case o.Force:
		return nil, clearRun(o.Out)
	case !o.Resume:
		return nil, workload.Usagef("%s already holds a run (%s): pass --resume to finish it or --force to replace it", o.Out, ResultsFile)
	}
	removed, err := results.RepairTail(path)
	if err != nil {
		return nil, err
	}
	if removed > 0 {
		fmt.Fprintf(o.Log, "serbench: --resume: removed the last line of %s (%d bytes), cut short when the run was stopped; its case runs again\n", path, removed)
	}
	if st, err := os.Stat(path); err == nil && st.Size() == 0 {
		fmt.Fprintf(o.Log, "serbench: --resume: %s recorded nothing yet; starting the run afresh\n", path)
		return nil, nil
	}
	prev, err := results.ReadFile(path)
	if err != nil {
		return nil, workload.Usagef("--resume: %v", err)
	}
	for _, w := range prev.Warnings {
		fmt.Fprintf(o.Log, "serbench: %s\n", w)
	}
	return prev, nil
}

// WriteOutputs writes bench.txt (every sample of every run, for
// benchstat), github-benchmark.json (for github-action-benchmark's
// customSmallerIsBetter) and the report (Markdown, HTML, SVG plots) into
// dir.
func WriteOutputs(dir string, runs []*results.Run, ws workload.Set) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	bf, err := os.Create(filepath.Join(dir, BenchFile))
	if err != nil {
		return fmt.Errorf("%s: %w", BenchFile, err)
	}
	if err := results.WriteBenchfmt(bf, runs...); err != nil {
		bf.Close()
		return err
	}
	if err := bf.Close(); err != nil {
		return fmt.Errorf("%s: %w", BenchFile, err)
	}
	gf, err := os.Create(filepath.Join(dir, results.GitHubBenchmarkFile))
	if err != nil {
		return fmt.Errorf("%s: %w", results.GitHubBenchmarkFile, err)
	}
	if err := results.WriteGitHubBenchmark(gf, runs...); err != nil {
		gf.Close()
		return err
	}
	if err := gf.Close(); err != nil {
		return fmt.Errorf("%s: %w", results.GitHubBenchmarkFile, err)
	}
	doc, err := report.Build(ReportInput(runs, ws))
	if err != nil {
		return err
	}
	return doc.WriteDir(dir)
}

// ReportInput is what the report of runs is built from: the runs, the
// blocks each workload derives from each run's results, and this build's
// layouts for results files that recorded none.
func ReportInput(runs []*results.Run, ws workload.Set) report.Input {
	return report.Input{Runs: runs, Derived: ws.Derive(runs), Layouts: ws.Layouts()}
}

// splitRemote separates the cases another process measures (a runner's)
// from the others.
func splitRemote(cases []bench.Case) (local, remote []bench.Case) {
	for _, c := range cases {
		if c.Remote != nil {
			remote = append(remote, c)
		} else {
			local = append(local, c)
		}
	}
	return local, remote
}

// recordLayout writes w's declared report sections into the results file
// once (a resumed run has them already).
func recordLayout(rw *results.Writer, run *results.Run, w workload.Workload) error {
	for _, s := range run.Sections {
		if s.Workload == w.Name() {
			return nil
		}
	}
	for _, s := range workload.Layout(w) {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("workload %s declares a bad section: %w", w.Name(), err)
		}
		if err := rw.WriteSection(w.Name(), s); err != nil {
			return err
		}
		b, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("results: encode section: %w", err)
		}
		run.Sections = append(run.Sections, results.Section{Workload: w.Name(), Title: s.Title, JSON: b})
	}
	return nil
}

// isOutput reports whether a file of this name is one a run writes.
func isOutput(name string) bool {
	switch name {
	case ResultsFile, BenchFile, results.GitHubBenchmarkFile, "report.md", "report.html", "report.json":
		return true
	}
	return strings.HasSuffix(name, ".svg")
}

// othersFiles returns the files in dir that a run would overwrite when
// dir holds no run: they are somebody else's.
func othersFiles(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if !e.IsDir() && isOutput(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// clearRun removes what an earlier run wrote into dir (and nothing else).
func clearRun(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("--force: %w", err)
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			continue
		}
		if isOutput(n) {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				return fmt.Errorf("--force: %w", err)
			}
		}
	}
	return nil
}

// checkPlan checks the shape every workload shares: each case names its
// subject under the label key "subject", with a role, and the plan
// describes every subject it uses.
func checkPlan(w string, p *workload.Plan) error {
	described := map[string]string{}
	for _, d := range p.Descriptors {
		if d.Key == "subject" {
			described[d.Name] = d.Role
		}
	}
	for i := range p.Cases {
		c := &p.Cases[i]
		s := c.Labels.Get("subject")
		role, ok := described[s]
		switch {
		case s == "":
			return fmt.Errorf("%s: case %s has no subject label", w, c.FullName())
		case !ok:
			return fmt.Errorf("%s: subject %q of case %s has no descriptor", w, s, c.FullName())
		case c.Role == "":
			// A case may differ from its subject's role: a records read
			// floor is a limit row of a format subject.
			c.Role = role
		}
	}
	return nil
}

// sameIdentity checks that plan p of workload w measures what the run
// being resumed measured (the facts p.Identity names, as prev recorded
// them); a fact prev did not record (a workload it did not run, an older
// file) is not checked.
func sameIdentity(prev *results.Run, w string, p *workload.Plan) error {
	if prev == nil {
		return nil
	}
	for _, k := range p.Identity {
		was, ok := prev.Env.Extra[w+"."+k]
		if now := results.Redact(p.Env[k]); ok && was != now {
			return workload.Usagef("--resume: the run in %s measured %s with %s %s, this command gives %s: resume with the same settings or choose another --out", filepath.Dir(prev.File), w, k, was, now)
		}
	}
	return nil
}

// notDone drops the cases a resumed run has finished already.
func notDone(cases []bench.Case, done map[string]bool) []bench.Case {
	if len(done) == 0 {
		return cases
	}
	var out []bench.Case
	for _, c := range cases {
		if !done[c.Workload+"\x00"+c.FullName()] {
			out = append(out, c)
		}
	}
	return out
}

func names(ws []workload.Workload) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Name()
	}
	return out
}

func checkSubjects(ws []workload.Workload, subjects, langs []string) error {
	if len(subjects) == 0 {
		return nil
	}
	var all []string
	for _, w := range ws {
		for _, s := range w.Subjects() {
			if !slices.Contains(all, s) {
				all = append(all, s)
			}
		}
	}
	for _, s := range subjects {
		if !slices.Contains(all, s) && !runnerSubject(s, langs) {
			return workload.Usagef("unknown subject %q for %s (valid: %s)", s, strings.Join(names(ws), ", "), strings.Join(all, ", "))
		}
	}
	return nil
}

// forks is the number of child processes plan p is measured in; 0
// measures it in this process.
func (o Options) forks(p *workload.Plan) int {
	if o.Spawn == nil || o.Cases != nil || p.Forks < 1 || (o.Metric.Instructions && !o.Metric.Time) {
		return 0 // no way to fork, a fork already, a workload that cannot, or nothing timed here
	}
	return o.planForks(p)
}

// forksFact is the environment card's line for a workload measured in f
// child processes.
func forksFact(f, count int, godebug string) string {
	if f == 1 {
		return fmt.Sprintf("1 child process, %d samples per case, GODEBUG=%s", count, godebug)
	}
	return fmt.Sprintf("%d processes, %d samples per case in all, GODEBUG=%s", f, count, godebug)
}

// planForks is the number of processes plan p asks for (or --forks), at
// most one per sample.
func (o Options) planForks(p *workload.Plan) int {
	f := p.Forks
	if o.Forks > 0 && f >= 1 {
		f = o.Forks
	}
	return max(1, min(f, max(o.Count, 1)))
}

// only keeps the cases whose full names are listed, in plan order.
func only(cases []bench.Case, names []string) []bench.Case {
	keep := make(map[string]bool, len(names))
	for _, n := range names {
		keep[n] = true
	}
	var out []bench.Case
	for _, c := range cases {
		if keep[c.FullName()] {
			out = append(out, c)
		}
	}
	return out
}

// offsetProgress turns a workload's case counts into the run's.
type offsetProgress struct {
	p      Progress
	offset int
}

func (o *offsetProgress) Start(done, _ int, c *bench.Case) {
	if o.p != nil {
		o.p.Start(o.offset+done, 0, c)
	}
}

func (o *offsetProgress) Sample(c *bench.Case) {
	if o.p != nil {
		o.p.Sample(c)
	}
}

func (o *offsetProgress) Done(done, _ int, r *results.Case) {
	if o.p != nil {
		o.p.Done(o.offset+done, 0, r)
	}
}

// budgetShare is the part of the time left (avail) that workload w may
// take before its groups are cut, given the estimates and the floors (the
// cost when cut at once) of the workloads not yet run, w included. The
// floors come first — the budget cannot save them — and what remains is
// shared in proportion to what each workload could spend above its
// floor: a workload whose cost is mostly set-up and single samples (a
// server's scans, whole-file reads) no longer draws the time that only a
// workload with many fast samples could have used. When the floors alone
// exceed the time left, w gets its floor.
func budgetShare(avail time.Duration, w string, est, floor map[string]time.Duration) time.Duration {
	var flex, floors time.Duration
	for name, e := range est {
		flex += max(e-floor[name], 0)
		floors += floor[name]
	}
	if flex == 0 {
		// Nothing left to cut: the share does not matter.
		return max(avail, 0)
	}
	share := floor[w]
	if spare := avail - floors; spare > 0 {
		share += time.Duration(float64(spare) * float64(max(est[w]-floor[w], 0)) / float64(flex))
	}
	return max(share, 0)
}

// caseSampling is the sampling time of a case that sets no budget of its
// own (bench.Options.CaseSampling): what --count samples of --benchtime
// take when a turn holds five of them — 500 ms at the defaults. A fast
// op takes its count within it; a slow one stops there, with at least
// six samples.
func (o Options) caseSampling() time.Duration {
	return time.Duration(o.Count) * 5 * o.Benchtime
}

// remoteWall is the wall time workload's cases measured by runners for
// other languages took, from their results: the union of their cases'
// [start, end] (the cases of one runner group share theirs).
func remoteWall(rs []results.Case, workload string, planned []bench.Case) time.Duration {
	remote := map[string]bool{}
	for i := range planned {
		if planned[i].Remote != nil {
			remote[planned[i].FullName()] = true
		}
	}
	var spans [][2]time.Time
	for i := range rs {
		r := &rs[i]
		if r.Workload == workload && remote[r.FullName()] && !r.Start.IsZero() && r.End.After(r.Start) {
			spans = append(spans, [2]time.Time{r.Start, r.End})
		}
	}
	slices.SortFunc(spans, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	var total time.Duration
	var cur [2]time.Time
	for i, sp := range spans {
		switch {
		case i == 0:
			cur = sp
		case sp[0].After(cur[1]):
			total += cur[1].Sub(cur[0])
			cur = sp
		case sp[1].After(cur[1]):
			cur[1] = sp[1]
		}
	}
	if len(spans) > 0 {
		total += cur[1].Sub(cur[0])
	}
	return total
}

// withOperations records in a subject's descriptor what each op its cases
// measure means (Settings "operations": "write: values → a real file;
// read: …"), in the vocabulary every language shares (results.OpMeaning),
// unless the descriptor says so already (a runner's does).
func withOperations(d results.Descriptor, cases []bench.Case) results.Descriptor {
	if d.Role == results.RoleLimit || d.Settings["operations"] != "" {
		return d
	}
	var ops []string
	for _, c := range cases {
		if c.Labels.Get(d.Key) != d.Name {
			continue
		}
		op := c.Labels.Get(results.OpLabel)
		if m := results.OpMeaning(op); m != "" && !slices.Contains(ops, op+": "+m) {
			ops = append(ops, op+": "+m)
		}
	}
	if len(ops) == 0 {
		return d
	}
	settings := maps.Clone(d.Settings)
	if settings == nil {
		settings = map[string]string{}
	}
	settings["operations"] = strings.Join(ops, "; ")
	d.Settings = settings
	return d
}

// NotInRun is the one line saying why a run of every workload leaves out
// workload name, whose plan failed with err (wrapping
// workload.ErrUnavailable), and what to do to measure it.
func NotInRun(name string, err error) string {
	if errors.Is(err, workload.ErrNeedsInput) {
		return fmt.Sprintf("%s is not in this run: %s (serbench run %[1]s --input FILE, or --input corpus:movies for a public one)", name, workload.ErrNeedsInput)
	}
	return fmt.Sprintf("%s is not in this run: %v", name, err)
}
