// Package workload defines what a serbench workload is — a named
// experiment that yields measurable cases and the report sections that
// present them — and the settings every workload understands, and the
// errors a workload's plan returns that the run and the command line act on
// (UsageError, ErrUnavailable).
//
// Each workload is a package workload/<name> (and its sub-packages). No
// workload imports another: what several share lives in a helper package
// under workload/ that is no workload (workload/filecase for the file
// workloads, workload/workloadtest for tests); nothing here or below imports
// run (internal/arch enforces both).
package workload

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/pflag"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/table"
)

// Scale selects how big a workload's inputs are.
type Scale string

// The three scales.
const (
	// Quick runs in seconds: tests and CI smoke runs.
	Quick Scale = "quick"
	// Default is representative and takes minutes.
	Default Scale = "default"
	// Full uses the seed report's own sizes.
	Full Scale = "full"
)

// Scales lists the valid scales in order.
func Scales() []Scale { return []Scale{Quick, Default, Full} }

// ParseScale checks a scale name.
func ParseScale(s string) (Scale, error) {
	for _, v := range Scales() {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("unknown scale %q (valid: quick, default, full)", s)
}

// Config is what every workload needs to plan its cases: the settings the
// run shares with all of them. A setting only one workload reads is that
// workload's option (see Options), not a field here.
type Config struct {
	Scale Scale
	// Subjects restricts the plan to these subjects; empty means all.
	Subjects []string
	// TempDir is where file workloads write their files.
	TempDir string
	// DryRun asks for the cases only, to list and estimate them: a plan
	// must then acquire nothing (no server started, no data generated).
	DryRun bool
	// Runners are the runners for other languages whose subjects join the
	// workloads that can use them (nil: Go subjects only).
	Runners *runner.Available
}

// Options is implemented by workloads that have options of their own (the
// data workload's --input, pgscan's --pg-dsn): the command line offers them
// with `serbench run` and lists them under the workload's name in
// `serbench run WORKLOAD --help`.
//
// The contract:
//   - AddFlags registers the workload's options on fs, bound to fields of
//     the workload itself (which keeps their values), with the workload's
//     current settings as defaults (so that a workload built with settings,
//     as tests do, keeps them). Flag names must not clash with the run's
//     own flags nor with another workload's: the command line puts them
//     all on one command.
//   - CheckFlags is called once after parsing, whether or not the workload
//     is run: named says whether the workload was named on the command line,
//     set whether any of its flags was given. It validates the options
//     (without reading files or connecting anywhere) and returns a
//     *UsageError that names the valid choices or the flag missing. The
//     command line itself refuses a workload's flag given while other
//     workloads are named and it is not.
//   - The options' values are read only in Plan (and what Plan builds),
//     never while the flags are registered or parsed.
type Options interface {
	AddFlags(fs *pflag.FlagSet)
	CheckFlags(named, set bool) error
}

// WantSubject reports whether subject s is selected by the config.
func (c Config) WantSubject(s string) bool {
	if len(c.Subjects) == 0 {
		return true
	}
	for _, x := range c.Subjects {
		if x == s {
			return true
		}
	}
	return false
}

// A Plan is the cases a workload will measure and how to release what
// planning acquired (servers, temp files).
type Plan struct {
	Cases []bench.Case
	// Close releases resources; may be nil.
	Close func() error
	// Env holds facts about the workload's environment worth recording
	// (e.g. the PostgreSQL server version).
	Env map[string]string
	// Identity names the keys of Env that say what is measured (the
	// user's input file and its size, a query): a run resumed with
	// --resume must plan the same values, or it would measure the rest of
	// its cases on other data under the first run's name.
	Identity []string
	// Descriptors describe every subject the cases name under the label
	// key "subject" (with its role), and every other labelled component
	// worth describing (formats, codecs). They are written into the
	// results so that reports render from what the run used.
	Descriptors []results.Descriptor
	// Forks is how many child processes the cases are measured in by
	// default, one after another, each taking its share of the samples
	// (JMH's forks): a process's memory layout and runtime state can move
	// an allocating subject by 10–30% for that process's life, so samples
	// from one process understate how far a figure moves between runs.
	// Even one fork is a child process: it measures with the runtime
	// settings forks get (see run.ForkGODEBUG) and holds no other
	// workload's data. 0 means the workload cannot fork — it needs
	// configuration a fork is not given (a DSN, an input file) or
	// measures the serbench process itself (peak RSS) — and is always
	// measured in the serbench process; --forks changes only the
	// workloads that can fork (Forks ≥ 1). A workload that forks needs
	// nothing beyond the scale and subjects and plans cheaply: every fork
	// plans it again, and measures a batch of whole comparison groups or
	// Affinity units, so set-up shared by an Affinity unit runs once per
	// fork as it would in one process.
	Forks int
	// MeasuresRSS declares that cases report the serbench process's own
	// resident memory (peak RSS): while they run, the process holds no
	// memory of the run's own, so the machine probe skips its memory
	// chase (whose buffer would be resident).
	MeasuresRSS bool
}

// A Workload is one named experiment.
type Workload interface {
	// Name is the CLI name ("features").
	Name() string
	// Description is one line for `serbench list`.
	Description() string
	// Subjects lists the subject names cases may carry.
	Subjects() []string
	// Plan builds the cases for cfg. Expensive data generation belongs
	// in the cases' Setup, not here.
	Plan(ctx context.Context, cfg Config) (*Plan, error)
	// Layout declares the workload's report sections as data (tables,
	// plots, text, and the names of derived blocks); the run records them
	// in the results file, so a report renders the tables its run
	// declared. The sections must not depend on the configuration.
	Layout() []table.Section
	// Derive computes the blocks the layout names as derived (findings,
	// rankings by rule, fitted models) from a run's results only: cases
	// are the run's cases of this workload.
	Derive(run *results.Run, cases []*results.Case) table.Derived
	// Summary condenses a run's cases into a small table for the
	// terminal (nil when there is nothing to say).
	Summary(run *results.Run, cases []*results.Case) *table.Table
}

// Set is an ordered collection of workloads addressed by name.
type Set []Workload

// Names returns the workload names in order.
func (s Set) Names() []string {
	out := make([]string, len(s))
	for i, w := range s {
		out[i] = w.Name()
	}
	return out
}

// Lookup finds a workload by name; the error names the valid choices.
func (s Set) Lookup(name string) (Workload, error) {
	for _, w := range s {
		if w.Name() == name {
			return w, nil
		}
	}
	return nil, fmt.Errorf("unknown workload %q (valid: %s)", name, strings.Join(s.Names(), ", "))
}

// Layouts returns each workload's declared sections, by name.
func (s Set) Layouts() map[string][]table.Section {
	out := map[string][]table.Section{}
	for _, w := range s {
		if l := Layout(w); len(l) > 0 {
			out[w.Name()] = l
		}
	}
	return out
}

// Layout returns w's declared sections with their kind and workload set.
func Layout(w Workload) []table.Section {
	l := w.Layout()
	for i := range l {
		l[i].Kind, l[i].Workload = table.KindSection, w.Name()
	}
	return l
}

// Derive computes, for each run, every workload's derived blocks from
// that run's results (workloads not in the set get none).
func (s Set) Derive(runs []*results.Run) []map[string]table.Derived {
	out := make([]map[string]table.Derived, len(runs))
	for i, r := range runs {
		out[i] = map[string]table.Derived{}
		for _, name := range r.Workloads() {
			w, err := s.Lookup(name)
			if err != nil {
				continue
			}
			if d := w.Derive(r, r.Filter(name, nil)); d != nil {
				out[i][name] = d
			}
		}
	}
	return out
}

// A UsageError is caused by the caller's options or input (unknown names,
// an output directory that already holds a run, nothing to run, an input
// file that cannot be read): the command line reports it as bad input, exit
// status 2. It is declared here, the lowest level that returns one, so that
// workloads, the run and the command line share the one type.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a *UsageError whose Err is fmt.Errorf(format, args...).
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// ErrUnavailable is wrapped by Plan errors that mean a workload cannot run
// on this machine (e.g. no PostgreSQL binaries); `serbench run` with no
// workload named skips such a workload with a message instead of failing.
var ErrUnavailable = errors.New("unavailable on this machine")

// ErrNeedsInput is wrapped, with ErrUnavailable, by the Plan error of a
// workload that measures the user's own input and was given none: left
// out of a run of every workload, not a fault of the machine.
var ErrNeedsInput = errors.New("it measures a file of yours")

// IsUnavailable reports whether err wraps ErrUnavailable.
func IsUnavailable(err error) bool { return errors.Is(err, ErrUnavailable) }

// FilterCases keeps the cases whose full name matches re (all when re is
// nil).
func FilterCases(cases []bench.Case, re *regexp.Regexp) []bench.Case {
	if re == nil {
		return cases
	}
	var out []bench.Case
	for _, c := range cases {
		if re.MatchString(c.FullName()) {
			out = append(out, c)
		}
	}
	return out
}

// A ScaleTable is the one place a workload says what each scale measures
// (sizes, record counts). Describe renders one entry for `serbench list`.
type ScaleTable[T any] struct {
	Quick, Default, Full T
	Describe             func(T) string
}

// At returns the entry of scale s (Default for an unknown scale; the CLI
// has checked the name with ParseScale).
func (t ScaleTable[T]) At(s Scale) T {
	switch s {
	case Quick:
		return t.Quick
	case Full:
		return t.Full
	default:
		return t.Default
	}
}

// String describes the entry of scale s.
func (t ScaleTable[T]) String(s Scale) string {
	if t.Describe == nil {
		return fmt.Sprint(t.At(s))
	}
	return t.Describe(t.At(s))
}

// Scaler is implemented by workloads that can say what a scale measures.
type Scaler interface {
	// ScaleInfo describes scale s in a few words ("N = 100, 10,000").
	ScaleInfo(s Scale) string
}
