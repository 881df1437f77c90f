package features

import (
	"fmt"

	"github.com/x448/float16"

	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/psdb"
)

// psdbCodec encodes with psdb's append-style encoder into a reused buffer
// and decodes with its bulk readers into reused slices: the path the
// library is built for (0 allocs/op for numbers and bools).
type psdbCodec struct {
	d      *ds.Data
	schema *psdb.Schema
	h      psdb.Header
	buf    []byte
	out    ds.Output
	f32    []float32
}

func psdbType(t ds.Type) (psdb.DataType, error) {
	switch t {
	case ds.Int32:
		return psdb.TypeInt32, nil
	case ds.Int64:
		return psdb.TypeInt64, nil
	case ds.Float32:
		return psdb.TypeFP32, nil
	case ds.Float64:
		return psdb.TypeFP64, nil
	case ds.FP16:
		return psdb.TypeFP16, nil
	case ds.Bool:
		return psdb.TypeBool, nil
	case ds.String:
		return psdb.TypeString, nil
	}
	return 0, fmt.Errorf("psdb: unsupported type %s", t)
}

func newPSDB(d *ds.Data) (codec, error) {
	dt, err := psdbType(d.Type)
	if err != nil {
		return nil, err
	}
	var maxStr []int
	if d.Type == ds.String {
		maxStr = make([]int, d.N)
		for i := range maxStr {
			maxStr[i] = ds.MaxStringLen
		}
	}
	s, err := psdb.NewSchema(1, dt, d.N, nil, maxStr)
	if err != nil {
		return nil, fmt.Errorf("psdb: schema: %w", err)
	}
	return &psdbCodec{d: d, schema: s, h: s.Header(psdb.NoExpiry), buf: make([]byte, 0, 9+2*d.N+len(d.Raw))}, nil
}

func (c *psdbCodec) Encode() ([]byte, error) {
	var err error
	b := c.buf[:0]
	switch c.d.Type {
	case ds.Int32:
		b, err = psdb.AppendInt32s(b, c.h, c.d.Int32)
	case ds.Int64:
		b, err = psdb.AppendInt64s(b, c.h, c.d.Int64)
	case ds.Float32:
		b, err = psdb.AppendFloat32s(b, c.h, c.d.Float32)
	case ds.Float64:
		b, err = psdb.AppendFloat64s(b, c.h, c.d.Float64)
	case ds.FP16:
		b, err = psdb.AppendFP16s(b, c.h, c.d.Float32)
	case ds.Bool:
		b, err = psdb.AppendBools(b, c.h, c.d.Bool)
	case ds.String:
		b, err = psdb.AppendStrings(b, c.h, c.schema, c.d.String)
	}
	c.buf = b
	return b, err
}

func (c *psdbCodec) Decode(b []byte) error {
	blk, err := psdb.Parse(b, c.schema)
	if err != nil {
		return err
	}
	o := &c.out
	switch c.d.Type {
	case ds.Int32:
		o.Int32, err = blk.AppendInt32s(o.Int32[:0])
	case ds.Int64:
		o.Int64, err = blk.AppendInt64s(o.Int64[:0])
	case ds.Float32:
		o.Float32, err = blk.AppendFloat32s(o.Float32[:0])
	case ds.Float64:
		o.Float64, err = blk.AppendFloat64s(o.Float64[:0])
	case ds.FP16:
		// psdb widens halves to float32 on read.
		c.f32, err = blk.AppendFloat32s(c.f32[:0])
	case ds.Bool:
		o.Bool, err = blk.AppendBools(o.Bool[:0])
	case ds.String:
		o.String, err = blk.AppendStrings(o.String[:0])
	}
	return err
}

func (c *psdbCodec) Out() *ds.Output {
	if c.d.Type == ds.FP16 {
		o := c.out
		o.Half = make([]uint16, len(c.f32))
		for i, f := range c.f32 {
			o.Half[i] = float16.Fromfloat32(f).Bits()
		}
		return &o
	}
	return &c.out
}
