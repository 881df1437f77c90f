package dynamic

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tinylib/msgp/msgp"
)

// flatTypes are the types the flat MessagePack decoder reads.
var flatTypes = []arrow.DataType{
	arrow.FixedWidthTypes.Boolean,
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
	arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, arrow.FixedWidthTypes.Date32,
	&arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, &arrow.TimestampType{Unit: arrow.Nanosecond},
	arrow.FixedWidthTypes.Time32s, arrow.FixedWidthTypes.Time64ns,
}

// flatSchema has one column of every flat type, nullable or not.
func flatSchema() *arrow.Schema {
	var fs []arrow.Field
	for i, t := range flatTypes {
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("c%d", i), Type: t, Nullable: i%3 != 0})
	}
	fs = append(fs, arrow.Field{Name: "weird name é", Type: arrow.BinaryTypes.String, Nullable: true})
	return arrow.NewSchema(fs, nil)
}

// decodeAll decodes every batch of data with dec, retaining them.
func decodeAll(dec interface {
	Decode(*arrow.RecordBatch) error
}) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	for {
		var b arrow.RecordBatch
		err := dec.Decode(&b)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		b.Retain()
		out = append(out, b)
	}
}

// TestMsgpackFlat round-trips a flat schema of every type the flat decoder
// reads, with nulls, through readers that return little at a time and a
// small initial buffer (so rows are cut short, undone and read again, and
// the buffer grows).
func TestMsgpackFlat(t *testing.T) {
	s := flatSchema()
	if newMpFlat(s, Options{}, nil) == nil {
		t.Fatal("flat schema not read by the flat decoder")
	}
	g := &gen{r: rand.New(rand.NewPCG(3, 3)), special: true}
	batches := []arrow.RecordBatch{g.batch(s, 300), g.batch(s, 0), g.batch(s, 1000)}
	defer release(batches)
	f, err := NewMsgpack(s, Options{BatchRows: 128})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc, _ := f.NewEncoder(&buf)
	for _, b := range batches {
		if err := enc.Encode(&b); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	defer func(n int) { mpFlatBuf = n }(mpFlatBuf)
	for _, size := range []int{7, 256 << 10} {
		mpFlatBuf = size
		for name, r := range map[string]func() io.Reader{
			"whole": func() io.Reader { return bytes.NewReader(data) },
			"half":  func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
			"byte":  func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data[:len(data)/8])) },
		} {
			dec, err := f.NewDecoder(r())
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := dec.(*mpFlat); !ok {
				t.Fatalf("decoder %T, want the flat one", dec)
			}
			got, err := decodeAll(dec)
			if name == "byte" {
				// A prefix: the rows it holds, then a cut-short row.
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("%s/%d: prefix: %v, want unexpected EOF", name, size, err)
				}
				release(got)
				continue
			}
			if err != nil {
				t.Fatalf("%s/%d: %v", name, size, err)
			}
			if err := Compare(batches, got); err != nil {
				t.Fatalf("%s/%d: %v", name, size, err)
			}
			for _, b := range got[:len(got)-1] {
				if b.NumRows() != 128 {
					t.Errorf("%s/%d: batch of %d rows, want 128", name, size, b.NumRows())
				}
			}
			release(got)
		}
	}
}

// TestMsgpackFlatNotFlat checks that schemas the flat decoder cannot read
// go to the general one.
func TestMsgpackFlatNotFlat(t *testing.T) {
	for _, dt := range []arrow.DataType{arrow.ListOf(arrow.PrimitiveTypes.Int64), arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64}),
		arrow.BinaryTypes.LargeString, &arrow.Decimal128Type{Precision: 9, Scale: 2}, arrow.Null, &arrow.FixedSizeBinaryType{ByteWidth: 2}} {
		s := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "x", Type: dt, Nullable: true}}, nil)
		if newMpFlat(s, Options{}, nil) != nil {
			t.Errorf("%s: read by the flat decoder", dt)
		}
	}
}

// sameDecode decodes data with the flat and the general decoder of f: both
// must fail, or return the same rows in the same batches.
func sameDecode(t *testing.T, f *Msgpack, data []byte) error {
	t.Helper()
	flat := newMpFlat(f.schema, f.o, bytes.NewReader(data))
	if flat == nil {
		t.Fatal("schema not flat")
	}
	return sameDecodes(t, flat, f.newRowDecoder(bytes.NewReader(data)), data)
}

// TestMsgpackFlatKeys checks keys out of schema order, missing keys (NULL),
// nil values, every map header size, and the errors: unknown and repeated
// keys, wrong types, out-of-range integers, a cut-short row.
func TestMsgpackFlatKeys(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "small", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	ff, err := NewMsgpack(s, Options{BatchRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	f := ff.(*Msgpack)
	type kv struct {
		k string
		v func([]byte) []byte
	}
	i := func(v int64) func([]byte) []byte { return func(b []byte) []byte { return msgp.AppendInt64(b, v) } }
	u := func(v uint64) func([]byte) []byte { return func(b []byte) []byte { return msgp.AppendUint64(b, v) } }
	str := func(v string) func([]byte) []byte { return func(b []byte) []byte { return msgp.AppendString(b, v) } }
	nilv := func(b []byte) []byte { return msgp.AppendNil(b) }
	row := func(b []byte, kvs ...kv) []byte {
		b = msgp.AppendMapHeader(b, uint32(len(kvs)))
		for _, p := range kvs {
			b = p.v(msgp.AppendString(b, p.k))
		}
		return b
	}
	full := row(nil, kv{"id", i(1)}, kv{"name", str("a")}, kv{"small", i(-3)}, kv{"u", u(math.MaxUint64)},
		kv{"ok", func(b []byte) []byte { return msgp.AppendBool(b, true) }}, kv{"x", func(b []byte) []byte { return msgp.AppendFloat64(b, 1.5) }})
	shuffled := row(nil, kv{"x", func(b []byte) []byte { return msgp.AppendFloat64(b, -2) }}, kv{"u", u(7)}, kv{"id", i(-5)}, kv{"name", str(strings.Repeat("é", 40))})
	nils := row(nil, kv{"name", nilv}, kv{"id", i(math.MinInt64)}, kv{"small", nilv}, kv{"u", nilv}, kv{"ok", nilv}, kv{"x", nilv})
	onlyID := row(nil, kv{"id", i(2)})
	// map16 and map32 headers, str8 key.
	map16 := append([]byte{0xde, 0, 2}, msgp.AppendInt64(msgp.AppendString(nil, "id"), 9)...)
	map16 = msgp.AppendString(append(map16, 0xd9, 4, 'n', 'a', 'm', 'e'), "m16")
	map32 := append([]byte{0xdf, 0, 0, 0, 1}, msgp.AppendInt64(msgp.AppendString(nil, "id"), 10)...)
	good := bytes.Join([][]byte{full, shuffled, nils, onlyID, map16, map32, full}, nil)
	if err := sameDecode(t, f, good); err != io.EOF {
		t.Fatalf("valid rows: %v", err)
	}
	// The expected values, to check more than agreement.
	dec, _ := f.NewDecoder(bytes.NewReader(good))
	got, err := decodeAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	defer release(got)
	if n := got[1].Column(3).NullN() + got[1].Column(2).NullN(); got[1].Column(2).IsValid(0) || n != 4 {
		t.Errorf("nulls of rows 2, 3: %s", got[1])
	}
	if g := fmt.Sprint(got[0]); !strings.Contains(g, "[1 -5]") || !strings.Contains(g, "[18446744073709551615 7]") || !strings.Contains(g, "[1.5 -2]") {
		t.Errorf("rows 0, 1: %s", g)
	}
	for name, bad := range map[string][]byte{
		"unknown key":   row(nil, kv{"id", i(1)}, kv{"nope", i(1)}),
		"repeated key":  row(nil, kv{"id", i(1)}, kv{"id", i(1)}),
		"int8 range":    row(nil, kv{"id", i(1)}, kv{"small", i(200)}),
		"uint negative": row(nil, kv{"id", i(1)}, kv{"u", i(-1)}),
		"int64 range":   row(nil, kv{"id", u(math.MaxUint64)}),
		"string as int": row(nil, kv{"id", str("1")}),
		"int as float":  row(nil, kv{"id", i(1)}, kv{"x", i(1)}),
		"not a map":     msgp.AppendArrayHeader(nil, 1),
		"cut short":     full[:len(full)-3],
		"key not a str": append(msgp.AppendMapHeader(nil, 1), msgp.AppendInt64(nil, 1)...),
	} {
		data := append(bytes.Clone(full), bad...)
		err := sameDecode(t, f, data)
		if err == io.EOF || err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), "row 1") {
			t.Errorf("%s: %v, want the error at row 1", name, err)
		}
	}
}

// FuzzMsgpackFlat feeds corrupt MessagePack to the flat decoder and the
// general one: both must fail, or decode the same batches.
func FuzzMsgpackFlat(f *testing.F) {
	s := flatSchema()
	ff, err := NewMsgpack(s, Options{BatchRows: 3})
	if err != nil {
		f.Fatal(err)
	}
	g := &gen{r: rand.New(rand.NewPCG(9, 9)), special: true}
	rec := g.batch(s, 7)
	defer rec.Release()
	_, data, err := roundTrip(ff, []arrow.RecordBatch{rec})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		sameDecode(t, ff.(*Msgpack), data)
	})
}

// TestMsgpackFlatEncoder checks that the flat encoder writes the general
// encoder's bytes: batches with nulls, sliced batches (array offsets), an
// all-null column, an empty batch, and more than one flush.
func TestMsgpackFlatEncoder(t *testing.T) {
	s := flatSchema()
	ff, err := NewMsgpack(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := ff.(*Msgpack)
	g := &gen{r: rand.New(rand.NewPCG(4, 4)), special: true}
	big := g.batch(s, 3000)
	defer big.Release()
	cols := big.Columns()
	nulls := make([]arrow.Array, len(cols))
	for k, c := range cols {
		if s.Field(k).Nullable {
			nulls[k] = array.MakeArrayOfNull(memory.NewGoAllocator(), c.DataType(), 5)
		} else {
			nulls[k] = array.NewSlice(c, 0, 5)
		}
		defer nulls[k].Release()
	}
	allNull := array.NewRecordBatch(s, nulls, 5)
	defer allNull.Release()
	batches := []arrow.RecordBatch{big.NewSlice(7, 1500), big.NewSlice(0, 0), allNull, big, big.NewSlice(2999, 3000)}
	var fast, general bytes.Buffer
	fe, ge := newMpFlatEncoder(s, &fast), f.newRowEncoder(&general)
	if fe == nil {
		t.Fatal("flat schema not written by the flat encoder")
	}
	for _, b := range batches {
		if err := fe.Encode(&b); err != nil {
			t.Fatal(err)
		}
		if err := ge.Encode(&b); err != nil {
			t.Fatal(err)
		}
	}
	if err := fe.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ge.Close(); err != nil {
		t.Fatal(err)
	}
	if fast.Len() < 2*flushAt || !bytes.Equal(fast.Bytes(), general.Bytes()) {
		t.Fatalf("flat encoder: %d bytes, general: %d, equal %v", fast.Len(), general.Len(), bytes.Equal(fast.Bytes(), general.Bytes()))
	}
	got, err := decodeAll(f.newRowDecoder(bytes.NewReader(fast.Bytes())))
	if err != nil {
		t.Fatal(err)
	}
	defer release(got)
	if err := Compare(batches, got); err != nil {
		t.Fatal(err)
	}
}

// TestFlatAllocator checks that an Allocator turns the flat decoders off.
func TestFlatAllocator(t *testing.T) {
	o := Options{Allocator: memory.NewGoAllocator()}
	if newMpFlat(flatSchema(), o, nil) != nil || newAvroFlat("avro-ocf", flatSchema(), o, nil) != nil {
		t.Error("flat decoder with an Allocator")
	}
}
