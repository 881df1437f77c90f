package features

import (
	"bytes"
	"math"
	"testing"

	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/psdb"
)

// edgeFloats are values that exercise rounding: zeros, subnormal and
// normal boundaries of fp16 and fp8, ties, and the largest finite values.
func edgeFloats() []float32 {
	v := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, 1.0 / 3, 65504, -65504, 448, -448, 464, 57344, 1000, -1000,
		0x1p-14, 0x1p-24, 0x1.8p-24, 0x1p-25, 0x1p-6, 0x1p-9, 0x1.8p-9, 0x1p-10, 0x1p-16, 0x1p-17, 0x1.4p0, 0x1.2p0, 0x1.1p0, 0x1.08p0,
		1 + 0x1p-11, 1 + 0x1p-10 + 0x1p-11, 1 + 0x1p-4, 1 + 0x1p-3 + 0x1p-4, 1 + 0x1p-3, 2 + 0x1p-2}
	for _, f := range v {
		v = append(v, -f, f*(1+0x1p-20), f*(1-0x1p-20))
	}
	return v
}

// inputsOf returns generated values of type t plus edge values (for the
// floats): what the limit row and psdb are compared on.
func inputsOf(t *testing.T, typ ds.Type, edges []float32) *ds.Data {
	t.Helper()
	d, err := ds.Generate(typ, 1001, 3)
	if err != nil {
		t.Fatal(err)
	}
	d.Float32 = append(d.Float32, edges...)
	return d
}

// TestLimitEncodeIsPSDBData checks that every limit encoder writes exactly
// psdb's data section for the same input.
func TestLimitEncodeIsPSDBData(t *testing.T) {
	h := psdb.Header{SchemaVersion: 1}
	var fp8Edges []float32
	for _, f := range edgeFloats() {
		if math.Abs(float64(f)) <= 448 {
			fp8Edges = append(fp8Edges, f)
		}
	}
	tests := []struct {
		typ   ds.Type
		edges []float32
		lim   func(d *ds.Data) []byte
		psdb  func(d *ds.Data) ([]byte, error)
	}{
		{ds.Int8, nil, func(d *ds.Data) []byte { b := make([]byte, len(d.Int32)); limNarrow8(b, d.Int32); return b },
			func(d *ds.Data) ([]byte, error) { return psdb.AppendInt8s(nil, h, d.Int32) }},
		{ds.Int16, nil, func(d *ds.Data) []byte { b := make([]byte, 2*len(d.Int32)); limNarrow16(b, d.Int32); return b },
			func(d *ds.Data) ([]byte, error) { return psdb.AppendInt16s(nil, h, d.Int32) }},
		{ds.Uint8, nil, func(d *ds.Data) []byte { b := make([]byte, len(d.Uint32)); limNarrow8(b, d.Uint32); return b },
			func(d *ds.Data) ([]byte, error) { return psdb.AppendUint8s(nil, h, d.Uint32) }},
		{ds.Uint16, nil, func(d *ds.Data) []byte { b := make([]byte, 2*len(d.Uint32)); limNarrow16(b, d.Uint32); return b },
			func(d *ds.Data) ([]byte, error) { return psdb.AppendUint16s(nil, h, d.Uint32) }},
		{ds.Int32, nil, func(d *ds.Data) []byte { return d.Raw }, func(d *ds.Data) ([]byte, error) { return psdb.AppendInt32s(nil, h, d.Int32) }},
		{ds.Int64, nil, func(d *ds.Data) []byte { return d.Raw }, func(d *ds.Data) ([]byte, error) { return psdb.AppendInt64s(nil, h, d.Int64) }},
		{ds.Uint32, nil, func(d *ds.Data) []byte { return d.Raw }, func(d *ds.Data) ([]byte, error) { return psdb.AppendUint32s(nil, h, d.Uint32) }},
		{ds.Uint64, nil, func(d *ds.Data) []byte { return d.Raw }, func(d *ds.Data) ([]byte, error) { return psdb.AppendUint64s(nil, h, d.Uint64) }},
		{ds.Float32, nil, func(d *ds.Data) []byte { return d.Raw }, func(d *ds.Data) ([]byte, error) { return psdb.AppendFloat32s(nil, h, d.Float32) }},
		{ds.Float64, nil, func(d *ds.Data) []byte { return d.Raw }, func(d *ds.Data) ([]byte, error) { return psdb.AppendFloat64s(nil, h, d.Float64) }},
		{ds.Bool, nil, func(d *ds.Data) []byte { return limPackBools(make([]byte, len(d.Raw)), d.Bool) }, func(d *ds.Data) ([]byte, error) { return psdb.AppendBools(nil, h, d.Bool) }},
		{ds.FP16, edgeFloats(), func(d *ds.Data) []byte { return limFP16Enc(make([]byte, 2*len(d.Float32)), d.Float32) },
			func(d *ds.Data) ([]byte, error) { return psdb.AppendFP16s(nil, h, d.Float32) }},
		{ds.FP8E4M3, fp8Edges, func(d *ds.Data) []byte { return limE4M3Enc(make([]byte, len(d.Float32)), d.Float32) },
			func(d *ds.Data) ([]byte, error) { return psdb.AppendFP8E4M3s(nil, h, d.Float32) }},
		{ds.FP8E5M2, edgeFloats(), func(d *ds.Data) []byte { return limE5M2Enc(make([]byte, len(d.Float32)), d.Float32) },
			func(d *ds.Data) ([]byte, error) { return psdb.AppendFP8E5M2s(nil, h, d.Float32) }},
		{ds.String, nil, func(d *ds.Data) []byte { return limStringsEnc(make([]byte, 2*len(d.String)+len(d.Raw)), d.String) },
			func(d *ds.Data) ([]byte, error) {
				maxLen := make([]int, len(d.String))
				for i := range maxLen {
					maxLen[i] = ds.MaxStringLen
				}
				s, err := psdb.NewSchema(1, psdb.TypeString, len(d.String), nil, maxLen)
				if err != nil {
					return nil, err
				}
				return psdb.AppendStrings(nil, h, s, d.String)
			}},
	}
	for _, tt := range tests {
		t.Run(string(tt.typ), func(t *testing.T) {
			d := inputsOf(t, tt.typ, tt.edges)
			want, err := tt.psdb(d)
			if err != nil {
				t.Fatal(err)
			}
			want = want[psdb.HeaderLen:]
			got := tt.lim(d)
			if !bytes.Equal(got, want) {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Fatalf("byte %d of %d: limit %#02x, psdb %#02x", i, len(want), got[i], want[i])
					}
				}
				t.Fatalf("limit wrote %d bytes, psdb %d", len(got), len(want))
			}
		})
	}
}

// TestLimitDecodeMatchesPSDB checks that every limit decoder reads every
// stored bit pattern as psdb's decoder does: all 65,536 halves, all 256
// codes of each fp8 type, every byte and 16-bit value of the narrow
// integers.
func TestLimitDecodeMatchesPSDB(t *testing.T) {
	all16 := make([]byte, 2<<16)
	for i := range 1 << 16 {
		all16[2*i], all16[2*i+1] = byte(i), byte(i>>8)
	}
	all8 := make([]byte, 256)
	for i := range all8 {
		all8[i] = byte(i)
	}
	// sameFloat compares bit for bit, except that any NaN equals any NaN.
	sameFloat := func(a, b float32) bool {
		return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
	}
	tests := []struct {
		name string
		data []byte
		lim  func(data []byte) []float64
		psdb func(data []byte) []float64
	}{
		{"fp16", all16, func(b []byte) []float64 { o := make([]float32, len(b)/2); limFP16Dec(o, b); return f64(o) },
			func(b []byte) []float64 { return psdbFloats(b, 2, psdb.FP16ToFloat32) }},
		{"fp8e4m3", all8, func(b []byte) []float64 {
			o := make([]float32, len(b))
			limFP8Dec(fp8Table(ds.FP8E4M3), o, b)
			return f64(o)
		},
			func(b []byte) []float64 {
				return psdbFloats(b, 1, func(c uint16) float32 { return psdb.FP8E4M3ToFloat32(uint8(c)) })
			}},
		{"fp8e5m2", all8, func(b []byte) []float64 {
			o := make([]float32, len(b))
			limFP8Dec(fp8Table(ds.FP8E5M2), o, b)
			return f64(o)
		},
			func(b []byte) []float64 {
				return psdbFloats(b, 1, func(c uint16) float32 { return psdb.FP8E5M2ToFloat32(uint8(c)) })
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := tt.lim(tt.data), tt.psdb(tt.data)
			if len(got) != len(want) {
				t.Fatalf("%d values, want %d", len(got), len(want))
			}
			for i := range want {
				if !sameFloat(float32(got[i]), float32(want[i])) {
					t.Fatalf("pattern %d: limit %g (%#x), psdb %g (%#x)", i, got[i], math.Float32bits(float32(got[i])), want[i], math.Float32bits(float32(want[i])))
				}
			}
		})
	}
	// The narrow integers: blocks holding every value, written and read
	// by psdb.
	var allI8, allI16 []int32
	var allU8, allU16 []uint32
	for v := -1 << 15; v < 1<<15; v++ {
		if v >= -128 && v < 128 {
			allI8 = append(allI8, int32(v))
			allU8 = append(allU8, uint32(v+128))
		}
		allI16 = append(allI16, int32(v))
		allU16 = append(allU16, uint32(v+1<<15))
	}
	h := psdb.Header{SchemaVersion: 1}
	ints := []struct {
		dt     psdb.DataType
		block  func() ([]byte, error)
		lim    func(b []byte) []int64
		signed bool
	}{
		{psdb.TypeInt8, func() ([]byte, error) { return psdb.AppendInt8s(nil, h, allI8) },
			func(b []byte) []int64 { o := make([]int32, len(b)); limWidenInt8(o, b); return i64(o) }, true},
		{psdb.TypeUint8, func() ([]byte, error) { return psdb.AppendUint8s(nil, h, allU8) },
			func(b []byte) []int64 { o := make([]uint32, len(b)); limWidenUint8(o, b); return i64(o) }, false},
		{psdb.TypeInt16, func() ([]byte, error) { return psdb.AppendInt16s(nil, h, allI16) },
			func(b []byte) []int64 { o := make([]int32, len(b)/2); limWidenInt16(o, b); return i64(o) }, true},
		{psdb.TypeUint16, func() ([]byte, error) { return psdb.AppendUint16s(nil, h, allU16) },
			func(b []byte) []int64 { o := make([]uint32, len(b)/2); limWidenUint16(o, b); return i64(o) }, false},
	}
	for _, tt := range ints {
		t.Run(tt.dt.String(), func(t *testing.T) {
			b, err := tt.block()
			if err != nil {
				t.Fatal(err)
			}
			blk, err := psdb.Parse(b, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			if tt.signed {
				v, err := blk.AppendInt32s(nil)
				if err != nil {
					t.Fatal(err)
				}
				want = i64(v)
			} else {
				v, err := blk.AppendUint32s(nil)
				if err != nil {
					t.Fatal(err)
				}
				want = i64(v)
			}
			got := tt.lim(blk.Data())
			if len(got) != len(want) {
				t.Fatalf("%d values, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("value %d: limit %d, psdb %d", i, got[i], want[i])
				}
			}
		})
	}
}

func f64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, f := range v {
		out[i] = float64(f)
	}
	return out
}

func i64[T int32 | uint32](v []T) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// psdbFloats decodes every width-byte pattern of data with conv.
func psdbFloats(data []byte, width int, conv func(uint16) float32) []float64 {
	out := make([]float64, 0, len(data)/width)
	for i := 0; i < len(data); i += width {
		c := uint16(data[i])
		if width == 2 {
			c |= uint16(data[i+1]) << 8
		}
		out = append(out, float64(conv(c)))
	}
	return out
}

// TestPSDBDecodeAllocatesNothing checks psdb's decode path of every type,
// strings included (zero-copy views into a reused psdb.Strings).
func TestPSDBDecodeAllocatesNothing(t *testing.T) {
	for _, typ := range ds.Types() {
		d, err := ds.Generate(typ, 100, 1)
		if err != nil {
			t.Fatal(err)
		}
		c, err := newPSDB(d)
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.Encode()
		if err != nil {
			t.Fatal(err)
		}
		b = append([]byte(nil), b...)
		if err := c.Decode(b); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(20, func() { _ = c.Decode(b) }); a != 0 {
			t.Errorf("%s: %v allocs per decode", typ, a)
		}
	}
}
