package run

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

// History is this machine's record of how long each workload took against
// what bench.Estimate expected, kept in a small JSON file (serbench keeps
// it in its cache directory). Estimates model a case's time from its
// expected op time and the sampling rules; they cannot know this machine's
// speed, its data generation, files and servers, or how long a runner's
// start-up and warm-up take. A complete run of a workload records the
// ratio, and later estimates of the same workload at the same scale with
// the same runners — the dry run's, `serbench list`'s and the progress
// line's — are scaled by it.
type History struct {
	// Path is the file; a missing file is an empty history.
	Path string
}

// Timing is one workload's last complete run.
type Timing struct {
	// Estimate is bench.Estimate's total for every case the run measured,
	// Local the part of it a dry run sees (the cases measured in Go, not
	// by a runner for another language); Actual is the wall time the
	// workload took, from its first case to the release of its data.
	Estimate time.Duration `json:"estimate_ns"`
	Local    time.Duration `json:"local_ns"`
	Actual   time.Duration `json:"actual_ns"`
	// Remote is the part of Actual the runners' groups took (their cases'
	// wall time); 0 in a history written before it was kept, or with no
	// runner cases.
	Remote time.Duration `json:"remote_ns,omitempty"`
	Cases  int           `json:"cases"`
	When   time.Time     `json:"when"`
	// Earlier are the complete runs before this one, newest first (at
	// most keptRuns-1): estimates go by the median of the runs kept, so
	// that one run on a loaded machine does not set the next estimate.
	Earlier []Timing `json:"earlier,omitempty"`
}

// keptRuns is how many complete runs of a workload the history keeps.
const keptRuns = 3

// runs are t and its Earlier runs, each without its own.
func (t Timing) runs() []Timing {
	out := []Timing{t}
	out[0].Earlier = nil
	for _, e := range t.Earlier {
		if e.Actual > 0 && e.Estimate > 0 {
			e.Earlier = nil
			out = append(out, e)
		}
	}
	return out
}

// median is the median of fs (the mean of the middle two of an even
// count); fs is sorted in place.
func median(fs []float64) float64 {
	slices.Sort(fs)
	n := len(fs)
	if n%2 == 1 {
		return fs[n/2]
	}
	return (fs[n/2-1] + fs[n/2]) / 2
}

// clampFactor bounds a factor to [1/8, 8], so that one odd run cannot
// make an estimate absurd.
func clampFactor(f float64) float64 { return min(max(f, 0.125), 8) }

// historyKey names a workload's timings: its name, scale and runners, and
// for a plan that measures something given (the data workload's input,
// pgscan's query: workload.Plan.Identity) a hash of that.
func historyKey(workload, scale string, runners []string, identity string) string {
	rs := slices.Clone(runners)
	slices.Sort(rs)
	if len(rs) == 0 {
		rs = []string{"none"}
	}
	k := workload + "|" + scale + "|" + strings.Join(rs, ",")
	if identity != "" {
		sum := sha256.Sum256([]byte(identity))
		k += "|" + hex.EncodeToString(sum[:8])
	}
	return k
}

// planIdentity is the identity of a plan for historyKey: the values of
// its Identity keys, passwords redacted (the key holds a hash of it, and
// the file lives outside the results).
func planIdentity(p *workload.Plan) string {
	var b strings.Builder
	for _, k := range p.Identity {
		fmt.Fprintf(&b, "%s=%s\n", k, results.Redact(p.Env[k]))
	}
	return b.String()
}

// historyIdentity is what a workload's timing is kept for: what its plan
// measures (planIdentity) and, when the run does not sample as the main job
// does, how it samples (Options.Sampling), so that a long reference run
// (--count 40 --target 0) does not stand for the main job, nor the main job
// for it.
func (o Options) historyIdentity(p *workload.Plan) string {
	id := planIdentity(p)
	if o.Sampling != "" {
		id += "sampling=" + o.Sampling + "\n"
	}
	return id
}

// load reads the file; a missing or unreadable file is an empty history
// (estimates then fall back to the model alone).
func (h *History) load() map[string]Timing {
	out := map[string]Timing{}
	if h == nil || h.Path == "" {
		return out
	}
	b, err := os.ReadFile(h.Path)
	if err != nil {
		return out
	}
	if json.Unmarshal(b, &out) != nil {
		return map[string]Timing{}
	}
	return out
}

// Lookup returns the workload's last complete run at scale with runners
// (and identity, see planIdentity).
func (h *History) Lookup(workload, scale string, runners []string, identity string) (Timing, bool) {
	t, ok := h.load()[historyKey(workload, scale, runners, identity)]
	return t, ok && t.Actual > 0 && t.Estimate > 0
}

// Factor is what estimates of the workload are multiplied by: the median
// over its last complete runs (keptRuns) of actual ÷ estimated time
// (local: ÷ the local estimate, for a dry run, which does not plan the
// runners' cases), each clamped to [1/8, 8]; 1 without a history.
func (h *History) Factor(workload, scale string, runners []string, identity string, local bool) float64 {
	t, ok := h.Lookup(workload, scale, runners, identity)
	if !ok {
		return 1
	}
	var fs []float64
	for _, r := range t.runs() {
		est := r.Estimate
		if local && r.Local > 0 {
			est = r.Local
		}
		fs = append(fs, clampFactor(float64(r.Actual)/float64(est)))
	}
	return median(fs)
}

// Factors are what the estimates of the workload's cases measured in Go
// (local) and by the runners for other languages (remote) are multiplied
// by: each part's actual ÷ estimated time, the median over its last
// complete runs, each clamped as Factor. The two parts err apart — a
// runner's group pays its process start, warm-up and collections, which
// bench.Estimate does not model — and one factor for both (Factor) makes
// the progress line run ahead over the Go cases and behind over the
// runners'. A run without a record of the runners' part counts its whole
// ratio for both.
func (h *History) Factors(workload, scale string, runners []string, identity string) (local, remote float64) {
	t, ok := h.Lookup(workload, scale, runners, identity)
	if !ok {
		return 1, 1
	}
	var ls, rs []float64
	for _, r := range t.runs() {
		whole := clampFactor(float64(r.Actual) / float64(r.Estimate))
		remoteEst := r.Estimate - r.Local
		if r.Remote <= 0 || r.Local <= 0 || remoteEst <= 0 || r.Remote >= r.Actual {
			ls, rs = append(ls, whole), append(rs, whole)
			continue
		}
		ls = append(ls, clampFactor(float64(r.Actual-r.Remote)/float64(r.Local)))
		rs = append(rs, clampFactor(float64(r.Remote)/float64(remoteEst)))
	}
	return median(ls), median(rs)
}

// Record stores a workload's complete run, keeping the keptRuns-1 before
// it (Timing.Earlier).
// The file is replaced atomically, so a concurrent reader sees the old or
// the new history, never half of one.
func (h *History) Record(workload, scale string, runners []string, identity string, t Timing) error {
	if h == nil || h.Path == "" {
		return nil
	}
	all := h.load()
	k := historyKey(workload, scale, runners, identity)
	t.Earlier = nil
	if prev, ok := all[k]; ok {
		earlier := prev.runs()
		t.Earlier = earlier[:min(len(earlier), keptRuns-1)]
	}
	all[k] = t
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("timing history: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(h.Path), 0o755); err != nil {
		return fmt.Errorf("timing history: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(h.Path), ".timings-*")
	if err != nil {
		return fmt.Errorf("timing history: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	if err := errors.Join(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("timing history: %w", err)
	}
	if err := os.Rename(tmp.Name(), h.Path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("timing history: %w", err)
	}
	return nil
}
