// Package examples holds deployment examples (Kubernetes, GitHub Actions)
// and the test that keeps them consistent with the CLI.
package examples

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestKubernetesJob checks the Indexed Job against what `--shard auto/N`
// needs: Indexed completion mode, completions = parallelism = N.
func TestKubernetesJob(t *testing.T) {
	b, err := os.ReadFile("kubernetes/job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, "completionMode: Indexed") {
		t.Error("the Job must be Indexed: JOB_COMPLETION_INDEX is set only then")
	}
	n := regexp.MustCompile(`"--shard", "auto/(\d+)"`).FindStringSubmatch(s)
	c := regexp.MustCompile(`completions: (\d+)`).FindStringSubmatch(s)
	p := regexp.MustCompile(`parallelism: (\d+)`).FindStringSubmatch(s)
	if n == nil || c == nil || p == nil || n[1] != c[1] || c[1] != p[1] {
		t.Errorf("--shard auto/N, completions and parallelism must agree: %v %v %v", n, c, p)
	}
	if strings.Contains(s, "\t") {
		t.Error("YAML must not contain tabs")
	}
}

// TestGitHubMatrix checks that the matrix lists shards 1…N for the N the
// command line names.
func TestGitHubMatrix(t *testing.T) {
	b, err := os.ReadFile("github-actions/matrix.yml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	m := regexp.MustCompile(`shard: \[([\d, ]+)\]`).FindStringSubmatch(s)
	n := regexp.MustCompile(`--shard \$\{\{ matrix.shard \}\}/(\d+)`).FindStringSubmatch(s)
	if m == nil || n == nil {
		t.Fatalf("matrix %v, --shard %v", m, n)
	}
	want, _ := strconv.Atoi(n[1])
	ks := strings.Split(m[1], ",")
	if len(ks) != want {
		t.Errorf("matrix has %d shards, the command line says %d", len(ks), want)
	}
	for i, k := range ks {
		if strings.TrimSpace(k) != strconv.Itoa(i+1) {
			t.Errorf("matrix entry %d is %q, want %d", i, k, i+1)
		}
	}
	if !strings.Contains(s, "serbench report shards/*/results.jsonl") {
		t.Error("the last job must merge the shards with serbench report")
	}
	if strings.Contains(s, "\t") {
		t.Error("YAML must not contain tabs")
	}
}

// TestGitHubPRGate checks that the pull-request workflow counts both
// sides with the same command line and gates on instructions.
func TestGitHubPRGate(t *testing.T) {
	b, err := os.ReadFile("github-actions/pr-instructions.yml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	runs := regexp.MustCompile(`serbench run (.*) --out `).FindAllStringSubmatch(s, -1)
	if len(runs) != 2 || runs[0][1] != runs[1][1] {
		t.Fatalf("base and head must be counted by the same command line: %v", runs)
	}
	if !strings.Contains(runs[0][1], "--metric instructions") {
		t.Error("the runs must count instructions")
	}
	if !strings.Contains(s, "compare --metric instructions --fail-on-regression base/results.jsonl head/results.jsonl") {
		t.Error("the gate must compare base with head on instructions")
	}
	if strings.Contains(s, "\t") {
		t.Error("YAML must not contain tabs")
	}
}
