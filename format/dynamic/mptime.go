package dynamic

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/serbench/serbench/internal/jsonv"
)

// mpExtTime reads, at b[p:], a timestamp of the MessagePack spec's
// extension type -1 (timestamp 32, 64 or 96), as other languages' libraries
// write a datetime (msgspec, msgpack-java), in unit: ok is false when b[p:]
// is no such extension, and err says when it is one but is cut short or
// does not fit unit exactly. serbench's own writer writes timestamps as
// integers in their unit; its readers take both.
func mpExtTime(b []byte, p int, unit arrow.TimeUnit) (v int64, q int, ok bool, err error) {
	if len(b)-p < 2 {
		return 0, 0, false, nil
	}
	var sec, nsec int64
	switch {
	case b[p] == 0xd6 && b[p+1] == 0xff: // fixext 4: seconds, uint32
		if len(b)-p < 6 {
			return 0, 0, true, errMpShort
		}
		sec, q = int64(binary.BigEndian.Uint32(b[p+2:])), p+6
	case b[p] == 0xd7 && b[p+1] == 0xff: // fixext 8: nanoseconds (30 bits), seconds (34 bits)
		if len(b)-p < 10 {
			return 0, 0, true, errMpShort
		}
		x := binary.BigEndian.Uint64(b[p+2:])
		sec, nsec, q = int64(x&(1<<34-1)), int64(x>>34), p+10
	case b[p] == 0xc7 && len(b)-p >= 3 && b[p+1] == 12 && b[p+2] == 0xff: // ext 8 of 12 bytes: nanoseconds uint32, seconds int64
		if len(b)-p < 15 {
			return 0, 0, true, errMpShort
		}
		nsec, sec, q = int64(binary.BigEndian.Uint32(b[p+3:])), int64(binary.BigEndian.Uint64(b[p+7:])), p+15
	default:
		return 0, 0, false, nil
	}
	if nsec > 999_999_999 {
		return 0, 0, true, fmt.Errorf("MessagePack timestamp with %d nanoseconds", nsec)
	}
	v, err = jsonv.TimeToUnit(time.Unix(sec, nsec).UTC(), unit)
	return v, q, true, err
}

// mpStrDate reads, at b[p:] (a fixstr or str 8), a date written as its
// 2006-01-02 text, as Python's msgpack writes a datetime.date: the days
// since the epoch. serbench's own writer writes dates as integer days; its
// readers take both.
func mpStrDate(b []byte, p int) (days int32, q int, err error) {
	n, start := 0, p+1
	if b[p] == 0xd9 {
		if len(b)-p < 2 {
			return 0, 0, errMpShort
		}
		n, start = int(b[p+1]), p+2
	} else {
		n = int(b[p] & 0x1f)
	}
	if len(b)-start < n {
		return 0, 0, errMpShort
	}
	d, err := parseDate(b[start : start+n])
	return d, start + n, err
}

// parseDate parses a date's 2006-01-02 text to days since the epoch.
func parseDate(text []byte) (int32, error) {
	t, err := time.Parse(jsonv.DateLayout, string(text))
	if err != nil {
		return 0, fmt.Errorf("%q is no date (want 2006-01-02)", elide(string(text), maxShown))
	}
	return int32(arrow.Date32FromTime(t)), nil
}
