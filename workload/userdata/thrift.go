package userdata

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A minimal reader of Thrift's compact protocol, enough to walk a Parquet
// footer and check what it declares before arrow-go builds anything from
// it. Every count is checked against the bytes left (each element takes at
// least one), and nesting is bounded, so no input makes it allocate or
// recurse beyond its size.

// Compact protocol types.
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
	tUUID   = 13
)

// maxThriftNesting bounds struct and container nesting in a footer (the
// Parquet format nests 6 levels at most).
const maxThriftNesting = 32

var errThrift = errors.New("malformed Thrift metadata")

type thriftReader struct {
	b   []byte
	pos int
}

func (t *thriftReader) left() int { return len(t.b) - t.pos }

func (t *thriftReader) byte() (byte, error) {
	if t.pos >= len(t.b) {
		return 0, errThrift
	}
	c := t.b[t.pos]
	t.pos++
	return c, nil
}

func (t *thriftReader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(t.b[t.pos:])
	if n <= 0 {
		return 0, errThrift
	}
	t.pos += n
	return v, nil
}

func (t *thriftReader) varint() (int64, error) {
	u, err := t.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// fieldHeader reads a field header: its id and type (tStop at the end of a
// struct). last is the previous field's id.
func (t *thriftReader) fieldHeader(last int16) (int16, byte, error) {
	c, err := t.byte()
	if err != nil {
		return 0, 0, err
	}
	typ := c & 0x0f
	if typ == tStop {
		return 0, tStop, nil
	}
	if d := int16(c >> 4); d != 0 {
		return last + d, typ, nil
	}
	id, err := t.varint()
	return int16(id), typ, err
}

// listHeader reads a list or set header, checking the count against the
// bytes left.
func (t *thriftReader) listHeader() (int, byte, error) {
	c, err := t.byte()
	if err != nil {
		return 0, 0, err
	}
	n := int64(c >> 4)
	if n == 15 {
		u, err := t.uvarint()
		if err != nil {
			return 0, 0, err
		}
		if u > uint64(t.left()) {
			return 0, 0, fmt.Errorf("%w: a list declares %d elements in %d bytes", errThrift, u, t.left())
		}
		n = int64(u)
	}
	if n > int64(t.left()) {
		return 0, 0, fmt.Errorf("%w: a list declares %d elements in %d bytes", errThrift, n, t.left())
	}
	return int(n), c & 0x0f, nil
}

func (t *thriftReader) i64() (int64, error) { return t.varint() }

func (t *thriftReader) binary() ([]byte, error) {
	n, err := t.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(t.left()) {
		return nil, fmt.Errorf("%w: a string declares %d bytes, %d are left", errThrift, n, t.left())
	}
	s := t.b[t.pos : t.pos+int(n)]
	t.pos += int(n)
	return s, nil
}

// skip skips a value of type typ.
func (t *thriftReader) skip(typ byte, depth int) error {
	if depth > maxThriftNesting {
		return fmt.Errorf("%w: nested deeper than %d", errThrift, maxThriftNesting)
	}
	switch typ {
	case tTrue, tFalse:
		return nil
	case tByte:
		_, err := t.byte()
		return err
	case tI16, tI32, tI64:
		_, err := t.uvarint()
		return err
	case tDouble:
		if t.left() < 8 {
			return errThrift
		}
		t.pos += 8
		return nil
	case tUUID:
		if t.left() < 16 {
			return errThrift
		}
		t.pos += 16
		return nil
	case tBinary:
		_, err := t.binary()
		return err
	case tList, tSet:
		n, et, err := t.listHeader()
		if err != nil {
			return err
		}
		for range n {
			if err := t.skipElem(et, depth+1); err != nil {
				return err
			}
		}
		return nil
	case tMap:
		u, err := t.uvarint()
		if err != nil {
			return err
		}
		if u == 0 {
			return nil
		}
		if u > uint64(t.left()) {
			return fmt.Errorf("%w: a map declares %d entries in %d bytes", errThrift, u, t.left())
		}
		kv, err := t.byte()
		if err != nil {
			return err
		}
		for range int(u) {
			if err := t.skipElem(kv>>4, depth+1); err != nil {
				return err
			}
			if err := t.skipElem(kv&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case tStruct:
		return t.fields(depth+1, func(int16, byte) (bool, error) { return false, nil })
	}
	return fmt.Errorf("%w: unknown type %d", errThrift, typ)
}

// skipElem skips a container element: booleans take a byte there.
func (t *thriftReader) skipElem(typ byte, depth int) error {
	if typ == tTrue || typ == tFalse {
		_, err := t.byte()
		return err
	}
	return t.skip(typ, depth)
}

// fields walks a struct's fields to its stop, calling fn for each; fn
// reports whether it consumed the value (else it is skipped).
func (t *thriftReader) fields(depth int, fn func(id int16, typ byte) (bool, error)) error {
	if depth > maxThriftNesting {
		return fmt.Errorf("%w: nested deeper than %d", errThrift, maxThriftNesting)
	}
	var last int16
	for {
		id, typ, err := t.fieldHeader(last)
		if err != nil {
			return err
		}
		if typ == tStop {
			return nil
		}
		last = id
		done, err := fn(id, typ)
		if err != nil {
			return err
		}
		if !done {
			if err := t.skip(typ, depth); err != nil {
				return err
			}
		}
	}
}
