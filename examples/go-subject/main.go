// Command gobsubject measures encoding/gob — a serializer serbench does not
// ship — in serbench's tables, from a module of its own: the whole of
// serbench's command line with the subject gob:gob added.
//
//	go run . run records --scale quick   # gob:gob beside every built-in subject
//	go run . runner check                # does the subject round-trip the rows?
package main

import (
	"bytes"
	"encoding/gob"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/serbench/serbench/runnerkit"
)

func main() { runnerkit.Main("gob", gobSubject{}) }

// gobSubject encodes a flat record batch as one gob value: its columns,
// each a typed slice with a validity slice.
type gobSubject struct{}

// table is what gob encodes.
type table struct {
	Rows int
	Cols []column
}

// column is one column: Type says which of I, F, S, B holds its values.
type column struct {
	Name, Type string
	Valid      []bool
	I          []int64
	F          []float64
	S          []string
	B          []bool
}

func (gobSubject) Name() string { return "gob" }

func (gobSubject) Describe() runnerkit.Description {
	return runnerkit.Description{Format: "gob", Library: "encoding/gob", Version: "(Go standard library)",
		Labels: map[string]string{"codegen": "no", "reuse": "no", "zero_copy": "no", "nesting": "flat"}}
}

func (gobSubject) Encode(dst []byte, rec arrow.RecordBatch) ([]byte, error) {
	t := table{Rows: int(rec.NumRows())}
	for j, f := range rec.Schema().Fields() {
		c := column{Name: f.Name, Valid: make([]bool, t.Rows)}
		for i := range t.Rows {
			c.Valid[i] = rec.Column(j).IsValid(i)
		}
		switch a := rec.Column(j).(type) {
		case *array.Int64:
			c.Type, c.I = "int64", a.Int64Values()
		case *array.Float64:
			c.Type, c.F = "float64", a.Float64Values()
		case *array.String:
			c.Type = "string"
			for i := range t.Rows {
				c.S = append(c.S, a.Value(i))
			}
		case *array.Boolean:
			c.Type = "bool"
			for i := range t.Rows {
				c.B = append(c.B, a.Value(i))
			}
		default:
			return nil, fmt.Errorf("gob subject: column %q: type %s not supported (int64, float64, string, bool)", f.Name, f.Type)
		}
		t.Cols = append(t.Cols, c)
	}
	buf := bytes.NewBuffer(dst)
	if err := gob.NewEncoder(buf).Encode(&t); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (gobSubject) Decode(src []byte) (arrow.RecordBatch, error) {
	var t table
	if err := gob.NewDecoder(bytes.NewReader(src)).Decode(&t); err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, len(t.Cols))
	cols := make([]arrow.Array, len(t.Cols))
	for j, c := range t.Cols {
		var b array.Builder
		switch c.Type {
		case "int64":
			bb := array.NewInt64Builder(memory.DefaultAllocator)
			bb.AppendValues(c.I, c.Valid)
			b, fields[j] = bb, arrow.Field{Name: c.Name, Type: arrow.PrimitiveTypes.Int64, Nullable: true}
		case "float64":
			bb := array.NewFloat64Builder(memory.DefaultAllocator)
			bb.AppendValues(c.F, c.Valid)
			b, fields[j] = bb, arrow.Field{Name: c.Name, Type: arrow.PrimitiveTypes.Float64, Nullable: true}
		case "string":
			bb := array.NewStringBuilder(memory.DefaultAllocator)
			bb.AppendValues(c.S, c.Valid)
			b, fields[j] = bb, arrow.Field{Name: c.Name, Type: arrow.BinaryTypes.String, Nullable: true}
		case "bool":
			bb := array.NewBooleanBuilder(memory.DefaultAllocator)
			bb.AppendValues(c.B, c.Valid)
			b, fields[j] = bb, arrow.Field{Name: c.Name, Type: arrow.FixedWidthTypes.Boolean, Nullable: true}
		default:
			return nil, fmt.Errorf("gob subject: column %q of unknown type %q", c.Name, c.Type)
		}
		cols[j] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(t.Rows))
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}
