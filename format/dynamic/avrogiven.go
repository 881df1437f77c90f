package dynamic

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
	"github.com/serbench/serbench/format"
)

// SubjectAvroGiven is the name of the AvroGiven format.
const SubjectAvroGiven = "avro-avsc"

// AvroGiven is Avro object container files in the user's own schema (a
// record's .avsc): each row one datum of that record through hamba/avro's
// generic values (map[string]any), so the bytes are the ones the user's
// schema gives — their union branch order, enums by index, Avro maps,
// fixed types, logical types and names — not a schema serbench derives.
//
// The Arrow schema must be the one the record maps to in serbench's reader
// of a given --avsc (package userdata): a column per field, in the
// record's order; a union with null as a nullable value of the other
// branch, enums as their symbols (string), maps as lists of {key, value}
// entries in key order, fixed as binary, decimals as decimal128 (strings
// beyond 38 digits), date as date32, time-millis as int32 and time-micros as
// int64, the timestamps as timestamp[ms] or [µs] (UTC; the local ones
// without a zone), the null type as an always-null string. A union of
// several types other than null is read as its JSON text and cannot be
// written back: such a schema is refused as cannot hold.
type AvroGiven struct {
	schema *arrow.Schema
	rec    *avro.RecordSchema
	cols   []agCol
	api    avro.API
	o      Options
}

// agCol is one column's conversion: enc binds an array of a batch to a
// reader of its generic values, dec appends a decoded generic value.
type agCol struct {
	name string
	enc  agBind
	dec  agAppend
}

// agBind binds an array to the generic value of its row i.
type agBind func(arr arrow.Array) func(i int) (any, error)

// agAppend appends a generic value hamba decoded to b.
type agAppend func(b array.Builder, v any) error

// NewAvroGiven returns the Avro format of the record schema avsc (the JSON
// text of an .avsc) for rows of schema; a schema that is not the record's
// mapping is an error naming the first field that differs, and a record
// holding what cannot be written back (a union of several types, an Avro
// duration) is a cannot-hold error naming the field.
func NewAvroGiven(schema *arrow.Schema, avsc []byte, o Options) (*AvroGiven, error) {
	s, err := avro.ParseBytesWithCache(avsc, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("%s: not an Avro schema: %w", SubjectAvroGiven, err)
	}
	rec, ok := s.(*avro.RecordSchema)
	if !ok {
		return nil, fmt.Errorf("%s: the schema is a %s, want a record", SubjectAvroGiven, s.Type())
	}
	if len(rec.Fields()) != schema.NumFields() {
		return nil, fmt.Errorf("%s: the record %s has %d fields, the rows %d columns", SubjectAvroGiven, rec.FullName(), len(rec.Fields()), schema.NumFields())
	}
	f := &AvroGiven{schema: schema, rec: rec, o: o,
		// hamba allocates a string or bytes value at the length the
		// input declares before reading it: its default cap (1 MiB) would
		// refuse a large value of the user's, the largest buffer (1 GiB)
		// would let a corrupt length take that much.
		api: avro.Config{MaxByteSliceSize: agMaxValue, MaxSliceAllocSize: MaxBufferBytes}.Freeze()}
	for k, af := range schema.Fields() {
		rf := rec.Fields()[k]
		if rf.Name() != af.Name {
			return nil, fmt.Errorf("%s: column %d is %s, the record's field %s", SubjectAvroGiven, k, af.Name, rf.Name())
		}
		enc, dec, err := agNode(rf.Type(), af.Type, af.Nullable, af.Name, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", SubjectAvroGiven, err)
		}
		f.cols = append(f.cols, agCol{name: af.Name, enc: enc, dec: dec})
	}
	return f, nil
}

// Descriptor implements format.Format.
func (f *AvroGiven) Descriptor() format.Descriptor {
	d := descriptor(SubjectAvroGiven, "github.com/hamba/avro/v2/ocf", format.ModuleVersion("github.com/hamba/avro/v2", "v2.31.0"),
		"your .avsc's record "+f.rec.FullName()+" through hamba/avro's generic values (a map per row, "+
			"converted from and to Arrow rows), object container file with codec null",
		format.LabelBinary, format.LabelRow, format.LabelReflection)
	return d
}

// agMaxValue caps one string or bytes value, written or read; a longer
// value is cannot hold.
const agMaxValue = 64 << 20

// agMaxDepth bounds the schema's nesting (a recursive record).
const agMaxDepth = 64

// agNode returns the conversions of an Avro schema s whose values are an
// Arrow type dt.
func agNode(s avro.Schema, dt arrow.DataType, nullable bool, path string, depth int) (agBind, agAppend, error) {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if depth > agMaxDepth {
		return nil, nil, fmt.Errorf("field %s nests deeper than %d levels (a recursive record?)", elide(path, maxShown), agMaxDepth)
	}
	mismatch := func() error {
		return fmt.Errorf("field %s: the column's type %s is not the mapping of Avro %s", elide(path, maxShown), shortType(dt), s.Type())
	}
	switch t := s.(type) {
	case *avro.UnionSchema:
		return agUnion(t, dt, nullable, path, depth)
	case *avro.RecordSchema:
		st, ok := dt.(*arrow.StructType)
		if !ok || st.NumFields() != len(t.Fields()) {
			return nil, nil, mismatch()
		}
		return agRecord(t, st, path, depth)
	case *avro.ArraySchema:
		lt, ok := dt.(*arrow.ListType)
		if !ok {
			return nil, nil, mismatch()
		}
		return agArray(t.Items(), lt, path, depth)
	case *avro.MapSchema:
		lt, ok := dt.(*arrow.ListType)
		if !ok {
			return nil, nil, mismatch()
		}
		st, ok := lt.Elem().(*arrow.StructType)
		if !ok || st.NumFields() != 2 || st.Field(0).Type.ID() != arrow.STRING {
			return nil, nil, mismatch()
		}
		return agMap(t.Values(), st, path, depth)
	case *avro.EnumSchema:
		if dt.ID() != arrow.STRING {
			return nil, nil, mismatch()
		}
		return agString(), agAppendString, nil
	case *avro.FixedSchema:
		if l := t.Logical(); l != nil && l.Type() == avro.Duration {
			return nil, nil, cannotHold("field %s: an Avro duration is read as its text; %s cannot write it back", path, SubjectAvroGiven)
		}
		if l := t.Logical(); l != nil && l.Type() == avro.Decimal {
			return agDecimal(l, dt, path, mismatch)
		}
		if dt.ID() != arrow.BINARY {
			return nil, nil, mismatch()
		}
		return agFixed(t.Size(), path)
	case *avro.NullSchema:
		return func(arrow.Array) func(int) (any, error) { return func(int) (any, error) { return nil, nil } },
			func(b array.Builder, _ any) error { b.AppendNull(); return nil }, nil
	case *avro.PrimitiveSchema:
		return agPrimitive(t, dt, path, mismatch)
	}
	return nil, nil, cannotHold("field %s: Avro type %s is not supported", path, s.Type())
}

// agTypeName is the name a union's branch goes by in hamba's generic
// values: a named type's full name, else its type and logical type.
func agTypeName(s avro.Schema) string {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if n, ok := s.(avro.NamedSchema); ok {
		return n.FullName()
	}
	name := string(s.Type())
	if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		name += "." + string(l.Logical().Type())
	}
	return name
}

func agUnion(u *avro.UnionSchema, dt arrow.DataType, nullable bool, path string, depth int) (agBind, agAppend, error) {
	types := u.Types()
	if !u.Nullable() || len(types) != 2 {
		return nil, nil, cannotHold("field %s: a union of %d types is read as its JSON text; %s cannot write it back", path, len(types), SubjectAvroGiven)
	}
	if !nullable {
		return nil, nil, fmt.Errorf("field %s: a union with null maps to a nullable column", elide(path, maxShown))
	}
	other := types[0]
	if other.Type() == avro.Null {
		other = types[1]
	}
	name := agTypeName(other)
	enc, dec, err := agNode(other, dt, false, path, depth)
	if err != nil {
		return nil, nil, err
	}
	return func(arr arrow.Array) func(int) (any, error) {
			value := enc(arr)
			return func(i int) (any, error) {
				if arr.IsNull(i) {
					return nil, nil
				}
				v, err := value(i)
				if err != nil {
					return nil, err
				}
				return map[string]any{name: v}, nil
			}
		}, func(b array.Builder, v any) error {
			if v == nil {
				b.AppendNull()
				return nil
			}
			// hamba gives a branch it resolves to a Go type (the
			// primitives) bare, and one it does not (records, maps,
			// arrays, enums, fixed) as {name: value}.
			if m, ok := v.(map[string]any); ok && len(m) == 1 {
				if x, ok := m[name]; ok {
					v = x
				}
			}
			return dec(b, v)
		}, nil
}

func agRecord(r *avro.RecordSchema, st *arrow.StructType, path string, depth int) (agBind, agAppend, error) {
	n := len(r.Fields())
	names := make([]string, n)
	encs := make([]agBind, n)
	decs := make([]agAppend, n)
	for k, rf := range r.Fields() {
		af := st.Field(k)
		if af.Name != rf.Name() {
			return nil, nil, fmt.Errorf("field %s: member %d is %s, the record's field %s", elide(path, maxShown), k, af.Name, rf.Name())
		}
		var err error
		if encs[k], decs[k], err = agNode(rf.Type(), af.Type, af.Nullable, path+"."+rf.Name(), depth+1); err != nil {
			return nil, nil, err
		}
		names[k] = rf.Name()
	}
	return func(arr arrow.Array) func(int) (any, error) {
			sa := arr.(*array.Struct)
			fields := make([]func(int) (any, error), n)
			for k := range n {
				fields[k] = encs[k](sa.Field(k))
			}
			return func(i int) (any, error) {
				m := make(map[string]any, n)
				for k, field := range fields {
					v, err := field(i)
					if err != nil {
						return nil, err
					}
					m[names[k]] = v
				}
				return m, nil
			}
		}, func(b array.Builder, v any) error {
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("field %s: %T where a record was expected", path, v)
			}
			sb := b.(*array.StructBuilder)
			sb.Append(true)
			for k, dec := range decs {
				if err := dec(sb.FieldBuilder(k), m[names[k]]); err != nil {
					return err
				}
			}
			return nil
		}, nil
}

func agArray(items avro.Schema, lt *arrow.ListType, path string, depth int) (agBind, agAppend, error) {
	enc, dec, err := agNode(items, lt.Elem(), lt.ElemField().Nullable, path+"[]", depth+1)
	if err != nil {
		return nil, nil, err
	}
	return func(arr arrow.Array) func(int) (any, error) {
			la := arr.(*array.List)
			value := enc(la.ListValues())
			return func(i int) (any, error) {
				lo, hi := la.ValueOffsets(i)
				out := make([]any, 0, hi-lo)
				for j := lo; j < hi; j++ {
					v, err := value(int(j))
					if err != nil {
						return nil, err
					}
					out = append(out, v)
				}
				return out, nil
			}
		}, func(b array.Builder, v any) error {
			items, ok := v.([]any)
			if !ok {
				return fmt.Errorf("field %s: %T where an array was expected", path, v)
			}
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			vb := lb.ValueBuilder()
			for _, it := range items {
				if err := dec(vb, it); err != nil {
					return err
				}
			}
			return nil
		}, nil
}

func agMap(values avro.Schema, st *arrow.StructType, path string, depth int) (agBind, agAppend, error) {
	vf := st.Field(1)
	enc, dec, err := agNode(values, vf.Type, vf.Nullable, path+"{}", depth+1)
	if err != nil {
		return nil, nil, err
	}
	return func(arr arrow.Array) func(int) (any, error) {
			la := arr.(*array.List)
			entries := la.ListValues().(*array.Struct)
			keys := entries.Field(0).(*array.String)
			value := enc(entries.Field(1))
			return func(i int) (any, error) {
				lo, hi := la.ValueOffsets(i)
				out := make(map[string]any, hi-lo)
				for j := lo; j < hi; j++ {
					v, err := value(int(j))
					if err != nil {
						return nil, err
					}
					out[keys.Value(int(j))] = v
				}
				return out, nil
			}
		}, func(b array.Builder, v any) error {
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("field %s: %T where a map was expected", path, v)
			}
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			sb := lb.ValueBuilder().(*array.StructBuilder)
			for _, k := range sortedMapKeys(m) {
				sb.Append(true)
				sb.FieldBuilder(0).(*array.StringBuilder).Append(k)
				if err := dec(sb.FieldBuilder(1), m[k]); err != nil {
					return err
				}
			}
			return nil
		}, nil
}

// sortedMapKeys returns m's keys in order: an Avro map has no order, and
// the reader of a given --avsc stores entries sorted by key.
func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func agString() agBind {
	return func(arr arrow.Array) func(int) (any, error) {
		a := arr.(*array.String)
		return func(i int) (any, error) {
			v := a.Value(i)
			if len(v) > agMaxValue {
				return nil, cannotHold("a string of %d bytes, more than %s's %d", len(v), SubjectAvroGiven, agMaxValue)
			}
			return v, nil
		}
	}
}

func agAppendString(b array.Builder, v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%T where a string was expected", v)
	}
	b.(*array.StringBuilder).Append(s)
	return nil
}

func agFixed(size int, path string) (agBind, agAppend, error) {
	typ := reflect.ArrayOf(size, reflect.TypeFor[byte]())
	return func(arr arrow.Array) func(int) (any, error) {
			a := arr.(*array.Binary)
			return func(i int) (any, error) {
				v := a.Value(i)
				if len(v) != size {
					return nil, cannotHold("field %s: %d bytes in a fixed of %d", path, len(v), size)
				}
				out := reflect.New(typ).Elem()
				reflect.Copy(out, reflect.ValueOf(v))
				return out.Interface(), nil
			}
		}, func(b array.Builder, v any) error {
			rv := reflect.ValueOf(v)
			if rv.Kind() != reflect.Array || rv.Type().Elem().Kind() != reflect.Uint8 {
				return fmt.Errorf("field %s: %T where fixed bytes were expected", path, v)
			}
			out := make([]byte, rv.Len())
			reflect.Copy(reflect.ValueOf(out), rv)
			b.(*array.BinaryBuilder).Append(out)
			return nil
		}, nil
}

// agDecimal converts an Avro decimal (bytes or fixed): a decimal128 column
// of the schema's precision and scale, or its exact text beyond 38 digits.
func agDecimal(l avro.LogicalSchema, dt arrow.DataType, path string, mismatch func() error) (agBind, agAppend, error) {
	d, ok := l.(*avro.DecimalLogicalSchema)
	if !ok {
		return nil, nil, mismatch()
	}
	scale := d.Scale()
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	switch t := dt.(type) {
	case *arrow.Decimal128Type:
		if int(t.Scale) != scale {
			return nil, nil, mismatch()
		}
		return func(arr arrow.Array) func(int) (any, error) {
				a := arr.(*array.Decimal128)
				return func(i int) (any, error) {
					return new(big.Rat).SetFrac(a.Value(i).BigInt(), pow), nil
				}
			}, func(b array.Builder, v any) error {
				r, ok := v.(*big.Rat)
				if !ok {
					return fmt.Errorf("field %s: %T where a decimal was expected", path, v)
				}
				n := new(big.Int).Mul(r.Num(), pow)
				n.Quo(n, r.Denom())
				b.(*array.Decimal128Builder).Append(decimal128.FromBigInt(n))
				return nil
			}, nil
	case *arrow.StringType:
		return func(arr arrow.Array) func(int) (any, error) {
				a := arr.(*array.String)
				return func(i int) (any, error) {
					r, ok := new(big.Rat).SetString(a.Value(i))
					if !ok {
						return nil, fmt.Errorf("field %s: %q is not a decimal", path, elide(a.Value(i), maxShown))
					}
					return r, nil
				}
			}, func(b array.Builder, v any) error {
				r, ok := v.(*big.Rat)
				if !ok {
					return fmt.Errorf("field %s: %T where a decimal was expected", path, v)
				}
				b.(*array.StringBuilder).Append(r.FloatString(scale))
				return nil
			}, nil
	}
	return nil, nil, mismatch()
}

func agPrimitive(p *avro.PrimitiveSchema, dt arrow.DataType, path string, mismatch func() error) (agBind, agAppend, error) {
	var lt avro.LogicalType
	if l := p.Logical(); l != nil {
		lt = l.Type()
	}
	bad := func(v any) error { return fmt.Errorf("field %s: %T does not fit Avro %s", path, v, p.Type()) }
	want := func(id arrow.Type) error {
		if dt.ID() != id {
			return mismatch()
		}
		return nil
	}
	switch {
	case p.Type() == avro.Boolean:
		return agScalar(want(arrow.BOOL), func(a *array.Boolean, i int) any { return a.Value(i) },
			func(b *array.BooleanBuilder, v bool) { b.Append(v) }, bad)
	case p.Type() == avro.Int && lt == avro.Date:
		return agScalar(want(arrow.DATE32), func(a *array.Date32, i int) any { return a.Value(i).ToTime() },
			func(b *array.Date32Builder, v time.Time) { b.Append(arrow.Date32FromTime(v)) }, bad)
	case p.Type() == avro.Int && lt == avro.TimeMillis:
		return agScalar(want(arrow.INT32), func(a *array.Int32, i int) any { return time.Duration(a.Value(i)) * time.Millisecond },
			func(b *array.Int32Builder, v time.Duration) { b.Append(int32(v.Milliseconds())) }, bad)
	case p.Type() == avro.Int:
		return agScalar(want(arrow.INT32), func(a *array.Int32, i int) any { return int(a.Value(i)) },
			func(b *array.Int32Builder, v int) { b.Append(int32(v)) }, bad)
	case p.Type() == avro.Long && lt == avro.TimeMicros:
		return agScalar(want(arrow.INT64), func(a *array.Int64, i int) any { return time.Duration(a.Value(i)) * time.Microsecond },
			func(b *array.Int64Builder, v time.Duration) { b.Append(v.Microseconds()) }, bad)
	case p.Type() == avro.Long && (lt == avro.TimestampMillis || lt == avro.LocalTimestampMillis):
		return agTimestamp(dt, arrow.Millisecond, mismatch, bad)
	case p.Type() == avro.Long && (lt == avro.TimestampMicros || lt == avro.LocalTimestampMicros):
		return agTimestamp(dt, arrow.Microsecond, mismatch, bad)
	case p.Type() == avro.Long:
		return agScalar(want(arrow.INT64), func(a *array.Int64, i int) any { return a.Value(i) },
			func(b *array.Int64Builder, v int64) { b.Append(v) }, bad)
	case p.Type() == avro.Float:
		return agScalar(want(arrow.FLOAT32), func(a *array.Float32, i int) any { return a.Value(i) },
			func(b *array.Float32Builder, v float32) { b.Append(v) }, bad)
	case p.Type() == avro.Double:
		return agScalar(want(arrow.FLOAT64), func(a *array.Float64, i int) any { return a.Value(i) },
			func(b *array.Float64Builder, v float64) { b.Append(v) }, bad)
	case p.Type() == avro.String:
		if err := want(arrow.STRING); err != nil {
			return nil, nil, err
		}
		return agString(), agAppendString, nil
	case p.Type() == avro.Bytes && lt == avro.Decimal:
		return agDecimal(p.Logical(), dt, path, mismatch)
	case p.Type() == avro.Bytes:
		if err := want(arrow.BINARY); err != nil {
			return nil, nil, err
		}
		return func(arr arrow.Array) func(int) (any, error) {
				a := arr.(*array.Binary)
				return func(i int) (any, error) {
					v := a.Value(i)
					if len(v) > agMaxValue {
						return nil, cannotHold("field %s: %d bytes, more than %s's %d", path, len(v), SubjectAvroGiven, agMaxValue)
					}
					return v, nil
				}
			}, func(b array.Builder, v any) error {
				x, ok := v.([]byte)
				if !ok {
					return bad(v)
				}
				b.(*array.BinaryBuilder).Append(x)
				return nil
			}, nil
	case p.Type() == avro.Null:
		return func(arrow.Array) func(int) (any, error) { return func(int) (any, error) { return nil, nil } },
			func(b array.Builder, _ any) error { b.AppendNull(); return nil }, nil
	}
	return nil, nil, cannotHold("field %s: Avro type %s is not supported", path, p.Type())
}

// agScalar makes the conversions of a scalar column of array type A and
// builder B whose decoded generic values are a V.
func agScalar[A arrow.Array, B array.Builder, V any](check error, get func(A, int) any, put func(B, V), bad func(any) error) (agBind, agAppend, error) {
	if check != nil {
		return nil, nil, check
	}
	return func(arr arrow.Array) func(int) (any, error) {
			a := arr.(A)
			return func(i int) (any, error) { return get(a, i), nil }
		}, func(b array.Builder, v any) error {
			x, ok := v.(V)
			if !ok {
				return bad(v)
			}
			put(b.(B), x)
			return nil
		}, nil
}

func agTimestamp(dt arrow.DataType, unit arrow.TimeUnit, mismatch func() error, bad func(any) error) (agBind, agAppend, error) {
	tt, ok := dt.(*arrow.TimestampType)
	if !ok || tt.Unit != unit {
		return nil, nil, mismatch()
	}
	return agScalar(nil, func(a *array.Timestamp, i int) any {
		v := int64(a.Value(i))
		if unit == arrow.Millisecond {
			return time.UnixMilli(v).UTC()
		}
		return time.UnixMicro(v).UTC()
	}, func(b *array.TimestampBuilder, v time.Time) {
		if unit == arrow.Millisecond {
			b.Append(arrow.Timestamp(v.UnixMilli()))
		} else {
			b.Append(arrow.Timestamp(v.UnixMicro()))
		}
	}, bad)
}

// agEncoder writes batches as datums of the record.
type agEncoder struct {
	f    *AvroGiven
	enc  *ocf.Encoder
	row  map[string]any
	rows int64
}

// NewEncoder implements format.Format.
func (f *AvroGiven) NewEncoder(w io.Writer) (format.Encoder[arrow.RecordBatch], error) {
	enc, err := ocf.NewEncoderWithSchema(f.rec, w, ocf.WithCodec(ocf.Null), ocf.WithBlockLength(f.o.batchRows()),
		ocf.WithEncoderSchemaCache(&avro.SchemaCache{}), ocf.WithEncodingConfig(f.api))
	if err != nil {
		return nil, fmt.Errorf("%s: new encoder: %w", SubjectAvroGiven, err)
	}
	return &agEncoder{f: f, enc: enc, row: make(map[string]any, len(f.cols))}, nil
}

// Encode implements format.Encoder.
func (e *agEncoder) Encode(v *arrow.RecordBatch) (err error) {
	defer format.CatchPanic(SubjectAvroGiven, &err)
	rec := *v
	if !rec.Schema().Equal(e.f.schema) {
		return fmt.Errorf("%s: batch schema %s differs from the format's %s", SubjectAvroGiven, rec.Schema(), e.f.schema)
	}
	cols := make([]func(int) (any, error), len(e.f.cols))
	for k, c := range e.f.cols {
		cols[k] = c.enc(rec.Column(k))
	}
	n := int(rec.NumRows())
	for i := range n {
		for k, col := range cols {
			v, err := col(i)
			if err != nil {
				return fmt.Errorf("%s: row %d: %w", SubjectAvroGiven, e.rows+int64(i), err)
			}
			e.row[e.f.cols[k].name] = v
		}
		if err := e.enc.Encode(e.row); err != nil {
			return fmt.Errorf("%s: row %d: %w", SubjectAvroGiven, e.rows+int64(i), err)
		}
	}
	e.rows += int64(n)
	return nil
}

// Close implements format.Encoder.
func (e *agEncoder) Close() error {
	if err := e.enc.Close(); err != nil {
		return fmt.Errorf("%s: close: %w", SubjectAvroGiven, err)
	}
	return nil
}

// NewDecoder implements format.Format. A file written in another schema
// (its header's fingerprint differs from the record's) is an error. The
// container is read by the bounded ocfReader (hamba's OCF decoder sizes a
// block by the length the file declares), each datum by hamba's generic
// decoder after agSkip has checked its bytes against the schema (hamba's
// generic reader loops as many times as a corrupt array or map count
// says, even past the end of its input).
func (f *AvroGiven) NewDecoder(r io.Reader) (d format.Decoder[arrow.RecordBatch], err error) {
	defer format.CatchPanic(SubjectAvroGiven, &err)
	or := &ocfReader{r: bufio.NewReaderSize(r, 64<<10)}
	meta, err := or.header()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SubjectAvroGiven, err)
	}
	ws, err := avro.ParseBytesWithCache(meta["avro.schema"], "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("%s: file schema: %w", SubjectAvroGiven, err)
	}
	if got, want := ws.Fingerprint(), f.rec.Fingerprint(); got != want {
		return nil, fmt.Errorf("%s: the file's schema is not the record %s (fingerprint %x, want %x)", SubjectAvroGiven, f.rec.FullName(), got[:8], want[:8])
	}
	// A datum of a record that may take no bytes bounds nothing: only
	// then may a block declare more datums than it has bytes.
	empty := agEmpty(f.rec, 0)
	ar := avro.NewReader(nil, 0, avro.WithReaderConfig(f.api))
	rd := newRowDecoder(SubjectAvroGiven, f.schema, f.o)
	pos := 0
	rd.readRow = func() error {
		for or.count == 0 {
			if pos != len(or.block) {
				return fmt.Errorf("%d bytes after the block's last datum", len(or.block)-pos)
			}
			if err := or.next(); err != nil {
				return err
			}
			if !empty && or.count > int64(len(or.block)) {
				return fmt.Errorf("a block of %d datums in %d bytes (corrupt?)", or.count, len(or.block))
			}
			pos = 0
		}
		or.count--
		end, err := agSkip(f.rec, or.block, pos, 0)
		if err != nil {
			return err
		}
		ar.Reset(or.block[pos:end])
		pos = end
		var m map[string]any
		ar.ReadVal(f.rec, &m)
		if ar.Error != nil {
			return ar.Error
		}
		for k, c := range f.cols {
			if err := c.dec(rd.b.Field(k), m[c.name]); err != nil {
				return err
			}
		}
		return nil
	}
	return rd, nil
}

// agEmpty reports whether a datum of s may take no bytes: the null type,
// a fixed of size 0, a record of such fields.
func agEmpty(s avro.Schema, depth int) bool {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	switch t := s.(type) {
	case *avro.NullSchema:
		return true
	case *avro.FixedSchema:
		return t.Size() == 0
	case *avro.RecordSchema:
		if depth > agMaxDepth {
			return true
		}
		for _, f := range t.Fields() {
			if !agEmpty(f.Type(), depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// agMaxEmptyItems caps the items of one array or map block whose items
// take no bytes: nothing else bounds such a count.
const agMaxEmptyItems = 1 << 20

// agSkip returns where the datum of s starting at b[i] ends, checking every
// length, count, union branch and enum index against the bytes left.
func agSkip(s avro.Schema, b []byte, i, depth int) (int, error) {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if depth > agMaxDepth {
		return 0, fmt.Errorf("a datum nested deeper than %d levels", agMaxDepth)
	}
	long := func() (int64, error) {
		v, n := binary.Varint(b[i:])
		if n <= 0 {
			return 0, fmt.Errorf("a bad or truncated varint at byte %d of the block", i)
		}
		i += n
		return v, nil
	}
	take := func(n int64) error {
		if n < 0 || n > int64(len(b)-i) {
			return fmt.Errorf("a length of %d at byte %d of a block of %d bytes (corrupt?)", n, i, len(b))
		}
		i += int(n)
		return nil
	}
	switch t := s.(type) {
	case *avro.NullSchema:
		return i, nil
	case *avro.RecordSchema:
		var err error
		for _, f := range t.Fields() {
			if i, err = agSkip(f.Type(), b, i, depth+1); err != nil {
				return 0, err
			}
		}
		return i, nil
	case *avro.UnionSchema:
		k, err := long()
		if err != nil {
			return 0, err
		}
		if k < 0 || k >= int64(len(t.Types())) {
			return 0, fmt.Errorf("union branch %d of %d (corrupt?)", k, len(t.Types()))
		}
		return agSkip(t.Types()[k], b, i, depth+1)
	case *avro.EnumSchema:
		k, err := long()
		if err != nil {
			return 0, err
		}
		if k < 0 || k >= int64(len(t.Symbols())) {
			return 0, fmt.Errorf("enum index %d of %d symbols (corrupt?)", k, len(t.Symbols()))
		}
		return i, nil
	case *avro.FixedSchema:
		return i, take(int64(t.Size()))
	case *avro.ArraySchema, *avro.MapSchema:
		items, isMap := s.(*avro.MapSchema)
		var item avro.Schema
		if isMap {
			item = items.Values()
		} else {
			item = t.(*avro.ArraySchema).Items()
		}
		empty := !isMap && agEmpty(item, depth+1)
		for {
			n, err := long()
			if err != nil {
				return 0, err
			}
			if n == 0 {
				return i, nil
			}
			if n < 0 { // a block of -n items, then its size in bytes
				n = -n
				if _, err := long(); err != nil {
					return 0, err
				}
			}
			if n < 0 || (!empty && n > int64(len(b)-i)) || (empty && n > agMaxEmptyItems) {
				return 0, fmt.Errorf("a block of %d items at byte %d of a block of %d bytes (corrupt?)", n, i, len(b))
			}
			for range n {
				if isMap {
					k, err := long()
					if err != nil {
						return 0, err
					}
					if err := take(k); err != nil {
						return 0, err
					}
				}
				if i, err = agSkip(item, b, i, depth+1); err != nil {
					return 0, err
				}
			}
		}
	case *avro.PrimitiveSchema:
		switch t.Type() {
		case avro.Null:
			return i, nil
		case avro.Boolean:
			return i, take(1)
		case avro.Int, avro.Long:
			_, err := long()
			return i, err
		case avro.Float:
			return i, take(4)
		case avro.Double:
			return i, take(8)
		case avro.String, avro.Bytes:
			n, err := long()
			if err != nil {
				return 0, err
			}
			return i, take(n)
		}
	}
	return 0, fmt.Errorf("Avro type %s not supported", s.Type())
}
