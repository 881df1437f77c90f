package cli

import (
	"github.com/serbench/serbench/runner"
	"io"
	"slices"
	"testing"
)

// TestSubjects checks the command line's registry: the built-in
// subjects register without a clash, and every workload measuring a
// registry lists the same subjects as when built alone.
func TestSubjects(t *testing.T) {
	reg, err := Subjects()
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.Workloads()) == 0 {
		t.Fatal("no workload registered a subject")
	}
	alone := map[string][]string{}
	for _, w := range workloadsLogging(io.Discard, nil) {
		alone[w.Name()] = w.Subjects()
	}
	for _, w := range workloadsLogging(io.Discard, reg) {
		if got := w.Subjects(); !slices.Equal(got, alone[w.Name()]) {
			t.Errorf("%s measuring the registry lists %v, alone %v", w.Name(), got, alone[w.Name()])
		}
	}
	for _, name := range reg.Workloads() {
		if len(reg.Names(name)) == 0 {
			t.Errorf("%s registered no subject", name)
		}
	}
	// Every workload takes its Go subjects from the registry, and the
	// runners serbench ships are in it too.
	for _, w := range workloadsLogging(io.Discard, reg) {
		if len(reg.Names(w.Name())) == 0 {
			t.Errorf("%s has no subjects in the registry", w.Name())
		}
	}
	if got := reg.Names(runner.RegistryKey); !slices.Equal(got, []string{"jvm", "python", "rust"}) {
		t.Errorf("runners in the registry: %v", got)
	}
}
