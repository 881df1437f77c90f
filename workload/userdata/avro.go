package userdata

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/hamba/avro/v2"
)

// avroNode maps one Avro schema node to Arrow and appends its decoded values.
type avroNode struct {
	dt       arrow.DataType
	nullable bool
	app      func(b array.Builder, v any) error
}

// avroMapper converts Avro schemas, collecting notes. given maps a
// schema the user gives for a text input (AvroSchema): decimals are Arrow
// decimals there, whose values come from the input's text.
type avroMapper struct {
	in    *inference
	given bool
}

func (m *avroMapper) node(s avro.Schema, path string, depth int) (*avroNode, error) {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if depth > MaxDepth {
		return nil, fmt.Errorf("field %s nests deeper than %d levels, the limit (a recursive type?)", shorten(path, 80), MaxDepth)
	}
	switch t := s.(type) {
	case *avro.UnionSchema:
		return m.union(t, path, depth)
	case *avro.RecordSchema:
		return m.record(t.Fields(), path, depth)
	case *avro.ArraySchema:
		if avroMinSize(t.Items(), map[string]bool{}) == 0 {
			// Nothing would bound the items a few bytes declare.
			return nil, fmt.Errorf("field %s: an Avro array of items that take no bytes (%s) is not supported", path, t.Items().Type())
		}
		elem, err := m.node(t.Items(), path+"[]", depth+1)
		if err != nil {
			return nil, err
		}
		dt := arrow.ListOfField(arrow.Field{Name: "item", Type: elem.dt, Nullable: elem.nullable})
		return &avroNode{dt: dt, app: func(b array.Builder, v any) error {
			items, ok := v.([]any)
			if !ok {
				return fmt.Errorf("field %s: %T where an array was expected", path, v)
			}
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			for _, it := range items {
				if err := elem.app(lb.ValueBuilder(), it); err != nil {
					return err
				}
			}
			return nil
		}}, nil
	case *avro.MapSchema:
		val, err := m.node(t.Values(), mapValuePath(path), depth+2)
		if err != nil {
			return nil, err
		}
		if m.in.entries != nil {
			m.in.entries[path] = true // a JSON object in a text input
		}
		m.in.note("field %s: Avro map stored as a list of key/value structs (in key order)", path)
		entry := arrow.StructOf(arrow.Field{Name: "key", Type: arrow.BinaryTypes.String},
			arrow.Field{Name: "value", Type: val.dt, Nullable: val.nullable})
		dt := arrow.ListOfField(arrow.Field{Name: "entry", Type: entry})
		return &avroNode{dt: dt, app: func(b array.Builder, v any) error {
			mv, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("field %s: %T where a map was expected", path, v)
			}
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			sb := lb.ValueBuilder().(*array.StructBuilder)
			for _, k := range sortedKeys(mv) {
				sb.Append(true)
				sb.FieldBuilder(0).(*array.StringBuilder).Append(k)
				if err := val.app(sb.FieldBuilder(1), mv[k]); err != nil {
					return err
				}
			}
			return nil
		}}, nil
	case *avro.EnumSchema:
		return &avroNode{dt: arrow.BinaryTypes.String, app: func(b array.Builder, v any) error {
			sv, ok := v.(string)
			if !ok {
				return fmt.Errorf("field %s: %T where an enum symbol was expected", path, v)
			}
			b.(*array.StringBuilder).Append(sv)
			return nil
		}}, nil
	case *avro.FixedSchema:
		if t.Size() > maxAvroFixed {
			return nil, fmt.Errorf("field %s: Avro fixed type of %s bytes, more than the limit of %s", path, thousands(int64(t.Size())), sizeText(maxAvroFixed))
		}
		if l := t.Logical(); l != nil && l.Type() == avro.Decimal {
			return m.decimal(l, path)
		}
		if l := t.Logical(); l != nil && l.Type() == avro.Duration {
			m.in.note("field %s: Avro duration stored as string", path)
			return &avroNode{dt: arrow.BinaryTypes.String, app: func(b array.Builder, v any) error {
				b.(*array.StringBuilder).Append(fmt.Sprint(v))
				return nil
			}}, nil
		}
		return &avroNode{dt: arrow.BinaryTypes.Binary, app: func(b array.Builder, v any) error {
			bs, err := fixedBytes(v)
			if err != nil {
				return fmt.Errorf("field %s: %w", path, err)
			}
			b.(*array.BinaryBuilder).Append(bs)
			return nil
		}}, nil
	case *avro.PrimitiveSchema:
		return m.primitive(t, path)
	case *avro.NullSchema:
		m.in.note("field %s: Avro null type; stored as an always-null string", path)
		return &avroNode{dt: arrow.BinaryTypes.String, nullable: true, app: func(b array.Builder, v any) error {
			b.AppendNull()
			return nil
		}}, nil
	}
	return nil, fmt.Errorf("field %s: Avro type %s not supported", path, s.Type())
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func fixedBytes(v any) ([]byte, error) {
	b, err := json.Marshal(v) // [N]byte marshals as an array of numbers
	if err != nil {
		return nil, err
	}
	var ints []int
	if err := json.Unmarshal(b, &ints); err != nil {
		return nil, fmt.Errorf("%T where fixed bytes were expected", v)
	}
	out := make([]byte, len(ints))
	for i, x := range ints {
		out[i] = byte(x)
	}
	return out, nil
}

func (m *avroMapper) decimal(l avro.LogicalSchema, path string) (*avroNode, error) {
	scale := 0
	if d, ok := l.(*avro.DecimalLogicalSchema); ok {
		scale = d.Scale()
		if m.given && d.Precision() >= 1 && d.Precision() <= 38 {
			return &avroNode{dt: &arrow.Decimal128Type{Precision: int32(d.Precision()), Scale: int32(d.Scale())}}, nil
		}
	}
	m.in.note("field %s: Avro decimal stored as its exact decimal text (string)", path)
	return &avroNode{dt: arrow.BinaryTypes.String, app: func(b array.Builder, v any) error {
		r, ok := v.(*big.Rat)
		if !ok {
			return fmt.Errorf("field %s: %T where a decimal was expected", path, v)
		}
		b.(*array.StringBuilder).Append(r.FloatString(scale))
		return nil
	}}, nil
}

func (m *avroMapper) record(fields []*avro.Field, path string, depth int) (*avroNode, error) {
	nodes := make([]*avroNode, len(fields))
	afs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		p := f.Name()
		if path != "" {
			p = path + "." + f.Name()
		}
		n, err := m.node(f.Type(), p, depth+1)
		if err != nil {
			return nil, err
		}
		nodes[i] = n
		afs[i] = arrow.Field{Name: f.Name(), Type: n.dt, Nullable: n.nullable}
	}
	dt := arrow.StructOf(afs...)
	return &avroNode{dt: dt, app: func(b array.Builder, v any) error {
		rec, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("field %s: %T where a record was expected", path, v)
		}
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		for i, f := range fields {
			if err := nodes[i].app(sb.FieldBuilder(i), rec[f.Name()]); err != nil {
				return err
			}
		}
		return nil
	}}, nil
}

func (m *avroMapper) union(u *avro.UnionSchema, path string, depth int) (*avroNode, error) {
	types := u.Types()
	if u.Nullable() && len(types) == 2 {
		other := types[0]
		if other.Type() == avro.Null {
			other = types[1]
		}
		inner, err := m.node(other, path, depth)
		if err != nil {
			return nil, err
		}
		return &avroNode{dt: inner.dt, nullable: true, app: func(b array.Builder, v any) error {
			val, null := unwrapUnion(v)
			if null {
				b.AppendNull()
				return nil
			}
			return inner.app(b, val)
		}}, nil
	}
	m.in.note("field %s: Avro union of %d types stored as string (the value's JSON text: 1 and \"1\" stay apart)", path, len(types))
	m.in.lenient[path] = true
	return &avroNode{dt: arrow.BinaryTypes.String, nullable: true, app: func(b array.Builder, v any) error {
		if _, null := unwrapUnion(v); null {
			b.AppendNull()
			return nil
		}
		text, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("field %s: %w", path, err)
		}
		b.(*array.StringBuilder).Append(string(text))
		return nil
	}}, nil
}

// unwrapUnion returns the value of a union hamba decoded as {type: value}.
func unwrapUnion(v any) (any, bool) {
	if v == nil {
		return nil, true
	}
	if mv, ok := v.(map[string]any); ok {
		if len(mv) == 0 {
			return nil, true
		}
		for _, x := range mv {
			return x, false
		}
	}
	return v, false
}

func (m *avroMapper) primitive(p *avro.PrimitiveSchema, path string) (*avroNode, error) {
	var lt avro.LogicalType
	if l := p.Logical(); l != nil {
		lt = l.Type()
	}
	bad := func(v any) error { return fmt.Errorf("field %s: %T does not fit Avro %s", path, v, p.Type()) }
	switch p.Type() {
	case avro.Null:
		m.in.note("field %s: Avro null type; stored as an always-null string", path)
		return &avroNode{dt: arrow.BinaryTypes.String, nullable: true, app: func(b array.Builder, v any) error {
			b.AppendNull()
			return nil
		}}, nil
	case avro.Boolean:
		return &avroNode{dt: arrow.FixedWidthTypes.Boolean, app: func(b array.Builder, v any) error {
			x, ok := v.(bool)
			if !ok {
				return bad(v)
			}
			b.(*array.BooleanBuilder).Append(x)
			return nil
		}}, nil
	case avro.Int:
		switch lt {
		case avro.Date:
			return &avroNode{dt: arrow.FixedWidthTypes.Date32, app: func(b array.Builder, v any) error {
				x, ok := v.(time.Time)
				if !ok {
					return bad(v)
				}
				b.(*array.Date32Builder).Append(arrow.Date32FromTime(x))
				return nil
			}}, nil
		case avro.TimeMillis:
			m.in.note("field %s: Avro time-millis stored as int32 milliseconds since midnight", path)
			return &avroNode{dt: arrow.PrimitiveTypes.Int32, app: func(b array.Builder, v any) error {
				x, ok := v.(time.Duration)
				if !ok {
					return bad(v)
				}
				b.(*array.Int32Builder).Append(int32(x.Milliseconds()))
				return nil
			}}, nil
		}
		return &avroNode{dt: arrow.PrimitiveTypes.Int32, app: func(b array.Builder, v any) error {
			x, ok := v.(int)
			if !ok {
				return bad(v)
			}
			b.(*array.Int32Builder).Append(int32(x))
			return nil
		}}, nil
	case avro.Long:
		var unit arrow.TimeUnit
		tz := "UTC"
		switch lt {
		case avro.TimeMicros:
			m.in.note("field %s: Avro time-micros stored as int64 microseconds since midnight", path)
			return &avroNode{dt: arrow.PrimitiveTypes.Int64, app: func(b array.Builder, v any) error {
				x, ok := v.(time.Duration)
				if !ok {
					return bad(v)
				}
				b.(*array.Int64Builder).Append(x.Microseconds())
				return nil
			}}, nil
		case avro.TimestampMillis, avro.LocalTimestampMillis:
			unit = arrow.Millisecond
		case avro.TimestampMicros, avro.LocalTimestampMicros:
			unit = arrow.Microsecond
		default:
			return &avroNode{dt: arrow.PrimitiveTypes.Int64, app: func(b array.Builder, v any) error {
				x, ok := v.(int64)
				if !ok {
					return bad(v)
				}
				b.(*array.Int64Builder).Append(x)
				return nil
			}}, nil
		}
		if lt == avro.LocalTimestampMillis || lt == avro.LocalTimestampMicros {
			tz = ""
		}
		return &avroNode{dt: &arrow.TimestampType{Unit: unit, TimeZone: tz}, app: func(b array.Builder, v any) error {
			x, ok := v.(time.Time)
			if !ok {
				return bad(v)
			}
			if unit == arrow.Millisecond {
				b.(*array.TimestampBuilder).Append(arrow.Timestamp(x.UnixMilli()))
			} else {
				b.(*array.TimestampBuilder).Append(arrow.Timestamp(x.UnixMicro()))
			}
			return nil
		}}, nil
	case avro.Float:
		return &avroNode{dt: arrow.PrimitiveTypes.Float32, app: func(b array.Builder, v any) error {
			x, ok := v.(float32)
			if !ok {
				return bad(v)
			}
			b.(*array.Float32Builder).Append(x)
			return nil
		}}, nil
	case avro.Double:
		return &avroNode{dt: arrow.PrimitiveTypes.Float64, app: func(b array.Builder, v any) error {
			x, ok := v.(float64)
			if !ok {
				return bad(v)
			}
			b.(*array.Float64Builder).Append(x)
			return nil
		}}, nil
	case avro.String:
		return &avroNode{dt: arrow.BinaryTypes.String, app: func(b array.Builder, v any) error {
			x, ok := v.(string)
			if !ok {
				return bad(v)
			}
			b.(*array.StringBuilder).Append(x)
			return nil
		}}, nil
	case avro.Bytes:
		if lt == avro.Decimal {
			return m.decimal(p.Logical(), path)
		}
		return &avroNode{dt: arrow.BinaryTypes.Binary, app: func(b array.Builder, v any) error {
			x, ok := v.([]byte)
			if !ok {
				return bad(v)
			}
			b.(*array.BinaryBuilder).Append(x)
			return nil
		}}, nil
	}
	return nil, fmt.Errorf("field %s: Avro type %s not supported", path, p.Type())
}

// avroSource reads an Avro object container file (every codec of the
// specification) into Arrow batches.
type avroSource struct {
	r     *Reader
	ocf   *ocfReader
	sch   *arrow.Schema
	nodes []*avroNode
	names []string
	b     *array.RecordBuilder
	row   int64
}

func newAvroSource(r *Reader) (src *avroSource, err error) {
	defer catch("userdata: "+r.path, &err)
	size := int64(-1)
	if r.comp == "none" || r.comp == "" {
		fi, err := os.Stat(r.path)
		if err != nil {
			return nil, fmt.Errorf("userdata: %w", err)
		}
		size = fi.Size()
	}
	in, closeIn, err := openStream(r.path, r.comp)
	if err != nil {
		return nil, err
	}
	r.cleanup = append(r.cleanup, closeIn)
	o, err := newOCFReader(in, r.path, size)
	if err != nil {
		return nil, err
	}
	r.cleanup = append(r.cleanup, func() error { o.close(); return nil })
	rs, ok := o.schema.(*avro.RecordSchema)
	if !ok {
		return nil, fmt.Errorf("userdata: %s: Avro schema is a %s, want a record", r.path, o.schema.Type())
	}
	if n := len(rs.Fields()); n > MaxColumns {
		return nil, fmt.Errorf("userdata: %s: the Avro schema has %s fields, more than the limit of %s columns", r.path, thousands(int64(n)), thousands(MaxColumns))
	}
	inf := &inference{lenient: map[string]bool{}}
	m := &avroMapper{in: inf}
	s := &avroSource{r: r, ocf: o}
	var fields []arrow.Field
	for _, f := range rs.Fields() {
		n, err := m.node(f.Type(), f.Name(), 0)
		if err != nil {
			return nil, fmt.Errorf("userdata: %s: %w", r.path, err)
		}
		s.nodes = append(s.nodes, n)
		s.names = append(s.names, f.Name())
		fields = append(fields, arrow.Field{Name: f.Name(), Type: n.dt, Nullable: n.nullable})
	}
	r.notes = append(r.notes, inf.notes...)
	s.sch = arrow.NewSchema(fields, nil)
	s.b = array.NewRecordBuilder(r.opts.Allocator, s.sch)
	return s, nil
}

func (s *avroSource) schema() *arrow.Schema { return s.sch }

func (s *avroSource) next() (rec arrow.RecordBatch, err error) {
	defer catch("userdata: "+s.r.path, &err)
	n := 0
	for n < s.r.opts.batchSize() {
		var v map[string]any
		ok, err := s.ocf.next(&v)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		for i, node := range s.nodes {
			if err := node.app(s.b.Field(i), v[s.names[i]]); err != nil {
				return nil, fmt.Errorf("userdata: %s: Avro record %d: %w", s.r.path, s.row, err)
			}
		}
		s.row++
		n++
	}
	if n == 0 {
		return nil, nil
	}
	return s.b.NewRecordBatch(), nil
}

func (s *avroSource) close() error {
	s.b.Release()
	return nil
}
