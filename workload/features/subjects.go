package features

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	flatbuffers "github.com/google/flatbuffers/go"
	x448 "github.com/x448/float16"
	"google.golang.org/protobuf/proto"

	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/dataset/features/fb"
	"github.com/serbench/serbench/dataset/features/pb"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/results"
)

// codec is one subject prepared for one input: Encode serializes the
// source (into a reused buffer where the library allows; the result is
// valid until the next Encode), Decode parses bytes into Out, reusing its
// capacity. Every decoder returns owned values (strings are copied).
type codec interface {
	Encode() ([]byte, error)
	Decode(b []byte) error
	Out() *ds.Output
}

// A subject is one implementation under test.
type subject struct {
	name string
	role string
	// note explains what the subject does that affects comparisons.
	note string
	// module is the library's module path ("" for serbench's own code
	// and limit rows); settings are the fairness facts.
	module   string
	settings map[string]string
	// types it supports; nil means all.
	types []ds.Type
	make  func(d *ds.Data) (codec, error)
}

// descriptor is what the run records about s.
func (s subject) descriptor() results.Descriptor {
	d := results.Descriptor{Workload: Name, Key: "subject", Name: s.name, Role: s.role, What: s.note, Settings: s.settings}
	if s.module != "" {
		d.Module, d.Version = s.module, format.ModuleVersion(s.module, "unknown")
	}
	if s.name == "psdb" {
		d.Module, d.Version = "github.com/serbench/serbench/psdb", "this build"
	}
	return d
}

func (s subject) supports(t ds.Type) bool {
	if s.types == nil {
		return true
	}
	for _, x := range s.types {
		if x == t {
			return true
		}
	}
	return false
}

// subjects lists every subject; the psdb subject is first as the report's
// baseline.
func subjects() []subject {
	return []subject{
		{name: "psdb", role: results.RoleBaseline, note: "serbench's psdb: 9-byte header + packed little-endian values, appended into a reused buffer; decode reads them into a reused slice",
			settings: map[string]string{"reuse": "output buffer and slice", "compression": "none", "strings": "copied"}, make: newPSDB},
		{name: "proto3", role: results.RoleSubject, note: "packed varint repeated fields (the seed's `repeated int32`); decode merges into a reset message to reuse capacity",
			module: "google.golang.org/protobuf", settings: map[string]string{"reuse": "message and output buffer", "encoding": "varint", "codegen": "protoc-gen-go"}, make: newProto(false)},
		{name: "proto3-fixed", role: results.RoleSubject, note: "the same with fixed-width fields (sfixed32/sfixed64/fixed32)", types: []ds.Type{ds.Int32, ds.Int64, ds.FP16},
			module: "google.golang.org/protobuf", settings: map[string]string{"reuse": "message and output buffer", "encoding": "fixed", "codegen": "protoc-gen-go"}, make: newProto(true)},
		{name: "arrow", role: results.RoleSubject, note: "Arrow IPC stream, schema, builder and writer made fresh on every call (as in the seed)",
			module: "github.com/apache/arrow-go/v18", settings: map[string]string{"reuse": "none", "zero-copy read": "no (values copied out)"}, make: newArrow(false)},
		{name: "arrow-reuse", role: results.RoleSubject, note: "Arrow IPC stream with schema, builder and output buffer reused across calls (the stream writer is per call: a stream must carry its schema)",
			module: "github.com/apache/arrow-go/v18", settings: map[string]string{"reuse": "schema, builder, output buffer", "zero-copy read": "no (values copied out)"}, make: newArrow(true)},
		{name: "flatbuffers", role: results.RoleSubject, note: "FlatBuffers table with one vector, builder reused (Reset)",
			module: "github.com/google/flatbuffers", settings: map[string]string{"reuse": "builder", "verified": "no (trusted input)", "codegen": "flatc"}, make: newFlatbuffers},
		{name: "memcpy", role: results.RoleLimit, note: "limit row: copy() of the raw packed bytes, no format at all", make: newMemcpy},
	}
}

// ---- memcpy ----

type memcpyCodec struct {
	d *ds.Data
	// src is a page-aligned copy of the raw bytes, buf the page-aligned
	// destination: the copy's layout is the same in every run.
	src, buf []byte
}

func newMemcpy(d *ds.Data) (codec, error) {
	src := pageAligned(len(d.Raw))
	copy(src, d.Raw)
	return &memcpyCodec{d: d, src: src, buf: pageAligned(len(d.Raw))}, nil
}

func (m *memcpyCodec) Encode() ([]byte, error) {
	copy(m.buf, m.src)
	return m.buf, nil
}

func (m *memcpyCodec) Decode(b []byte) error {
	copy(m.buf, b)
	return nil
}

// Out rebuilds typed values from the copied bytes so the limit row's
// copy is verified like every other subject (outside the timed region).
func (m *memcpyCodec) Out() *ds.Output {
	if !bytes.Equal(m.buf, m.d.Raw) {
		return &ds.Output{}
	}
	return sourceOutput(m.d)
}

// sourceOutput returns the source values as an Output.
func sourceOutput(d *ds.Data) *ds.Output {
	return &ds.Output{Int32: d.Int32, Int64: d.Int64, Float32: d.Float32, Float64: d.Float64, Half: d.Half, Bool: d.Bool, String: d.String}
}

// ---- protobuf ----

type protoCodec struct {
	d     *ds.Data
	msg   proto.Message
	dec   proto.Message
	buf   []byte
	fixed bool
}

func newProto(fixed bool) func(d *ds.Data) (codec, error) {
	return func(d *ds.Data) (codec, error) {
		c := &protoCodec{d: d, fixed: fixed}
		switch {
		case d.Type == ds.Int32 && !fixed:
			c.msg, c.dec = &pb.Int32S{Values: d.Int32}, &pb.Int32S{}
		case d.Type == ds.Int32:
			c.msg, c.dec = &pb.Sfixed32S{Values: d.Int32}, &pb.Sfixed32S{}
		case d.Type == ds.Int64 && !fixed:
			c.msg, c.dec = &pb.Int64S{Values: d.Int64}, &pb.Int64S{}
		case d.Type == ds.Int64:
			c.msg, c.dec = &pb.Sfixed64S{Values: d.Int64}, &pb.Sfixed64S{}
		case d.Type == ds.Float32:
			c.msg, c.dec = &pb.Float32S{Values: d.Float32}, &pb.Float32S{}
		case d.Type == ds.Float64:
			c.msg, c.dec = &pb.Float64S{Values: d.Float64}, &pb.Float64S{}
		case d.Type == ds.FP16:
			// The input is float32; narrowing to half is part of the
			// encoder's job, as it is for psdb and Arrow.
			c.msg, c.dec = &pb.Half16S{}, &pb.Half16S{}
			if fixed {
				c.msg, c.dec = &pb.Half16Fixed{}, &pb.Half16Fixed{}
			}
		case d.Type == ds.Bool:
			c.msg, c.dec = &pb.Bools{Values: d.Bool}, &pb.Bools{}
		case d.Type == ds.String:
			c.msg, c.dec = &pb.Strings{Values: d.String}, &pb.Strings{}
		default:
			return nil, fmt.Errorf("proto3: unsupported type %s", d.Type)
		}
		return c, nil
	}
}

func (c *protoCodec) Encode() ([]byte, error) {
	switch m := c.msg.(type) {
	case *pb.Half16S:
		m.Values = m.Values[:0]
		for _, f := range c.d.Float32 {
			m.Values = append(m.Values, uint32(toHalf(f)))
		}
	case *pb.Half16Fixed:
		m.Values = m.Values[:0]
		for _, f := range c.d.Float32 {
			m.Values = append(m.Values, uint32(toHalf(f)))
		}
	}
	var err error
	c.buf, err = proto.MarshalOptions{}.MarshalAppend(c.buf[:0], c.msg)
	return c.buf, err
}

func (c *protoCodec) Decode(b []byte) error {
	// Reset the repeated field's length but keep its capacity, then
	// merge: the decoder appends into the reused slice.
	switch m := c.dec.(type) {
	case *pb.Int32S:
		m.Values = m.Values[:0]
	case *pb.Sfixed32S:
		m.Values = m.Values[:0]
	case *pb.Int64S:
		m.Values = m.Values[:0]
	case *pb.Sfixed64S:
		m.Values = m.Values[:0]
	case *pb.Float32S:
		m.Values = m.Values[:0]
	case *pb.Float64S:
		m.Values = m.Values[:0]
	case *pb.Half16S:
		m.Values = m.Values[:0]
	case *pb.Half16Fixed:
		m.Values = m.Values[:0]
	case *pb.Bools:
		m.Values = m.Values[:0]
	case *pb.Strings:
		m.Values = m.Values[:0]
	}
	return proto.UnmarshalOptions{Merge: true}.Unmarshal(b, c.dec)
}

func (c *protoCodec) Out() *ds.Output {
	o := &ds.Output{}
	switch m := c.dec.(type) {
	case *pb.Int32S:
		o.Int32 = m.Values
	case *pb.Sfixed32S:
		o.Int32 = m.Values
	case *pb.Int64S:
		o.Int64 = m.Values
	case *pb.Sfixed64S:
		o.Int64 = m.Values
	case *pb.Float32S:
		o.Float32 = m.Values
	case *pb.Float64S:
		o.Float64 = m.Values
	case *pb.Half16S:
		o.Half = narrow(m.Values)
	case *pb.Half16Fixed:
		o.Half = narrow(m.Values)
	case *pb.Bools:
		o.Bool = m.Values
	case *pb.Strings:
		o.String = m.Values
	}
	return o
}

func narrow(v []uint32) []uint16 {
	out := make([]uint16, len(v))
	for i, x := range v {
		out[i] = uint16(x)
	}
	return out
}

// ---- Arrow IPC stream ----

type arrowCodec struct {
	d      *ds.Data
	reuse  bool
	dt     arrow.DataType
	schema *arrow.Schema
	bld    *array.RecordBuilder
	buf    bytes.Buffer
	rd     bytes.Reader
	out    ds.Output
	half   []float16.Num
}

func arrowType(t ds.Type) (arrow.DataType, error) {
	switch t {
	case ds.Int32:
		return arrow.PrimitiveTypes.Int32, nil
	case ds.Int64:
		return arrow.PrimitiveTypes.Int64, nil
	case ds.Float32:
		return arrow.PrimitiveTypes.Float32, nil
	case ds.Float64:
		return arrow.PrimitiveTypes.Float64, nil
	case ds.FP16:
		return arrow.FixedWidthTypes.Float16, nil
	case ds.Bool:
		return arrow.FixedWidthTypes.Boolean, nil
	case ds.String:
		return arrow.BinaryTypes.String, nil
	}
	return nil, fmt.Errorf("arrow: unsupported type %s", t)
}

func newArrow(reuse bool) func(d *ds.Data) (codec, error) {
	return func(d *ds.Data) (codec, error) {
		dt, err := arrowType(d.Type)
		if err != nil {
			return nil, err
		}
		c := &arrowCodec{d: d, reuse: reuse, dt: dt}
		if reuse {
			c.schema = arrow.NewSchema([]arrow.Field{{Name: "values", Type: dt}}, nil)
			c.bld = array.NewRecordBuilder(memory.DefaultAllocator, c.schema)
			c.half = make([]float16.Num, 0, d.N)
		}
		return c, nil
	}
}

func (c *arrowCodec) Encode() ([]byte, error) {
	schema, bld := c.schema, c.bld
	if !c.reuse {
		schema = arrow.NewSchema([]arrow.Field{{Name: "values", Type: c.dt}}, nil)
		bld = array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer bld.Release()
		c.buf = bytes.Buffer{}
	} else {
		c.buf.Reset()
	}
	switch f := bld.Field(0).(type) {
	case *array.Int32Builder:
		f.AppendValues(c.d.Int32, nil)
	case *array.Int64Builder:
		f.AppendValues(c.d.Int64, nil)
	case *array.Float32Builder:
		f.AppendValues(c.d.Float32, nil)
	case *array.Float64Builder:
		f.AppendValues(c.d.Float64, nil)
	case *array.Float16Builder:
		h := c.half[:0]
		for _, v := range c.d.Float32 {
			h = append(h, float16.FromBits(toHalf(v)))
		}
		c.half = h
		f.AppendValues(h, nil)
	case *array.BooleanBuilder:
		f.AppendValues(c.d.Bool, nil)
	case *array.StringBuilder:
		f.AppendValues(c.d.String, nil)
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	w := ipc.NewWriter(&c.buf, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err := w.Write(rec); err != nil {
		return nil, fmt.Errorf("arrow: write: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("arrow: close: %w", err)
	}
	return c.buf.Bytes(), nil
}

func (c *arrowCodec) Decode(b []byte) error {
	c.rd.Reset(b)
	r, err := ipc.NewReader(&c.rd, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return fmt.Errorf("arrow: read: %w", err)
	}
	defer r.Release()
	if !r.Next() {
		if err := r.Err(); err != nil {
			return fmt.Errorf("arrow: read: %w", err)
		}
		return fmt.Errorf("arrow: stream has no record batch")
	}
	col := r.RecordBatch().Column(0)
	o := &c.out
	switch a := col.(type) {
	case *array.Int32:
		o.Int32 = append(o.Int32[:0], a.Int32Values()...)
	case *array.Int64:
		o.Int64 = append(o.Int64[:0], a.Int64Values()...)
	case *array.Float32:
		o.Float32 = append(o.Float32[:0], a.Float32Values()...)
	case *array.Float64:
		o.Float64 = append(o.Float64[:0], a.Float64Values()...)
	case *array.Float16:
		o.Half = o.Half[:0]
		for _, v := range a.Values() {
			o.Half = append(o.Half, v.Uint16())
		}
	case *array.Boolean:
		o.Bool = o.Bool[:0]
		for i := 0; i < a.Len(); i++ {
			o.Bool = append(o.Bool, a.Value(i))
		}
	case *array.String:
		o.String = o.String[:0]
		for i := 0; i < a.Len(); i++ {
			o.String = append(o.String, strings.Clone(a.Value(i)))
		}
	default:
		return fmt.Errorf("arrow: unexpected column type %s", col.DataType())
	}
	return nil
}

func (c *arrowCodec) Out() *ds.Output { return &c.out }

// ---- FlatBuffers ----

type fbCodec struct {
	d   *ds.Data
	b   *flatbuffers.Builder
	out ds.Output
	off []flatbuffers.UOffsetT
}

func newFlatbuffers(d *ds.Data) (codec, error) {
	return &fbCodec{d: d, b: flatbuffers.NewBuilder(len(d.Raw) + 64)}, nil
}

func (c *fbCodec) Encode() ([]byte, error) {
	b := c.b
	b.Reset()
	var vec flatbuffers.UOffsetT
	switch c.d.Type {
	case ds.Int32:
		v := c.d.Int32
		fb.Int32sStartValuesVector(b, len(v))
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependInt32(v[i])
		}
		vec = b.EndVector(len(v))
		fb.Int32sStart(b)
		fb.Int32sAddValues(b, vec)
		b.Finish(fb.Int32sEnd(b))
	case ds.Int64:
		v := c.d.Int64
		fb.Int64sStartValuesVector(b, len(v))
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependInt64(v[i])
		}
		vec = b.EndVector(len(v))
		fb.Int64sStart(b)
		fb.Int64sAddValues(b, vec)
		b.Finish(fb.Int64sEnd(b))
	case ds.Float32:
		v := c.d.Float32
		fb.Float32sStartValuesVector(b, len(v))
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependFloat32(v[i])
		}
		vec = b.EndVector(len(v))
		fb.Float32sStart(b)
		fb.Float32sAddValues(b, vec)
		b.Finish(fb.Float32sEnd(b))
	case ds.Float64:
		v := c.d.Float64
		fb.Float64sStartValuesVector(b, len(v))
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependFloat64(v[i])
		}
		vec = b.EndVector(len(v))
		fb.Float64sStart(b)
		fb.Float64sAddValues(b, vec)
		b.Finish(fb.Float64sEnd(b))
	case ds.FP16:
		v := c.d.Float32
		fb.Half16sStartValuesVector(b, len(v))
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependUint16(toHalf(v[i]))
		}
		vec = b.EndVector(len(v))
		fb.Half16sStart(b)
		fb.Half16sAddValues(b, vec)
		b.Finish(fb.Half16sEnd(b))
	case ds.Bool:
		v := c.d.Bool
		fb.BoolsStartValuesVector(b, len(v))
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependBool(v[i])
		}
		vec = b.EndVector(len(v))
		fb.BoolsStart(b)
		fb.BoolsAddValues(b, vec)
		b.Finish(fb.BoolsEnd(b))
	case ds.String:
		v := c.d.String
		c.off = c.off[:0]
		for _, s := range v {
			c.off = append(c.off, b.CreateString(s))
		}
		fb.StringsStartValuesVector(b, len(v))
		for i := len(v) - 1; i >= 0; i-- {
			b.PrependUOffsetT(c.off[i])
		}
		vec = b.EndVector(len(v))
		fb.StringsStart(b)
		fb.StringsAddValues(b, vec)
		b.Finish(fb.StringsEnd(b))
	default:
		return nil, fmt.Errorf("flatbuffers: unsupported type %s", c.d.Type)
	}
	return b.FinishedBytes(), nil
}

// Decode reads every value out of the buffer. FlatBuffers' generated Go
// accessors do not bounds-check untrusted input; serbench only decodes
// what it encoded, so a panic here would be a bug and the engine turns it
// into a failed case.
func (c *fbCodec) Decode(buf []byte) error {
	o := &c.out
	switch c.d.Type {
	case ds.Int32:
		t := fb.GetRootAsInt32s(buf, 0)
		n := t.ValuesLength()
		o.Int32 = o.Int32[:0]
		for i := 0; i < n; i++ {
			o.Int32 = append(o.Int32, t.Values(i))
		}
	case ds.Int64:
		t := fb.GetRootAsInt64s(buf, 0)
		n := t.ValuesLength()
		o.Int64 = o.Int64[:0]
		for i := 0; i < n; i++ {
			o.Int64 = append(o.Int64, t.Values(i))
		}
	case ds.Float32:
		t := fb.GetRootAsFloat32s(buf, 0)
		n := t.ValuesLength()
		o.Float32 = o.Float32[:0]
		for i := 0; i < n; i++ {
			o.Float32 = append(o.Float32, t.Values(i))
		}
	case ds.Float64:
		t := fb.GetRootAsFloat64s(buf, 0)
		n := t.ValuesLength()
		o.Float64 = o.Float64[:0]
		for i := 0; i < n; i++ {
			o.Float64 = append(o.Float64, t.Values(i))
		}
	case ds.FP16:
		t := fb.GetRootAsHalf16s(buf, 0)
		n := t.ValuesLength()
		o.Half = o.Half[:0]
		for i := 0; i < n; i++ {
			o.Half = append(o.Half, t.Values(i))
		}
	case ds.Bool:
		t := fb.GetRootAsBools(buf, 0)
		n := t.ValuesLength()
		o.Bool = o.Bool[:0]
		for i := 0; i < n; i++ {
			o.Bool = append(o.Bool, t.Values(i))
		}
	case ds.String:
		t := fb.GetRootAsStrings(buf, 0)
		n := t.ValuesLength()
		o.String = o.String[:0]
		for i := 0; i < n; i++ {
			o.String = append(o.String, string(t.Values(i)))
		}
	default:
		return fmt.Errorf("flatbuffers: unsupported type %s", c.d.Type)
	}
	return nil
}

func (c *fbCodec) Out() *ds.Output { return &c.out }

// toHalf narrows a float32 to IEEE half precision, rounding to nearest
// even. Every subject without a converter of its own uses it, so all
// agree bit for bit. (Arrow's float16.New truncates instead of rounding:
// a round trip through it differs from the correctly rounded value by one
// unit in the last place for about half of all inputs.)
func toHalf(f float32) uint16 { return x448.Fromfloat32(f).Bits() }
