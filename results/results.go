// Package results defines what a serbench run records — the environment it
// ran in and one measured case per line — and reads and writes it as JSON
// Lines. It also exports runs to the Go benchmark text format so that
// benchstat and the rest of golang.org/x/perf can read them.
package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Record kinds, stored in the "kind" field of every JSON line.
const (
	KindEnv        = "env"
	KindCase       = "case"
	KindDescriptor = "descriptor"
	KindSection    = "section"
	KindEnd        = "end"
	KindProbe      = "probe"
)

// Case statuses.
const (
	// StatusOK marks a case that was verified and measured.
	StatusOK = "ok"
	// StatusFailed marks a case whose setup or verification failed. It
	// carries a reason and no timing.
	StatusFailed = "failed"
	// StatusSkipped marks a case that could not run on this machine (a
	// peer that is not installed); Error says why and how to fix it.
	StatusSkipped = "skipped"
	// StatusCannotHold marks a case whose format cannot represent the
	// data (nested columns in CSV, NaN in JSON): a finding about the
	// format, not a failure; Error says which column and value.
	StatusCannotHold = "cannot-hold"
)

// ErrCannotHold is wrapped by the error of a format that cannot hold a
// schema or a value; a case that fails with it is recorded
// StatusCannotHold, not FAILED. Test for it with errors.Is.
var ErrCannotHold = errors.New("cannot hold this data")

// Standard units. Custom metrics use their own unit names, following the
// Go benchmark format convention ("serialized-B", "ratio-%" …).
const (
	UnitNsPerOp     = "ns/op"
	UnitBytesPerOp  = "B/op"
	UnitAllocsPerOp = "allocs/op"
	UnitMBPerS      = "MB/s"
)

// A Label is one key=value part of a case's name.
type Label struct {
	Key   string `json:"k"`
	Value string `json:"v"`
}

// Labels is an ordered list of labels. Order is kept so that names are
// stable and read naturally (subject before size before op).
type Labels []Label

// Get returns the value of key, or "" when absent.
func (ls Labels) Get(key string) string {
	for _, l := range ls {
		if l.Key == key {
			return l.Value
		}
	}
	return ""
}

// Has reports whether key is present.
func (ls Labels) Has(key string) bool {
	for _, l := range ls {
		if l.Key == key {
			return true
		}
	}
	return false
}

// With returns a copy of ls with key set to value (replaced in place when
// present, appended otherwise).
func (ls Labels) With(key, value string) Labels {
	out := make(Labels, 0, len(ls)+1)
	found := false
	for _, l := range ls {
		if l.Key == key {
			l.Value = value
			found = true
		}
		out = append(out, l)
	}
	if !found {
		out = append(out, Label{key, value})
	}
	return out
}

// String renders the labels as "/k=v/k=v", the sub-benchmark form that
// benchstat's -row and -col flags understand.
func (ls Labels) String() string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteByte('/')
		b.WriteString(l.Key)
		b.WriteByte('=')
		b.WriteString(l.Value)
	}
	return b.String()
}

// Env describes the machine and build a run was measured on. It is the
// first line of every results file.
type Env struct {
	Kind string `json:"kind"`
	// Schema is the results format version. Files written before
	// versions were recorded have no schema field and are read as 1; a
	// field that is null, 0 or negative is refused.
	Schema     int               `json:"schema,omitempty"`
	CPU        string            `json:"cpu"`
	Cores      int               `json:"cores"`
	GOMAXPROCS int               `json:"gomaxprocs"`
	GOOS       string            `json:"goos"`
	GOARCH     string            `json:"goarch"`
	GoVersion  string            `json:"go_version"`
	Version    string            `json:"serbench_version"`
	Revision   string            `json:"vcs_revision,omitempty"`
	Modified   bool              `json:"vcs_modified,omitempty"`
	Libraries  map[string]string `json:"libraries,omitempty"`
	Start      time.Time         `json:"start"`
	Scale      string            `json:"scale"`
	Count      int               `json:"count"`
	Command    []string          `json:"command"`
	Host       string            `json:"host,omitempty"`
	// RunID names the run a shard belongs to: every shard of one run
	// (`serbench run --shard K/N`) records the same RunID, and reports
	// merge them. Empty for an unsharded run.
	RunID string `json:"run_id,omitempty"`
	// Shard is "K/N" when the run measured only shard K of N.
	Shard string `json:"shard,omitempty"`
	// Benchtime is the target duration of one sample.
	Benchtime time.Duration `json:"benchtime_ns,omitempty"`
	// Kernel is the operating system's release (uname -r on Linux).
	Kernel string `json:"kernel,omitempty"`
	// MemTotal is the machine's memory in bytes.
	MemTotal uint64 `json:"mem_total_B,omitempty"`
	// GoRuntime holds the Go runtime settings the run measured under when
	// they are set: GOGC, GOMEMLIMIT, GODEBUG from the environment and the
	// build's default GODEBUG. They change what allocating subjects cost.
	GoRuntime map[string]string `json:"go_runtime,omitempty"`
	Extra     map[string]string `json:"extra,omitempty"`
}

// validate checks that the environment's counts can be true (its schema
// is checked where it is read).
func (e *Env) validate() error {
	switch {
	case e.Cores < 0:
		return fmt.Errorf("cores %d is negative", e.Cores)
	case e.GOMAXPROCS < 0:
		return fmt.Errorf("gomaxprocs %d is negative", e.GOMAXPROCS)
	case e.Count < 0:
		return fmt.Errorf("count %d is negative", e.Count)
	case e.Benchtime < 0:
		return fmt.Errorf("benchtime_ns %d is negative", int64(e.Benchtime))
	}
	if e.Shard != "" {
		k, n, ok := strings.Cut(e.Shard, "/")
		kk, err1 := strconv.Atoi(k)
		nn, err2 := strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil || kk < 1 || kk > nn {
			return fmt.Errorf("shard %q is not K/N with 1 ≤ K ≤ N", e.Shard)
		}
	}
	return nil
}

// A Sample is one timed batch of iterations of a case.
type Sample struct {
	Iters       int     `json:"iters"`
	NsPerOp     float64 `json:"ns_op"`
	BytesPerOp  float64 `json:"b_op"`
	AllocsPerOp float64 `json:"allocs_op"`
	// Metrics are per-op values the case reported during this sample
	// (unit → value), e.g. "peak-heap-B" or "server-cpu-s".
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Round is the round of an interleaved comparison group this sample
	// was taken in (0 outside groups).
	Round int `json:"round,omitempty"`
	// VsBaseline and VsLimit are this sample's ns/op divided by the ns/op
	// of the group's baseline and limit row measured in the same round
	// (0 when there is none): drift between rounds cancels out of them.
	VsBaseline float64 `json:"vs_baseline,omitempty"`
	VsLimit    float64 `json:"vs_limit,omitempty"`
	// Fork is the process (1-based) that took this sample when the case
	// was measured in several processes (serbench run --forks), 0 when it
	// was measured in one. Samples of one process share its state (heap
	// layout, the CPU's frequency, its neighbours), so a comparison counts
	// processes, not samples, as independent observations.
	Fork int `json:"fork,omitempty"`
}

// Units of the in-round ratios in a case's Summary.
const (
	UnitVsBaseline = "x-baseline"
	UnitVsLimit    = "x-limit"
)

// A Stat summarises one unit over a case's samples: the median and a
// distribution-free confidence interval around it.
type Stat struct {
	Median     float64 `json:"median"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Confidence float64 `json:"confidence"`
	N          int     `json:"n"`
}

// RelWidth returns the interval's half-width relative to the median, as
// benchstat prints it: max(hi/median-1, 1-lo/median). It is 0 when the
// median is 0.
func (s Stat) RelWidth() float64 {
	if s.Median == 0 {
		return 0
	}
	a, b := s.Hi/s.Median-1, 1-s.Lo/s.Median
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	if a > b {
		return a
	}
	return b
}

// Case is the recorded outcome of one measured case.
type Case struct {
	Kind     string `json:"kind"`
	Workload string `json:"workload"`
	// Name is the benchmark name without the "Benchmark" prefix and
	// without labels, e.g. "Features".
	Name   string `json:"name"`
	Labels Labels `json:"labels"`
	// Role is the subject's role (RoleSubject, RoleBaseline, RoleLimit).
	Role string `json:"role,omitempty"`
	// Group names the comparison group whose cases were sampled
	// round-robin with this one; empty when it was measured alone.
	Group  string `json:"group,omitempty"`
	Status string `json:"status"`
	// Error is the reason a failed case failed.
	Error string `json:"error,omitempty"`
	// BytesPerOp is the payload size one op processes, for MB/s.
	BytesPerOp int64 `json:"bytes_per_op,omitempty"`
	// NoAllocs says the runtime that measured the case counts no
	// allocations (a runner whose hello says alloc none): its samples'
	// B/op and allocs/op are not measured, and no summary, table or
	// benchstat line shows them as 0.
	NoAllocs bool `json:"no_allocs,omitempty"`
	// Metrics are fixed properties of the case measured once, such as
	// the serialized size.
	Metrics map[string]float64 `json:"metrics,omitempty"`
	Samples []Sample           `json:"samples,omitempty"`
	// Counts are the case's instruction counts (run --metric
	// instructions), one per counted run; a case counted and not timed
	// has Counts and no Samples.
	Counts []Count `json:"counts,omitempty"`
	// CountNote says why a case that was to be counted was not (a runner
	// Valgrind cannot run, a failure under Valgrind), or what its counts
	// include.
	CountNote string `json:"count_note,omitempty"`
	// Summary maps a unit to its statistic over the samples.
	Summary map[string]Stat `json:"summary,omitempty"`
	// Stop says why sampling stopped: "target" (its intervals were
	// narrow enough, run --target), "count" (it took --count samples),
	// "budget" (its samples used its time budget) or "run" (the run's
	// --budget ran out); empty in older files.
	Stop string `json:"stop,omitempty"`
	// Noisy is set when the ns/op interval is wider than the noise
	// threshold (±5% of the median by default). A case with one sample
	// has no interval and is never noisy; reports show its n instead.
	Noisy bool `json:"noisy,omitempty"`
	// Notes are remarks the workload attached (e.g. "limit row").
	Notes []string `json:"notes,omitempty"`
	// Elapsed is the wall time spent on the case, setup included.
	Elapsed time.Duration `json:"elapsed_ns"`
	// Start and End bound the case's measurement: from its setup to the
	// end of its comparison group's last round (across forks, the first
	// fork's start to the last one's end). Zero in files before schema 3.
	// Reports set them against the run's probes.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
}

// FullName returns the name with its labels, e.g.
// "Features/subject=psdb/type=int32/n=100/op=encode".
func (c *Case) FullName() string { return c.Name + c.Labels.String() }

// OK reports whether the case was measured.
func (c *Case) OK() bool { return c.Status == StatusOK }

// Skipped reports whether the case could not run on this machine.
func (c *Case) Skipped() bool { return c.Status == StatusSkipped }

// CannotHold reports whether the case's format cannot hold its data.
func (c *Case) CannotHold() bool { return c.Status == StatusCannotHold }

// Failed reports whether the case FAILED: its setup, verification or a
// run went wrong (not a format that cannot hold the data, not skipped).
func (c *Case) Failed() bool { return c.Status == StatusFailed }

// Stat returns the summary of unit, and whether it exists.
func (c *Case) Stat(unit string) (Stat, bool) {
	s, ok := c.Summary[unit]
	return s, ok
}

// Median returns the median of unit over the samples, or of the fixed
// metric of that name, and whether either exists.
func (c *Case) Median(unit string) (float64, bool) {
	if s, ok := c.Summary[unit]; ok {
		return s.Median, true
	}
	if v, ok := c.Metrics[unit]; ok {
		return v, true
	}
	return 0, false
}

// Units returns every unit the case has a value for, standard units first
// and the rest sorted.
func (c *Case) Units() []string {
	seen := map[string]bool{}
	var out []string
	for _, u := range []string{UnitNsPerOp, UnitMBPerS, UnitBytesPerOp, UnitAllocsPerOp} {
		if _, ok := c.Summary[u]; ok {
			out = append(out, u)
			seen[u] = true
		}
	}
	var rest []string
	for u := range c.Summary {
		if !seen[u] {
			rest = append(rest, u)
			seen[u] = true
		}
	}
	for u := range c.Metrics {
		if !seen[u] {
			rest = append(rest, u)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// Run is one results file: the environment and its cases in the order
// they finished.
type Run struct {
	// File is where the run was read from, if anywhere.
	File string
	Env  Env
	// Descriptors say what the run's subjects, formats and codecs were.
	Descriptors []Descriptor
	// Sections are the report sections the run's workloads declared
	// (schema 5; none in older files), in order.
	Sections []Section
	Cases    []Case
	// Probes time the machine itself during the run, in the order taken
	// (schema 3; none in older files).
	Probes []Probe
	// End is the run's end line; nil when the file has none (the run was
	// killed, or is still running).
	End *End
	// Warnings are problems met reading the file that did not stop it
	// (a cut last line).
	Warnings []string
}

// A Section is one declared report section as the results file holds it:
// its workload and title, and the whole line, which package table reads
// (results keeps it as it is: the report's vocabulary is table's).
type Section struct {
	Workload string
	Title    string
	JSON     json.RawMessage
}

// Descriptor returns the descriptor of label key=name in workload w, or
// nil when the run recorded none.
func (r *Run) Descriptor(w, key, name string) *Descriptor {
	for i := range r.Descriptors {
		d := &r.Descriptors[i]
		if d.Workload == w && d.Key == key && d.Name == name {
			return d
		}
	}
	return nil
}

// Interrupted reports whether the run stopped before it measured every
// planned case: it was interrupted, or its file has no end line.
func (r *Run) Interrupted() bool { return r.End == nil || r.End.Interrupted }

// IsLimit reports whether the case is a physical-limit row.
func (c *Case) IsLimit() bool { return c.Role == RoleLimit }

// Workloads returns the distinct workload names of the run's cases in
// order of first appearance.
func (r *Run) Workloads() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range r.Cases {
		if !seen[c.Workload] {
			seen[c.Workload] = true
			out = append(out, c.Workload)
		}
	}
	return out
}

// Filter returns the cases of workload w for which keep returns true (all
// of them when keep is nil).
func (r *Run) Filter(w string, keep func(*Case) bool) []*Case {
	var out []*Case
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Workload == w && (keep == nil || keep(c)) {
			out = append(out, c)
		}
	}
	return out
}

// validate checks the invariants a reader relies on: the case's shape
// (validateShape) and the values it measured (validateValues).
func (c *Case) validate() error {
	if err := c.validateShape(); err != nil {
		return err
	}
	return c.validateValues()
}

// validateShape checks the case's names, status and role.
func (c *Case) validateShape() error {
	switch {
	case c.Workload == "":
		return fmt.Errorf("case without workload")
	case c.Name == "":
		return fmt.Errorf("case without name")
	case c.Status != StatusOK && c.Status != StatusFailed && c.Status != StatusSkipped && c.Status != StatusCannotHold:
		return fmt.Errorf("case %s: unknown status %q", c.FullName(), c.Status)
	case c.Status == StatusOK && len(c.Samples) == 0 && len(c.Counts) == 0:
		return fmt.Errorf("case %s: status ok but no samples", c.FullName())
	case c.Role != "" && !ValidRole(c.Role):
		return fmt.Errorf("case %s: unknown role %q (valid: subject, baseline, limit)", c.FullName(), c.Role)
	}
	for _, l := range c.Labels {
		if l.Key == "" || strings.ContainsAny(l.Key+l.Value, "/= \t\n") {
			return fmt.Errorf("case %s: label %q=%q has an empty key or a '/', '=' or space", c.FullName(), l.Key, l.Value)
		}
	}
	return nil
}

// maxSampleNs bounds the time one sample's batch of iterations can take
// (and so one iteration, and one probe): 1e15 ns, 11.6 days. serbench
// sizes a batch to the target time per sample (50 ms by default) and the
// slowest ops it records take under a second each, so the bound leaves
// six orders of magnitude to any real sample, yet refuses the corrupt
// ones (1e308 ns/op) whose sums, products and ratios — MB/s, in-round
// ratios, the geomean — run off to infinity or to nonsense.
const maxSampleNs = 1e15

// maxCounter is how many bytes or allocations the Go runtime can count
// (runtime.MemStats.TotalAlloc and Mallocs are uint64): a batch's B/op or
// allocs/op times its iterations cannot be more.
const maxCounter = 1 << 64

// reservedUnits are the units a case's samples carry in their own fields
// or that Summarize derives from them: a per-sample metric of that name
// would be mixed into their statistics.
var reservedUnits = []string{UnitNsPerOp, UnitBytesPerOp, UnitAllocsPerOp, UnitMBPerS, UnitVsBaseline, UnitVsLimit, UnitInstructions, UnitEstCycles}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// validateValues checks that what the case measured can be true: every
// sample is a batch of at least one iteration whose ns/op is positive and
// whose whole duration (iterations × ns/op) is at least the clock's 1 ns
// and at most maxSampleNs; B/op and allocs/op are finite, not negative and
// within what the runtime counts; ratios are finite and not negative (0
// is "none"); metrics have a unit and a finite value.
func (c *Case) validateValues() error {
	name := c.FullName()
	if c.BytesPerOp < 0 {
		return fmt.Errorf("case %s: bytes_per_op %d is negative", name, c.BytesPerOp)
	}
	if c.Elapsed < 0 {
		return fmt.Errorf("case %s: elapsed_ns %d is negative", name, int64(c.Elapsed))
	}
	if err := validateMetrics(c.Metrics, false); err != nil {
		return fmt.Errorf("case %s: metric %w", name, err)
	}
	for i, s := range c.Samples {
		if err := s.validate(); err != nil {
			return fmt.Errorf("case %s: sample %d %w", name, i+1, err)
		}
	}
	for i, s := range c.Counts {
		if err := s.validate(); err != nil {
			return fmt.Errorf("case %s: count %d %w", name, i+1, err)
		}
	}
	return nil
}

// validate checks one sample's values (see Case.validateValues). Its
// errors read after "sample N ".
func (s *Sample) validate() error {
	if s.Iters < 1 {
		return fmt.Errorf("iters %d is not positive", s.Iters)
	}
	n := float64(s.Iters)
	switch ns := s.NsPerOp; {
	case !finite(ns):
		return fmt.Errorf("ns/op %v is not a number", ns)
	case !(ns > 0):
		return fmt.Errorf("ns/op %v is not positive", ns)
	case ns > maxSampleNs:
		return fmt.Errorf("ns/op %v is more than any sample can take (%g ns, 11.6 days)", ns, float64(maxSampleNs))
	case n*ns > maxSampleNs:
		return fmt.Errorf("takes %d iters × %v ns/op = %g ns, more than any sample can take (%g ns, 11.6 days)", s.Iters, ns, n*ns, float64(maxSampleNs))
	case n*ns < 0.5:
		// The clock counts whole nanoseconds: a batch that was timed took
		// at least 1 ns (0.5 leaves room for the rounding of ns/op).
		return fmt.Errorf("takes %d iters × %v ns/op = %g ns, less than the clock's 1 ns", s.Iters, ns, n*ns)
	}
	for _, v := range []struct {
		unit string
		val  float64
	}{{UnitBytesPerOp, s.BytesPerOp}, {UnitAllocsPerOp, s.AllocsPerOp}} {
		switch {
		case !finite(v.val):
			return fmt.Errorf("%s %v is not a number", v.unit, v.val)
		case v.val < 0:
			return fmt.Errorf("%s %v is negative", v.unit, v.val)
		case n*v.val > maxCounter:
			return fmt.Errorf("%s %v × %d iters is more than the Go runtime counts (2^64)", v.unit, v.val, s.Iters)
		}
	}
	for _, v := range []struct {
		name string
		val  float64
	}{{"vs_baseline", s.VsBaseline}, {"vs_limit", s.VsLimit}} {
		switch {
		case !finite(v.val):
			return fmt.Errorf("%s %v is not a number", v.name, v.val)
		case v.val < 0:
			return fmt.Errorf("%s %v is negative", v.name, v.val)
		}
	}
	if s.Round < 0 {
		return fmt.Errorf("round %d is negative", s.Round)
	}
	if s.Fork < 0 {
		return fmt.Errorf("fork %d is negative", s.Fork)
	}
	if err := validateMetrics(s.Metrics, true); err != nil {
		return fmt.Errorf("metric %w", err)
	}
	return nil
}

// validateMetrics checks that every metric has a unit and a finite value,
// and, for a sample's metrics (perSample), that no unit is one the sample
// carries itself. Its errors read after "metric ".
func validateMetrics(m map[string]float64, perSample bool) error {
	for _, u := range sortedKeys(m) {
		v := m[u]
		switch {
		case strings.TrimSpace(u) == "":
			return fmt.Errorf("%q has no unit", u)
		case !finite(v):
			return fmt.Errorf("%s %v is not a number", u, v)
		case perSample && slices.Contains(reservedUnits, u):
			return fmt.Errorf("%s is a unit the sample carries itself", u)
		}
	}
	return nil
}
