package data

import (
	"testing"

	"github.com/serbench/serbench/interop"
	"github.com/serbench/serbench/runner"
)

// TestInteropCases: without runners there is no matrix; with one, every
// cell of the formats it shares with Go is a case of one group measured
// by one Remote, labelled as package interop labels its results.
func TestInteropCases(t *testing.T) {
	in := &input{path: "/data/events.jsonl"}
	if cs := interopCases(nil, in, t.TempDir()); cs != nil {
		t.Fatalf("%d cases without runners", len(cs))
	}
	ready := []runner.Ready{{Runner: &runner.Runner{Name: "fake"}, Hello: &runner.Hello{Language: "java", Subjects: []runner.Subject{
		{Name: "jackson-json", Format: "json", Ops: []string{runner.OpEncode, runner.OpDecode, runner.OpExport, runner.OpImport}},
		{Name: "protobuf-java", Format: "protobuf", Ops: []string{runner.OpEncode, runner.OpDecode}},
	}}}}
	cs := interopCases(ready, in, t.TempDir())
	want := len(interop.Plan(ready, interop.Options{}))
	if len(cs) != want || want < 4 {
		t.Fatalf("%d cases, want %d (at least go and java reading each other's JSON Lines)", len(cs), want)
	}
	for _, c := range cs {
		if c.Remote == nil || c.Remote != cs[0].Remote || c.Group != "interop" || c.Labels.Get("subject") != interop.Subject || c.Labels.Get("op") != interop.OpInterop {
			t.Errorf("case %s: group %q, remote %v", c.FullName(), c.Group, c.Remote)
		}
	}
}
