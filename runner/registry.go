package runner

import (
	"context"
	"fmt"
	"io"

	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/subject"
)

// RegistryKey is the subject registry's key for runners: a runner is
// registered once, beside the Go subjects, and every workload that joins
// runners (records, nested, data) asks it for its subjects.
const RegistryKey = "runners"

// Place is what a runner subject is bound to: the cache it is built into
// and, when Build is set, the log its build writes progress to. Bind with
// Build unset only finds a build already in the cache (Source.Find).
type Place struct {
	// Ctx bounds the build.
	Ctx context.Context
	// CacheDir is serbench's cache directory.
	CacheDir string
	// Log takes the build's progress (Build only).
	Log io.Writer
	// Build is set to build the runner when its cache has none.
	Build bool
}

// Registered is a runner as a registry subject: Desc names it (the language
// its hello announces and whether the user added it are settings), Bind
// finds or builds it.
type Registered = subject.Subject[Place, *Runner]

// Descriptor settings of a runner subject.
const (
	settingLanguage = "language"
	settingFrom     = "from"
	fromUser        = "user"
	fromBuiltIn     = "serbench"
)

// AsSubject returns s as a registry subject.
func (s Source) AsSubject() Registered {
	from := fromBuiltIn
	if s.User {
		from = fromUser
	}
	mk, find := s.Make, s.Find
	return Registered{
		Desc: results.Descriptor{Name: s.Name, Role: results.RoleSubject, What: "runner " + s.Name,
			Settings: map[string]string{settingLanguage: s.Language, settingFrom: from}},
		Bind: func(p Place) (*Runner, error) {
			if p.Build {
				return mk(p.Ctx, p.CacheDir, p.Log)
			}
			return find(p.Ctx, p.CacheDir)
		},
	}
}

// SourceOf returns the runner source a registry subject holds.
func SourceOf(sub Registered) Source {
	bind := sub.Bind
	return Source{
		Name:     sub.Name(),
		Language: sub.Desc.Settings[settingLanguage],
		User:     sub.Desc.Settings[settingFrom] == fromUser,
		Make: func(ctx context.Context, dir string, log io.Writer) (*Runner, error) {
			return bind(Place{Ctx: ctx, CacheDir: dir, Log: log, Build: true})
		},
		Find: func(ctx context.Context, dir string) (*Runner, error) {
			return bind(Place{Ctx: ctx, CacheDir: dir})
		},
	}
}

// Register adds the runners ss to r, after those it holds; a name r has
// already is an error and adds none of them.
func Register(r *subject.Registry, ss ...Source) error {
	subs := make([]Registered, len(ss))
	for i, s := range ss {
		if s.Make == nil || s.Find == nil {
			return fmt.Errorf("runner %s: a source needs Make and Find", s.Name)
		}
		subs[i] = s.AsSubject()
	}
	return subject.Add(r, RegistryKey, subs...)
}

// Sources returns the runners of r in registration order.
func Sources(r *subject.Registry) ([]Source, error) {
	subs, err := subject.For[Place, *Runner](r, RegistryKey)
	if err != nil {
		return nil, err
	}
	out := make([]Source, len(subs))
	for i, s := range subs {
		out[i] = SourceOf(s)
	}
	return out, nil
}
