package psdb

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestRoundTripScalars(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	h := Header{SchemaVersion: 9}
	for iter := 0; iter < 200; iter++ {
		n := r.IntN(70)
		i32 := make([]int32, n)
		i64 := make([]int64, n)
		u32 := make([]uint32, n)
		u64 := make([]uint64, n)
		f32 := make([]float32, n)
		f64 := make([]float64, n)
		bs := make([]bool, n)
		for i := range n {
			i32[i], i64[i], u32[i], u64[i] = int32(r.Uint32()), int64(r.Uint64()), r.Uint32(), r.Uint64()
			f32[i], f64[i], bs[i] = randFloat32(r), math.Float64frombits(r.Uint64()), r.IntN(2) == 1
		}
		check := func(name string, b []byte, err error, verify func(Block) error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: encode: %v", name, err)
			}
			blk, err := Parse(b, nil)
			if err != nil {
				t.Fatalf("%s: parse: %v", name, err)
			}
			if got, _ := blk.Len(); got != n {
				t.Fatalf("%s: Len %d, want %d", name, got, n)
			}
			if err := verify(blk); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		b, err := AppendInt32s(nil, h, i32)
		check("int32", b, err, func(blk Block) error { return eqAll(blk.AppendInt32s, blk.Int32, i32) })
		b, err = AppendInt64s(nil, h, i64)
		check("int64", b, err, func(blk Block) error { return eqAll(blk.AppendInt64s, blk.Int64, i64) })
		b, err = AppendUint32s(nil, h, u32)
		check("uint32", b, err, func(blk Block) error { return eqAll(blk.AppendUint32s, blk.Uint32, u32) })
		b, err = AppendUint64s(nil, h, u64)
		check("uint64", b, err, func(blk Block) error { return eqAll(blk.AppendUint64s, blk.Uint64, u64) })
		b, err = AppendBools(nil, h, bs)
		check("bool", b, err, func(blk Block) error { return eqAll(blk.AppendBools, blk.Bool, bs) })
		b, err = AppendFloat32s(nil, h, f32)
		check("fp32", b, err, func(blk Block) error {
			return eqAllBits(blk.AppendFloat32s, blk.Float32, f32, func(f float32) float32 { return f })
		})
		b, err = AppendFloat64s(nil, h, f64)
		check("fp64", b, err, func(blk Block) error {
			return eqAllBits(blk.AppendFloat64s, blk.Float64, f64, func(f float64) float64 { return f })
		})
		b, err = AppendFP16s(nil, h, f32)
		check("fp16", b, err, func(blk Block) error {
			return eqAllBits(blk.AppendFloat32s, blk.Float32, f32, func(f float32) float32 { return FP16ToFloat32(FP16FromFloat32(f)) })
		})
		b, err = AppendFP8E4M3s(nil, h, f32)
		check("e4m3", b, err, func(blk Block) error {
			return eqAllBits(blk.AppendFloat32s, blk.Float32, f32, func(f float32) float32 { return FP8E4M3ToFloat32(FP8E4M3FromFloat32(f)) })
		})
		b, err = AppendFP8E5M2s(nil, h, f32)
		check("e5m2", b, err, func(blk Block) error {
			return eqAllBits(blk.AppendFloat32s, blk.Float32, f32, func(f float32) float32 { return FP8E5M2ToFloat32(FP8E5M2FromFloat32(f)) })
		})
		// Narrow types, widened on read.
		n8 := make([]int32, n)
		n16 := make([]int32, n)
		m8 := make([]uint32, n)
		m16 := make([]uint32, n)
		for i := range n {
			n8[i], n16[i], m8[i], m16[i] = int32(int8(r.Uint32())), int32(int16(r.Uint32())), uint32(uint8(r.Uint32())), uint32(uint16(r.Uint32()))
		}
		b, err = AppendInt8s(nil, h, n8)
		check("int8", b, err, func(blk Block) error { return eqAll(blk.AppendInt32s, blk.Int32, n8) })
		b, err = AppendInt16s(nil, h, n16)
		check("int16", b, err, func(blk Block) error { return eqAll(blk.AppendInt32s, blk.Int32, n16) })
		b, err = AppendUint8s(nil, h, m8)
		check("uint8", b, err, func(blk Block) error { return eqAll(blk.AppendUint32s, blk.Uint32, m8) })
		b, err = AppendUint16s(nil, h, m16)
		check("uint16", b, err, func(blk Block) error { return eqAll(blk.AppendUint32s, blk.Uint32, m16) })
		// Widening to 64 bits.
		b, err = AppendInt16s(nil, h, n16)
		check("int16 as int64", b, err, func(blk Block) error {
			w := make([]int64, n)
			for i, v := range n16 {
				w[i] = int64(v)
			}
			return eqAll(blk.AppendInt64s, blk.Int64, w)
		})
		b, err = AppendUint8s(nil, h, m8)
		check("uint8 as uint64", b, err, func(blk Block) error {
			w := make([]uint64, n)
			for i, v := range m8 {
				w[i] = uint64(v)
			}
			return eqAll(blk.AppendUint64s, blk.Uint64, w)
		})
	}
}

type errf string

func (e errf) Error() string { return string(e) }

// eqAll checks both the bulk decoder (appending after a sentinel prefix)
// and the single-value accessor against want.
func eqAll[T comparable](bulk func([]T) ([]T, error), one func(int) (T, error), want []T) error {
	var zero T
	got, err := bulk([]T{zero})
	if err != nil {
		return err
	}
	if len(got) != len(want)+1 || !slices.Equal(got[1:], want) {
		return errf("bulk decode mismatch")
	}
	for i, w := range want {
		v, err := one(i)
		if err != nil || v != w {
			return errf("single-value decode mismatch")
		}
	}
	if _, err := one(len(want)); !errors.Is(err, ErrIndex) {
		return errf("read past end not rejected")
	}
	if _, err := one(-1); !errors.Is(err, ErrIndex) {
		return errf("negative index not rejected")
	}
	return nil
}

// eqAllBits is eqAll for floats, comparing bit patterns of conv(want) and
// treating all NaNs as equal.
func eqAllBits[T float32 | float64](bulk func([]T) ([]T, error), one func(int) (T, error), want []T, conv func(T) T) error {
	same := func(a, b T) bool {
		if a != a && b != b {
			return true
		}
		return a == b && math.Signbit(float64(a)) == math.Signbit(float64(b))
	}
	got, err := bulk(nil)
	if err != nil {
		return err
	}
	if len(got) != len(want) {
		return errf("bulk length mismatch")
	}
	for i, w := range want {
		v, err := one(i)
		if err != nil || !same(v, conv(w)) || !same(got[i], conv(w)) {
			return errf("float decode mismatch")
		}
	}
	return nil
}

func TestRoundTripVectorsAndStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for iter := 0; iter < 200; iter++ {
		nf := r.IntN(12)
		vl := make([]int, nf)
		ml := make([]int, nf)
		for i := range vl {
			vl[i], ml[i] = r.IntN(6), r.IntN(20)
		}
		h := Header{SchemaVersion: uint16(iter)}
		schema := func(dt DataType) *Schema {
			var m []int
			if dt.IsString() {
				m = ml
			}
			var v []int
			if dt.IsVector() {
				v = vl
			}
			return mustSchema(t, h.SchemaVersion, dt, nf, v, m)
		}
		iv := make([][]int32, nf)
		fv := make([][]float64, nf)
		bv := make([][]bool, nf)
		sv := make([][]string, nf)
		ss := make([]string, nf)
		for f := range nf {
			for range vl[f] {
				iv[f] = append(iv[f], int32(r.IntN(200)-100))
				fv[f] = append(fv[f], r.NormFloat64())
				bv[f] = append(bv[f], r.IntN(2) == 0)
				sv[f] = append(sv[f], strings.Repeat(string(rune('a'+r.IntN(26))), r.IntN(ml[f]+1)))
			}
			ss[f] = strings.Repeat("z", r.IntN(ml[f]+1))
		}
		// Int8 vectors read back per feature.
		s := schema(TypeInt8Vector)
		b, err := AppendInt8Vectors(nil, h, s, iv)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := Parse(b, s)
		if err != nil {
			t.Fatal(err)
		}
		for f := range nf {
			got, err := blk.AppendInt32Vector(nil, f)
			if err != nil || !slices.Equal(got, iv[f]) {
				t.Fatalf("int8 vector %d: %v %v want %v", f, err, got, iv[f])
			}
		}
		// FP64 vectors.
		s = schema(TypeFP64Vector)
		b, err = AppendFloat64Vectors(nil, h, s, fv)
		if err != nil {
			t.Fatal(err)
		}
		if blk, err = Parse(b, s); err != nil {
			t.Fatal(err)
		}
		for f := range nf {
			got, err := blk.AppendFloat64Vector(nil, f)
			if err != nil || !slices.Equal(got, fv[f]) {
				t.Fatalf("fp64 vector %d: %v", f, err)
			}
		}
		// Bool vectors: bits continue across vectors.
		s = schema(TypeBoolVector)
		b, err = AppendBoolVectors(nil, h, s, bv)
		if err != nil {
			t.Fatal(err)
		}
		if blk, err = Parse(b, s); err != nil {
			t.Fatal(err)
		}
		if len(b) != HeaderLen+(s.Elements()+7)/8 {
			t.Fatalf("bool vector size %d for %d bits", len(b), s.Elements())
		}
		for f := range nf {
			got, err := blk.AppendBoolVector(nil, f)
			if err != nil || !slices.Equal(got, bv[f]) {
				t.Fatalf("bool vector %d: %v %v want %v", f, err, got, bv[f])
			}
		}
		// String vectors.
		s = schema(TypeStringVector)
		b, err = AppendStringVectors(nil, h, s, sv)
		if err != nil {
			t.Fatal(err)
		}
		if blk, err = Parse(b, s); err != nil {
			t.Fatal(err)
		}
		var flat []string
		for f := range nf {
			got, err := blk.AppendStringVector(nil, f)
			if err != nil || !slices.Equal(got, sv[f]) {
				t.Fatalf("string vector %d: %v %q want %q", f, err, got, sv[f])
			}
			views, err := blk.AppendStringVectorViews(nil, f)
			if err != nil || len(views) != len(sv[f]) {
				t.Fatalf("string vector views %d: %v", f, err)
			}
			for k := range views {
				if string(views[k]) != sv[f][k] {
					t.Fatalf("view %d/%d = %q", f, k, views[k])
				}
			}
			flat = append(flat, sv[f]...)
		}
		all, err := blk.AppendStrings(nil)
		if err != nil || !slices.Equal(all, flat) {
			t.Fatalf("all strings: %v", err)
		}
		for i, w := range flat {
			if got, err := blk.String(i); err != nil || got != w {
				t.Fatalf("String(%d) = %q, %v; want %q", i, got, err, w)
			}
		}
		// Scalar strings.
		s = schema(TypeString)
		b, err = AppendStrings(nil, h, s, ss)
		if err != nil {
			t.Fatal(err)
		}
		if blk, err = Parse(b, s); err != nil {
			t.Fatal(err)
		}
		got, err := blk.AppendStrings(nil)
		if err != nil || !slices.Equal(got, ss) {
			t.Fatalf("strings: %v %q want %q", err, got, ss)
		}
	}
}

func TestParseErrors(t *testing.T) {
	h := Header{SchemaVersion: 2}
	i32, _ := AppendInt32s(nil, h, []int32{1, 2, 3})
	s3 := mustSchema(t, 2, TypeString, 2, nil, []int{5, 5})
	str, _ := AppendStrings(nil, h, s3, []string{"ab", "cde"})
	bl, _ := AppendBools(nil, h, []bool{true, false, true})
	tests := []struct {
		name string
		b    []byte
		s    *Schema
		want error
	}{
		{"short", i32[:5], nil, ErrShortBlock},
		{"int32 not multiple of 4", i32[:len(i32)-1], nil, ErrDataLength},
		{"int32 schema count", i32, mustSchema(t, 2, TypeInt32, 4, nil, nil), ErrDataLength},
		{"schema type", i32, mustSchema(t, 2, TypeInt64, 3, nil, nil), ErrSchema},
		{"schema version", i32, mustSchema(t, 3, TypeInt32, 3, nil, nil), ErrSchema},
		{"string truncated", str[:len(str)-1], s3, ErrDataLength},
		{"string trailing", append(slices.Clip(str), 'x'), s3, ErrDataLength},
		{"string lengths truncated", str[:HeaderLen+3], s3, ErrDataLength},
		{"bool padding without data", func() []byte {
			b := slices.Clone(bl[:HeaderLen])
			return b
		}(), nil, ErrBoolPadding},
		{"compressed", func() []byte {
			b := slices.Clone(i32)
			b[7] |= 1 << 1
			return b
		}(), nil, ErrCompressed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse(tc.b, tc.s); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestAccessorErrors(t *testing.T) {
	h := Header{}
	i32, _ := AppendInt32s(nil, h, []int32{1})
	blk, err := Parse(i32, nil)
	if err != nil {
		t.Fatal(err)
	}
	mismatch := []error{}
	_, e := blk.Float32(0)
	mismatch = append(mismatch, e)
	_, e = blk.Uint32(0)
	mismatch = append(mismatch, e)
	_, e = blk.Uint64(0)
	mismatch = append(mismatch, e)
	_, e = blk.Float64(0)
	mismatch = append(mismatch, e)
	_, e = blk.Bool(0)
	mismatch = append(mismatch, e)
	_, e = blk.String(0)
	mismatch = append(mismatch, e)
	_, e = blk.AppendFloat32s(nil)
	mismatch = append(mismatch, e)
	_, e = blk.AppendBools(nil)
	mismatch = append(mismatch, e)
	_, e = blk.AppendStrings(nil)
	mismatch = append(mismatch, e)
	_, e = blk.AppendUint64s(nil)
	mismatch = append(mismatch, e)
	for i, e := range mismatch {
		if !errors.Is(e, ErrTypeMismatch) {
			t.Errorf("case %d: err = %v, want ErrTypeMismatch", i, e)
		}
	}
	if _, err := blk.AppendInt32Vector(nil, 0); !errors.Is(err, ErrSchema) {
		t.Errorf("vector read without schema: %v", err)
	}
	// A string block parsed without a schema cannot be read.
	s := mustSchema(t, 0, TypeString, 1, nil, []int{3})
	str, _ := AppendStrings(nil, h, s, []string{"abc"})
	sb, err := Parse(str, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sb.String(0); !errors.Is(err, ErrSchema) {
		t.Errorf("String without schema: %v", err)
	}
	if _, err := sb.Len(); !errors.Is(err, ErrSchema) {
		t.Errorf("Len without schema: %v", err)
	}
	if _, err := sb.AppendStringViews(nil); !errors.Is(err, ErrSchema) {
		t.Errorf("views without schema: %v", err)
	}
	// Views are clipped: appending to one must not overwrite the block.
	sb, _ = Parse(str, s)
	v, _ := sb.StringBytes(0)
	_ = append(v, 'X')
	if got, _ := sb.String(0); got != "abc" || cap(v) != 3 {
		t.Errorf("view not clipped")
	}
}

func TestZeroCopy(t *testing.T) {
	b, _ := AppendInt32s(nil, Header{}, []int32{1, 2})
	blk, _ := Parse(b, nil)
	b[HeaderLen] = 9
	if v, _ := blk.Int32(0); v != 9 {
		t.Fatal("Parse must read the input in place")
	}
	if &blk.Data()[0] != &b[HeaderLen] {
		t.Fatal("Data is not a view of the input")
	}
}

func TestSchemaErrors(t *testing.T) {
	tests := []struct {
		name string
		dt   DataType
		n    int
		vec  []int
		str  []int
	}{
		{"invalid type", 0, 1, nil, nil},
		{"negative count", TypeInt32, -1, nil, nil},
		{"vector lengths missing", TypeInt32Vector, 2, []int{1}, nil},
		{"negative vector length", TypeInt32Vector, 1, []int{-1}, nil},
		{"vector lengths on scalar", TypeInt32, 1, []int{1}, nil},
		{"string lengths missing", TypeString, 2, nil, []int{1}},
		{"string length too big", TypeString, 1, nil, []int{65536}},
		{"string lengths on int", TypeInt32, 1, nil, []int{1}},
	}
	for _, tc := range tests {
		if _, err := NewSchema(1, tc.dt, tc.n, tc.vec, tc.str); !errors.Is(err, ErrSchema) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
	s := mustSchema(t, 4, TypeStringVector, 2, []int{3, 1}, []int{10, 20})
	if s.Version() != 4 || s.DataType() != TypeStringVector || s.NumFeatures() != 2 || s.Elements() != 4 {
		t.Error("schema accessors")
	}
	if l, _ := s.VectorLength(1); l != 1 {
		t.Error("VectorLength")
	}
	if m, _ := s.MaxStringLength(1); m != 20 {
		t.Error("MaxStringLength")
	}
	if _, err := s.VectorLength(2); !errors.Is(err, ErrIndex) {
		t.Error("VectorLength range")
	}
	if h := s.Header(0); h.DataType != TypeStringVector || h.SchemaVersion != 4 {
		t.Error("Header")
	}
}
