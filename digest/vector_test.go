package digest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// vector is one test vector file, testdata/*.json (format in docs/runner-protocol.md).
type vector struct {
	Description  string            `json:"description"`
	Schema       []*vfield         `json:"schema"`
	Rows         []map[string]any  `json:"rows"`
	Columns      map[string]string `json:"columns"`
	Table        string            `json:"table"`
	EqualColumns [][]string        `json:"equal_columns,omitempty"`
}

// vfield is a field of a vector's schema.
type vfield struct {
	Name     string          `json:"name"`
	Type     json.RawMessage `json:"type"`
	Nullable *bool           `json:"nullable,omitempty"`

	dt   arrow.DataType
	elem *vtype // parsed type
}

// vtype is a parsed vector type: a primitive name or a nested type.
type vtype struct {
	prim   string    // primitive name, or "" for nested
	list   string    // "list", "large_list", "fixed_size_list"
	size   int       // fixed_size_list size
	elem   *vtype    // list element or dictionary value type
	fields []*vfield // struct fields
	dict   bool
	dt     arrow.DataType
}

var (
	decimalRE     = regexp.MustCompile(`^decimal(128|256)\((\d+),\s*(-?\d+)\)$`)
	fixedBinaryRE = regexp.MustCompile(`^fixed_size_binary\((\d+)\)$`)
	unitRE        = regexp.MustCompile(`^(time32|time64|duration)\[(s|ms|us|ns)\]$`)
)

// unitType parses time32[s|ms], time64[us|ns] and duration[s|ms|us|ns].
func unitType(name string) (arrow.DataType, bool) {
	m := unitRE.FindStringSubmatch(name)
	if m == nil {
		return nil, false
	}
	u := map[string]arrow.TimeUnit{"s": arrow.Second, "ms": arrow.Millisecond, "us": arrow.Microsecond, "ns": arrow.Nanosecond}[m[2]]
	switch {
	case m[1] == "duration":
		return &arrow.DurationType{Unit: u}, true
	case m[1] == "time32" && u <= arrow.Millisecond:
		return &arrow.Time32Type{Unit: u}, true
	case m[1] == "time64" && u >= arrow.Microsecond:
		return &arrow.Time64Type{Unit: u}, true
	}
	return nil, false
}

func readVector(path string) (*vector, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v vector
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	for _, f := range v.Schema {
		if err := f.parse(); err != nil {
			return nil, fmt.Errorf("%s: field %q: %w", filepath.Base(path), f.Name, err)
		}
	}
	return &v, nil
}

func (f *vfield) nullable() bool { return f.Nullable == nil || *f.Nullable }

func (f *vfield) parse() error {
	t, err := parseType(f.Type)
	if err != nil {
		return err
	}
	f.elem, f.dt = t, t.dt
	return nil
}

func (f *vfield) arrowField() arrow.Field {
	return arrow.Field{Name: f.Name, Type: f.dt, Nullable: f.nullable()}
}

func parseType(raw json.RawMessage) (*vtype, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		t := &vtype{prim: name}
		switch name {
		case "bool":
			t.dt = arrow.FixedWidthTypes.Boolean
		case "int8":
			t.dt = arrow.PrimitiveTypes.Int8
		case "int16":
			t.dt = arrow.PrimitiveTypes.Int16
		case "int32":
			t.dt = arrow.PrimitiveTypes.Int32
		case "int64":
			t.dt = arrow.PrimitiveTypes.Int64
		case "uint8":
			t.dt = arrow.PrimitiveTypes.Uint8
		case "uint16":
			t.dt = arrow.PrimitiveTypes.Uint16
		case "uint32":
			t.dt = arrow.PrimitiveTypes.Uint32
		case "uint64":
			t.dt = arrow.PrimitiveTypes.Uint64
		case "float32":
			t.dt = arrow.PrimitiveTypes.Float32
		case "float64":
			t.dt = arrow.PrimitiveTypes.Float64
		case "string":
			t.dt = arrow.BinaryTypes.String
		case "large_string":
			t.dt = arrow.BinaryTypes.LargeString
		case "binary":
			t.dt = arrow.BinaryTypes.Binary
		case "date32":
			t.dt = arrow.FixedWidthTypes.Date32
		case "timestamp[s]":
			t.dt = &arrow.TimestampType{Unit: arrow.Second, TimeZone: "UTC"}
		case "timestamp[ms]":
			t.dt = &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
		case "timestamp[us]":
			t.dt = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
		case "timestamp[ns]":
			t.dt = &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
		case "null":
			t.dt = arrow.Null
		case "float16":
			t.dt = arrow.FixedWidthTypes.Float16
		case "large_binary":
			t.dt = arrow.BinaryTypes.LargeBinary
		case "string_view":
			t.dt = arrow.BinaryTypes.StringView
		case "binary_view":
			t.dt = arrow.BinaryTypes.BinaryView
		case "date64":
			t.dt = arrow.FixedWidthTypes.Date64
		default:
			if dt, ok := unitType(name); ok {
				t.dt = dt
				break
			}
			if m := fixedBinaryRE.FindStringSubmatch(name); m != nil {
				n, _ := strconv.Atoi(m[1])
				t.dt = &arrow.FixedSizeBinaryType{ByteWidth: n}
				break
			}
			m := decimalRE.FindStringSubmatch(name)
			if m == nil {
				return nil, fmt.Errorf("unknown type %q", name)
			}
			p, _ := strconv.Atoi(m[2])
			s, _ := strconv.Atoi(m[3])
			if m[1] == "256" {
				t.dt = &arrow.Decimal256Type{Precision: int32(p), Scale: int32(s)}
			} else {
				t.dt = &arrow.Decimal128Type{Precision: int32(p), Scale: int32(s)}
			}
		}
		return t, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("type %s: %w", raw, err)
	}
	t := &vtype{}
	for _, k := range []string{"list", "large_list", "fixed_size_list"} {
		if e, ok := obj[k]; ok {
			elem, err := parseType(e)
			if err != nil {
				return nil, err
			}
			t.list, t.elem = k, elem
			switch k {
			case "list":
				t.dt = arrow.ListOf(elem.dt)
			case "large_list":
				t.dt = arrow.LargeListOf(elem.dt)
			default:
				if err := json.Unmarshal(obj["size"], &t.size); err != nil || t.size <= 0 {
					return nil, fmt.Errorf("fixed_size_list needs a positive size")
				}
				t.dt = arrow.FixedSizeListOf(int32(t.size), elem.dt)
			}
			return t, nil
		}
	}
	if e, ok := obj["map"]; ok {
		var kv struct{ Key, Value json.RawMessage }
		if err := json.Unmarshal(e, &kv); err != nil {
			return nil, fmt.Errorf("map: %w", err)
		}
		k, err := parseType(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := parseType(kv.Value)
		if err != nil {
			return nil, err
		}
		t.dt = arrow.MapOf(k.dt, v.dt)
		t.list, t.elem = "map", &vtype{fields: []*vfield{{Name: "key", elem: k, dt: k.dt}, {Name: "value", elem: v, dt: v.dt}}, dt: t.dt.(*arrow.MapType).Elem()}
		return t, nil
	}
	if e, ok := obj["dictionary"]; ok {
		elem, err := parseType(e)
		if err != nil {
			return nil, err
		}
		t.dict, t.elem = true, elem
		t.dt = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: elem.dt}
		return t, nil
	}
	if e, ok := obj["struct"]; ok {
		if err := json.Unmarshal(e, &t.fields); err != nil {
			return nil, err
		}
		fs := make([]arrow.Field, len(t.fields))
		for i, f := range t.fields {
			if err := f.parse(); err != nil {
				return nil, fmt.Errorf("field %q: %w", f.Name, err)
			}
			fs[i] = f.arrowField()
		}
		t.dt = arrow.StructOf(fs...)
		return t, nil
	}
	return nil, fmt.Errorf("unknown type %s", raw)
}

func (v *vector) arrowSchema() *arrow.Schema {
	fs := make([]arrow.Field, len(v.Schema))
	for i, f := range v.Schema {
		fs[i] = f.arrowField()
	}
	return arrow.NewSchema(fs, nil)
}

// batch builds a record batch of rows.
func (v *vector) batch(schema *arrow.Schema, rows []map[string]any) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for r, row := range rows {
		for i, f := range v.Schema {
			val, ok := row[f.Name]
			if !ok {
				return nil, fmt.Errorf("row %d: field %q missing", r, f.Name)
			}
			if err := appendValue(b.Field(i), f.elem, val); err != nil {
				return nil, fmt.Errorf("row %d: field %q: %w", r, f.Name, err)
			}
		}
	}
	return b.NewRecordBatch(), nil
}

func num(v any) (json.Number, error) {
	n, ok := v.(json.Number)
	if !ok {
		return "", fmt.Errorf("want a number, got %T %v", v, v)
	}
	return n, nil
}

func intValue(v any) (int64, error) {
	n, err := num(v)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(n.String(), 10, 64)
}

// floatValue parses a JSON number or one of the strings "NaN", "Infinity", "-Infinity",
// "-0.0" or "bits:HEX" (the IEEE-754 bit pattern: 8 hex digits for float32, 16 for float64).
func floatValue(v any, bits32 bool) (float64, error) {
	switch x := v.(type) {
	case json.Number:
		return strconv.ParseFloat(x.String(), 64)
	case string:
		switch {
		case x == "NaN":
			return math.NaN(), nil
		case x == "Infinity":
			return math.Inf(1), nil
		case x == "-Infinity":
			return math.Inf(-1), nil
		case strings.HasPrefix(x, "bits:"):
			u, err := strconv.ParseUint(x[5:], 16, 64)
			if err != nil {
				return 0, err
			}
			if bits32 {
				return float64(math.Float32frombits(uint32(u))), nil
			}
			return math.Float64frombits(u), nil
		}
		return strconv.ParseFloat(x, 64)
	}
	return 0, fmt.Errorf("want a float, got %T %v", v, v)
}

func appendValue(b array.Builder, t *vtype, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return fmt.Errorf("want a bool, got %v", v)
		}
		bb.Append(x)
	case *array.MapBuilder:
		xs, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want an array of {key, value}, got %v", v)
		}
		bb.Append(true)
		for j, x := range xs {
			kv, ok := x.(map[string]any)
			if !ok {
				return fmt.Errorf("[%d]: want {key, value}, got %v", j, x)
			}
			if err := appendValue(bb.KeyBuilder(), t.elem.fields[0].elem, kv["key"]); err != nil {
				return fmt.Errorf("[%d].key: %w", j, err)
			}
			if err := appendValue(bb.ItemBuilder(), t.elem.fields[1].elem, kv["value"]); err != nil {
				return fmt.Errorf("[%d].value: %w", j, err)
			}
		}
	case *array.Date64Builder, *array.Time32Builder, *array.Time64Builder, *array.DurationBuilder:
		x, err := intValue(v)
		if err != nil {
			return err
		}
		switch bb := b.(type) {
		case *array.Date64Builder:
			bb.Append(arrow.Date64(x))
		case *array.Time32Builder:
			if x != int64(int32(x)) {
				return fmt.Errorf("%d overflows time32", x)
			}
			bb.Append(arrow.Time32(x))
		case *array.Time64Builder:
			bb.Append(arrow.Time64(x))
		case *array.DurationBuilder:
			bb.Append(arrow.Duration(x))
		}
	case *array.Float16Builder:
		x, err := floatValue(v, true)
		if err != nil {
			return err
		}
		bb.Append(float16.New(float32(x)))
	case *array.StringViewBuilder:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %v", v)
		}
		bb.Append(s)
	case *array.BinaryViewBuilder, *array.FixedSizeBinaryBuilder:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a hex string, got %v", v)
		}
		x, err := hex.DecodeString(s)
		if err != nil {
			return err
		}
		switch bb := b.(type) {
		case *array.BinaryViewBuilder:
			bb.Append(x)
		case *array.FixedSizeBinaryBuilder:
			if len(x) != bb.Type().(*arrow.FixedSizeBinaryType).ByteWidth {
				return fmt.Errorf("%d bytes for %s", len(x), bb.Type())
			}
			bb.Append(x)
		}
	case *array.Decimal256Builder:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a decimal string, got %v", v)
		}
		dt := t.dt.(*arrow.Decimal256Type)
		x, err := decimal256.FromString(s, dt.Precision, dt.Scale)
		if err != nil {
			return err
		}
		bb.Append(x)
	case *array.Int8Builder, *array.Int16Builder, *array.Int32Builder, *array.Int64Builder,
		*array.Date32Builder, *array.TimestampBuilder:
		x, err := intValue(v)
		if err != nil {
			return err
		}
		switch bb := b.(type) {
		case *array.Int8Builder:
			if x != int64(int8(x)) {
				return fmt.Errorf("%d overflows int8", x)
			}
			bb.Append(int8(x))
		case *array.Int16Builder:
			if x != int64(int16(x)) {
				return fmt.Errorf("%d overflows int16", x)
			}
			bb.Append(int16(x))
		case *array.Int32Builder:
			if x != int64(int32(x)) {
				return fmt.Errorf("%d overflows int32", x)
			}
			bb.Append(int32(x))
		case *array.Int64Builder:
			bb.Append(x)
		case *array.Date32Builder:
			bb.Append(arrow.Date32(x))
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(x))
		}
	case *array.Uint8Builder, *array.Uint16Builder, *array.Uint32Builder, *array.Uint64Builder:
		n, err := num(v)
		if err != nil {
			return err
		}
		x, err := strconv.ParseUint(n.String(), 10, 64)
		if err != nil {
			return err
		}
		switch bb := b.(type) {
		case *array.Uint8Builder:
			bb.Append(uint8(x))
		case *array.Uint16Builder:
			bb.Append(uint16(x))
		case *array.Uint32Builder:
			bb.Append(uint32(x))
		case *array.Uint64Builder:
			bb.Append(x)
		}
	case *array.Float32Builder:
		x, err := floatValue(v, true)
		if err != nil {
			return err
		}
		if s, ok := v.(string); ok && strings.HasPrefix(s, "bits:") {
			u, _ := strconv.ParseUint(s[5:], 16, 32)
			bb.Append(math.Float32frombits(uint32(u)))
			return nil
		}
		bb.Append(float32(x))
	case *array.Float64Builder:
		x, err := floatValue(v, false)
		if err != nil {
			return err
		}
		bb.Append(x)
	case *array.StringBuilder:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %v", v)
		}
		bb.Append(s)
	case *array.LargeStringBuilder:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %v", v)
		}
		bb.Append(s)
	case *array.BinaryBuilder: // binary and large_binary
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a hex string, got %v", v)
		}
		x, err := hex.DecodeString(s)
		if err != nil {
			return err
		}
		bb.Append(x)
	case *array.Decimal128Builder:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a decimal string, got %v", v)
		}
		dt := t.dt.(*arrow.Decimal128Type)
		x, err := decimal128.FromString(s, dt.Precision, dt.Scale)
		if err != nil {
			return err
		}
		bb.Append(x)
	case *array.BinaryDictionaryBuilder:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %v", v)
		}
		return bb.AppendString(s)
	case *array.StructBuilder:
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object, got %v", v)
		}
		bb.Append(true)
		for i, f := range t.fields {
			fv, ok := obj[f.Name]
			if !ok {
				return fmt.Errorf("field %q missing", f.Name)
			}
			if err := appendValue(bb.FieldBuilder(i), f.elem, fv); err != nil {
				return fmt.Errorf("field %q: %w", f.Name, err)
			}
		}
	case interface {
		Append(bool)
		ValueBuilder() array.Builder
	}:
		xs, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want an array, got %v", v)
		}
		if t.list == "fixed_size_list" && len(xs) != t.size {
			return fmt.Errorf("fixed_size_list of %d holds %d values", t.size, len(xs))
		}
		bb.Append(true)
		for j, x := range xs {
			if err := appendValue(bb.ValueBuilder(), t.elem, x); err != nil {
				return fmt.Errorf("[%d]: %w", j, err)
			}
		}
	default:
		return fmt.Errorf("no builder for %T", b)
	}
	return nil
}
