package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

// A Fork asks for one process to measure part of a workload's samples.
type Fork struct {
	// Workload names the workload; Scale, Subjects and Benchtime are the
	// run's.
	Workload  string
	Scale     workload.Scale
	Subjects  []string
	Benchtime string
	// CaseTimeout is the run's bound on one call into a case's code.
	CaseTimeout time.Duration
	// K and N: this is fork K of N (1-based).
	K, N int
	// Count is the number of samples this fork takes per case; Target
	// the run's sequential-sampling target.
	Count  int
	Target float64
	// Deadline, when set, is when the run's budget for this workload
	// runs out (bench.Options.Deadline).
	Deadline time.Time
	// CasesFile lists the full names of the cases to measure, one per
	// line: exactly the parent's selection after filter, shard and resume.
	CasesFile string
	// Out is the directory the fork writes its results.jsonl into.
	Out string
	// ItersFile, when set, gives each case its iterations per sample as
	// the first fork calibrated them ("<full name>\t<iterations>" lines):
	// later forks skip calibration and warm up with one sample's run.
	ItersFile string
	// Env holds KEY=VALUE settings the fork's process runs with, on top of
	// the parent's environment (see ForkGODEBUG).
	Env []string
	// CountInstructions makes the fork count its cases' instructions
	// instead of timing them (it runs under Wrap: Valgrind).
	CountInstructions bool
	// Wrap, when set, is the command (and its arguments) the fork's
	// process runs under.
	Wrap []string
}

// forkRuntime is the Go runtime setting forks measure under: heap the
// runtime returns to the kernel is released with MADV_FREE instead of
// MADV_DONTNEED, so that using it again does not page-fault while the
// machine has memory to spare. Between the forced collections before each
// sample the scavenger returns freed heap, and an allocating subject's next
// sample paid page faults for as much of it as the scavenger's timing
// allowed: on a 2-core VM, 52 of the 109 allocating cases of a features
// N=100,000 slice were noisy, 34 with the setting (the 145 that allocate
// nothing: 22 and 22). Only forks use it: a fork reports no resident-set
// figure and exits when done, while the serbench process itself measures
// pgscan's peak RSS, which lazily freed pages would inflate.
const forkRuntime = "madvdontneed=0"

// ForkGODEBUG returns the GODEBUG a fork runs with when the parent's is
// parent: the parent's with forkRuntime added, unless it names
// madvdontneed itself (the user's choice stands).
func ForkGODEBUG(parent string) string {
	for _, kv := range strings.Split(parent, ",") {
		if k, _, _ := strings.Cut(strings.TrimSpace(kv), "="); k == "madvdontneed" {
			return parent
		}
	}
	if parent == "" {
		return forkRuntime
	}
	return parent + "," + forkRuntime
}

// A ForkEvent is a fork's progress: a case started or finished.
type ForkEvent struct {
	// Done is false when the case starts, true when it is finished.
	Done bool
	// Name is the case's full name (Case.FullName).
	Name string
	// Status and Error are the finished case's (results.Status*).
	Status, Error string
}

// A Spawner runs a fork as a separate process and waits for it, passing
// its progress to events. It returns bench.ErrInterrupted when the fork
// was interrupted, and an error when it failed; either way the fork's
// results file holds whatever it finished.
type Spawner func(ctx context.Context, f Fork, events func(ForkEvent)) error

// ForkEventPrefix starts the lines a fork prints on its standard output to
// report progress: "<prefix>\tstart\t<name>" and
// "<prefix>\tdone\t<name>\t<status>\t<error>".
const ForkEventPrefix = "serbench-fork"

// FormatForkEvent renders e as one line for the parent to parse.
func FormatForkEvent(e ForkEvent) string {
	clean := func(s string) string { return strings.NewReplacer("\t", " ", "\n", " ").Replace(s) }
	if !e.Done {
		return ForkEventPrefix + "\tstart\t" + clean(e.Name)
	}
	return ForkEventPrefix + "\tdone\t" + clean(e.Name) + "\t" + e.Status + "\t" + clean(e.Error)
}

// ParseForkEvent parses a line written by FormatForkEvent; ok is false for
// any other line.
func ParseForkEvent(line string) (e ForkEvent, ok bool) {
	f := strings.Split(strings.TrimRight(line, "\r\n"), "\t")
	switch {
	case len(f) == 3 && f[0] == ForkEventPrefix && f[1] == "start":
		return ForkEvent{Name: f[2]}, true
	case len(f) == 5 && f[0] == ForkEventPrefix && f[1] == "done":
		return ForkEvent{Done: true, Name: f[2], Status: f[3], Error: f[4]}, true
	}
	return ForkEvent{}, false
}

// ReadCasesFile reads a fork's case list (one full name per line). An
// empty file is an empty, non-nil list: a fork told to measure no case
// measures none (Options.Cases nil would mean every case).
func ReadCasesFile(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cases file: %w", err)
	}
	out := []string{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

// ReadItersFile reads a fork's iterations file.
func ReadItersFile(path string) (map[string]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("iterations file: %w", err)
	}
	out := map[string]int{}
	for _, l := range strings.Split(string(b), "\n") {
		name, n, ok := strings.Cut(strings.TrimSpace(l), "\t")
		if !ok {
			continue
		}
		v, err := strconv.Atoi(n)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("iterations file: bad line %q", l)
		}
		out[name] = v
	}
	return out, nil
}

// writeIters records the iterations per sample of the cases measured in
// got, for the next forks.
func writeIters(path string, got *results.Run) error {
	var b strings.Builder
	for _, c := range got.Cases {
		if c.OK() && len(c.Samples) > 0 {
			fmt.Fprintf(&b, "%s\t%d\n", c.FullName(), c.Samples[len(c.Samples)-1].Iters)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// forkCounts splits count samples over n forks, the first ones taking the
// remainder: 20 over 4 is 5 each, 10 over 4 is 3, 3, 2, 2.
func forkCounts(count, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = count / n
		if i < count%n {
			out[i]++
		}
	}
	return out
}

// forkBatch is the number of cases, rounded up to whole comparison
// groups, that the forks measure before the next batch: the results then
// stream batch by batch, an interrupt keeps the finished batches, and the
// forks of one case run minutes apart at most.
const forkBatch = 48

// batches cuts cases into batches of whole units — a comparison group, or
// the cases sharing an Affinity — of at least forkBatch cases (the last
// may be smaller). A unit's cases need not be adjacent in the plan (a
// type's encode and decode groups interleave); each batch keeps plan order.
func batches(cases []bench.Case) [][]bench.Case {
	if len(cases) == 0 {
		return nil
	}
	unitOf := make([]int, len(cases))
	first := map[string]int{}
	var size []int
	for i := range cases {
		key := unitKey(&cases[i])
		u, ok := first[key]
		if !ok {
			u = len(size)
			first[key] = u
			size = append(size, 0)
		}
		unitOf[i] = u
		size[u]++
	}
	batchOf := make([]int, len(size))
	nb, n := 0, 0
	for u, k := range size {
		if n >= forkBatch {
			nb, n = nb+1, 0
		}
		batchOf[u] = nb
		n += k
	}
	out := make([][]bench.Case, nb+1)
	for i := range cases {
		b := batchOf[unitOf[i]]
		out[b] = append(out[b], cases[i])
	}
	return out
}

// unitKey is what keeps cases together: their Affinity, else their group.
func unitKey(c *bench.Case) string {
	switch {
	case c.Affinity != "":
		return "a\x00" + c.Affinity
	case c.Group != "":
		return "g\x00" + c.Group
	}
	return "c\x00" + c.FullName()
}

// measureForked measures cases in forks processes: batch by batch, each
// batch by every fork one after another, each fork taking its share of
// the samples; every case is handed to emit once, with the samples of all
// forks, when its batch is done. When ctx ends no further fork starts and
// the current batch is discarded: the finished batches are kept.
//
// Past deadline (when set; the run's --budget) a batch takes no fork after
// its second.
func measureForked(ctx context.Context, o Options, w string, cases []bench.Case, forks int, deadline time.Time, tmp string, prog *offsetProgress, emit func(results.Case) error, probe func(results.Probe) error) error {
	dir, err := os.MkdirTemp(tmp, "forks-")
	if err != nil {
		return fmt.Errorf("forks: %w", err)
	}
	defer os.RemoveAll(dir)
	done := 0
	for b, batch := range batches(cases) {
		err := measureBatch(ctx, o, w, batch, forks, deadline, filepath.Join(dir, fmt.Sprintf("batch-%d", b+1)), prog, &done, emit, probe)
		if err != nil {
			return err
		}
	}
	return nil
}

// measureBatch measures one batch in every fork and emits its cases.
func measureBatch(ctx context.Context, o Options, w string, cases []bench.Case, forks int, deadline time.Time, dir string, prog *offsetProgress, done *int, emit func(results.Case) error, probe func(results.Probe) error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("forks: %w", err)
	}
	var names strings.Builder
	index := make(map[string]int, len(cases))
	for i := range cases {
		n := cases[i].FullName()
		index[n] = i
		names.WriteString(n + "\n")
	}
	list := filepath.Join(dir, "cases.txt")
	if err := os.WriteFile(list, []byte(names.String()), 0o644); err != nil {
		return fmt.Errorf("forks: %w", err)
	}
	merged := make([]*results.Case, len(cases))
	forksOf := make([]int, len(cases)) // the forks that returned each case
	want := 0                          // the forks with samples to take
	for _, count := range forkCounts(o.Count, forks) {
		if count > 0 {
			want++
		}
	}
	wants := make([]int, len(cases)) // the forks each case is measured in
	for i := range wants {
		wants[i] = want
	}
	var runErr error
	iters := ""
	for k, count := range forkCounts(o.Count, forks) {
		if count == 0 {
			continue
		}
		if ctx.Err() != nil {
			runErr = bench.ErrInterrupted
			break
		}
		f := Fork{Workload: w, Scale: o.Scale, Subjects: o.Subjects, Benchtime: o.Benchtime.String(), CaseTimeout: o.CaseTimeout, Target: o.Target, Deadline: deadline,
			K: k + 1, N: forks, Count: count, CasesFile: list, Out: filepath.Join(dir, fmt.Sprintf("fork-%d", k+1)), ItersFile: iters,
			Env: []string{"GODEBUG=" + ForkGODEBUG(os.Getenv("GODEBUG"))}}
		err := o.Spawn(ctx, f, func(e ForkEvent) {
			i, ok := index[e.Name]
			if !ok {
				return
			}
			if !e.Done {
				prog.Start(*done, 0, &cases[i])
				return
			}
			*done++
			prog.Done(*done, 0, &results.Case{Workload: w, Name: cases[i].Name, Labels: cases[i].Labels, Status: e.Status, Error: e.Error})
		})
		got, rerr := results.ReadFile(filepath.Join(f.Out, ResultsFile))
		if rerr == nil {
			for _, p := range got.Probes {
				p.Fork = k + 1
				if perr := probe(p); perr != nil {
					return fmt.Errorf("forks: %w", perr)
				}
			}
			for _, c := range got.Cases {
				if i, ok := index[c.FullName()]; ok {
					merged[i] = mergeFork(merged[i], c, k+1)
					forksOf[i]++
				}
			}
			if iters == "" && err == nil {
				iters = filepath.Join(dir, "iters.txt")
				if werr := writeIters(iters, got); werr != nil {
					return fmt.Errorf("forks: %w", werr)
				}
			}
		}
		if err != nil {
			runErr = err
			if !errors.Is(err, bench.ErrInterrupted) {
				runErr = fmt.Errorf("fork %d/%d: %w", k+1, forks, err)
			}
			break
		}
		if rerr != nil {
			runErr = fmt.Errorf("fork %d/%d: %w", k+1, forks, rerr)
			break
		}
		if k >= 1 && !deadline.IsZero() && time.Now().After(deadline) {
			// The run's budget is spent: no more processes.
			for i := range cases {
				if wants[i] == want {
					wants[i] = forksOf[i]
					if merged[i] != nil && merged[i].OK() {
						merged[i].Stop = bench.StopRun
					}
				}
			}
			break
		}
		// Sequential sampling across processes: after two processes, a
		// group whose every member meets the target takes no more forks.
		if o.Target > 0 && k >= 1 {
			var rest strings.Builder
			for _, g := range unconverged(cases, merged, o.Target) {
				rest.WriteString(cases[g].FullName() + "\n")
			}
			kept := rest.String()
			for i := range cases {
				if !strings.Contains(kept, cases[i].FullName()+"\n") && wants[i] == want {
					wants[i] = forksOf[i]
					if merged[i] != nil && merged[i].OK() {
						merged[i].Stop = bench.StopTarget
					}
				}
			}
			if kept == "" {
				break
			}
			if err := os.WriteFile(list, []byte(kept), 0o644); err != nil {
				return fmt.Errorf("forks: %w", err)
			}
		}
	}
	interrupted := errors.Is(runErr, bench.ErrInterrupted)
	for i, c := range merged {
		if c == nil || interrupted && forksOf[i] < wants[i] {
			// A case not every fork measured is not finished (--resume
			// measures it again), as a case cut short in one process is
			// discarded; with one fork the finished cases are kept.
			continue
		}
		if c.OK() {
			c.Summarize()
		}
		c.Group = cases[i].Group
		if err := emit(*c); err != nil {
			return err
		}
	}
	return runErr
}

// unconverged returns the indexes of the cases whose comparison group
// (or, without one, the case itself) has a member not yet meeting the
// sampling target.
func unconverged(cases []bench.Case, merged []*results.Case, target float64) []int {
	open := map[string]bool{}
	key := func(i int) string {
		if cases[i].Group != "" {
			return "g\x00" + cases[i].Group
		}
		return "c\x00" + cases[i].FullName()
	}
	for i, c := range merged {
		if c != nil && c.OK() && !bench.Converged(c, target) {
			open[key(i)] = true
		}
	}
	var out []int
	for i := range cases {
		if open[key(i)] {
			out = append(out, i)
		}
	}
	return out
}

// mergeFork adds fork result c, from process fork (1-based), to the case
// merged so far: samples are tagged with their fork and concatenated
// (rounds renumbered to follow the earlier forks'), a failure
// or skip in any fork makes the case failed or skipped.
func mergeFork(acc *results.Case, c results.Case, fork int) *results.Case {
	c.Samples = append([]results.Sample(nil), c.Samples...)
	for i := range c.Samples {
		c.Samples[i].Fork = fork
	}
	if acc == nil {
		c.Summary, c.Noisy = nil, false
		return &c
	}
	acc.Elapsed += c.Elapsed
	if !c.Start.IsZero() && (acc.Start.IsZero() || c.Start.Before(acc.Start)) {
		acc.Start = c.Start
	}
	if c.End.After(acc.End) {
		acc.End = c.End
	}
	if !acc.OK() {
		return acc
	}
	if !c.OK() {
		acc.Status, acc.Error = c.Status, c.Error
		acc.Samples, acc.Summary = nil, nil
		return acc
	}
	last := 0
	for _, s := range acc.Samples {
		last = max(last, s.Round)
	}
	for _, s := range c.Samples {
		if s.Round > 0 {
			s.Round += last
		}
		acc.Samples = append(acc.Samples, s)
	}
	return acc
}
