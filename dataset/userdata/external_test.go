package userdata

import (
	"flag"
	"testing"

	"github.com/serbench/serbench/format/dynamic"
)

var external = flag.String("external", "", "read this public dataset file (see README of the report) and round-trip it through every dynamic format")

// TestExternalDataset reads a real-world file given with -external (e.g.
// palmerpenguins' penguins.csv), logs its schema and notes, and round-trips
// it through every dynamic format that can hold it.
func TestExternalDataset(t *testing.T) {
	if *external == "" {
		t.Skip("no -external")
	}
	d := readAll(t, *external, Options{})
	t.Logf("%s: %d rows\n%s", *external, d.Rows, FormatSchema(d.Schema, d.Notes))
	roundTripAll(t, d)
}

// roundTripAll writes d through every dynamic format that can hold it and
// compares what each reads back.
func roundTripAll(t *testing.T, d *Data) {
	t.Helper()
	fs, skipped := dynamic.All(d.Schema, dynamic.Options{})
	for _, err := range skipped {
		t.Logf("skipped: %v", err)
	}
	for _, f := range fs {
		var buf sliceBuffer
		enc, err := f.NewEncoder(&buf)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range d.Batches {
			if err := enc.Encode(&b); err != nil {
				t.Fatalf("%s: %v", f.Descriptor().Name, err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		got := decodeAll(t, f, buf.b)
		if err := dynamic.Compare(d.Batches, got); err != nil {
			t.Errorf("%s: %v", f.Descriptor().Name, err)
		}
		t.Logf("%s: %d bytes", f.Descriptor().Name, len(buf.b))
	}
}
