package data

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"

	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/workload/userdata"
)

// avroDatum makes a random value of s: the member a JSON Lines input holds
// for it (the --avsc reader's plain JSON) and the value it stands for in
// norm's terms.
func avroDatum(rng *rand.Rand, s avro.Schema, depth int) (in, want any) {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	var lt avro.LogicalType
	if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		lt = l.Logical().Type()
	}
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	switch t := s.(type) {
	case *avro.UnionSchema:
		if rng.IntN(3) == 0 {
			return nil, nil
		}
		for _, b := range t.Types() {
			if b.Type() != avro.Null {
				return avroDatum(rng, b, depth)
			}
		}
	case *avro.RecordSchema:
		in, want := map[string]any{}, map[string]any{}
		for _, f := range t.Fields() {
			in[f.Name()], want[f.Name()] = avroDatum(rng, f.Type(), depth+1)
		}
		return in, want
	case *avro.ArraySchema:
		var in, want []any
		for range rng.IntN(4) {
			i, w := avroDatum(rng, t.Items(), depth+1)
			in, want = append(in, i), append(want, w)
		}
		if in == nil {
			in, want = []any{}, []any{}
		}
		return in, want
	case *avro.MapSchema:
		in, want := map[string]any{}, map[string]any{}
		for range rng.IntN(4) {
			k := pick("a", "b", "ключ", "", "x y")
			in[k], want[k] = avroDatum(rng, t.Values(), depth+1)
		}
		return in, want
	case *avro.EnumSchema:
		sym := t.Symbols()[rng.IntN(len(t.Symbols()))]
		return sym, sym
	case *avro.FixedSchema:
		if lt == avro.Decimal {
			return avroDecimal(rng, t.Logical().(*avro.DecimalLogicalSchema))
		}
		b := make([]byte, t.Size())
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return base64.StdEncoding.EncodeToString(b), b
	case *avro.NullSchema:
		return nil, nil
	case *avro.PrimitiveSchema:
		switch {
		case t.Type() == avro.Boolean:
			v := rng.IntN(2) == 0
			return v, v
		case t.Type() == avro.Int && lt == avro.Date:
			d := time.Unix(0, 0).UTC().AddDate(0, 0, rng.IntN(40000)-20000)
			return d.Format(time.DateOnly), d.Format(time.DateOnly)
		case t.Type() == avro.Int && lt == avro.TimeMillis:
			v := rng.Int64N(86_400_000)
			return v, v * int64(time.Millisecond)
		case t.Type() == avro.Int:
			v := int64(int32(rng.Uint32()))
			return json.Number(strconv.FormatInt(v, 10)), v
		case t.Type() == avro.Long && lt == avro.TimeMicros:
			v := rng.Int64N(86_400_000_000)
			return v, v * int64(time.Microsecond)
		case t.Type() == avro.Long && (lt == avro.TimestampMillis || lt == avro.TimestampMicros || lt == avro.LocalTimestampMicros):
			us := rng.Int64N(4e15) - 2e15
			if lt == avro.TimestampMillis {
				us -= us % 1000
			}
			ts := time.UnixMicro(us).UTC()
			return ts.Format("2006-01-02T15:04:05.000000Z07:00"), us
		case t.Type() == avro.Long:
			v := int64(rng.Uint64())
			return json.Number(strconv.FormatInt(v, 10)), v
		case t.Type() == avro.Float:
			v := float32(rng.NormFloat64() * 1e6)
			return json.Number(strconv.FormatFloat(float64(v), 'g', -1, 32)), float64(v)
		case t.Type() == avro.Double:
			v := rng.NormFloat64() * 1e12
			return json.Number(strconv.FormatFloat(v, 'g', -1, 64)), v
		case t.Type() == avro.String:
			v := pick("", "plain", "ünï", "日本語", `quote " and \`, "line\nbreak")
			return v, v
		case t.Type() == avro.Bytes && lt == avro.Decimal:
			return avroDecimal(rng, t.Logical().(*avro.DecimalLogicalSchema))
		case t.Type() == avro.Bytes:
			b := make([]byte, rng.IntN(6))
			for i := range b {
				b[i] = byte(rng.UintN(256))
			}
			return base64.StdEncoding.EncodeToString(b), b
		}
	}
	panic(fmt.Sprintf("avroDatum: no generator for %s", s.Type()))
}

// avroDecimal is a random decimal of d's precision and scale, as text.
func avroDecimal(rng *rand.Rand, d *avro.DecimalLogicalSchema) (in, want any) {
	digits := 1 + rng.IntN(d.Precision())
	n := new(big.Int)
	for range digits {
		n.Mul(n, big.NewInt(10)).Add(n, big.NewInt(rng.Int64N(10)))
	}
	if rng.IntN(2) == 0 {
		n.Neg(n)
	}
	r := new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale())), nil))
	return r.FloatString(d.Scale()), r.FloatString(d.Scale())
}

// avroNorm writes a value hamba decoded with s in avroDatum's terms:
// unions unwrapped, fixed as []byte, decimals as text, times as integers.
func avroNorm(s avro.Schema, v any) any {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if v == nil {
		return nil
	}
	switch t := s.(type) {
	case *avro.UnionSchema:
		for _, b := range t.Types() {
			if ref, ok := b.(*avro.RefSchema); ok {
				b = ref.Schema()
			}
			if b.Type() == avro.Null {
				continue
			}
			if m, ok := v.(map[string]any); ok && len(m) == 1 {
				for _, x := range m {
					if _, isRecord := b.(*avro.RecordSchema); isRecord || b.Type() == avro.Map || b.Type() == avro.Enum || b.Type() == avro.Fixed || b.Type() == avro.Array {
						v = x
					}
				}
			}
			return avroNorm(b, v)
		}
	case *avro.RecordSchema:
		m := v.(map[string]any)
		out := map[string]any{}
		for _, f := range t.Fields() {
			out[f.Name()] = avroNorm(f.Type(), m[f.Name()])
		}
		return out
	case *avro.ArraySchema:
		out := []any{}
		for _, x := range v.([]any) {
			out = append(out, avroNorm(t.Items(), x))
		}
		return out
	case *avro.MapSchema:
		out := map[string]any{}
		for k, x := range v.(map[string]any) {
			out[k] = avroNorm(t.Values(), x)
		}
		return out
	}
	switch x := v.(type) {
	case *big.Rat:
		var scale int
		if l, ok := s.(avro.LogicalTypeSchema); ok {
			scale = l.Logical().(*avro.DecimalLogicalSchema).Scale()
		}
		return x.FloatString(scale)
	case time.Time:
		if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical().Type() == avro.Date {
			return x.UTC().Format(time.DateOnly)
		}
		return x.UnixMicro()
	case time.Duration:
		return int64(x)
	case int:
		return int64(x)
	case float32:
		return float64(x)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Array {
		out := make([]byte, rv.Len())
		reflect.Copy(reflect.ValueOf(out), rv)
		return out
	}
	return v
}

// avscFile writes n random rows of testdata/kinds.avsc as JSON Lines,
// reads them with the --avsc reader and writes them with avro-avsc: the
// schema, the rows read, the format, the file and each row's value in
// avroNorm's terms.
func avscFile(tb testing.TB, n int, seed uint64) (*userdata.Schema, *userdata.Data, *dynamic.AvroGiven, []byte, []any) {
	tb.Helper()
	g, err := userdata.AvroSchema(filepath.Join("testdata", "kinds.avsc"))
	if err != nil {
		tb.Fatal(err)
	}
	rec, err := avro.ParseBytesWithCache(g.Avsc, "", &avro.SchemaCache{})
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 9))
	var lines bytes.Buffer
	var want []any
	for range n {
		in, w := avroDatum(rng, rec, 0)
		b, err := json.Marshal(in)
		if err != nil {
			tb.Fatal(err)
		}
		lines.Write(b)
		lines.WriteByte('\n')
		want = append(want, w)
	}
	d := readGiven(tb, g, lines.Bytes())
	f, err := dynamic.NewAvroGiven(d.Schema, g.Avsc, dynamic.Options{BatchRows: 64})
	if err != nil {
		tb.Fatal(err)
	}
	return g, d, f, encodeAll(tb, f, d), want
}

// TestAvroGivenRoundTrip: random rows of an .avsc holding every kind
// (testdata/kinds.avsc) → JSON Lines → the --avsc reader → avro-avsc. The
// file is an Avro container in the user's schema: hamba reads each datum
// with that schema back to the input's values, and the format's decoder
// gives the reader's rows back (digest).
func TestAvroGivenRoundTrip(t *testing.T) {
	g, d, f, file, want := avscFile(t, 300, 5)
	rec, err := avro.ParseBytesWithCache(g.Avsc, "", &avro.SchemaCache{})
	if err != nil {
		t.Fatal(err)
	}
	// Each datum, read by hamba with the file's (the user's) schema.
	od, err := ocf.NewDecoder(bytes.NewReader(file), ocf.WithDecoderSchemaCache(&avro.SchemaCache{}))
	if err != nil {
		t.Fatal(err)
	}
	if od.Schema().Fingerprint() != rec.Fingerprint() {
		t.Fatalf("the file's schema is not the .avsc's:\n%s", od.Schema())
	}
	for i := 0; od.HasNext(); i++ {
		var m map[string]any
		if err := od.Decode(&m); err != nil {
			t.Fatalf("datum %d: %v", i, err)
		}
		if got := avroNorm(rec, m); !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("datum %d: the format wrote\n%#v\nthe input was\n%#v", i, got, want[i])
		}
	}
	if err := od.Error(); err != nil {
		t.Fatal(err)
	}
	// And the decoder gives the reader's rows back.
	sameRowsBack(t, f, file, d)
}

// TestAvroGivenRefuses: a schema whose values avro-avsc cannot write back
// is a cannot-hold error naming the field; rows of another schema are an
// error naming the first field that differs.
func TestAvroGivenRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, avsc, want string
		hold             bool
	}{
		{"union of several", `{"type":"record","name":"R","fields":[{"name":"u","type":["null","long","string"]}]}`, "field u: a union of 3 types", true},
		{"duration", `{"type":"record","name":"R","fields":[{"name":"d","type":{"type":"fixed","name":"D","size":12,"logicalType":"duration"}}]}`, "field d: an Avro duration", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.avsc")
			if err := os.WriteFile(path, []byte(tc.avsc), 0o644); err != nil {
				t.Fatal(err)
			}
			g, err := userdata.AvroSchema(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = dynamic.NewAvroGiven(g.Arrow, g.Avsc, dynamic.Options{})
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if got := errors.Is(err, dynamic.ErrCannotHold); got != tc.hold {
				t.Errorf("cannot hold = %v, want %v (%v)", got, tc.hold, err)
			}
		})
	}
	other := arrow.NewSchema([]arrow.Field{{Name: "u", Type: arrow.PrimitiveTypes.Int32}}, nil)
	_, err := dynamic.NewAvroGiven(other, []byte(`{"type":"record","name":"R","fields":[{"name":"u","type":"long"}]}`), dynamic.Options{})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("field u: the column's type int32 is not the mapping of Avro long")) {
		t.Fatalf("error %v, want the field that differs", err)
	}
}

// FuzzAvroGivenDecode: any bytes decode to rows of the schema or an
// error, never a panic.
//
//	go test ./workload/data -run '^$' -fuzz '^FuzzAvroGivenDecode$' -fuzztime 60s
func FuzzAvroGivenDecode(f *testing.F) {
	g, _, ag, file, _ := avscFile(f, 3, 1)
	f.Add(file)
	_, _, _, one, _ := avscFile(f, 1, 2)
	f.Add(one)
	f.Add(one[:len(one)/2])
	f.Fuzz(func(t *testing.T, in []byte) {
		dec, err := ag.NewDecoder(bytes.NewReader(in))
		if err != nil {
			return
		}
		for {
			var b arrow.RecordBatch
			if err := dec.Decode(&b); err != nil {
				return
			}
			if b.Schema() == nil || !b.Schema().Equal(g.Arrow) {
				t.Fatalf("decoded a batch of schema %v", b.Schema())
			}
		}
	})
}

var _ format.Format[arrow.RecordBatch] = (*dynamic.AvroGiven)(nil)
