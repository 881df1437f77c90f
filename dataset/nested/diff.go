package nested

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
)

// Diff returns nil when got and want are equal, else an error naming the first
// difference by path, e.g. "devices[1].connections[0].ip: got "…", want "…"".
// Nil and empty slices are equal; a nil pointer equals only a nil pointer
// (an absent optional field differs from a present zero); floats are compared
// bit for bit (so NaN equals the same NaN and -0 differs from +0).
func Diff[T any](got, want *T) error {
	return diff(reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem(), "")
}

// Equal reports whether Diff(a, b) is nil.
func Equal[T any](a, b *T) bool { return Diff(a, b) == nil }

// join appends field name to path.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func diff(got, want reflect.Value, path string) error {
	switch got.Kind() {
	case reflect.Struct:
		t := got.Type()
		for i := range t.NumField() {
			name, ok := fieldName(t.Field(i))
			if !ok {
				continue
			}
			if err := diff(got.Field(i), want.Field(i), join(path, name)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if got.Len() != want.Len() {
			return fmt.Errorf("%s: got %d elements, want %d", path, got.Len(), want.Len())
		}
		for i := range got.Len() {
			if err := diff(got.Index(i), want.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Pointer:
		switch {
		case got.IsNil() && want.IsNil():
			return nil
		case got.IsNil():
			return fmt.Errorf("%s: got absent, want %s", path, show(want.Elem()))
		case want.IsNil():
			return fmt.Errorf("%s: got %s, want absent", path, show(got.Elem()))
		}
		return diff(got.Elem(), want.Elem(), path)
	case reflect.Float32, reflect.Float64:
		if math.Float64bits(got.Float()) != math.Float64bits(want.Float()) {
			return fmt.Errorf("%s: got %v (bits %#x), want %v (bits %#x)", path,
				got.Float(), math.Float64bits(got.Float()), want.Float(), math.Float64bits(want.Float()))
		}
		return nil
	}
	if !got.Equal(want) {
		return fmt.Errorf("%s: got %s, want %s", path, show(got), show(want))
	}
	return nil
}

// show formats a leaf value for a difference message.
func show(v reflect.Value) string {
	if v.Kind() == reflect.String {
		return fmt.Sprintf("%q", v.String())
	}
	if v.Kind() == reflect.Struct {
		return "{…}"
	}
	return fmt.Sprint(v.Interface())
}

// AppendCanonical appends the canonical binary encoding of rec to b: fields in
// schema order; integers as varints, floats as their 8 IEEE bytes, strings as
// a uvarint length and the bytes, slices as a uvarint length and the elements
// (nil and empty alike), pointers as a presence byte and the value. It depends
// on no serialization library, so hashes of it pin a generator's output.
func AppendCanonical[T any](b []byte, rec *T) []byte {
	return appendCanonical(b, reflect.ValueOf(rec).Elem())
}

func appendCanonical(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if _, ok := fieldName(t.Field(i)); ok {
				b = appendCanonical(b, v.Field(i))
			}
		}
	case reflect.Slice:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		for i := range v.Len() {
			b = appendCanonical(b, v.Index(i))
		}
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 0)
		}
		b = appendCanonical(append(b, 1), v.Elem())
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b = binary.AppendVarint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b = binary.AppendUvarint(b, v.Uint())
	case reflect.Float32, reflect.Float64:
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float()))
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		b = append(b, v.String()...)
	default:
		panic(fmt.Sprintf("nested: canonical encoding of unsupported kind %s", v.Kind()))
	}
	return b
}

// Hash returns the hex SHA-256 of the canonical encodings of recs in order.
func Hash[T any](recs []T) string {
	h := sha256.New()
	var b []byte
	for i := range recs {
		b = AppendCanonical(b[:0], &recs[i])
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}
