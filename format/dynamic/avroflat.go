package dynamic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/serbench/serbench/format"
)

// avroFlat decodes the blocks of an object container file of a flat schema
// straight into column buffers (see flatBatch): the datum of a row is its
// fields in schema order, a nullable one behind a [null, T] union index.
type avroFlat struct {
	flatBatch
	name  string
	or    *ocfReader
	b     []byte // the current block
	i     int    // the position in b
	left  int64  // rows left in b
	total int64
	done  bool
	cur   arrow.RecordBatch
}

// newAvroFlat returns the flat decoder of schema, or nil when the schema is
// not flat.
func newAvroFlat(name string, schema *arrow.Schema, o Options, or *ocfReader) *avroFlat {
	fb, ok := newFlatBatch(schema, o)
	if !ok {
		return nil
	}
	return &avroFlat{flatBatch: fb, name: name, or: or}
}

// Decode implements format.Decoder.
func (d *avroFlat) Decode(v *arrow.RecordBatch) (err error) {
	defer format.CatchPanic(d.name, &err)
	if d.cur != nil {
		d.cur.Release()
		d.cur = nil
	}
	if d.done {
		return io.EOF
	}
	for d.rows < d.max {
		if d.left == 0 {
			if d.i != len(d.b) {
				err = fmt.Errorf("%d bytes after the block's last datum", len(d.b)-d.i)
			} else if err = d.or.next(); err == io.EOF {
				d.done = true
				break
			}
			if err != nil {
				d.done = true
				return fmt.Errorf("%s: row %d: %w", d.name, d.total, err)
			}
			d.b, d.i, d.left = d.or.block, 0, d.or.count
			continue
		}
		if err := d.row(); err != nil {
			d.done = true
			return fmt.Errorf("%s: row %d: %w", d.name, d.total, err)
		}
		d.left--
		d.rows++
		d.total++
	}
	if d.rows == 0 {
		return io.EOF
	}
	d.cur = d.batch()
	*v = d.cur
	return nil
}

// avroLong reads a zigzag varint at b[i:].
func avroLong(b []byte, i int) (int64, int, error) {
	if i < len(b) && b[i] < 0x80 {
		return int64(b[i]>>1) ^ -int64(b[i]&1), i + 1, nil
	}
	v, n := binary.Varint(b[i:])
	if n <= 0 {
		if n == 0 {
			return 0, 0, errShort
		}
		return 0, 0, errors.New("varint overflows int64")
	}
	return v, i + n, nil
}

// row reads the datum of one row.
func (d *avroFlat) row() error {
	b, i := d.b, d.i
	for k := range d.cols {
		c := &d.cols[k]
		var err error
		if i, err = c.avroValue(b, i, d.rows); err != nil {
			return wrapPath(c.name, err)
		}
	}
	d.i = i
	return nil
}

// avroValue reads the Avro value of row r at b[i:] and appends it.
func (c *flatCol) avroValue(b []byte, i int, r int) (int, error) {
	if c.nullable {
		idx, j, err := avroLong(b, i)
		if err != nil {
			return 0, err
		}
		switch idx {
		case 0:
			c.null(r)
			return j, nil
		case 1:
			i = j
		default:
			return 0, fmt.Errorf("union index %d of a [null, T] union", idx)
		}
	}
	switch c.kind {
	case fkStr, fkBin:
		n, j, err := avroLong(b, i)
		if err != nil {
			return 0, err
		}
		if n < 0 || n > int64(len(b)-j) {
			return 0, errShort
		}
		return j + int(n), c.appendStr(b[j : j+int(n)])
	case fkF64:
		if len(b)-i < 8 {
			return 0, errShort
		}
		c.vals = append(c.vals, b[i:i+8]...)
		return i + 8, nil
	case fkF32:
		if len(b)-i < 4 {
			return 0, errShort
		}
		c.vals = append(c.vals, b[i:i+4]...)
		return i + 4, nil
	case fkBool:
		if i >= len(b) {
			return 0, errShort
		}
		if b[i] > 1 {
			return 0, fmt.Errorf("boolean byte %d", b[i])
		}
		c.vals = append(c.vals, b[i])
		return i + 1, nil
	case fkUint:
		if c.width == 8 { // fixed(8), big endian
			if len(b)-i < 8 {
				return 0, errShort
			}
			c.vals = binary.LittleEndian.AppendUint64(c.vals, binary.BigEndian.Uint64(b[i:]))
			return i + 8, nil
		}
	}
	v, i, err := avroLong(b, i)
	if err != nil {
		return 0, err
	}
	return i, c.appendInt(uint64(v), v < 0)
}
