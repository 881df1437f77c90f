package psdb

import (
	"encoding/binary"
	"fmt"
	"time"
)

// Expiry bit layout: year<<26 | day<<17 | second, 40 bits in all.
const (
	expiryYearBits = 14
	expiryDayBits  = 9
	expirySecBits  = 17
	expiryDayShift = expirySecBits
	expiryYrShift  = expiryDayBits + expirySecBits
	expiryMask     = 1<<40 - 1
	// MaxExpiryDays is how far ahead, in days, an expiry may be set.
	MaxExpiryDays = 513
	secondsPerDay = 24 * 60 * 60
)

// Expiry is the packed 40-bit expiry of a PSDB header:
// year<<26 | day<<17 | second, in UTC. The zero Expiry means "never
// expires". Build one with [NewExpiry]; decode one with [Expiry.Time].
type Expiry uint64

// NoExpiry is the Expiry of a block that never expires.
const NoExpiry Expiry = 0

// NewExpiry packs the instant at (truncated to whole seconds) as an expiry,
// validated against now as the reference encoder does: at must be after
// now and at most [MaxExpiryDays] days after it. The returned error wraps
// [ErrExpiry].
func NewExpiry(at, now time.Time) (Expiry, error) {
	a, n := at.Unix(), now.Unix()
	if a <= n {
		return 0, fmt.Errorf("%w: %s is not after now (%s)", ErrExpiry, at.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	if a-n > MaxExpiryDays*secondsPerDay {
		return 0, fmt.Errorf("%w: %s is more than %d days after now (%s)", ErrExpiry, at.UTC().Format(time.RFC3339), MaxExpiryDays, now.UTC().Format(time.RFC3339))
	}
	u := at.UTC()
	year := u.Year()
	if year < 1 || year >= 1<<expiryYearBits {
		return 0, fmt.Errorf("%w: year %d does not fit %d bits", ErrExpiry, year, expiryYearBits)
	}
	day := uint64(u.YearDay() - 1)
	sec := uint64(u.Hour()*3600 + u.Minute()*60 + u.Second())
	return Expiry(uint64(year)<<expiryYrShift | day<<expiryDayShift | sec), nil
}

// IsZero reports whether e means "never expires".
func (e Expiry) IsZero() bool { return e&expiryMask == 0 }

// Year, Day and Second return the packed fields of e.
func (e Expiry) fields() (year, day, sec int) {
	v := uint64(e) & expiryMask
	return int(v >> expiryYrShift), int(v>>expiryDayShift) & (1<<expiryDayBits - 1), int(v) & (1<<expirySecBits - 1)
}

// Time returns the expiry instant in UTC, or the zero time.Time when e is
// zero (never expires). Fields are interpreted as the reference decoder
// does: start of the year plus day days plus second seconds.
func (e Expiry) Time() time.Time {
	if e.IsZero() {
		return time.Time{}
	}
	y, d, s := e.fields()
	return time.Date(y, time.January, 1+d, 0, 0, s, 0, time.UTC)
}

// Header is a decoded PSDB layout-1 header.
//
// When writing, only SchemaVersion and Expiry are taken from the Header:
// DataType must be zero or equal to the type being written (the Append
// function sets it), and Compression and BoolPadding are set by the
// encoder.
type Header struct {
	// SchemaVersion is the feature group's schema version.
	SchemaVersion uint16
	// Expiry is the packed expiry; zero means never expires.
	Expiry Expiry
	// DataType is the type of the values in the block.
	DataType DataType
	// Compression is the compression of the data section.
	Compression Compression
	// BoolPadding is the number of unused low bits of the last data byte
	// of a bool block (0–7). It is always 0 for other types: writers store
	// 0, and readers ignore the nibble (see ParseHeader).
	BoolPadding uint8
}

// HasExpiry reports whether the block has an expiry at all.
func (h Header) HasExpiry() bool { return !h.Expiry.IsZero() }

// ExpiresAt returns the expiry instant, or the zero time.Time when the block
// never expires (see HasExpiry).
func (h Header) ExpiresAt() time.Time { return h.Expiry.Time() }

// Expired reports whether the block has an expiry and it is before now.
func (h Header) Expired(now time.Time) bool {
	return h.HasExpiry() && now.After(h.Expiry.Time())
}

// ParseHeader decodes and validates the 9-byte header at the start of b:
// layout 1, compression 0 or 1, data type 1–30, and for bool types a bool
// padding of 0–7.
//
// For non-bool types the padding nibble is ignored and reported as 0: the
// reference implementation reuses pooled header buffers without clearing
// them, so its blocks can carry a stale nibble from an earlier bool block,
// which its reader ignores.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < headerLen {
		return Header{}, fmt.Errorf("%w: %d bytes", ErrShortBlock, len(b))
	}
	var h Header
	h.SchemaVersion = binary.LittleEndian.Uint16(b[0:2])
	h.Expiry = Expiry(uint64(binary.LittleEndian.Uint32(b[2:6]))<<8 | uint64(b[6]))
	if l := b[7] >> layoutShift; l != layout1 {
		return Header{}, fmt.Errorf("%w: %d", ErrLayout, l)
	}
	h.Compression = Compression(b[7] >> compressionShift & compressionMask)
	if h.Compression > CompressionZstd {
		return Header{}, fmt.Errorf("%w: %d", ErrCompression, h.Compression)
	}
	h.DataType = DataType(b[7]&1)<<4 | DataType(b[8]>>4)
	if !h.DataType.Valid() {
		return Header{}, fmt.Errorf("%w: %d", ErrDataType, h.DataType)
	}
	if h.DataType.IsBool() {
		h.BoolPadding = b[8] & boolPaddingMask
		if h.BoolPadding > 7 {
			return Header{}, fmt.Errorf("%w: %d for %s", ErrBoolPadding, h.BoolPadding, h.DataType)
		}
	}
	return h, nil
}

// checkWriteHeader validates the caller's header for writing type dt.
func checkWriteHeader(h Header, dt DataType) error {
	if h.DataType != TypeUnknown && h.DataType != dt {
		return fmt.Errorf("%w: header says %s, writing %s", ErrTypeMismatch, h.DataType, dt)
	}
	if uint64(h.Expiry) > expiryMask {
		return fmt.Errorf("%w: %#x does not fit 40 bits", ErrExpiry, uint64(h.Expiry))
	}
	return nil
}

// putHeader writes a layout-1 header into b[:9].
func putHeader(b []byte, h Header, dt DataType, c Compression, pad uint8) {
	_ = b[8]
	e := uint64(h.Expiry) & expiryMask
	b7 := layout1<<layoutShift | byte(c&compressionMask)<<compressionShift | byte(dt&dataTypeHighBit)>>4
	// Bytes 0–7 in one little-endian store: version, P>>8 (4 bytes), P&0xff, byte 7.
	binary.LittleEndian.PutUint64(b, uint64(h.SchemaVersion)|(e>>8)<<16|(e&0xff)<<48|uint64(b7)<<56)
	b[8] = byte(dt&dataTypeLowMask)<<4 | pad&boolPaddingMask
}
