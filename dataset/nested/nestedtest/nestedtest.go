// Package nestedtest holds the test helpers the nested datasets share: the
// golden-file comparison and the Parquet column checks (through parquet-go
// itself). A dataset imports no serbench format: the round trips of the
// datasets through the formats are workload/nested/nestedfmt's tests.
package nestedtest

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/nestedparquet"
)

// Update is the -update flag of the tests: rewrite golden files.
var Update = flag.Bool("update", false, "rewrite golden files")

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
