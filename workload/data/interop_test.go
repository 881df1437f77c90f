package data

import (
	"slices"
	"testing"

	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/workload/interop"
)

// TestInteropCases: without runners there is no matrix; with one, every
// cell of the formats it shares with Go is a case of one group measured
// by one Remote, labelled as package interop labels its results.
func TestInteropCases(t *testing.T) {
	in := &input{path: "/data/events.jsonl"}
	if cs := interopCases(nil, in, nil, t.TempDir()); cs != nil {
		t.Fatalf("%d cases without runners", len(cs))
	}
	ready := []runner.Ready{{Runner: &runner.Runner{Name: "fake"}, Hello: &runner.Hello{Language: "java", Subjects: []runner.Subject{
		{Name: "jackson-json", Format: "json", Ops: []string{runner.OpEncode, runner.OpDecode, runner.OpExport, runner.OpImport}},
		{Name: "protobuf-java", Format: "protobuf", Ops: []string{runner.OpEncode, runner.OpDecode}},
	}}}}
	cs := interopCases(ready, in, nil, t.TempDir())
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

// TestFormatsSelectEveryLanguage: --formats names Go formats, and each
// selects its file format in every language: the runners' subjects of
// that format and the interop matrix's format, a variant counting as its
// base; an empty list selects all.
func TestFormatsSelectEveryLanguage(t *testing.T) {
	for _, tt := range []struct {
		formats []string
		subject string
		want    bool
	}{
		{nil, "bincode", true},
		{[]string{"jsonl"}, "json", true},
		{[]string{"jsonl"}, "msgpack", false},
		{[]string{"parquet-zstd"}, "parquet", true},
		{[]string{"arrow-stream-lz4"}, "arrow-ipc-stream", true},
		{[]string{"avro-ocf"}, "avro", true},
		{[]string{"msgpack", "cbor"}, "cbor", true},
		{[]string{"csv"}, "rkyv", false},
		{[]string{"protobuf-wire"}, "protobuf", true},
	} {
		if got := selectsFormat(tt.formats, tt.subject); got != tt.want {
			t.Errorf("selectsFormat(%q, %q) = %v, want %v", tt.formats, tt.subject, got, tt.want)
		}
	}
	if got := interopFormats([]string{"jsonl", "parquet-snappy"}); !slices.Equal(got, []string{"jsonl", "parquet"}) {
		t.Errorf("interopFormats = %q, want [jsonl parquet]", got)
	}
	if got := interopFormats([]string{"csv"}); got == nil || len(got) != 0 {
		t.Errorf("interopFormats(csv) = %#v, want none (not all)", got)
	}
	if got := interopFormats(nil); got != nil {
		t.Errorf("interopFormats(nil) = %q, want nil (all)", got)
	}
	in := &input{path: "/data/events.jsonl"}
	ready := []runner.Ready{{Runner: &runner.Runner{Name: "fake"}, Hello: &runner.Hello{Language: "java", Subjects: []runner.Subject{
		{Name: "jackson-json", Format: "json", Ops: []string{runner.OpExport, runner.OpImport}},
		{Name: "msgpack-java", Format: "msgpack", Ops: []string{runner.OpExport, runner.OpImport}},
	}}}}
	cs := interopCases(ready, in, interopFormats([]string{"msgpack"}), t.TempDir())
	if len(cs) == 0 {
		t.Fatal("--formats msgpack: no interop cell")
	}
	for _, c := range cs {
		if f := c.Labels.Get("format"); f != "msgpack" {
			t.Errorf("--formats msgpack: a cell of %s", f)
		}
	}
}
