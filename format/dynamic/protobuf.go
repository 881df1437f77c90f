package dynamic

import (
	"bufio"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/internal/jsonv"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

const protoLib = "google.golang.org/protobuf"

// Protobuf is Protocol Buffers of record batches through dynamicpb: a
// proto2 message descriptor derived from the Arrow schema at run time, each
// row one message in a uvarint-length-prefixed frame.
//
// Mapping: every field is optional (presence marks null); int8..32 → int32,
// int64 → int64, uint8..32 → uint32, uint64 → uint64, float32 → float,
// float64 → double, strings → string, binary and fixed-size binary →
// bytes, date32 and time32 → int32, timestamps and time64 → int64 in their
// unit, decimal128 → string (exact text), null type → an optional bool never
// set, structs → messages. A list is a
// repeated field (packed for numbers); a nullable list is wrapped in a
// message holding the repeated field, and nullable or list elements are
// wrapped in a message each, so null lists and null elements survive.
type Protobuf struct {
	schema *arrow.Schema
	o      Options
	md     protoreflect.MessageDescriptor
	fdp    *descriptorpb.FileDescriptorProto
}

// NewProtobuf returns dynamicpb Protocol Buffers for schema.
func NewProtobuf(schema *arrow.Schema, o Options) (Format, error) {
	if err := checkSchema("protobuf-dynamicpb", schema, false); err != nil {
		return nil, err
	}
	md, fdp, err := ProtoDescriptor(schema)
	if err != nil {
		return nil, fmt.Errorf("protobuf-dynamicpb: %w", err)
	}
	return &Protobuf{schema: schema, o: o, md: md, fdp: fdp}, nil
}

// Descriptor implements format.Format.
func (f *Protobuf) Descriptor() format.Descriptor {
	return descriptor("protobuf-dynamicpb", protoLib+"/types/dynamicpb", format.ModuleVersion(protoLib, "v1.36.12"),
		"proto2 descriptor derived from the Arrow schema at run time, rows as dynamicpb messages in "+
			"uvarint-length-prefixed frames; nullable lists and nullable elements wrapped in messages",
		format.LabelBinary, format.LabelRow, format.LabelReflection)
}

// ProtoDescriptor derives the message descriptor ("serbench.dynamic.Row")
// of rows of s, and the file descriptor holding it.
func ProtoDescriptor(s *arrow.Schema) (protoreflect.MessageDescriptor, *descriptorpb.FileDescriptorProto, error) {
	g := &pbGen{fdp: &descriptorpb.FileDescriptorProto{
		Name:    proto.String("serbench_dynamic.proto"),
		Package: proto.String("serbench.dynamic"),
		Syntax:  proto.String("proto2"),
	}}
	if _, err := g.message("Row", s.Fields()); err != nil {
		return nil, nil, err
	}
	fd, err := protodesc.NewFile(g.fdp, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("derived descriptor: %w", err)
	}
	return fd.Messages().ByName("Row"), g.fdp, nil
}

type pbGen struct {
	fdp *descriptorpb.FileDescriptorProto
	n   int
}

func (g *pbGen) newName(base string) string {
	g.n++
	return fmt.Sprintf("%s_%d", sanitize(base), g.n)
}

// message adds a message of fields and returns its full name.
func (g *pbGen) message(name string, fields []arrow.Field) (string, error) {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	safe := uniqueNames(names)
	dp := &descriptorpb.DescriptorProto{Name: proto.String(name)}
	g.fdp.MessageType = append(g.fdp.MessageType, dp)
	for i, f := range fields {
		fd, err := g.field(safe[i], int32(i+1), f.Type, f.Nullable)
		if err != nil {
			return "", err
		}
		dp.Field = append(dp.Field, fd)
	}
	return ".serbench.dynamic." + name, nil
}

func scalarType(dt arrow.DataType) (descriptorpb.FieldDescriptorProto_Type, bool) {
	switch dt.(type) {
	case *arrow.BooleanType, *arrow.NullType: // a null-type field is never set
		return descriptorpb.FieldDescriptorProto_TYPE_BOOL, true
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Date32Type, *arrow.Time32Type:
		return descriptorpb.FieldDescriptorProto_TYPE_INT32, true
	case *arrow.Int64Type, *arrow.TimestampType, *arrow.Time64Type:
		return descriptorpb.FieldDescriptorProto_TYPE_INT64, true
	case *arrow.Decimal128Type: // exact decimal text
		return descriptorpb.FieldDescriptorProto_TYPE_STRING, true
	case *arrow.FixedSizeBinaryType:
		return descriptorpb.FieldDescriptorProto_TYPE_BYTES, true
	case *arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type:
		return descriptorpb.FieldDescriptorProto_TYPE_UINT32, true
	case *arrow.Uint64Type:
		return descriptorpb.FieldDescriptorProto_TYPE_UINT64, true
	case *arrow.Float32Type:
		return descriptorpb.FieldDescriptorProto_TYPE_FLOAT, true
	case *arrow.Float64Type:
		return descriptorpb.FieldDescriptorProto_TYPE_DOUBLE, true
	case *arrow.StringType, *arrow.LargeStringType:
		return descriptorpb.FieldDescriptorProto_TYPE_STRING, true
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		return descriptorpb.FieldDescriptorProto_TYPE_BYTES, true
	}
	return 0, false
}

func (g *pbGen) field(name string, num int32, dt arrow.DataType, nullable bool) (*descriptorpb.FieldDescriptorProto, error) {
	fd := &descriptorpb.FieldDescriptorProto{
		Name:   proto.String(name),
		Number: proto.Int32(num),
		Label:  descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
	}
	if t, ok := scalarType(dt); ok {
		fd.Type = t.Enum()
		return fd, nil
	}
	switch t := dt.(type) {
	case *arrow.StructType:
		tn, err := g.message(g.newName(name), t.Fields())
		if err != nil {
			return nil, err
		}
		fd.Type = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
		fd.TypeName = proto.String(tn)
		return fd, nil
	case arrow.ListLikeType:
		if nullable {
			// optional W { repeated ... items = 1; }
			tn, err := g.wrapper(g.newName(name+"_list"), "items", dt, false)
			if err != nil {
				return nil, err
			}
			fd.Type = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
			fd.TypeName = proto.String(tn)
			return fd, nil
		}
		ef := t.ElemField()
		fd.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
		if elemWrapped(ef) {
			tn, err := g.wrapper(g.newName(name+"_elem"), "v", ef.Type, ef.Nullable)
			if err != nil {
				return nil, err
			}
			fd.Type = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
			fd.TypeName = proto.String(tn)
			return fd, nil
		}
		inner, err := g.field(name, num, ef.Type, false)
		if err != nil {
			return nil, err
		}
		fd.Type, fd.TypeName = inner.Type, inner.TypeName
		switch *fd.Type {
		case descriptorpb.FieldDescriptorProto_TYPE_STRING, descriptorpb.FieldDescriptorProto_TYPE_BYTES,
			descriptorpb.FieldDescriptorProto_TYPE_MESSAGE:
		default:
			fd.Options = &descriptorpb.FieldOptions{Packed: proto.Bool(true)}
		}
		return fd, nil
	}
	return nil, cannotHold("field %s: Arrow type %s has no Protocol Buffers mapping", name, dt)
}

// wrapper adds message name { <field> = 1 } holding a value of dt.
func (g *pbGen) wrapper(name, field string, dt arrow.DataType, nullable bool) (string, error) {
	dp := &descriptorpb.DescriptorProto{Name: proto.String(name)}
	g.fdp.MessageType = append(g.fdp.MessageType, dp)
	fd, err := g.field(field, 1, dt, nullable)
	if err != nil {
		return "", err
	}
	dp.Field = append(dp.Field, fd)
	return ".serbench.dynamic." + name, nil
}

// elemWrapped reports whether list elements of ef need a wrapper message:
// nullable elements (null-type ones included) and lists of lists.
func elemWrapped(ef arrow.Field) bool {
	_, isList := ef.Type.(arrow.ListLikeType)
	return ef.Nullable || isList || ef.Type.ID() == arrow.NULL
}

// pbSetter sets field fd of m from row i of a bound array.
type pbSetter func(m protoreflect.Message, i int) error

// bindPB binds arr to field fd (of a message) for writing.
func bindPB(arr arrow.Array, fd protoreflect.FieldDescriptor, nullable bool, path string) pbSetter {
	if arr.DataType().ID() == arrow.NULL {
		// Null arrays have no validity bitmap (IsNull is false); every
		// value is null, so the field is never set.
		return func(protoreflect.Message, int) error { return nil }
	}
	val := bindPBValue(arr, fd, nullable, path)
	return func(m protoreflect.Message, i int) error {
		if arr.IsNull(i) {
			if fd.IsList() {
				return fmt.Errorf("column %s: null in a list column declared not nullable", path)
			}
			return nil
		}
		return val(m, i)
	}
}

func scalarPB(arr arrow.Array, i int) protoreflect.Value {
	switch a := arr.(type) {
	case *array.Boolean:
		return protoreflect.ValueOfBool(a.Value(i))
	case *array.Int8:
		return protoreflect.ValueOfInt32(int32(a.Value(i)))
	case *array.Int16:
		return protoreflect.ValueOfInt32(int32(a.Value(i)))
	case *array.Int32:
		return protoreflect.ValueOfInt32(a.Value(i))
	case *array.Date32:
		return protoreflect.ValueOfInt32(int32(a.Value(i)))
	case *array.Time32:
		return protoreflect.ValueOfInt32(int32(a.Value(i)))
	case *array.Time64:
		return protoreflect.ValueOfInt64(int64(a.Value(i)))
	case *array.FixedSizeBinary:
		return protoreflect.ValueOfBytes(a.Value(i))
	case *array.Decimal128:
		return protoreflect.ValueOfString(a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale))
	case *array.Int64:
		return protoreflect.ValueOfInt64(a.Value(i))
	case *array.Timestamp:
		return protoreflect.ValueOfInt64(int64(a.Value(i)))
	case *array.Uint8:
		return protoreflect.ValueOfUint32(uint32(a.Value(i)))
	case *array.Uint16:
		return protoreflect.ValueOfUint32(uint32(a.Value(i)))
	case *array.Uint32:
		return protoreflect.ValueOfUint32(a.Value(i))
	case *array.Uint64:
		return protoreflect.ValueOfUint64(a.Value(i))
	case *array.Float32:
		return protoreflect.ValueOfFloat32(a.Value(i))
	case *array.Float64:
		return protoreflect.ValueOfFloat64(a.Value(i))
	case *array.String:
		return protoreflect.ValueOfString(a.Value(i))
	case *array.LargeString:
		return protoreflect.ValueOfString(a.Value(i))
	case *array.Binary:
		return protoreflect.ValueOfBytes(a.Value(i))
	case *array.LargeBinary:
		return protoreflect.ValueOfBytes(a.Value(i))
	}
	return protoreflect.Value{}
}

func bindPBValue(arr arrow.Array, fd protoreflect.FieldDescriptor, nullable bool, path string) pbSetter {
	switch a := arr.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		md := fd.Message()
		sets := make([]pbSetter, st.NumFields())
		for k, f := range st.Fields() {
			sets[k] = bindPB(a.Field(k), md.Fields().Get(k), f.Nullable, path+"."+f.Name)
		}
		return func(m protoreflect.Message, i int) error {
			sub := m.Mutable(fd).Message()
			for _, s := range sets {
				if err := s(sub, i); err != nil {
					return err
				}
			}
			return nil
		}
	case array.ListLike:
		ef := a.DataType().(arrow.ListLikeType).ElemField()
		listFd := fd
		wrapped := nullable
		if wrapped {
			listFd = fd.Message().Fields().Get(0)
		}
		values := a.ListValues()
		var appendElem func(l protoreflect.List, j int) error
		switch {
		case elemWrapped(ef):
			efd := listFd.Message().Fields().Get(0)
			set := bindPB(values, efd, ef.Nullable, path+"[]")
			appendElem = func(l protoreflect.List, j int) error {
				em := l.NewElement()
				if err := set(em.Message(), j); err != nil {
					return err
				}
				l.Append(em)
				return nil
			}
		case listFd.Kind() == protoreflect.MessageKind:
			// A non-null struct element: fill a new message.
			st := values.(*array.Struct)
			md := listFd.Message()
			sets := make([]pbSetter, st.NumField())
			for k, f := range st.DataType().(*arrow.StructType).Fields() {
				sets[k] = bindPB(st.Field(k), md.Fields().Get(k), f.Nullable, path+"[]."+f.Name)
			}
			appendElem = func(l protoreflect.List, j int) error {
				if values.IsNull(j) {
					return fmt.Errorf("column %s[]: null element in a list whose elements are not nullable", path)
				}
				em := l.NewElement()
				for _, s := range sets {
					if err := s(em.Message(), j); err != nil {
						return err
					}
				}
				l.Append(em)
				return nil
			}
		default:
			appendElem = func(l protoreflect.List, j int) error {
				if values.IsNull(j) {
					return fmt.Errorf("column %s[]: null element in a list whose elements are not nullable", path)
				}
				l.Append(scalarPB(values, j))
				return nil
			}
		}
		return func(m protoreflect.Message, i int) error {
			target := m
			if wrapped {
				target = m.Mutable(fd).Message()
			}
			start, end := a.ValueOffsets(i)
			if start == end {
				return nil
			}
			l := target.Mutable(listFd).List()
			for j := start; j < end; j++ {
				if err := appendElem(l, int(j)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return func(m protoreflect.Message, i int) error {
		m.Set(fd, scalarPB(arr, i))
		return nil
	}
}

// dynEncoder writes each row as one dynamicpb message, its fields set by
// the setters bind returns for a batch.
type dynEncoder struct {
	frames
	msg  *dynamicpb.Message
	bind func(rec arrow.RecordBatch) []pbSetter
}

// Encode implements format.Encoder.
func (e *dynEncoder) Encode(v *arrow.RecordBatch) error {
	return e.encode(v, func(rec arrow.RecordBatch) func([]byte, int) ([]byte, error) {
		sets := e.bind(rec)
		return func(body []byte, i int) ([]byte, error) {
			proto.Reset(e.msg)
			for _, s := range sets {
				if err := s(e.msg, i); err != nil {
					return body, err
				}
			}
			return proto.MarshalOptions{}.MarshalAppend(body, e.msg)
		}
	})
}

// Close implements format.Encoder.
func (e *dynEncoder) Close() error { return e.close() }

// NewEncoder implements format.Format.
func (f *Protobuf) NewEncoder(w io.Writer) (format.Encoder[arrow.RecordBatch], error) {
	fields := f.md.Fields()
	return &dynEncoder{frames: frames{name: "protobuf-dynamicpb", schema: f.schema, w: w}, msg: dynamicpb.NewMessage(f.md),
		bind: func(rec arrow.RecordBatch) []pbSetter {
			sets := make([]pbSetter, rec.NumCols())
			for k, fl := range f.schema.Fields() {
				sets[k] = bindPB(rec.Column(k), fields.Get(k), fl.Nullable, fl.Name)
			}
			return sets
		}}, nil
}

// pbAppender appends field fd of m to b.
type pbAppender func(m protoreflect.Message) error

func bindPBReader(b array.Builder, dt arrow.DataType, fd protoreflect.FieldDescriptor, nullable bool, path string) pbAppender {
	val := pbValueReader(b, dt, fd, nullable, path)
	return func(m protoreflect.Message) error {
		if !fd.IsList() && !m.Has(fd) {
			b.AppendNull()
			return nil
		}
		return val(m)
	}
}

func appendScalar(b array.Builder, v protoreflect.Value, path string) error {
	var err error
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v.Bool())
	case *array.Int8Builder:
		err = intRange(v.Int(), 8)
		bb.Append(int8(v.Int()))
	case *array.Int16Builder:
		err = intRange(v.Int(), 16)
		bb.Append(int16(v.Int()))
	case *array.Int32Builder:
		bb.Append(int32(v.Int()))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.Int()))
	case *array.Time32Builder:
		bb.Append(arrow.Time32(v.Int()))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(v.Int()))
	case *array.FixedSizeBinaryBuilder:
		w := bb.Type().(*arrow.FixedSizeBinaryType).ByteWidth
		if len(v.Bytes()) != w {
			return fmt.Errorf("column %s: %d bytes for %s", path, len(v.Bytes()), bb.Type())
		}
		bb.Append(v.Bytes())
	case *array.Decimal128Builder:
		t := bb.Type().(*arrow.Decimal128Type)
		n, perr := jsonv.ParseDecimal128(v.String(), t.Precision, t.Scale)
		err = perr
		bb.Append(n)
	case *array.Int64Builder:
		bb.Append(v.Int())
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v.Int()))
	case *array.Uint8Builder:
		err = uintRange(int64(v.Uint()), 8)
		bb.Append(uint8(v.Uint()))
	case *array.Uint16Builder:
		err = uintRange(int64(v.Uint()), 16)
		bb.Append(uint16(v.Uint()))
	case *array.Uint32Builder:
		bb.Append(uint32(v.Uint()))
	case *array.Uint64Builder:
		bb.Append(v.Uint())
	case *array.Float32Builder:
		bb.Append(float32(v.Float()))
	case *array.Float64Builder:
		bb.Append(v.Float())
	case *array.StringBuilder:
		bb.Append(v.String())
	case *array.LargeStringBuilder:
		bb.Append(v.String())
	case *array.BinaryBuilder:
		bb.Append(v.Bytes())
	default:
		return fmt.Errorf("column %s: unsupported builder %T", path, b)
	}
	if err != nil {
		return fmt.Errorf("column %s: %w", path, err)
	}
	return nil
}

func pbValueReader(b array.Builder, dt arrow.DataType, fd protoreflect.FieldDescriptor, nullable bool, path string) pbAppender {
	switch t := dt.(type) {
	case *arrow.StructType:
		sb := b.(*array.StructBuilder)
		md := fd.Message()
		apps := make([]pbAppender, t.NumFields())
		for k, f := range t.Fields() {
			apps[k] = bindPBReader(sb.FieldBuilder(k), f.Type, md.Fields().Get(k), f.Nullable, path+"."+f.Name)
		}
		return func(m protoreflect.Message) error {
			sub := m.Get(fd).Message()
			sb.Append(true)
			for _, a := range apps {
				if err := a(sub); err != nil {
					return err
				}
			}
			return nil
		}
	case arrow.ListLikeType:
		ef := t.ElemField()
		listFd := fd
		if nullable {
			listFd = fd.Message().Fields().Get(0)
		}
		var vb array.Builder
		var appendList func()
		switch lb := b.(type) {
		case *array.ListBuilder:
			vb, appendList = lb.ValueBuilder(), func() { lb.Append(true) }
		case *array.LargeListBuilder:
			vb, appendList = lb.ValueBuilder(), func() { lb.Append(true) }
		}
		var elem func(v protoreflect.Value) error
		switch {
		case elemWrapped(ef):
			efd := listFd.Message().Fields().Get(0)
			app := bindPBReader(vb, ef.Type, efd, ef.Nullable, path+"[]")
			elem = func(v protoreflect.Value) error { return app(v.Message()) }
		case listFd.Kind() == protoreflect.MessageKind:
			st := ef.Type.(*arrow.StructType)
			sb := vb.(*array.StructBuilder)
			md := listFd.Message()
			apps := make([]pbAppender, st.NumFields())
			for k, f := range st.Fields() {
				apps[k] = bindPBReader(sb.FieldBuilder(k), f.Type, md.Fields().Get(k), f.Nullable, path+"[]."+f.Name)
			}
			elem = func(v protoreflect.Value) error {
				sb.Append(true)
				for _, a := range apps {
					if err := a(v.Message()); err != nil {
						return err
					}
				}
				return nil
			}
		default:
			elem = func(v protoreflect.Value) error { return appendScalar(vb, v, path+"[]") }
		}
		return func(m protoreflect.Message) error {
			target := m
			if nullable {
				target = m.Get(fd).Message()
			}
			appendList()
			l := target.Get(listFd).List()
			for j := 0; j < l.Len(); j++ {
				if err := elem(l.Get(j)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return func(m protoreflect.Message) error { return appendScalar(b, m.Get(fd), path) }
}

// NewDecoder implements format.Format.
func (f *Protobuf) NewDecoder(r io.Reader) (format.Decoder[arrow.RecordBatch], error) {
	d := newRowDecoder("protobuf-dynamicpb", f.schema, f.o)
	apps := make([]pbAppender, f.schema.NumFields())
	for k, fl := range f.schema.Fields() {
		apps[k] = bindPBReader(d.b.Field(k), fl.Type, f.md.Fields().Get(k), fl.Nullable, fl.Name)
	}
	readMessages(d, r, dynamicpb.NewMessage(f.md), apps)
	return d, nil
}

// readMessages makes d read one length-prefixed message a row into msg,
// each field appended to d's builders by apps.
func readMessages(d *rowDecoder, r io.Reader, msg *dynamicpb.Message, apps []pbAppender) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	var frame []byte
	d.readRow = func() error {
		var err error
		frame, err = format.ReadFrame(br, frame, maxValueBytes)
		if err != nil {
			return err
		}
		proto.Reset(msg)
		if err := (proto.UnmarshalOptions{}).Unmarshal(frame, msg); err != nil {
			return fmt.Errorf("unmarshal: %w", err)
		}
		for _, a := range apps {
			if err := a(msg); err != nil {
				return err
			}
		}
		return nil
	}
}
