package userdata

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/serbench/serbench/internal/jsonv"
)

// A JSON object field inferred as a map (mapRule) is stored as a list of
// {key, value} entries (EntriesType): the rows' objects at its path are
// rewritten as arrays of {"key": k, "value": v} objects before they are
// checked against the schema and appended, so that the appender
// (internal/jsonv) sees an ordinary list of structs.
//
// Why a list of entries and not Arrow's map type: the row formats of
// format/dynamic (MessagePack, CBOR, JSON Lines, Avro, protobuf) accept no
// map column ("cannot hold this data" for the column, which would leave
// only the columnar formats), the JSON appender has no map mapping, and
// the runners' schema grammar (runner-protocol.md §8) has no map type. A
// list of structs is held by every format and language, and the digest
// (§7.1) walks a map as exactly this list of key and value structs, so
// the digest of the entries is that of the map it stands for.

// reshape rewrites, in one parsed row, the objects of the map columns as
// their entry lists. A nil *reshape rewrites nothing.
type reshape struct {
	// entries marks a map column: its objects become entry lists, whose
	// values are rewritten by value (nil: nothing under them to rewrite).
	entries bool
	value   *reshape
	// fields are the struct members, by name, with a map column under
	// them; elem is the list elements, if there is one under them.
	fields map[string]*reshape
	elem   *reshape
	// keys is the member names of every entry, shared read-only.
	keys []string
	// sorted: entries are sorted by key.
	sorted bool
}

// newReshape compiles the rewriting of the schema's map columns (their
// paths, as inference names them: "a.b", list elements "a[]"); nil when
// there is none.
//
// alias, if not nil, gives the other member name a field's path may come
// under (a protobuf field's JSON name), which is rewritten the same;
// sorted sorts each map's entries by key (a protobuf map, which has no
// order).
func newReshape(s *arrow.Schema, entries map[string]bool, alias func(path string) string, sorted bool) *reshape {
	if len(entries) == 0 {
		return nil
	}
	keys := []string{"key", "value"}
	root := &reshape{fields: map[string]*reshape{}}
	for _, f := range s.Fields() {
		if c := compileReshape(f.Type, f.Name, entries, keys, alias, sorted); c != nil {
			root.fields[f.Name] = c
			addAlias(root.fields, f.Name, alias, c)
		}
	}
	if len(root.fields) == 0 {
		return nil
	}
	return root
}

// compileReshape returns the rewriting of a value of type dt at path, or
// nil if nothing under it is a map column.
func compileReshape(dt arrow.DataType, path string, entries map[string]bool, keys []string, alias func(string) string, sorted bool) *reshape {
	if entries[path] {
		r := &reshape{entries: true, keys: keys, sorted: sorted}
		if l, ok := dt.(*arrow.ListType); ok {
			if st, ok := l.Elem().(*arrow.StructType); ok && st.NumFields() == 2 {
				r.value = compileReshape(st.Field(1).Type, mapValuePath(path), entries, keys, alias, sorted)
			}
		}
		return r
	}
	switch t := dt.(type) {
	case *arrow.StructType:
		r := &reshape{fields: map[string]*reshape{}}
		for _, f := range t.Fields() {
			if c := compileReshape(f.Type, path+"."+f.Name, entries, keys, alias, sorted); c != nil {
				r.fields[f.Name] = c
				addAlias(r.fields, path+"."+f.Name, alias, c)
			}
		}
		if len(r.fields) > 0 {
			return r
		}
	case *arrow.ListType:
		if c := compileReshape(t.Elem(), path+"[]", entries, keys, alias, sorted); c != nil {
			return &reshape{elem: c}
		}
	}
	return nil
}

// addAlias files c under the alias of the field at path too.
func addAlias(fields map[string]*reshape, path string, alias func(string) string, c *reshape) {
	if alias == nil {
		return
	}
	if a := alias(path); a != "" {
		if _, taken := fields[a]; !taken {
			fields[a] = c
		}
	}
}

// apply rewrites v in place. A value of an unexpected kind is left as it
// is, for the schema check to report.
func (r *reshape) apply(v *jsonv.Value) {
	if r == nil || v.Kind == jsonv.Null {
		return
	}
	switch {
	case r.entries:
		if v.Kind != jsonv.Object {
			return
		}
		n := len(v.Keys)
		items := make([]jsonv.Value, n)
		pairs := make([]jsonv.Value, 2*n)
		for i, k := range v.Keys {
			pair := pairs[2*i : 2*i+2 : 2*i+2]
			pair[0] = jsonv.Value{Kind: jsonv.String, Text: k}
			pair[1] = v.Items[i]
			r.value.apply(&pair[1])
			items[i] = jsonv.Value{Kind: jsonv.Object, Keys: r.keys, Items: pair}
		}
		if r.sorted {
			slices.SortStableFunc(items, func(a, b jsonv.Value) int { return strings.Compare(a.Items[0].Text, b.Items[0].Text) })
		}
		*v = jsonv.Value{Kind: jsonv.Array, Items: items}
	case r.fields != nil:
		if v.Kind != jsonv.Object {
			return
		}
		for i, k := range v.Keys {
			if c := r.fields[k]; c != nil {
				c.apply(&v.Items[i])
			}
		}
	case r.elem != nil:
		if v.Kind != jsonv.Array {
			return
		}
		for i := range v.Items {
			r.elem.apply(&v.Items[i])
		}
	}
}
