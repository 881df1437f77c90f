package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/digest"
	"github.com/serbench/serbench/results"
)

// Dataset is one dataset a runner reads.
type Dataset struct {
	// Name is the directory under WORK/datasets.
	Name string
	// Rows is the number of rows (informative for the runner).
	Rows int
	// Build returns the rows as Arrow record batches of one schema. It is
	// called once, by the first group that needs the dataset (generating
	// data belongs to setup, not to planning).
	Build func() (*arrow.Schema, []arrow.RecordBatch, error)
	// Nested says the schema has list, struct or map columns: subjects
	// labelled nesting=flat (LabelNesting) are not sent the dataset.
	Nested bool
	// Given is the schema the user gave for the rows (run data --avsc,
	// --proto), written beside the dataset for the subjects labelled
	// given=KIND (LabelGiven); nil when serbench inferred the schema.
	Given *Given

	// want is the Go side's digest of the rows, set when the dataset is
	// written.
	want digest.Result
}

// Want is the digest a decode of query (comma-separated leaf paths, ""
// for every column) must reproduce: the digests of those columns of the
// Go side's digest of the rows, and their table digest.
func (d *Dataset) Want(query string) (digest.Result, error) {
	if query == "" {
		return d.want, nil
	}
	r := digest.Result{Rows: d.want.Rows}
	for _, p := range strings.Split(query, ",") {
		i := slices.IndexFunc(d.want.Columns, func(c digest.ColumnDigest) bool { return c.Path == p })
		if i < 0 {
			return r, fmt.Errorf("query column %q is no leaf of dataset %s", p, d.Name)
		}
		r.Columns = append(r.Columns, d.want.Columns[i])
	}
	slices.SortFunc(r.Columns, func(a, b digest.ColumnDigest) int { return strings.Compare(a.Path, b.Path) })
	t, err := digest.TableDigest(r.Columns)
	r.Table = t
	return r, err
}

// Group measures the cases of one runner: it implements bench.Remote, so
// each comparison group of runner cases is one invocation of the runner,
// in a work directory of its own beside the datasets it shares with the
// other groups.
type Group struct {
	Runner *Runner
	// Dir is where the datasets and the work directories go (a run's
	// temporary directory).
	Dir string
	// Datasets by name.
	Datasets map[string]*Dataset
	// Cases maps a bench case's full name to what the runner measures.
	Cases map[string]Case
	// SizeMetric names the case metric the encoded size is recorded
	// under ("serialized-B"); empty: not recorded.
	SizeMetric string
	// JSONL writes data.jsonl beside data.arrows (Hello.WantsJSONL).
	JSONL bool

	mu      sync.Mutex
	written map[string]error
	seq     int
	// parent, set on a Counting group, writes the datasets.
	parent *Group
}

// Counting returns a group that measures g's cases with the runner
// started under the command prefix wrap (Valgrind and its arguments) with
// env added: its datasets are g's, written once.
func (g *Group) Counting(wrap, env []string) *Group {
	r := *g.Runner
	r.Command = append(append([]string(nil), wrap...), g.Runner.Command...)
	r.Env = append(append([]string(nil), g.Runner.Env...), env...)
	// Under Valgrind a sample takes tens of times longer.
	r.Silence = 20 * max(g.Runner.Silence, DefaultSilence)
	return &Group{Runner: &r, Dir: g.Dir, Datasets: g.Datasets, Cases: g.Cases, SizeMetric: g.SizeMetric, JSONL: g.JSONL, parent: g}
}

// MeasureGroup implements bench.Remote.
func (g *Group) MeasureGroup(ctx context.Context, cases []bench.Case, opts bench.Options) ([]results.Case, error) {
	t0 := time.Now()
	// Past the run's time budget a group takes only its first rounds, as
	// the Go engine's groups do (bench.Options.Deadline).
	rounds, cut := opts.Cut(t0)
	out := make([]results.Case, len(cases))
	specs := make([]Case, len(cases))
	for i := range cases {
		c := &cases[i]
		out[i] = results.Case{Workload: c.Workload, Name: c.Name, Labels: c.Labels, Role: c.Role, Group: c.Group, Notes: c.Notes, Metrics: copyMetrics(c.Metrics)}
		if out[i].Role == "" {
			out[i].Role = results.RoleSubject
		}
		spec, ok := g.Cases[c.FullName()]
		if !ok {
			return nil, fmt.Errorf("runner: case %s has no runner case", c.FullName())
		}
		if spec.Count == 0 {
			spec.Count = opts.Count
			if c.Count > 0 {
				spec.Count = c.Count
			}
		}
		budget, least := bench.CaseBudget(c, opts)
		spec.MinCount, spec.BudgetNs, spec.PerRound, spec.NoWarmup = least, int64(budget), c.PerRound, c.NoWarmup
		if cut {
			spec.Count = min(spec.Count, max(spec.MinCount, rounds))
		}
		specs[i] = spec
	}
	if on := opts.OnSample; on != nil {
		// The runner names a case by its id.
		names := make(map[string]string, len(specs))
		for i, s := range specs {
			names[s.ID] = cases[i].FullName()
		}
		opts.OnSample = func(id string) { on(names[id]) }
	}
	inv, err := g.invoke(ctx, specs, opts)
	if ctx.Err() != nil {
		return nil, bench.ErrInterrupted
	}
	if err != nil {
		for i := range out {
			fail(&out[i], err.Error())
		}
		return stamp(out, t0), nil
	}
	byID := make(map[string]int, len(specs))
	for i, s := range specs {
		byID[s.ID] = i
	}
	for i, s := range specs {
		g.record(&out[i], s, inv)
		if out[i].Status == results.StatusOK {
			out[i].Stop = stopReason(len(out[i].Samples), s.Count, cut)
		}
	}
	inRoundRatios(out, specs, inv, byID)
	for i := range out {
		if out[i].Status == results.StatusOK {
			out[i].Summarize()
		}
	}
	checkVisits(out, specs)
	return stamp(out, t0), nil
}

// VisitFactor is how many times the copy limit row's bandwidth a decode
// may reach before checkVisits calls it a decode that visited no value:
// visiting every value reads every byte of the input at least once, and
// reading is at most about twice as fast as copying (a copy reads and
// writes).
const VisitFactor = 2

// checkVisits fails every decode (results.OpDecode) of the group that
// processed its bytes faster than VisitFactor × the group's copy limit row
// copied its own, by their intervals (the decode's slowest bound against
// the copy's fastest): such a read cannot have visited every value — it
// built a lazy or zero-copy view, which is an open, and a subject whose
// decode does so must announce zero_copy=yes in hello (Operation then
// labels it open). A query reads only its columns and is not checked.
func checkVisits(out []results.Case, specs []Case) {
	var limit *results.Case
	for i, s := range specs {
		if s.Op == OpCopy && out[i].Status == results.StatusOK {
			limit = &out[i]
		}
	}
	if limit == nil {
		return
	}
	for i, s := range specs {
		c := &out[i]
		if s.Op != OpDecode || c.Status != results.StatusOK || c.Labels.Get(results.OpLabel) != results.OpDecode {
			continue
		}
		if why := visitless(c, limit); why != "" {
			fail(c, why)
		}
	}
}

// visitless says why decode c cannot have visited every value against the
// copy limit row limit (both summarized), "" when it may have.
func visitless(c, limit *results.Case) string {
	sc, ok1 := c.Stat(results.UnitNsPerOp)
	sl, ok2 := limit.Stat(results.UnitNsPerOp)
	// One or two samples have no interval to judge by.
	if !ok1 || !ok2 || sc.N < 3 || sl.N < 3 || sc.Hi <= 0 || sl.Lo <= 0 || c.BytesPerOp <= 0 || limit.BytesPerOp <= 0 {
		return ""
	}
	decode := float64(c.BytesPerOp) / sc.Hi * 1e3     // MB/s at its slowest
	copied := float64(limit.BytesPerOp) / sl.Lo * 1e3 // MB/s at its fastest
	if decode <= VisitFactor*copied {
		return ""
	}
	return fmt.Sprintf("decode visits no value: it processed its %s bytes at %.0f MB/s, %.1f× the %.0f MB/s at which this runtime copies bytes — a read that fast builds a lazy or zero-copy view (an open), and its subject must announce zero_copy=yes",
		strconv.FormatInt(c.BytesPerOp, 10), decode, decode/copied, copied)
}

// invoke writes a work directory for the cases and runs the runner in it.
func (g *Group) invoke(ctx context.Context, specs []Case, opts bench.Options) (*invocation, error) {
	g.mu.Lock()
	g.seq++
	prefix := "work"
	if g.parent != nil {
		prefix = "count"
	}
	work := filepath.Join(g.Dir, fmt.Sprintf("%s-%d", prefix, g.seq))
	g.mu.Unlock()
	if err := os.MkdirAll(filepath.Join(work, "tmp"), 0o755); err != nil {
		return nil, fmt.Errorf("runner work directory: %w", err)
	}
	defer os.RemoveAll(work)
	if err := os.MkdirAll(filepath.Join(work, "datasets"), 0o755); err != nil {
		return nil, fmt.Errorf("runner work directory: %w", err)
	}
	for _, s := range specs {
		if s.Dataset == "" {
			continue
		}
		dir, err := g.dataset(s.Dataset)
		if err != nil {
			return nil, err
		}
		link := filepath.Join(work, "datasets", s.Dataset)
		if _, err := os.Lstat(link); err == nil {
			continue
		}
		if err := os.Symlink(dir, link); err != nil {
			return nil, fmt.Errorf("runner work directory: %w", err)
		}
	}
	settings := Settings{Protocol: Protocol, RunID: filepath.Base(g.Dir), BenchtimeNs: int64(opts.SampleTime), MaxIters: int64(opts.MaxIters), Count: opts.Count, Seed: 1}
	if err := writeWork(work, settings, specs); err != nil {
		return nil, err
	}
	// MeasureGroup's OnSample takes the case ids.
	return g.Runner.invoke(ctx, work, []string{"run", "--protocol", strconv.Itoa(Protocol), "--work", work}, opts.OnSample)
}

// writeWork writes run.json and cases.jsonl into the work directory.
func writeWork(work string, settings Settings, specs []Case) error {
	if err := writeJSON(filepath.Join(work, "run.json"), settings); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(work, "cases.jsonl"))
	if err != nil {
		return fmt.Errorf("runner work directory: %w", err)
	}
	enc := json.NewEncoder(f)
	for _, s := range specs {
		if s.Params == nil {
			s.Params = map[string]string{}
		}
		if err := enc.Encode(s); err != nil {
			f.Close()
			return fmt.Errorf("runner cases: %w", err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("runner cases: %w", err)
	}
	return nil
}

// dataset writes the dataset's files once and returns their directory.
func (g *Group) dataset(name string) (string, error) {
	if g.parent != nil {
		return g.parent.dataset(name)
	}
	d := g.Datasets[name]
	if d == nil {
		return "", fmt.Errorf("runner: no dataset %q", name)
	}
	dir := filepath.Join(g.Dir, "datasets", name)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.written == nil {
		g.written = map[string]error{}
	}
	if err, ok := g.written[name]; ok {
		return dir, err
	}
	err := func() error {
		schema, recs, err := d.Build()
		if err != nil {
			return err
		}
		defer func() {
			for _, r := range recs {
				r.Release()
			}
		}()
		if d.want, err = digest.Batches(schema, recs...); err != nil {
			return err
		}
		if err := WriteDataset(dir, schema, recs, g.JSONL); err != nil {
			return err
		}
		if d.Given != nil {
			return d.Given.write(dir)
		}
		return nil
	}()
	if err != nil {
		err = fmt.Errorf("runner dataset %s: %w", name, err)
	}
	g.written[name] = err
	return dir, err
}

// record fills in a case's outcome from the runner's lines: FAILED with
// the reason when the runner reported an error, the round trip failed,
// the digest differs from the Go side's, or no sample arrived.
func (g *Group) record(rc *results.Case, s Case, inv *invocation) {
	if msg, ok := inv.errs[s.ID]; ok {
		fail(rc, msg)
		switch {
		case inv.hold[s.ID]:
			rc.Status = results.StatusCannotHold // the format's limit, said by the runner
		case s.Op == OpCopy && inv.hold[s.LimitOf]:
			// A copy of a case that cannot hold the data has no bytes to
			// copy: the limit row is not there, for the same reason.
			fail(rc, fmt.Sprintf("the case it copies (%s) cannot hold this data", s.LimitOf))
			rc.Status = results.StatusCannotHold
		}
		return
	}
	v := inv.verify[s.ID]
	if v == nil {
		fail(rc, inv.failure())
		return
	}
	if !*v.OK {
		fail(rc, "verify: "+v.Reason)
		return
	}
	if s.Op != OpCopy {
		want, err := g.Datasets[s.Dataset].Want(s.Query)
		switch {
		case err != nil:
			fail(rc, "verify: "+err.Error())
			return
		case v.Digest == nil:
			fail(rc, "verify: the runner reported no digest")
			return
		}
		if err := digest.Diff(want, *v.Digest); err != nil {
			fail(rc, "verify: "+err.Error())
			return
		}
	}
	ss := inv.samples[s.ID]
	if len(ss) == 0 || !inv.end || inv.fatal != "" {
		// A runner that did not finish left the group's rounds
		// incomplete: its samples and in-round ratios are not a
		// measurement of the group.
		fail(rc, inv.failure())
		return
	}
	if g.SizeMetric != "" {
		if rc.Metrics == nil {
			rc.Metrics = map[string]float64{}
		}
		rc.Metrics[g.SizeMetric] = float64(v.EncodedBytes)
	}
	rc.Status = results.StatusOK
	rc.BytesPerOp = int64(ss[0].BytesPerOp)
	for _, l := range ss {
		sm := results.Sample{Iters: int(l.Iters), NsPerOp: l.NsPerOp, Round: l.Round, Metrics: l.Metrics}
		if l.AllocBytesPerOp != nil {
			sm.BytesPerOp = *l.AllocBytesPerOp
		}
		if l.AllocsPerOp != nil {
			sm.AllocsPerOp = *l.AllocsPerOp
		}
		rc.Samples = append(rc.Samples, sm)
	}
	if inv.hello != nil && inv.hello.Alloc != "thread" && inv.hello.Alloc != "process" {
		rc.NoAllocs = true // shown as "–", never as 0 B/op
	}
}

// stopReason is why a runner's case took n samples of count: the run's
// budget had run out (cut), it took count, or its own budget_ns ended it.
func stopReason(n, count int, cut bool) string {
	switch {
	case cut:
		return bench.StopRun
	case n >= count:
		return bench.StopCount
	}
	return bench.StopBudget
}

// inRoundRatios gives each sample its ratio to the group's baseline and
// limit row measured in the same round, as the Go engine does: drift
// between rounds cancels out of them.
func inRoundRatios(out []results.Case, specs []Case, inv *invocation, byID map[string]int) {
	baseline, limit := -1, -1
	for i, s := range specs {
		if out[i].Status != results.StatusOK {
			continue
		}
		switch {
		case s.Role == results.RoleBaseline && baseline < 0:
			baseline = i
		case s.Role == results.RoleLimit && limit < 0:
			limit = i
		}
	}
	if len(out) < 2 {
		return
	}
	roundNs := func(i int) map[int]float64 {
		m := map[int]float64{}
		if i < 0 {
			return m
		}
		n := map[int]int{}
		for _, s := range out[i].Samples {
			m[s.Round] += s.NsPerOp
			n[s.Round]++
		}
		for r := range m {
			m[r] /= float64(n[r])
		}
		return m
	}
	b, l := roundNs(baseline), roundNs(limit)
	for i := range out {
		for k := range out[i].Samples {
			s := &out[i].Samples[k]
			if v := b[s.Round]; v > 0 {
				s.VsBaseline = s.NsPerOp / v
			}
			if v := l[s.Round]; v > 0 {
				s.VsLimit = s.NsPerOp / v
			}
		}
	}
}

func fail(rc *results.Case, why string) {
	rc.Status, rc.Error = results.StatusFailed, why
	rc.Samples, rc.Summary = nil, nil
}

func stamp(out []results.Case, t0 time.Time) []results.Case {
	el := time.Since(t0)
	for i := range out {
		out[i].Elapsed = el
		out[i].Start, out[i].End = t0.UTC(), t0.Add(el).UTC()
	}
	return out
}

func copyMetrics(m map[string]float64) map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("runner: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("runner work directory: %w", err)
	}
	return nil
}

// WriteDataset writes a dataset's files into dir (created when missing):
// data.arrows, schema.json and, when jsonl, data.jsonl (§1 of the
// protocol). A file already there is left as it is.
func WriteDataset(dir string, schema *arrow.Schema, recs []arrow.RecordBatch, jsonl bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, fill func(io.Writer) error) error {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		tmp := path + ".partial"
		f, err := os.Create(tmp)
		if err != nil {
			return err
		}
		if err := fill(f); err != nil {
			f.Close()
			os.Remove(tmp)
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := f.Close(); err != nil {
			os.Remove(tmp)
			return err
		}
		return os.Rename(tmp, path)
	}
	err := write("data.arrows", func(f io.Writer) error {
		w := ipc.NewWriter(f, ipc.WithSchema(schema))
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				return err
			}
		}
		return w.Close()
	})
	if err != nil {
		return err
	}
	if err := write("schema.json", func(f io.Writer) error {
		b, err := digest.SchemaJSON(schema)
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		return err
	}); err != nil {
		return err
	}
	if !jsonl {
		return nil
	}
	return write("data.jsonl", func(f io.Writer) error {
		for _, r := range recs {
			if err := digest.RowsJSON(f, r); err != nil {
				return err
			}
		}
		return nil
	})
}
