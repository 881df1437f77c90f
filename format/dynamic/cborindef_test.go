package dynamic

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/fxamacker/cbor/v2"
)

// TestCBORIndefiniteLength: rows whose maps, arrays and strings have an
// indefinite length (RFC 8949 §3.2.2; Jackson's CBORGenerator writes maps
// so) decode to the same batch as the definite encoding of the same rows,
// and a stream cut before a break is an error, not a short read.
func TestCBORIndefiniteLength(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "blob", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	f, err := NewCBOR(schema, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		id   int64
		name string
		tags []string
		blob []byte
	}{{1, "ab", []string{"x", "yz"}, []byte{1, 2}}, {2, "", nil, []byte{}}, {3, strings.Repeat("é", 40), []string{}, []byte{9}}}

	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.id)
		b.Field(1).(*array.StringBuilder).Append(r.name)
		lb := b.Field(2).(*array.ListBuilder)
		lb.Append(true)
		for _, s := range r.tags {
			lb.ValueBuilder().(*array.StringBuilder).Append(s)
		}
		b.Field(3).(*array.BinaryBuilder).Append(r.blob)
	}
	want := b.NewRecordBatch()
	defer want.Release()

	// The same rows, every container and string of indefinite length, the
	// strings in chunks of at most 3 bytes.
	var buf bytes.Buffer
	enc := cbor.NewEncoder(&buf)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	chunked := func(s []byte, text bool) {
		if text {
			must(enc.StartIndefiniteTextString())
		} else {
			must(enc.StartIndefiniteByteString())
		}
		for len(s) > 0 {
			n := min(3, len(s))
			if text {
				for n < len(s) && s[n]&0xc0 == 0x80 { // keep UTF-8 sequences whole
					n++
				}
				must(enc.Encode(string(s[:n])))
			} else {
				must(enc.Encode(s[:n]))
			}
			s = s[n:]
		}
		must(enc.EndIndefinite())
	}
	for _, r := range rows {
		must(enc.StartIndefiniteMap())
		must(enc.Encode("id"))
		must(enc.Encode(r.id))
		must(enc.Encode("name"))
		chunked([]byte(r.name), true)
		must(enc.Encode("tags"))
		must(enc.StartIndefiniteArray())
		for _, s := range r.tags {
			chunked([]byte(s), true)
		}
		must(enc.EndIndefinite())
		must(enc.Encode("blob"))
		chunked(r.blob, false)
		must(enc.EndIndefinite())
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
	if len(got) != 1 || !array.RecordEqual(got[0], want) {
		t.Fatalf("indefinite-length rows decode to %v, want %v", got, want)
	}

	// Cut before the last break: an error.
	cut := buf.Bytes()[:buf.Len()-1]
	dec, err = f.NewDecoder(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	if bs, err := decodeAll(dec); err == nil {
		release(bs)
		t.Fatal("a stream cut before its last break decoded without error")
	}
}
