package dynamic

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tinylib/msgp/msgp"
)

// The flat decoders (MessagePack, Avro) read the rows of a flat schema — at
// most 64 top-level columns of fixed-width, boolean, string or binary types
// — straight into column buffers, which become the Arrow arrays of the
// batch without a builder.

// flatKind is how a flat column's values are read and stored.
type flatKind uint8

const (
	fkInt  flatKind = iota // signed integer of width bytes (int*, date32, time*, timestamp)
	fkUint                 // unsigned integer of width bytes
	fkF32                  // float32
	fkF64                  // float64
	fkBool                 // boolean
	fkStr                  // utf8 (a MessagePack str)
	fkBin                  // binary (a MessagePack bin)
)

// flatCol is one column of a flat decoder and its values so far.
type flatCol struct {
	name string
	key  string // the name as a MessagePack str
	dt   arrow.DataType
	// nullable is the field's flag (Avro: a [null, T] union).
	nullable bool
	kind     flatKind
	width    int // bytes per value (fixed-width kinds; 1 for bool)
	// ts is set for a timestamp column, whose values may also come as
	// MessagePack's timestamp extension (in unit).
	ts   bool
	unit arrow.TimeUnit
	// date is set for a date32 column, whose values may also come as a
	// 2006-01-02 string (Python's msgpack writes a date so).
	date bool
	bits int // value range in bits for narrow integers (0: no check)
	// vals holds fixed-width values little endian (bools one byte each);
	// offs and data hold strings and binaries (offs starts with 0).
	vals  []byte
	offs  []int32
	data  []byte
	nulls []int32 // rows that are null, ascending
}

// flatColumn returns the column of field f, or false when the flat
// decoder cannot read its type.
func flatColumn(f arrow.Field) (flatCol, bool) {
	c := flatCol{name: f.Name, key: string(msgp.AppendString(nil, f.Name)), dt: f.Type, nullable: f.Nullable}
	switch f.Type.(type) {
	case *arrow.Int8Type:
		c.kind, c.width, c.bits = fkInt, 1, 8
	case *arrow.Int16Type:
		c.kind, c.width, c.bits = fkInt, 2, 16
	case *arrow.Int32Type, *arrow.Time32Type:
		c.kind, c.width, c.bits = fkInt, 4, 32
	case *arrow.Date32Type:
		c.kind, c.width, c.bits, c.date = fkInt, 4, 32, true
	case *arrow.Int64Type, *arrow.Time64Type:
		c.kind, c.width = fkInt, 8
	case *arrow.TimestampType:
		c.kind, c.width = fkInt, 8
		c.ts, c.unit = true, f.Type.(*arrow.TimestampType).Unit
	case *arrow.Uint8Type:
		c.kind, c.width, c.bits = fkUint, 1, 8
	case *arrow.Uint16Type:
		c.kind, c.width, c.bits = fkUint, 2, 16
	case *arrow.Uint32Type:
		c.kind, c.width, c.bits = fkUint, 4, 32
	case *arrow.Uint64Type:
		c.kind, c.width = fkUint, 8
	case *arrow.Float32Type:
		c.kind, c.width = fkF32, 4
	case *arrow.Float64Type:
		c.kind, c.width = fkF64, 8
	case *arrow.BooleanType:
		c.kind, c.width = fkBool, 1
	case *arrow.StringType:
		c.kind = fkStr
	case *arrow.BinaryType:
		c.kind = fkBin
	default:
		return c, false
	}
	return c, true
}

// flatBatch is the batch a flat decoder is reading.
type flatBatch struct {
	schema *arrow.Schema
	cols   []flatCol
	max    int
	rows   int // rows read into cols
}

// newFlatBatch returns the batch of o.BatchRows rows of schema, or false
// when the schema is not flat or o sets an Allocator (the flat decoders'
// batches are Go memory).
func newFlatBatch(schema *arrow.Schema, o Options) (flatBatch, bool) {
	max := o.batchRows()
	d := flatBatch{schema: schema, max: max}
	if o.Allocator != nil || schema.NumFields() == 0 || schema.NumFields() > 64 {
		return d, false
	}
	for _, f := range schema.Fields() {
		c, ok := flatColumn(f)
		if !ok {
			return d, false
		}
		if c.kind == fkStr || c.kind == fkBin {
			c.offs = append(make([]int32, 0, max+1), 0)
		} else {
			c.vals = make([]byte, 0, max*c.width)
		}
		d.cols = append(d.cols, c)
	}
	return d, true
}

// undo cuts every column back to d.rows rows.
func (d *flatBatch) undo() {
	for i := range d.cols {
		c := &d.cols[i]
		if c.kind == fkStr || c.kind == fkBin {
			c.offs = c.offs[:d.rows+1]
			c.data = c.data[:c.offs[d.rows]]
		} else {
			c.vals = c.vals[:d.rows*c.width]
		}
		for len(c.nulls) > 0 && int(c.nulls[len(c.nulls)-1]) >= d.rows {
			c.nulls = c.nulls[:len(c.nulls)-1]
		}
	}
}

// batch turns the columns into a record batch and starts the next batch
// with buffers of the same capacity.
func (d *flatBatch) batch() arrow.RecordBatch {
	n := d.rows
	arrs := make([]arrow.Array, len(d.cols))
	for i := range d.cols {
		c := &d.cols[i]
		var valid *memory.Buffer
		if len(c.nulls) > 0 {
			bm := make([]byte, bitutil.BytesForBits(int64(n)))
			bitutil.SetBitsTo(bm, 0, int64(n), true)
			for _, r := range c.nulls {
				bitutil.ClearBit(bm, int(r))
			}
			valid = memory.NewBufferBytes(bm)
		}
		var bufs []*memory.Buffer
		switch c.kind {
		case fkStr, fkBin:
			bufs = []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.offs)), memory.NewBufferBytes(c.data)}
			c.offs = append(make([]int32, 0, cap(c.offs)), 0)
			c.data = make([]byte, 0, cap(c.data))
		case fkBool:
			bm := make([]byte, bitutil.BytesForBits(int64(n)))
			for r, b := range c.vals {
				if b != 0 {
					bitutil.SetBit(bm, r)
				}
			}
			bufs = []*memory.Buffer{valid, memory.NewBufferBytes(bm)}
			c.vals = c.vals[:0]
		default:
			bufs = []*memory.Buffer{valid, memory.NewBufferBytes(c.vals)}
			c.vals = make([]byte, 0, cap(c.vals))
		}
		data := array.NewData(c.dt, n, bufs, nil, len(c.nulls), 0)
		arrs[i] = array.MakeFromData(data)
		data.Release()
		c.nulls = c.nulls[:0]
	}
	rec := array.NewRecordBatch(d.schema, arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	d.rows = 0
	return rec
}

// null appends a null as row r.
func (c *flatCol) null(r int) {
	c.nulls = append(c.nulls, int32(r))
	switch c.kind {
	case fkStr, fkBin:
		c.offs = append(c.offs, int32(len(c.data)))
	default:
		c.vals = append(c.vals, make([]byte, c.width)...)
	}
}

// appendStr appends a string or binary value.
func (c *flatCol) appendStr(s []byte) error {
	c.data = append(c.data, s...)
	if len(c.data) > math.MaxInt32 {
		return fmt.Errorf("column of more than %d bytes in one batch", math.MaxInt32)
	}
	c.offs = append(c.offs, int32(len(c.data)))
	return nil
}

// appendInt appends an integer given as its bits and whether it is
// negative (then the bits are an int64), checking the column's range.
func (c *flatCol) appendInt(v uint64, neg bool) error {
	if c.kind == fkInt {
		if !neg && v > math.MaxInt64 {
			return fmt.Errorf("%d overflows int64", v)
		}
		if c.bits > 0 {
			if err := intRange(int64(v), c.bits); err != nil {
				return err
			}
		}
	} else {
		if neg {
			return fmt.Errorf("%d is negative: want an unsigned integer", int64(v))
		}
		if c.bits > 0 && v > 1<<c.bits-1 {
			return fmt.Errorf("%d out of the range of uint%d", v, c.bits)
		}
	}
	switch c.width {
	case 8:
		c.vals = binary.LittleEndian.AppendUint64(c.vals, v)
	case 4:
		c.vals = binary.LittleEndian.AppendUint32(c.vals, uint32(v))
	case 2:
		c.vals = binary.LittleEndian.AppendUint16(c.vals, uint16(v))
	default:
		c.vals = append(c.vals, byte(v))
	}
	return nil
}

// narrowFloat32 is d as a float32 when that is exact — a float32 another
// language's writer widened to float64 (Python has no float32; CBOR and
// MessagePack libraries write what they hold) — and an error otherwise: a
// float32 column read back keeps its width, never a rounded value.
func narrowFloat32(d float64) (float32, error) {
	f := float32(d)
	if float64(f) == d || (math.IsNaN(d) && math.IsNaN(float64(f))) {
		return f, nil
	}
	return 0, fmt.Errorf("a float64 %v where a float32 was expected, and no float32 holds it exactly", d)
}
