package runner

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// A Source makes one runner available: it finds or builds it (Make) so
// that its hello can be asked.
type Source struct {
	// Name is the runner's name ("jvm", "python").
	Name string
	// Make returns the runner, building it into cacheDir on first use;
	// progress goes to log. An error means the runner cannot run here
	// (its toolchain is missing, its build failed): its subjects are
	// skipped with the error as the one line that says why.
	Make func(ctx context.Context, cacheDir string, log io.Writer) (*Runner, error)
}

// Ready is a runner that answered its hello.
type Ready struct {
	Runner *Runner
	Hello  *Hello
}

// Available holds a run's runners for other languages. They are built
// and asked for their hello by the first workload that plans with them,
// once per run; a runner that cannot run costs one line on Log.
type Available struct {
	Sources  []Source
	CacheDir string
	Log      io.Writer

	once  sync.Once
	ready []Ready
}

// Get returns the runners that answered, building them the first time.
func (a *Available) Get(ctx context.Context) []Ready {
	if a == nil {
		return nil
	}
	a.once.Do(func() {
		for _, s := range a.Sources {
			r, err := s.Make(ctx, a.CacheDir, a.Log)
			if err == nil {
				var h *Hello
				if h, err = r.Hello(ctx); err == nil {
					a.ready = append(a.ready, Ready{Runner: r, Hello: h})
					continue
				}
			}
			fmt.Fprintf(a.Log, "serbench: the %s subjects are skipped: %v\n", s.Name, err)
		}
	})
	return a.ready
}
