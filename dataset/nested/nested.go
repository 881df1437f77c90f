// Package nested holds what the datasets of the nested workload (seed 004)
// share: the leaf columns of a nested Go record type, the projection of a
// record onto a subset of its leaves (the reference a sub-schema read is
// checked against), a comparison that treats nil and empty slices alike and
// floats bit for bit, and a canonical hash independent of any serialization
// library.
//
// Everything works by reflection on the record type. A field's name is the
// first element of its `json` struct tag (the datasets give every format the
// same name), and a leaf is named by the dotted path of field names from the
// record down to it, e.g. "order.customer.nation.name" or
// "devices.connections.events.amount". Repetition does not show in the path:
// "devices.mac" is the mac of every device.
//
// The record types may contain structs, slices of structs (repeated groups),
// pointers to structs (optional groups) and leaves: bool, integers, floats,
// strings, pointers to those (optional leaves) and slices of those (repeated
// leaves).
package nested

import (
	"fmt"
	"reflect"
	"strings"
)

// fieldName returns the name of struct field f: its json tag name, else its Go
// name. Fields tagged "-" and unexported fields have no name.
func fieldName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	switch name {
	case "-":
		return "", false
	case "":
		return f.Name, true
	}
	return name, true
}

// isScalar reports whether k is a leaf kind.
func isScalar(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// group returns the struct type that t nests (t itself, or the element of a
// slice or pointer), or nil when t is a leaf type.
func group(t reflect.Type) reflect.Type {
	switch t.Kind() {
	case reflect.Struct:
		return t
	case reflect.Slice, reflect.Pointer:
		if t.Elem().Kind() == reflect.Struct {
			return t.Elem()
		}
	}
	return nil
}

// checkLeaf reports an error when t is not a supported leaf type.
func checkLeaf(path string, t reflect.Type) error {
	switch t.Kind() {
	case reflect.Slice, reflect.Pointer:
		if isScalar(t.Elem().Kind()) {
			return nil
		}
	default:
		if isScalar(t.Kind()) {
			return nil
		}
	}
	return fmt.Errorf("nested: field %s has unsupported type %s", path, t)
}

// walkLeaves appends the leaf paths under struct type t to out.
func walkLeaves(t reflect.Type, prefix string, out []string) ([]string, error) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, ok := fieldName(f)
		if !ok {
			continue
		}
		path := prefix + name
		if g := group(f.Type); g != nil {
			var err error
			if out, err = walkLeaves(g, path+".", out); err != nil {
				return nil, err
			}
			continue
		}
		if err := checkLeaf(path, f.Type); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	return out, nil
}

// Leaves returns the dotted paths of T's leaves in schema order (the order of
// the struct fields, depth first). T must be a struct type; Leaves panics
// otherwise or when T holds an unsupported field type, both programming errors
// that the datasets' tests catch.
func Leaves[T any]() []string {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("nested: %s is not a struct type", t))
	}
	out, err := walkLeaves(t, "", nil)
	if err != nil {
		panic(err)
	}
	return out
}
