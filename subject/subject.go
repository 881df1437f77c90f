// Package subject holds the one shape every Go workload gives an
// implementation under test.
//
// A Subject is two things. Desc is what the run records about it — name,
// role (subject, baseline, limit row), library and version, the fairness
// settings — as a results.Descriptor: the same record a runner in another
// language reports for its subjects, so that Go subjects and runner subjects
// are described, grouped and footnoted in the report's tables by the same
// code. Bind prepares the operations the workload times for one input,
// outside any timed region: the messages a library needs built from the
// dataset, reusable buffers, per-goroutine state.
//
// The operations themselves (Ops) are the workload's, because the workloads
// time different things: a feature block's encode and decode, an envelope's
// marshal and header-only read, one nested record's marshal and unmarshal.
// Streaming file formats (records, data) are format.Format values wrapped the
// same way by their workloads.
package subject

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/serbench/serbench/results"
)

// Subject is one implementation under test. In is the input the workload
// binds it to; Ops the operations Bind returns for that input.
type Subject[In, Ops any] struct {
	// Desc describes the subject in results. Its Workload may be left
	// empty: Describe fills it.
	Desc results.Descriptor
	// Takes lists the kinds of input the subject measures (for features,
	// the value types); empty means every kind.
	Takes []string
	// Bind prepares the subject's operations for in. It runs outside any
	// timed region and returns an error for an input it cannot take.
	Bind func(in In) (Ops, error)
}

// Name is the subject's name, the value of its subject label in results.
func (s Subject[In, Ops]) Name() string { return s.Desc.Name }

// Accepts reports whether the subject measures inputs of kind.
func (s Subject[In, Ops]) Accepts(kind string) bool {
	return len(s.Takes) == 0 || slices.Contains(s.Takes, kind)
}

// Describe returns the subject's descriptor for workload: a copy of Desc
// with Workload set and its Settings and Tags copied, so the caller may
// change them without touching the subject.
func (s Subject[In, Ops]) Describe(workload string) results.Descriptor {
	d := s.Desc
	d.Workload = workload
	d.Settings = maps.Clone(s.Desc.Settings)
	d.Tags = slices.Clone(s.Desc.Tags)
	return d
}

// With returns a copy of s whose Bind is bind: a variant of a subject that
// prepares its operations differently (a projection, a fault injected by a
// test) under the same or an adjusted description.
func (s Subject[In, Ops]) With(bind func(in In) (Ops, error)) Subject[In, Ops] {
	s.Desc = s.Describe(s.Desc.Workload)
	s.Takes = slices.Clone(s.Takes)
	s.Bind = bind
	return s
}

// Names returns the subjects' names in order.
func Names[In, Ops any](ss []Subject[In, Ops]) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name()
	}
	return out
}

// Lookup returns the subject of ss named name, or an error naming the
// valid names.
func Lookup[In, Ops any](ss []Subject[In, Ops], name string) (Subject[In, Ops], error) {
	for _, s := range ss {
		if s.Name() == name {
			return s, nil
		}
	}
	return Subject[In, Ops]{}, fmt.Errorf("unknown subject %q (valid: %s)", name, strings.Join(Names(ss), ", "))
}
