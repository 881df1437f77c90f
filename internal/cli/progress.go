package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/run"
	"github.com/serbench/serbench/workload/interop"
)

// progress shows how far a run is: a redrawn bar on a terminal, a line per
// tenth of the run otherwise, and in both a heartbeat at least every
// heartbeat interval (the case being measured, elapsed, left). The time left
// is estimated from the cases' estimated costs (bench.Estimate), not from
// their count: one case of a file workload costs hundreds of a small one.
// Failed cases are always printed.
type progress struct {
	w    io.Writer
	mode string
	// every is the heartbeat interval.
	every time.Duration

	mu       sync.Mutex
	total    int
	start    time.Time
	last     int
	lastLine time.Time
	cost     map[string]run.CaseCost
	// Per workload, in the order they run: estimated cost, estimated cost
	// done, and the wall time spent on it.
	wl      []string
	wlCost  map[string]time.Duration
	wlDone  map[string]time.Duration
	wlSpent map[string]time.Duration
	wlFrom  time.Time // when the current workload's first case started
	cur     string    // the current workload
	// The run's budget (Budget, Deadline): when it ends, each workload's
	// floor and when the current workload's groups are cut.
	budgetEnd time.Time
	wlFloor   map[string]time.Duration
	deadline  map[string]time.Time
	// count is the run's --count: a runner case's samples when it sets
	// none, so that each sample moves the estimate done by its share;
	// partial is what a case's samples have moved it so far.
	count   int
	partial map[string]time.Duration
	// wlFloorDone is, per workload, the floors of its case runs done.
	wlFloorDone map[string]time.Duration
	done        int
	current     string
	stop        chan struct{}
	stopped     chan struct{}
}

var _ run.Progress = (*progress)(nil)

// heartbeat is the longest a run stays silent in lines mode.
const heartbeat = 30 * time.Second

func newProgress(mode string, w io.Writer) (*progress, error) {
	switch mode {
	case "auto":
		mode = "lines"
		if f, ok := w.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				mode = "bar"
			}
		}
	case "bar", "lines", "none":
	default:
		return nil, fmt.Errorf("unknown --progress %q (valid: auto, bar, lines, none)", mode)
	}
	return &progress{w: w, mode: mode, every: heartbeat, count: defaultCount}, nil
}

// Begin implements run.Progress.
func (p *progress) Begin(total int, cost map[string]run.CaseCost) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.cost, p.start, p.lastLine = total, cost, time.Now(), time.Now()
	p.wlCost, p.wlDone, p.wlSpent = map[string]time.Duration{}, map[string]time.Duration{}, map[string]time.Duration{}
	p.partial, p.wlFloorDone = map[string]time.Duration{}, map[string]time.Duration{}
	if p.deadline == nil {
		p.deadline = map[string]time.Time{}
	}
	var all time.Duration
	for k, c := range cost {
		w, _, _ := strings.Cut(k, "\x00")
		p.wlCost[w] += c.Total()
		all += c.Total()
	}
	if p.mode == "none" {
		return
	}
	est := ""
	if all > 0 {
		est = ", estimated " + all.Round(time.Second).String()
	}
	if !p.budgetEnd.IsZero() {
		// What the budget lets the run take: its groups cut past it, never
		// below the floors.
		var floors time.Duration
		for _, f := range p.wlFloor {
			floors += f
		}
		if b := max(time.Until(p.budgetEnd), floors); b < all {
			est = fmt.Sprintf(", estimated %s within the budget (%s uncut)", b.Round(time.Second), all.Round(time.Second))
		}
	}
	fmt.Fprintf(p.w, "serbench: %d case runs to measure%s\n", total, est)
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go p.beat()
}

// Budget implements run.Progress; the run calls it before Begin.
func (p *progress) Budget(end time.Time, floors map[string]time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.budgetEnd, p.wlFloor = end, floors
	if p.deadline == nil {
		p.deadline = map[string]time.Time{}
	}
}

// Deadline implements run.Progress.
func (p *progress) Deadline(workload string, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.deadline[workload] = at
}

// Sample implements bench.SampleProgress: a runner's sample of c moves the
// estimate done by its share of the case's run (its count of samples), at
// most to all of it but a last share that Done adds.
func (p *progress) Sample(c *bench.Case) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := run.CostKey(c.Workload, c.FullName())
	cc := p.cost[k]
	n := p.count
	if c.Count > 0 {
		n = c.Count
	}
	step := cc.PerRun / time.Duration(max(n, 1))
	if p.partial[k]+step >= cc.PerRun {
		return
	}
	p.partial[k] += step
	p.wlDone[c.Workload] += step
	if p.mode == "bar" {
		p.draw(p.done, p.current)
	}
}

// beatTicks is how many times per heartbeat interval beat looks at the
// run: a line is due once the run has been silent for the interval less
// one tick, so no silence lasts longer than the interval.
const beatTicks = 30

// beat writes a line (or redraws the bar) whenever the run has been
// silent for the heartbeat interval.
func (p *progress) beat() {
	defer close(p.stopped)
	tick := p.every / beatTicks
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			switch {
			case p.mode == "bar":
				p.draw(p.done, p.current)
			case time.Since(p.lastLine) >= p.every-tick && p.current == "":
				// Before the first case: a workload generating its data or
				// building a runner, or a child process starting.
				p.line("preparing (data, runners)")
			case time.Since(p.lastLine) >= p.every-tick:
				p.line("measuring " + p.current)
			}
			p.mu.Unlock()
		}
	}
}

// Start implements bench.Progress: it shows the case's full name, the
// string --filter matches.
func (p *progress) Start(done, _ int, c *bench.Case) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.current = c.FullName()
	if c.Workload != p.cur {
		if p.cur != "" {
			p.wlSpent[p.cur] += time.Since(p.wlFrom)
		}
		p.cur, p.wlFrom = c.Workload, time.Now()
		p.wl = append(p.wl, c.Workload)
	}
	if p.mode == "bar" {
		p.draw(done, p.current)
	}
}

// Done implements bench.Progress.
func (p *progress) Done(n, _ int, r *results.Case) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = n
	// One run of the case is done (a forked case has one per process).
	k := run.CostKey(r.Workload, r.FullName())
	p.wlDone[r.Workload] += p.cost[k].PerRun - p.partial[k]
	p.wlFloorDone[r.Workload] += p.cost[k].Floor / time.Duration(max(p.cost[k].Runs, 1))
	delete(p.partial, k)
	switch {
	case r.Skipped():
		p.clear()
		fmt.Fprintf(p.w, "skipped %s: %s\n", r.FullName(), r.Error)
	case !r.OK() && r.Labels.Get("op") == interop.OpInterop:
		// A file another language cannot read: a finding of the run.
		p.clear()
		fmt.Fprintf(p.w, "interop ✗ %s: %s → %s: %s\n", r.Labels.Get("format"), r.Labels.Get("writer"), r.Labels.Get("reader"), r.Error)
	case r.CannotHold():
		p.clear()
		fmt.Fprintf(p.w, "cannot hold %s: %s\n", r.FullName(), r.Error)
	case !r.OK():
		p.clear()
		fmt.Fprintf(p.w, "FAILED %s: %s\n", r.FullName(), r.Error)
	}
	switch p.mode {
	case "bar":
		p.draw(n, "")
	case "lines":
		if tenth := n * 10 / max(p.total, 1); tenth > p.last || n == p.total {
			p.last = tenth
			p.line("")
		}
	}
}

// line writes a progress line: case runs done, elapsed, the estimate of
// what is left, and what (if anything) is being measured.
func (p *progress) line(what string) {
	if what != "" {
		if len(what) > 100 {
			what = "…" + what[len(what)-99:]
		}
		what = "; " + what
	}
	fmt.Fprintf(p.w, "serbench: %d/%d case runs, %s elapsed%s%s\n", p.done, p.total, time.Since(p.start).Round(time.Second), p.eta(), what)
	p.lastLine = time.Now()
}

// eta estimates the time left: what the current workload still takes
// (workloadLeft), plus the estimates of the workloads still to come as they
// are (they are already scaled by this machine's history of each; one
// workload's error says little about another's: a forked workload pays
// process starts, a file workload's estimate is per file).
func (p *progress) eta() string {
	if p.done == 0 || p.done >= p.total || p.cur == "" {
		return ""
	}
	return ", about " + p.left(time.Now()).Round(time.Second).String() + " left"
}

// left is eta's estimate at now. With a budget, what the current workload
// still takes is at most the time to its deadline or, past it, what is
// left of its floor (its groups stop there), and the workloads to come
// take at most what the budget leaves them, never less than their floors.
func (p *progress) left(now time.Time) time.Duration {
	spent := p.wlSpent[p.cur] + now.Sub(p.wlFrom)
	var cur, later, laterFloor time.Duration
	for w, c := range p.wlCost {
		if w != p.cur && !slices.Contains(p.wl, w) {
			later += c
			laterFloor += p.wlFloor[w]
		}
	}
	if d := p.wlDone[p.cur]; d >= p.wlCost[p.cur] && d > 0 {
		// The current workload has used up its estimate (its cases cost
		// more than their estimates say): go by the cases left instead.
		all := time.Duration(float64(now.Sub(p.start)) * float64(p.total-p.done) / float64(p.done))
		cur, later = max(all-later, 0), min(later, all)
	} else {
		cur = workloadLeft(p.wlCost[p.cur], p.wlDone[p.cur], spent)
	}
	if dl, ok := p.deadline[p.cur]; ok {
		// Past the deadline the cases left take their floors.
		floorLeft := max(p.wlFloor[p.cur]-p.wlFloorDone[p.cur], 0)
		cur = min(cur, max(dl.Sub(now), floorLeft))
	}
	if !p.budgetEnd.IsZero() {
		later = min(later, max(p.budgetEnd.Sub(now)-cur, laterFloor))
	}
	return cur + later
}

// Bounds of the factor by which workloadLeft scales a workload's estimate
// left, and the share of the estimate done before it does.
const (
	minHeld, maxHeld = 2.0 / 3, 1.5
	heldAfter        = 0.25
)

// workloadLeft estimates what a workload whose cases are estimated to cost
// cost in all, of which done are done, after spent wall time, still takes:
// the estimate left, scaled by how the estimate has held so far (spent ÷
// done) once a quarter of it is done, the factor bounded to [⅔, 1.5].
// Before that the first cases carry the workload's set-up — its data
// generated, its files written, its processes started — which would
// multiply into every case left (a nested run printed an hour left at 30 s
// that way); and one workload's cases are not all estimated alike (a
// runner's group is one process, a Go read a few samples), so the share
// done so far predicts the rest only roughly.
func workloadLeft(cost, done, spent time.Duration) time.Duration {
	rest := cost - done
	if rest <= 0 {
		return 0
	}
	if done > 0 && float64(done) >= heldAfter*float64(cost) {
		f := min(max(float64(spent)/float64(done), minHeld), maxHeld)
		rest = time.Duration(float64(rest) * f)
	}
	return rest
}

// doneShare is the share of the run's estimated cost done.
func (p *progress) doneShare() float64 {
	var all, done time.Duration
	for w, c := range p.wlCost {
		all += c
		if w != p.cur && slices.Contains(p.wl, w) {
			done += c // an earlier workload, finished
		}
	}
	done += p.wlDone[p.cur]
	if all == 0 {
		return float64(p.done) / float64(max(p.total, 1))
	}
	return float64(done) / float64(all)
}

func (p *progress) draw(n int, name string) {
	const width = 30
	fill := min(int(float64(width)*p.doneShare()), width)
	bar := strings.Repeat("█", fill) + strings.Repeat("░", width-fill)
	if len(name) > 60 {
		name = "…" + name[len(name)-59:]
	}
	fmt.Fprintf(p.w, "\r\033[K%s %d/%d %s%s  %s", bar, n, p.total, time.Since(p.start).Round(time.Second), p.eta(), name)
}

func (p *progress) clear() {
	if p.mode == "bar" {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// End implements run.Progress.
func (p *progress) End() {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.mode {
	case "bar":
		p.clear()
	case "lines":
		if p.start.IsZero() {
			return // never begun: nothing was measured
		}
		// What follows — the workloads' files and servers released, the
		// results and reports written — is silent otherwise.
		fmt.Fprintf(p.w, "serbench: measured in %s; writing the results and the report\n", time.Since(p.start).Round(time.Second))
	}
}
