package runner

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAvailableBuildsAtOnce: Get builds every runner at the same time (two
// builds that each wait for the other to start both finish), then asks
// their hellos in order; a build that fails is one line and the others
// are kept.
func TestAvailableBuildsAtOnce(t *testing.T) {
	var started sync.WaitGroup
	started.Add(2)
	fake := func(name string) Source {
		return Source{Name: name, Language: name,
			Make: func(ctx context.Context, _ string, log io.Writer) (*Runner, error) {
				started.Done()
				waited := make(chan struct{})
				go func() { started.Wait(); close(waited) }()
				select {
				case <-waited:
				case <-time.After(20 * time.Second):
					return nil, errors.New("built alone: the other build never started")
				}
				return &Runner{Name: name, Command: []string{os.Args[0]}, Env: []string{"SERBENCH_FAKE_RUNNER=ok"}, Silence: 20 * time.Second}, nil
			},
			Find: func(context.Context, string) (*Runner, error) { return nil, ErrNotBuilt }}
	}
	broken := Source{Name: "broken", Language: "broken",
		Make: func(context.Context, string, io.Writer) (*Runner, error) {
			return nil, errors.New("mvn: build failure")
		},
		Find: func(context.Context, string) (*Runner, error) { return nil, ErrNotBuilt }}
	var log strings.Builder
	a := &Available{Sources: []Source{fake("one"), broken, fake("two")}, CacheDir: t.TempDir(), Log: &log}
	ready := a.Get(context.Background())
	if len(ready) != 2 || ready[0].Hello.Language != "one" || ready[1].Hello.Language != "two" {
		t.Fatalf("ready: %+v (log %q)", ready, log.String())
	}
	if got := log.String(); got != "serbench: the broken subjects are skipped: mvn: build failure\n" {
		t.Errorf("log %q", got)
	}
}
