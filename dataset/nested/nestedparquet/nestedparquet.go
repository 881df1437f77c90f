// Package nestedparquet builds the Parquet read schemas of sub-schema reads:
// the schema parquet-go derives from a record type, pruned to a set of leaves,
// so that a parquet.GenericReader of the full record type reads only those
// columns and leaves every other field zero — the file-side counterpart of
// nested.Projector.
package nestedparquet

import (
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/serbench/serbench/dataset/nested"
)

// sel is a selection tree: the selected children of a group, nil for a leaf.
type sel map[string]sel

// Schema returns the schema of T (parquet.SchemaOf) keeping only leaves, dotted
// leaf paths as nested.Leaves[T] returns them. Pass it to
// parquet.NewGenericReader[T] as an option to read just those columns; the
// records read equal nested.Project of the full records (tested for the
// datasets). It fails when a path is not a leaf of T or leaves is empty.
//
// parquet-go reads through a schema other than the file's by converting row
// groups, which reads only the selected columns but costs time per value:
// reading all 34 leaves of userevents through a pruned schema took twice as
// long as through the file's own. So when leaves select every leaf, Schema
// returns parquet.SchemaOf(T) itself, which the reader recognises as the
// file's schema.
func Schema[T any](leaves []string) (*parquet.Schema, error) {
	if _, err := nested.NewProjector[T](leaves); err != nil {
		return nil, err
	}
	if len(leaves) == 0 {
		return nil, fmt.Errorf("nestedparquet: no leaves selected")
	}
	root := sel{}
	for _, l := range leaves {
		s := root
		for _, name := range strings.Split(l, ".") {
			if s[name] == nil {
				s[name] = sel{}
			}
			s = s[name]
		}
	}
	full := parquet.SchemaOf(new(T))
	if len(root) > 0 && covers(root, nested.Leaves[T]()) {
		return full, nil
	}
	g, err := prune(full, root, "")
	if err != nil {
		return nil, err
	}
	return parquet.NewSchema(full.Name(), g), nil
}

// covers reports whether selection s holds every one of leaves.
func covers(s sel, leaves []string) bool {
	for _, l := range leaves {
		c := s
		for _, name := range strings.Split(l, ".") {
			if c = c[name]; c == nil {
				return false
			}
		}
	}
	return true
}

// prune returns node keeping only the fields selected by s (all of a leaf).
func prune(node parquet.Node, s sel, path string) (parquet.Node, error) {
	if node.Leaf() {
		return node, nil
	}
	g := parquet.Group{}
	for _, f := range node.Fields() {
		cs, ok := s[f.Name()]
		if !ok {
			continue
		}
		child, err := prune(f, cs, path+f.Name()+".")
		if err != nil {
			return nil, err
		}
		g[f.Name()] = child
	}
	if len(g) != len(s) {
		return nil, fmt.Errorf("nestedparquet: %s: selection does not match the parquet schema", path)
	}
	var out parquet.Node = g
	switch {
	case node.Repeated():
		out = parquet.Repeated(out)
	case node.Optional():
		out = parquet.Optional(out)
	}
	return out, nil
}
