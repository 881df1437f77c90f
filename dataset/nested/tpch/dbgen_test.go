package tpch_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/nestedtest"
	"github.com/serbench/serbench/dataset/nested/tpch"
	"github.com/serbench/serbench/dataset/nested/tpch/pb"
	"github.com/serbench/serbench/format/msgp"
	"github.com/serbench/serbench/format/protobuf"
)

// goldenLines is how many line items the tests generate through dbgen.
const goldenLines = 2000

// dbgenRecs are the first goldenLines line items, generated once per test
// binary by TestMain through the real path (a dbgen child process: this test
// binary re-executed); nil under -short.
var dbgenRecs []tpch.LineItem

// TestMain lets the test binary serve as the dbgen child and generates the
// line items the dbgen tests share (about 10 s, mostly dbgen's start-up).
func TestMain(m *testing.M) {
	tpch.RunChildIfRequested()
	flag.Parse()
	if !testing.Short() {
		recs, err := generate()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		dbgenRecs = recs
	}
	os.Exit(m.Run())
}

// generate runs the dbgen child for goldenLines line items.
func generate() ([]tpch.LineItem, error) {
	dir, err := os.MkdirTemp("", "tpch-test")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tables.bin")
	var out strings.Builder
	if err := tpch.GenerateFile(context.Background(), tpch.Options{Output: &out}, path, goldenLines); err != nil {
		return nil, fmt.Errorf("%w\nchild output:\n%s", err, out.String())
	}
	tb, err := tpch.LoadFile(path)
	if err != nil {
		return nil, err
	}
	if tb.Len() != goldenLines {
		return nil, fmt.Errorf("child wrote %d line items, want %d", tb.Len(), goldenLines)
	}
	return tb.Slice(goldenLines), nil
}

// golden returns the golden text of line items: the canonical hash and the
// first record in readable form.
func golden(t *testing.T, recs []tpch.LineItem) string {
	t.Helper()
	first, err := json.MarshalIndent(recs[0], "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return nested.Hash(recs) + "\n" + string(first) + "\n"
}

// TestGoldenDbgen pins the first 2,000 line items as dbgen generates them.
func TestGoldenDbgen(t *testing.T) {
	if dbgenRecs == nil {
		t.Skip("-short: no dbgen child")
	}
	nestedtest.CheckGolden(t, "golden.txt", golden(t, dbgenRecs))
}

// TestFull generates (or loads from the user's cache) the full dataset and
// checks that its prefix is the golden one (Load checks FullSHA256). It runs
// only when SERBENCH_TPCH_FULL is set and -short is off.
func TestFull(t *testing.T) {
	if testing.Short() || os.Getenv("SERBENCH_TPCH_FULL") == "" {
		t.Skip("set SERBENCH_TPCH_FULL=1 (without -short) to generate the full dataset")
	}
	var out strings.Builder
	tb, err := tpch.Load(context.Background(), tpch.Options{Output: &out})
	if err != nil {
		t.Fatalf("%v\nchild output:\n%s", err, out.String())
	}
	if tb.Len() != tpch.FullRecords {
		t.Fatalf("Len = %d, want %d", tb.Len(), tpch.FullRecords)
	}
	nestedtest.CheckGolden(t, "golden.txt", golden(t, tb.Slice(goldenLines)))
}

func TestRoundTrip(t *testing.T) {
	if dbgenRecs == nil {
		t.Skip("-short: no dbgen child")
	}
	fs := nestedtest.GenericFormats[tpch.LineItem](t, tpch.AvroSchema())
	fs = append(fs, protobuf.New("protobuf", pb.Mapping()), msgp.New[tpch.LineItem]())
	nestedtest.RoundTrip(t, dbgenRecs[:300], fs...)
}

func TestParquetColumns(t *testing.T) {
	nestedtest.CheckParquetColumns[tpch.LineItem](t)
}

func TestParquetSubsets(t *testing.T) {
	if dbgenRecs == nil {
		t.Skip("-short: no dbgen child")
	}
	nestedtest.CheckParquetSubsets(t, dbgenRecs[:300], 60)
}
