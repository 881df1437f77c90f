package envelope

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	ds "github.com/serbench/serbench/dataset/envelope"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/envelope/envelopefmt"
	"github.com/serbench/serbench/workload/workloadtest"
)

func TestPlan(t *testing.T) {
	const nSubjects = 7
	tests := []struct {
		name     string
		cfg      workload.Config
		cases    int
		sizes    []string // distinct size labels in plan order
		subjects []string
	}{
		{
			name: "quick",
			cfg:  workload.Config{Scale: workload.Quick},
			// Tiny, Large × 4 ops; 8B, 64KiB, 1MiB × 3 ops (1KiB is Tiny).
			cases: 2*nSubjects*4 + 3*nSubjects*3,
			sizes: []string{"Tiny", "Large", "8B", "64KiB", "1MiB"},
		},
		{
			name: "default",
			cfg:  workload.Config{Scale: workload.Default},
			// 6 named × 4 ops; 20 sweep sizes less 1, 4, 8, 32 KiB × 3 ops.
			cases: 6*nSubjects*4 + 16*nSubjects*3,
		},
		{
			name:     "subjects by label and by dataset name",
			cfg:      workload.Config{Scale: workload.Quick, Subjects: []string{"protobuf-flat", "msgp/wrapped"}},
			cases:    2*2*4 + 3*2*3,
			subjects: []string{"protobuf-flat", "msgp-wrapped"},
		},
		{
			name:  "another workload's subject",
			cfg:   workload.Config{Scale: workload.Quick, Subjects: []string{"psdb"}},
			cases: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New().Plan(context.Background(), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Cases) != tt.cases {
				t.Fatalf("%d cases, want %d", len(p.Cases), tt.cases)
			}
			seen := map[string]bool{}
			var sizes, subjects []string
			for _, c := range p.Cases {
				if seen[c.FullName()] {
					t.Errorf("duplicate case %s", c.FullName())
				}
				seen[c.FullName()] = true
				var keys []string
				for _, l := range c.Labels {
					keys = append(keys, l.Key)
					if strings.ContainsAny(l.Value, "/= \t\n") || l.Value == "" {
						t.Errorf("%s: bad label value %q", c.FullName(), l.Value)
					}
				}
				if got := strings.Join(keys, ","); got != "subject,size,bytes,op" {
					t.Errorf("%s: label keys %s", c.FullName(), got)
				}
				if c.Workload != Name || c.Name != "Envelope" {
					t.Errorf("%s: workload %q name %q", c.FullName(), c.Workload, c.Name)
				}
				if strconv.FormatInt(c.Bytes, 10) != c.Labels.Get("bytes") {
					t.Errorf("%s: Bytes %d", c.FullName(), c.Bytes)
				}
				if c.Setup == nil || c.Verify == nil || c.Run == nil || c.Teardown == nil {
					t.Errorf("%s: missing Setup, Verify, Run or Teardown", c.FullName())
				}
				if !slices.Contains(sizes, c.Labels.Get("size")) {
					sizes = append(sizes, c.Labels.Get("size"))
				}
				if !slices.Contains(subjects, c.Labels.Get("subject")) {
					subjects = append(subjects, c.Labels.Get("subject"))
				}
			}
			if tt.sizes != nil && strings.Join(sizes, ",") != strings.Join(tt.sizes, ",") {
				t.Errorf("sizes %v, want %v", sizes, tt.sizes)
			}
			if tt.subjects != nil && strings.Join(subjects, ",") != strings.Join(tt.subjects, ",") {
				t.Errorf("subjects %v, want %v", subjects, tt.subjects)
			}
		})
	}
}

// TestQuickCasesVerify runs every quick case's Setup and Verify and two
// iterations of its Run (no timing).
func TestQuickCasesVerify(t *testing.T) {
	p, err := New().Plan(context.Background(), workload.Config{Scale: workload.Quick})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Cases {
		if testing.Short() && c.Bytes > 100_000 {
			continue
		}
		t.Run(c.FullName(), func(t *testing.T) {
			if err := c.Setup(); err != nil {
				t.Fatalf("setup: %v", err)
			}
			defer c.Teardown()
			if err := c.Verify(); err != nil {
				t.Fatalf("verify: %v", err)
			}
			if got := c.Metrics[MetricSerialized]; got <= float64(c.Bytes) {
				t.Errorf("serialized size %v, want more than the %d-byte payload", got, c.Bytes)
			}
			if err := c.Run(&bench.B{N: 2}); err != nil {
				t.Fatalf("run: %v", err)
			}
		})
	}
}

// brokenSubject is real preparing a Prepared whose header read or
// encoding is damaged.
func brokenSubject(real envelopefmt.Subject, header, encoding bool) envelopefmt.Subject {
	return real.With(func(e *ds.Envelope) (envelopefmt.Prepared, error) {
		p, err := real.Bind(e)
		return brokenPrepared{Prepared: p, header: header, encoding: encoding}, err
	})
}

// brokenPrepared damages the header read (header) or the encoding
// (encoding) of a real Prepared.
type brokenPrepared struct {
	envelopefmt.Prepared
	header, encoding bool
}

func (p brokenPrepared) ReadHeader(data []byte) (ds.Header, error) {
	h, err := p.Prepared.ReadHeader(data)
	if p.header {
		h.Publisher.ClientID += "x"
	}
	return h, err
}

func (p brokenPrepared) Encoded() []byte {
	if p.encoding {
		return []byte{0xff, 0xff, 0xff}
	}
	return p.Prepared.Encoded()
}

func TestVerifyCatchesBrokenHeader(t *testing.T) {
	real, err := envelopefmt.Lookup("protobuf-flat")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		subject envelopefmt.Subject
		wantErr string
	}{
		{"intact", brokenSubject(real, false, false), ""},
		{"wrong header", brokenSubject(real, true, false), "publisher.client_id"},
		{"corrupt encoding", brokenSubject(real, false, true), "read header of the prepared encoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCase(newDataCache(), tt.subject, ds.Size{Name: "Tiny", Bytes: ds.Tiny}, OpHeader)
			if err := c.Setup(); err != nil {
				t.Fatal(err)
			}
			defer c.Teardown()
			err := c.Verify()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("verify: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("verify error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestOuterOnlySubjects checks that the header cases presented as the
// seed's outer-only unmarshal are those of the subjects whose header read
// envelopefmt describes so: the protobuf layouts that wrap.
func TestOuterOnlySubjects(t *testing.T) {
	p, err := New().Plan(context.Background(), workload.Config{Scale: workload.Quick})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.Cases {
		noted := slices.Contains(c.Notes, noteOuterOnly)
		if noted && c.Labels.Get("op") != OpHeader {
			t.Errorf("%s: outer-only note on a %s case", c.FullName(), c.Labels.Get("op"))
		}
		if s := c.Labels.Get("subject"); noted && !slices.Contains(got, s) {
			got = append(got, s)
		}
	}
	if want := []string{"protobuf-wrapped", "vtprotobuf-wrapped"}; !slices.Equal(got, want) {
		t.Errorf("outer-only subjects %v, want %v", got, want)
	}
	for _, s := range envelopefmt.Subjects() {
		outer := strings.Contains(envelopefmt.HeaderRead(s), "outer message only")
		if outer != slices.Contains(got, s.Name()) {
			t.Errorf("%s: header read %q, presented as outer only: %v", s.Name(), envelopefmt.HeaderRead(s), !outer)
		}
	}
}

// TestPlanShape checks the shape every workload shares: each case names
// its subject under "subject" with its role, a group holds the subjects of
// one size and op with the baseline, and every subject is described.
func TestPlanShape(t *testing.T) {
	p, err := New().Plan(context.Background(), workload.Config{Scale: workload.Quick})
	if err != nil {
		t.Fatal(err)
	}
	descs := map[string]results.Descriptor{}
	for _, d := range p.Descriptors {
		if d.Workload != Name || d.Key != "subject" || d.What == "" || d.Module == "" || d.Version == "" {
			t.Errorf("descriptor %+v: workload, key, what, module or version missing", d)
		}
		for _, k := range []string{"layout", "codegen", "marshal_reuse", "unmarshal", "header_strings", "validated"} {
			if d.Settings[k] == "" {
				t.Errorf("descriptor %s: setting %q missing", d.Name, k)
			}
		}
		descs[d.Name] = d
	}
	if len(descs) != 7 {
		t.Errorf("%d subject descriptors, want 7", len(descs))
	}
	if d := descs[Baseline]; d.Role != results.RoleBaseline || d.Module != "google.golang.org/protobuf" {
		t.Errorf("baseline descriptor %+v", d)
	}
	groups := map[string][]bench.Case{}
	for _, c := range p.Cases {
		s := c.Labels.Get("subject")
		d, ok := descs[s]
		switch {
		case !ok:
			t.Errorf("%s: subject %q not described", c.FullName(), s)
		case c.Role != d.Role:
			t.Errorf("%s: role %q, descriptor says %q", c.FullName(), c.Role, d.Role)
		}
		if want := c.Labels.Get("size") + "/" + c.Labels.Get("op"); c.Group != want {
			t.Errorf("%s: group %q, want %q", c.FullName(), c.Group, want)
		}
		groups[c.Group] = append(groups[c.Group], c)
	}
	for g, cs := range groups {
		base := 0
		for _, c := range cs {
			if c.Role == results.RoleBaseline {
				base++
			}
		}
		if len(cs) != 7 || base != 1 {
			t.Errorf("group %s: %d cases, %d baselines; want 7 and 1", g, len(cs), base)
		}
	}
	// The groups come out whole and in plan order.
	if n := len(bench.Groups(p.Cases)); n != len(groups) {
		t.Errorf("bench.Groups: %d units, want %d", n, len(groups))
	}
}

// pt is a point whose intervals do not overlap.
func pt(bytes, flat, wrapped float64) point { return point{bytes: bytes, flat: flat, wrapped: wrapped} }

func TestFindCrossover(t *testing.T) {
	tests := []struct {
		name     string
		pts      []point
		kind     crossKind
		below    float64
		at       float64
		estimate float64
		sentence string
	}{
		{
			name: "flat faster above 16 KiB",
			pts: []point{
				pt(8<<10, 4, 1), pt(1<<10, 4, 2), pt(16<<10, 1, 4), pt(32<<10, 1, 2), // unsorted on purpose
			},
			kind: crossAt, below: 8 << 10, at: 16 << 10,
			// log ratios +log 4 and -log 4: the geometric midpoint.
			estimate: math.Sqrt(8 << 10 * 16 << 10),
			sentence: "flat overtakes wrapped at 16 KiB (wrapped faster or equal up to 8 KiB",
		},
		{
			name:     "equal counts as not faster",
			pts:      []point{pt(8, 2, 1), pt(16, 3, 3), pt(32, 1, 3)},
			kind:     crossAt,
			below:    16,
			at:       32,
			estimate: 16,
			sentence: "flat overtakes wrapped at 32 B",
		},
		{
			name:     "never",
			pts:      []point{pt(8, 2, 1), pt(1024, 3, 2), pt(1<<20, 5, 4)},
			kind:     crossNone,
			sentence: "no crossover in range (8 B – 1 MiB): wrapped is faster or equal at every size",
		},
		{
			name:     "flat faster in the middle only",
			pts:      []point{pt(8, 2, 1), pt(1024, 1, 2), pt(1<<20, 5, 4)},
			kind:     crossNone,
			sentence: "no crossover in range (8 B – 1 MiB): flat is not faster at the largest size",
		},
		{
			name:     "always",
			pts:      []point{pt(8, 1, 2), pt(1024, 1, 2)},
			kind:     crossAlways,
			sentence: "no crossover in range (8 B – 1 KiB): flat is faster at every size",
		},
		{
			name: "overlapping intervals are counted",
			pts: []point{pt(8, 2, 1), {bytes: 16, flat: 1, wrapped: 1.01, overlap: true},
				{bytes: 32, flat: 1, wrapped: 1.01, overlap: true}},
			kind: crossAt, below: 8, at: 16,
			estimate: 8 * math.Pow(2, math.Log(2)/(math.Log(2)-math.Log(1/1.01))),
			sentence: "flat overtakes wrapped at 16 B (wrapped faster or equal up to 8 B; interpolated crossover ≈ 16 B), and stays faster up to 32 B. At 2 of 3 sizes the ns/op intervals overlap",
		},
		{
			name:     "unusable points",
			pts:      []point{pt(8, 0, 2), pt(0, 1, 2)},
			kind:     crossNone,
			sentence: "not measured",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := findCrossover(tt.pts)
			if c.kind != tt.kind || c.below != tt.below || c.at != tt.at {
				t.Fatalf("got kind %d below %v at %v, want kind %d below %v at %v", c.kind, c.below, c.at, tt.kind, tt.below, tt.at)
			}
			if math.Abs(c.estimate-tt.estimate) > 1e-6*tt.estimate {
				t.Errorf("estimate %v, want %v", c.estimate, tt.estimate)
			}
			if s := c.sentence("x"); !strings.Contains(s, tt.sentence) {
				t.Errorf("sentence %q, want it to contain %q", s, tt.sentence)
			}
		})
	}
}

// synth is a measured case with fixed medians.
func synth(subject string, z ds.Size, op string, ns, allocs float64) results.Case {
	role := results.RoleSubject
	if subject == Baseline {
		role = results.RoleBaseline
	}
	c := results.Case{
		Kind:     results.KindCase,
		Workload: Name,
		Name:     "Envelope",
		Labels: results.Labels{
			{Key: "subject", Value: subject}, {Key: "size", Value: z.Name},
			{Key: "bytes", Value: strconv.Itoa(z.Bytes)}, {Key: "op", Value: op},
		},
		Role:       role,
		Group:      z.Name + "/" + op,
		Status:     results.StatusOK,
		BytesPerOp: int64(z.Bytes),
		Metrics:    map[string]float64{MetricSerialized: float64(z.Bytes + 200)},
	}
	if op == OpHeader && subject == "protobuf-wrapped" {
		c.Notes = []string{noteOuterOnly}
	}
	for i := 0; i < 5; i++ {
		c.Samples = append(c.Samples, results.Sample{Iters: 100, NsPerOp: ns * (1 + float64(i)/1000), BytesPerOp: float64(z.Bytes), AllocsPerOp: allocs})
	}
	c.Summarize()
	return c
}

// synthRun is a small run in which flat protobuf overtakes wrapped at
// 16 KiB for marshal and unmarshal.
func synthRun() *results.Run {
	run := &results.Run{}
	for _, s := range envelopefmt.Subjects() {
		if n := s.Name(); n == "protobuf-flat" || n == "protobuf-wrapped" || n == "flatbuffers-flat" || n == "msgp-flat" {
			run.Descriptors = append(run.Descriptors, s.Describe(Name))
		}
	}
	sizes := []ds.Size{{Name: "Tiny", Bytes: ds.Tiny}, {Name: "8KiB", Bytes: 8 << 10}, {Name: "16KiB", Bytes: 16 << 10}, {Name: "XLarge", Bytes: ds.XLarge}}
	for _, z := range sizes {
		b := float64(z.Bytes)
		// flat: 1000 + b/10; wrapped: 600 + b/8 → wrapped faster up to 16 KiB·…
		flat, wrapped := 1000+b/10, 600+b/8
		for _, op := range namedOps {
			run.Cases = append(run.Cases,
				synth("protobuf-flat", z, op, flat, 24),
				synth("protobuf-wrapped", z, op, wrapped, 14),
				synth("flatbuffers-flat", z, op, flat/2, 1))
		}
	}
	run.Cases = append(run.Cases, results.Case{Kind: results.KindCase, Workload: Name, Name: "Envelope", Status: results.StatusFailed, Error: "verify: boom",
		Labels: results.Labels{{Key: "subject", Value: "msgp-flat"}, {Key: "size", Value: "XLarge"}, {Key: "bytes", Value: strconv.Itoa(ds.XLarge)}, {Key: "op", Value: OpHeader}}})
	return run
}

// TestReportRenders renders the synthetic run's report: the crossover
// sentences, the allocation table, a failed case and one plot per sweep
// op, every declared section present.
func TestReportRenders(t *testing.T) {
	run := synthRun()
	cases := run.Filter(Name, nil)
	_, md := workloadtest.Markdown(t, run, New())
	for _, s := range New().Layout() {
		if !strings.Contains(md, "### "+s.Title+"\n") {
			t.Errorf("report lacks section %q", s.Title)
		}
	}
	// 600 + b/8 < 1000 + b/10 until b = 16,000 B: wrapped wins at 8 KiB, flat at 16 KiB.
	for _, want := range []string{
		"protobuf marshal: flat overtakes wrapped at 16 KiB",
		"protobuf unmarshal, wrapped (outer only, as in the seed): flat overtakes wrapped at 16 KiB",
		"protobuf unmarshal, wrapped (outer + inner): flat overtakes wrapped at 16 KiB",
		"| XLarge | 24 | 14 | -10 | 14 | -10 |",
		"FAILED",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if plots := strings.Count(md, "\n![envelope: "); plots != len(sweepOps) {
		t.Errorf("%d plots, want %d", plots, len(sweepOps))
	}

	sum := New().Summary(&results.Run{}, cases)
	if sum == nil || len(sum.Rows) != 4 {
		t.Fatalf("summary %+v, want 4 rows", sum)
	}
	if !strings.Contains(sum.Caption, "XLarge") {
		t.Errorf("summary caption %q", sum.Caption)
	}
	// flatbuffers' header read takes half of protobuf-flat's unmarshal.
	if got := sum.Rows[2][4].String(); got != "2.00×" {
		t.Errorf("flatbuffers header speed-up %q, want 2.00×", got)
	}
}

func TestSummaryEmpty(t *testing.T) {
	if s := New().Summary(&results.Run{}, nil); s != nil {
		t.Errorf("summary of no case: %+v", s)
	}
}

// TestMeasure runs three tiny cases through the engine.
func TestMeasure(t *testing.T) {
	p, err := New().Plan(context.Background(), workload.Config{Scale: workload.Quick, Subjects: []string{"protobuf-flat"}})
	if err != nil {
		t.Fatal(err)
	}
	var picked []bench.Case
	for _, c := range p.Cases {
		if c.Labels.Get("size") == "Tiny" && c.Labels.Get("op") != OpMarshalReuse {
			picked = append(picked, c)
		}
	}
	if len(picked) != 3 {
		t.Fatalf("picked %d cases, want 3", len(picked))
	}
	for _, c := range picked {
		r, err := bench.Measure(context.Background(), c, bench.Options{Count: 2, SampleTime: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() {
			t.Fatalf("%s: %s", r.FullName(), r.Error)
		}
		if len(r.Samples) != 2 {
			t.Errorf("%s: %d samples, want 2", r.FullName(), len(r.Samples))
		}
		if r.BytesPerOp != ds.Tiny {
			t.Errorf("%s: bytes per op %d", r.FullName(), r.BytesPerOp)
		}
		if _, ok := r.Median(results.UnitMBPerS); !ok {
			t.Errorf("%s: no MB/s", r.FullName())
		}
		if r.Metrics[MetricSerialized] <= ds.Tiny {
			t.Errorf("%s: serialized size %v", r.FullName(), r.Metrics[MetricSerialized])
		}
	}
}

func TestMeasureRecordsFailure(t *testing.T) {
	real, err := envelopefmt.Lookup("protobuf-flat")
	if err != nil {
		t.Fatal(err)
	}
	c := newCase(newDataCache(), brokenSubject(real, true, false), ds.Size{Name: "Tiny", Bytes: ds.Tiny}, OpHeader)
	r, err := bench.Measure(context.Background(), c, bench.Options{Count: 2, SampleTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || len(r.Samples) != 0 || !strings.HasPrefix(r.Error, "verify:") {
		t.Errorf("status %q error %q samples %d, want a failed verify and no samples", r.Status, r.Error, len(r.Samples))
	}
}

// TestLayout checks the declared sections as a results file's reader
// does, and that the named sizes the tables show are the dataset's.
func TestLayout(t *testing.T) {
	for _, s := range workload.Layout(New()) {
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
	}
	var names []string
	for _, z := range ds.NamedSizes() {
		names = append(names, z.Name)
	}
	if !slices.Equal(names, namedSizes) {
		t.Errorf("namedSizes %v, want the dataset's %v", namedSizes, names)
	}
}
