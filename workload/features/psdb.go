package features

import (
	"fmt"

	"github.com/x448/float16"

	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/psdb"
)

// psdbCodec encodes with psdb's append-style encoder into a reused buffer
// and decodes with its bulk readers into reused slices: the path the
// library is built for. Strings are read with ParseStrings into a reused
// psdb.Strings: zero-copy views of the block (offsets only), so string
// decoding allocates nothing either.
type psdbCodec struct {
	d      *ds.Data
	schema *psdb.Schema
	h      psdb.Header
	buf    []byte
	out    ds.Output
	f32    []float32
	strs   psdb.Strings
	// enc and dec are chosen once per case by bind.
	enc func(b []byte) ([]byte, error)
	dec func(b []byte) error
}

// psdbType returns psdb's data type for t (vector types map to psdb's
// vector types).
func psdbType(t ds.Type) (psdb.DataType, error) {
	m := map[ds.Type]psdb.DataType{
		ds.Int8: psdb.TypeInt8, ds.Int16: psdb.TypeInt16, ds.Int32: psdb.TypeInt32, ds.Int64: psdb.TypeInt64,
		ds.Uint8: psdb.TypeUint8, ds.Uint16: psdb.TypeUint16, ds.Uint32: psdb.TypeUint32, ds.Uint64: psdb.TypeUint64,
		ds.FP8E4M3: psdb.TypeFP8E4M3, ds.FP8E5M2: psdb.TypeFP8E5M2, ds.FP16: psdb.TypeFP16,
		ds.Float32: psdb.TypeFP32, ds.Float64: psdb.TypeFP64, ds.Bool: psdb.TypeBool, ds.String: psdb.TypeString,
	}
	dt, ok := m[t.Elem()]
	if !ok {
		return 0, fmt.Errorf("psdb: unsupported type %s", t)
	}
	if t.IsVector() {
		dt = dt.Vector()
	}
	return dt, nil
}

func newPSDB(d *ds.Data) (Serializer, error) {
	dt, err := psdbType(d.Type)
	if err != nil {
		return nil, err
	}
	var vecLens, maxStr []int
	if d.Type.IsVector() {
		vecLens = make([]int, d.N)
		for i := range vecLens {
			vecLens[i] = d.VecLen
		}
	}
	if d.Type.Elem() == ds.String {
		maxStr = make([]int, d.N)
		for i := range maxStr {
			maxStr[i] = ds.MaxStringLen
		}
	}
	s, err := psdb.NewSchema(1, dt, d.N, vecLens, maxStr)
	if err != nil {
		return nil, fmt.Errorf("psdb: schema: %w", err)
	}
	c := &psdbCodec{d: d, schema: s, h: s.Header(psdb.NoExpiry), buf: make([]byte, 0, psdb.HeaderLen+2*d.Values()+len(d.Raw))}
	c.bind()
	return c, nil
}

// bind chooses, once, the encoder and decoder for c's type, so a timed
// call makes no type dispatch of its own (the type names are strings).
func (c *psdbCodec) bind() {
	d, h, s := c.d, c.h, c.schema
	o := &c.out
	var enc func(b []byte) ([]byte, error)
	if d.Type.IsVector() {
		// Every subject gets the N·8 values flattened; psdb writes its
		// vector blocks from them with AppendFlatVectors (the block's
		// layout), not from N per-feature slices.
		switch d.Type.Elem() {
		case ds.Int8, ds.Int16, ds.Int32:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFlatVectors(b, h, s, d.Int32) }
		case ds.Int64:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFlatVectors(b, h, s, d.Int64) }
		case ds.Uint8, ds.Uint16, ds.Uint32:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFlatVectors(b, h, s, d.Uint32) }
		case ds.Uint64:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFlatVectors(b, h, s, d.Uint64) }
		case ds.FP8E4M3, ds.FP8E5M2, ds.FP16, ds.Float32:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFlatVectors(b, h, s, d.Float32) }
		case ds.Float64:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFlatVectors(b, h, s, d.Float64) }
		case ds.Bool:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFlatVectors(b, h, s, d.Bool) }
		case ds.String:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFlatVectors(b, h, s, d.String) }
		}
	} else {
		switch d.Type {
		case ds.Int8:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendInt8s(b, h, d.Int32) }
		case ds.Int16:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendInt16s(b, h, d.Int32) }
		case ds.Int32:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendInt32s(b, h, d.Int32) }
		case ds.Int64:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendInt64s(b, h, d.Int64) }
		case ds.Uint8:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendUint8s(b, h, d.Uint32) }
		case ds.Uint16:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendUint16s(b, h, d.Uint32) }
		case ds.Uint32:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendUint32s(b, h, d.Uint32) }
		case ds.Uint64:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendUint64s(b, h, d.Uint64) }
		case ds.FP8E4M3:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFP8E4M3s(b, h, d.Float32) }
		case ds.FP8E5M2:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFP8E5M2s(b, h, d.Float32) }
		case ds.FP16:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFP16s(b, h, d.Float32) }
		case ds.Float32:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFloat32s(b, h, d.Float32) }
		case ds.Float64:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendFloat64s(b, h, d.Float64) }
		case ds.Bool:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendBools(b, h, d.Bool) }
		case ds.String:
			enc = func(b []byte) ([]byte, error) { return psdb.AppendStrings(b, h, s, d.String) }
		}
	}
	c.enc = enc
	var read func(blk psdb.Block) error
	switch d.Type.Elem() {
	case ds.String:
		c.dec = func(b []byte) error {
			_, err := psdb.ParseStrings(b, s, &c.strs)
			return err
		}
		return
	case ds.Int8, ds.Int16, ds.Int32:
		read = func(blk psdb.Block) (err error) { o.Int32, err = blk.AppendInt32s(o.Int32[:0]); return }
	case ds.Int64:
		read = func(blk psdb.Block) (err error) { o.Int64, err = blk.AppendInt64s(o.Int64[:0]); return }
	case ds.Uint8, ds.Uint16, ds.Uint32:
		read = func(blk psdb.Block) (err error) { o.Uint32, err = blk.AppendUint32s(o.Uint32[:0]); return }
	case ds.Uint64:
		read = func(blk psdb.Block) (err error) { o.Uint64, err = blk.AppendUint64s(o.Uint64[:0]); return }
	case ds.Float32:
		read = func(blk psdb.Block) (err error) { o.Float32, err = blk.AppendFloat32s(o.Float32[:0]); return }
	case ds.Float64:
		read = func(blk psdb.Block) (err error) { o.Float64, err = blk.AppendFloat64s(o.Float64[:0]); return }
	case ds.FP16, ds.FP8E4M3, ds.FP8E5M2:
		// psdb widens halves and fp8 to float32 on read.
		read = func(blk psdb.Block) (err error) { c.f32, err = blk.AppendFloat32s(c.f32[:0]); return }
	case ds.Bool:
		read = func(blk psdb.Block) (err error) { o.Bool, err = blk.AppendBools(o.Bool[:0]); return }
	}
	c.dec = func(b []byte) error {
		blk, err := psdb.Parse(b, s)
		if err != nil {
			return err
		}
		return read(blk)
	}
}

func (c *psdbCodec) Encode() ([]byte, error) {
	b, err := c.enc(c.buf[:0])
	c.buf = b
	return b, err
}

func (c *psdbCodec) Decode(b []byte) error {
	if err := c.dec(b); err != nil {
		return fmt.Errorf("psdb: %w", err)
	}
	return nil
}

// Out converts what Decode read into the values Check compares (outside
// the timed region): the widened floats back to their bit patterns (exact:
// every decoded value is representable), the string views to strings.
func (c *psdbCodec) Out() *ds.Output {
	o := c.out
	switch t := c.d.Type.Elem(); t {
	case ds.FP16:
		o.Half = make([]uint16, len(c.f32))
		for i, f := range c.f32 {
			o.Half[i] = float16.Fromfloat32(f).Bits()
		}
	case ds.FP8E4M3, ds.FP8E5M2:
		o.FP8 = make([]uint8, len(c.f32))
		for i, f := range c.f32 {
			o.FP8[i] = ds.FP8Bits(t, f)
		}
	case ds.String:
		o.String = make([]string, c.strs.Len())
		for i := range o.String {
			o.String[i] = c.strs.String(i)
		}
	}
	return &o
}

// psdbBitsCodec is psdb's packed-bits bool API: the caller's values are
// already packed bits (psdb's own layout, most significant bit first), so
// encode is AppendBoolBits (one copy of N/8 bytes after the header) and
// decode is Parse and Block.AppendBoolBits (one copy out). It does less
// work than the other bool subjects and the limit row, which convert
// []bool; its own floor is a copy of N/8 bytes.
type psdbBitsCodec struct {
	d      *ds.Data
	schema *psdb.Schema
	h      psdb.Header
	buf    []byte
	bits   []byte
}

func newPSDBBits(d *ds.Data) (Serializer, error) {
	if d.Type != ds.Bool {
		return nil, fmt.Errorf("psdb-bits: unsupported type %s", d.Type)
	}
	s, err := psdb.NewSchema(1, psdb.TypeBool, d.N, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("psdb-bits: schema: %w", err)
	}
	return &psdbBitsCodec{d: d, schema: s, h: s.Header(psdb.NoExpiry), buf: make([]byte, 0, psdb.HeaderLen+len(d.Raw))}, nil
}

func (c *psdbBitsCodec) Encode() ([]byte, error) {
	b, err := psdb.AppendBoolBits(c.buf[:0], c.h, c.d.Raw, c.d.N)
	c.buf = b
	return b, err
}

func (c *psdbBitsCodec) Decode(b []byte) error {
	blk, err := psdb.Parse(b, c.schema)
	if err == nil {
		c.bits, err = blk.AppendBoolBits(c.bits[:0])
	}
	if err != nil {
		return fmt.Errorf("psdb-bits: %w", err)
	}
	return nil
}

// Out unpacks the bits to []bool (outside the timed region).
func (c *psdbBitsCodec) Out() *ds.Output {
	o := make([]bool, c.d.N)
	for i := range o {
		o[i] = c.bits[i/8]&(0x80>>(i%8)) != 0
	}
	return &ds.Output{Bool: o}
}
