package dynamic

import (
	"bufio"
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// avroDecoders returns the flat and the general decoder of data, or nil
// when its header does not parse (the decoders share that code).
func avroDecoders(t *testing.T, f *Avro, data []byte) (flat, general interface {
	Decode(*arrow.RecordBatch) error
}) {
	t.Helper()
	or1 := &ocfReader{r: bufio.NewReader(bytes.NewReader(data))}
	or2 := &ocfReader{r: bufio.NewReader(bytes.NewReader(data))}
	if _, err := or1.header(); err != nil {
		return nil, nil
	}
	or2.header()
	d := newAvroFlat(f.name(), f.schema, f.o, or1)
	if d == nil {
		t.Fatal("schema not flat")
	}
	return d, f.newRowDecoder(or2)
}

// sameDecodes checks that two decoders of the same input both fail, or
// return the same rows in the same batches; it returns the error.
func sameDecodes(t *testing.T, flat, general interface {
	Decode(*arrow.RecordBatch) error
}, data []byte) error {
	t.Helper()
	for i := 0; ; i++ {
		var a, b arrow.RecordBatch
		ea := flat.Decode(&a)
		eb := general.Decode(&b)
		if (ea == nil) != (eb == nil) || ea == io.EOF != (eb == io.EOF) {
			t.Fatalf("batch %d: flat decoder: %v, general: %v\ninput %x", i, ea, eb, data)
		}
		if ea != nil {
			if strings.Contains(ea.Error(), "corrupt input") {
				t.Fatalf("batch %d: flat decoder panicked: %v\ninput %x", i, ea, data)
			}
			return ea
		}
		if err := Compare([]arrow.RecordBatch{b}, []arrow.RecordBatch{a}); err != nil {
			t.Fatalf("batch %d: flat vs general: %v\ninput %x", i, err, data)
		}
	}
}

// avroFlatFile returns an Avro file of rows of the flat schema, in blocks
// of 16 rows, and its format reading batches of 10.
func avroFlatFile(t testing.TB, rows int) (*Avro, []arrow.RecordBatch, []byte) {
	s := flatSchema()
	ff, err := NewAvro(s, Options{BatchRows: 16})
	if err != nil {
		t.Fatal(err)
	}
	g := &gen{r: rand.New(rand.NewPCG(6, 6)), special: true}
	batches := []arrow.RecordBatch{g.batch(s, rows), g.batch(s, 0), g.batch(s, 5)}
	_, data, err := roundTrip(ff, batches)
	if err != nil {
		t.Fatal(err)
	}
	f := ff.(*Avro)
	f.o.BatchRows = 10
	return f, batches, data
}

// TestAvroFlat round-trips the flat schema through the flat Avro decoder
// (batches cutting across blocks), and checks that it agrees with the
// general decoder on the file with every byte of a stretch changed, cut
// short, or followed by junk.
func TestAvroFlat(t *testing.T) {
	f, batches, data := avroFlatFile(t, 300)
	defer release(batches)
	dec, err := f.NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := dec.(*avroFlat); !ok {
		t.Fatalf("decoder %T, want the flat one", dec)
	}
	got, err := decodeAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	if err := Compare(batches, got); err != nil {
		t.Fatal(err)
	}
	release(got)
	a, b := avroDecoders(t, f, data)
	if err := sameDecodes(t, a, b, data); err != io.EOF {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for k := 0; k < 1000; k++ {
		bad := bytes.Clone(data)
		switch k % 3 {
		case 0:
			bad[len(bad)/4+r.IntN(len(bad)*3/4)] ^= byte(1 + r.IntN(255))
		case 1:
			bad = bad[:len(bad)/4+r.IntN(len(bad)*3/4)]
		default:
			bad = append(bad, byte(r.IntN(256)), 0, 0)
		}
		if a, b := avroDecoders(t, f, bad); a != nil {
			sameDecodes(t, a, b, bad)
		}
	}
}

// FuzzAvroFlat feeds corrupt Avro files of the flat schema to the flat
// decoder and the general one: both must fail, or decode the same batches.
func FuzzAvroFlat(f *testing.F) {
	af, batches, data := avroFlatFile(f, 20)
	defer release(batches)
	f.Add(data)
	f.Add(data[:len(data)*3/4])
	f.Fuzz(func(t *testing.T, data []byte) {
		if a, b := avroDecoders(t, af, data); a != nil {
			sameDecodes(t, a, b, data)
		}
	})
}
