package format

import (
	"encoding/binary"
	"errors"
	"io"
)

// binaryReadUvarint is binary.ReadUvarint distinguishing a clean end (io.EOF
// before any byte) from a varint cut short (io.ErrUnexpectedEOF).
func binaryReadUvarint(r io.ByteReader) (uint64, error) {
	first := true
	var x uint64
	var s uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		b, err := r.ReadByte()
		if err != nil {
			if err == io.EOF && first {
				return 0, io.EOF
			}
			return 0, Unexpected("frame length", err)
		}
		first = false
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				return 0, errors.New("frame length overflows uint64")
			}
			return x | uint64(b)<<s, nil
		}
		x |= uint64(b&0x7f) << s
		s += 7
	}
	return 0, errors.New("frame length overflows uint64")
}

// AppendFrame appends the uvarint length of body and body to dst.
func AppendFrame(dst, body []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(body)))
	return append(dst, body...)
}

// MaxFrame is the default largest frame ReadFrame accepts from row formats:
// 64 MiB, far above any record of the workloads, so a corrupt length cannot
// cause a huge allocation.
const MaxFrame = 64 << 20
