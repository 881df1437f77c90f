// Package results defines what a serbench run records — the environment it
// ran in and one measured case per line — and reads and writes it as JSON
// Lines. It also exports runs to the Go benchmark text format so that
// benchstat and the rest of golang.org/x/perf can read them.
package results

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Record kinds, stored in the "kind" field of every JSON line.
const (
	KindEnv        = "env"
	KindCase       = "case"
	KindDescriptor = "descriptor"
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
)

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
	// Schema is the results format version (0 in files written before
	// versions were recorded: read as 1).
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
	// Metrics are fixed properties of the case measured once, such as
	// the serialized size.
	Metrics map[string]float64 `json:"metrics,omitempty"`
	Samples []Sample           `json:"samples,omitempty"`
	// Summary maps a unit to its statistic over the samples.
	Summary map[string]Stat `json:"summary,omitempty"`
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
	Cases       []Case
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

// validate checks the invariants a reader relies on.
func (c *Case) validate() error {
	switch {
	case c.Workload == "":
		return fmt.Errorf("case without workload")
	case c.Name == "":
		return fmt.Errorf("case without name")
	case c.Status != StatusOK && c.Status != StatusFailed && c.Status != StatusSkipped:
		return fmt.Errorf("case %s: unknown status %q", c.FullName(), c.Status)
	case c.Status == StatusOK && len(c.Samples) == 0:
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
