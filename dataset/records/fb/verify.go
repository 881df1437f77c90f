package fb

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrCorrupt is wrapped by every error VerifyRecord returns.
var ErrCorrupt = errors.New("fb: corrupt Record buffer")

// field kinds of the Record table, in vtable slot order.
const (
	kindLong = iota
	kindString
	kindInt
	kindDouble
	kindBool
)

// kindSize is the inline size of each field kind (a string is a 4-byte offset).
var kindSize = [...]int64{kindLong: 8, kindString: 4, kindInt: 4, kindDouble: 8, kindBool: 1}

var recordFields = [...]struct {
	name string
	kind int
}{
	{"id", kindLong}, {"name", kindString}, {"email", kindString}, {"age", kindInt},
	{"score", kindDouble}, {"active", kindBool}, {"category", kindString}, {"timestamp", kindLong},
}

// VerifyRecord checks that buf (a finished Record buffer without size prefix)
// holds a root table whose vtable, scalar fields and strings all lie inside buf,
// so that the generated accessors cannot index out of bounds.
func VerifyRecord(buf []byte) error {
	n := int64(len(buf))
	u32 := func(at int64) (int64, bool) {
		if at < 0 || at+4 > n {
			return 0, false
		}
		return int64(binary.LittleEndian.Uint32(buf[at:])), true
	}
	u16 := func(at int64) (int64, bool) {
		if at < 0 || at+2 > n {
			return 0, false
		}
		return int64(binary.LittleEndian.Uint16(buf[at:])), true
	}
	root, ok := u32(0)
	if !ok {
		return fmt.Errorf("%w: %d bytes, no root offset", ErrCorrupt, n)
	}
	t := root
	so, ok := u32(t)
	if !ok {
		return fmt.Errorf("%w: table at %d out of bounds", ErrCorrupt, t)
	}
	vt := t - int64(int32(uint32(so)))
	vtLen, ok1 := u16(vt)
	objLen, ok2 := u16(vt + 2)
	if !ok1 || !ok2 || vtLen < 4 || vtLen%2 != 0 || vt+vtLen > n || objLen < 4 || t+objLen > n {
		return fmt.Errorf("%w: bad vtable at %d", ErrCorrupt, vt)
	}
	for slot, f := range recordFields {
		entry := int64(4 + 2*slot)
		if entry+2 > vtLen {
			break
		}
		voff, _ := u16(vt + entry)
		if voff == 0 {
			continue
		}
		size := kindSize[f.kind]
		if voff+size > objLen {
			return fmt.Errorf("%w: field %s outside its table", ErrCorrupt, f.name)
		}
		if f.kind != kindString {
			continue
		}
		p := t + voff
		rel, _ := u32(p)
		s := p + rel
		sl, ok := u32(s)
		if !ok || s+4+sl > n {
			return fmt.Errorf("%w: string %s out of bounds", ErrCorrupt, f.name)
		}
	}
	return nil
}
