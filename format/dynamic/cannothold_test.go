package dynamic

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestErrCannotHold: a format's documented limits wrap ErrCannotHold — a
// nested schema in CSV (at construction), NaN in JSON (at encoding).
func TestErrCannotHold(t *testing.T) {
	nested := arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true}}, nil)
	if _, err := NewCSV(nested, Options{}); !errors.Is(err, ErrCannotHold) {
		t.Errorf("CSV of a nested schema: err = %v, want ErrCannotHold", err)
	}
	flat := arrow.NewSchema([]arrow.Field{{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, flat)
	defer b.Release()
	b.Field(0).(*array.Float64Builder).Append(math.NaN())
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := NewJSONL(flat, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc, err := f.NewEncoder(&buf)
	if err != nil {
		t.Fatal(err)
	}
	err = enc.Encode(&rec)
	if err == nil {
		err = enc.Close()
	}
	if !errors.Is(err, ErrCannotHold) {
		t.Errorf("NaN in JSON: err = %v, want ErrCannotHold", err)
	}
}
