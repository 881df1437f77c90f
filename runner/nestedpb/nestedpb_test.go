package nestedpb

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
)

var update = flag.Bool("update", false, "rewrite the runners' test copies of the nested .proto descriptors")

// fixtures are the copies of Descriptors() the runners' own tests (pytest,
// cargo test: without Go) make the protobuf subjects' messages from.
var fixtures = []string{"../../runners/python/tests/nested_pb.binpb", "../../runners/rust/tests/nested_pb.binpb"}

// TestDescriptors: the descriptor set holds the three nested .proto files
// with the messages the protobuf subjects bind to, and the runners' test
// copies of it are current (go test ./runner/nestedpb -update rewrites
// them after a .proto changed).
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
	for _, fx := range fixtures {
		if *update {
			if err := os.WriteFile(fx, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(fx)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, b) {
			t.Errorf("%s is stale: go test ./runner/nestedpb -update", fx)
		}
	}
}

// TestWrite: Write puts the set in the directory once and names it.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path, env, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if env != Env+"="+path {
		t.Errorf("env %q", env)
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() == 0 {
		t.Fatalf("%v %v", st, err)
	}
	if _, _, err := Write(dir); err != nil {
		t.Fatal(err)
	}
}
