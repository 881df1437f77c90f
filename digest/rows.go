package digest

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// This file writes a dataset in the protocol's JSON forms (§1 and §8 of
// docs/runner-protocol.md): schema.json, the schema in the vector type
// grammar, and data.jsonl, one row per line encoded as the test vectors'
// rows are. A runner without an Arrow library reads these instead of
// data.arrows, and digests the same values.

// SchemaJSON is schema in the vector type grammar: a JSON array of
// fields {"name", "type", "nullable"}. A type the grammar has no word for
// is an error naming the field.
func SchemaJSON(schema *arrow.Schema) ([]byte, error) {
	fs, err := fieldsJSON(schema.Fields())
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(fs, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("schema.json: %w", err)
	}
	return append(b, '\n'), nil
}

// fieldJSON is one field of schema.json.
type fieldJSON struct {
	Name     string `json:"name"`
	Type     any    `json:"type"`
	Nullable bool   `json:"nullable"`
}

func fieldsJSON(fs []arrow.Field) ([]fieldJSON, error) {
	out := make([]fieldJSON, len(fs))
	for i, f := range fs {
		t, err := typeJSON(f.Type)
		if err != nil {
			return nil, fmt.Errorf("schema.json: field %q: %w", f.Name, err)
		}
		out[i] = fieldJSON{Name: f.Name, Type: t, Nullable: f.Nullable}
	}
	return out, nil
}

// typeJSON is dt's word or object in the vector type grammar.
func typeJSON(dt arrow.DataType) (any, error) {
	unit := func(u arrow.TimeUnit) string { return u.String() }
	switch t := dt.(type) {
	case *arrow.NullType:
		return "null", nil
	case *arrow.BooleanType, *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type,
		*arrow.Float16Type, *arrow.Float32Type, *arrow.Float64Type,
		*arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType,
		*arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType,
		*arrow.Date32Type, *arrow.Date64Type:
		return grammarName(dt), nil
	case *arrow.FixedSizeBinaryType:
		return fmt.Sprintf("fixed_size_binary(%d)", t.ByteWidth), nil
	case *arrow.TimestampType:
		return "timestamp[" + unit(t.Unit) + "]", nil
	case *arrow.Time32Type:
		return "time32[" + unit(t.Unit) + "]", nil
	case *arrow.Time64Type:
		return "time64[" + unit(t.Unit) + "]", nil
	case *arrow.DurationType:
		return "duration[" + unit(t.Unit) + "]", nil
	case *arrow.Decimal128Type:
		return fmt.Sprintf("decimal128(%d,%d)", t.Precision, t.Scale), nil
	case *arrow.Decimal256Type:
		return fmt.Sprintf("decimal256(%d,%d)", t.Precision, t.Scale), nil
	case *arrow.ListType:
		e, err := typeJSON(t.Elem())
		return map[string]any{"list": e}, err
	case *arrow.LargeListType:
		e, err := typeJSON(t.Elem())
		return map[string]any{"large_list": e}, err
	case *arrow.ListViewType:
		e, err := typeJSON(t.Elem())
		return map[string]any{"list_view": e}, err
	case *arrow.FixedSizeListType:
		e, err := typeJSON(t.Elem())
		return map[string]any{"fixed_size_list": e, "size": t.Len()}, err
	case *arrow.MapType:
		k, err := typeJSON(t.KeyType())
		if err != nil {
			return nil, err
		}
		v, err := typeJSON(t.ItemType())
		return map[string]any{"map": map[string]any{"key": k, "value": v}}, err
	case *arrow.StructType:
		fs, err := fieldsJSON(t.Fields())
		return map[string]any{"struct": fs}, err
	case *arrow.DictionaryType:
		v, err := typeJSON(t.ValueType)
		return map[string]any{"dictionary": v}, err
	case arrow.ExtensionType:
		return typeJSON(t.StorageType())
	}
	return nil, fmt.Errorf("type %s has no word in the grammar (version 1)", dt)
}

// grammarName is the grammar's word for a type without parameters.
func grammarName(dt arrow.DataType) string {
	switch dt.ID() {
	case arrow.BOOL:
		return "bool"
	case arrow.FLOAT16:
		return "float16"
	case arrow.FLOAT32:
		return "float32"
	case arrow.FLOAT64:
		return "float64"
	case arrow.STRING:
		return "string"
	case arrow.LARGE_STRING:
		return "large_string"
	case arrow.STRING_VIEW:
		return "string_view"
	case arrow.BINARY_VIEW:
		return "binary_view"
	case arrow.LARGE_BINARY:
		return "large_binary"
	}
	return dt.Name() // bool, int8 … uint64, binary, date32, date64: the same word
}

// RowsJSON writes each row of rec to w as one line of data.jsonl: an
// object with every top-level field, its values encoded as §8 encodes the
// vectors' rows — integers, dates, times, durations and timestamps (in
// their column's unit) as JSON integers of up to 64 bits; floats as the
// shortest number that reads back to the same value of the column's
// width, or "NaN", "Infinity", "-Infinity", "-0.0"; strings as strings;
// binary as hex; decimals as plain decimal strings; lists as arrays;
// structs as objects; maps as arrays of {"key", "value"} objects;
// dictionaries as their values; null as null.
func RowsJSON(w io.Writer, rec arrow.RecordBatch) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	names := make([][]byte, rec.NumCols())
	for j, f := range rec.Schema().Fields() {
		n, err := json.Marshal(f.Name)
		if err != nil {
			return fmt.Errorf("data.jsonl: %w", err)
		}
		names[j] = n
	}
	for i := range int(rec.NumRows()) {
		buf = append(buf[:0], '{')
		for j := range names {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, names[j]...)
			buf = append(buf, ':')
			var err error
			if buf, err = appendJSON(buf, rec.Column(j), i); err != nil {
				return fmt.Errorf("data.jsonl: row %d, column %q: %w", i, rec.Schema().Field(j).Name, err)
			}
		}
		buf = append(buf, '}', '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("data.jsonl: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("data.jsonl: %w", err)
	}
	return nil
}

// appendJSON appends the JSON of arr's value i.
func appendJSON(b []byte, arr arrow.Array, i int) ([]byte, error) {
	if arr.IsNull(i) {
		return append(b, "null"...), nil
	}
	switch a := arr.(type) {
	case *array.Null:
		return append(b, "null"...), nil
	case *array.Boolean:
		return strconv.AppendBool(b, a.Value(i)), nil
	case *array.Int8:
		return strconv.AppendInt(b, int64(a.Value(i)), 10), nil
	case *array.Int16:
		return strconv.AppendInt(b, int64(a.Value(i)), 10), nil
	case *array.Int32:
		return strconv.AppendInt(b, int64(a.Value(i)), 10), nil
	case *array.Int64:
		return strconv.AppendInt(b, a.Value(i), 10), nil
	case *array.Uint8:
		return strconv.AppendUint(b, uint64(a.Value(i)), 10), nil
	case *array.Uint16:
		return strconv.AppendUint(b, uint64(a.Value(i)), 10), nil
	case *array.Uint32:
		return strconv.AppendUint(b, uint64(a.Value(i)), 10), nil
	case *array.Uint64:
		return strconv.AppendUint(b, a.Value(i), 10), nil
	case *array.Float16:
		return appendFloat(b, float64(a.Value(i).Float32()), 32), nil
	case *array.Float32:
		return appendFloat(b, float64(a.Value(i)), 32), nil
	case *array.Float64:
		return appendFloat(b, a.Value(i), 64), nil
	case *array.String:
		return appendString(b, a.Value(i)), nil
	case *array.LargeString:
		return appendString(b, a.Value(i)), nil
	case *array.StringView:
		return appendString(b, a.Value(i)), nil
	case *array.Binary:
		return appendHex(b, a.Value(i)), nil
	case *array.LargeBinary:
		return appendHex(b, a.Value(i)), nil
	case *array.BinaryView:
		return appendHex(b, a.Value(i)), nil
	case *array.FixedSizeBinary:
		return appendHex(b, a.Value(i)), nil
	case *array.Date32:
		return strconv.AppendInt(b, int64(a.Value(i)), 10), nil
	case *array.Date64:
		return strconv.AppendInt(b, int64(a.Value(i)), 10), nil
	case *array.Timestamp:
		return strconv.AppendInt(b, int64(a.Value(i)), 10), nil
	case *array.Time32:
		return strconv.AppendInt(b, int64(a.Value(i)), 10), nil
	case *array.Time64:
		return strconv.AppendInt(b, int64(a.Value(i)), 10), nil
	case *array.Duration:
		return strconv.AppendInt(b, int64(a.Value(i)), 10), nil
	case *array.Decimal128:
		v := a.Value(i)
		return appendString(b, decimalString(v.BigInt(), a.DataType().(*arrow.Decimal128Type).Scale)), nil
	case *array.Decimal256:
		v := a.Value(i)
		return appendString(b, decimalString(v.BigInt(), a.DataType().(*arrow.Decimal256Type).Scale)), nil
	case *array.Dictionary:
		return appendJSON(b, a.Dictionary(), a.GetValueIndex(i))
	case array.ExtensionArray:
		return appendJSON(b, a.Storage(), i)
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		b = append(b, '{')
		for j, f := range st.Fields() {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendString(b, f.Name)
			b = append(b, ':')
			var err error
			if b, err = appendJSON(b, a.Field(j), i); err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
		}
		return append(b, '}'), nil
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		b = append(b, '[')
		for k := start; k < end; k++ {
			if k > start {
				b = append(b, ',')
			}
			b = append(b, `{"key":`...)
			var err error
			if b, err = appendJSON(b, keys, int(k)); err != nil {
				return nil, err
			}
			b = append(b, `,"value":`...)
			if b, err = appendJSON(b, items, int(k)); err != nil {
				return nil, err
			}
			b = append(b, '}')
		}
		return append(b, ']'), nil
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		vs := a.ListValues()
		b = append(b, '[')
		for k := start; k < end; k++ {
			if k > start {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, vs, int(k)); err != nil {
				return nil, fmt.Errorf("[%d]: %w", k-start, err)
			}
		}
		return append(b, ']'), nil
	}
	return nil, fmt.Errorf("type %s has no JSON form (version 1)", arr.DataType())
}

// appendFloat appends f as the shortest number that reads back to the
// same value at bits (32: a float32 column), or its special string.
func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	case f == 0 && math.Signbit(f):
		return append(b, `"-0.0"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

// appendString appends s as a JSON string. Arrow strings are UTF-8; bytes
// that are not would read back as U+FFFD, and the runner's digest then
// names the column.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// appendHex appends v as a JSON string of lowercase hex digits.
func appendHex(b []byte, v []byte) []byte {
	b = append(b, '"')
	b = hex.AppendEncode(b, v)
	return append(b, '"')
}
