package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/digest"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
)

// The test binary plays a runner when INTEROP_FAKE_RUNNER=1: its subjects
// export and import with the Go side's own formats, plus one without the
// file ops, one that writes garbage and one whose reads lose a column.
func TestMain(m *testing.M) {
	if os.Getenv("INTEROP_FAKE_RUNNER") == "1" {
		os.Exit(fakeRunner(os.Args[1:]))
	}
	os.Exit(m.Run())
}

var fakeSubjects = []runner.Subject{
	{Name: "go-jsonl", Format: "json", Ops: []string{"encode", "decode", runner.OpExport, runner.OpImport}},
	{Name: "lossy-jsonl", Format: "json", Ops: []string{"encode", "decode", runner.OpExport, runner.OpImport}},
	{Name: "no-files", Format: "json", Ops: []string{"encode", "decode"}},
	{Name: "liar-msgpack", Format: "msgpack", Ops: []string{"encode", "decode", runner.OpExport, runner.OpImport}},
	{Name: "go-avro", Format: "avro", Ops: []string{"encode", "decode", runner.OpExport, runner.OpImport}},
	{Name: "picky-avro", Format: "avro", Ops: []string{"encode", "decode", runner.OpExport, runner.OpImport}},
}

func fakeHello() runner.Hello {
	return runner.Hello{Type: "hello", Protocol: runner.Protocol, Runner: "fake", Language: "fake", Runtime: "go test", Subjects: fakeSubjects}
}

func fakeRunner(args []string) int {
	out := json.NewEncoder(os.Stdout)
	_ = out.Encode(fakeHello())
	if len(args) == 0 || args[0] != "run" {
		_ = out.Encode(map[string]any{"type": "end", "cases": 0, "failed": 0})
		return 0
	}
	work := os.Getenv("SERBENCH_WORK")
	f, err := os.Open(filepath.Join(work, "cases.jsonl"))
	if err != nil {
		_ = out.Encode(map[string]any{"type": "error", "phase": "setup", "message": err.Error()})
		return 1
	}
	defer f.Close()
	n, failed := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c runner.Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return 1
		}
		n++
		if c.Subject == "picky-avro" {
			failed++
			_ = out.Encode(map[string]any{"type": "error", "case": c.ID, "phase": "setup", "cannot_hold": true, "message": "picky: column ts: a timestamp beyond this library"})
			continue
		}
		verify, err := fakeCase(work, c)
		if err != nil {
			failed++
			_ = out.Encode(map[string]any{"type": "error", "case": c.ID, "phase": "setup", "message": err.Error()})
			continue
		}
		_ = out.Encode(verify)
	}
	_ = out.Encode(map[string]any{"type": "end", "cases": n, "failed": failed})
	return 0
}

func fakeCase(work string, c runner.Case) (map[string]any, error) {
	i := slices.IndexFunc(fakeSubjects, func(s runner.Subject) bool { return s.Name == c.Subject })
	if i < 0 || !slices.Contains(fakeSubjects[i].Ops, c.Op) {
		return nil, &os.PathError{Op: "unknown op " + c.Op + " for subject", Path: c.Subject, Err: os.ErrInvalid}
	}
	s := fakeSubjects[i]
	fr, err := os.Open(filepath.Join(work, "datasets", c.Dataset, "data.arrows"))
	if err != nil {
		return nil, err
	}
	defer fr.Close()
	rd, err := ipc.NewReader(fr)
	if err != nil {
		return nil, err
	}
	var batches []arrow.RecordBatch
	for rd.Next() {
		b := rd.RecordBatch()
		b.Retain()
		batches = append(batches, b)
	}
	schema := rd.Schema()
	path := filepath.Join(work, c.Path)
	fm, _ := FormatOf(s.Format)
	if c.Op == runner.OpExport {
		if s.Name == "liar-msgpack" {
			if err := os.WriteFile(path, []byte("not MessagePack at all"), 0o644); err != nil {
				return nil, err
			}
			want, _ := digest.Batches(schema, batches...)
			return map[string]any{"type": "verify", "case": c.ID, "ok": true, "encoded_bytes": 22, "digest": want}, nil
		}
		w, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		if err := fm.Go.Write(schema, batches, w); err != nil {
			return nil, err
		}
		w.Close()
	} else if s.Name == "liar-msgpack" {
		return nil, os.ErrInvalid
	}
	file, err := os.Open(path)
	if err != nil {
		return map[string]any{"type": "verify", "case": c.ID, "ok": false, "reason": err.Error()}, nil
	}
	defer file.Close()
	res, err := fm.Go.Read(schema, file)
	if err != nil {
		return map[string]any{"type": "verify", "case": c.ID, "ok": false, "reason": "import failed: " + err.Error()}, nil
	}
	if s.Name == "lossy-jsonl" && c.Op == runner.OpImport {
		for k := range res.Columns {
			if res.Columns[k].Path == "ts" {
				res.Columns[k].Digest = strings.Repeat("0", 32)
			}
		}
		res.Table, _ = digest.TableDigest(res.Columns)
	}
	st, _ := file.Stat()
	return map[string]any{"type": "verify", "case": c.ID, "ok": true, "encoded_bytes": st.Size(), "elapsed_ns": 1000, "digest": res}, nil
}

func fakeReady(t *testing.T) runner.Ready {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := fakeHello()
	return runner.Ready{Runner: &runner.Runner{Name: "fake", Command: []string{exe}, Env: []string{"INTEROP_FAKE_RUNNER=1"}}, Hello: &h}
}

// TestGoOnly: Go's writers and readers agree with themselves on every
// format, with no runner.
func TestGoOnly(t *testing.T) {
	ds := testDataset(t, 40)
	// An extra format (as the nested workload brings protobuf) follows
	// the shared ones; here a stand-in Go side.
	extra := Protobuf(goDynamic("msgpack-as-protobuf", dynamic.NewMsgpack))
	m, err := Run(context.Background(), ds, nil, t.TempDir(), Options{Extra: []Format{extra}})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + m.Table())
	if len(m.Cells) != len(Formats())+1 {
		t.Fatalf("%d cells, want %d", len(m.Cells), len(Formats())+1)
	}
	if last := m.Cells[len(m.Cells)-1]; last.Format != "protobuf" || last.Writer != "go:msgpack-as-protobuf" {
		t.Errorf("last cell %+v, want the extra format's", last)
	}
	for _, c := range m.Cells {
		if c.Status != OK || c.Bytes == 0 {
			t.Errorf("%+v", c)
		}
	}
	if m.Invocations != 0 {
		t.Errorf("%d invocations", m.Invocations)
	}
}

// TestFakeRunner: a runner's subjects write and read through export and
// import (two invocations), every cell is decided, and the ✗ say why.
func TestFakeRunner(t *testing.T) {
	ds := testDataset(t, 30)
	ready := []runner.Ready{fakeReady(t)}
	formats := []string{"jsonl", "msgpack", "avro-ocf"}
	m, err := Run(context.Background(), ds, ready, t.TempDir(), Options{Formats: formats})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + m.Table())
	if m.Invocations != 2 {
		t.Errorf("%d runner invocations, want 2 (export, import)", m.Invocations)
	}
	want := map[[3]string]string{
		{"jsonl", "go:jsonl", "fake:go-jsonl"}:            "",
		{"jsonl", "fake:go-jsonl", "go:jsonl"}:            "",
		{"jsonl", "fake:go-jsonl", "fake:go-jsonl"}:       "",
		{"jsonl", "fake:lossy-jsonl", "fake:lossy-jsonl"}: "", // its export's read-back is honest
		{"jsonl", "go:jsonl", "fake:lossy-jsonl"}:         "columns differ: ts (timestamp[us]",
		{"msgpack", "fake:liar-msgpack", "go:msgpack"}:    "read failed: ",
		{"msgpack", "go:msgpack", "fake:liar-msgpack"}:    "invalid argument (setup)",
		{"avro-ocf", "go:avro-ocf", "fake:go-avro"}:       "",
		{"avro-ocf", "fake:go-avro", "go:avro-ocf"}:       "",
		// A writer or reader that cannot hold the data: –, not ✗.
		{"avro-ocf", "fake:picky-avro", "go:avro-ocf"}: "cannot hold: writer fake:picky-avro: export failed: picky: column ts",
		{"avro-ocf", "go:avro-ocf", "fake:picky-avro"}: "cannot hold: picky: column ts",
	}
	for k, reason := range want {
		c := m.Cell(k[0], k[1], k[2])
		switch {
		case c == nil:
			t.Errorf("%v: no cell", k)
		case reason == "" && c.Status != OK:
			t.Errorf("%v: %s, want ok", k, c.Reason)
		case strings.HasPrefix(reason, "cannot hold: "):
			if r := strings.TrimPrefix(reason, "cannot hold: "); c.Status != CannotHold || !strings.Contains(c.Reason, r) {
				t.Errorf("%v: %s %q, want – with %q", k, c.Status, c.Reason, r)
			}
		case reason != "" && (c.Status != Failed || !strings.Contains(c.Reason, reason)):
			t.Errorf("%v: %s %q, want ✗ with %q", k, c.Status, c.Reason, reason)
		}
	}
	// 3 json parties (go + 2 fake; no-files has no file ops), 2 msgpack, 3 avro: 9 + 4 + 9 cells
	if len(m.Cells) != 22 {
		t.Errorf("%d cells, want 22", len(m.Cells))
	}
	if m.Cell("jsonl", "fake:no-files", "go:jsonl") != nil {
		t.Error("a subject without export and import is a party")
	}
	for _, c := range m.Cells {
		if c.Status != OK && (c.Status != Failed && c.Status != CannotHold || c.Reason == "" || strings.Contains(c.Reason, "\n")) {
			t.Errorf("undecided cell %+v", c)
		}
	}
	// Plan lists the same cells, in the same order, without running.
	planned := Plan(ready, Options{Formats: formats})
	if len(planned) != len(m.Cells) {
		t.Fatalf("Plan lists %d cells, Run decided %d", len(planned), len(m.Cells))
	}
	for i, c := range planned {
		if d := m.Cells[i]; c.Format != d.Format || c.Writer != d.Writer || c.Reader != d.Reader || c.Status != "" {
			t.Errorf("cell %d: planned %+v, decided %+v", i, c, d)
		}
	}
	cases := m.Cases("data")
	if len(cases) != len(m.Cells) {
		t.Fatalf("%d cases", len(cases))
	}
	for i, c := range cases {
		ok := m.Cells[i].Status == OK && m.Cells[i].ReadNs > 0 // an ok read must say how long it took
		want := map[bool]string{true: ReadsYes, false: ReadsNo}[ok]
		if m.Cells[i].Status == CannotHold {
			want = ReadsCannotHold
			if c.Status != results.StatusCannotHold {
				t.Errorf("case %s: status %s for a – cell", c.FullName(), c.Status)
			}
		}
		if c.OK() != ok || c.Labels.Get(LabelReads) != want || ok != (len(c.Samples) == 1) || (!ok && c.Error == "") {
			t.Errorf("case %s: status %s, reads %q (want %q), %d samples, error %q", c.FullName(), c.Status, c.Labels.Get(LabelReads), want, len(c.Samples), c.Error)
		}
	}
	var buf strings.Builder
	w := results.NewWriter(&buf)
	for i := range cases {
		c := &cases[i]
		if c.Labels.Get("op") != OpInterop || c.Labels.Get("format") == "" {
			t.Errorf("labels %v", c.Labels)
		}
		if err := w.WriteCase(*c); err != nil {
			t.Errorf("case %s does not record: %v", c.FullName(), err)
		}
		if c.OK() && c.Metrics[MetricFileBytes] <= 0 {
			t.Errorf("case %s has no file size", c.FullName())
		}
	}
}

// TestGroupOnly: a group handed some of its cells (a filtered run) builds
// only their formats' files.
func TestGroupOnly(t *testing.T) {
	extra := Protobuf(goDynamic("msgpack-as-protobuf", dynamic.NewMsgpack))
	g := &Group{Options: Options{Extra: []Format{extra}}}
	cellsOf := func(formats ...string) []bench.Case {
		var out []bench.Case
		for _, f := range formats {
			out = append(out, bench.Case{Labels: results.Labels{{Key: "format", Value: f}}})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		cases   []bench.Case
		formats []string
		extra   int
	}{
		{"protobuf only", cellsOf("protobuf", "protobuf"), []string{}, 1},
		{"two shared", cellsOf("cbor", "jsonl"), []string{"jsonl", "cbor"}, 0},
		{"every one", nil, []string{"jsonl", "msgpack", "cbor", "avro-ocf", "parquet", "arrow-ipc"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := g.only(tc.cases)
			if !slices.Equal(o.Formats, tc.formats) || o.Formats == nil || len(o.Extra) != tc.extra {
				t.Errorf("formats %q (nil: %v), %d extra; want %q, %d", o.Formats, o.Formats == nil, len(o.Extra), tc.formats, tc.extra)
			}
			// Go alone: a cell per format it writes and reads.
			if n := len(Plan(nil, o)); n != len(tc.formats)+tc.extra {
				t.Errorf("Go alone plans %d cells, want %d", n, len(tc.formats)+tc.extra)
			}
		})
	}
}
