package python

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	serbench "github.com/serbench/serbench"
	"github.com/serbench/serbench/runner"
)

var update = flag.Bool("update", false, "rewrite the Python tests' copy of the nested .proto descriptors")

// fixture is the copy of Descriptors() the Python runner's own tests
// (pytest, without Go) make the protobuf subject's classes from.
const fixture = "../../runners/python/tests/nested_pb.binpb"

// TestDescriptors: the descriptor set holds the three nested .proto files
// with the messages the protobuf subject binds to, and the Python tests'
// copy of it is current (go test ./runner/python -run TestDescriptors
// -update rewrites it after a .proto changed).
func TestDescriptors(t *testing.T) {
	b, err := Descriptors()
	if err != nil {
		t.Fatal(err)
	}
	set := &descriptorpb.FileDescriptorSet{}
	if err := proto.Unmarshal(b, set); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"tpch.proto": "LineItem", "media.proto": "Record", "userevents.proto": "Record"}
	for _, f := range set.File {
		m, ok := want[f.GetName()]
		if !ok {
			t.Errorf("unexpected file %s", f.GetName())
			continue
		}
		found := false
		for _, d := range f.MessageType {
			found = found || d.GetName() == m
		}
		if !found {
			t.Errorf("%s has no message %s", f.GetName(), m)
		}
		delete(want, f.GetName())
	}
	if len(want) != 0 {
		t.Errorf("missing files %v", want)
	}
	if again, _ := Descriptors(); !bytes.Equal(again, b) {
		t.Error("Descriptors is not deterministic")
	}
	if *update {
		if err := os.WriteFile(fixture, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b) {
		t.Errorf("%s is stale: go test ./runner/python -run TestDescriptors -update", fixture)
	}
}

// TestSources: the embedded tree holds the package (its __init__ and
// __main__ included, which a plain go:embed of a directory leaves out)
// and the lock file.
func TestSources(t *testing.T) {
	dir := t.TempDir()
	if err := runner.Extract(serbench.PythonRunnerSources, dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"requirements.lock", "pyproject.toml", "serbench_runner/__init__.py", "serbench_runner/__main__.py", "serbench_runner/digest.py"} {
		if _, err := os.Stat(filepath.Join(dir, "runners", "python", f)); err != nil {
			t.Error(err)
		}
	}
}

// TestBuildAndHello creates the runner's environment in a fresh cache
// (pip fetches the wheels) and asks it what it measures. It runs when
// SERBENCH_PYTHON_TEST=1 (.ci/run sets it).
func TestBuildAndHello(t *testing.T) {
	if os.Getenv("SERBENCH_PYTHON_TEST") != "1" {
		t.Skip("set SERBENCH_PYTHON_TEST=1 to prepare the Python runner")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	r, err := Build(context.Background(), t.TempDir(), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.Hello(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.Language != "python" || len(h.Subjects) == 0 {
		t.Fatalf("hello %+v", h)
	}
	// the protobuf subject found the descriptor set Build wrote
	found := false
	for _, s := range h.Subjects {
		if s.Name == "protobuf" {
			found = true
			if s.Format != "protobuf" || s.Labels["backend"] != "upb" {
				t.Errorf("protobuf subject %+v", s)
			}
		}
	}
	if !found {
		t.Error("hello has no protobuf subject")
	}
	t.Logf("%s %s: %d subjects", h.Runtime, h.RuntimeVersion, len(h.Subjects))
}
