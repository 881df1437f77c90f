package psdb

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

var testNow = time.Date(2025, time.March, 10, 12, 0, 0, 0, time.UTC)

func TestNewExpiry(t *testing.T) {
	tests := []struct {
		name    string
		at      time.Time
		want    Expiry // 0 means: expect an error
		wantErr error
	}{
		{"one second ahead", testNow.Add(time.Second),
			Expiry(2025<<26 | 68<<17 | 43201), nil},
		{"start of next day", time.Date(2025, 3, 11, 0, 0, 0, 0, time.UTC),
			Expiry(2025<<26 | 69<<17), nil},
		{"next year, last second of the day", time.Date(2026, 1, 1, 23, 59, 59, 0, time.UTC),
			Expiry(2026<<26 | 0<<17 | 86399), nil},
		{"exactly 513 days", testNow.Add(MaxExpiryDays * 24 * time.Hour),
			Expiry(2026<<26 | 216<<17 | 43200), nil},
		{"non-UTC zone is normalised", time.Date(2025, 3, 10, 14, 0, 0, 0, time.FixedZone("X", 3600)),
			Expiry(2025<<26 | 68<<17 | 46800), nil},
		{"now is not future", testNow, 0, ErrExpiry},
		{"past", testNow.Add(-time.Hour), 0, ErrExpiry},
		{"sub-second ahead truncates to now", testNow.Add(500 * time.Millisecond), 0, ErrExpiry},
		{"513 days and a second", testNow.Add(MaxExpiryDays*24*time.Hour + time.Second), 0, ErrExpiry},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewExpiry(tc.at, testNow)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %#x, want %#x", uint64(got), uint64(tc.want))
			}
			if !got.Time().Equal(tc.at.Truncate(time.Second)) {
				t.Fatalf("Time() = %v, want %v", got.Time(), tc.at)
			}
		})
	}
}

func TestExpiryYearRange(t *testing.T) {
	now := time.Date(16383, 12, 31, 0, 0, 0, 0, time.UTC)
	if _, err := NewExpiry(now.Add(48*time.Hour), now); !errors.Is(err, ErrExpiry) {
		t.Fatalf("year 16384 accepted: %v", err)
	}
}

func TestExpiryRoundTripRandom(t *testing.T) {
	for i := 0; i < 2000; i++ {
		d := time.Duration(1+int64(i)*22171) * time.Second % (MaxExpiryDays * 24 * time.Hour)
		if d <= 0 {
			d = time.Second
		}
		at := testNow.Add(d)
		e, err := NewExpiry(at, testNow)
		if err != nil {
			t.Fatalf("%v: %v", at, err)
		}
		if !e.Time().Equal(at) {
			t.Fatalf("%v decoded as %v", at, e.Time())
		}
		h := Header{Expiry: e}
		if !h.HasExpiry() || h.Expired(testNow) || !h.Expired(at.Add(time.Second)) || h.Expired(at) {
			t.Fatalf("%v: expiry predicates wrong", at)
		}
	}
}

func TestNoExpiry(t *testing.T) {
	h := Header{}
	if h.HasExpiry() || h.Expired(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)) || !h.ExpiresAt().IsZero() {
		t.Fatal("zero expiry must mean never expires")
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	e, err := NewExpiry(testNow.Add(36*time.Hour), testNow)
	if err != nil {
		t.Fatal(err)
	}
	for dt := TypeFP8E5M2; dt <= TypeBoolVector; dt++ {
		for _, c := range []Compression{CompressionNone, CompressionZstd} {
			for pad := uint8(0); pad < 8; pad++ {
				if pad != 0 && !dt.IsBool() {
					continue
				}
				want := Header{SchemaVersion: 0xBEEF, Expiry: e, DataType: dt, Compression: c, BoolPadding: pad}
				var b [HeaderLen]byte
				putHeader(b[:], want, dt, c, pad)
				got, err := ParseHeader(b[:])
				if err != nil {
					t.Fatalf("%v: %v", want, err)
				}
				if got != want {
					t.Fatalf("got %+v, want %+v", got, want)
				}
			}
		}
	}
}

func TestHeaderBytes(t *testing.T) {
	// Expiry P = 2025<<26 | 68<<17 | 43201 = 0x7E8_88_A8C1 (40 bits):
	// bytes 2–5 = uint32(P>>8) LE, byte 6 = byte(P).
	e := Expiry(2025<<26 | 68<<17 | 43201)
	var b [HeaderLen]byte
	putHeader(b[:], Header{SchemaVersion: 0x0102, Expiry: e}, TypeBoolVector, CompressionZstd, 5)
	p := uint64(e)
	want := [HeaderLen]byte{0x02, 0x01, byte(p >> 8), byte(p >> 16), byte(p >> 24), byte(p >> 32), byte(p),
		1<<4 | 1<<1 | 1, 0xE<<4 | 5}
	if b != want {
		t.Fatalf("got % x, want % x", b, want)
	}
}

func TestParseHeaderErrors(t *testing.T) {
	valid := func() []byte {
		b := make([]byte, HeaderLen)
		putHeader(b, Header{}, TypeInt32, CompressionNone, 0)
		return b
	}
	tests := []struct {
		name   string
		mutate func([]byte) []byte
		want   error
	}{
		{"empty", func(b []byte) []byte { return nil }, ErrShortBlock},
		{"8 bytes", func(b []byte) []byte { return b[:8] }, ErrShortBlock},
		{"layout 0", func(b []byte) []byte { b[7] &^= 0xF0; return b }, ErrLayout},
		{"layout 2", func(b []byte) []byte { b[7] = b[7]&0x0F | 0x20; return b }, ErrLayout},
		{"compression 2", func(b []byte) []byte { b[7] |= 2 << 1; return b }, ErrCompression},
		{"compression 7", func(b []byte) []byte { b[7] |= 7 << 1; return b }, ErrCompression},
		{"type 0", func(b []byte) []byte { b[8] &= 0x0F; return b }, ErrDataType},
		{"type 31", func(b []byte) []byte { b[7] |= 1; b[8] |= 0xF0; return b }, ErrDataType},
		{"bool padding 8", func(b []byte) []byte { b[8] = byte(TypeBool)<<4 | 8; return b }, ErrBoolPadding},
		{"bool padding 15", func(b []byte) []byte { b[8] = byte(TypeBool)<<4 | 15; return b }, ErrBoolPadding},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseHeader(tc.mutate(valid())); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestParseHeaderStalePadding: the reference's writer can leave a stale
// padding nibble on non-bool types and its reader ignores it; so do we.
func TestParseHeaderStalePadding(t *testing.T) {
	tests := []struct {
		dt     DataType
		nibble uint8
	}{
		{TypeInt32, 4},
		{TypeInt32, 7},
		{TypeFP16, 1},
		{TypeString, 3},
		{TypeUint64Vector, 6},
		{TypeInt8, 15},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%d", tc.dt, tc.nibble), func(t *testing.T) {
			b := make([]byte, HeaderLen)
			putHeader(b, Header{SchemaVersion: 9}, tc.dt, CompressionNone, 0)
			b[8] |= tc.nibble
			h, err := ParseHeader(b)
			if err != nil {
				t.Fatal(err)
			}
			if h.DataType != tc.dt || h.BoolPadding != 0 || h.SchemaVersion != 9 {
				t.Fatalf("header %+v", h)
			}
		})
	}
}

func TestDataTypeProperties(t *testing.T) {
	tests := []struct {
		dt     DataType
		name   string
		width  int
		vector bool
	}{
		{TypeFP8E5M2, "FP8E5M2", 1, false},
		{TypeFP16, "FP16", 2, false},
		{TypeInt32, "Int32", 4, false},
		{TypeUint64, "Uint64", 8, false},
		{TypeString, "String", 0, false},
		{TypeBool, "Bool", 0, false},
		{TypeFP8E5M2Vector, "FP8E5M2Vector", 1, true},
		{TypeInt16Vector, "Int16Vector", 2, true},
		{TypeBoolVector, "BoolVector", 0, true},
		{TypeUnknown, "Unknown", 0, false},
		{31, "DataType(31)", 0, false},
	}
	for _, tc := range tests {
		if got := tc.dt.String(); got != tc.name {
			t.Errorf("%d.String() = %q, want %q", tc.dt, got, tc.name)
		}
		if got := tc.dt.Width(); got != tc.width {
			t.Errorf("%s.Width() = %d, want %d", tc.dt, got, tc.width)
		}
		if got := tc.dt.IsVector(); got != tc.vector {
			t.Errorf("%s.IsVector() = %v", tc.dt, got)
		}
	}
	for dt := TypeFP8E5M2; dt <= TypeBool; dt++ {
		if dt.Vector().Element() != dt || dt.Vector() != dt+15 {
			t.Errorf("%s vector/element mapping broken", dt)
		}
	}
	if CompressionZstd.String() != "zstd" || Compression(5).String() != "Compression(5)" {
		t.Error("Compression.String")
	}
}
