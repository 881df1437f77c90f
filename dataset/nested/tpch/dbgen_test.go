package tpch_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/serbench/serbench/dataset/nested"
	"github.com/serbench/serbench/dataset/nested/nestedtest"
	"github.com/serbench/serbench/dataset/nested/tpch"
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
		recs, err := tpch.GenerateLineItems(context.Background(), goldenLines)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		dbgenRecs = recs
	}
	os.Exit(m.Run())
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

func TestParquetColumns(t *testing.T) {
	nestedtest.CheckParquetColumns[tpch.LineItem](t)
}

func TestParquetSubsets(t *testing.T) {
	if dbgenRecs == nil {
		t.Skip("-short: no dbgen child")
	}
	nestedtest.CheckParquetSubsets(t, dbgenRecs[:300], 60)
}

// TestSeedSample checks record 0 against the sample record the seed prints,
// leaf by leaf. The seed's sample names the customer's nation FRANCE in
// EUROPE, yet its comments and phone prefix (20-, nation key 10) are TPC-H's
// IRAN in MIDDLE EAST, which is what dbgen joins; those two names are the
// only difference.
func TestSeedSample(t *testing.T) {
	if dbgenRecs == nil {
		t.Skip("-short: no dbgen child")
	}
	want := tpch.LineItem{
		ReceiptDate: "1996-03-22", ReturnFlag: "N",
		Supplier: tpch.Supplier{Name: "Supplier#000000785", Address: "W VkHBpQyD3qjQjWGpWicOpmILFehmEdWy67kUGY",
			Nation: tpch.Nation{Name: "RUSSIA",
				Region:  tpch.Region{Name: "EUROPE", Comment: "ly final courts cajole furiously final excuse"},
				Comment: " requests against the platelets use never according to the quickly regular pint"},
			Phone: "32-297-653-2203", AccountBalance: 5364.99, Comment: " packages boost carefully. express ideas along"},
		ShipDate: "1996-03-13", ShipMode: "TRUCK",
		Part: tpch.Part{Name: "powder wheat midnight mint salmon", Manufacturer: "Manufacturer#4", Brand: "Brand#44",
			Type: "SMALL ANODIZED STEEL", Size: 42, Container: "JUMBO CASE", RetailPrice: 1434.51,
			Comment: "e carefully expre"},
		ShipInstruct: "DELIVER IN PERSON", CommitDate: "1996-02-12", Tax: 0.02, Comment: "egular courts above the",
		ExtendedPrice: 24386.67,
		Order: tpch.Order{
			Customer: tpch.Customer{Name: "Customer#000003691", Address: "la3aZ2dd41O3lCSTPnbU",
				Nation: tpch.Nation{Name: "IRAN", // the seed's sample: FRANCE
					Region: tpch.Region{Name: "MIDDLE EAST", // the seed's sample: EUROPE
						Comment: "uickly special accounts cajole carefully blithely close requests. carefully final asymptotes haggle furiousl"},
					Comment: "efully alongside of the slyly final dependencies. "},
				Phone: "20-758-985-1035", AccountBalance: 7967.22, MarketSegment: "MACHINERY",
				Comment: "ublate furiously alongside of the pinto bean"},
			OrderStatus: "O", TotalPrice: 194029.55, OrderDate: "1996-01-02", OrderPriority: "5-LOW",
			Clerk: "Clerk#000000951", ShipPriority: 0, Comment: "nstructions sleep furiously among "},
		Quantity: 17, Discount: 0.04, LineNumber: 1, LineStatus: "O",
	}
	if err := tpch.Diff(&dbgenRecs[0], &want); err != nil {
		t.Fatal(err)
	}
}
