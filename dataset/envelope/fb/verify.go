package fb

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The generated accessors index the buffer without bounds checks and panic on
// corrupt input, and the FlatBuffers Go runtime has no verifier. VerifyFlat
// and VerifyFlatHeader check every offset an accessor will follow, so that
// reading a verified buffer cannot go out of bounds.

// maxBuffer is the largest buffer FlatBuffers can address (2 GiB - 1).
const maxBuffer = 1<<31 - 1

// timestampSize is the size of the Timestamp struct, padding included.
const timestampSize = 16

// Field slots (vtable index) of the tables, in schema order.
const (
	slotFlatID = iota
	slotFlatTopicID
	slotFlatMimetype
	slotFlatType
	slotFlatKey
	slotFlatData
	slotFlatEncryption
	slotFlatCompression
	slotFlatGeography
	slotFlatPublisher
	slotFlatUserDefinedID
	slotFlatCreated
	slotFlatCommitted
)

// VerifyFlat reports whether buf holds a well-formed Flat root whose every
// field can be read by the generated accessors and UnPack without going out of
// bounds. It does not look at the bytes of strings and vectors beyond their
// bounds (and, for strings, their terminating zero).
func VerifyFlat(buf []byte) error {
	v := verifier{buf: buf}
	t, err := v.root()
	if err != nil {
		return err
	}
	return errors.Join(
		v.str(t, slotFlatID, "id"),
		v.str(t, slotFlatTopicID, "topic_id"),
		v.scalar(t, slotFlatMimetype, 4, "mimetype"),
		v.sub(t, slotFlatType, "type", v.typeTable),
		v.vec(t, slotFlatKey, "key"),
		v.vec(t, slotFlatData, "data"),
		v.sub(t, slotFlatEncryption, "encryption", v.encryptionTable),
		v.sub(t, slotFlatCompression, "compression", v.compressionTable),
		v.sub(t, slotFlatGeography, "geography", v.regionTable),
		v.sub(t, slotFlatPublisher, "publisher", v.publisherTable),
		v.str(t, slotFlatUserDefinedID, "user_defined_id"),
		v.scalar(t, slotFlatCreated, timestampSize, "created"),
		v.scalar(t, slotFlatCommitted, timestampSize, "committed"),
	)
}

// VerifyFlatHeader reports whether the header fields of the Flat root in buf
// (id, topic_id, geography and publisher) can be read without going out of
// bounds. The other fields are not checked and must not be read.
func VerifyFlatHeader(buf []byte) error {
	v := verifier{buf: buf}
	t, err := v.root()
	if err != nil {
		return err
	}
	if err := v.str(t, slotFlatID, "id"); err != nil {
		return err
	}
	if err := v.str(t, slotFlatTopicID, "topic_id"); err != nil {
		return err
	}
	if err := v.sub(t, slotFlatGeography, "geography", v.regionTable); err != nil {
		return err
	}
	return v.sub(t, slotFlatPublisher, "publisher", v.publisherTable)
}

// verifier checks offsets within buf.
type verifier struct {
	buf []byte
}

// table is a verified table: its position, vtable position and the sizes the
// vtable declares.
type table struct {
	pos, vtable    uint64
	vtLen, objSize uint64
}

func (v *verifier) u16(at uint64) uint64 { return uint64(binary.LittleEndian.Uint16(v.buf[at:])) }
func (v *verifier) u32(at uint64) uint64 { return uint64(binary.LittleEndian.Uint32(v.buf[at:])) }
func (v *verifier) size() uint64         { return uint64(len(v.buf)) }

// root verifies the root table.
func (v *verifier) root() (table, error) {
	if len(v.buf) > maxBuffer {
		return table{}, fmt.Errorf("flatbuffers: buffer of %d bytes exceeds the 2 GiB limit", len(v.buf))
	}
	if len(v.buf) < 4 {
		return table{}, fmt.Errorf("flatbuffers: buffer of %d bytes too short for a root offset", len(v.buf))
	}
	t, err := v.table(v.u32(0))
	if err != nil {
		return table{}, fmt.Errorf("flatbuffers: root table: %w", err)
	}
	return t, nil
}

// table verifies the table at pos and its vtable.
func (v *verifier) table(pos uint64) (table, error) {
	if pos+4 > v.size() {
		return table{}, fmt.Errorf("table at %d beyond buffer of %d bytes", pos, v.size())
	}
	vt := int64(pos) - int64(int32(v.u32(pos)))
	if vt < 0 || uint64(vt)+4 > v.size() {
		return table{}, fmt.Errorf("vtable at %d of table at %d out of bounds", vt, pos)
	}
	t := table{pos: pos, vtable: uint64(vt)}
	t.vtLen, t.objSize = v.u16(t.vtable), v.u16(t.vtable+2)
	if t.vtLen < 4 || t.vtLen%2 != 0 || t.vtable+t.vtLen > v.size() {
		return table{}, fmt.Errorf("vtable at %d: bad length %d", t.vtable, t.vtLen)
	}
	if t.objSize < 4 || t.pos+t.objSize > v.size() {
		return table{}, fmt.Errorf("table at %d: bad size %d", t.pos, t.objSize)
	}
	return t, nil
}

// field returns the position of the field in slot, which must have size bytes
// inside the table, and whether the field is present.
func (v *verifier) field(t table, slot, size uint64) (uint64, bool, error) {
	vo := 4 + 2*slot
	if vo >= t.vtLen {
		return 0, false, nil
	}
	off := v.u16(t.vtable + vo)
	if off == 0 {
		return 0, false, nil
	}
	if off < 4 || off+size > t.objSize {
		return 0, false, fmt.Errorf("field at offset %d (size %d) outside table of %d bytes", off, size, t.objSize)
	}
	return t.pos + off, true, nil
}

// scalar verifies an inline field (scalar or struct) of size bytes.
func (v *verifier) scalar(t table, slot, size uint64, name string) error {
	if _, _, err := v.field(t, slot, size); err != nil {
		return fmt.Errorf("flatbuffers: %s: %w", name, err)
	}
	return nil
}

// indirect follows the uoffset stored in slot; ok is false when the field is
// absent.
func (v *verifier) indirect(t table, slot uint64) (target uint64, ok bool, err error) {
	at, ok, err := v.field(t, slot, 4)
	if err != nil || !ok {
		return 0, ok, err
	}
	target = at + v.u32(at)
	if target >= v.size() {
		return 0, false, fmt.Errorf("offset to %d beyond buffer of %d bytes", target, v.size())
	}
	return target, true, nil
}

// vector verifies a byte vector or string reached through slot.
func (v *verifier) vector(t table, slot uint64, zeroTerminated bool) error {
	at, ok, err := v.indirect(t, slot)
	if err != nil || !ok {
		return err
	}
	if at+4 > v.size() {
		return fmt.Errorf("vector length at %d beyond buffer", at)
	}
	end := at + 4 + v.u32(at)
	if end > v.size() {
		return fmt.Errorf("vector of %d bytes at %d beyond buffer of %d bytes", v.u32(at), at, v.size())
	}
	if zeroTerminated && (end >= v.size() || v.buf[end] != 0) {
		return fmt.Errorf("string at %d not zero-terminated", at)
	}
	return nil
}

func (v *verifier) vec(t table, slot uint64, name string) error {
	if err := v.vector(t, slot, false); err != nil {
		return fmt.Errorf("flatbuffers: %s: %w", name, err)
	}
	return nil
}

func (v *verifier) str(t table, slot uint64, name string) error {
	if err := v.vector(t, slot, true); err != nil {
		return fmt.Errorf("flatbuffers: %s: %w", name, err)
	}
	return nil
}

// sub verifies the table reached through slot with check.
func (v *verifier) sub(t table, slot uint64, name string, check func(table) error) error {
	at, ok, err := v.indirect(t, slot)
	if err == nil && ok {
		var st table
		if st, err = v.table(at); err == nil {
			err = check(st)
		}
	}
	if err != nil {
		return fmt.Errorf("flatbuffers: %s: %w", name, err)
	}
	return nil
}

func (v *verifier) typeTable(t table) error {
	return errors.Join(v.str(t, 0, "name"), v.scalar(t, 1, 4, "major_version"),
		v.scalar(t, 2, 4, "minor_version"), v.scalar(t, 3, 4, "patch_version"))
}

func (v *verifier) encryptionTable(t table) error {
	return errors.Join(v.scalar(t, 0, 4, "algorithm"), v.str(t, 1, "key_id"),
		v.vec(t, 2, "encryption_key"), v.vec(t, 3, "hmac_secret"), v.vec(t, 4, "signature"))
}

func (v *verifier) compressionTable(t table) error {
	return v.scalar(t, 0, 4, "algorithm")
}

func (v *verifier) regionTable(t table) error {
	if err := v.str(t, 0, "region"); err != nil {
		return err
	}
	if err := v.str(t, 1, "zone"); err != nil {
		return err
	}
	return v.str(t, 2, "country")
}

func (v *verifier) publisherTable(t table) error {
	for slot, name := range [...]string{"publisher_id", "ipaddr", "client_id", "user_agent"} {
		if err := v.str(t, uint64(slot), name); err != nil {
			return err
		}
	}
	return nil
}
