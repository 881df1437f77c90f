package dynamic

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/serbench/serbench/format"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// ProtobufMessage is Protocol Buffers of record batches in the user's own
// message: each row one dynamicpb message of that descriptor, in a
// uvarint-length-prefixed frame, so the wire bytes are the ones the user's
// generated code writes (their field numbers, their sint/fixed encodings,
// their enums, maps, Timestamps and wrappers).
//
// The schema must be the one the message maps to in serbench's reader of
// a given --proto (package userdata): a column per field, by name, in any
// order; int32, sint32 and sfixed32 as int32, the 64-bit kinds as int64,
// uint32 and fixed32 as uint32, uint64 and fixed64 as uint64, float as
// float32, double as float64, enums as their value names, bytes as binary,
// google.protobuf.Timestamp as timestamp[ns], the wrapper types as their
// value, messages as structs, repeated fields as lists and maps as lists of
// {key (string), value} entries. A null sets nothing (a field with
// presence); a field without presence is always set (the wire leaves out
// its default, and reading gives the default back). A map's entries are
// read back sorted by key: a protobuf map has no order.
type ProtobufMessage struct {
	schema *arrow.Schema
	md     protoreflect.MessageDescriptor
	o      Options
}

// NewProtobufMessage returns the Protocol Buffers format of md's messages
// for rows of schema; a schema that is not md's mapping is an error naming
// the first field that differs.
func NewProtobufMessage(schema *arrow.Schema, md protoreflect.MessageDescriptor, o Options) (*ProtobufMessage, error) {
	if md == nil {
		return nil, fmt.Errorf("protobuf-message: no message descriptor")
	}
	for _, f := range schema.Fields() {
		fd := md.Fields().ByName(protoreflect.Name(f.Name))
		if fd == nil {
			return nil, fmt.Errorf("protobuf-message: column %s is no field of %s", f.Name, md.FullName())
		}
		if err := pmCompatible(f.Type, fd, f.Name); err != nil {
			return nil, fmt.Errorf("protobuf-message: %s: %w", md.FullName(), err)
		}
	}
	return &ProtobufMessage{schema: schema, md: md, o: o}, nil
}

// Descriptor implements format.Format.
func (f *ProtobufMessage) Descriptor() format.Descriptor {
	return descriptor("protobuf-message", protoLib+"/types/dynamicpb", format.ModuleVersion(protoLib, "v1.36.12"),
		"your .proto's message "+string(f.md.FullName())+" through dynamicpb, one message a row in "+
			"uvarint-length-prefixed frames: your field numbers and encodings",
		format.LabelBinary, format.LabelRow, format.LabelReflection)
}

// wellKnown names the well-known message types the mapping knows.
const (
	wktTimestamp = "google.protobuf.Timestamp"
	wktPrefix    = "google.protobuf."
)

// isWrapper reports whether md is one of the wrapper types (a message
// holding one field, value).
func isWrapper(md protoreflect.MessageDescriptor) bool {
	n := string(md.FullName())
	return strings.HasPrefix(n, wktPrefix) && strings.HasSuffix(n, "Value") && md.Fields().Len() == 1 && md.Fields().Get(0).Name() == "value"
}

// pmScalarType is the Arrow type the mapping gives a field kind that is no
// message, nil for none.
func pmScalarType(k protoreflect.Kind) arrow.DataType {
	switch k {
	case protoreflect.BoolKind:
		return arrow.FixedWidthTypes.Boolean
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return arrow.PrimitiveTypes.Int32
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return arrow.PrimitiveTypes.Int64
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return arrow.PrimitiveTypes.Uint32
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return arrow.PrimitiveTypes.Uint64
	case protoreflect.FloatKind:
		return arrow.PrimitiveTypes.Float32
	case protoreflect.DoubleKind:
		return arrow.PrimitiveTypes.Float64
	case protoreflect.StringKind, protoreflect.EnumKind:
		return arrow.BinaryTypes.String
	case protoreflect.BytesKind:
		return arrow.BinaryTypes.Binary
	}
	return nil
}

// pmCompatible reports whether dt is the mapping of fd (its cardinality
// included).
func pmCompatible(dt arrow.DataType, fd protoreflect.FieldDescriptor, path string) error {
	switch {
	case fd.IsMap():
		l, ok := dt.(*arrow.ListType)
		st, ok2 := l.Elem().(*arrow.StructType)
		if !ok || !ok2 || st.NumFields() != 2 || st.Field(0).Name != "key" || st.Field(1).Name != "value" || !arrow.TypeEqual(st.Field(0).Type, arrow.BinaryTypes.String) {
			return fmt.Errorf("field %s: a map is a list of {key: string, value} entries, not %s", path, dt)
		}
		return pmValueCompatible(st.Field(1).Type, fd.MapValue(), path+"[].value")
	case fd.IsList():
		l, ok := dt.(*arrow.ListType)
		if !ok {
			return fmt.Errorf("field %s: a repeated field is a list, not %s", path, dt)
		}
		return pmValueCompatible(l.Elem(), fd, path+"[]")
	}
	return pmValueCompatible(dt, fd, path)
}

// pmValueCompatible is pmCompatible for one value of fd.
func pmValueCompatible(dt arrow.DataType, fd protoreflect.FieldDescriptor, path string) error {
	if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind {
		if want := pmScalarType(fd.Kind()); want == nil || !arrow.TypeEqual(dt, want) {
			return fmt.Errorf("field %s: %s is %v, not %s", path, fd.Kind(), want, dt)
		}
		return nil
	}
	md := fd.Message()
	switch {
	case md.FullName() == wktTimestamp:
		if t, ok := dt.(*arrow.TimestampType); !ok || t.Unit != arrow.Nanosecond {
			return fmt.Errorf("field %s: a Timestamp is timestamp[ns], not %s", path, dt)
		}
		return nil
	case isWrapper(md):
		return pmValueCompatible(dt, md.Fields().Get(0), path)
	}
	st, ok := dt.(*arrow.StructType)
	if !ok {
		return fmt.Errorf("field %s: message %s is a struct, not %s", path, md.FullName(), dt)
	}
	for _, f := range st.Fields() {
		sub := md.Fields().ByName(protoreflect.Name(f.Name))
		if sub == nil {
			return fmt.Errorf("field %s.%s is no field of %s", path, f.Name, md.FullName())
		}
		if err := pmCompatible(f.Type, sub, path+"."+f.Name); err != nil {
			return err
		}
	}
	return nil
}

// pmElem writes the values of an array as values of one field kind:
// scalar for a kind that is no message, fill for a message (the value's
// message is filled in place).
type pmElem struct {
	scalar func(j int) (protoreflect.Value, error)
	fill   func(dst protoreflect.Message, j int) error
}

// bindPMFields binds the columns cols (of fields) to md's fields.
func bindPMFields(cols []arrow.Array, fields []arrow.Field, md protoreflect.MessageDescriptor, path string) []pbSetter {
	sets := make([]pbSetter, len(cols))
	for k, f := range fields {
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		sets[k] = bindPMField(cols[k], md.Fields().ByName(protoreflect.Name(f.Name)), p)
	}
	return sets
}

// bindPMField binds arr to field fd of a message.
func bindPMField(arr arrow.Array, fd protoreflect.FieldDescriptor, path string) pbSetter {
	switch {
	case fd.IsMap():
		l := arr.(*array.List)
		st := l.ListValues().(*array.Struct)
		keys := st.Field(0).(*array.String)
		val := bindPMElem(st.Field(1), fd.MapValue(), path+"[].value")
		kfd := fd.MapKey()
		return func(m protoreflect.Message, i int) error {
			start, end := l.ValueOffsets(i)
			if l.IsNull(i) || start == end {
				return nil
			}
			mp := m.Mutable(fd).Map()
			for j := int(start); j < int(end); j++ {
				k, err := pmMapKey(keys.Value(j), kfd)
				if err != nil {
					return fmt.Errorf("column %s: %w", path, err)
				}
				if val.fill != nil {
					v := mp.NewValue()
					if err := val.fill(v.Message(), j); err != nil {
						return err
					}
					mp.Set(k, v)
					continue
				}
				v, err := val.scalar(j)
				if err != nil {
					return err
				}
				mp.Set(k, v)
			}
			return nil
		}
	case fd.IsList():
		l := arr.(*array.List)
		elem := bindPMElem(l.ListValues(), fd, path+"[]")
		return func(m protoreflect.Message, i int) error {
			start, end := l.ValueOffsets(i)
			if l.IsNull(i) || start == end {
				return nil
			}
			lst := m.Mutable(fd).List()
			for j := int(start); j < int(end); j++ {
				if elem.fill != nil {
					e := lst.NewElement()
					if err := elem.fill(e.Message(), j); err != nil {
						return err
					}
					lst.Append(e)
					continue
				}
				v, err := elem.scalar(j)
				if err != nil {
					return err
				}
				lst.Append(v)
			}
			return nil
		}
	}
	elem := bindPMElem(arr, fd, path)
	return func(m protoreflect.Message, i int) error {
		if arr.IsNull(i) {
			return nil
		}
		if elem.fill != nil {
			return elem.fill(m.Mutable(fd).Message(), i)
		}
		v, err := elem.scalar(i)
		if err != nil {
			return err
		}
		m.Set(fd, v)
		return nil
	}
}

// bindPMElem binds arr's values as values of fd's kind.
func bindPMElem(arr arrow.Array, fd protoreflect.FieldDescriptor, path string) pmElem {
	if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
		md := fd.Message()
		switch {
		case md.FullName() == wktTimestamp:
			ts := arr.(*array.Timestamp)
			secs, nanos := md.Fields().ByName("seconds"), md.Fields().ByName("nanos")
			return pmElem{fill: func(dst protoreflect.Message, j int) error {
				v := int64(ts.Value(j))
				s, n := v/1e9, v%1e9
				if n < 0 {
					s, n = s-1, n+1e9
				}
				dst.Set(secs, protoreflect.ValueOfInt64(s))
				dst.Set(nanos, protoreflect.ValueOfInt32(int32(n)))
				return nil
			}}
		case isWrapper(md):
			inner := md.Fields().Get(0)
			val := bindPMElem(arr, inner, path)
			return pmElem{fill: func(dst protoreflect.Message, j int) error {
				v, err := val.scalar(j)
				if err != nil {
					return err
				}
				dst.Set(inner, v)
				return nil
			}}
		}
		st := arr.(*array.Struct)
		cols := make([]arrow.Array, st.NumField())
		for k := range cols {
			cols[k] = st.Field(k)
		}
		sets := bindPMFields(cols, st.DataType().(*arrow.StructType).Fields(), md, path)
		return pmElem{fill: func(dst protoreflect.Message, j int) error {
			for _, s := range sets {
				if err := s(dst, j); err != nil {
					return err
				}
			}
			return nil
		}}
	}
	if fd.Kind() == protoreflect.EnumKind {
		names := arr.(*array.String)
		values := fd.Enum().Values()
		return pmElem{scalar: func(j int) (protoreflect.Value, error) {
			ev := values.ByName(protoreflect.Name(names.Value(j)))
			if ev == nil {
				return protoreflect.Value{}, fmt.Errorf("column %s: %q is no value of enum %s", path, names.Value(j), fd.Enum().FullName())
			}
			return protoreflect.ValueOfEnum(ev.Number()), nil
		}}
	}
	return pmElem{scalar: func(j int) (protoreflect.Value, error) {
		v := scalarPB(arr, j)
		if !v.IsValid() {
			return v, fmt.Errorf("column %s: Arrow type %s has no %s value", path, arr.DataType(), fd.Kind())
		}
		return v, nil
	}}
}

// pmMapKey parses a map entry's key (stored as a string, as a JSON
// object's member name) as fd's kind.
func pmMapKey(s string, fd protoreflect.FieldDescriptor) (protoreflect.MapKey, error) {
	bad := func(err error) (protoreflect.MapKey, error) {
		return protoreflect.MapKey{}, fmt.Errorf("map key %q is no %s: %v", s, fd.Kind(), err)
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(s).MapKey(), nil
	case protoreflect.BoolKind:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfBool(b).MapKey(), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		x, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfInt32(int32(x)).MapKey(), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfInt64(x).MapKey(), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		x, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfUint32(uint32(x)).MapKey(), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		x, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfUint64(x).MapKey(), nil
	}
	return bad(fmt.Errorf("not a key kind"))
}

// NewEncoder implements format.Format.
func (f *ProtobufMessage) NewEncoder(w io.Writer) (format.Encoder[arrow.RecordBatch], error) {
	return &dynEncoder{frames: frames{name: "protobuf-message", schema: f.schema, w: w}, msg: dynamicpb.NewMessage(f.md),
		bind: func(rec arrow.RecordBatch) []pbSetter {
			return bindPMFields(rec.Columns(), f.schema.Fields(), f.md, "")
		}}, nil
}

// pmValue appends one value of a field kind to a builder.
type pmValue func(b array.Builder, v protoreflect.Value) error

// bindPMReadField reads field fd of a message into b.
func bindPMReadField(b array.Builder, dt arrow.DataType, fd protoreflect.FieldDescriptor, path string) pbAppender {
	switch {
	case fd.IsMap():
		lb := b.(*array.ListBuilder)
		sb := lb.ValueBuilder().(*array.StructBuilder)
		kb := sb.FieldBuilder(0).(*array.StringBuilder)
		vt := dt.(*arrow.ListType).Elem().(*arrow.StructType).Field(1).Type
		val := bindPMValue(vt, fd.MapValue(), path+"[].value")
		vb := sb.FieldBuilder(1)
		type entry struct {
			key string
			v   protoreflect.Value
		}
		var es []entry
		return func(m protoreflect.Message) error {
			lb.Append(true)
			es = es[:0]
			m.Get(fd).Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				es = append(es, entry{pmKeyString(k), v})
				return true
			})
			slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.key, b.key) })
			for _, e := range es {
				sb.Append(true)
				kb.Append(e.key)
				if err := val(vb, e.v); err != nil {
					return err
				}
			}
			return nil
		}
	case fd.IsList():
		lb := b.(*array.ListBuilder)
		vb := lb.ValueBuilder()
		val := bindPMValue(dt.(*arrow.ListType).Elem(), fd, path+"[]")
		return func(m protoreflect.Message) error {
			lb.Append(true)
			l := m.Get(fd).List()
			for j := 0; j < l.Len(); j++ {
				if err := val(vb, l.Get(j)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	val := bindPMValue(dt, fd, path)
	return func(m protoreflect.Message) error {
		if fd.HasPresence() && !m.Has(fd) {
			b.AppendNull()
			return nil
		}
		return val(b, m.Get(fd))
	}
}

// pmKeyString is a map key as the reader stores it (a JSON member name).
func pmKeyString(k protoreflect.MapKey) string {
	switch v := k.Interface().(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int32:
		return strconv.FormatInt(int64(v), 10)
	case int64:
		return strconv.FormatInt(v, 10)
	case uint32:
		return strconv.FormatUint(uint64(v), 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	}
	return k.String()
}

// bindPMValue appends values of fd's kind as dt.
func bindPMValue(dt arrow.DataType, fd protoreflect.FieldDescriptor, path string) pmValue {
	if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
		md := fd.Message()
		switch {
		case md.FullName() == wktTimestamp:
			secs, nanos := md.Fields().ByName("seconds"), md.Fields().ByName("nanos")
			return func(b array.Builder, v protoreflect.Value) error {
				m := v.Message()
				s, n := m.Get(secs).Int(), m.Get(nanos).Int()
				if s > math.MaxInt64/int64(1e9)-1 || s < math.MinInt64/int64(1e9)+1 {
					return fmt.Errorf("column %s: Timestamp of %d s is beyond timestamp[ns]", path, s)
				}
				b.(*array.TimestampBuilder).Append(arrow.Timestamp(s*1e9 + n))
				return nil
			}
		case isWrapper(md):
			inner := md.Fields().Get(0)
			val := bindPMValue(dt, inner, path)
			return func(b array.Builder, v protoreflect.Value) error { return val(b, v.Message().Get(inner)) }
		}
		st := dt.(*arrow.StructType)
		reads := make([]func(sb *array.StructBuilder, m protoreflect.Message) error, st.NumFields())
		for k, f := range st.Fields() {
			sub := md.Fields().ByName(protoreflect.Name(f.Name))
			k := k
			var read pbAppender
			reads[k] = func(sb *array.StructBuilder, m protoreflect.Message) error {
				if read == nil {
					read = bindPMReadField(sb.FieldBuilder(k), f.Type, sub, path+"."+f.Name)
				}
				return read(m)
			}
		}
		return func(b array.Builder, v protoreflect.Value) error {
			sb := b.(*array.StructBuilder)
			sb.Append(true)
			m := v.Message()
			for _, r := range reads {
				if err := r(sb, m); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if fd.Kind() == protoreflect.EnumKind {
		values := fd.Enum().Values()
		return func(b array.Builder, v protoreflect.Value) error {
			ev := values.ByNumber(v.Enum())
			if ev == nil {
				return fmt.Errorf("column %s: %d is no value of enum %s", path, v.Enum(), fd.Enum().FullName())
			}
			b.(*array.StringBuilder).Append(string(ev.Name()))
			return nil
		}
	}
	return func(b array.Builder, v protoreflect.Value) error { return appendScalar(b, v, path) }
}

// NewDecoder implements format.Format.
func (f *ProtobufMessage) NewDecoder(r io.Reader) (format.Decoder[arrow.RecordBatch], error) {
	d := newRowDecoder("protobuf-message", f.schema, f.o)
	reads := make([]pbAppender, f.schema.NumFields())
	for k, fl := range f.schema.Fields() {
		reads[k] = bindPMReadField(d.b.Field(k), fl.Type, f.md.Fields().ByName(protoreflect.Name(fl.Name)), fl.Name)
	}
	readMessages(d, r, dynamicpb.NewMessage(f.md), reads)
	return d, nil
}
