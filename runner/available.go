package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// ErrNotBuilt is Find's error for a runner whose build is not in the cache
// yet.
var ErrNotBuilt = errors.New("not built yet")

// NotBuiltError is Find's error for a runner not built yet whose
// toolchain is here: Toolchain says what was found ("rustc 1.95.0"), so
// that `serbench list` tells a runner that its first run builds from one
// that cannot run here. It wraps ErrNotBuilt.
type NotBuiltError struct {
	Runner, Toolchain string
}

func (e *NotBuiltError) Error() string {
	return fmt.Sprintf("%s runner: not built yet (toolchain found: %s)", e.Runner, e.Toolchain)
}

// Unwrap is ErrNotBuilt.
func (e *NotBuiltError) Unwrap() error { return ErrNotBuilt }

// A Source makes one runner available: it finds or builds it (Make) so
// that its hello can be asked.
type Source struct {
	// Name is the runner's name ("jvm", "python").
	Name string
	// Language is the language its hello announces ("java"), which
	// prefixes its subjects' names and which --subject accepts for all of
	// them before the runner has said hello. A user's runner (User) is
	// named and prefixed by Name, whatever its hello says.
	Language string
	// User is set for a runner the user added (User), not one serbench
	// ships.
	User bool
	// Make returns the runner, building it into cacheDir on first use;
	// progress goes to log. An error means the runner cannot run here
	// (its toolchain is missing, its build failed): its subjects are
	// skipped with the error as the one line that says why.
	Make func(ctx context.Context, cacheDir string, log io.Writer) (*Runner, error)
	// Find returns the runner when its build for these sources is in
	// cacheDir, building nothing; its error wraps ErrNotBuilt when the
	// cache has none, as Make's does when the runner cannot run here.
	Find func(ctx context.Context, cacheDir string) (*Runner, error)
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
	// NoBuild asks only the runners already built (Source.Find) for
	// their hello, as a dry run does: a runner not built yet is left out
	// and named by Unbuilt, not built.
	NoBuild bool

	once    sync.Once
	ready   []Ready
	unbuilt []string
}

// Peek is a's runners as a dry run sees them: the same sources and
// cache, building none (NoBuild).
func (a *Available) Peek() *Available {
	if a == nil {
		return nil
	}
	return &Available{Sources: a.Sources, CacheDir: a.CacheDir, Log: a.Log, NoBuild: true}
}

// Unbuilt names the runners Get left out because NoBuild is set and
// their build is not in the cache yet.
func (a *Available) Unbuilt() []string {
	if a == nil {
		return nil
	}
	return a.unbuilt
}

// Get returns the runners that answered, building them the first time
// (with NoBuild, only those already built).
func (a *Available) Get(ctx context.Context) []Ready {
	if a == nil {
		return nil
	}
	a.once.Do(func() {
		// The runners are built at once, each in its own goroutine: a
		// first run's builds (Maven, a venv, cargo) overlap instead of
		// adding up. Their hellos are asked after, in order.
		log := &lockedWriter{w: a.Log}
		runners := make([]*Runner, len(a.Sources))
		errs := make([]error, len(a.Sources))
		var wg sync.WaitGroup
		for i, s := range a.Sources {
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch {
				case !a.NoBuild:
					runners[i], errs[i] = s.Make(ctx, a.CacheDir, log)
				case s.Find == nil:
					errs[i] = ErrNotBuilt
				default:
					runners[i], errs[i] = s.Find(ctx, a.CacheDir)
				}
			}()
		}
		wg.Wait()
		for i, s := range a.Sources {
			r, err := runners[i], errs[i]
			if errors.Is(err, ErrNotBuilt) {
				a.unbuilt = append(a.unbuilt, s.Name)
				continue
			}
			if err == nil {
				var h *Hello
				if h, err = r.Hello(ctx); err == nil {
					if s.Language != "" {
						h.Language = s.Language
					}
					for i := range h.Subjects {
						h.Subjects[i].User = s.User
					}
					a.ready = append(a.ready, Ready{Runner: r, Hello: h})
					continue
				}
			}
			fmt.Fprintf(log, "serbench: the %s subjects are skipped: %v\n", s.Name, err)
		}
	})
	return a.ready
}

// Languages are the languages of a's sources: what --subject accepts for
// all of a runner's subjects.
func (a *Available) Languages() []string {
	if a == nil {
		return nil
	}
	var out []string
	for _, s := range a.Sources {
		if s.Language != "" {
			out = append(out, s.Language)
		}
	}
	return out
}

// User is the source of a runner the user names on the command line or in
// a project file: command (its words) started as it is. Its subjects are
// name:subject and its language column name, whatever its hello says.
func User(name string, command []string) Source {
	mk := func(context.Context, string) (*Runner, error) {
		return &Runner{Name: name, Command: slices.Clone(command)}, nil
	}
	return Source{Name: name, Language: name, User: true,
		Make: func(ctx context.Context, dir string, _ io.Writer) (*Runner, error) { return mk(ctx, dir) },
		Find: mk}
}

// SplitCommand splits a command line into words: blanks separate words,
// single quotes keep everything up to the next single quote, double
// quotes everything up to the next unescaped double quote, and a
// backslash outside single quotes escapes the next character. No
// variables, globs or redirections: the words are the command.
func SplitCommand(s string) ([]string, error) {
	var (
		words []string
		cur   []rune
		in    bool // a word has started (an empty "" is a word)
		quote rune
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur = append(cur, r)
			}
		case r == '\\' && quote != '\'':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("command %q ends in a backslash", s)
			}
			i++
			cur, in = append(cur, rs[i]), true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur = append(cur, r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words, cur, in = append(words, string(cur)), nil, false
			}
		default:
			cur, in = append(cur, r), true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("command %q has an unclosed %c", s, quote)
	}
	if in {
		words = append(words, string(cur))
	}
	return words, nil
}

// lockedWriter serializes the writes of concurrent builds to one log, so
// that each line stays whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return len(p), nil
	}
	return l.w.Write(p)
}
