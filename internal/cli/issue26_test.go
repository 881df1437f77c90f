package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/run"
)

// jsonlFile writes n JSON Lines rows of a few columns into dir/name and
// returns its path.
func jsonlFile(t *testing.T, dir, name string, n int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(26, 8))
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"id\":%d,\"score\":%d,\"ok\":%t,\"text\":\"w%dx%d\"}\n", i, r.IntN(1000), i%3 == 0, r.IntN(100), i%17)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var estimateRE = regexp.MustCompile(`(?m)^data: (\d+) cases?, about (\S+)$`)

// dryRun runs serbench run data --dry-run with args and returns the
// estimate and the cases it lists.
func dryRun(t *testing.T, tmp string, args ...string) (time.Duration, []string) {
	t.Helper()
	code, out := serbench(t, tmp, append([]string{"run", "data", "--dry-run"}, args...)...)
	m := estimateRE.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("dry run %v: exit %d\n%s", args, code, out)
	}
	d, err := time.ParseDuration(m[2])
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, l := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(l, "  "); ok {
			cases = append(cases, c)
		}
	}
	return d, cases
}

// TestDataDryRun (issue 26.8): serbench run data --dry-run refuses what
// the run refuses, in the same words and with the same exit status; plans
// the cases the run measures; and estimates from the input's rows and
// bytes, the scale's row limit, --count and --benchtime.
func TestDataDryRun(t *testing.T) {
	tmp, dir := t.TempDir(), t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"a\":1}\n{\"a\":\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	txt := filepath.Join(dir, "x.txt")
	if err := os.WriteFile(txt, []byte("{\"a\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{filepath.Join(dir, "missing.jsonl"), txt, bad} {
		code, dry := serbench(t, tmp, "run", "data", "--input", input, "--dry-run")
		rcode, real := serbench(t, tmp, "run", "data", "--input", input, "--out", filepath.Join(dir, "out"))
		if code != ExitUsage || rcode != ExitUsage || dry != real || strings.Count(dry, "\n") != 1 {
			t.Errorf("--input %s: dry run exit %d %q, run exit %d %q; want exit 2 and one and the same line", filepath.Base(input), code, dry, rcode, real)
		}
	}

	// The same cases as the run, which can't-hold cases included.
	nested := filepath.Join(userdataTestdata, "nested.jsonl")
	sel := []string{"--input", nested, "--formats", "jsonl,csv,parquet,avro-ocf", "--codecs", "none,zstd", "--scale", "quick", "--count", "1", "--benchtime", "1ms"}
	_, planned := dryRun(t, tmp, sel[:]...)
	out := filepath.Join(dir, "real")
	if code, o := serbench(t, tmp, append([]string{"run", "data", "--out", out, "--progress", "none"}, sel...)...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, o)
	}
	r, err := results.ReadFile(filepath.Join(out, run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var measured []string
	for i := range r.Cases {
		measured = append(measured, r.Cases[i].FullName())
	}
	slices.Sort(planned)
	slices.Sort(measured)
	if len(planned) < 10 || !slices.Equal(planned, measured) {
		t.Errorf("dry run planned\n%s\nthe run measured\n%s", strings.Join(planned, "\n"), strings.Join(measured, "\n"))
	}

	// Estimates grow with the input and follow the scale, --count and
	// --benchtime.
	small, big := jsonlFile(t, dir, "small.jsonl", 500), jsonlFile(t, dir, "big.jsonl", 50_000)
	est := func(input string, args ...string) time.Duration {
		d, _ := dryRun(t, tmp, append([]string{"--input", input, "--formats", "msgpack,jsonl", "--codecs", "none,gzip,xz", "--benchtime", "1ms"}, args...)...)
		return d
	}
	smallFull, bigFull := est(small, "--scale", "full"), est(big, "--scale", "full")
	bigQuick, bigDefault := est(big, "--scale", "quick"), est(big)
	if bigFull < 5*smallFull || bigQuick*3 > bigFull*2 || bigDefault != bigFull {
		t.Errorf("estimates: 500 rows %v; 50,000 rows %v at full, %v at quick (its first 10,000), %v at default (1,000,000 at most)", smallFull, bigFull, bigQuick, bigDefault)
	}
	// --count caps the samples; without a sampling target it is the count.
	if one, many := est(small, "--count", "1", "--target", "0"), est(small, "--count", "40", "--target", "0"); many < 4*one {
		t.Errorf("estimates of 500 rows: %v with --count 1, %v with --count 40", one, many)
	}
	if short, long := est(small, "--benchtime", "1ms"), est(small, "--benchtime", "20ms"); long < 4*short {
		t.Errorf("estimates of 500 rows: %v with --benchtime 1ms, %v with 20ms", short, long)
	}
}

// TestInferRows (issue 26.10): a JSON Lines column that is an integer for
// 1,500 lines and a string on line 1,501 fails a run inferring from the
// default 1,000 rows (exit 2, one line naming the line), and is measured
// with --infer-rows all; bad values are usage errors naming the forms.
func TestInferRows(t *testing.T) {
	tmp, dir := t.TempDir(), t.TempDir()
	var b strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&b, "{\"id\":%d,\"v\":%d}\n", i, i*7)
	}
	b.WriteString("{\"id\":1500,\"v\":\"late\"}\n")
	input := filepath.Join(dir, "late.jsonl")
	if err := os.WriteFile(input, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "data", "--input", input, "--formats", "jsonl", "--codecs", "none", "--scale", "quick", "--count", "1", "--benchtime", "1ms", "--progress", "none"}
	code, out := serbench(t, tmp, append(args, "--out", filepath.Join(dir, "default"))...)
	if code != ExitUsage || !strings.Contains(out, "late.jsonl:1501") || !strings.Contains(out, "--infer-rows") || strings.Count(out, "\n") != 1 {
		t.Errorf("without --infer-rows: exit %d\n%s", code, out)
	}
	code, out = serbench(t, tmp, append(args, "--out", filepath.Join(dir, "all"), "--infer-rows", "all")...)
	if code != 0 {
		t.Fatalf("--infer-rows all: exit %d\n%s", code, out)
	}
	r, err := results.ReadFile(filepath.Join(dir, "all", run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range r.Descriptors {
		if d.Key == "input" && (d.Settings["infer-rows"] != "all" || d.Settings["rows"] != "1501") {
			t.Errorf("input descriptor: %v", d.Settings)
		}
	}
	if code, out := serbench(t, tmp, append(args, "--dry-run", "--infer-rows", "2000")...); code != 0 {
		t.Errorf("--infer-rows 2000 --dry-run: exit %d\n%s", code, out)
	}
	for _, v := range []string{"0", "-1", "some", "1e3"} {
		code, out := serbench(t, tmp, append(args, "--dry-run", "--infer-rows", v)...)
		if code != ExitUsage || !strings.Contains(out, "--infer-rows") || !strings.Contains(out, "or all") {
			t.Errorf("--infer-rows %s: exit %d\n%s", v, code, out)
		}
	}
	if code, out := serbench(t, tmp, "run", "features", "--infer-rows", "all", "--dry-run"); code != ExitUsage || !strings.Contains(out, "--infer-rows") {
		t.Errorf("--infer-rows without data: exit %d\n%s", code, out)
	}
}

// TestOutputsNamedOnlyIfWritten (issue 26.11): a run whose report could
// not be written does not name it on stdout; the results file, written,
// is named.
func TestOutputsNamedOnlyIfWritten(t *testing.T) {
	tmp, out := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(out, "report.html"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, o := serbench(t, tmp, "run", "data", "--input", filepath.Join(userdataTestdata, "nested.jsonl"), "--formats", "jsonl", "--codecs", "none",
		"--scale", "quick", "--count", "1", "--benchtime", "1ms", "--progress", "none", "--out", out)
	if code != ExitFailure || regexp.MustCompile(`(?m)^report:`).MatchString(o) || !strings.Contains(o, "results: "+filepath.Join(out, run.ResultsFile)) || !strings.Contains(o, "report.html: is a directory") {
		t.Errorf("exit %d\n%s", code, o)
	}
	code, o = serbench(t, tmp, "run", "data", "--input", filepath.Join(userdataTestdata, "nested.jsonl"), "--formats", "jsonl", "--codecs", "none",
		"--scale", "quick", "--count", "1", "--benchtime", "1ms", "--progress", "none", "--out", filepath.Join(out, "ok"))
	if code != 0 || !strings.Contains(o, "report:  "+filepath.Join(out, "ok", "report.html")) {
		t.Errorf("exit %d\n%s", code, o)
	}
}

// TestHelpListVersion (issue 26.11): run --help names --shard's value K/N
// (not "serbench report"), list ends no row with a colon, and version says
// why a build without a VCS stamp has no revision.
func TestHelpListVersion(t *testing.T) {
	tmp := t.TempDir()
	_, help := serbench(t, tmp, "run", "--help")
	if !regexp.MustCompile(`--shard K/N +run only shard K/N`).MatchString(help) || strings.Contains(help, "--shard serbench") ||
		!regexp.MustCompile(`--infer-rows N\|all +data workload`).MatchString(help) {
		t.Errorf("run --help:\n%s", help)
	}
	code, list := serbench(t, tmp, "list")
	if code != 0 {
		t.Fatalf("list: exit %d\n%s", code, list)
	}
	for _, l := range strings.Split(list, "\n") {
		if strings.HasSuffix(strings.TrimSpace(l), ":") {
			t.Errorf("list row ends with a colon: %q", l)
		}
	}
	if !regexp.MustCompile(`(?m)^data\n  quick +the input's first 10,000 rows\n  default +the input's first 1,000,000 rows\n  full +the whole input$`).MatchString(list) {
		t.Errorf("list lacks the data row:\n%s", list)
	}

	stamp := &debug.BuildInfo{Main: debug.Module{Path: "github.com/serbench/serbench", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}}}
	plain := &debug.BuildInfo{Main: debug.Module{Path: "github.com/serbench/serbench", Version: "(devel)"}}
	tagged := &debug.BuildInfo{Main: debug.Module{Path: "github.com/serbench/serbench", Version: "v0.2.0"}}
	goRunExe := filepath.Join(os.TempDir(), "go-build123", "b001", "exe", "serbench")
	for _, tc := range []struct {
		bi       *debug.BuildInfo
		exe, rev string
		modified bool
		want     string
	}{
		{stamp, "/usr/bin/serbench", "abc123", true, "abc123 (modified)"},
		{tagged, "/usr/bin/serbench", "v0.2.0", false, "v0.2.0"},
		{plain, goRunExe, "", false, "revision unknown: built with go run"},
		{plain, goRunExe, "def456", true, "revision unknown: built with go run; the checkout here is at def456 (modified)"},
		{plain, "/usr/bin/serbench", "", false, "revision unknown: built without VCS stamping (-buildvcs=false, or outside a git checkout)"},
		{nil, "/usr/bin/serbench", "", false, "revision unknown: built without VCS stamping (-buildvcs=false, or outside a git checkout)"},
	} {
		if got := revisionText(tc.bi, tc.exe, tc.rev, tc.modified); got != tc.want {
			t.Errorf("revisionText(%v, %s, %q) = %q, want %q", tc.bi != nil, tc.exe, tc.rev, got, tc.want)
		}
	}
	if code, v := serbench(t, tmp, "version"); code != 0 || strings.Contains(v, "unknown revision") || !strings.Contains(v, "serbench 0.") {
		t.Errorf("version: exit %d %q", code, v)
	}
}

// TestDataJSONArray (issue 26): a .json file holding one array of objects
// (here gzip-compressed) is accepted by the dry run and measured by the
// run; a .json file whose top level is a scalar is refused by both in the
// same words.
func TestDataJSONArray(t *testing.T) {
	tmp, dir := t.TempDir(), t.TempDir()
	input := filepath.Join(userdataTestdata, "nested.json.gz")
	d, cases := dryRun(t, tmp, "--input", input, "--formats", "jsonl", "--codecs", "none")
	if d <= 0 || len(cases) == 0 {
		t.Errorf("dry run: estimate %v, cases %q", d, cases)
	}
	out := filepath.Join(dir, "out")
	code, o := serbench(t, tmp, "run", "data", "--input", input, "--formats", "jsonl", "--codecs", "none",
		"--scale", "quick", "--count", "1", "--benchtime", "1ms", "--progress", "none", "--out", out)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, o)
	}
	res, err := os.ReadFile(filepath.Join(out, run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), `"kind":"json"`) || !strings.Contains(string(res), `"rows":"5"`) {
		t.Errorf("results lack the .json input's kind and rows:\n%.2000s", res)
	}
	scalar := filepath.Join(dir, "scalar.json")
	if err := os.WriteFile(scalar, []byte("42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, dry := serbench(t, tmp, "run", "data", "--input", scalar, "--dry-run")
	rcode, real := serbench(t, tmp, "run", "data", "--input", scalar, "--out", filepath.Join(dir, "out2"))
	if code != ExitUsage || rcode != ExitUsage || dry != real || !strings.Contains(dry, "the top level is a number, not an array of objects") {
		t.Errorf("scalar .json: dry run exit %d %q, run exit %d %q", code, dry, rcode, real)
	}
}
