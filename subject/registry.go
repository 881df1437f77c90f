package subject

import (
	"fmt"
	"slices"
	"strings"
)

// Registry is the open set of Go subjects a run measures, by workload. A
// workload takes its subjects from a registry instead of a list of its
// own, so that a new serializer is one file and one Add call, and a test
// or a program built on serbench adds subjects of its own beside the
// built-in ones (serbench's command line registers the built-ins through
// each workload's Register function).
//
// Each workload's subjects have one shape, Subject[In, Ops], fixed by the
// first Add for that workload: the workload's input and operations. A
// Registry is not safe for concurrent Add; it is filled before a run plans
// and only read after.
type Registry struct {
	sets  map[string]named // workload → set[In, Ops]
	order []string
}

// set is one workload's subjects.
type set[In, Ops any] []Subject[In, Ops]

// named is what the Registry needs of a set without knowing its shape.
type named interface{ names() []string }

func (s set[In, Ops]) names() []string { return Names(s) }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{sets: map[string]named{}} }

// Add registers ss for workload, after the subjects it already holds. It
// returns an error, registering nothing, for a subject without a name or
// Bind, a name the workload already has, or subjects of another shape than
// the workload's first.
func Add[In, Ops any](r *Registry, workload string, ss ...Subject[In, Ops]) error {
	if workload == "" {
		return fmt.Errorf("subject registry: a workload name is needed")
	}
	var have set[In, Ops]
	if cur, ok := r.sets[workload]; ok {
		if have, ok = cur.(set[In, Ops]); !ok {
			return fmt.Errorf("subject registry: %s's subjects are %s, not %T", workload, shapeOf(cur), Subject[In, Ops]{})
		}
	}
	next := slices.Clone(have)
	for _, s := range ss {
		switch {
		case s.Name() == "":
			return fmt.Errorf("subject registry: %s: a subject needs a name", workload)
		case s.Bind == nil:
			return fmt.Errorf("subject registry: %s: subject %s has no Bind", workload, s.Name())
		case slices.ContainsFunc(next, func(o Subject[In, Ops]) bool { return o.Name() == s.Name() }):
			return fmt.Errorf("subject registry: %s already has a subject named %s", workload, s.Name())
		}
		next = append(next, s)
	}
	if _, ok := r.sets[workload]; !ok {
		r.order = append(r.order, workload)
	}
	r.sets[workload] = next
	return nil
}

// For returns workload's subjects in registration order (a copy: the
// caller may change it), none when the workload has none, or an error
// when they have another shape.
func For[In, Ops any](r *Registry, workload string) ([]Subject[In, Ops], error) {
	cur, ok := r.sets[workload]
	if !ok {
		return nil, nil
	}
	ss, ok := cur.(set[In, Ops])
	if !ok {
		return nil, fmt.Errorf("subject registry: %s's subjects are %s, not %T", workload, shapeOf(cur), Subject[In, Ops]{})
	}
	return slices.Clone([]Subject[In, Ops](ss)), nil
}

// Names returns the names of workload's subjects in registration order.
func (r *Registry) Names(workload string) []string {
	cur, ok := r.sets[workload]
	if !ok {
		return nil
	}
	return cur.names()
}

// Workloads returns the workloads that have subjects, in the order their
// first subject was added.
func (r *Registry) Workloads() []string { return slices.Clone(r.order) }

// shapeOf names the subject type of a registered set.
func shapeOf(s named) string {
	return strings.Replace(fmt.Sprintf("%T", s), "subject.set[", "subject.Subject[", 1)
}

// Of returns workload's subjects in r, as For does; a nil r stands for a
// registry holding only the workload's built-in subjects, builtin (a
// workload built without a registry, as tests build them).
func Of[In, Ops any](r *Registry, workload string, builtin func() []Subject[In, Ops]) ([]Subject[In, Ops], error) {
	if r == nil {
		return builtin(), nil
	}
	return For[In, Ops](r, workload)
}
