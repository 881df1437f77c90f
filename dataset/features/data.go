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

// Type is a feature data type: a scalar type, or the vector form of one
// (N features, each a vector of VecLen values).
type Type string

// The scalar data types of the workload: every type family of psdb.
const (
	Int8    Type = "int8"
	Int16   Type = "int16"
	Int32   Type = "int32"
	Int64   Type = "int64"
	Uint8   Type = "uint8"
	Uint16  Type = "uint16"
	Uint32  Type = "uint32"
	Uint64  Type = "uint64"
	FP8E4M3 Type = "fp8e4m3"
	FP8E5M2 Type = "fp8e5m2"
	FP16    Type = "fp16"
	Float32 Type = "float32"
	Float64 Type = "float64"
	Bool    Type = "bool"
	String  Type = "string"
)

// VecLen is the length of every vector of a vector type: a block of a
// vector type holds N features of VecLen values each, N·VecLen values.
const VecLen = 8

// vecSuffix names a vector type: "int32x8" is N features of 8 int32s.
const vecSuffix = "x8"

// Scalars lists the scalar types in family order: signed integers,
// unsigned integers, floats (fp8, fp16, fp32, fp64), bool, string.
func Scalars() []Type {
	return []Type{Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, FP8E4M3, FP8E5M2, FP16, Float32, Float64, Bool, String}
}

// Vector returns the vector form of scalar type t ("int32" → "int32x8").
func Vector(t Type) Type { return t + vecSuffix }

// IsVector reports whether t is a vector type.
func (t Type) IsVector() bool { return strings.HasSuffix(string(t), vecSuffix) }

// Elem returns the scalar type of t's values: t itself for a scalar type.
func (t Type) Elem() Type {
	if t.IsVector() {
		return Type(strings.TrimSuffix(string(t), vecSuffix))
	}
	return t
}

// Types lists every type: the scalars in family order, then their vector
// forms in the same order.
func Types() []Type {
	out := Scalars()
	for _, t := range Scalars() {
		out = append(out, Vector(t))
	}
	return out
}

// ParseType checks a type name.
func ParseType(s string) (Type, error) {
	for _, t := range Types() {
		if string(t) == s {
			return t, nil
		}
	}
	names := make([]string, 0, len(Types()))
	for _, t := range Types() {
		names = append(names, string(t))
	}
	return "", fmt.Errorf("unknown feature type %q (valid: %s)", s, strings.Join(names, ", "))
}

// MaxStringLen is the longest generated string feature.
const MaxStringLen = 32

// Data is one feature group: N features of one type, N values for a
// scalar type and N·VecLen values (flattened in feature order) for a vector
// type. Exactly one value slice is set, except for the narrow floats: FP16
// and FP8 inputs are Float32 and their expected decoded values are Half or
// FP8 (the inputs rounded to nearest even). Int8 and Int16 values are held
// as int32, Uint8, Uint16 and Uint32 values as uint32, as psdb's API takes
// them.
type Data struct {
	Type Type
	// N is the number of features; VecLen the length of each feature's
	// vector (1 for a scalar type).
	N, VecLen int
	Int32     []int32
	Int64     []int64
	Uint32    []uint32
	Uint64    []uint64
	Float32   []float32
	Float64   []float64
	Half      []uint16
	FP8       []uint8
	Bool      []bool
	String    []string
	// Raw is the values packed at their stored width, little-endian:
	// 1/2/4/8 bytes per integer, 4/8 per float, 2 per half, 1 per fp8,
	// 1 bit per bool (first value in the most significant bit, bits
	// continuing across vectors), string bytes concatenated. Its length
	// is the "raw size" sizes are compared with, and the limit row of the
	// fixed-width types copies it.
	Raw []byte
}

// Values returns the number of values: N·VecLen.
func (d *Data) Values() int { return d.N * d.VecLen }

// Generate makes N features of type t from seed. int32 and int64 values
// are uniform over the non-negative range, as in the seed report (its
// protobuf sizes imply 31-bit values); int8, int16 and the unsigned types
// are uniform over their whole range; floats are normally distributed;
// fp16 and fp8 E5M2 inputs lie in [-1000, 1000], fp8 E4M3 inputs in
// [-448, 448] (its finite range); strings are 0–32 ASCII letters. A
// vector type's N·VecLen values are those its scalar type generates for
// that count, from the stream of N.
func Generate(t Type, n int, seed uint64) (*Data, error) {
	if n < 0 {
		return nil, fmt.Errorf("features: negative count %d", n)
	}
	if _, err := ParseType(string(t)); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	vl := 1
	if t.IsVector() {
		vl = VecLen
	}
	d := generate(r, t.Elem(), n*vl)
	d.Type, d.N, d.VecLen = t, n, vl
	return d, nil
}

// generate makes n values of scalar type t.
func generate(r *rand.Rand, t Type, n int) *Data {
	d := &Data{}
	switch t {
	case Int8, Int16:
		w, span := 1, 256
		if t == Int16 {
			w, span = 2, 65536
		}
		d.Int32 = make([]int32, n)
		d.Raw = make([]byte, w*n)
		for i := range d.Int32 {
			v := int32(r.IntN(span) - span/2)
			d.Int32[i] = v
			if w == 1 {
				d.Raw[i] = byte(v)
			} else {
				binary.LittleEndian.PutUint16(d.Raw[2*i:], uint16(v))
			}
		}
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
	case Uint8, Uint16, Uint32:
		d.Uint32 = make([]uint32, n)
		w := map[Type]int{Uint8: 1, Uint16: 2, Uint32: 4}[t]
		d.Raw = make([]byte, w*n)
		for i := range d.Uint32 {
			v := r.Uint32() >> (32 - 8*w)
			d.Uint32[i] = v
			switch w {
			case 1:
				d.Raw[i] = byte(v)
			case 2:
				binary.LittleEndian.PutUint16(d.Raw[2*i:], uint16(v))
			default:
				binary.LittleEndian.PutUint32(d.Raw[4*i:], v)
			}
		}
	case Uint64:
		d.Uint64 = make([]uint64, n)
		d.Raw = make([]byte, 8*n)
		for i := range d.Uint64 {
			d.Uint64[i] = r.Uint64()
			binary.LittleEndian.PutUint64(d.Raw[8*i:], d.Uint64[i])
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
	case FP8E4M3, FP8E5M2:
		d.Float32 = make([]float32, n)
		d.FP8 = make([]uint8, n)
		span := 1000.0
		if t == FP8E4M3 {
			span = 448
		}
		for i := range d.Float32 {
			d.Float32[i] = float32((r.Float64()*2 - 1) * span)
			d.FP8[i] = FP8Bits(t, d.Float32[i])
		}
		d.Raw = append([]byte(nil), d.FP8...)
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
	}
	return d
}

// FP8Bits rounds f to the FP8 type t (FP8E4M3 or FP8E5M2) to nearest,
// ties to even, computed independently of any converter under test: the
// quantum of f's binade is found with math.Frexp and the quotient rounded
// with math.RoundToEven, exactly in float64. f must lie within t's finite
// range (±448 for E4M3, ±57,344 for E5M2) or be NaN (the result is then
// the type's NaN, 0x7F, with f's sign); larger magnitudes saturate to the
// largest finite value.
func FP8Bits(t Type, f float32) uint8 {
	mbits, bias, maxCode := 3, 7, uint8(0x7e) // E4M3: 448 = 0x7E
	if t == FP8E5M2 {
		mbits, bias, maxCode = 2, 15, 0x7b // E5M2: 57,344 = 0x7B
	}
	var sign uint8
	if math.Signbit(float64(f)) {
		sign = 0x80
	}
	a := math.Abs(float64(f))
	switch {
	case math.IsNaN(a):
		return sign | 0x7f
	case a == 0:
		return sign
	}
	_, e := math.Frexp(a) // a = frac·2^e, frac in [0.5, 1): binade exponent e-1
	e--
	if e < 1-bias {
		e = 1 - bias // subnormal: the smallest binade's quantum
	}
	q := math.Ldexp(1, e-mbits)
	m := int(math.RoundToEven(a / q))
	if m >= 2<<mbits { // rounded up into the next binade
		m >>= 1
		e++
	}
	var code int
	if m < 1<<mbits { // subnormal: exponent field 0
		code = m
	} else {
		code = (e+bias)<<mbits | (m - 1<<mbits)
	}
	if code > int(maxCode) {
		code = int(maxCode)
	}
	return sign | uint8(code)
}

// Output is decoded values; a subject's decoder fills the slice of its
// type (reusing capacity) and Check compares it with the source.
type Output struct {
	Int32   []int32
	Int64   []int64
	Uint32  []uint32
	Uint64  []uint64
	Float32 []float32
	Float64 []float64
	Half    []uint16
	FP8     []uint8
	Bool    []bool
	String  []string
}

// Source returns d's expected decoded values as an Output.
func (d *Data) Source() *Output {
	return &Output{Int32: d.Int32, Int64: d.Int64, Uint32: d.Uint32, Uint64: d.Uint64, Float32: d.Float32, Float64: d.Float64,
		Half: d.Half, FP8: d.FP8, Bool: d.Bool, String: d.String}
}

// Check reports the first difference between o and the source data d.
// Floats compare bit for bit; fp16 and fp8 compare their bit patterns.
func (d *Data) Check(o *Output) error {
	switch d.Type.Elem() {
	case Int8, Int16, Int32:
		return diff(d.Int32, o.Int32)
	case Int64:
		return diff(d.Int64, o.Int64)
	case Uint8, Uint16, Uint32:
		return diff(d.Uint32, o.Uint32)
	case Uint64:
		return diff(d.Uint64, o.Uint64)
	case Float32:
		return diffBits(d.Float32, o.Float32, func(f float32) uint64 { return uint64(math.Float32bits(f)) })
	case Float64:
		return diffBits(d.Float64, o.Float64, math.Float64bits)
	case FP16:
		return diff(d.Half, o.Half)
	case FP8E4M3, FP8E5M2:
		return diff(d.FP8, o.FP8)
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
