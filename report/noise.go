package report

import (
	"fmt"
	"math"
	"sort"
)

// NoiseK is how many robust standard deviations of the comparison's
// run-to-run spread a time row must move past the rows' common shift to
// count as changed (see Noise).
const NoiseK = 3

// noiseMinRows is the fewest time rows from which a spread is estimated;
// with fewer the floor is the threshold alone.
const noiseMinRows = 10

// Noise is what two runs of the same build on the same machine would
// differ by, estimated from the comparison itself: most rows of two runs
// do not change, so the spread of all time rows' changes is the
// run-to-run noise of this machine — above all the shift between one
// process and the next (heap layout, CPU frequency, neighbours), which no
// test of one process's samples can see, since they share it.
type Noise struct {
	// Rows is the number of time rows the estimate rests on.
	Rows int `json:"rows"`
	// Shift is the rows' common change, new ÷ old − 1 at the median of
	// their log changes: a machine uniformly slower in the new run.
	Shift float64 `json:"shift"`
	// Spread is the robust standard deviation of the rows' log changes
	// about their median, 1.4826 × their median absolute deviation (as
	// the standard deviation for normal data, but not moved by the
	// changed rows themselves, up to half of them).
	Spread float64 `json:"spread"`
	// Floor is the change a row must make beyond Shift to count: the
	// threshold or exp(NoiseK × Spread) − 1, whichever is larger.
	Floor float64 `json:"floor"`
}

// estimateNoise is the Noise of ds's time rows with the minimum change
// threshold.
func estimateNoise(ds []Delta, threshold float64) Noise {
	return noiseOf(ds, threshold, func(Delta) bool { return true })
}

// noiseByStratum estimates the Noise of each subject's time rows on its
// own where it is the larger (of a workload's otherwise, and where a
// subject has too few rows; of all rows' where the workload has too
// few): subjects differ in how much a process
// shift moves them — a parallel read on two shared cores moves more than
// an encode of a block that stays in the cache — and one floor for all
// would be too low for the one and too high for the other.
func noiseByStratum(ds []Delta, threshold float64) (all Noise, by map[string]Noise) {
	all = estimateNoise(ds, threshold)
	work := map[string]Noise{}
	by = map[string]Noise{}
	for _, d := range ds {
		w, s := workloadOf(d), stratumOf(d)
		if _, ok := by[s]; ok {
			continue
		}
		wn, ok := work[w]
		if !ok {
			wn = noiseOf(ds, threshold, func(o Delta) bool { return workloadOf(o) == w })
			if wn.Rows < noiseMinRows {
				wn = all
			}
			wn.Shift = all.Shift
			work[w] = wn
		}
		// A subject's own spread, from a dozen rows, can fall short of
		// its workload's by chance as easily as by nature: it may raise
		// the floor, never lower it.
		n := noiseOf(ds, threshold, func(o Delta) bool { return stratumOf(o) == s })
		if n.Rows < noiseMinRows || n.Spread < wn.Spread {
			n = wn
		}
		// The spread is the stratum's, the shift the machine's: a subject
		// whose every case slowed is a regression, not a shift.
		n.Shift = all.Shift
		by[s] = n
	}
	return all, by
}

// stratumOf is the stratum a row is judged in: its workload and subject.
func stratumOf(d Delta) string {
	c := d.Old
	if c == nil {
		c = d.New
	}
	if c == nil {
		return ""
	}
	return c.Workload + "/" + c.Labels.Get("subject")
}

// noiseOf is the Noise of the time rows keep picks.
func noiseOf(ds []Delta, threshold float64, keep func(Delta) bool) Noise {
	var rs []float64
	for _, d := range ds {
		if d.Note == "" && isTime(d.Unit) && d.Change > -1 && d.Old != nil && d.New != nil && keep(d) {
			rs = append(rs, math.Log1p(d.Change))
		}
	}
	n := Noise{Rows: len(rs), Floor: threshold}
	if len(rs) < noiseMinRows {
		return n
	}
	m := median(rs)
	dev := make([]float64, len(rs))
	for i, r := range rs {
		dev[i] = math.Abs(r - m)
	}
	n.Shift = math.Expm1(m)
	n.Spread = 1.4826 * median(dev)
	n.Floor = max(threshold, math.Expm1(NoiseK*n.Spread))
	return n
}

// beyond reports whether a row that changed by change, its intervals
// gap apart (see gap), moved past the noise: its median by at least the
// threshold, and the gap between its intervals at least the floor beyond
// the common shift, in the change's direction. A row the machine's shift
// carried, one that stood still while the others moved, and one whose
// own samples spread over the change, do not count.
func (n Noise) beyond(change, gap, threshold float64) bool {
	if gap <= -1 {
		return false
	}
	r, m, f := math.Log1p(gap), math.Log1p(n.Shift), math.Log1p(n.Floor)
	if change > 0 {
		return change >= threshold && gap > 0 && r-m >= f
	}
	return -change >= threshold && gap < 0 && m-r >= f
}

// Rule states the rule by which a row counts as changed, with this
// comparison's figures (n being the Noise of all its time rows).
func (n Noise) Rule(threshold float64) string {
	s := fmt.Sprintf("A row counts as changed when its samples differ significantly (Mann-Whitney U, α = 0.05; by process where both runs forked), "+
		"its median moved by at least the %g%% threshold, and the gap between its old and new intervals exceeds the run-to-run noise beyond the machine's common shift: ", threshold*100)
	if n.Spread == 0 && n.Rows < noiseMinRows {
		return s + fmt.Sprintf("too few time rows (%d, fewer than %d) to estimate it, so the threshold alone applies.", n.Rows, noiseMinRows)
	}
	return s + fmt.Sprintf("%d × the robust spread (1.4826 × MAD) of the log changes of the time rows of its workload and subject (never less than its workload's) — "+
		"over all %d time rows, a floor of %.1f%% beyond a shift of %+.1f%%; each subject's floor is in --format json. "+
		"Processes of one build differ by that much, which no test of one process's samples can see.",
		NoiseK, n.Rows, n.Floor*100, n.Shift*100)
}

// median is the median of vs (which it sorts).
func median(vs []float64) float64 {
	sort.Float64s(vs)
	if k := len(vs); k%2 == 0 {
		return (vs[k/2-1] + vs[k/2]) / 2
	}
	return vs[len(vs)/2]
}

// workloadOf is the workload a row's cases belong to.
func workloadOf(d Delta) string {
	switch {
	case d.Old != nil:
		return d.Old.Workload
	case d.New != nil:
		return d.New.Workload
	}
	return ""
}
