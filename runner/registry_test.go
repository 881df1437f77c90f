package runner

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/serbench/serbench/subject"
)

// TestRunnerRegistry: runners go into the subject registry and come back
// as the sources they were, Make building and Find only finding; a name
// registered twice is refused and adds nothing.
func TestRunnerRegistry(t *testing.T) {
	var built, found int
	shipped := Source{Name: "jvm", Language: "java",
		Make: func(context.Context, string, io.Writer) (*Runner, error) { built++; return &Runner{Name: "jvm"}, nil },
		Find: func(context.Context, string) (*Runner, error) { found++; return &Runner{Name: "jvm"}, nil }}
	r := subject.NewRegistry()
	if err := Register(r, shipped, User("node", []string{"node", "r.mjs"})); err != nil {
		t.Fatal(err)
	}
	ss, err := Sources(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 || ss[0].Name != "jvm" || ss[0].Language != "java" || ss[0].User || ss[1].Name != "node" || !ss[1].User {
		t.Fatalf("Sources = %+v", ss)
	}
	if _, err := ss[0].Make(context.Background(), t.TempDir(), io.Discard); err != nil || built != 1 || found != 0 {
		t.Errorf("Make: err %v, built %d, found %d", err, built, found)
	}
	if _, err := ss[0].Find(context.Background(), t.TempDir()); err != nil || built != 1 || found != 1 {
		t.Errorf("Find: err %v, built %d, found %d", err, built, found)
	}
	n, err := ss[1].Find(context.Background(), "")
	if err != nil || strings.Join(n.Command, " ") != "node r.mjs" {
		t.Errorf("the user's runner: %+v, %v", n, err)
	}
	if err := Register(r, User("py2", []string{"x"}), User("node", []string{"y"})); err == nil || !strings.Contains(err.Error(), "node") {
		t.Errorf("a second node: %v", err)
	}
	if got := r.Names(RegistryKey); strings.Join(got, ",") != "jvm,node" {
		t.Errorf("after a refused Register: %v", got)
	}
	if err := Register(r, Source{Name: "half"}); err == nil {
		t.Error("a source without Make and Find was registered")
	}
}
