package data

// The tests of this file check that what workload/userdata reads survives the
// schema-driven formats of format/dynamic: they bind the two, so they live
// with the workload that binds them (a dataset imports no format, its tests
// included: internal/arch). They read userdata's testdata.

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/filebench"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/workload/userdata"
)

var (
	bigFile      = flag.String("bigfile", "", "BenchmarkDynamicFormats: encode and decode the first 100,000 rows of this file")
	external     = flag.String("external", "", "read this public dataset file (see README of the report) and round-trip it through every dynamic format")
	updateInputs = flag.Bool("update-inputs", false, "regenerate the binary and compressed files under workload/userdata/testdata")
)

// readUserdata reads path with userdata.ReadAll, released when the test ends.
func readUserdata(t *testing.T, path string, o userdata.Options) *userdata.Data {
	t.Helper()
	d, err := userdata.ReadAll(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Release)
	return d
}

type sliceBuffer struct{ b []byte }

func (s *sliceBuffer) Write(p []byte) (int, error) { s.b = append(s.b, p...); return len(p), nil }

// decodeAll decodes data with f, retaining every batch.
func decodeAll(t *testing.T, f dynamic.Format, data []byte) []arrow.RecordBatch {
	t.Helper()
	dec, err := f.NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []arrow.RecordBatch
	for {
		var b arrow.RecordBatch
		if err := dec.Decode(&b); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("%s: %v", f.Descriptor().Name, err)
			}
			break
		}
		b.Retain()
		out = append(out, b)
	}
	t.Cleanup(func() {
		for _, b := range out {
			b.Release()
		}
	})
	return out
}

// roundTripAll writes d through every dynamic format that can hold it and
// compares what each reads back.
func roundTripAll(t *testing.T, d *userdata.Data) {
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

// TestUserdataRoundTrip writes userdata's nested input through every
// dynamic format.
func TestUserdataRoundTrip(t *testing.T) {
	d := readUserdata(t, filepath.Join(testdata, "nested.jsonl"), userdata.Options{})
	fs, skipped := dynamic.All(d.Schema, dynamic.Options{BatchRows: 2})
	if len(skipped) != 1 || !strings.Contains(skipped[0].Error(), "csv") {
		t.Errorf("skipped %v, want csv only", skipped)
	}
	for _, f := range fs {
		t.Run(f.Descriptor().Name, func(t *testing.T) {
			var enc sliceBuffer
			e, err := f.NewEncoder(&enc)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range d.Batches {
				if err := e.Encode(&b); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			dec, err := f.NewDecoder(bytes.NewReader(enc.b))
			if err != nil {
				t.Fatal(err)
			}
			v := dynamic.NewVerifier(d.Batches)
			for {
				var b arrow.RecordBatch
				if err := dec.Decode(&b); err != nil {
					if err.Error() != "EOF" {
						t.Fatal(err)
					}
					break
				}
				if err := v.Check(b); err != nil {
					t.Fatal(err)
				}
			}
			if err := v.Done(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestUserdataAvroTypes round-trips the OCF of every Avro type userdata
// maps (testdata/avro-types.avro, which workload/userdata's TestAvroTypes
// checks value by value) through every dynamic format that can hold it.
func TestUserdataAvroTypes(t *testing.T) {
	path := filepath.Join(testdata, "avro-types.avro")
	roundTripAll(t, readUserdata(t, path, userdata.Options{}))
}

// TestExternalDataset reads a real-world file given with -external (e.g.
// palmerpenguins' penguins.csv), logs its schema and notes, and round-trips
// it through every dynamic format that can hold it.
func TestExternalDataset(t *testing.T) {
	if *external == "" {
		t.Skip("no -external")
	}
	d := readUserdata(t, *external, userdata.Options{})
	t.Logf("%s: %d rows\n%s", *external, d.Rows, userdata.FormatSchema(d.Schema, d.Notes))
	roundTripAll(t, d)
}

// FuzzJSONL feeds arbitrary bytes to the JSON Lines reader: it must return
// data or an error, never panic, and whatever it reads must survive the
// dynamic JSON Lines format's round trip.
func FuzzJSONL(f *testing.F) {
	for _, s := range []string{
		"{\"a\":1}\n{\"a\":2.5}\n",
		"{\"a\":{\"b\":[1,null,3]}}\n{\"a\":null}\n",
		"{\"a\":\"x\"}\n{\"a\":[{}]}\n",
		"{\"a\":1}\n{\"a\":2,}\n",
		"[1]\n",
		"{\"a\":\"\\ud800\"}\n",
		"{\"a\":1e400}\n",
		"{\"a\":18446744073709551616}\n",
		"\n\n{}\n",
	} {
		f.Add([]byte(s), uint8(0))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		p := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := userdata.Options{SkipBad: mode&1 != 0, InferRows: int(mode>>1) % 4, BatchSize: 1 + int(mode>>3)}
		d, err := userdata.ReadAll(p, opts)
		if err != nil {
			return
		}
		defer d.Release()
		jf, err := dynamic.NewJSONL(d.Schema, dynamic.Options{BatchRows: 3})
		if err != nil {
			t.Fatalf("schema %s: %v", d.Schema, err)
		}
		var buf sliceBuffer
		enc, err := jf.NewEncoder(&buf)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range d.Batches {
			if err := enc.Encode(&b); err != nil {
				// JSON input cannot hold NaN or infinities, and
				// strings come from JSON: nothing may fail here.
				t.Fatalf("encode: %v", err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		dec, err := jf.NewDecoder(bytes.NewReader(buf.b))
		if err != nil {
			t.Fatal(err)
		}
		v := dynamic.NewVerifier(d.Batches)
		for {
			var b arrow.RecordBatch
			if err := dec.Decode(&b); err != nil {
				if err.Error() == "EOF" {
					break
				}
				t.Fatalf("decode %q: %v", buf.b, err)
			}
			if err := v.Check(b); err != nil {
				t.Fatalf("round trip of %q: %v", buf.b, err)
			}
		}
		if err := v.Done(); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkDynamicFormats encodes and decodes the first 100 000 rows of
// -bigfile with every dynamic format that can hold them, reporting rows/s
// and the encoded size.
func BenchmarkDynamicFormats(b *testing.B) {
	if *bigFile == "" {
		b.Skip("no -bigfile")
	}
	d, err := userdata.ReadAll(*bigFile, userdata.Options{Limit: 100_000})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Release()
	fs, _ := dynamic.All(d.Schema, dynamic.Options{})
	for _, f := range fs {
		var enc sliceBuffer
		encode := func() {
			enc.b = enc.b[:0]
			e, err := f.NewEncoder(&enc)
			if err != nil {
				b.Fatal(err)
			}
			for _, rec := range d.Batches {
				if err := e.Encode(&rec); err != nil {
					b.Fatal(err)
				}
			}
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(f.Descriptor().Name+"/encode", func(b *testing.B) {
			for b.Loop() {
				encode()
			}
			b.ReportMetric(float64(d.Rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(len(enc.b)), "bytes")
		})
		encode()
		b.Run(f.Descriptor().Name+"/decode", func(b *testing.B) {
			for b.Loop() {
				dec, err := f.NewDecoder(bytes.NewReader(enc.b))
				if err != nil {
					b.Fatal(err)
				}
				for {
					var rec arrow.RecordBatch
					if err := dec.Decode(&rec); err != nil {
						if err.Error() != "EOF" {
							b.Fatal(err)
						}
						break
					}
				}
			}
			b.ReportMetric(float64(d.Rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// TestGenerateUserdataTestdata regenerates, with -update-inputs, the files
// derived from workload/userdata/testdata/nested.jsonl: compressed copies, Parquet, Arrow IPC file and
// stream, Avro OCF, and truncated variants for the error tests.
func TestGenerateUserdataTestdata(t *testing.T) {
	if !*updateInputs {
		t.Skip("run with -update-inputs to regenerate workload/userdata/testdata")
	}
	src, err := os.ReadFile(filepath.Join(testdata, "nested.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	reg := codec.Default()
	for name, spec := range map[string]string{"nested.jsonl.gz": "gzip:9", "nested.jsonl.zst": "zstd"} {
		var buf bytes.Buffer
		w, err := reg.MustParse(spec).NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(src)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		writeInput(t, name, buf.Bytes())
		if name == "nested.jsonl.gz" {
			writeInput(t, "truncated.jsonl.gz", buf.Bytes()[:buf.Len()-12])
		}
	}
	d, err := userdata.ReadAll(filepath.Join(testdata, "nested.jsonl"), userdata.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	for name, mk := range map[string]dynamic.Constructor{
		"nested.parquet": dynamic.NewParquet, "nested.arrows": dynamic.NewArrowStream, "nested.avro": dynamic.NewAvro,
	} {
		f, err := mk(d.Schema, dynamic.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		enc, err := f.NewEncoder(&buf)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range d.Batches {
			if err := enc.Encode(&b); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		writeInput(t, name, buf.Bytes())
		if name == "nested.parquet" {
			writeInput(t, "truncated.parquet", buf.Bytes()[:buf.Len()/2])
		}
	}
	var buf bytes.Buffer
	fw, err := ipc.NewFileWriter(&buf, ipc.WithSchema(d.Schema), ipc.WithAllocator(memory.NewGoAllocator()))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range d.Batches {
		if err := fw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	writeInput(t, "nested.arrow", buf.Bytes())
	writeInput(t, "truncated.arrow", buf.Bytes()[:buf.Len()-40])
}

func writeInput(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(testdata, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Example_userdata shows the library half of `serbench run data --input FILE`: read
// the user's file into memory, then run every format that can hold its
// schema through filebench's file pipeline and verify the round trip.
func Example_userdata() {
	d, err := userdata.ReadAll(filepath.Join(testdata, "nested.jsonl"), userdata.Options{Limit: 1_000_000})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Release()
	fmt.Printf("%d rows, %d columns, %d notes\n", d.Rows, d.Schema.NumFields(), len(d.Notes))

	formats, skipped := dynamic.All(d.Schema, dynamic.Options{})
	for _, err := range skipped {
		fmt.Println("skipped:", err)
	}
	dir, _ := os.MkdirTemp("", "serbench-example")
	defer os.RemoveAll(dir)
	c := codec.Default().MustParse("zstd")
	for _, f := range formats {
		if filebench.CheckCombination(f.Descriptor(), c) != nil {
			continue // Parquet: random access, codec none only
		}
		path := filepath.Join(dir, f.Descriptor().Name)
		if _, err := filebench.Write(context.Background(), path, f, c, d.Seq(), filebench.Options{}); err != nil {
			fmt.Println(err)
			return
		}
		v := dynamic.NewVerifier(d.Batches)
		_, err := filebench.Read(context.Background(), path, f, c, -1,
			func(_ int, got *arrow.RecordBatch) error { return v.Check(*got) }, filebench.Options{})
		if err == nil {
			err = v.Done()
		}
		fmt.Println(f.Descriptor().Name, err == nil)
	}
	// Output:
	// 5 rows, 7 columns, 4 notes
	// skipped: csv: cannot hold this data: column tags: nested type list<item: utf8, nullable> cannot be held by a flat format
	// arrow-stream true
	// avro-ocf true
	// msgpack true
	// cbor true
	// jsonl true
	// protobuf-dynamicpb true
	// protobuf-wire true
}
