package envelope

import (
	"encoding/binary"
	"fmt"
	"time"
)

// crockford is the Crockford base32 alphabet used by ULIDs.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ULID is a Universally Unique Lexicographically Sortable Identifier: a 48-bit
// big-endian Unix time in milliseconds followed by 80 bits of randomness.
type ULID [16]byte

// NewULID returns the ULID with time t (truncated to milliseconds) and the
// given 10 bytes of entropy.
func NewULID(t time.Time, entropy [10]byte) ULID {
	var u ULID
	ms := uint64(t.UnixMilli())
	u[0] = byte(ms >> 40)
	u[1] = byte(ms >> 32)
	u[2] = byte(ms >> 24)
	u[3] = byte(ms >> 16)
	u[4] = byte(ms >> 8)
	u[5] = byte(ms)
	copy(u[6:], entropy[:])
	return u
}

// Time returns the ULID's timestamp.
func (u ULID) Time() time.Time {
	ms := uint64(u[0])<<40 | uint64(u[1])<<32 | uint64(u[2])<<24 | uint64(u[3])<<16 | uint64(u[4])<<8 | uint64(u[5])
	return time.UnixMilli(int64(ms)).UTC()
}

// String returns the canonical text form of u: 26 Crockford base32 characters,
// the 128 bits read as one big-endian number padded with two leading zero bits.
func (u ULID) String() string {
	hi := binary.BigEndian.Uint64(u[:8])
	lo := binary.BigEndian.Uint64(u[8:])
	var out [26]byte
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

// ParseULID parses the canonical text form of a ULID (upper or lower case).
func ParseULID(s string) (ULID, error) {
	var u ULID
	if len(s) != 26 {
		return u, fmt.Errorf("envelope: parse ULID %q: length %d, want 26", s, len(s))
	}
	var hi, lo uint64
	for i := 0; i < len(s); i++ {
		v := crockfordValue(s[i])
		if v < 0 {
			return u, fmt.Errorf("envelope: parse ULID %q: invalid character %q at %d", s, s[i], i)
		}
		if i == 0 && v > 7 {
			return u, fmt.Errorf("envelope: parse ULID %q: value overflows 128 bits", s)
		}
		hi = hi<<5 | lo>>59
		lo = lo<<5 | uint64(v)
	}
	binary.BigEndian.PutUint64(u[:8], hi)
	binary.BigEndian.PutUint64(u[8:], lo)
	return u, nil
}

// crockfordValue returns the value of a canonical Crockford base32 digit, or
// -1 when c is not one.
func crockfordValue(c byte) int {
	if c >= 'a' && c <= 'z' {
		c -= 'a' - 'A'
	}
	for i := 0; i < len(crockford); i++ {
		if crockford[i] == c {
			return i
		}
	}
	return -1
}
