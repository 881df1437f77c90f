package nested

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// fieldKind is how a projected field is copied.
type fieldKind uint8

const (
	kindLeaf     fieldKind = iota // copy the value (cloning slices and pointers)
	kindStruct                    // recurse into the struct
	kindRepeated                  // slice of structs: keep every element, recurse into each
	kindOptional                  // pointer to struct: keep presence, recurse
)

// pfield is one selected field of a struct node.
type pfield struct {
	index int
	kind  fieldKind
	child *node // for every kind but kindLeaf
}

// node is the selection within one struct type.
type node struct {
	fields []pfield
}

// find returns the selected field with index i, or nil.
func (n *node) find(i int) *pfield {
	for j := range n.fields {
		if n.fields[j].index == i {
			return &n.fields[j]
		}
	}
	return nil
}

// Projector projects records of T onto a fixed set of leaves. Build one with
// NewProjector and reuse it; it is read-only and safe for concurrent use.
type Projector[T any] struct {
	root   *node
	leaves []string
}

// fieldByName returns the index and type of the field of struct type t named
// name (see the package comment).
func fieldByName(t reflect.Type, name string) (int, reflect.Type, bool) {
	for i := range t.NumField() {
		if n, ok := fieldName(t.Field(i)); ok && n == name {
			return i, t.Field(i).Type, true
		}
	}
	return 0, nil, false
}

// add selects the leaf at path in n, a node of struct type t.
func (n *node) add(t reflect.Type, path string) error {
	parts := strings.Split(path, ".")
	for k, name := range parts {
		i, ft, ok := fieldByName(t, name)
		if !ok {
			return fmt.Errorf("%s has no field %q", t, name)
		}
		last := k == len(parts)-1
		g := group(ft)
		switch {
		case last && g != nil:
			return fmt.Errorf("%q names a group, not a leaf", strings.Join(parts[:k+1], "."))
		case last:
			if err := checkLeaf(path, ft); err != nil {
				return err
			}
			if n.find(i) == nil {
				n.fields = append(n.fields, pfield{index: i, kind: kindLeaf})
			}
			return nil
		case g == nil:
			return fmt.Errorf("%q is a leaf, not a group", strings.Join(parts[:k+1], "."))
		}
		pf := n.find(i)
		if pf == nil {
			kind := kindStruct
			switch ft.Kind() {
			case reflect.Slice:
				kind = kindRepeated
			case reflect.Pointer:
				kind = kindOptional
			}
			n.fields = append(n.fields, pfield{index: i, kind: kind, child: &node{}})
			pf = &n.fields[len(n.fields)-1]
		}
		n, t = pf.child, g
	}
	return fmt.Errorf("empty leaf path")
}

// sortFields orders every node's fields by index, so projection walks a record
// in schema order.
func (n *node) sortFields() {
	slices.SortFunc(n.fields, func(a, b pfield) int { return a.index - b.index })
	for _, f := range n.fields {
		if f.child != nil {
			f.child.sortFields()
		}
	}
}

// NewProjector returns a projector of T onto leaves, dotted leaf paths as
// Leaves returns them, in any order, duplicates allowed. It returns an error
// naming the first path that is not a leaf of T.
func NewProjector[T any](leaves []string) (*Projector[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("nested: %s is not a struct type", t)
	}
	root := &node{}
	for _, l := range leaves {
		if err := root.add(t, l); err != nil {
			return nil, fmt.Errorf("nested: leaf %q of %s: %w", l, t, err)
		}
	}
	root.sortFields()
	return &Projector[T]{root: root, leaves: slices.Clone(leaves)}, nil
}

// Leaves returns the leaves the projector was built with.
func (p *Projector[T]) Leaves() []string { return slices.Clone(p.leaves) }

// Project returns rec with only the projector's leaves set and every other
// field zero. Groups on the way to a selected leaf are kept as they are in
// rec: every element of a repeated group (so projecting "devices.mac" keeps
// every device, each with only its mac), and the presence of an optional
// group. A repeated group with no selected leaf is nil. The result shares no
// memory with rec.
func (p *Projector[T]) Project(rec *T) T {
	var out T
	project(reflect.ValueOf(&out).Elem(), reflect.ValueOf(rec).Elem(), p.root)
	return out
}

// project copies the fields selected by n from src to dst, both structs of the
// node's type.
func project(dst, src reflect.Value, n *node) {
	for _, f := range n.fields {
		s, d := src.Field(f.index), dst.Field(f.index)
		switch f.kind {
		case kindLeaf:
			switch s.Kind() {
			case reflect.Slice:
				if s.Len() > 0 {
					c := reflect.MakeSlice(s.Type(), s.Len(), s.Len())
					reflect.Copy(c, s)
					d.Set(c)
				}
			case reflect.Pointer:
				if !s.IsNil() {
					c := reflect.New(s.Type().Elem())
					c.Elem().Set(s.Elem())
					d.Set(c)
				}
			default:
				d.Set(s)
			}
		case kindStruct:
			project(d, s, f.child)
		case kindRepeated:
			if s.Len() > 0 {
				c := reflect.MakeSlice(s.Type(), s.Len(), s.Len())
				for i := range s.Len() {
					project(c.Index(i), s.Index(i), f.child)
				}
				d.Set(c)
			}
		case kindOptional:
			if !s.IsNil() {
				c := reflect.New(s.Type().Elem())
				project(c.Elem(), s.Elem(), f.child)
				d.Set(c)
			}
		}
	}
}

// Project returns rec projected onto leaves (see Projector.Project). Build a
// Projector once to project many records.
func Project[T any](rec *T, leaves []string) (T, error) {
	p, err := NewProjector[T](leaves)
	if err != nil {
		var zero T
		return zero, err
	}
	return p.Project(rec), nil
}
