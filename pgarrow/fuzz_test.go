package pgarrow

import (
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fuzzOIDs are the built-in types whose binary form pgarrow decodes.
var fuzzOIDs = []uint32{
	16, 21, 23, 20, 26, 700, 701, 1700, 25, 1043, 1042, 19, 18, 17, 114, 3802,
	1082, 1083, 1114, 1184, 1186, 2950, 869, 650,
	22, 30, 1000, 1005, 1007, 1016, 1021, 1022, 1231, 1009, 1001, 1182, 1185, 1115, 2951,
}

// FuzzDecodeValue feeds arbitrary bytes to the binary decoder of every
// built-in type under every policy: a malformed value from the wire must
// be an error, never a panic.
func FuzzDecodeValue(f *testing.F) {
	be := binary.BigEndian
	f.Add(uint8(0), int32(-1), uint8(0), []byte{1})
	f.Add(uint8(3), int32(-1), uint8(0), be.AppendUint64(nil, 1<<63))
	f.Add(uint8(7), int32((10<<16|2)+4), uint8(0), []byte{0, 2, 0, 0, 0, 0, 0, 2, 0, 1, 0, 2})                                                             // numeric 1.0002
	f.Add(uint8(7), int32(-1), uint8(1), []byte{0, 1, 0, 0, 0xc0, 0, 0, 0})                                                                                // numeric NaN
	f.Add(uint8(16), int32(-1), uint8(0), be.AppendUint32(nil, 0x7fffffff))                                                                                // date +infinity
	f.Add(uint8(19), int32(-1), uint8(2), be.AppendUint64(nil, 0x7fffffffffffffff))                                                                        // timestamptz infinity
	f.Add(uint8(20), int32(-1), uint8(0), make([]byte, 16))                                                                                                // interval
	f.Add(uint8(26), int32(-1), uint8(0), []byte{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 23, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 7, 255, 255, 255, 255}) // int4[] {7,NULL}
	f.Add(uint8(22), int32(-1), uint8(0), []byte{2, 32, 0, 4, 127, 0, 0, 1})                                                                               // inet 127.0.0.1/32
	f.Fuzz(func(t *testing.T, which uint8, typmod int32, policy uint8, data []byte) {
		oid := fuzzOIDs[int(which)%len(fuzzOIDs)]
		typ, ok := builtinType(oid)
		if !ok {
			t.Skip()
		}
		opts, err := Options{OutOfRange: Policy(policy % 3), NumericNaN: Policy(policy / 3 % 3), Numeric: NumericMode(policy / 9 % 2)}.normalize()
		if err != nil {
			t.Skip()
		}
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		_, col, err := newColumn(mem, field{name: "c", oid: oid, typmod: typmod, typ: typ}, &opts, builtinType)
		if err != nil {
			return // e.g. a typmod no numeric column can have
		}
		b := col.builder()
		defer b.Release()
		_ = col.append(data)
		_ = col.append(data[:len(data)/2])
	})
}
