package dynamic

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// roundTrip encodes batches with f and decodes them back.
func roundTrip(f Format, batches []arrow.RecordBatch) ([]arrow.RecordBatch, []byte, error) {
	var buf bytes.Buffer
	enc, err := f.NewEncoder(&buf)
	if err != nil {
		return nil, nil, err
	}
	for _, b := range batches {
		if err := enc.Encode(&b); err != nil {
			return nil, nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, nil, err
	}
	data := buf.Bytes()
	dec, err := f.NewDecoder(bytes.NewReader(data))
	if err != nil {
		return nil, data, err
	}
	var out []arrow.RecordBatch
	for {
		var b arrow.RecordBatch
		err := dec.Decode(&b)
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, data, err
		}
		b.Retain()
		out = append(out, b)
	}
	return out, data, nil
}

func release(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// sibling is the uncompressed format a self-compressing one extends with
// its codec (parquet-zstd → parquet, avro-ocf-deflate → avro-ocf), name
// itself for any other format.
func sibling(name string) string {
	for _, base := range []string{"arrow-stream", "parquet", "avro-ocf"} {
		if strings.HasPrefix(name, base+"-") {
			return base
		}
	}
	return name
}

// textFormats cannot hold NaN and infinities (JSON) or NaN payloads (CSV).
var textFormats = map[string]bool{"jsonl": true, "csv": true}

func TestRoundTripProperty(t *testing.T) {
	for _, c := range Constructors() {
		t.Run(c.Name, func(t *testing.T) {
			tested := 0
			for seed := uint64(1); seed <= 150; seed++ {
				nested := seed%2 == 0
				g := &gen{r: rand.New(rand.NewPCG(seed, 7)), nested: nested, special: !textFormats[c.Name]}
				s := g.schema()
				f, err := c.New(s, Options{BatchRows: 7})
				if err != nil {
					if c.Name == "csv" && nested {
						continue // flat only, checked in TestCSVNested
					}
					t.Fatalf("seed %d: schema %s: %v", seed, s, err)
				}
				batches := []arrow.RecordBatch{g.batch(s, 5), g.batch(s, 0), g.batch(s, 13)}
				got, data, err := roundTrip(f, batches)
				if err != nil {
					t.Fatalf("seed %d: schema %s: %v", seed, s, err)
				}
				if err := Compare(batches, got); err != nil {
					t.Fatalf("seed %d: schema %s: %v\nencoded: %q", seed, s, err, truncate(data))
				}
				release(batches)
				release(got)
				tested++
			}
			if tested == 0 {
				t.Fatal("no schema tested")
			}
		})
	}
}

func truncate(b []byte) []byte {
	if len(b) > 2000 {
		return b[:2000]
	}
	return b
}

func buildBatch(t *testing.T, s *arrow.Schema, fill func(b *array.RecordBuilder)) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.NewGoAllocator(), s)
	defer b.Release()
	fill(b)
	return b.NewRecordBatch()
}

func TestJSONRejectsNaN(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	rec := buildBatch(t, s, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
		b.Field(1).(*array.Float64Builder).AppendValues([]float64{1.5, 2, 0}, nil)
		b.Field(1).(*array.Float64Builder).Append(0)
		b.Field(0).(*array.Int64Builder).Append(4)
	})
	defer rec.Release()
	// Replace row 2 with NaN by building again.
	rec2 := buildBatch(t, s, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
		b.Field(1).(*array.Float64Builder).AppendValues([]float64{1.5, 2, nanValue()}, nil)
	})
	defer rec2.Release()
	f, err := NewJSONL(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = roundTrip(f, []arrow.RecordBatch{rec, rec2})
	if err == nil || !strings.Contains(err.Error(), "row 6") || !strings.Contains(err.Error(), "column x") ||
		!strings.Contains(err.Error(), "NaN") {
		t.Fatalf("err = %v, want one naming row 6, column x and NaN", err)
	}
}

func TestCSVNested(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true}}, nil)
	_, err := NewCSV(s, Options{})
	if err == nil || !strings.Contains(err.Error(), "column a") || !strings.Contains(err.Error(), "nested") {
		t.Fatalf("err = %v, want one naming column a as nested", err)
	}
}

func TestUnsupportedType(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)}}, nil)
	for _, c := range Constructors() {
		_, err := c.New(s, Options{})
		switch sibling(c.Name) {
		case "arrow-stream", "parquet":
			if err != nil {
				t.Errorf("%s: %v", c.Name, err)
			}
		default:
			if err == nil || !strings.Contains(err.Error(), "column d") {
				t.Errorf("%s: err = %v, want one naming column d", c.Name, err)
			}
		}
	}
}

func TestCompareReportsDifference(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "v", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true}), Nullable: true}}, nil)
	mk := func(last float64, null bool) arrow.RecordBatch {
		return buildBatch(t, s, func(b *array.RecordBuilder) {
			sb := b.Field(0).(*array.StructBuilder)
			lb := sb.FieldBuilder(0).(*array.ListBuilder)
			vb := lb.ValueBuilder().(*array.Float64Builder)
			for r := 0; r < 3; r++ {
				sb.Append(true)
				lb.Append(true)
				vb.Append(1)
				if r == 2 {
					if null {
						vb.AppendNull()
					} else {
						vb.Append(last)
					}
				}
			}
		})
	}
	a, b, c := mk(0, false), mk(negZero(), false), mk(0, true)
	defer a.Release()
	defer b.Release()
	defer c.Release()
	if err := Compare([]arrow.RecordBatch{a}, []arrow.RecordBatch{a}); err != nil {
		t.Fatal(err)
	}
	err := Compare([]arrow.RecordBatch{a}, []arrow.RecordBatch{b})
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "row 2: column s.v[1]") {
		t.Fatalf("-0 vs 0: err = %v", err)
	}
	err = Compare([]arrow.RecordBatch{a}, []arrow.RecordBatch{c})
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "got null") {
		t.Fatalf("null vs 0: err = %v", err)
	}
	err = Compare([]arrow.RecordBatch{a, a}, []arrow.RecordBatch{a})
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "3 rows, want 6") {
		t.Fatalf("short: err = %v", err)
	}
	// Batch boundaries do not matter.
	s1, s2 := a.NewSlice(0, 1), a.NewSlice(1, 3)
	defer s1.Release()
	defer s2.Release()
	if err := Compare([]arrow.RecordBatch{a}, []arrow.RecordBatch{s1, s2}); err != nil {
		t.Fatal(err)
	}
}

func TestTruncatedInputs(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(3, 3)), nested: true}
	s := g.schema()
	rec := g.batch(s, 20)
	defer rec.Release()
	for _, c := range Constructors() {
		f, err := c.New(s, Options{})
		if err != nil {
			continue
		}
		_, data, err := roundTrip(f, []arrow.RecordBatch{rec})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for _, cut := range []int{1, len(data) / 2, len(data) - 1} {
			dec, err := f.NewDecoder(bytes.NewReader(data[:cut]))
			if err != nil {
				continue
			}
			var rows int64
			for {
				var b arrow.RecordBatch
				err = dec.Decode(&b)
				if err != nil {
					break
				}
				rows += b.NumRows()
			}
			if err == io.EOF && rows == rec.NumRows() {
				t.Errorf("%s: cut at %d of %d bytes decoded all rows without error", c.Name, cut, len(data))
			}
		}
	}
}

func TestDescriptors(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	fs, skipped := All(s, Options{})
	if len(skipped) != 0 || len(fs) != len(Constructors()) {
		t.Fatalf("All: %d formats, skipped %v", len(fs), skipped)
	}
	for _, f := range fs {
		d := f.Descriptor()
		if d.Name == "" || d.Library == "" || d.Version == "" || d.Detail == "" || !d.HasLabel(LabelSchemaDriven) {
			t.Errorf("incomplete descriptor %+v", d)
		}
	}
	if _, _, err := Registry(s, Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestProtobufCrossRead checks that protobuf-wire and protobuf-dynamicpb
// write the same number of bytes (the same fields; dynamicpb orders message
// fields after scalars, protowire keeps field-number order) and read each
// other's.
func TestProtobufCrossRead(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		g := &gen{r: rand.New(rand.NewPCG(seed, 11)), nested: true, special: true}
		s := g.schema()
		rec := g.batch(s, 9)
		pb, err := NewProtobuf(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		pw, err := NewProtowire(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, a, err := roundTrip(pb, []arrow.RecordBatch{rec})
		if err != nil {
			t.Fatalf("seed %d: dynamicpb: %v", seed, err)
		}
		_, b, err := roundTrip(pw, []arrow.RecordBatch{rec})
		if err != nil {
			t.Fatalf("seed %d: protowire: %v", seed, err)
		}
		if len(a) != len(b) {
			t.Errorf("seed %d: schema %s: sizes differ:\ndynamicpb %x\nprotowire %x", seed, s, a, b)
		}
		for _, c := range []struct {
			f    Format
			data []byte
		}{{pb, b}, {pw, a}} {
			dec, err := c.f.NewDecoder(bytes.NewReader(c.data))
			if err != nil {
				t.Fatal(err)
			}
			v := NewVerifier([]arrow.RecordBatch{rec})
			for {
				var got arrow.RecordBatch
				if err := dec.Decode(&got); err != nil {
					if err != io.EOF {
						t.Fatalf("seed %d: %s: %v", seed, c.f.Descriptor().Name, err)
					}
					break
				}
				if err := v.Check(got); err != nil {
					t.Fatalf("seed %d: %s: %v", seed, c.f.Descriptor().Name, err)
				}
			}
			if err := v.Done(); err != nil {
				t.Fatal(err)
			}
		}
		rec.Release()
	}
}

func TestJSONLReader(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "t", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32), Nullable: true},
	}, nil)
	f, err := NewJSONL(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	decode := func(in string) (string, error) {
		dec, err := f.NewDecoder(strings.NewReader(in))
		if err != nil {
			return "", err
		}
		var out []string
		for {
			var b arrow.RecordBatch
			if err := dec.Decode(&b); err != nil {
				if err == io.EOF {
					return strings.Join(out, ""), nil
				}
				return "", err
			}
			j, _ := b.MarshalJSON()
			out = append(out, string(j))
		}
	}
	got, err := decode(" { \"l\" : [ 1.5 , 2 ] , \"s\":{\"t\":\"x\\u00e9\\\"\"}, \"a\": -7 } \n{}\n{\"s\":null,\"l\":[]}\n")
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"a":-7,"l":[1.5,2],"s":{"t":"xé\""}}` + "\n" + `,{"a":null,"l":null,"s":null}` + "\n" + `,{"a":null,"l":[],"s":null}` + "\n" + `]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for in, msg := range map[string]string{
		"{\"a\":1} x\n":             "row 0: malformed JSON: byte 8: unexpected 'x'",
		"{\"b\":1}\n":               `unknown field "b"`,
		"{\"a\":1.5}\n":             "column a: byte 5: 1.5 is not an int64",
		"{\"a\":3000000000}\n":      "column a: 3000000000 out of the range of int32",
		"{\"a\":1,\"a\":2}\n":       "field a twice",
		"{\"l\":[1,]}\n":            "column l[]: byte 8: want a number",
		"{\"s\":{\"t\":\"\\x\"}}\n": "column s.t",
		"{\"a\":01}\n":              "column a: byte 5: want a number",
		"{\"a\":1}":                 "last line without newline",
	} {
		if _, err := decode(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: err = %v, want %q", in, err, msg)
		}
	}
}
