package nested

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Diff returns nil when got and want are equal, else an error naming the first
// difference by path, e.g. "devices[1].connections[0].ip: got "…", want "…"".
// Nil and empty slices are equal; a nil pointer equals only a nil pointer
// (an absent optional field differs from a present zero); floats are compared
// bit for bit (so NaN equals the same NaN and -0 differs from +0).
func Diff[T any](got, want *T) error {
	var df Differ[T]
	return df.Diff(got, want)
}

// A Differ compares records of type T as Diff does, remembering the compared
// fields of every struct type it meets, so that comparing many records spends
// no time on reflection metadata (Diff alone looks each field's tag up again
// for every record). The zero value is ready to use; a Differ is not safe for
// concurrent use.
type Differ[T any] struct {
	fields fieldCache
}

// Diff returns nil when got and want are equal, else an error naming the
// first difference by path, as the function Diff does.
func (df *Differ[T]) Diff(got, want *T) error {
	if df.fields == nil {
		df.fields = fieldCache{}
	}
	d := df.fields.diff(reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem())
	if d == nil {
		return nil
	}
	return d
}

// fieldCache holds the compared fields of each struct type.
type fieldCache map[reflect.Type][]structField

// structField is one compared field: its index and its name in paths.
type structField struct {
	index int
	name  string
}

// of returns the compared fields of struct type t.
func (fc fieldCache) of(t reflect.Type) []structField {
	if fs, ok := fc[t]; ok {
		return fs
	}
	fs := []structField{}
	for i := range t.NumField() {
		if name, ok := fieldName(t.Field(i)); ok {
			fs = append(fs, structField{index: i, name: name})
		}
	}
	fc[t] = fs
	return fs
}

// Equal reports whether Diff(a, b) is nil.
func Equal[T any](a, b *T) bool { return Diff(a, b) == nil }

// difference is the first difference found: a message and the path to it,
// built innermost segment first while the comparison unwinds, so equal
// records cost no formatting.
type difference struct {
	rev []string // path segments, innermost first: "ip", "[0]", "connections", …
	msg string
}

// Error formats the difference as "path: message".
func (d *difference) Error() string {
	var b strings.Builder
	for i := len(d.rev) - 1; i >= 0; i-- {
		seg := d.rev[i]
		if b.Len() > 0 && !strings.HasPrefix(seg, "[") {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String() + ": " + d.msg
}

// at prepends a path segment to d (a nil d stays nil).
func (d *difference) at(seg string) *difference {
	if d != nil {
		d.rev = append(d.rev, seg)
	}
	return d
}

func (fc fieldCache) diff(got, want reflect.Value) *difference {
	switch got.Kind() {
	case reflect.Struct:
		for _, f := range fc.of(got.Type()) {
			if d := fc.diff(got.Field(f.index), want.Field(f.index)); d != nil {
				return d.at(f.name)
			}
		}
		return nil
	case reflect.Slice:
		if got.Len() != want.Len() {
			return &difference{msg: fmt.Sprintf("got %d elements, want %d", got.Len(), want.Len())}
		}
		for i := range got.Len() {
			if d := fc.diff(got.Index(i), want.Index(i)); d != nil {
				return d.at("[" + strconv.Itoa(i) + "]")
			}
		}
		return nil
	case reflect.Pointer:
		switch {
		case got.IsNil() && want.IsNil():
			return nil
		case got.IsNil():
			return &difference{msg: "got absent, want " + show(want.Elem())}
		case want.IsNil():
			return &difference{msg: "got " + show(got.Elem()) + ", want absent"}
		}
		return fc.diff(got.Elem(), want.Elem())
	case reflect.Float32, reflect.Float64:
		if math.Float64bits(got.Float()) != math.Float64bits(want.Float()) {
			return &difference{msg: fmt.Sprintf("got %v (bits %#x), want %v (bits %#x)",
				got.Float(), math.Float64bits(got.Float()), want.Float(), math.Float64bits(want.Float()))}
		}
		return nil
	case reflect.String:
		if got.String() != want.String() {
			return &difference{msg: "got " + show(got) + ", want " + show(want)}
		}
		return nil
	}
	if !got.Equal(want) {
		return &difference{msg: "got " + show(got) + ", want " + show(want)}
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
