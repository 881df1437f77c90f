package nested

import (
	"fmt"
	"reflect"
	"strings"
)

// A projection struct is the row formats' cheap native skipping for the
// reflection-driven decoders (encoding/json, goccy/go-json, fxamacker/cbor):
// a Go struct type built at run time (reflect.StructOf) with only the
// query's fields of T, their tags kept, so the decoder skips every other
// key without allocating its value; the decoded value is then copied into
// T's fields (one reflect store per queried field and record). The decoder
// still scans the skipped bytes: what it saves is building the values.
// msgpack (generated code), Protocol Buffers (generated messages) and EDN
// have no such path here and stay decode+project.

// projStruct is the projection struct of a query: its type and the copy of
// a decoded value into T.
type projStruct struct {
	typ  reflect.Type
	copy func(dst, src reflect.Value)
}

// newProjStruct plans the projection struct of the leaves of T.
func newProjStruct[T any](leaves []string) (*projStruct, error) {
	want := map[string]bool{}
	for _, l := range leaves {
		want[l] = true
	}
	p := &planner{leaves: want}
	typ, cp, err := projType(reflect.TypeFor[T](), "", p)
	if err != nil {
		return nil, err
	}
	return &projStruct{typ: typ, copy: cp}, nil
}

// projType returns the pruned type of struct t at path and the copy from
// it into t.
func projType(t reflect.Type, path string, p *planner) (reflect.Type, func(dst, src reflect.Value), error) {
	if t.Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("%s: not a struct", t)
	}
	type part struct{ di, si int }
	var (
		fields []reflect.StructField
		parts  []part
		subs   []func(dst, src reflect.Value)
	)
	for i := range t.NumField() {
		f := t.Field(i)
		n, ok := fieldName(f)
		if !ok {
			continue
		}
		fp := n
		if path != "" {
			fp = path + "." + n
		}
		if !p.wants(fp) {
			continue
		}
		ft, sub := f.Type, func(dst, src reflect.Value) { dst.Set(src) }
		if !p.leaves[fp] {
			// An ancestor of queried leaves: prune it too.
			var err error
			if ft, sub, err = projContainer(f.Type, fp, p); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", n, err)
			}
		}
		parts = append(parts, part{i, len(fields)})
		subs = append(subs, sub)
		fields = append(fields, reflect.StructField{Name: f.Name, Type: ft, Tag: f.Tag})
	}
	typ := reflect.StructOf(fields)
	return typ, func(dst, src reflect.Value) {
		for k, pt := range parts {
			subs[k](dst.Field(pt.di), src.Field(pt.si))
		}
	}, nil
}

// projContainer prunes a struct, *struct or []struct field type.
func projContainer(t reflect.Type, path string, p *planner) (reflect.Type, func(dst, src reflect.Value), error) {
	switch t.Kind() {
	case reflect.Struct:
		return projType(t, path, p)
	case reflect.Pointer:
		et, cp, err := projType(t.Elem(), path, p)
		if err != nil {
			return nil, nil, err
		}
		return reflect.PointerTo(et), func(dst, src reflect.Value) {
			if src.IsNil() {
				return
			}
			v := reflect.New(t.Elem())
			cp(v.Elem(), src.Elem())
			dst.Set(v)
		}, nil
	case reflect.Slice:
		et, cp, err := projType(t.Elem(), path, p)
		if err != nil {
			return nil, nil, err
		}
		return reflect.SliceOf(et), func(dst, src reflect.Value) {
			n := src.Len()
			if n == 0 {
				return
			}
			v := reflect.MakeSlice(t, n, n)
			for k := range n {
				cp(v.Index(k), src.Index(k))
			}
			dst.Set(v)
		}, nil
	}
	return nil, nil, fmt.Errorf("%s under %s: cannot prune", t, strings.TrimSpace(path))
}

// projStructFormat returns rf decoding into the projection struct of the
// leaves: unmarshal decodes a record into a fresh pruned value and copies
// it into v. decode is the format's decoder of any value.
func projStructFormat[T any](rf rowFormat[T], leaves []string, decode func(b []byte, v any) error) (rowFormat[T], error) {
	ps, err := newProjStruct[T](leaves)
	if err != nil {
		return rowFormat[T]{}, err
	}
	return rf.With(func(in struct{}) (rowCodec[T], error) {
		rc, err := rf.Bind(in)
		if err != nil {
			return rc, err
		}
		rc.unmarshal = func(b []byte, v *T) error {
			pv := reflect.New(ps.typ)
			if err := decode(b, pv.Interface()); err != nil {
				return err
			}
			ps.copy(reflect.ValueOf(v).Elem(), pv.Elem())
			return nil
		}
		return rc, nil
	}), nil
}
