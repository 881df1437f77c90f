package dynamic

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/internal/jsonv"
	"google.golang.org/protobuf/encoding/protowire"
)

// Protowire is Protocol Buffers of record batches with the message layout
// of Protobuf (the same descriptor, so the bytes are readable by either),
// encoded and decoded by code compiled from the Arrow schema straight over
// the Arrow arrays with google.golang.org/protobuf/encoding/protowire — no
// message objects.
type Protowire struct {
	schema *arrow.Schema
	o      Options
}

// NewProtowire returns schema-driven protowire Protocol Buffers for schema.
func NewProtowire(schema *arrow.Schema, o Options) (Format, error) {
	if err := checkSchema("protobuf-wire", schema, false); err != nil {
		return nil, err
	}
	if _, _, err := ProtoDescriptor(schema); err != nil {
		return nil, fmt.Errorf("protobuf-wire: %w", err)
	}
	return &Protowire{schema: schema, o: o}, nil
}

// Descriptor implements format.Format.
func (f *Protowire) Descriptor() format.Descriptor {
	return descriptor("protobuf-wire", protoLib+"/encoding/protowire", format.ModuleVersion(protoLib, "v1.36.12"),
		"the protobuf-dynamicpb message layout written and read by schema-compiled code over the Arrow arrays "+
			"with protowire (no message objects); uvarint-length-prefixed frames; nested lengths back-patched",
		format.LabelBinary, format.LabelRow, format.LabelHandwritten)
}

// pwEnc appends the encoding of row i's value as field(s) of a message;
// nothing for a null.
type pwEnc func(buf []byte, i int) ([]byte, error)

// withLen appends body's output preceded by its length.
func withLen(buf []byte, body func([]byte) ([]byte, error)) ([]byte, error) {
	start := len(buf)
	buf, err := body(buf)
	if err != nil {
		return buf, err
	}
	n := len(buf) - start
	sz := protowire.SizeVarint(uint64(n))
	buf = slices.Grow(buf, sz)[:len(buf)+sz]
	copy(buf[start+sz:], buf[start:start+n])
	protowire.AppendVarint(buf[start:start], uint64(n))
	return buf, nil
}

// pwScalar returns the wire type and a value appender of a leaf array.
func pwScalar(arr arrow.Array) (protowire.Type, func(buf []byte, i int) []byte) {
	switch a := arr.(type) {
	case *array.Boolean:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, protowire.EncodeBool(a.Value(i))) }
	case *array.Int8:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, uint64(int64(a.Value(i)))) }
	case *array.Int16:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, uint64(int64(a.Value(i)))) }
	case *array.Int32:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, uint64(int64(a.Value(i)))) }
	case *array.Date32:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, uint64(int64(a.Value(i)))) }
	case *array.Time32:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, uint64(int64(a.Value(i)))) }
	case *array.Time64:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, uint64(a.Value(i))) }
	case *array.FixedSizeBinary:
		return protowire.BytesType, func(b []byte, i int) []byte { return protowire.AppendBytes(b, a.Value(i)) }
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return protowire.BytesType, func(b []byte, i int) []byte { return protowire.AppendString(b, a.Value(i).ToString(scale)) }
	case *array.Int64:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, uint64(a.Value(i))) }
	case *array.Timestamp:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, uint64(a.Value(i))) }
	case *array.Uint8:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, uint64(a.Value(i))) }
	case *array.Uint16:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, uint64(a.Value(i))) }
	case *array.Uint32:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, uint64(a.Value(i))) }
	case *array.Uint64:
		return protowire.VarintType, func(b []byte, i int) []byte { return protowire.AppendVarint(b, a.Value(i)) }
	case *array.Float32:
		return protowire.Fixed32Type, func(b []byte, i int) []byte { return protowire.AppendFixed32(b, math.Float32bits(a.Value(i))) }
	case *array.Float64:
		return protowire.Fixed64Type, func(b []byte, i int) []byte { return protowire.AppendFixed64(b, math.Float64bits(a.Value(i))) }
	case *array.String:
		return protowire.BytesType, func(b []byte, i int) []byte { return protowire.AppendString(b, a.Value(i)) }
	case *array.LargeString:
		return protowire.BytesType, func(b []byte, i int) []byte { return protowire.AppendString(b, a.Value(i)) }
	case *array.Binary:
		return protowire.BytesType, func(b []byte, i int) []byte { return protowire.AppendBytes(b, a.Value(i)) }
	case *array.LargeBinary:
		return protowire.BytesType, func(b []byte, i int) []byte { return protowire.AppendBytes(b, a.Value(i)) }
	}
	return 0, nil
}

// bindPW compiles the encoder of field num holding arr's values.
func bindPW(arr arrow.Array, num protowire.Number, nullable bool, path string) pwEnc {
	switch a := arr.(type) {
	case *array.Struct:
		body := structBody(a, path)
		return func(buf []byte, i int) ([]byte, error) {
			if a.IsNull(i) {
				return buf, nil
			}
			buf = protowire.AppendTag(buf, num, protowire.BytesType)
			return withLen(buf, func(b []byte) ([]byte, error) { return body(b, i) })
		}
	case array.ListLike:
		// A nullable list is a wrapper message W { repeated … = 1 }, a
		// list not nullable the repeated field num itself: one body either
		// way, compiled once (building both made the binding double per
		// level of nested lists, 2^depth closures).
		if nullable {
			inner := repeatedBody(a, 1, path)
			return func(buf []byte, i int) ([]byte, error) {
				if a.IsNull(i) {
					return buf, nil
				}
				buf = protowire.AppendTag(buf, num, protowire.BytesType)
				return withLen(buf, func(b []byte) ([]byte, error) { return inner(b, i) })
			}
		}
		rep := repeatedBody(a, num, path)
		return func(buf []byte, i int) ([]byte, error) {
			if a.IsNull(i) {
				return buf, fmt.Errorf("column %s: null in a list column declared not nullable", path)
			}
			return rep(buf, i)
		}
	}
	if arr.DataType().ID() == arrow.NULL {
		return func(buf []byte, _ int) ([]byte, error) { return buf, nil }
	}
	wt, val := pwScalar(arr)
	if val == nil {
		return func(buf []byte, _ int) ([]byte, error) {
			return buf, fmt.Errorf("column %s: unsupported Arrow type %s", path, arr.DataType())
		}
	}
	return func(buf []byte, i int) ([]byte, error) {
		if arr.IsNull(i) {
			return buf, nil
		}
		return val(protowire.AppendTag(buf, num, wt), i), nil
	}
}

// structBody compiles the encoder of a struct's fields (a message body).
func structBody(a *array.Struct, path string) pwEnc {
	st := a.DataType().(*arrow.StructType)
	encs := make([]pwEnc, st.NumFields())
	for k, f := range st.Fields() {
		encs[k] = bindPW(a.Field(k), protowire.Number(k+1), f.Nullable, path+"."+f.Name)
	}
	return func(buf []byte, i int) ([]byte, error) {
		var err error
		for _, e := range encs {
			if buf, err = e(buf, i); err != nil {
				return buf, err
			}
		}
		return buf, nil
	}
}

// repeatedBody compiles the encoder of list a's elements as repeated field
// num.
func repeatedBody(a array.ListLike, num protowire.Number, path string) pwEnc {
	ef := a.DataType().(arrow.ListLikeType).ElemField()
	values := a.ListValues()
	epath := path + "[]"
	nonNull := func(j int) error {
		if values.IsNull(j) {
			return fmt.Errorf("column %s: null element in a list whose elements are not nullable", epath)
		}
		return nil
	}
	var elem func(buf []byte, j int) ([]byte, error)
	packed := false
	switch {
	case elemWrapped(ef):
		inner := bindPW(values, 1, ef.Nullable, epath)
		elem = func(buf []byte, j int) ([]byte, error) {
			buf = protowire.AppendTag(buf, num, protowire.BytesType)
			return withLen(buf, func(b []byte) ([]byte, error) { return inner(b, j) })
		}
	default:
		if st, ok := values.(*array.Struct); ok {
			body := structBody(st, epath)
			elem = func(buf []byte, j int) ([]byte, error) {
				if err := nonNull(j); err != nil {
					return buf, err
				}
				buf = protowire.AppendTag(buf, num, protowire.BytesType)
				return withLen(buf, func(b []byte) ([]byte, error) { return body(b, j) })
			}
			break
		}
		wt, val := pwScalar(values)
		if val == nil {
			elem = func(buf []byte, _ int) ([]byte, error) {
				return buf, fmt.Errorf("column %s: unsupported Arrow type %s", epath, values.DataType())
			}
			break
		}
		if wt == protowire.BytesType {
			elem = func(buf []byte, j int) ([]byte, error) {
				if err := nonNull(j); err != nil {
					return buf, err
				}
				return val(protowire.AppendTag(buf, num, wt), j), nil
			}
			break
		}
		packed = true
		elem = func(buf []byte, j int) ([]byte, error) {
			if err := nonNull(j); err != nil {
				return buf, err
			}
			return val(buf, j), nil
		}
	}
	return func(buf []byte, i int) ([]byte, error) {
		start, end := a.ValueOffsets(i)
		if start == end {
			return buf, nil
		}
		each := func(b []byte) ([]byte, error) {
			var err error
			for j := start; j < end; j++ {
				if b, err = elem(b, int(j)); err != nil {
					return b, err
				}
			}
			return b, nil
		}
		if packed {
			buf = protowire.AppendTag(buf, num, protowire.BytesType)
			return withLen(buf, each)
		}
		return each(buf)
	}
}

type pwEncoder struct{ frames }

// Encode implements format.Encoder.
func (e *pwEncoder) Encode(v *arrow.RecordBatch) error {
	return e.encode(v, func(rec arrow.RecordBatch) func([]byte, int) ([]byte, error) {
		encs := make([]pwEnc, rec.NumCols())
		for k, f := range e.schema.Fields() {
			encs[k] = bindPW(rec.Column(k), protowire.Number(k+1), f.Nullable, f.Name)
		}
		return func(body []byte, i int) ([]byte, error) {
			var err error
			for _, enc := range encs {
				if body, err = enc(body, i); err != nil {
					return body, err
				}
			}
			return body, nil
		}
	})
}

// Close implements format.Encoder.
func (e *pwEncoder) Close() error { return e.close() }

// NewEncoder implements format.Format.
func (f *Protowire) NewEncoder(w io.Writer) (format.Encoder[arrow.RecordBatch], error) {
	return &pwEncoder{frames{name: "protobuf-wire", schema: f.schema, w: w}}, nil
}

// pwMsg decodes one message type into builders.
type pwMsg struct {
	fields []*pwField // by field number - 1
	seen   []bool
}

// pwField decodes one field of a message.
type pwField struct {
	path string
	// begin runs at the start of each message (repeated fields open their
	// list there); end runs for a field absent from the message.
	begin func()
	end   func()
	// value decodes one occurrence with wire type wt from b, returning the
	// bytes consumed.
	value    func(wt protowire.Type, b []byte) (int, error)
	repeated bool
}

var errWire = errors.New("malformed protobuf wire data")

func (m *pwMsg) decode(b []byte) error {
	for _, f := range m.fields {
		if f.begin != nil {
			f.begin()
		}
	}
	clear(m.seen)
	for len(b) > 0 {
		num, wt, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %v", errWire, protowire.ParseError(n))
		}
		b = b[n:]
		k := int(num) - 1
		if k < 0 || k >= len(m.fields) {
			return fmt.Errorf("%w: unknown field number %d", errWire, num)
		}
		f := m.fields[k]
		if m.seen[k] && !f.repeated {
			return fmt.Errorf("column %s: field occurs twice in one message", f.path)
		}
		m.seen[k] = true
		n, err := f.value(wt, b)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	for k, f := range m.fields {
		if !m.seen[k] && f.end != nil {
			f.end()
		}
	}
	return nil
}

// consumeBytes consumes a length-delimited value.
func consumeBytes(path string, wt protowire.Type, b []byte) ([]byte, int, error) {
	if wt != protowire.BytesType {
		return nil, 0, fmt.Errorf("column %s: wire type %d where length-delimited was expected", path, wt)
	}
	v, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return nil, 0, fmt.Errorf("column %s: %w: %v", path, errWire, protowire.ParseError(n))
	}
	return v, n, nil
}

// pwLeaf returns a decoder of one scalar value of wire type wt into b.
func pwLeaf(bld array.Builder, path string) (protowire.Type, func(b []byte) (int, error)) {
	varint := func(b []byte) (uint64, int, error) {
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return 0, 0, fmt.Errorf("column %s: %w: %v", path, errWire, protowire.ParseError(n))
		}
		return v, n, nil
	}
	signed := func(bits int, app func(int64)) (protowire.Type, func(b []byte) (int, error)) {
		return protowire.VarintType, func(b []byte) (int, error) {
			v, n, err := varint(b)
			if err == nil {
				if err = intRange(int64(v), bits); err != nil {
					err = fmt.Errorf("column %s: %w", path, err)
				}
			}
			app(int64(v))
			return n, err
		}
	}
	unsigned := func(bits int, app func(uint64)) (protowire.Type, func(b []byte) (int, error)) {
		return protowire.VarintType, func(b []byte) (int, error) {
			v, n, err := varint(b)
			if err == nil && bits < 64 && v > 1<<bits-1 {
				err = fmt.Errorf("column %s: %d out of the range of uint%d", path, v, bits)
			}
			app(v)
			return n, err
		}
	}
	switch bb := bld.(type) {
	case *array.BooleanBuilder:
		return protowire.VarintType, func(b []byte) (int, error) {
			v, n, err := varint(b)
			bb.Append(v != 0)
			return n, err
		}
	case *array.Int8Builder:
		return signed(8, func(v int64) { bb.Append(int8(v)) })
	case *array.Int16Builder:
		return signed(16, func(v int64) { bb.Append(int16(v)) })
	case *array.Int32Builder:
		return signed(32, func(v int64) { bb.Append(int32(v)) })
	case *array.Date32Builder:
		return signed(32, func(v int64) { bb.Append(arrow.Date32(v)) })
	case *array.Time32Builder:
		return signed(32, func(v int64) { bb.Append(arrow.Time32(v)) })
	case *array.Time64Builder:
		return signed(64, func(v int64) { bb.Append(arrow.Time64(v)) })
	case *array.FixedSizeBinaryBuilder:
		w := bb.Type().(*arrow.FixedSizeBinaryType).ByteWidth
		return protowire.BytesType, func(b []byte) (int, error) {
			v, n, err := consumeBytes(path, protowire.BytesType, b)
			if err == nil && len(v) != w {
				err = fmt.Errorf("column %s: %d bytes for %s", path, len(v), bb.Type())
			}
			if err != nil {
				bb.AppendNull()
				return n, err
			}
			bb.Append(v)
			return n, nil
		}
	case *array.Decimal128Builder:
		t := bb.Type().(*arrow.Decimal128Type)
		return protowire.BytesType, func(b []byte) (int, error) {
			v, n, err := consumeBytes(path, protowire.BytesType, b)
			var x decimal128.Num
			if err == nil {
				x, err = jsonv.ParseDecimal128(string(v), t.Precision, t.Scale)
			}
			bb.Append(x)
			return n, err
		}
	case *array.Int64Builder:
		return signed(64, func(v int64) { bb.Append(v) })
	case *array.TimestampBuilder:
		return signed(64, func(v int64) { bb.Append(arrow.Timestamp(v)) })
	case *array.Uint8Builder:
		return unsigned(8, func(v uint64) { bb.Append(uint8(v)) })
	case *array.Uint16Builder:
		return unsigned(16, func(v uint64) { bb.Append(uint16(v)) })
	case *array.Uint32Builder:
		return unsigned(32, func(v uint64) { bb.Append(uint32(v)) })
	case *array.Uint64Builder:
		return unsigned(64, func(v uint64) { bb.Append(v) })
	case *array.Float32Builder:
		return protowire.Fixed32Type, func(b []byte) (int, error) {
			v, n := protowire.ConsumeFixed32(b)
			if n < 0 {
				return 0, fmt.Errorf("column %s: %w: %v", path, errWire, protowire.ParseError(n))
			}
			bb.Append(math.Float32frombits(v))
			return n, nil
		}
	case *array.Float64Builder:
		return protowire.Fixed64Type, func(b []byte) (int, error) {
			v, n := protowire.ConsumeFixed64(b)
			if n < 0 {
				return 0, fmt.Errorf("column %s: %w: %v", path, errWire, protowire.ParseError(n))
			}
			bb.Append(math.Float64frombits(v))
			return n, nil
		}
	case *array.StringBuilder:
		return protowire.BytesType, func(b []byte) (int, error) {
			v, n, err := consumeBytes(path, protowire.BytesType, b)
			bb.BinaryBuilder.Append(v)
			return n, err
		}
	case *array.LargeStringBuilder:
		return protowire.BytesType, func(b []byte) (int, error) {
			v, n, err := consumeBytes(path, protowire.BytesType, b)
			bb.BinaryBuilder.Append(v)
			return n, err
		}
	case *array.BinaryBuilder:
		return protowire.BytesType, func(b []byte) (int, error) {
			v, n, err := consumeBytes(path, protowire.BytesType, b)
			bb.Append(v)
			return n, err
		}
	}
	return 0, nil
}

// newPWMsg compiles the decoder of a message whose fields are fields,
// appending to builders.
func newPWMsg(fields []arrow.Field, builders func(k int) array.Builder, path string) *pwMsg {
	m := &pwMsg{seen: make([]bool, len(fields))}
	for k, f := range fields {
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		m.fields = append(m.fields, newPWField(builders(k), f.Type, f.Nullable, p))
	}
	return m
}

func newPWField(b array.Builder, dt arrow.DataType, nullable bool, path string) *pwField {
	f := &pwField{path: path}
	switch t := dt.(type) {
	case *arrow.StructType:
		sb := b.(*array.StructBuilder)
		sub := newPWMsg(t.Fields(), sb.FieldBuilder, path)
		f.end = func() { sb.AppendNull() }
		f.value = func(wt protowire.Type, buf []byte) (int, error) {
			v, n, err := consumeBytes(path, wt, buf)
			if err != nil {
				return 0, err
			}
			sb.Append(true)
			return n, sub.decode(v)
		}
		return f
	case arrow.ListLikeType:
		var vb array.Builder
		var open func()
		switch lb := b.(type) {
		case *array.ListBuilder:
			vb, open = lb.ValueBuilder(), func() { lb.Append(true) }
		case *array.LargeListBuilder:
			vb, open = lb.ValueBuilder(), func() { lb.Append(true) }
		}
		rep := repeatedField(vb, t.ElemField(), path)
		if nullable {
			// Wrapper message W { repeated … = 1 }: absent = null.
			w := &pwMsg{fields: []*pwField{rep}, seen: make([]bool, 1)}
			f.end = func() { b.AppendNull() }
			f.value = func(wt protowire.Type, buf []byte) (int, error) {
				v, n, err := consumeBytes(path, wt, buf)
				if err != nil {
					return 0, err
				}
				open()
				return n, w.decode(v)
			}
			return f
		}
		rep.begin = open
		return rep
	}
	wt, leaf := pwLeaf(b, path)
	f.end = func() { b.AppendNull() }
	if leaf == nil {
		f.value = func(protowire.Type, []byte) (int, error) {
			return 0, fmt.Errorf("column %s: a value where type %s holds only nulls", path, dt)
		}
		return f
	}
	f.value = func(got protowire.Type, buf []byte) (int, error) {
		if got != wt {
			return 0, fmt.Errorf("column %s: wire type %d, want %d", path, got, wt)
		}
		return leaf(buf)
	}
	return f
}

// repeatedField compiles the decoder of a repeated field appending elements
// of ef to vb (the list itself is opened by the caller).
func repeatedField(vb array.Builder, ef arrow.Field, path string) *pwField {
	epath := path + "[]"
	f := &pwField{path: path, repeated: true}
	if elemWrapped(ef) {
		e := &pwMsg{fields: []*pwField{newPWField(vb, ef.Type, ef.Nullable, epath)}, seen: make([]bool, 1)}
		f.value = func(wt protowire.Type, buf []byte) (int, error) {
			v, n, err := consumeBytes(path, wt, buf)
			if err != nil {
				return 0, err
			}
			return n, e.decode(v)
		}
		return f
	}
	if st, ok := ef.Type.(*arrow.StructType); ok {
		sb := vb.(*array.StructBuilder)
		sub := newPWMsg(st.Fields(), sb.FieldBuilder, epath)
		f.value = func(wt protowire.Type, buf []byte) (int, error) {
			v, n, err := consumeBytes(path, wt, buf)
			if err != nil {
				return 0, err
			}
			sb.Append(true)
			return n, sub.decode(v)
		}
		return f
	}
	wt, leaf := pwLeaf(vb, epath)
	if leaf == nil {
		f.value = func(protowire.Type, []byte) (int, error) {
			return 0, fmt.Errorf("column %s: unsupported element type %s", epath, ef.Type)
		}
		return f
	}
	f.value = func(got protowire.Type, buf []byte) (int, error) {
		if got == wt {
			return leaf(buf)
		}
		if got != protowire.BytesType || wt == protowire.BytesType {
			return 0, fmt.Errorf("column %s: wire type %d, want %d", epath, got, wt)
		}
		// Packed.
		v, n, err := consumeBytes(path, got, buf)
		if err != nil {
			return 0, err
		}
		for len(v) > 0 {
			k, err := leaf(v)
			if err != nil {
				return 0, err
			}
			v = v[k:]
		}
		return n, nil
	}
	return f
}

// NewDecoder implements format.Format.
func (f *Protowire) NewDecoder(r io.Reader) (format.Decoder[arrow.RecordBatch], error) {
	d := newRowDecoder("protobuf-wire", f.schema, f.o)
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	msg := newPWMsg(f.schema.Fields(), func(k int) array.Builder { return d.b.Field(k) }, "")
	var frame []byte
	d.readRow = func() error {
		var err error
		frame, err = format.ReadFrame(br, frame, maxValueBytes)
		if err != nil {
			return err
		}
		return msg.decode(frame)
	}
	return d, nil
}
