package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// slowSubject writes a copy of the results file path in which every
// sample of subject's cases takes k times as long, and returns its path.
func slowSubject(t *testing.T, path, subject string, k float64) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		if v["kind"] == "case" && strings.Contains(v["name"].(string)+" "+string(mustJSON(t, v["labels"])), `"`+subject+`"`) {
			for _, s := range v["samples"].([]any) {
				m := s.(map[string]any)
				for _, key := range []string{"ns_op", "vs_baseline", "vs_limit"} {
					if x, ok := m[key].(float64); ok {
						m[key] = x * k
					}
				}
			}
			line = string(mustJSON(t, v))
		}
		out = append(out, line)
	}
	dst := filepath.Join(t.TempDir(), "slowed.jsonl")
	if err := os.WriteFile(dst, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCompareCannotSee is issue 26.5: compare with too few samples to
// tell a change, and compare of runs over different data. The fixtures
// are written by report's TestFewSamplesFixtures with results.Writer.
func TestCompareCannotSee(t *testing.T) {
	const dir = "../../report/testdata/"
	old, new, other := dir+"few-old.jsonl", dir+"few-new.jsonl", dir+"few-other.jsonl"
	a, b := dir+"run-a.jsonl", dir+"run-b.jsonl"
	slowed := slowSubject(t, a, "arrow", 3)
	slowedB := slowSubject(t, b, "arrow", 3)
	const differs = "OLD measured data with input movies.jsonl (10,000 rows, 7 columns), NEW with input github.csv (336,776 rows, 12 columns): these runs measured different data"
	tests := []struct {
		name string
		args []string
		code int
		// stdout and stderr must contain every string of out and errs,
		// and stderr none of notErr.
		out, errs, notErr []string
	}{
		{"too few samples, no gate", []string{"compare", old, new}, 0,
			[]string{"too few samples to tell  (n=2 vs 2: the smallest p possible is 0.33)",
				"0 of 12 rows changed, 3 could not be judged: too few samples to reach α = 0.05 (the smallest p of 2 against 2 is 0.33) — rerun both with --count ≥ 4.",
				"2 case(s) slower by more than 5% and past the noise floor by their medians, with too few samples to tell whether that is a change:\n  Data/format=msgpack/codec=zstd/op=write  +3513.2% ns/op\n  Data/format=json/codec=none/op=write  +9189.9% ns/op\n"},
			[]string{"serbench: warning: 3 could not be judged: too few samples"}, nil},
		{"too few samples warn at the gate", []string{"compare", "--fail-on-regression", old, new}, 0,
			[]string{"too few samples to tell"},
			[]string{"serbench: warning: cannot tell: too few samples: 2 case(s) slower past the noise floor by their medians could not be judged and do not fail the gate (--fail-on-unjudged: they do; rerun both with --count ≥ 4)\n"}, nil},
		{"too few samples fail the strict gate", []string{"compare", "--fail-on-regression", "--fail-on-unjudged", old, new}, 1,
			[]string{"too few samples to tell"},
			[]string{"serbench: cannot tell: too few samples: 2 case(s) slower by more than 5% by their medians could not be judged (rerun both with --count ≥ 4)\n"}, nil},
		{"too few samples, no slowdown", []string{"compare", "--fail-on-regression", old, old}, 0,
			nil, []string{"serbench: warning: 2 could not be judged"}, []string{"cannot tell"}},
		{"json says so", []string{"compare", "--format", "json", old, new}, 0,
			[]string{`"unjudged": 3`, `"cannot_tell": 2`, `"too_few_samples": true`}, nil, nil},
		{"different data refused", []string{"compare", "--fail-on-regression", old, other}, 2,
			nil, []string{"serbench: " + differs + "; pass --allow-different-inputs to compare them anyway\n"}, nil},
		{"different data compared anyway", []string{"compare", "--allow-different-inputs", old, other}, 0,
			[]string{"Note: " + differs + ".\n"}, []string{"serbench: warning: " + differs + "; compared anyway (--allow-different-inputs)\n"}, nil},
		{"different data, anyway, gate", []string{"compare", "--allow-different-inputs", "--fail-on-regression", "--fail-on-unjudged", "--format", "markdown", old, other}, 1,
			[]string{"> **Note:** " + differs + ".\n"}, []string{"cannot tell: too few samples"}, nil},
		{"different data and nothing shared", []string{"compare", a, "../../workload/records/testdata/small.jsonl"}, 2,
			nil, []string{"share no measured case: nothing to compare (OLD ran at scale quick, NEW at scale 2000 records)\n"}, nil},
		{"same data in another directory", []string{"compare", old, new}, 0, nil, nil, []string{"different data"}},
		{"A/A: two runs of one build pass", []string{"compare", "--fail-on-regression", a, b}, 0,
			[]string{"0 of 42 rows changed", "A row counts as changed when"}, nil, []string{"cannot tell", "could not be judged", "regression"}},
		{"A/A normalized passes", []string{"compare", "--fail-on-regression", "--normalize", a, b}, 0,
			nil, nil, []string{"regression"}},
		// The fixture's subject has one row per operation: no shift to
		// judge, so one pair can only suspect its row, and two confirm it.
		{"one row 3× slower in one pair is suspected", []string{"compare", "--fail-on-regression", a, slowed}, 0,
			[]string{"1 row(s) suspected (measure another pair and pass both: compare OLD NEW OLD2 NEW2):\n  Features/subject=arrow/type=int32/n=100/op=encode  +200.0% ns/op\n"},
			[]string{"serbench: warning: 1 row(s) suspected slower"}, []string{"cannot tell", "could not be judged"}},
		{"one row 3× slower in two pairs fails", []string{"compare", "--fail-on-regression", a, slowed, b, slowedB}, 1,
			[]string{"1 row(s) slower past their floor in every pair:\n  Features/subject=arrow/type=int32/n=100/op=encode  +200.0%, +200.0% ns/op\n"},
			[]string{"serbench: 1 row(s) slower past 5% in every pair (first: Features/subject=arrow/type=int32/n=100/op=encode)\n"}, []string{"cannot tell", "could not be judged"}},
		{"one row 3× slower in one of two pairs is suspected", []string{"compare", "--fail-on-regression", a, slowed, a, b}, 0,
			[]string{"1 row(s) suspected (not slower in every pair)"}, nil, nil},
		{"pairs only", []string{"compare", a, b, slowed}, 2,
			nil, []string{"serbench: compare takes pairs of results files, OLD NEW [OLD2 NEW2 ...], got 3\n"}, nil},
		{"enough samples: no regression passes", []string{"compare", "--fail-on-regression", a, a}, 0,
			nil, nil, []string{"cannot tell", "could not be judged", "regression"}},
		{"help says what the gate does", []string{"compare", "--help"}, 0,
			[]string{"cannot tell: too few samples", "--allow-different-inputs", "does not pass"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.out {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.errs {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, w := range tt.notErr {
				if strings.Contains(stderr, w) {
					t.Errorf("stderr has %q:\n%s", w, stderr)
				}
			}
		})
	}
}
