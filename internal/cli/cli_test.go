package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/serbench/serbench/results"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestBadInput(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(t.TempDir(), "corrupt.jsonl")
	if err := os.WriteFile(corrupt, []byte(`{"kind":"env"}`+"\n"+`{"kind":"case","workload":"features","name":"X","status":"ok"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(t.TempDir(), "go-test.json")
	if err := os.WriteFile(foreign, []byte(`{"Time":"2024-01-01T00:00:00Z","Action":"start"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown workload", []string{"run", "nosuch"}, 2, `unknown workload "nosuch" (valid: features`},
		{"unknown scale", []string{"run", "features", "--scale", "huge"}, 2, `unknown scale "huge" (valid: quick, default, full)`},
		{"unknown subject", []string{"run", "features", "--subject", "yaml"}, 2, `unknown subject "yaml" for features (valid: psdb, proto3`},
		{"bad count", []string{"run", "--count", "abc"}, 2, `invalid argument "abc" for "--count"`},
		{"zero count", []string{"run", "--count", "0"}, 2, "--count must be at least 1"},
		{"bad filter", []string{"run", "--filter", "("}, 2, "--filter: error parsing regexp"},
		{"unknown flag", []string{"run", "--colour"}, 2, "unknown flag: --colour"},
		{"unknown progress", []string{"run", "--progress", "fancy"}, 2, `unknown --progress "fancy" (valid: auto, bar, lines, none)`},
		{"filter matches nothing", []string{"run", "features", "--filter", "zzz", "--out", t.TempDir()}, 2, "no case matches"},
		{"unwritable out", []string{"run", "features", "--scale", "quick", "--out", filepath.Join(notDir, "sub")}, 2, "output directory"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"report corrupt", []string{"report", corrupt}, 2, corrupt + ":2: case X: status ok but no samples"},
		{"report foreign", []string{"report", foreign}, 2, foreign + ":1: not a serbench results file"},
		{"report missing", []string{"report", "/nonexistent/results.jsonl"}, 2, "no such file"},
		{"compare one arg", []string{"compare", corrupt}, 2, "compare takes pairs of results files, OLD NEW [OLD2 NEW2 ...], got 1"},
		{"bad shard", []string{"run", "features", "--shard", "4/3"}, 2, `--shard "4/3": want K/N with 1 ≤ K ≤ N, or auto/N`},
		{"auto shard without index", []string{"run", "features", "--shard", "auto/3"}, 2, "JOB_COMPLETION_INDEX"},
		{"compare format", []string{"compare", "--format", "yaml", "../../report/testdata/run-a.jsonl", "../../report/testdata/run-b.jsonl"}, 2, `unknown --format "yaml" (valid: text, markdown, json)`},
		{"compare nothing shared", []string{"compare", "../../report/testdata/run-a.jsonl", "../../workload/records/testdata/small.jsonl"}, 2, "share no measured case"},
		{"force and resume", []string{"run", "features", "--scale", "quick", "--force", "--resume", "--out", t.TempDir()}, 2, "--force and --resume exclude each other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.want)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n"); lines > 0 {
				t.Errorf("want one error line, got %d:\n%s", lines+1, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(notDir, "sub", "results.jsonl")); err == nil {
		t.Error("results written into an unwritable location")
	}
}

// TestRunReportCompare runs a few real cases end to end and checks every
// output a user relies on.
func TestRunReportCompare(t *testing.T) {
	dir := t.TempDir()
	out1, out2 := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	args := []string{"run", "features", "--scale", "quick", "--count", "3", "--benchtime", "2ms", "--progress", "none",
		"--filter", "type=int32/n=100/", "--subject", "psdb,proto3,limit"}
	code, stdout, stderr := runCLI(t, append(args, "--out", out1)...)
	if code != 0 {
		t.Fatalf("run exit %d: %s", code, stderr)
	}
	for _, want := range []string{"features: 6 cases: 6 ok", "psdb", "report:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"results.jsonl", "bench.txt", "report.md", "report.html", "features-int32-encode.svg"} {
		if st, err := os.Stat(filepath.Join(out1, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	run, err := results.ReadFile(filepath.Join(out1, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Cases) != 6 || run.Env.Scale != "quick" || run.Env.Count != 3 || len(run.Env.Command) == 0 {
		t.Fatalf("results: %d cases, env %+v", len(run.Cases), run.Env)
	}
	// features asks for four processes; --count 3 makes them three, each
	// a real fork of this binary taking one sample per case.
	if !strings.Contains(run.Env.Extra["features.forks"], "3 processes") {
		t.Errorf("env does not record the forks: %v", run.Env.Extra)
	}
	for _, c := range run.Cases {
		if len(c.Samples) != 3 || c.Samples[2].Round != 3 {
			t.Errorf("%s: %d samples from the forks, want 3 (rounds 1–3)", c.FullName(), len(c.Samples))
		}
		if c.Labels.Get("subject") == "psdb" && c.Metrics["serialized-B"] != 409 {
			t.Errorf("psdb int32 N=100 serialized to %v bytes, want 409", c.Metrics["serialized-B"])
		}
	}
	md, _ := os.ReadFile(filepath.Join(out1, "report.md"))
	for _, want := range []string{"## Workload `features`", "### Speed: ", "### Serialized size", "409 (102.2%)", "### Memory efficiency", "### Throughput", "### Raw output"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}

	if code, _, stderr := runCLI(t, append(args, "--out", out2)...); code != 0 {
		t.Fatalf("second run exit %d: %s", code, stderr)
	}
	code, stdout, stderr = runCLI(t, "compare", filepath.Join(out1, "results.jsonl"), filepath.Join(out2, "results.jsonl"))
	if code != 0 {
		t.Fatalf("compare exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "Features/subject=psdb/type=int32/n=100/op=encode") || !strings.Contains(stdout, "p=") {
		t.Errorf("compare output:\n%s", stdout)
	}

	rep := filepath.Join(dir, "rep")
	code, _, stderr = runCLI(t, "report", filepath.Join(out1, "results.jsonl"), filepath.Join(out2, "results.jsonl"), "--out", rep)
	if code != 0 {
		t.Fatalf("report exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(filepath.Join(rep, "report.html"))
	if err != nil || !strings.Contains(string(html), "<svg") || !strings.Contains(string(html), "Run 2") {
		t.Errorf("merged HTML report lacks plots or the second run (err %v)", err)
	}
}

// TestDryRunAndCompareFormats: --dry-run lists cases with an estimate and
// measures nothing; compare speaks text, Markdown and JSON.
func TestDryRunAndCompareFormats(t *testing.T) {
	code, out, stderr := runCLI(t, "run", "features", "--scale", "quick", "--dry-run", "--filter", "type=int32/")
	if code != 0 || !strings.Contains(out, "features: 42 cases in 4 processes, about ") || !strings.Contains(out, "  Features/subject=psdb/type=int32/n=100/op=encode") {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, stderr)
	}
	a, b := "../../report/testdata/run-a.jsonl", "../../report/testdata/run-b.jsonl"
	for format, want := range map[string]string{"text": "geomean", "markdown": "| case | old ns/op |", "json": `"regressions":`} {
		code, out, stderr := runCLI(t, "compare", "--format", format, "--threshold", "50", a, b)
		if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "run-a.jsonl") {
			t.Errorf("compare --format %s: exit %d, %q missing\n%s%s", format, code, want, out, stderr)
		}
	}
}

func TestListAndVersion(t *testing.T) {
	code, stdout, _ := runCLI(t, "list")
	if code != 0 || !strings.Contains(stdout, "features") || !strings.Contains(stdout, "scales: quick, default, full") {
		t.Errorf("list exit %d:\n%s", code, stdout)
	}
	_, scales, _ := strings.Cut(stdout, "\nscales:")
	for _, l := range strings.Split(scales, "\n")[1:] {
		if n := utf8.RuneCountInString(l); n > listWidth {
			t.Errorf("list: a scale line of %d characters (want ≤ %d): %q", n, listWidth, l)
		}
	}
	code, stdout, _ = runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "serbench ") {
		t.Errorf("version exit %d: %q", code, stdout)
	}
}

// TestInterruptKeepsFinishedCases cancels a run mid-way (as Ctrl-C does)
// and checks that finished cases are kept, the report is rendered and the
// exit status says "interrupted".
func TestInterruptKeepsFinishedCases(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int)
	var out, errb bytes.Buffer
	go func() {
		done <- Main(ctx, []string{"run", "features", "--scale", "quick", "--count", "3", "--benchtime", "20ms",
			"--progress", "none", "--out", dir}, &out, &errb)
	}()
	// Wait until at least two cases are on disk, then interrupt.
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(dir, "results.jsonl"))
		if strings.Count(string(b), `"kind":"case"`) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no case finished within 60s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	code := <-done
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d; stderr: %s", code, ExitInterrupted, errb.String())
	}
	if !strings.Contains(errb.String(), "interrupted: kept") {
		t.Errorf("stderr: %q", errb.String())
	}
	run, err := results.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Cases) < 2 || len(run.Cases) >= 180 {
		t.Errorf("%d cases kept, want the finished ones only", len(run.Cases))
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Errorf("no report after interrupt: %v", err)
	}
	if !run.Interrupted() || run.End == nil || run.End.Done != len(run.Cases) {
		t.Errorf("the results must record the interrupt: end %+v", run.End)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(md), "This run was stopped before it finished") {
		t.Errorf("the report must say the run was interrupted")
	}
	// --resume finishes it: every case once, the interrupted ones too.
	var out2, err2 bytes.Buffer
	if code := Main(context.Background(), []string{"run", "features", "--scale", "quick", "--count", "1", "--benchtime", "1ms",
		"--progress", "none", "--out", dir, "--filter", "n=100/", "--resume"}, &out2, &err2); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, err2.String())
	}
	run2, err := results.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, c := range run2.Cases {
		seen[c.FullName()]++
		if seen[c.FullName()] > 1 {
			t.Errorf("%s measured twice", c.FullName())
		}
	}
	if run2.Interrupted() || len(run2.Cases) <= len(run.Cases) {
		t.Errorf("resumed run: %d cases (had %d), interrupted %v", len(run2.Cases), len(run.Cases), run2.Interrupted())
	}
}

// TestShardsMergeToTheUnshardedRun runs three shards of a run locally, as
// an Indexed Job's pods would (the third through --shard auto/3 and
// $JOB_COMPLETION_INDEX), merges them with `serbench report`, and checks
// that the merged run has exactly the cases of the unsharded run, each
// comparison group whole on one shard.
func TestShardsMergeToTheUnshardedRun(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "features", "--scale", "quick", "--count", "1", "--benchtime", "1ms", "--progress", "none", "--filter", "n=100/"}
	names := func(path string) map[string]string {
		t.Helper()
		r, err := results.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, c := range r.Cases {
			out[c.FullName()] = r.Env.Shard
		}
		return out
	}
	var out, errb bytes.Buffer
	if code := Main(context.Background(), append(args, "--out", filepath.Join(dir, "all")), &out, &errb); code != 0 {
		t.Fatalf("unsharded: exit %d: %s", code, errb.String())
	}
	all := names(filepath.Join(dir, "all", "results.jsonl"))
	var files []string
	for k := 1; k <= 3; k++ {
		shard := fmt.Sprintf("%d/3", k)
		if k == 3 {
			t.Setenv("JOB_COMPLETION_INDEX", "2")
			shard = "auto/3"
		}
		sd := filepath.Join(dir, fmt.Sprintf("shard%d", k))
		if code := Main(context.Background(), append(args, "--out", sd, "--shard", shard), &out, &errb); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", shard, code, errb.String())
		}
		files = append(files, filepath.Join(sd, "results.jsonl"))
		if n := len(names(files[k-1])); n == 0 || n == len(all) {
			t.Errorf("shard %d has %d of %d cases", k, n, len(all))
		}
	}
	merged := filepath.Join(dir, "merged")
	if code := Main(context.Background(), append([]string{"report", "--out", merged}, files...), &out, &errb); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errb.String())
	}
	md, err := os.ReadFile(filepath.Join(merged, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(md), "## Workload `features`") != 1 || !strings.Contains(string(md), "3 shards merged") {
		t.Errorf("the three shards must merge into one run in the report")
	}
	seen := map[string]bool{}
	groupShard := map[string]string{}
	for _, f := range files {
		r, err := results.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Cases {
			if seen[c.FullName()] {
				t.Errorf("%s measured on two shards", c.FullName())
			}
			seen[c.FullName()] = true
			if s, ok := groupShard[c.Group]; ok && s != r.Env.Shard {
				t.Errorf("group %s split over shards %s and %s", c.Group, s, r.Env.Shard)
			}
			groupShard[c.Group] = r.Env.Shard
		}
	}
	if len(seen) != len(all) {
		t.Errorf("shards hold %d cases, the unsharded run %d", len(seen), len(all))
	}
	for n := range all {
		if !seen[n] {
			t.Errorf("%s is on no shard", n)
		}
	}
}

// TestWrap: words fill lines up to the width; a longer word has a line of
// its own; nothing is lost.
func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		s     string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"one two three", 20, []string{"one two three"}},
		{"one two three", 7, []string{"one two", "three"}},
		{"one two three", 3, []string{"one", "two", "three"}},
		{"a verylongword b", 5, []string{"a", "verylongword", "b"}},
		{"×× ×× ××", 5, []string{"×× ××", "××"}},
	} {
		if got := wrap(tc.s, tc.width); !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.s, tc.width, got, tc.want)
		}
	}
}
