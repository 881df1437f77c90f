package dynamic

import (
	"bytes"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/fxamacker/cbor/v2"
)

// TestCBORDecimalFraction: a decimal column reads RFC 8949 decimal
// fractions (tag 4 [exponent, mantissa], as Python's cbor2 writes a
// Decimal) at the column's scale — integer and bignum mantissas, exponents
// above and below the scale — as well as serbench's own exact text, and
// refuses a fraction finer than the scale or wider than the precision.
func TestCBORDecimalFraction(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: &arrow.Decimal128Type{Precision: 20, Scale: 2}, Nullable: true}}, nil)
	f, err := NewCBOR(schema, Options{})
	if err != nil {
		t.Fatal(err)
	}
	type frac struct {
		_        struct{} `cbor:",toarray"`
		Exp      int64
		Mantissa any
	}
	tagged := func(exp int64, m any) cbor.Tag { return cbor.Tag{Number: 4, Content: frac{Exp: exp, Mantissa: m}} }
	big1, _ := new(big.Int).SetString("-123456789012345678", 10)
	big2, _ := new(big.Int).SetString("50000000000000000001", 10) // beyond uint64: a bignum
	tests := []struct {
		v    any
		want string // the value as text at scale 2, or a fragment of the error
		bad  bool
	}{
		{tagged(-2, int64(1234)), "12.34", false},
		{tagged(-1, int64(-5)), "-0.50", false},
		{tagged(1, uint64(7)), "70.00", false},
		{tagged(-3, int64(12340)), "12.34", false},
		{tagged(-2, big1), "-1234567890123456.78", false},
		{tagged(-2, big2), "500000000000000000.01", false},
		{"3.10", "3.10", false},
		{tagged(-3, int64(12345)), "more fraction digits than the column's scale 2", true},
		{tagged(20, int64(1)), "more digits than the column's precision 20", true},
		{cbor.Tag{Number: 5, Content: []int64{1, 2}}, "tag 5 where a decimal", true},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := cbor.NewEncoder(&buf).Encode(map[string]any{"d": tt.v}); err != nil {
			t.Fatal(err)
		}
		dec, err := f.NewDecoder(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeAll(dec)
		if tt.bad {
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v: error %v, want %q", tt.v, err, tt.want)
			}
			release(got)
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tt.v, err)
			continue
		}
		if s := got[0].Column(0).(*array.Decimal128).Value(0).ToString(2); s != tt.want {
			t.Errorf("%v read as %s, want %s", tt.v, s, tt.want)
		}
		release(got)
	}
}
