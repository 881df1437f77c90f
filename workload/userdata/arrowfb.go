package userdata

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A bounded verifier of the Arrow IPC flatbuffers (Message, Schema, Field,
// Footer) that arrow-go preallocates from: it makes the slices a vector's
// length declares (2^32 fields, key-value pairs, children) before it reads
// them. Every vector is checked against the buffer, the nesting against
// MaxDepth, and the fields visited (a flatbuffer can point many times at
// the same child, expanding exponentially) against maxIPCFields.

// maxIPCFields bounds the fields (nested ones included) of an Arrow schema.
const maxIPCFields = 1_000_000

var errIPCMeta = errors.New("malformed flatbuffer metadata")

type fbVerifier struct {
	b      []byte
	fields int
}

type fbTable struct {
	pos, vtable, vlen, tlen int64
}

func (v *fbVerifier) u32(at int64) (int64, bool) {
	if at < 0 || at+4 > int64(len(v.b)) {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint32(v.b[at:])), true
}

func (v *fbVerifier) u16(at int64) (int64, bool) {
	if at < 0 || at+2 > int64(len(v.b)) {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint16(v.b[at:])), true
}

// table checks the table at pos and its vtable.
func (v *fbVerifier) table(pos int64) (fbTable, error) {
	soff, ok := v.u32(pos)
	if !ok {
		return fbTable{}, errIPCMeta
	}
	vt := pos - int64(int32(uint32(soff)))
	vlen, ok1 := v.u16(vt)
	tlen, ok2 := v.u16(vt + 2)
	if !ok1 || !ok2 || vlen < 4 || vt+vlen > int64(len(v.b)) || pos+tlen > int64(len(v.b)) {
		return fbTable{}, errIPCMeta
	}
	return fbTable{pos: pos, vtable: vt, vlen: vlen, tlen: tlen}, nil
}

// field returns the position of field i of t, or 0 when it is absent.
func (v *fbVerifier) field(t fbTable, i int, size int64) (int64, error) {
	slot := 4 + 2*int64(i)
	if slot+2 > t.vlen {
		return 0, nil
	}
	off, _ := v.u16(t.vtable + slot)
	if off == 0 {
		return 0, nil
	}
	if off+size > t.tlen {
		return 0, errIPCMeta
	}
	return t.pos + off, nil
}

// indirect follows the offset in field i of t (a table, vector or string);
// 0 when absent.
func (v *fbVerifier) indirect(t fbTable, i int) (int64, error) {
	at, err := v.field(t, i, 4)
	if err != nil || at == 0 {
		return 0, err
	}
	off, ok := v.u32(at)
	if !ok || at+off >= int64(len(v.b)) {
		return 0, errIPCMeta
	}
	return at + off, nil
}

// vector checks the vector in field i of t, of elements of size bytes, and
// returns the position of its first element and its length.
func (v *fbVerifier) vector(t fbTable, i int, size int64) (int64, int64, error) {
	at, err := v.indirect(t, i)
	if err != nil || at == 0 {
		return 0, 0, err
	}
	n, ok := v.u32(at)
	if !ok || at+4+n*size > int64(len(v.b)) {
		return 0, 0, fmt.Errorf("%w: a vector declares %d elements of %d bytes past the end of the metadata", errIPCMeta, n, size)
	}
	return at + 4, n, nil
}

// subtable checks the table in field i of t; ok is false when absent.
func (v *fbVerifier) subtable(t fbTable, i int) (fbTable, bool, error) {
	at, err := v.indirect(t, i)
	if err != nil || at == 0 {
		return fbTable{}, false, err
	}
	st, err := v.table(at)
	return st, err == nil, err
}

// tables calls fn on each table of the vector of tables in field i of t.
func (v *fbVerifier) tables(t fbTable, i int, fn func(fbTable) error) error {
	at, n, err := v.vector(t, i, 4)
	if err != nil {
		return err
	}
	for j := range n {
		p := at + 4*j
		off, _ := v.u32(p)
		st, err := v.table(p + off)
		if err != nil {
			return err
		}
		if err := fn(st); err != nil {
			return err
		}
	}
	return nil
}

// keyValues checks a vector of KeyValue tables (key and value strings).
func (v *fbVerifier) keyValues(t fbTable, i int) error {
	return v.tables(t, i, func(kv fbTable) error {
		for f := range 2 {
			if _, _, err := v.vector(kv, f, 1); err != nil {
				return err
			}
		}
		return nil
	})
}

// fieldTable checks a Field: its name, type, dictionary, children (depth
// levels down) and metadata.
func (v *fbVerifier) fieldTable(t fbTable, depth int) error {
	v.fields++
	if v.fields > maxIPCFields {
		return &limitError{fmt.Sprintf("the schema declares more than %s fields, the limit", thousands(maxIPCFields))}
	}
	if depth > MaxDepth {
		return &limitError{fmt.Sprintf("the schema nests deeper than %d levels, the limit (Arrow C++ refuses deeper data too)", MaxDepth)}
	}
	if _, _, err := v.vector(t, 0, 1); err != nil { // name
		return err
	}
	var typeType int64
	if at, err := v.field(t, 2, 1); err != nil {
		return err
	} else if at != 0 {
		typeType = int64(v.b[at])
	}
	if tt, ok, err := v.subtable(t, 3); err != nil {
		return err
	} else if ok {
		switch typeType {
		case 10: // Timestamp: its time zone
			if _, _, err := v.vector(tt, 1, 1); err != nil {
				return err
			}
		case 14: // Union: its type ids
			if _, _, err := v.vector(tt, 1, 4); err != nil {
				return err
			}
		}
	}
	if dict, ok, err := v.subtable(t, 4); err != nil {
		return err
	} else if ok {
		if _, _, err := v.subtable(dict, 1); err != nil { // indexType
			return err
		}
	}
	if err := v.tables(t, 5, func(c fbTable) error { return v.fieldTable(c, depth+1) }); err != nil {
		return err
	}
	return v.keyValues(t, 6)
}

func (v *fbVerifier) schema(t fbTable) error {
	if err := v.tables(t, 1, func(f fbTable) error { return v.fieldTable(f, 0) }); err != nil {
		return err
	}
	if err := v.keyValues(t, 2); err != nil {
		return err
	}
	_, _, err := v.vector(t, 3, 8) // features
	return err
}

func (v *fbVerifier) recordBatch(t fbTable) error {
	for _, f := range []struct {
		i    int
		size int64
	}{{1, 16}, {2, 16}, {4, 8}} { // nodes, buffers, variadic buffer counts
		if _, _, err := v.vector(t, f.i, f.size); err != nil {
			return err
		}
	}
	_, _, err := v.subtable(t, 3) // compression
	return err
}

// verifyIPCMessage checks the Message flatbuffer meta.
func verifyIPCMessage(meta []byte) error {
	v := &fbVerifier{b: meta}
	root, ok := v.u32(0)
	if !ok {
		return errIPCMeta
	}
	t, err := v.table(root)
	if err != nil {
		return err
	}
	if err := v.keyValues(t, 4); err != nil {
		return err
	}
	var headerType int64
	if at, err := v.field(t, 1, 1); err != nil {
		return err
	} else if at != 0 {
		headerType = int64(meta[at])
	}
	h, ok, err := v.subtable(t, 2)
	if err != nil || !ok {
		return err
	}
	switch headerType {
	case 1:
		return v.schema(h)
	case 2: // DictionaryBatch: its data
		d, ok, err := v.subtable(h, 1)
		if err != nil || !ok {
			return err
		}
		return v.recordBatch(d)
	case 3:
		return v.recordBatch(h)
	}
	return nil
}

// ipcBlock is a block of an Arrow file's footer.
type ipcBlock struct {
	offset int64
	meta   int64
	body   int64
}

// verifyIPCFooter checks the Footer flatbuffer of an Arrow file and returns
// its dictionary and record batch blocks.
func verifyIPCFooter(footer []byte) (dicts, batches []ipcBlock, err error) {
	v := &fbVerifier{b: footer}
	root, ok := v.u32(0)
	if !ok {
		return nil, nil, errIPCMeta
	}
	t, err := v.table(root)
	if err != nil {
		return nil, nil, err
	}
	if s, ok, err := v.subtable(t, 1); err != nil {
		return nil, nil, err
	} else if ok {
		if err := v.schema(s); err != nil {
			return nil, nil, err
		}
	}
	blocks := func(i int) ([]ipcBlock, error) {
		at, n, err := v.vector(t, i, 24)
		if err != nil {
			return nil, err
		}
		out := make([]ipcBlock, n)
		for j := range out {
			p := at + 24*int64(j)
			out[j] = ipcBlock{
				offset: int64(binary.LittleEndian.Uint64(footer[p:])),
				meta:   int64(int32(binary.LittleEndian.Uint32(footer[p+8:]))),
				body:   int64(binary.LittleEndian.Uint64(footer[p+16:])),
			}
		}
		return out, nil
	}
	if dicts, err = blocks(2); err != nil {
		return nil, nil, err
	}
	if batches, err = blocks(3); err != nil {
		return nil, nil, err
	}
	return dicts, batches, v.keyValues(t, 4)
}
