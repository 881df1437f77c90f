package psdb

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// flatCase checks that AppendFlatVectors writes, from the flattened
// values of vecs, the same block as write (the type's Append…Vectors)
// from vecs, at every size of room in dst, and allocates nothing with
// room for it.
func flatCase[T FlatValue](t *testing.T, dt DataType, lens []int, gen func(i int) T, write func([]byte, Header, *Schema, [][]T) ([]byte, error)) {
	t.Helper()
	var maxStr []int
	if dt == TypeStringVector {
		maxStr = slices.Repeat([]int{maxStringLen}, len(lens))
	}
	s := mustSchema(t, 7, dt, len(lens), lens, maxStr)
	h := s.Header(0)
	var flat []T
	vecs := make([][]T, len(lens))
	for f, l := range lens {
		for range l {
			v := gen(len(flat))
			flat, vecs[f] = append(flat, v), append(vecs[f], v)
		}
	}
	want, err := write(nil, h, s, vecs)
	if err != nil {
		t.Fatal(err)
	}
	for _, room := range []int{0, len(want) - 1, len(want), len(want) + 3} {
		dst := make([]byte, 2, 2+room)
		got, err := AppendFlatVectors(dst, h, s, flat)
		if err != nil || !bytes.Equal(got[2:], want) {
			t.Fatalf("%s %v, room %d: %v\n got %x\nwant %x", dt, lens, room, err, got, want)
		}
		if room >= len(want) {
			if a := testing.AllocsPerRun(5, func() { _, _ = AppendFlatVectors(dst, h, s, flat) }); a != 0 {
				t.Fatalf("%s: %v allocs", dt, a)
			}
		}
	}
	if _, err := AppendFlatVectors(nil, h, s, append(slices.Clone(flat), gen(0))); !errors.Is(err, ErrVectorLength) {
		t.Fatalf("%s: one value too many: %v", dt, err)
	}
}

// TestAppendFlatVectors compares AppendFlatVectors with the Append…Vectors
// function of every vector type, for vector lengths that end off a byte
// (bools) and include empty vectors, and checks its errors.
func TestAppendFlatVectors(t *testing.T) {
	for _, lens := range [][]int{nil, {8}, {3, 0, 8, 1, 5}, slices.Repeat([]int{8}, 13)} {
		flatCase(t, TypeInt8Vector, lens, func(i int) int32 { return int32(i%256 - 128) }, AppendInt8Vectors)
		flatCase(t, TypeInt16Vector, lens, func(i int) int32 { return int32(i*997%65536 - 32768) }, AppendInt16Vectors)
		flatCase(t, TypeInt32Vector, lens, func(i int) int32 { return int32(i * -123457) }, AppendInt32Vectors)
		flatCase(t, TypeInt64Vector, lens, func(i int) int64 { return int64(i) * -1e12 }, AppendInt64Vectors)
		flatCase(t, TypeUint8Vector, lens, func(i int) uint32 { return uint32(i % 256) }, AppendUint8Vectors)
		flatCase(t, TypeUint16Vector, lens, func(i int) uint32 { return uint32(i * 997 % 65536) }, AppendUint16Vectors)
		flatCase(t, TypeUint32Vector, lens, func(i int) uint32 { return uint32(i) * 0x9e3779b9 }, AppendUint32Vectors)
		flatCase(t, TypeUint64Vector, lens, func(i int) uint64 { return uint64(i) * 0x9e3779b97f4a7c15 }, AppendUint64Vectors)
		flatCase(t, TypeFP8E5M2Vector, lens, func(i int) float32 { return float32(i)*1.7 - 20 }, AppendFP8E5M2Vectors)
		flatCase(t, TypeFP8E4M3Vector, lens, func(i int) float32 { return float32(i)*3.1 - 500 }, AppendFP8E4M3Vectors)
		flatCase(t, TypeFP16Vector, lens, func(i int) float32 { return float32(i)*0.3 - 7 }, AppendFP16Vectors)
		flatCase(t, TypeFP32Vector, lens, func(i int) float32 { return float32(i) * 0.1 }, AppendFloat32Vectors)
		flatCase(t, TypeFP64Vector, lens, func(i int) float64 { return float64(i) * -0.01 }, AppendFloat64Vectors)
		flatCase(t, TypeBoolVector, lens, func(i int) bool { return i%3 == 0 || i%7 == 1 }, AppendBoolVectors)
		flatCase(t, TypeStringVector, lens, func(i int) string {
			if i%5 == 4 {
				return strings.Repeat("z", maxStringLen)
			}
			return strings.Repeat("ab", i%9)
		}, AppendStringVectors)
	}

	lens := []int{2, 3}
	i32 := mustSchema(t, 1, TypeInt32Vector, 2, lens, nil)
	i8 := mustSchema(t, 1, TypeInt8Vector, 2, lens, nil)
	str := mustSchema(t, 1, TypeStringVector, 2, lens, []int{4, 1})
	scalar := mustSchema(t, 1, TypeInt32, 5, nil, nil)
	five := []int32{1, 2, 3, 4, 5}
	for _, tc := range []struct {
		name string
		err  error
		call func() ([]byte, error)
	}{
		{"nil schema", ErrSchema, func() ([]byte, error) { return AppendFlatVectors(nil, Header{SchemaVersion: 1}, nil, five) }},
		{"scalar schema", ErrSchema, func() ([]byte, error) { return AppendFlatVectors(nil, scalar.Header(0), scalar, five) }},
		{"other version", ErrSchema, func() ([]byte, error) { return AppendFlatVectors(nil, Header{SchemaVersion: 2}, i32, five) }},
		{"other header type", ErrTypeMismatch, func() ([]byte, error) {
			return AppendFlatVectors(nil, Header{SchemaVersion: 1, DataType: TypeInt32}, i32, five)
		}},
		{"too few values", ErrVectorLength, func() ([]byte, error) { return AppendFlatVectors(nil, i32.Header(0), i32, five[:4]) }},
		{"wrong element type", ErrTypeMismatch, func() ([]byte, error) {
			return AppendFlatVectors(nil, i32.Header(0), i32, []uint32{1, 2, 3, 4, 5})
		}},
		{"out of range", ErrValueRange, func() ([]byte, error) {
			return AppendFlatVectors(nil, i8.Header(0), i8, []int32{1, 2, 3, 128, 5})
		}},
		{"overlong string, first feature", ErrStringTooLong, func() ([]byte, error) {
			return AppendFlatVectors(make([]byte, 0, 64), str.Header(0), str, []string{"a", "abcde", "", "", ""})
		}},
		{"overlong string, second feature", ErrStringTooLong, func() ([]byte, error) {
			return AppendFlatVectors(nil, str.Header(0), str, []string{"abcd", "abcd", "", "ab", ""})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := tc.call(); !errors.Is(err, tc.err) || len(got) != 0 {
				t.Fatalf("%v (%d bytes), want %v", err, len(got), tc.err)
			}
		})
	}
}
