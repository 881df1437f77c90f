package dynamic

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/fxamacker/cbor/v2"
	"github.com/tinylib/msgp/msgp"
)

// mpRow is one MessagePack row {"ts": <ts>, "n": 1} with ts's encoding
// given, so that the flat reader and the general one (a nested column
// beside it) both read it.
func mpRow(ts []byte, nested bool) []byte {
	b := msgp.AppendMapHeader(nil, 2)
	b = msgp.AppendString(b, "ts")
	b = append(b, ts...)
	b = msgp.AppendString(b, "n")
	if nested {
		b = msgp.AppendArrayHeader(b, 1)
	}
	return msgp.AppendInt64(b, 1)
}

// TestMsgpackTimestampExtension: a timestamp column reads the MessagePack
// spec's timestamp extension (-1) in its three sizes, as msgspec and
// msgpack-java write a datetime, in the flat and the general reader; one
// finer than the column's unit is an error.
func TestMsgpackTimestampExtension(t *testing.T) {
	at := time.Date(2024, 2, 29, 10, 0, 0, 123456000, time.UTC)
	ts32 := append([]byte{0xd6, 0xff}, binary.BigEndian.AppendUint32(nil, uint32(at.Unix()))...)
	ts64 := append([]byte{0xd7, 0xff}, binary.BigEndian.AppendUint64(nil, uint64(at.Nanosecond())<<34|uint64(at.Unix()))...)
	old := time.Date(1601, 1, 1, 0, 0, 0, 5000, time.UTC) // before 1970: timestamp 96
	ts96 := append(append([]byte{0xc7, 12, 0xff}, binary.BigEndian.AppendUint32(nil, uint32(old.Nanosecond()))...), binary.BigEndian.AppendUint64(nil, uint64(old.Unix()))...)
	for _, nested := range []bool{false, true} {
		n := arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int64}
		if nested {
			n.Type = arrow.ListOf(arrow.PrimitiveTypes.Int64)
		}
		schema := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}}, n}, nil)
		f, err := NewMsgpack(schema, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var in []byte
		for _, ts := range [][]byte{ts32, ts64, ts96, msgp.AppendInt64(nil, at.UnixMicro())} {
			in = append(in, mpRow(ts, nested)...)
		}
		dec, err := f.NewDecoder(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeAll(dec)
		if err != nil {
			t.Fatalf("nested=%v: %v", nested, err)
		}
		col := got[0].Column(0).(*array.Timestamp)
		want := []int64{at.Truncate(time.Second).UnixMicro(), at.UnixMicro(), old.UnixMicro(), at.UnixMicro()}
		for i, w := range want {
			if int64(col.Value(i)) != w {
				t.Errorf("nested=%v row %d: %d, want %d", nested, i, col.Value(i), w)
			}
		}
		release(got)

		fine := append([]byte{0xd7, 0xff}, binary.BigEndian.AppendUint64(nil, uint64(7)<<34|uint64(at.Unix()))...) // 7 ns
		dec, _ = f.NewDecoder(bytes.NewReader(mpRow(fine, nested)))
		if bs, err := decodeAll(dec); err == nil || !strings.Contains(err.Error(), "sub-microsecond") {
			release(bs)
			t.Errorf("nested=%v: a timestamp finer than the unit: %v", nested, err)
		}
	}
}

// TestCBORTaggedTime: a timestamp column reads tag 0 (RFC 3339) and tag 1
// (epoch seconds, integer or float), as cbor2 and Jackson write them.
func TestCBORTaggedTime(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true}}, nil)
	f, err := NewCBOR(schema, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 2, 29, 10, 0, 0, 250_000_000, time.UTC)
	var buf bytes.Buffer
	for _, o := range []cbor.EncOptions{
		{Time: cbor.TimeRFC3339Nano, TimeTag: cbor.EncTagRequired},
		{Time: cbor.TimeUnixDynamic, TimeTag: cbor.EncTagRequired},
	} {
		em, err := o.EncMode()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []time.Time{at, at.Truncate(time.Second)} {
			b, err := em.Marshal(map[string]any{"ts": v})
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(b)
		}
	}
	dec, err := f.NewDecoder(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	defer release(got)
	col := got[0].Column(0).(*array.Timestamp)
	for i, w := range []int64{at.UnixMilli(), at.Truncate(time.Second).UnixMilli(), at.UnixMilli(), at.Truncate(time.Second).UnixMilli()} {
		if int64(col.Value(i)) != w {
			t.Errorf("row %d: %d, want %d", i, col.Value(i), w)
		}
	}
}

// TestDatesAsOthersWriteThem: a date column reads a MessagePack string
// 2006-01-02 (Python's msgpack), in the flat and the general reader, and
// CBOR tags 100 (days) and 1004 (text) of RFC 8943 (cbor2), beside the
// integer days serbench writes; a string that is no date is an error.
func TestDatesAsOthersWriteThem(t *testing.T) {
	day := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	days := int64(arrow.Date32FromTime(day))
	want := []arrow.Date32{arrow.Date32(days), arrow.Date32(days), arrow.Date32(-1)}
	check := func(t *testing.T, f Format, in []byte) {
		t.Helper()
		dec, err := f.NewDecoder(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeAll(dec)
		if err != nil {
			t.Fatal(err)
		}
		defer release(got)
		col := got[0].Column(0).(*array.Date32)
		for i, w := range want {
			if col.Value(i) != w {
				t.Errorf("row %d: %v, want %v", i, col.Value(i), w)
			}
		}
	}
	for _, nested := range []bool{false, true} {
		n := arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int64}
		if nested {
			n.Type = arrow.ListOf(arrow.PrimitiveTypes.Int64)
		}
		schema := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: arrow.FixedWidthTypes.Date32}, n}, nil)
		f, err := NewMsgpack(schema, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var in []byte
		for _, d := range [][]byte{msgp.AppendString(nil, "2024-02-29"), msgp.AppendInt64(nil, days), msgp.AppendString(nil, "1969-12-31")} {
			in = append(in, mpRow(d, nested)...)
		}
		t.Run(map[bool]string{false: "msgpack flat", true: "msgpack general"}[nested], func(t *testing.T) { check(t, f, in) })
		dec, _ := f.NewDecoder(bytes.NewReader(mpRow(msgp.AppendString(nil, "2024-13-01"), nested)))
		if bs, err := decodeAll(dec); err == nil || !strings.Contains(err.Error(), "is no date") {
			release(bs)
			t.Errorf("nested=%v: a string that is no date: %v", nested, err)
		}
	}
	t.Run("cbor", func(t *testing.T) {
		schema := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: arrow.FixedWidthTypes.Date32, Nullable: true}}, nil)
		f, err := NewCBOR(schema, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var in []byte
		for _, v := range []any{cbor.Tag{Number: 1004, Content: "2024-02-29"}, cbor.Tag{Number: 100, Content: days}, int64(-1)} {
			b, err := cbor.Marshal(map[string]any{"ts": v})
			if err != nil {
				t.Fatal(err)
			}
			in = append(in, b...)
		}
		check(t, f, in)
	})
}
