package workloadtest

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/serbench/serbench/results"
)

// Schema1 rewrites the recorded run at path as a build before schema 2
// wrote it — no schema field, descriptors or end line, no roles, groups or
// in-round ratios, the subject under the label key subjectKey — and reads
// it back, so that the test goes through results.Read's migration.
func Schema1(t *testing.T, path, subjectKey string) *results.Run {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		switch m["kind"] {
		case results.KindDescriptor, results.KindEnd:
			continue
		case results.KindEnv:
			delete(m, "schema")
		case results.KindCase:
			delete(m, "role")
			delete(m, "group")
			delete(m, "summary")
			for _, l := range m["labels"].([]any) {
				if l := l.(map[string]any); l["k"] == "subject" {
					l["k"] = subjectKey
				}
			}
			samples, _ := m["samples"].([]any)
			for _, s := range samples {
				s := s.(map[string]any)
				delete(s, "round")
				delete(s, "vs_baseline")
				delete(s, "vs_limit")
			}
		}
		enc, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(enc, '\n'))
	}
	run, err := results.Read(&out, path)
	if err != nil {
		t.Fatal(err)
	}
	if run.Env.Schema != 1 || len(run.Descriptors) != 0 {
		t.Fatalf("schema %d, %d descriptors: not a schema-1 run", run.Env.Schema, len(run.Descriptors))
	}
	return run
}
