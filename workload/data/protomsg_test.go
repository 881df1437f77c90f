package data

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/serbench/serbench/digest"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/workload/userdata"
)

// randomMessage fills a message of md with random values: each field set
// or left out at random (a member of a oneof at most once), messages to
// depth 2.
func randomMessage(rng *rand.Rand, md protoreflect.MessageDescriptor, depth int) *dynamicpb.Message {
	m := dynamicpb.NewMessage(md)
	for i := 0; i < md.Fields().Len(); i++ {
		fd := md.Fields().Get(i)
		if rng.IntN(3) == 0 || (fd.ContainingOneof() != nil && m.WhichOneof(fd.ContainingOneof()) != nil) {
			continue
		}
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for range rng.IntN(4) {
				mp.Set(randomValue(rng, fd.MapKey(), m, depth).MapKey(), randomValue(rng, fd.MapValue(), m, depth))
			}
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range rng.IntN(4) {
				if fd.Message() != nil {
					l.Append(protoreflect.ValueOfMessage(randomFill(rng, l.NewElement().Message(), depth+1)))
				} else {
					l.Append(randomValue(rng, fd, m, depth))
				}
			}
		default:
			m.Set(fd, randomValue(rng, fd, m, depth))
		}
	}
	return m
}

// randomFill fills dst (a message of some descriptor) as randomMessage does.
func randomFill(rng *rand.Rand, dst protoreflect.Message, depth int) protoreflect.Message {
	src := randomMessage(rng, dst.Descriptor(), depth)
	if dst.Descriptor().FullName() == "google.protobuf.Timestamp" {
		src = dynamicpb.NewMessage(dst.Descriptor())
		src.Set(dst.Descriptor().Fields().ByName("seconds"), protoreflect.ValueOfInt64(rng.Int64N(9e9)-2e9)) // within timestamp[ns]
		src.Set(dst.Descriptor().Fields().ByName("nanos"), protoreflect.ValueOfInt32(rng.Int32N(1e9)))
	}
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		dst.Set(fd, v)
		return true
	})
	return dst
}

// randomValue is a random value of fd's kind (extremes included).
func randomValue(rng *rand.Rand, fd protoreflect.FieldDescriptor, parent protoreflect.Message, depth int) protoreflect.Value {
	pick := func(xs ...int64) int64 {
		if rng.IntN(3) == 0 {
			return xs[rng.IntN(len(xs))]
		}
		a, b := rng.Int64()>>rng.IntN(63), rng.Int64()>>rng.IntN(63) // two draws: any magnitude, either sign
		return a - b
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(rng.IntN(2) == 0)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(pick(0, math.MinInt32, math.MaxInt32, -1)))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(pick(0, math.MinInt64, math.MaxInt64, -1, 1<<53+1))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(pick(0, math.MaxUint32)))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(pick(0, -1)))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(rng.NormFloat64() * 1e6))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64([]float64{0, math.Inf(1), -math.SmallestNonzeroFloat64, rng.NormFloat64() * 1e300}[rng.IntN(4)])
	case protoreflect.StringKind:
		return protoreflect.ValueOfString([]string{"", "a", "ünïcødé ☃", "line\nbreak \"quoted\""}[rng.IntN(4)])
	case protoreflect.BytesKind:
		b := make([]byte, rng.IntN(6))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return protoreflect.ValueOfBytes(b)
	case protoreflect.EnumKind:
		vs := fd.Enum().Values()
		return protoreflect.ValueOfEnum(vs.Get(rng.IntN(vs.Len())).Number())
	}
	if depth > 2 {
		return protoreflect.ValueOfMessage(dynamicpb.NewMessage(fd.Message()))
	}
	return protoreflect.ValueOfMessage(randomFill(rng, dynamicpb.NewMessage(fd.Message()), depth+1))
}

// TestProtobufMessageRoundTrip is the property the protobuf-message
// format rests on, over random messages of a .proto with every kind the
// mapping knows: a message written as protojson, read into Arrow by the
// --proto reader and encoded by the format is the same message (decoded
// with the user's descriptor: their field numbers and wire types), and the
// format's decoder gives the reader's rows back.
func TestProtobufMessageRoundTrip(t *testing.T) {
	g, err := userdata.ProtoSchema(filepath.Join("testdata", "kinds.proto"), "kinds.All")
	if err != nil {
		t.Fatal(err)
	}
	md := g.Message
	rng := rand.New(rand.NewPCG(7, 11))
	var want []*dynamicpb.Message
	var lines bytes.Buffer
	for range 300 {
		m := randomMessage(rng, md, 0)
		b, err := protojson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		lines.Write(b)
		lines.WriteByte('\n')
		want = append(want, m)
	}
	d := readGiven(t, g, lines.Bytes())
	f, err := dynamic.NewProtobufMessage(d.Schema, md, dynamic.Options{BatchRows: 64})
	if err != nil {
		t.Fatal(err)
	}
	wire := bytes.NewBuffer(encodeAll(t, f, d))
	// Each frame is the message itself, read with the user's descriptor.
	rest := wire.Bytes()
	for i, w := range want {
		body, n := protowire.ConsumeBytes(rest)
		if n < 0 {
			t.Fatalf("frame %d: %v", i, protowire.ParseError(n))
		}
		rest = rest[n:]
		got := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(body, got); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if !proto.Equal(got, w) {
			t.Fatalf("row %d: the format wrote\n%v\nthe input was\n%v", i, got, w)
		}
	}
	if len(rest) != 0 {
		t.Fatalf("%d bytes after the last frame", len(rest))
	}
	// And the decoder gives the reader's rows back.
	sameRowsBack(t, f, wire.Bytes(), d)
}

// readGiven reads JSON Lines with the --avsc or --proto reader of g.
func readGiven(tb testing.TB, g *userdata.Schema, lines []byte) *userdata.Data {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "all.jsonl")
	if err := os.WriteFile(path, lines, 0o644); err != nil {
		tb.Fatal(err)
	}
	d, err := userdata.ReadAll(path, userdata.Options{Schema: g})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(d.Release)
	return d
}

// encodeAll writes every batch of d with f.
func encodeAll(tb testing.TB, f dynamic.Format, d *userdata.Data) []byte {
	tb.Helper()
	var out bytes.Buffer
	enc, err := f.NewEncoder(&out)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range d.Batches {
		if err := enc.Encode(&d.Batches[i]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

// sameRowsBack checks that f decodes file to the rows d holds (digest).
func sameRowsBack(t *testing.T, f dynamic.Format, file []byte, d *userdata.Data) {
	t.Helper()
	dec, err := f.NewDecoder(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var back []arrow.RecordBatch
	for {
		var b arrow.RecordBatch
		err := dec.Decode(&b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b.Retain()
		back = append(back, b)
	}
	defer func() {
		for _, b := range back {
			b.Release()
		}
	}()
	read, err := digest.Batches(d.Schema, d.Batches...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := digest.Batches(d.Schema, back...)
	if err != nil {
		t.Fatal(err)
	}
	if diff := digest.Diff(read, got); diff != nil {
		t.Errorf("decoded rows differ from the reader's: %v", diff)
	}
}

var _ format.Format[arrow.RecordBatch] = (*dynamic.ProtobufMessage)(nil)

// FuzzProtobufMessageDecode: any bytes decode to rows or an error, never a
// panic, and the rows decoded are as many as the frames read.
//
//	go test ./workload/data -run '^$' -fuzz '^FuzzProtobufMessageDecode$' -fuzztime 60s
func FuzzProtobufMessageDecode(f *testing.F) {
	g, err := userdata.ProtoSchema(filepath.Join("testdata", "kinds.proto"), "kinds.All")
	if err != nil {
		f.Fatal(err)
	}
	pm, err := dynamic.NewProtobufMessage(g.Arrow, g.Message, dynamic.Options{BatchRows: 8})
	if err != nil {
		f.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 4 {
		b, err := proto.Marshal(randomMessage(rng, g.Message, 0))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(protowire.AppendBytes(nil, b))
	}
	f.Add([]byte{0x05, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, in []byte) {
		dec, err := pm.NewDecoder(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
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
