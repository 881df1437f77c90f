package avro

import (
	"bytes"
	"io"
	"slices"
	"testing"
)

type reuseRec struct {
	ID   int64    `avro:"id"`
	Tags []string `avro:"tags"`
}

const reuseSchema = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"tags","type":{"type":"array","items":"string"}}]}`

// TestDecodeReusedValueEmptyArray is the regression test for decoding into a
// reused value: a record with an empty array after one with elements must
// decode to an empty slice, not keep the previous record's elements.
func TestDecodeReusedValueEmptyArray(t *testing.T) {
	in := []reuseRec{{ID: 1, Tags: []string{"a", "b"}}, {ID: 2}, {ID: 3, Tags: []string{"c"}}, {ID: 4}}
	datums, err := NewDatums[reuseRec](reuseSchema)
	if err != nil {
		t.Fatal(err)
	}
	ocfNull, err := NewOCF[reuseRec](reuseSchema, "null", 0)
	if err != nil {
		t.Fatal(err)
	}
	type codecPair struct {
		name string
		enc  func(io.Writer) (func(*reuseRec) error, func() error, error)
		dec  func(io.Reader) (func(*reuseRec) error, error)
	}
	pairs := []codecPair{
		{"datums",
			func(w io.Writer) (func(*reuseRec) error, func() error, error) {
				e, err := datums.NewEncoder(w)
				if err != nil {
					return nil, nil, err
				}
				return e.Encode, e.Close, nil
			},
			func(r io.Reader) (func(*reuseRec) error, error) {
				d, err := datums.NewDecoder(r)
				if err != nil {
					return nil, err
				}
				return d.Decode, nil
			}},
		{"ocf",
			func(w io.Writer) (func(*reuseRec) error, func() error, error) {
				e, err := ocfNull.NewEncoder(w)
				if err != nil {
					return nil, nil, err
				}
				return e.Encode, e.Close, nil
			},
			func(r io.Reader) (func(*reuseRec) error, error) {
				d, err := ocfNull.NewDecoder(r)
				if err != nil {
					return nil, err
				}
				return d.Decode, nil
			}},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc, closeEnc, err := p.enc(&buf)
			if err != nil {
				t.Fatal(err)
			}
			for i := range in {
				if err := enc(&in[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := closeEnc(); err != nil {
				t.Fatal(err)
			}
			dec, err := p.dec(&buf)
			if err != nil {
				t.Fatal(err)
			}
			var v reuseRec // reused for every record
			for i, want := range in {
				if err := dec(&v); err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				if v.ID != want.ID || !slices.Equal(v.Tags, want.Tags) {
					t.Fatalf("record %d: got %+v, want %+v", i, v, want)
				}
			}
			if err := dec(&v); err != io.EOF {
				t.Fatalf("after last record: %v, want io.EOF", err)
			}
		})
	}
}
