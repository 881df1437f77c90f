package cli

import (
	"strings"
	"testing"
)

// TestRunHelpPerWorkload (issue 23.5): `serbench run WORKLOAD --help` lists
// that workload's own options, then the shared flags, and no other
// workload's options; `serbench run --help` lists them all, grouped.
func TestRunHelpPerWorkload(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		want, lack []string
	}{
		{[]string{"run", "data", "--help"},
			[]string{"Options of the data workload:", "--input", "--infer-rows N|all", "Flags shared by all workloads:", "--scale"},
			[]string{"--pg-dsn", "--query", "Options of the pgscan workload"}},
		{[]string{"run", "pgscan", "--help"},
			[]string{"Options of the pgscan workload:", "--pg-dsn", "--query", "--rows", "Flags shared by all workloads:", "--count"},
			[]string{"--input", "--formats", "Options of the data workload"}},
		{[]string{"help", "run", "data"},
			[]string{"Options of the data workload:", "--input", "Flags shared by all workloads:"},
			[]string{"--pg-dsn"}},
		{[]string{"run", "records", "--help"},
			[]string{"The records workload has no options of its own.", "Flags shared by all workloads:"},
			[]string{"--input", "--pg-dsn"}},
		{[]string{"run", "--help"},
			[]string{"Flags shared by all workloads:", "Options of the pgscan workload:", "--pg-dsn", "Options of the data workload:", "--input"},
			[]string{"--fork ", "--cases "}},
	} {
		code, out, stderr := runCLI(t, tc.args...)
		if code != ExitOK {
			t.Errorf("%q: exit %d: %s", tc.args, code, stderr)
			continue
		}
		for _, s := range tc.want {
			if !strings.Contains(out, s) {
				t.Errorf("%q: help lacks %q:\n%s", tc.args, s, out)
			}
		}
		for _, s := range tc.lack {
			if strings.Contains(out, s) {
				t.Errorf("%q: help shows %q:\n%s", tc.args, s, out)
			}
		}
		if named := tc.args[1] != "--help"; named {
			own := strings.Index(out, "Options of the")
			if own < 0 {
				own = strings.Index(out, "no options of its own")
			}
			if own < 0 || own > strings.Index(out, "Flags shared by all workloads:") {
				t.Errorf("%q: the workload's options do not come first:\n%s", tc.args, out)
			}
		}
	}
	// Shared flags first, then each workload's.
	_, out, _ := runCLI(t, "run", "--help")
	if s, p, d := strings.Index(out, "Flags shared"), strings.Index(out, "Options of the pgscan"), strings.Index(out, "Options of the data"); s >= p || p >= d {
		t.Errorf("run --help: groups out of order:\n%s", out)
	}
}

// TestWorkloadFlagErrors: a workload's options given where they do
// nothing, or wrong, are usage errors (exit 2, one line) before anything
// runs.
func TestWorkloadFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "data"}, "the data workload needs --input FILE (e.g. serbench run data --input events.jsonl)"},
		{[]string{"run", "--limit", "5"}, "--limit, --sample, --skip-bad, --infer-rows, --formats, --codecs, --avsc, --proto and --message apply to the data workload: give --input FILE"},
		{[]string{"run", "records", "--input", "x.jsonl"}, "--input applies to the data workload: name it (serbench run records data --input x.jsonl)"},
		{[]string{"run", "records", "--input", "x.jsonl", "--skip-bad"}, "--input applies to the data workload: name it (serbench run records data --input x.jsonl)"},
		{[]string{"run", "data", "--input", "x.jsonl", "--infer-rows", "z"}, `--infer-rows "z": want N`},
		{[]string{"run", "data", "--input", "x.jsonl", "--formats", "yaml"}, `--formats: unknown format "yaml" (valid: `},
		{[]string{"run", "records", "--pg-dsn", "postgres://bob:secret@127.0.0.1:5/db"}, "--pg-dsn applies to the pgscan workload: name it (serbench run records pgscan --pg-dsn postgres://bob:xxxxx@127.0.0.1:5/db)"},
		{[]string{"run", "--query", "SELECT 1"}, "--query and --rows apply to the pgscan workload: name it (serbench run pgscan --query 'SELECT …')"},
		{[]string{"run", "records", "--rows", "3"}, "--query and --rows apply to the pgscan workload: name it"},
		{[]string{"run", "pgscan", "--rows", "3"}, "--rows caps the rows of --query"},
	} {
		code, _, stderr := runCLI(t, append(tc.args, "--dry-run")...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
		if strings.Contains(stderr, "secret") {
			t.Errorf("%q: the message shows the password: %s", tc.args, stderr)
		}
	}
}
