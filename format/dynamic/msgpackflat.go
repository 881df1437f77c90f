package dynamic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/serbench/serbench/format"
	"github.com/tinylib/msgp/msgp"
)

// The flat MessagePack decoder reads rows of a flat schema (at most 64
// top-level columns of fixed-width, boolean, string or binary types) from a
// window of buffered input straight into column buffers, which become the
// Arrow arrays of the batch without a builder. A row that runs past the
// window is undone (the columns are cut back to the previous row) and read
// again once more input is buffered, so a row is never half-appended.
// Semantics are the general decoder's: keys in any order, a missing key or
// nil is NULL, an unknown or repeated key is an error.

// mpFlatBuf is the flat decoder's initial buffer size (a variable for
// tests).
var mpFlatBuf = 256 << 10

// mpFlat is the flat decoder.
type mpFlat struct {
	flatBatch
	total int64
	// buf[p:n] is the buffered input not yet decoded.
	r    io.Reader
	buf  []byte
	p, n int
	eof  bool
	done bool
	cur  arrow.RecordBatch
	// all has a bit set for every column.
	all uint64
}

// newMpFlat returns the flat decoder of schema, or nil when the schema is
// not flat.
func newMpFlat(schema *arrow.Schema, o Options, r io.Reader) *mpFlat {
	fb, ok := newFlatBatch(schema, o)
	if !ok {
		return nil
	}
	d := &mpFlat{flatBatch: fb, r: r, buf: make([]byte, mpFlatBuf)}
	d.all = 1<<len(d.cols) - 1
	if len(d.cols) == 64 {
		d.all = math.MaxUint64
	}
	return d
}

// errMpShort means the buffered input ends inside the row.
var errMpShort = errors.New("short input")

// fill buffers more input, keeping the undecoded bytes; it grows the buffer
// when they fill it (so a row of any size fits, and the buffer only grows
// with input actually read).
func (d *mpFlat) fill() error {
	if d.p > 0 {
		d.n = copy(d.buf, d.buf[d.p:d.n])
		d.p = 0
	}
	if d.n == len(d.buf) {
		nb := make([]byte, 2*len(d.buf))
		copy(nb, d.buf[:d.n])
		d.buf = nb
	}
	for {
		k, err := d.r.Read(d.buf[d.n:])
		d.n += k
		if err == io.EOF {
			d.eof = true
			return nil
		}
		if err != nil {
			return err
		}
		if k > 0 {
			return nil
		}
	}
}

// Decode implements format.Decoder.
func (d *mpFlat) Decode(v *arrow.RecordBatch) (err error) {
	defer format.CatchPanic("msgpack", &err)
	if d.cur != nil {
		d.cur.Release()
		d.cur = nil
	}
	if d.done {
		return io.EOF
	}
	for d.rows < d.max {
		if d.p == d.n {
			if d.eof {
				d.done = true
				break
			}
			if err := d.fill(); err != nil {
				d.done = true
				return fmt.Errorf("msgpack: row %d: %w", d.total, err)
			}
			continue
		}
		k, err := d.row(d.buf[d.p:d.n])
		if err == errMpShort {
			d.undo()
			if d.eof {
				err = io.ErrUnexpectedEOF
			} else if err = d.fill(); err == nil {
				continue
			}
		}
		if err != nil {
			d.done = true
			return fmt.Errorf("msgpack: row %d: %w", d.total, format.Unexpected("msgpack", err))
		}
		d.p += k
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

// row reads one row from b, returning the bytes read: errMpShort when b ends
// inside it.
func (d *mpFlat) row(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, errMpShort
	}
	var pairs, p int
	switch t := b[0]; {
	case t >= 0x80 && t <= 0x8f:
		pairs, p = int(t&0x0f), 1
	case t == 0xde:
		if len(b) < 3 {
			return 0, errMpShort
		}
		pairs, p = int(binary.BigEndian.Uint16(b[1:])), 3
	case t == 0xdf:
		if len(b) < 5 {
			return 0, errMpShort
		}
		pairs, p = int(binary.BigEndian.Uint32(b[1:])), 5
	default:
		return 0, fmt.Errorf("want a map, got %s", msgp.NextType(b))
	}
	var seen uint64
	next := 0 // the column the next key most likely names
	for ; pairs > 0; pairs-- {
		k := -1
		if next < len(d.cols) {
			key := d.cols[next].key
			if len(b)-p >= len(key) && string(b[p:p+len(key)]) == key {
				k = next
				p += len(key)
			}
		}
		if k < 0 {
			var err error
			if k, p, err = d.key(b, p); err != nil {
				return 0, err
			}
		}
		if seen&(1<<k) != 0 {
			return 0, fmt.Errorf("field %s twice in one record", d.cols[k].name)
		}
		seen |= 1 << k
		next = k + 1
		var err error
		if p, err = d.cols[k].mpValue(b, p, d.rows); err != nil {
			if err == errMpShort {
				return 0, err
			}
			return 0, wrapPath(d.cols[k].name, err)
		}
	}
	if seen != d.all {
		for k := range d.cols {
			if seen&(1<<k) == 0 {
				d.cols[k].null(d.rows)
			}
		}
	}
	return p, nil
}

// key reads a key at b[p:] that is not the expected one.
func (d *mpFlat) key(b []byte, p int) (int, int, error) {
	s, p, err := mpStr(b, p, 0xa0, 0xd9)
	if err != nil {
		return 0, 0, err
	}
	for k := range d.cols {
		if d.cols[k].name == string(s) {
			return k, p, nil
		}
	}
	return 0, 0, fmt.Errorf("unknown field %q", s)
}

// mpStr reads a str (fix, 8 as lead8, 16, 32: lead8+1, lead8+2) or bin
// (fix 0: none; 8, 16, 32 from lead8) header and its bytes at b[p:].
func mpStr(b []byte, p int, fix byte, lead8 byte) ([]byte, int, error) {
	if p >= len(b) {
		return nil, 0, errMpShort
	}
	t := b[p]
	var n int
	switch {
	case fix != 0 && t >= fix && t <= fix|0x1f:
		n, p = int(t&0x1f), p+1
	case t == lead8:
		if len(b)-p < 2 {
			return nil, 0, errMpShort
		}
		n, p = int(b[p+1]), p+2
	case t == lead8+1:
		if len(b)-p < 3 {
			return nil, 0, errMpShort
		}
		n, p = int(binary.BigEndian.Uint16(b[p+1:])), p+3
	case t == lead8+2:
		if len(b)-p < 5 {
			return nil, 0, errMpShort
		}
		n, p = int(binary.BigEndian.Uint32(b[p+1:])), p+5
	default:
		want := "str"
		if fix == 0 {
			want = "bin"
		}
		return nil, 0, fmt.Errorf("want a %s, got %s", want, msgp.NextType(b[p:]))
	}
	if n > maxValueBytes {
		return nil, 0, fmt.Errorf("value of %d bytes exceeds limit %d (corrupt length?)", n, maxValueBytes)
	}
	if len(b)-p < n {
		return nil, 0, errMpShort
	}
	return b[p : p+n], p + n, nil
}

// mpValue reads the MessagePack value of row r at b[p:] and appends it.
func (c *flatCol) mpValue(b []byte, p int, r int) (int, error) {
	if p >= len(b) {
		return 0, errMpShort
	}
	if b[p] == 0xc0 {
		c.null(r)
		return p + 1, nil
	}
	switch c.kind {
	case fkStr, fkBin:
		fix, lead8 := byte(0xa0), byte(0xd9)
		if c.kind == fkBin {
			fix, lead8 = 0, 0xc4
		}
		s, p, err := mpStr(b, p, fix, lead8)
		if err != nil {
			return 0, err
		}
		return p, c.appendStr(s)
	case fkF64:
		if b[p] != 0xcb {
			return 0, fmt.Errorf("want a float64, got %s", msgp.NextType(b[p:]))
		}
		if len(b)-p < 9 {
			return 0, errMpShort
		}
		c.vals = binary.LittleEndian.AppendUint64(c.vals, binary.BigEndian.Uint64(b[p+1:]))
		return p + 9, nil
	case fkF32:
		if b[p] == 0xcb && len(b)-p >= 9 {
			f, err := narrowFloat32(math.Float64frombits(binary.BigEndian.Uint64(b[p+1:])))
			if err != nil {
				return 0, err
			}
			c.vals = binary.LittleEndian.AppendUint32(c.vals, math.Float32bits(f))
			return p + 9, nil
		}
		if b[p] != 0xca {
			return 0, fmt.Errorf("want a float32, got %s", msgp.NextType(b[p:]))
		}
		if len(b)-p < 5 {
			return 0, errMpShort
		}
		c.vals = binary.LittleEndian.AppendUint32(c.vals, binary.BigEndian.Uint32(b[p+1:]))
		return p + 5, nil
	case fkBool:
		switch b[p] {
		case 0xc2:
			c.vals = append(c.vals, 0)
		case 0xc3:
			c.vals = append(c.vals, 1)
		default:
			return 0, fmt.Errorf("want a bool, got %s", msgp.NextType(b[p:]))
		}
		return p + 1, nil
	}
	if c.ts && (b[p] == 0xd6 || b[p] == 0xd7 || b[p] == 0xc7) { // fixext 4, fixext 8, ext 8: never an integer
		if v, q, ok, err := mpExtTime(b, p, c.unit); ok {
			if err != nil {
				return 0, err
			}
			c.vals = binary.LittleEndian.AppendUint64(c.vals, uint64(v))
			return q, nil
		}
	}
	if c.date && (b[p]&0xe0 == 0xa0 || b[p] == 0xd9) { // fixstr, str 8: never an integer
		d, q, err := mpStrDate(b, p)
		if err != nil {
			return 0, err
		}
		c.vals = binary.LittleEndian.AppendUint32(c.vals, uint32(d))
		return q, nil
	}
	v, neg, p, err := mpInt(b, p)
	if err != nil {
		return 0, err
	}
	return p, c.appendInt(v, neg)
}

// mpInt reads any MessagePack integer at b[p:]: its bits as a uint64 and
// whether it is negative (then the bits are an int64).
func mpInt(b []byte, p int) (v uint64, neg bool, q int, err error) {
	t := b[p]
	switch {
	case t <= 0x7f:
		return uint64(t), false, p + 1, nil
	case t >= 0xe0:
		return uint64(int64(int8(t))), true, p + 1, nil
	}
	var size int
	switch t {
	case 0xcc, 0xd0:
		size = 1
	case 0xcd, 0xd1:
		size = 2
	case 0xce, 0xd2:
		size = 4
	case 0xcf, 0xd3:
		size = 8
	default:
		return 0, false, 0, fmt.Errorf("want an integer, got %s", msgp.NextType(b[p:]))
	}
	if len(b)-p <= size {
		return 0, false, 0, errMpShort
	}
	x := b[p+1 : p+1+size]
	var s int64
	switch t {
	case 0xcc:
		return uint64(x[0]), false, p + 2, nil
	case 0xcd:
		return uint64(binary.BigEndian.Uint16(x)), false, p + 3, nil
	case 0xce:
		return uint64(binary.BigEndian.Uint32(x)), false, p + 5, nil
	case 0xcf:
		return binary.BigEndian.Uint64(x), false, p + 9, nil
	case 0xd0:
		s = int64(int8(x[0]))
	case 0xd1:
		s = int64(int16(binary.BigEndian.Uint16(x)))
	case 0xd2:
		s = int64(int32(binary.BigEndian.Uint32(x)))
	default:
		s = int64(binary.BigEndian.Uint64(x))
	}
	return uint64(s), s < 0, p + 1 + size, nil
}

// mpFlatEncoder writes batches of a flat schema (the types the flat
// decoder reads) row by row from the arrays' buffers, with the keys encoded
// once: the bytes are the general encoder's.
type mpFlatEncoder struct {
	schema *arrow.Schema
	w      io.Writer
	buf    []byte
	cols   []flatCol
	header []byte // the rows' map header
}

func newMpFlatEncoder(schema *arrow.Schema, w io.Writer) *mpFlatEncoder {
	if schema.NumFields() == 0 || schema.NumFields() > 64 {
		return nil
	}
	e := &mpFlatEncoder{schema: schema, w: w, header: msgp.AppendMapHeader(nil, uint32(schema.NumFields()))}
	for _, f := range schema.Fields() {
		c, ok := flatColumn(f)
		if !ok {
			return nil
		}
		e.cols = append(e.cols, c)
	}
	return e
}

// mpFlatArray is one column of a batch being written.
type mpFlatArray struct {
	*flatCol
	arr   arrow.Array
	nulls bool
	vals  []byte // fixed-width values from the array's offset
	off   int    // the array's offset (bools)
	str   *array.String
	bin   *array.Binary
}

// Encode implements format.Encoder.
func (e *mpFlatEncoder) Encode(v *arrow.RecordBatch) error {
	rec := *v
	if !rec.Schema().Equal(e.schema) {
		return fmt.Errorf("msgpack: batch schema %s differs from the format's %s", rec.Schema(), e.schema)
	}
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	cols := make([]mpFlatArray, len(e.cols))
	for k := range cols {
		a := rec.Column(k)
		c := mpFlatArray{flatCol: &e.cols[k], arr: a, nulls: a.NullN() > 0, off: a.Data().Offset()}
		switch c.kind {
		case fkStr:
			c.str = a.(*array.String)
		case fkBin:
			c.bin = a.(*array.Binary)
		case fkBool:
			if vb := a.Data().Buffers()[1]; vb != nil {
				c.vals = vb.Bytes()
			}
		default:
			if vb := a.Data().Buffers()[1]; vb != nil {
				c.vals = vb.Bytes()[c.off*c.width:]
			}
		}
		cols[k] = c
	}
	b := e.buf
	for i := 0; i < n; i++ {
		b = append(b, e.header...)
		for k := range cols {
			c := &cols[k]
			b = append(b, c.key...)
			if c.nulls && c.arr.IsNull(i) {
				b = msgp.AppendNil(b)
				continue
			}
			switch c.kind {
			case fkStr:
				b = msgp.AppendString(b, c.str.Value(i))
			case fkBin:
				b = msgp.AppendBytes(b, c.bin.Value(i))
			case fkBool:
				b = msgp.AppendBool(b, bitutil.BitIsSet(c.vals, c.off+i))
			case fkF64:
				b = msgp.AppendFloat64(b, math.Float64frombits(binary.LittleEndian.Uint64(c.vals[i*8:])))
			case fkF32:
				b = msgp.AppendFloat32(b, math.Float32frombits(binary.LittleEndian.Uint32(c.vals[i*4:])))
			case fkInt:
				var x int64
				switch c.width {
				case 8:
					x = int64(binary.LittleEndian.Uint64(c.vals[i*8:]))
				case 4:
					x = int64(int32(binary.LittleEndian.Uint32(c.vals[i*4:])))
				case 2:
					x = int64(int16(binary.LittleEndian.Uint16(c.vals[i*2:])))
				default:
					x = int64(int8(c.vals[i]))
				}
				b = msgp.AppendInt64(b, x)
			default: // fkUint
				switch c.width {
				case 8:
					b = msgp.AppendUint64(b, binary.LittleEndian.Uint64(c.vals[i*8:]))
				case 4:
					b = msgp.AppendInt64(b, int64(binary.LittleEndian.Uint32(c.vals[i*4:])))
				case 2:
					b = msgp.AppendInt64(b, int64(binary.LittleEndian.Uint16(c.vals[i*2:])))
				default:
					b = msgp.AppendInt64(b, int64(c.vals[i]))
				}
			}
		}
		if len(b) >= flushAt {
			if _, err := e.w.Write(b); err != nil {
				e.buf = b[:0]
				return fmt.Errorf("msgpack: %w", err)
			}
			b = b[:0]
		}
	}
	e.buf = b
	return nil
}

// Close implements format.Encoder.
func (e *mpFlatEncoder) Close() error {
	if len(e.buf) > 0 {
		if _, err := e.w.Write(e.buf); err != nil {
			return fmt.Errorf("msgpack: %w", err)
		}
		e.buf = e.buf[:0]
	}
	return nil
}
