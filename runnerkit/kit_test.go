package runnerkit

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/serbench/serbench/runner"
)

// ipcSubject is a Subject over Arrow IPC (a stream of the one batch); bad
// makes its decode give row 11's id back one too many.
type ipcSubject struct{ bad bool }

func (s ipcSubject) Name() string {
	if s.bad {
		return "bad"
	}
	return "ipc"
}

func (ipcSubject) Encode(dst []byte, rec arrow.RecordBatch) ([]byte, error) {
	w := &appender{b: dst}
	iw := ipc.NewWriter(w, ipc.WithSchema(rec.Schema()))
	if err := iw.Write(rec); err != nil {
		return nil, err
	}
	if err := iw.Close(); err != nil {
		return nil, err
	}
	return w.b, nil
}

func (s ipcSubject) Decode(src []byte) (arrow.RecordBatch, error) {
	r, err := ipc.NewReader(strings.NewReader(string(src)))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	if !r.Next() {
		return nil, fmt.Errorf("no batch: %v", r.Err())
	}
	rec := r.RecordBatch()
	if !s.bad || rec.NumRows() <= 11 {
		rec.Retain()
		return rec, nil
	}
	ids := rec.Column(0).(*array.Int64)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range ids.Len() {
		v := ids.Value(i)
		if i == 11 {
			v++
		}
		b.Append(v)
	}
	cols := append([]arrow.Array{b.NewArray()}, rec.Columns()[1:]...)
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows()), nil
}

type appender struct{ b []byte }

func (a *appender) Write(p []byte) (int, error) { a.b = append(a.b, p...); return len(p), nil }

// The test binary is the runner when SERBENCH_KIT_RUNNER is set.
func TestMain(m *testing.M) {
	if os.Getenv("SERBENCH_KIT_RUNNER") != "" {
		os.Exit(Serve(context.Background(), "kit", os.Args[1:], os.Stdout, os.Stderr, ipcSubject{}, ipcSubject{bad: true}))
	}
	os.Exit(m.Run())
}

// TestServeConforms drives the kit through serbench's conformance check:
// the good subject passes every message of the protocol, with and without
// codecs; the bad one is caught at its column and row.
func TestServeConforms(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for i := range 40 {
		b.Field(0).(*array.Int64Builder).Append(int64(i * 3))
		if i%5 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("v", i))
		}
	}
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	ds := &runner.Dataset{Name: "t-40", Rows: 40, Build: func() (*arrow.Schema, []arrow.RecordBatch, error) {
		rec.Retain()
		return schema, []arrow.RecordBatch{rec}, nil
	}}
	r := &runner.Runner{Name: "kit", Command: []string{os.Args[0]}, Env: []string{"SERBENCH_KIT_RUNNER=1"}, Silence: time.Minute}
	h, probs, err := runner.Conform(context.Background(), r, t.TempDir(), ds)
	if err != nil {
		t.Fatal(err)
	}
	if h == nil || len(h.Subjects) != 2 || h.Language != "go" {
		t.Fatalf("hello: %+v", h)
	}
	var good, bad []string
	for _, p := range probs {
		if strings.HasPrefix(p.Case, "check/bad/") {
			bad = append(bad, p.String())
		} else {
			good = append(good, p.String())
		}
	}
	if len(good) > 0 {
		t.Errorf("the good subject has problems:\n%s", strings.Join(good, "\n"))
	}
	all := strings.Join(bad, "\n")
	if !strings.Contains(all, `check/bad/decode/none: wrong digest: digest mismatch: column "id"`) || !strings.Contains(all, "first differing row: 11 (0-based, of 40)") {
		t.Errorf("the bad subject's row 11 is not named:\n%s", all)
	}
}

// TestWithRunner: run and list get this program as --runner, runner
// check gets it as the command, anything else is left alone.
func TestWithRunner(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want []string }{
		{[]string{"run", "records"}, []string{"run", "--runner", `mine="` + exe + `"`, "records"}},
		{[]string{"list"}, []string{"list", "--runner", `mine="` + exe + `"`}},
		{[]string{"runner", "check"}, []string{"runner", "check", `"` + exe + `"`}},
		{[]string{"compare", "a", "b"}, []string{"compare", "a", "b"}},
	} {
		if got := WithRunner(tc.in, "mine"); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("WithRunner(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
