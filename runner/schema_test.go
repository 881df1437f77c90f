package runner

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/codec"
)

// goldenLines reads a JSON Lines file of testdata/protocol.
func goldenLines(t *testing.T, name string) [][]byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "protocol", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, []byte(sc.Text()))
	}
	return out
}

// TestProtocolSchemaGolden: every golden valid line is valid by the
// schema and read by serbench's own parser; every golden invalid line
// breaks the schema, and the error says where.
func TestProtocolSchemaGolden(t *testing.T) {
	for i, l := range goldenLines(t, "valid.jsonl") {
		if err := Validate("line", l); err != nil {
			t.Errorf("valid.jsonl:%d: %v", i+1, err)
		}
		if _, err := parseLine(l); err != nil {
			t.Errorf("valid.jsonl:%d: serbench does not read it: %v", i+1, err)
		}
	}
	for i, l := range goldenLines(t, "invalid.jsonl") {
		var g struct {
			Line json.RawMessage `json:"line"`
			Why  string          `json:"why"`
		}
		if err := json.Unmarshal(l, &g); err != nil {
			t.Fatalf("invalid.jsonl:%d: %v", i+1, err)
		}
		err := Validate("line", g.Line)
		if err == nil {
			t.Errorf("invalid.jsonl:%d (%s): valid by the schema", i+1, g.Why)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("invalid.jsonl:%d: the error is not one line: %q", i+1, err)
		}
	}
}

// TestWorkFilesMatchSchema: the run.json and cases.jsonl serbench writes
// are what the schema says a runner reads.
func TestWorkFilesMatchSchema(t *testing.T) {
	dir := t.TempDir()
	cases := []Case{
		{ID: "g/a", Group: "g", Subject: "a", Role: "subject", Op: OpDecode, Dataset: "d", Size: 10, Codec: "zstd:3", Count: 5, MinCount: 1},
		{ID: "g/copy", Group: "g", Subject: "copy", Role: "limit", Op: OpCopy, Dataset: "d", Size: 10, LimitOf: "g/a"},
		{ID: "x", Subject: "a", Role: "subject", Op: OpExport, Dataset: "d", Path: "tmp/x.avro"},
	}
	settings := Settings{Protocol: Protocol, RunID: "r", BenchtimeNs: int64(time.Millisecond), MaxIters: 1 << 30, Count: 20, Seed: 1}
	if err := writeWork(dir, settings, cases); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate("run", b); err != nil {
		t.Errorf("run.json: %v\n%s", err, b)
	}
	b, err = os.ReadFile(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if err := Validate("case", []byte(l)); err != nil {
			t.Errorf("cases.jsonl:%d: %v\n%s", i+1, err, l)
		}
	}
}

// TestSchemaCodecs: the schema's codec names are serbench's codecs, none
// more, none fewer — the one list every runner is checked against.
func TestSchemaCodecs(t *testing.T) {
	var doc struct {
		Defs struct {
			Codec struct {
				Pattern string `json:"pattern"`
			} `json:"codec"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(ProtocolSchema(), &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Defs.Codec.Pattern
	names, ok := strings.CutPrefix(p, "^(")
	names, ok2 := strings.CutSuffix(names, ")(:-?[0-9]+)?$")
	if !ok || !ok2 {
		t.Fatalf("codec pattern %q is not ^(a|b|…)(:-?[0-9]+)?$", p)
	}
	got := strings.Split(names, "|")
	want := codec.Default().Names() // "none" among them
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the schema's codecs %v, serbench's %v", got, want)
	}
}
