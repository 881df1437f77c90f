package jvm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	serbench "github.com/serbench/serbench"
	"github.com/serbench/serbench/runner"
)

// TestSources: the embedded tree holds the Maven project and, where its
// pom looks for them (../../dataset/nested), the .proto files it
// compiles; its hash is stable.
func TestSources(t *testing.T) {
	dir := t.TempDir()
	if err := runner.Extract(serbench.RunnerSources, dir); err != nil {
		t.Fatal(err)
	}
	pom := filepath.Join(dir, "runners", "jvm", "pom.xml")
	if _, err := os.Stat(pom); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"tpch/pb/tpch.proto", "media/pb/media.proto", "userevents/pb/userevents.proto"} {
		if _, err := os.Stat(filepath.Join(dir, "runners", "jvm", "..", "..", "dataset", "nested", p)); err != nil {
			t.Error(err)
		}
	}
	a, err := runner.Hash(serbench.RunnerSources)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := runner.Hash(serbench.RunnerSources)
	if a != b || len(a) != 64 {
		t.Errorf("hash %q then %q", a, b)
	}
}

// TestBuildAndHello builds the runner from the embedded sources into a
// fresh cache (minutes the first time: Maven fetches the libraries) and
// asks it what it measures. It runs when SERBENCH_JVM_TEST=1 and java
// and mvn are installed (.ci/run sets it).
func TestBuildAndHello(t *testing.T) {
	if os.Getenv("SERBENCH_JVM_TEST") != "1" {
		t.Skip("set SERBENCH_JVM_TEST=1 to build the JVM runner")
	}
	for _, tool := range []string{"java", "mvn"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	r, err := Build(context.Background(), t.TempDir(), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.Hello(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.Language != "java" || len(h.Subjects) == 0 {
		t.Fatalf("hello %+v", h)
	}
	for _, s := range h.Subjects {
		if s.Library == "" || s.Version == "" {
			t.Errorf("subject %s announces no library version: %+v", s.Name, s)
		}
	}
	t.Logf("%s %s: %d subjects", h.Runtime, h.RuntimeVersion, len(h.Subjects))
}
