package run

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/workload"
)

// selectionPlan is a plan as a workload with runners makes it: a Go
// case, two runner groups with their limit rows and two interop cells.
func selectionPlan() []bench.Case {
	rc := func(subject, lang, group, role string) bench.Case {
		return bench.Case{Name: "W", Group: group, Role: role,
			Labels: results.Labels{{Key: "subject", Value: subject}, {Key: "language", Value: lang}, {Key: "op", Value: "decode"}}}
	}
	cell := func(w, r, wl, rl string) bench.Case {
		return bench.Case{Name: "interop", Group: "interop", Labels: results.Labels{{Key: "subject", Value: "interop"}, {Key: "format", Value: "jsonl"},
			{Key: "writer", Value: w}, {Key: "reader", Value: r}, {Key: "writer_language", Value: wl}, {Key: "reader_language", Value: rl}, {Key: "op", Value: "interop"}}}
	}
	return []bench.Case{
		{Name: "W", Labels: results.Labels{{Key: "subject", Value: "jsonl"}, {Key: "op", Value: "read"}}},
		rc("python:orjson", "python", "runner/decode/python", results.RoleSubject),
		rc("python:pyarrow", "python", "runner/decode/python", results.RoleSubject),
		rc("python:copy", "python", "runner/decode/python", results.RoleLimit),
		rc("java:jackson", "java", "runner/decode/java", results.RoleSubject),
		rc("java:copy", "java", "runner/decode/java", results.RoleLimit),
		cell("go:jsonl", "python:orjson", "go", "python"),
		cell("java:jackson", "java:jackson", "java", "java"),
	}
}

// TestSelectSubjects: --subject selects runner cases by subject or
// language (their limit row staying with them) and interop cells by the
// matrix, a writer or reader, or its language; Go cases are left to the
// workload.
func TestSelectSubjects(t *testing.T) {
	for _, tt := range []struct {
		subjects []string
		want     []string // the subject (or writer→reader) of each case kept
	}{
		{nil, []string{"jsonl", "python:orjson", "python:pyarrow", "python:copy", "java:jackson", "java:copy", "go:jsonl→python:orjson", "java:jackson→java:jackson"}},
		{[]string{"python:orjson"}, []string{"jsonl", "python:orjson", "python:copy", "go:jsonl→python:orjson"}},
		{[]string{"java"}, []string{"jsonl", "java:jackson", "java:copy", "java:jackson→java:jackson"}},
		{[]string{"interop"}, []string{"jsonl", "go:jsonl→python:orjson", "java:jackson→java:jackson"}},
		{[]string{"jsonl"}, []string{"jsonl", "go:jsonl→python:orjson"}},
		{[]string{"python:copy"}, []string{"jsonl"}},
	} {
		var got []string
		for _, c := range selectSubjects(selectionPlan(), tt.subjects) {
			name := c.Labels.Get("subject")
			if c.Labels.Get("op") == "interop" {
				name = c.Labels.Get("writer") + "→" + c.Labels.Get("reader")
			}
			got = append(got, name)
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("--subject %q: kept %q, want %q", tt.subjects, got, tt.want)
		}
	}
}

// TestCheckSelected: a runner's subject or language that no plan has is
// refused with the valid names; one the plans have passes.
func TestCheckSelected(t *testing.T) {
	ws := []workload.Workload{fake{}}
	plans := [][]bench.Case{selectionPlan()}
	langs := []string{"java", "python", "rust"}
	for _, ok := range [][]string{{"python:orjson"}, {"java"}, {"interop"}, {"a"}, {"go:jsonl"}} {
		if err := checkSelected(ws, plans, ok, langs); err != nil {
			t.Errorf("--subject %q: %v", ok, err)
		}
	}
	err := checkSelected(ws, plans, []string{"rust:serde"}, langs)
	if err == nil || !errors.As(err, new(*workload.UsageError)) || !strings.Contains(err.Error(), `unknown subject "rust:serde"`) || !strings.Contains(err.Error(), "python:orjson") {
		t.Errorf("--subject rust:serde: %v", err)
	}
	if err := checkSelected(ws, nil, []string{"python"}, langs); err == nil || !strings.Contains(err.Error(), "--runners") {
		t.Errorf("--subject python without runners: %v", err)
	}
}

// languages is a workload whose plan holds runner cases and interop
// cells (selectionPlan's), each measurable.
type languages struct{ fake }

func (languages) Name() string { return "langs" }

func (languages) Plan(_ context.Context, cfg workload.Config) (*workload.Plan, error) {
	p := &workload.Plan{}
	for _, c := range selectionPlan() {
		if c.Labels.Get("language") == "" && c.Labels.Get("op") != "interop" && !cfg.WantSubject(c.Labels.Get("subject")) {
			continue
		}
		c.Workload, c.Budget = "langs", time.Hour
		c.Verify = func() error { return nil }
		c.Run = func(b *bench.B) error { return nil }
		p.Cases = append(p.Cases, c)
	}
	for _, s := range []string{"jsonl", "python:orjson", "python:pyarrow", "python:copy", "java:jackson", "java:copy", "interop"} {
		p.Descriptors = append(p.Descriptors, results.Descriptor{Key: "subject", Name: s, Role: results.RoleSubject, What: s})
	}
	return p, nil
}

func (languages) Subjects() []string { return []string{"jsonl"} }

// TestDryRunListsWhatRuns: for every --subject, the dry run lists exactly
// the cases the run measures, runner cases and interop cells included.
func TestDryRunListsWhatRuns(t *testing.T) {
	for _, subjects := range [][]string{nil, {"python"}, {"java:jackson"}, {"interop"}, {"jsonl", "python:pyarrow"}} {
		o := opts(t, t.TempDir(), func(o *Options) {
			o.Workloads, o.Subjects, o.Count = workload.Set{languages{}}, subjects, 1
			// The runners the fake plan's languages stand for: named, never
			// built (the fake plans their cases itself).
			o.Runners = &runner.Available{Sources: []runner.Source{{Name: "python", Language: "python"}, {Name: "jvm", Language: "java"}}}
		})
		planned, err := DryRun(context.Background(), o)
		if err != nil {
			t.Fatalf("--subject %q: dry run: %v", subjects, err)
		}
		out, err := Run(context.Background(), o)
		if err != nil {
			t.Fatalf("--subject %q: run: %v", subjects, err)
		}
		var ran []string
		for _, c := range out.Run.Cases {
			ran = append(ran, c.FullName())
		}
		if len(planned) != 1 || strings.Join(planned[0].Cases, "\n") != strings.Join(ran, "\n") {
			t.Errorf("--subject %q: dry run lists\n%s\nthe run measured\n%s", subjects, strings.Join(planned[0].Cases, "\n"), strings.Join(ran, "\n"))
		}
	}
}
