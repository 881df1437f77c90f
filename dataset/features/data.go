// Package features generates the feature-group data of the features
// workload (seed 000): one feature group of N values of one data type,
// deterministic from a seed so every machine measures identical bytes.
package features

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/x448/float16"
)

// Type is a feature data type.
type Type string

// The data types of the workload.
const (
	Int32   Type = "int32"
	Float32 Type = "float32"
	Int64   Type = "int64"
	Float64 Type = "float64"
	FP16    Type = "fp16"
	Bool    Type = "bool"
	String  Type = "string"
)

// Types lists every type, the seed's (int32) first.
func Types() []Type { return []Type{Int32, Float32, Int64, Float64, FP16, Bool, String} }

// ParseType checks a type name.
func ParseType(s string) (Type, error) {
	for _, t := range Types() {
		if string(t) == s {
			return t, nil
		}
	}
	names := make([]string, 0, 7)
	for _, t := range Types() {
		names = append(names, string(t))
	}
	return "", fmt.Errorf("unknown feature type %q (valid: %s)", s, strings.Join(names, ", "))
}

// MaxStringLen is the longest generated string feature.
const MaxStringLen = 32

// Data is one feature group: N values of one type. Exactly one value
// slice is set, except FP16, whose inputs are Float32 and whose expected
// decoded values are Half (the inputs rounded to half precision).
type Data struct {
	Type    Type
	N       int
	Int32   []int32
	Int64   []int64
	Float32 []float32
	Float64 []float64
	Half    []uint16
	Bool    []bool
	String  []string
	// Raw is the values packed at their natural width, little-endian:
	// 4/8 bytes per number, 2 per half, 1 bit per bool (first value in
	// the most significant bit), string bytes concatenated. Its length
	// is the "raw size" sizes are compared with, and the memcpy limit
	// row copies it.
	Raw []byte
}

// Generate makes N values of type t from seed. int32 and int64 values
// are uniform over the non-negative range, as in the seed report (its
// protobuf sizes imply 31-bit values); floats are normally distributed;
// fp16 inputs lie in [-1000, 1000]; strings are 0–32 ASCII letters.
func Generate(t Type, n int, seed uint64) (*Data, error) {
	if n < 0 {
		return nil, fmt.Errorf("features: negative count %d", n)
	}
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	d := &Data{Type: t, N: n}
	switch t {
	case Int32:
		d.Int32 = make([]int32, n)
		d.Raw = make([]byte, 4*n)
		for i := range d.Int32 {
			d.Int32[i] = r.Int32()
			binary.LittleEndian.PutUint32(d.Raw[4*i:], uint32(d.Int32[i]))
		}
	case Int64:
		d.Int64 = make([]int64, n)
		d.Raw = make([]byte, 8*n)
		for i := range d.Int64 {
			d.Int64[i] = r.Int64()
			binary.LittleEndian.PutUint64(d.Raw[8*i:], uint64(d.Int64[i]))
		}
	case Float32:
		d.Float32 = make([]float32, n)
		d.Raw = make([]byte, 4*n)
		for i := range d.Float32 {
			d.Float32[i] = float32(r.NormFloat64() * 100)
			binary.LittleEndian.PutUint32(d.Raw[4*i:], math.Float32bits(d.Float32[i]))
		}
	case Float64:
		d.Float64 = make([]float64, n)
		d.Raw = make([]byte, 8*n)
		for i := range d.Float64 {
			d.Float64[i] = r.NormFloat64() * 100
			binary.LittleEndian.PutUint64(d.Raw[8*i:], math.Float64bits(d.Float64[i]))
		}
	case FP16:
		d.Float32 = make([]float32, n)
		d.Half = make([]uint16, n)
		d.Raw = make([]byte, 2*n)
		for i := range d.Float32 {
			d.Float32[i] = float32(r.Float64()*2000 - 1000)
			d.Half[i] = float16.Fromfloat32(d.Float32[i]).Bits()
			binary.LittleEndian.PutUint16(d.Raw[2*i:], d.Half[i])
		}
	case Bool:
		d.Bool = make([]bool, n)
		d.Raw = make([]byte, (n+7)/8)
		for i := range d.Bool {
			d.Bool[i] = r.IntN(2) == 1
			if d.Bool[i] {
				d.Raw[i/8] |= 0x80 >> (i % 8)
			}
		}
	case String:
		d.String = make([]string, n)
		var raw []byte
		var b [MaxStringLen]byte
		for i := range d.String {
			l := r.IntN(MaxStringLen + 1)
			for j := 0; j < l; j++ {
				c := byte('a' + r.IntN(26))
				if r.IntN(4) == 0 {
					c -= 'a' - 'A'
				}
				b[j] = c
			}
			d.String[i] = string(b[:l])
			raw = append(raw, b[:l]...)
		}
		d.Raw = raw
	default:
		_, err := ParseType(string(t))
		return nil, err
	}
	return d, nil
}

// Output is decoded values; a subject's decoder fills the slice of its
// type (reusing capacity) and Check compares it with the source.
type Output struct {
	Int32   []int32
	Int64   []int64
	Float32 []float32
	Float64 []float64
	Half    []uint16
	Bool    []bool
	String  []string
}

// Check reports the first difference between o and the source data d.
// Floats compare bit for bit; fp16 compares the half bit patterns.
func (d *Data) Check(o *Output) error {
	switch d.Type {
	case Int32:
		return diff(d.Int32, o.Int32)
	case Int64:
		return diff(d.Int64, o.Int64)
	case Float32:
		return diffBits(d.Float32, o.Float32, func(f float32) uint64 { return uint64(math.Float32bits(f)) })
	case Float64:
		return diffBits(d.Float64, o.Float64, math.Float64bits)
	case FP16:
		return diff(d.Half, o.Half)
	case Bool:
		return diff(d.Bool, o.Bool)
	case String:
		return diff(d.String, o.String)
	}
	return fmt.Errorf("features: unknown type %q", d.Type)
}

func diff[T comparable](want, got []T) error {
	if len(want) != len(got) {
		return fmt.Errorf("decoded %d values, want %d", len(got), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			return fmt.Errorf("value %d: got %v, want %v", i, got[i], want[i])
		}
	}
	return nil
}

func diffBits[T any](want, got []T, bits func(T) uint64) error {
	if len(want) != len(got) {
		return fmt.Errorf("decoded %d values, want %d", len(got), len(want))
	}
	for i := range want {
		if bits(want[i]) != bits(got[i]) {
			return fmt.Errorf("value %d: got %v, want %v", i, got[i], want[i])
		}
	}
	return nil
}
