package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/digest"
	"github.com/serbench/serbench/results"
)

// The test binary plays the runner when SERBENCH_FAKE_RUNNER names how:
// a runner that speaks the protocol correctly ("ok") or breaks it in one
// of the ways a real runner can.
func TestMain(m *testing.M) {
	if mode := os.Getenv("SERBENCH_FAKE_RUNNER"); strings.HasPrefix(mode, "conform-") {
		os.Exit(conformRunner(strings.TrimPrefix(mode, "conform-"), os.Args[1:]))
	} else if mode != "" {
		os.Exit(fakeRunner(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeRunner decodes the dataset as a runner would (here: the Arrow
// stream itself), digests what it decoded with the Go digest, and writes
// the protocol's lines; mode decides what goes wrong.
func fakeRunner(mode string, args []string) int {
	out := bufio.NewWriter(os.Stdout)
	emit := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	protocol := Protocol
	if mode == "protocol2" {
		protocol = 2
	}
	alloc := "process"
	if mode == "no-alloc" {
		alloc = "none"
	}
	emit(map[string]any{"type": "hello", "protocol": protocol, "runner": "fake", "language": "go-fake", "runtime": "fake", "runtime_version": "1", "alloc": alloc,
		"subjects": []map[string]any{{"name": "plain", "format": "arrow", "library": "fake", "version": "1", "ops": []string{"decode"}, "codecs": []string{"none"}}}})
	if len(args) == 0 || args[0] == "hello" {
		emit(map[string]any{"type": "end", "cases": 0, "failed": 0})
		return 0
	}
	if mode == "protocol2" {
		emit(map[string]any{"type": "error", "message": "protocol 1 requested, this runner speaks 2"})
		return 2
	}
	work := os.Getenv("SERBENCH_WORK")
	f, err := os.Open(filepath.Join(work, "cases.jsonl"))
	if err != nil {
		emit(map[string]any{"type": "error", "message": err.Error()})
		return 1
	}
	var cases []Case
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			emit(map[string]any{"type": "error", "message": err.Error()})
			return 1
		}
		cases = append(cases, c)
	}
	if mode == "hang" {
		time.Sleep(time.Hour)
	}
	for _, c := range cases {
		if mode == "error-case" && c.Subject == "b" {
			emit(map[string]any{"type": "error", "case": c.ID, "phase": "setup", "message": "java.lang.OutOfMemoryError: Java heap space"})
			continue
		}
		if (mode == "hold-case" || mode == "hold-copied") && c.Subject == "b" {
			emit(map[string]any{"type": "error", "case": c.ID, "phase": "setup", "cannot_hold": true, "message": "csv: column tags: a list"})
			continue
		}
		if mode == "hold-copied" && c.Op == OpCopy {
			emit(map[string]any{"type": "error", "case": c.ID, "phase": "setup", "message": "limit_of " + c.LimitOf + ": no encoded bytes from that case (unknown or failed)"})
			continue
		}
		var d any
		if c.Op != OpCopy {
			r, err := digestArrow(filepath.Join(work, "datasets", c.Dataset, "data.arrows"))
			if err != nil {
				emit(map[string]any{"type": "error", "case": c.ID, "phase": "verify", "message": err.Error()})
				continue
			}
			if mode == "wrong-digest" && c.Subject == "b" {
				r.Columns[0].Digest = strings.Repeat("0", 32)
			}
			d = r
		}
		emit(map[string]any{"type": "verify", "case": c.ID, "ok": true, "encoded_bytes": 100, "digest": d})
	}
	if mode == "garbage" {
		fmt.Fprintln(out, "Exception in thread main: not a JSON line")
		out.Flush()
		time.Sleep(time.Hour)
	}
	for round := 1; round <= 3; round++ {
		for k, c := range cases {
			if (mode == "error-case" || mode == "hold-case" || mode == "hold-copied") && c.Subject == "b" || mode == "hold-copied" && c.Op == OpCopy {
				continue
			}
			ns := map[string]float64{"a": 200, "b": 100, "copy": 10}[c.Subject] * (1 + float64(round)/100)
			emit(map[string]any{"type": "sample", "case": c.ID, "round": round, "order": k, "iters": 1000, "ns_per_op": ns, "bytes_per_op": 100, "alloc_bytes_per_op": 64.0, "allocs_per_op": nil})
			if mode == "crash" && round == 2 {
				fmt.Fprintln(os.Stderr, "fatal error: SIGSEGV in the runtime")
				return 134
			}
		}
	}
	emit(map[string]any{"type": "end", "cases": len(cases), "failed": 0})
	return 0
}

func digestArrow(path string) (digest.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return digest.Result{}, err
	}
	defer f.Close()
	r, err := ipc.NewReader(f)
	if err != nil {
		return digest.Result{}, err
	}
	defer r.Release()
	d, err := digest.New(r.Schema())
	if err != nil {
		return digest.Result{}, err
	}
	for r.Next() {
		if err := d.Write(r.RecordBatch()); err != nil {
			return digest.Result{}, err
		}
	}
	return d.Sum()
}

// testData is a small table of ids and names.
func testData(t *testing.T) (*Dataset, arrow.RecordBatch) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range 100 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%7 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("name-", i))
		}
	}
	rec := b.NewRecordBatch()
	return &Dataset{Name: "t-100", Rows: 100, Build: func() (*arrow.Schema, []arrow.RecordBatch, error) {
		rec.Retain()
		return schema, []arrow.RecordBatch{rec}, nil
	}}, rec
}

// fakeGroup is a comparison group of two subjects and a limit row
// measured by the fake runner in mode.
func fakeGroup(t *testing.T, mode string) (*Group, []bench.Case) {
	ds, _ := testData(t)
	g := &Group{
		Runner:     &Runner{Name: "fake", Command: []string{os.Args[0]}, Env: []string{"SERBENCH_FAKE_RUNNER=" + mode}, Silence: 2 * time.Second},
		Dir:        t.TempDir(),
		Datasets:   map[string]*Dataset{ds.Name: ds},
		Cases:      map[string]Case{},
		SizeMetric: "serialized-B",
	}
	var cases []bench.Case
	for _, s := range []struct{ name, role, op string }{{"a", results.RoleSubject, OpDecode}, {"b", results.RoleBaseline, OpDecode}, {"copy", results.RoleLimit, OpCopy}} {
		c := bench.Case{Workload: "w", Name: "W", Labels: results.Labels{{Key: "subject", Value: s.name}, {Key: "language", Value: "go-fake"}}, Role: s.role, Group: "g", Remote: g}
		g.Cases[c.FullName()] = Case{ID: "w/" + s.name, Group: "g", Subject: s.name, Role: s.role, Op: s.op, Dataset: ds.Name, Size: ds.Rows}
		if s.op == OpCopy {
			cc := g.Cases[c.FullName()]
			cc.LimitOf = "w/b"
			g.Cases[c.FullName()] = cc
		}
		cases = append(cases, c)
	}
	return g, cases
}

func TestGroup(t *testing.T) {
	tests := []struct {
		mode string
		// want is each case's status or the start of its error.
		want map[string]string
	}{
		{"ok", map[string]string{"a": "ok", "b": "ok", "copy": "ok"}},
		{"wrong-digest", map[string]string{"a": "ok", "b": `verify: digest mismatch: column "id" digest 00000000000000000000000000000000, want`, "copy": "ok"}},
		{"error-case", map[string]string{"a": "ok", "b": "java.lang.OutOfMemoryError: Java heap space (setup)", "copy": "ok"}},
		{"hold-case", map[string]string{"a": "ok", "b": "cannot hold: csv: column tags: a list (setup)", "copy": "ok"}},
		{"hold-copied", map[string]string{"a": "ok", "b": "cannot hold: csv: column tags: a list (setup)", "copy": "cannot hold: the case it copies (w/b) cannot hold this data"}},
		{"crash", map[string]string{"a": "runner crashed (exit status 134); its stderr ends: fatal error: SIGSEGV in the runtime", "b": "runner crashed", "copy": "runner crashed"}},
		{"hang", map[string]string{"a": "runner fake wrote nothing for 2s and was stopped (a hang)", "b": "runner fake wrote nothing", "copy": "runner fake wrote nothing"}},
		{"garbage", map[string]string{"a": "runner fake wrote not a protocol line", "b": "runner fake wrote not a protocol line", "copy": "runner fake wrote not a protocol line"}},
		{"protocol2", map[string]string{"a": "runner fake wrote hello with protocol 2: serbench speaks protocol 1", "b": "runner fake wrote hello", "copy": "runner fake wrote hello"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			_, cases := fakeGroup(t, tt.mode)
			rs, err := bench.MeasureGroup(context.Background(), cases, bench.Options{Count: 3, SampleTime: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 3 {
				t.Fatalf("%d results, want 3 (a case is never lost)", len(rs))
			}
			for _, r := range rs {
				s := r.Labels.Get("subject")
				want := tt.want[s]
				if want == "ok" {
					if r.Status != results.StatusOK {
						t.Errorf("%s: %s %q, want ok", s, r.Status, r.Error)
					}
					continue
				}
				if w, ok := strings.CutPrefix(want, "cannot hold: "); ok {
					if r.Status != results.StatusCannotHold || !strings.HasPrefix(r.Error, w) {
						t.Errorf("%s: %s %q, want cannot-hold starting %q", s, r.Status, r.Error, w)
					}
					continue
				}
				if r.Status != results.StatusFailed || !strings.HasPrefix(r.Error, want) {
					t.Errorf("%s: %s %q, want FAILED starting %q", s, r.Status, r.Error, want)
				}
			}
		})
	}
}

// TestGroupRatios: an ok group's samples carry their ratio to the
// baseline and the limit row of the same round, its encoded size is
// recorded and every case is summarized.
func TestGroupRatios(t *testing.T) {
	_, cases := fakeGroup(t, "ok")
	rs, err := bench.MeasureGroup(context.Background(), cases, bench.Options{Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	a := rs[0]
	if len(a.Samples) != 3 || a.Samples[0].Round != 1 {
		t.Fatalf("samples %+v", a.Samples)
	}
	if x, ok := a.Stat(results.UnitVsBaseline); !ok || x.Median != 2 {
		t.Errorf("a ÷ baseline = %+v, want 2", x)
	}
	if x, ok := a.Stat(results.UnitVsLimit); !ok || x.Median != 20 {
		t.Errorf("a ÷ limit = %+v, want 20", x)
	}
	if a.Metrics["serialized-B"] != 100 || a.BytesPerOp != 100 {
		t.Errorf("metrics %v, bytes/op %d", a.Metrics, a.BytesPerOp)
	}
	if m, _ := a.Median(results.UnitBytesPerOp); m != 64 {
		t.Errorf("B/op %v, want 64 (the runner's allocated bytes)", m)
	}
}

// TestInterruptedGroupIsNotRun: a stopped run discards the group, as the
// Go engine does, so that --resume measures it again.
func TestInterruptedGroupIsNotRun(t *testing.T) {
	_, cases := fakeGroup(t, "hang")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := bench.MeasureGroup(ctx, cases, bench.Options{Count: 3})
	if err != bench.ErrInterrupted {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if d := time.Since(start); d > stopGrace+time.Second {
		t.Errorf("stopping took %s", d)
	}
}

func TestHello(t *testing.T) {
	r := &Runner{Name: "fake", Command: []string{os.Args[0]}, Env: []string{"SERBENCH_FAKE_RUNNER=ok"}}
	h, err := r.Hello(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.Language != "go-fake" || h.Subject("plain") == nil || h.Subject("plain").Library != "fake" {
		t.Errorf("hello %+v", h)
	}
	r.Env = []string{"SERBENCH_FAKE_RUNNER=protocol2"}
	if _, err := r.Hello(context.Background()); err == nil || !strings.Contains(err.Error(), "protocol 2") {
		t.Errorf("hello of a protocol-2 runner: %v", err)
	}
	r.Command = []string{filepath.Join(t.TempDir(), "no-such-runner")}
	if _, err := r.Hello(context.Background()); err == nil {
		t.Error("hello of a missing runner: no error")
	}
}

// TestNoAllocs: a runner whose hello says alloc none gets cases whose
// B/op and allocs/op are absent (shown "–"), never 0.
func TestNoAllocs(t *testing.T) {
	_, cases := fakeGroup(t, "no-alloc")
	rs, err := bench.MeasureGroup(context.Background(), cases, bench.Options{Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if !r.OK() {
			t.Fatalf("%s: %s", r.FullName(), r.Error)
		}
		r.Summarize()
		if !r.NoAllocs {
			t.Errorf("%s: NoAllocs not set", r.FullName())
		}
		for _, u := range []string{results.UnitBytesPerOp, results.UnitAllocsPerOp} {
			if _, ok := r.Stat(u); ok {
				t.Errorf("%s: has a %s summary", r.FullName(), u)
			}
		}
	}
}
