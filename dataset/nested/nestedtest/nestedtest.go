// Package nestedtest holds the test helpers the nested datasets share: a
// round trip of records through serbench's formats, checked with
// nested.Diff, and the golden-file comparison.
package nestedtest

import (
	"bytes"
	"flag"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/nestedarrow"
	"github.com/serbench/serbench/dataset/nested/nestedparquet"
	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/format/arrowipc"
	"github.com/serbench/serbench/format/avro"
	"github.com/serbench/serbench/format/cbor"
	"github.com/serbench/serbench/format/jsonl"
	"github.com/serbench/serbench/format/msgpack"
	"github.com/serbench/serbench/format/parquet"
)

// Update is the -update flag of the tests: rewrite golden files.
var Update = flag.Bool("update", false, "rewrite golden files")

// GenericFormats returns the reflection-based formats of T: JSON lines (both
// libraries), MessagePack, CBOR, Avro datums and OCF (deflate) with
// avroSchema, Parquet (uncompressed and zstd, small row groups) and Arrow IPC
// (file with zstd, stream; small batches) through nestedarrow.
func GenericFormats[T any](t testing.TB, avroSchema string) []format.Format[T] {
	t.Helper()
	datums, err := avro.NewDatums[T](avroSchema)
	if err != nil {
		t.Fatal(err)
	}
	ocf, err := avro.NewOCF[T](avroSchema, "deflate", 50)
	if err != nil {
		t.Fatal(err)
	}
	pq, err := parquet.New[T]("none", 100)
	if err != nil {
		t.Fatal(err)
	}
	pqz, err := parquet.New[T]("zstd", 0)
	if err != nil {
		t.Fatal(err)
	}
	am, err := nestedarrow.NewMapping[T]()
	if err != nil {
		t.Fatal(err)
	}
	af, err := arrowipc.New("arrow-file-zstd", am, arrowipc.File, "zstd", 64)
	if err != nil {
		t.Fatal(err)
	}
	as, err := arrowipc.New("arrow-stream", am, arrowipc.Stream, "none", 100)
	if err != nil {
		t.Fatal(err)
	}
	return []format.Format[T]{jsonl.New[T](jsonl.Std), jsonl.New[T](jsonl.Goccy), msgpack.New[T](), cbor.New[T](),
		datums, ocf, pq, pqz, af, as}
}

// RoundTrip encodes recs with each format, decodes them back and fails the
// test at the first record that differs (nested.Diff) or when the count
// differs. Records are decoded into one reused value that RoundTrip zeroes
// before each Decode: format/avro does not (hamba/avro leaves a reused slice
// untouched when the datum's array is empty), although the format.Decoder
// contract says Decode overwrites every field.
func RoundTrip[T any](t *testing.T, recs []T, fs ...format.Format[T]) {
	t.Helper()
	for _, f := range fs {
		name := f.Descriptor().Name
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			enc, err := f.NewEncoder(&buf)
			if err != nil {
				t.Fatalf("NewEncoder: %v", err)
			}
			for i := range recs {
				if err := enc.Encode(&recs[i]); err != nil {
					t.Fatalf("Encode %d: %v", i, err)
				}
			}
			if err := enc.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			dec, err := f.NewDecoder(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("NewDecoder: %v", err)
			}
			var v T
			n := 0
			for ; ; n++ {
				var zero T
				v = zero
				err := dec.Decode(&v)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("Decode %d: %v", n, err)
				}
				if n >= len(recs) {
					t.Fatalf("decoded more than the %d records written", len(recs))
				}
				if err := nested.Diff(&v, &recs[n]); err != nil {
					t.Fatalf("record %d: %v", n, err)
				}
			}
			if n != len(recs) {
				t.Fatalf("decoded %d records, want %d", n, len(recs))
			}
			t.Logf("%d records, %d bytes", n, buf.Len())
		})
	}
}

// CheckGolden compares got with the file testdata/<name>, rewriting it first
// when -update is set.
func CheckGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *Update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Fatalf("dataset changed:\n got %s\nwant %s", got, want)
	}
}

// CheckParquetColumns fails the test unless the leaf columns parquet-go
// derives from T's struct tags are, joined with ".", exactly
// nested.Leaves[T]() in order — so a leaf path split at "." is the Parquet
// column path of that leaf.
func CheckParquetColumns[T any](t *testing.T) {
	t.Helper()
	var cols []string
	for _, c := range pq.SchemaOf(new(T)).Columns() {
		cols = append(cols, strings.Join(c, "."))
	}
	if want := nested.Leaves[T](); !slices.Equal(cols, want) {
		t.Fatalf("parquet columns %q, want the leaves %q", cols, want)
	}
}

// CheckParquetSubsets writes recs to Parquet (row groups of 64 rows), reads
// them back through nestedparquet.Schema for queries random leaf subsets
// (sizes cycling from 1 to all leaves, deterministic) and fails the test
// unless every record read equals nested.Project of the record written.
func CheckParquetSubsets[T any](t *testing.T, recs []T, queries int) {
	t.Helper()
	var buf bytes.Buffer
	w := pq.NewGenericWriter[T](&buf, pq.MaxRowsPerRowGroup(64))
	if _, err := w.Write(recs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	leaves := nested.Leaves[T]()
	rng := rand.New(rand.NewPCG(1, 2))
	for q := range queries {
		var sub []string
		for _, i := range rng.Perm(len(leaves))[:1+q%len(leaves)] {
			sub = append(sub, leaves[i])
		}
		schema, err := nestedparquet.Schema[T](sub)
		if err != nil {
			t.Fatal(err)
		}
		p, err := nested.NewProjector[T](sub)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]T, len(recs))
		if n, err := pq.NewGenericReader[T](bytes.NewReader(buf.Bytes()), schema).Read(got); n != len(recs) {
			t.Fatalf("%q: read %d rows, want %d (%v)", sub, n, len(recs), err)
		}
		for i := range recs {
			want := p.Project(&recs[i])
			if err := nested.Diff(&got[i], &want); err != nil {
				t.Fatalf("%q: record %d: %v", sub, i, err)
			}
		}
	}
}
