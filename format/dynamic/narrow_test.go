package dynamic

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/fxamacker/cbor/v2"
	"github.com/tinylib/msgp/msgp"
)

// TestFloat32Widened: a float32 column written as float64 by another
// language (Python's msgpack and cbor2 have only doubles) reads back as
// the float32 it was, in MessagePack (row and flat decoders) and CBOR; a
// double no float32 holds is an error, never a rounded value.
func TestFloat32Widened(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "f", Type: arrow.PrimitiveTypes.Float32}}, nil)
	vals := []float32{1.1, float32(math.Copysign(0, -1)), float32(math.Inf(1)), 3.4028235e38, 1e-45}
	var mp []byte
	var cb bytes.Buffer
	enc := cbor.NewEncoder(&cb)
	for _, v := range vals {
		mp = msgp.AppendMapHeader(mp, 1)
		mp = msgp.AppendString(mp, "f")
		mp = msgp.AppendFloat64(mp, float64(v))
		if err := enc.Encode(map[string]float64{"f": float64(v)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"msgpack", "cbor"} {
		t.Run(name, func(t *testing.T) {
			var f Format
			var err error
			data := mp
			if name == "cbor" {
				f, err = NewCBOR(schema, Options{})
				data = cb.Bytes()
			} else {
				f, err = NewMsgpack(schema, Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			got := decodeAllF32(t, f, data)
			if len(got) != len(vals) {
				t.Fatalf("read %d values, want %d", len(got), len(vals))
			}
			for i, v := range vals {
				if math.Float32bits(got[i]) != math.Float32bits(v) {
					t.Errorf("value %d: %v, want %v", i, got[i], v)
				}
			}
		})
	}
	if _, err := narrowFloat32(0.1); err == nil {
		t.Error("0.1 as float64 narrowed to a float32")
	}
	if f, err := narrowFloat32(math.NaN()); err != nil || !math.IsNaN(float64(f)) {
		t.Errorf("NaN: %v, %v", f, err)
	}
}

func decodeAllF32(t *testing.T, f Format, data []byte) []float32 {
	t.Helper()
	d, err := f.NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []float32
	for {
		var b arrow.RecordBatch
		err := d.Decode(&b)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatal(err)
		}
		col := b.Column(0).(*array.Float32)
		out = append(out, col.Float32Values()...)
	}
	return out
}
