package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/serbench/serbench/results"
)

// A Case is one thing to measure: an operation of one subject on one input.
//
// Setup, Verify and Teardown run outside the timed region. Run is timed; it
// must perform the operation b.N times.
type Case struct {
	// Workload names the workload the case belongs to.
	Workload string
	// Name is the benchmark base name (e.g. "Features").
	Name string
	// Labels identify the case (subject, type, size, op …). Every case
	// carries its subject under the one key "subject".
	Labels results.Labels
	// Role is the subject's role: results.RoleSubject (the default when
	// empty), RoleBaseline or RoleLimit.
	Role string
	// Group names the comparison group: the cases a table puts side by
	// side (same dataset, size and op; different subjects and the limit
	// row). A group is sampled round-robin, order rotated each round, so
	// that machine drift lands on every member alike; each sample carries
	// its ratio to the group's baseline and limit row of the same round.
	// Empty: the case is measured alone.
	Group string
	// Affinity keeps cases together when a run is split into shards:
	// cases with the same Affinity (or, when it is empty, the same Group)
	// run on the same shard, e.g. a file's write and its reads.
	Affinity string
	// Bytes is the payload size one op processes; it yields MB/s. Run
	// may set it instead with b.SetBytes when it is known only after
	// Setup.
	Bytes int64
	// Metrics are fixed per-case values (serialized size, ratio to raw).
	// Setup or Verify may fill them in.
	Metrics map[string]float64
	// Notes are remarks carried into the results (e.g. "limit row").
	Notes []string
	// Setup prepares inputs. Optional.
	Setup func() error
	// Verify checks that the subject round-trips the input before any
	// timing. A case without Verify is not run: a limit row verifies its
	// copy too.
	Verify func() error
	// Run performs the operation b.N times.
	Run func(b *B) error
	// Teardown releases what Setup made. Optional; always called when
	// Setup succeeded.
	Teardown func()
	// Count overrides Options.Count when positive (for cases whose
	// single op takes seconds).
	Count int
	// Skip, when set, records the case as skipped with this reason
	// without running anything (e.g. "not installed: pip install …").
	Skip string
	// NoWarmup declares the op's first run representative (e.g. a
	// whole-file write whose inputs were prepared in Setup): when the
	// first calibration run at N=1 already lasts a sample's time, there is
	// no separate warm-up and that run counts as the first sample.
	NoWarmup bool
	// OpTime is the expected duration of one op, when the workload can
	// tell (a file of a million records, a scan of ten million rows); zero
	// means "shorter than a sample". It only feeds Estimate.
	OpTime time.Duration
	// Iters, when positive, is the number of iterations per sample,
	// calibrated by an earlier process measuring the same case (a fork):
	// calibration is skipped and one run of Iters iterations warms the
	// case up instead.
	Iters int
	// Budget, when positive, caps the time spent sampling: no new sample
	// starts once the samples so far took Budget (at least MinCount samples
	// are always taken). Slow ops then get fewer samples, and reports show n.
	Budget time.Duration
	// MinCount is the number of samples taken even when they exceed Budget
	// (default 1; never more than the count). With a small Budget and the
	// default count, a fast op gets many cheap samples and a slow op still
	// gets MinCount. Without a Budget, a MinCount replaces MinRounds as the
	// floor under the run's CaseSampling.
	MinCount int
	// Remote, when set, measures the case's whole comparison group in
	// another process (a runner in another language; see package
	// runner): every member of the group carries the same Remote, and
	// Setup, Verify and Run are not used.
	Remote Remote
	// PerRound is the number of samples the case takes back to back in
	// each round of its group, after one GC and one untimed run of a
	// sample's size (default 1: one sample, no such run); Count and Budget
	// still bound its samples in all. It is for an op that allocates next
	// to nothing in a group whose other members allocate much: a floor
	// reading a file's bytes next to reads decoding a million records.
	// There the GC before each sample costs many times the sample, so the
	// floor could afford only three samples, and each was the first run
	// after the collection freed the read's records, 1.5–2× slower than
	// the next: it paid for refilling its buffer (page faults included),
	// which the least work a read can do does not include.
	PerRound int
}

// FullName returns the name with labels.
func (c *Case) FullName() string { return c.Name + c.Labels.String() }

// A Remote measures comparison groups in another process with the
// engine's semantics (calibration, interleaved rounds with the order
// rotated, in-round ratios), and returns one result per case, failed ones
// with their reason. It returns ErrInterrupted when ctx ends before the
// group is done: the group then counts as not run.
type Remote interface {
	MeasureGroup(ctx context.Context, cases []Case, opts Options) ([]results.Case, error)
}

// Options control the measurement.
type Options struct {
	// Count is the number of samples per case (default 5).
	Count int
	// SampleTime is the target duration of one sample (default 50ms).
	SampleTime time.Duration
	// MaxIters caps b.N (default 1e9).
	MaxIters int
	// Probe, when set, times the machine between groups (RunAll).
	Probe *Prober
	// CaseTimeout bounds one call into a case's code — its setup, its
	// verification, one sample or calibration run — in RunAll (0: no
	// bound). A call past it makes RunAll record the case FAILED ("timed
	// out after …") and return a *TimeoutError; see there.
	CaseTimeout time.Duration
	// Target, when positive, stops sampling a group's member once its
	// figures are known well enough: the 95% intervals of its in-round
	// ratios to the group's baseline and limit row (of its ns/op, when it
	// has neither) are narrower than ±Target of their medians, after at
	// least MinRounds rounds. Count then caps the samples. The baseline
	// and limit row sample on while any other member does: the others'
	// ratios are taken against them. Zero takes Count samples of every
	// case (within its Budget).
	Target float64
	// MinRounds is the fewest rounds before Target can stop a member
	// (default 6: the fewest samples whose order statistics give a 95%
	// interval of the median).
	MinRounds int
	// CaseSampling, when positive, is the sampling time of a case that
	// sets no Budget of its own: it takes no new sample once its samples
	// took CaseSampling and it has MinRounds of them (Count still caps
	// them). It spends a count meant for short samples on a slow op no
	// longer than on a fast one: fifty samples of a 400 ms scan would
	// take 20 s, where six give the interval of the median.
	CaseSampling time.Duration
	// TurnTime is how long a member samples in its turn of a round, a
	// sample at a time, before the next member's turn (default five
	// sample times): samples shorter than an op's turn are taken a few
	// back to back after the turn's GC. A case with PerRound takes that
	// many instead; a slow op takes one sample per turn.
	TurnTime time.Duration
	// Deadline, when set, is when the run's time budget for these cases
	// runs out: past it a group's members stop at their floor — MinRounds
	// samples for a slow op, cutSamples for a fast one, never more than
	// their count — so the budget cuts the samples that only narrow
	// intervals further, never the fewest that give a useful one.
	Deadline time.Time
	// OnSample, when set, is called with a case's full name after each
	// sample a runner's group (a Remote) takes of it, so that a progress
	// line moves inside a group that runs for minutes. RunAll sets it when
	// its Progress is a SampleProgress.
	OnSample func(fullName string)

	watch *watch // set by RunAll when CaseTimeout is
}

// Cut reports whether the run's time budget (Deadline) has run out at
// now, and how many rounds a group then takes (MinRounds, defaulted): a
// Remote group measured in another process honours the budget as the
// engine does.
func (o Options) Cut(now time.Time) (rounds int, cut bool) {
	o = o.withDefaults()
	return o.MinRounds, !o.Deadline.IsZero() && now.After(o.Deadline)
}

func (o Options) withDefaults() Options {
	if o.Count <= 0 {
		o.Count = 5
	}
	if o.SampleTime <= 0 {
		o.SampleTime = 50 * time.Millisecond
	}
	if o.MaxIters <= 0 {
		o.MaxIters = 1e9
	}
	if o.MinRounds <= 0 {
		o.MinRounds = 6
	}
	if o.TurnTime <= 0 {
		o.TurnTime = 5 * o.SampleTime
	}
	return o
}

// Why a member stopped sampling (results.Case.Stop).
const (
	StopTarget = "target" // its intervals met Options.Target
	StopCount  = "count"  // it took Count samples (Target's cap)
	StopBudget = "budget" // its samples used its Budget
	StopRun    = "run"    // the run's time budget ran out (Options.Deadline)
)

// converged reports whether m's figures meet the target (Converged).
func (m *member) converged(target float64) bool { return Converged(&m.rc, target) }

// Converged reports whether a case's figures meet a sampling target: the
// relative half-width of the 95% interval of each in-round ratio it has
// (to the baseline, to the limit row), or of its ns/op when it has
// neither, is at most target.
func Converged(c *results.Case, target float64) bool {
	var bs, ls, ns []float64
	for _, s := range c.Samples {
		if s.VsBaseline > 0 {
			bs = append(bs, s.VsBaseline)
		}
		if s.VsLimit > 0 {
			ls = append(ls, s.VsLimit)
		}
		ns = append(ns, s.NsPerOp)
	}
	checked := false
	for _, vs := range [][]float64{bs, ls} {
		// A member's ratio to itself (the baseline's to the baseline) is
		// 1 in every round: no information, and always "converged".
		if len(vs) == 0 || allOne(vs) {
			continue
		}
		checked = true
		if st := results.Summarize(vs); st.Confidence < results.Confidence || st.RelWidth() > target {
			return false
		}
	}
	if !checked {
		st := results.Summarize(ns)
		return st.Confidence >= results.Confidence && st.RelWidth() <= target
	}
	return true
}

func allOne(vs []float64) bool {
	for _, v := range vs {
		if v != 1 {
			return false
		}
	}
	return true
}

// ErrInterrupted is returned by Measure when its context ends mid-case.
var ErrInterrupted = errors.New("bench: interrupted")

// Measure sets up, verifies and measures one case. A case that fails
// setup, verification or its run is returned with status failed and the
// reason; Measure returns an error only when ctx ends before the case is
// finished (the partial case is then discarded).
func Measure(ctx context.Context, c Case, opts Options) (results.Case, error) {
	rs, err := MeasureGroup(ctx, []Case{c}, opts)
	if err != nil {
		return results.Case{}, err
	}
	return rs[0], nil
}

// member is one case of a group while it is measured.
type member struct {
	c        *Case
	rc       results.Case
	b        B
	n        int           // iterations per sample
	count    int           // samples wanted
	budget   time.Duration // sampling time allowed (CaseBudget); 0: none
	minCount int           // samples taken whatever the budget
	cut      bool          // stopped by Options.Deadline
	sampling time.Duration
	t0       time.Time
	active   bool
	done     bool // stopped by the sampling target
	teardown func()
	watch    *watch // nil: unwatched
}

func (m *member) fail(stage string, err error) {
	m.rc.Status = results.StatusFailed
	if errors.Is(err, results.ErrCannotHold) {
		m.rc.Status = results.StatusCannotHold // the format's limit, not a failure
	}
	m.rc.Error = fmt.Sprintf("%s: %v", stage, err)
	m.rc.Samples, m.rc.Summary = nil, nil
	m.rc.Metrics = copyMetrics(m.c.Metrics)
	m.active = false
}

// runOnce runs the case's op n times as one timed run, watched.
func (m *member) runOnce(n int) (time.Duration, error) {
	m.watch.enter(m.c, "run")
	defer m.watch.leave()
	return runOnce(&m.b, m.c.Run, n)
}

// call runs one of the case's functions (setup, verify), watched.
func (m *member) call(stage string, f func() error) error {
	m.watch.enter(m.c, stage)
	defer m.watch.leave()
	return safeCall(f)
}

func (m *member) sample(n int, d time.Duration) results.Sample {
	return results.Sample{
		Iters:       n,
		NsPerOp:     float64(d.Nanoseconds()) / float64(n),
		BytesPerOp:  float64(m.b.netBytes) / float64(n),
		AllocsPerOp: float64(m.b.netAllocs) / float64(n),
		Metrics:     m.b.metrics,
	}
}

// moreThisTurn reports whether the member, having taken k samples
// lasting turn in its current turn, takes another before the next member's
// turn: exactly PerRound when the case asks for a burst, else until the
// turn has lasted TurnTime. Short samples taken a few to a turn keep what
// short samples are for (a sample lies wholly inside or wholly outside a
// stretch in which the machine runs slow; see docs/method.md) while the
// GC before each turn, which costs milliseconds when the live heap is
// large, is paid once per TurnTime of sampling as it was with one longer
// sample per turn.
func (m *member) moreThisTurn(k int, turn time.Duration, opts Options) bool {
	if m.c.PerRound > 0 {
		return k < m.c.PerRound
	}
	return turn < opts.TurnTime
}

// cutSamples is the floor of samples a fast member (one whose samples
// run many iterations, each sample lasting the sample time) keeps when
// the run's budget cuts its group: the interval of the median of twenty
// samples runs from the 6th to the 15th, so a few samples slowed by the
// machine do not widen it — which the [min, max] of MinRounds samples
// cannot say. Twenty samples of a fast op cost twenty sample times (40 ms
// at the default 2 ms), little against a group's set-up and calibration.
const cutSamples = 20

// cutFloor is how many samples the member keeps when the run's budget
// cuts its group: MinRounds for a slow op (one iteration per sample),
// cutSamples for a fast one; never more than its count.
func (m *member) cutFloor(opts Options) int {
	floor := opts.MinRounds
	if m.n > 1 {
		floor = max(floor, cutSamples)
	}
	return min(floor, m.count)
}

// spent reports whether the run's budget has run out and the member has
// the floor of samples a cut keeps but not yet its count (one at its count
// stops by the count).
func (m *member) spent(opts Options) bool {
	n := len(m.rc.Samples)
	return !opts.Deadline.IsZero() && n >= m.cutFloor(opts) && n < m.count && time.Now().After(opts.Deadline)
}

// wantsMore reports whether the member takes part in another round.
func (m *member) wantsMore() bool {
	if !m.active || m.done || len(m.rc.Samples) >= m.count {
		return false
	}
	return m.budget <= 0 || len(m.rc.Samples) < m.minCount || m.sampling < m.budget
}

// CaseBudget returns how long c may sample and how many samples it takes
// whatever that time: its own Budget and MinCount when it sets a budget,
// else the run's CaseSampling with its MinCount samples (MinRounds when it
// sets none), else no limit.
func CaseBudget(c *Case, opts Options) (time.Duration, int) {
	switch {
	case c.Budget > 0:
		return c.Budget, max(c.MinCount, 1)
	case opts.CaseSampling > 0 && c.MinCount > 0:
		return opts.CaseSampling, c.MinCount
	case opts.CaseSampling > 0:
		return opts.CaseSampling, max(opts.MinRounds, 1)
	}
	return 0, max(c.MinCount, 1)
}

// MeasureGroup sets up, verifies and measures the cases of one comparison
// group. Every case is set up and verified first, then calibrated (which
// warms it up) one after another; then the samples are taken in rounds:
// one turn of each case per round — samples back to back until the turn
// has lasted TurnTime (one sample of a slow op; PerRound of them for a
// case that asks) — the order rotated by one each round (and never starting
// with the case that ended the previous round), a GC before each case's
// turn. A sample records its ratio to the ns/op of the group's baseline
// and limit row taken in the same round. The results come
// back in the order of cases. Cases that fail are recorded as failed and
// leave the group; an error is returned only when ctx ends first (the
// group's partial results are then discarded).
func MeasureGroup(ctx context.Context, cases []Case, opts Options) ([]results.Case, error) {
	opts = opts.withDefaults()
	if len(cases) > 0 && cases[0].Remote != nil {
		return cases[0].Remote.MeasureGroup(ctx, cases, opts)
	}
	ms := make([]*member, len(cases))
	defer func() {
		for _, m := range ms {
			if m != nil && m.teardown != nil {
				m.teardown()
			}
		}
	}()
	for i := range cases {
		c := &cases[i]
		m := &member{c: c, t0: time.Now(), count: opts.Count, watch: opts.watch}
		m.budget, m.minCount = CaseBudget(c, opts)
		if c.Count > 0 {
			m.count = c.Count
		}
		m.rc = results.Case{Workload: c.Workload, Name: c.Name, Labels: c.Labels, Role: c.Role, Group: c.Group, Notes: c.Notes}
		if m.rc.Role == "" {
			m.rc.Role = results.RoleSubject
		}
		ms[i] = m
		if err := m.prepare(ctx, opts); err != nil {
			return nil, err
		}
	}
	baseline, limit := -1, -1
	for i, m := range ms {
		switch {
		case m.rc.Role == results.RoleBaseline && baseline < 0:
			baseline = i
		case m.rc.Role == results.RoleLimit && limit < 0:
			limit = i
		}
	}
	last := -1 // the member sampled last
	for round := 0; ; round++ {
		var order []int
		for k := range ms {
			i := (k + round) % len(ms)
			if ms[i].wantsMore() {
				order = append(order, i)
			}
		}
		if len(order) == 0 {
			break
		}
		if len(order) > 1 && order[0] == last {
			// No member follows itself across rounds: with two members
			// (or two left) plain rotation samples a, b | b, a | a, b …,
			// so half of a member's samples would follow itself, with
			// its own data warm in the caches, and half the other member.
			order = append(order[1:], order[0])
		}
		inRound := make(map[int]float64, len(order)) // each member's ns/op this round
		first := make(map[int]int, len(order))       // its first sample this round
		for _, i := range order {
			if err := ctx.Err(); err != nil {
				return nil, ErrInterrupted
			}
			m := ms[i]
			first[i] = len(m.rc.Samples)
			runtime.GC()
			if m.c.PerRound > 1 {
				// The burst's warm-up: the first run after another
				// member's garbage was collected refills the op's buffers
				// and caches (page faults included).
				if _, err := m.runOnce(m.n); err != nil {
					m.fail("run", err)
					continue
				}
			}
			var turn time.Duration // the samples taken in this turn
			for k := 0; k == 0 || m.wantsMore() && m.moreThisTurn(k, turn, opts); k++ {
				d, err := m.runOnce(m.n)
				if err != nil {
					m.fail("run", err)
					break
				}
				s := m.sample(m.n, d)
				if len(ms) > 1 {
					s.Round = round + 1
				}
				m.rc.Samples = append(m.rc.Samples, s)
				m.sampling += d
				turn += d
				if i != baseline && i != limit && m.spent(opts) {
					// The budget ran out during this turn: a subject
					// with its floor stops now, not at the round's end
					// (a turn of fast samples could take its count).
					m.done, m.cut = true, true
				}
			}
			if m.active {
				inRound[i] = roundNs(m.rc.Samples[first[i]:])
			}
			last = i
		}
		for i := range inRound {
			for k := first[i]; k < len(ms[i].rc.Samples); k++ {
				s := &ms[i].rc.Samples[k]
				if b, ok := inRound[baseline]; ok && b > 0 && len(ms) > 1 {
					s.VsBaseline = s.NsPerOp / b
				}
				if l, ok := inRound[limit]; ok && l > 0 && len(ms) > 1 {
					s.VsLimit = s.NsPerOp / l
				}
			}
		}
		if !opts.Deadline.IsZero() && time.Now().After(opts.Deadline) {
			// The run's budget is spent: every member stops once it has
			// its floor of samples; the references (baseline, limit row)
			// go on while anyone measured against them does.
			others := false
			for i, m := range ms {
				if i == baseline || i == limit || !m.wantsMore() {
					continue
				}
				if len(m.rc.Samples) >= m.cutFloor(opts) {
					m.done, m.cut = true, true
				} else {
					others = true
				}
			}
			for _, i := range []int{baseline, limit} {
				if i >= 0 && !others && ms[i].wantsMore() && len(ms[i].rc.Samples) >= ms[i].cutFloor(opts) {
					ms[i].done, ms[i].cut = true, true
				}
			}
		}
		if opts.Target > 0 && round+1 >= opts.MinRounds {
			// Sequential sampling: members whose figures are known well
			// enough stop; the references (baseline, limit row) go on
			// while anyone measured against them does.
			others := false
			for i, m := range ms {
				if i == baseline || i == limit || !m.wantsMore() {
					continue
				}
				if m.converged(opts.Target) {
					m.done = true
				} else {
					others = true
				}
			}
			for _, i := range []int{baseline, limit} {
				if i >= 0 && !others && ms[i].wantsMore() && ms[i].converged(opts.Target) {
					ms[i].done = true
				}
			}
		}
	}
	if ctx.Err() != nil {
		for _, m := range ms {
			if m.rc.Status == results.StatusFailed {
				// A case that failed while the run was being stopped may
				// have failed because of it (its server shut down, a
				// connection closed): the group counts as not run, so
				// that --resume measures it again.
				return nil, ErrInterrupted
			}
		}
	}
	out := make([]results.Case, len(ms))
	for i, m := range ms {
		if m.rc.Status == "" {
			switch {
			case m.cut:
				m.rc.Stop = StopRun
			case m.done:
				m.rc.Stop = StopTarget
			case len(m.rc.Samples) >= m.count:
				m.rc.Stop = StopCount
			default:
				m.rc.Stop = StopBudget
			}
			m.rc.Status = results.StatusOK
			m.rc.BytesPerOp = m.c.Bytes
			if m.b.bytes > 0 {
				m.rc.BytesPerOp = m.b.bytes
			}
			m.rc.Metrics = copyMetrics(m.c.Metrics)
			m.rc.Summarize()
		}
		m.rc.Elapsed = time.Since(m.t0)
		m.rc.Start, m.rc.End = m.t0.UTC(), m.t0.Add(m.rc.Elapsed).UTC()
		out[i] = m.rc
	}
	return out, nil
}

// prepare sets the member up, verifies it and calibrates its iteration
// count (the calibration runs are its warm-up). A slow op whose first run
// is representative keeps that run as its first sample. Failures are
// recorded in the member; the error is ErrInterrupted only.
// setUp runs the case's Setup and Verify, as every measurement of it
// (by time or by count) does first. It reports whether the case is ready
// to measure; when it is not, the member holds the case's status (skipped
// or failed) and err is ErrInterrupted only when ctx ended.
func (m *member) setUp(ctx context.Context) (ok bool, err error) {
	c := m.c
	switch {
	case c.Skip != "":
		m.rc.Status, m.rc.Error = results.StatusSkipped, c.Skip
		return false, nil
	case c.Run == nil:
		m.fail("setup", errors.New("case has no Run function"))
		return false, nil
	case c.Verify == nil:
		m.fail("verify", errors.New("case has no Verify function"))
		return false, nil
	}
	if c.Setup != nil {
		if err := m.call("setup", c.Setup); err != nil {
			m.fail("setup", err)
			return false, nil
		}
	}
	m.teardown = c.Teardown
	if err := m.call("verify", c.Verify); err != nil {
		m.fail("verify", err)
		return false, nil
	}
	if err := ctx.Err(); err != nil {
		return false, ErrInterrupted
	}
	return true, nil
}

func (m *member) prepare(ctx context.Context, opts Options) error {
	c := m.c
	if ok, err := m.setUp(ctx); !ok {
		return err
	}
	if c.Iters > 0 {
		// Calibrated elsewhere: warm up with one run of a sample's size.
		if !(c.Iters == 1 && c.NoWarmup) {
			if _, err := m.runOnce(c.Iters); err != nil {
				m.fail("run", err)
				return nil
			}
		}
		m.n, m.active = c.Iters, true
		return nil
	}
	// Calibrate: grow N until one run lasts at least SampleTime, as
	// testing.B does. The calibration runs double as warm-up.
	n := 1
	var last time.Duration
	for {
		if n == 1 {
			runtime.GC() // the first run may become a sample
		}
		d, err := m.runOnce(n)
		if err != nil {
			m.fail("run", err)
			return nil
		}
		last = d
		if d >= opts.SampleTime || n >= opts.MaxIters {
			break
		}
		if err := ctx.Err(); err != nil {
			return ErrInterrupted
		}
		n = predictN(n, d, opts)
	}
	m.n = n
	m.active = true
	switch {
	case n == 1 && c.NoWarmup:
		// A slow op whose first run is representative: keep it.
		m.rc.Samples = append(m.rc.Samples, m.sample(1, last))
		m.sampling += last
	case n == 1 && last < 10*opts.SampleTime:
		// A slow op has had one cold run; warm up once more. A fast op's
		// final calibration run is its warm-up.
		if _, err := m.runOnce(1); err != nil {
			m.fail("run", err)
		}
	}
	return nil
}

// Estimate is how long measuring c will take with opts: calibration and
// warm-up, then its samples (capped by its budget), from OpTime when the
// workload set it and from the target sample time otherwise. Setup and
// verification are counted as one more op.
func Estimate(c *Case, opts Options) time.Duration {
	opts = opts.withDefaults()
	if c.Skip != "" {
		return 0
	}
	count := opts.Count
	if c.Count > 0 {
		count = c.Count
	}
	op := c.OpTime
	if opts.Target > 0 && count > opts.MinRounds {
		// Most groups meet the target a few rounds after the first
		// MinRounds; close or noisy ones take up to the count. A fast op
		// takes a turn's worth of samples per round.
		perRound := 1
		switch {
		case c.PerRound > 0:
			perRound = c.PerRound
		case op < opts.SampleTime:
			perRound = max(int(opts.TurnTime/opts.SampleTime), 1)
		}
		count = min(count, (opts.MinRounds+4)*perRound)
	}
	if op < opts.SampleTime {
		// Calibration grows N geometrically to one sample's time (about
		// two samples' worth in all), then the samples.
		n := budgeted(c, count, opts.SampleTime, opts)
		return time.Duration(n+burstRuns(c, n)+2)*opts.SampleTime + op
	}
	n := budgeted(c, count, op, opts)
	extra := 2 // a cold run and a warm-up
	if c.NoWarmup {
		extra = 0
	}
	return time.Duration(n+burstRuns(c, n)+extra+1) * op
}

// Floor is what measuring c costs when the run's budget has run out
// before its group starts: Estimate with the samples the cut leaves
// (cutFloor: MinRounds for a slow op, cutSamples for a fast one, never
// more than its count) and no target. The budget cannot save this part,
// so a run shares its budget out after setting every workload's floor
// aside.
func Floor(c *Case, opts Options) time.Duration {
	opts = opts.withDefaults()
	count := opts.Count
	if c.Count > 0 {
		count = c.Count
	}
	floor := opts.MinRounds
	if c.OpTime < opts.SampleTime {
		floor = max(floor, cutSamples)
	}
	cc := *c
	cc.Count = min(count, floor)
	opts.Target = 0
	return Estimate(&cc, opts)
}

// burstRuns is the number of untimed runs c makes before its bursts of
// samples (PerRound) when it takes n samples: one per round.
func burstRuns(c *Case, n int) int {
	if c.PerRound <= 1 {
		return 0
	}
	return (n + c.PerRound - 1) / c.PerRound
}

// budgeted is how many of count samples lasting d each c's sampling
// budget (CaseBudget) lets it take.
func budgeted(c *Case, count int, d time.Duration, opts Options) int {
	budget, least := CaseBudget(c, opts)
	if budget <= 0 || d <= 0 {
		return count
	}
	n := 1 + int((budget-1)/d)
	return min(count, max(n, least))
}

// roundNs is a member's ns/op in one round: its sample's, or the median of
// its samples when it takes several per round (PerRound).
func roundNs(ss []results.Sample) float64 {
	ns := make([]float64, len(ss))
	for i, s := range ss {
		ns[i] = s.NsPerOp
	}
	slices.Sort(ns)
	if n := len(ns); n%2 == 0 {
		return (ns[n/2-1] + ns[n/2]) / 2
	}
	return ns[len(ns)/2]
}

// runOnce runs fn with N=n and returns the timed duration.
func runOnce(b *B, fn func(*B) error, n int) (time.Duration, error) {
	b.reset(n)
	b.StartTimer()
	err := safeRun(fn, b)
	b.StopTimer()
	return b.duration, err
}

// predictN mirrors testing.B's growth: aim 20% past the target, grow at
// most 100× and at least by one per round.
func predictN(n int, d time.Duration, opts Options) int {
	goal := opts.SampleTime.Nanoseconds()
	prev := d.Nanoseconds()
	if prev <= 0 {
		prev = 1
	}
	next := goal * int64(n) / prev
	next += next / 5
	next = min(next, 100*int64(n))
	next = max(next, int64(n)+1)
	next = min(next, int64(opts.MaxIters))
	return int(next)
}

func copyMetrics(m map[string]float64) map[string]float64 {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// safeCall runs f and turns a panic into an error, so one broken subject
// cannot take the run down.
func safeCall(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

func safeRun(f func(*B) error, b *B) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f(b)
}
