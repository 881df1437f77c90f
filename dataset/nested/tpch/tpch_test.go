package tpch

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/dataset/nested"
)

func TestLeaves(t *testing.T) {
	ls := Leaves()
	if len(ls) != 47 {
		t.Fatalf("%d leaves, want 47: %q", len(ls), ls)
	}
	for _, l := range []string{"order.customer.nation.region.name", "order.customer.market_segment",
		"order.clerk", "part.retail_price", "supplier.nation.region.comment", "ship_mode", "comment"} {
		if !slices.Contains(ls, l) {
			t.Errorf("no leaf %q", l)
		}
	}
	t.Logf("tpch: %d leaves", len(ls))
}

// sampleTables is a tiny hand-made Tables of two line items.
func sampleTables() *Tables {
	return &Tables{
		regions: []Region{{"EUROPE", "r0"}, {"ASIA", "r1"}},
		nations: []nationRow{{"FRANCE", "n0", 0}, {"JAPAN", "n1", 1}},
		suppliers: []partyRow{{name: "Supplier#1", address: "a", phone: "p", comment: "c", nation: 1,
			balance: -37971}},
		customers: []partyRow{{name: "Customer#1", address: "a", phone: "p", segment: "MACHINERY",
			comment: "c", nation: 0, balance: 796722}},
		parts: []Part{{Name: "powder", Manufacturer: "Manufacturer#4", Brand: "Brand#44",
			Type: "SMALL ANODIZED STEEL", Size: 42, Container: "JUMBO CASE", RetailPrice: 1434.51, Comment: "e"}},
		orders: []orderRow{{customer: 0, status: "O", date: "1996-01-02", priority: "5-LOW",
			clerk: "Clerk#000000951", comment: "n", totalPrice: 19402955}},
		lines: []lineRow{
			{order: 0, part: 0, supplier: 0, lineNumber: 1, quantity: 17, extendedPrice: 2438667, discount: 4,
				tax: 2, returnFlag: "N", lineStatus: "O", shipDate: "1996-03-13", commitDate: "1996-02-12",
				receiptDate: "1996-03-22", shipInstruct: "DELIVER IN PERSON", shipMode: "TRUCK", comment: "egular courts above the"},
			{order: 0, part: 0, supplier: 0, lineNumber: 2, quantity: 36, extendedPrice: 5164236, discount: 9,
				tax: 6, returnFlag: "N", lineStatus: "O", shipDate: "1996-04-12", commitDate: "1996-02-28",
				receiptDate: "1996-04-20", shipInstruct: "TAKE BACK RETURN", shipMode: "MAIL", comment: "ly final dependencies"},
		},
	}
}

func TestTablesJoinAndEncoding(t *testing.T) {
	tb := sampleTables()
	recs := tb.Slice(10)
	if len(recs) != 2 {
		t.Fatalf("Slice(10) = %d records, want 2", len(recs))
	}
	r := recs[0]
	if r.Order.Customer.Nation.Region.Name != "EUROPE" || r.Supplier.Nation.Name != "JAPAN" ||
		r.Supplier.AccountBalance != -379.71 || r.Discount != 0.04 || r.ExtendedPrice != 24386.67 ||
		r.Order.TotalPrice != 194029.55 || r.Part.Size != 42 {
		t.Fatalf("bad join: %+v", r)
	}
	data := tb.Marshal()
	back, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Slice(2); nested.Hash(got) != nested.Hash(recs) {
		t.Fatal("tables changed through Marshal/Unmarshal")
	}
	for i, r := range back.All(1) {
		if i != 0 || !Equal(r, &recs[0]) {
			t.Fatalf("All: record %d differs", i)
		}
	}
	if p := back.Prefix(1); p.Len() != 1 || back.Len() != 2 {
		t.Fatal("Prefix")
	}

	// Every single-byte corruption and every truncation is caught.
	for i := range data {
		bad := slices.Clone(data)
		bad[i] ^= 0x40
		if _, err := Unmarshal(bad); err == nil {
			t.Fatalf("corrupt byte %d: no error", i)
		}
	}
	for n := range len(data) {
		if _, err := Unmarshal(data[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
}

func TestLoadOrGenerate(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "tables.bin")
	good := sampleTables().Marshal()
	want := strings.ToLower(hexTail(good))
	calls := 0
	gen := func(_ context.Context, p string) error {
		calls++
		return os.WriteFile(p, good, 0o644)
	}

	// Missing: generated, renamed into place, no temp files left.
	if _, err := loadOrGenerate(ctx, path, 2, want, gen); err != nil || calls != 1 {
		t.Fatalf("missing file: err %v, %d generations", err, calls)
	}
	// Present and good: reused.
	if _, err := loadOrGenerate(ctx, path, 2, want, gen); err != nil || calls != 1 {
		t.Fatalf("cached file: err %v, %d generations", err, calls)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("cache dir holds %d entries, want 1", len(entries))
	}
	// Corrupt: regenerated.
	bad := slices.Clone(good)
	bad[len(bad)/2] ^= 1
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadOrGenerate(ctx, path, 2, want, gen); err != nil || calls != 2 {
		t.Fatalf("corrupt file: err %v, %d generations", err, calls)
	}
	// Wrong length or hash: an error once regenerated data does not match.
	if _, err := loadOrGenerate(ctx, path, 3, want, gen); err == nil {
		t.Fatal("wrong line count: no error")
	}
	if _, err := loadOrGenerate(ctx, path, 2, strings.Repeat("0", 64), gen); err == nil {
		t.Fatal("wrong hash: no error")
	}
	// Stale temporary files are removed, fresh ones (another process
	// generating) kept.
	stale, fresh := path+".tmp1", path+".tmp2"
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * staleAge)
	if err := os.Chtimes(stale, long, long); err != nil {
		t.Fatal(err)
	}
	os.Remove(path) // the wrong-hash case above removed it already
	if _, err := loadOrGenerate(ctx, path, 2, want, gen); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("stale temporary file kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("fresh temporary file removed")
	}
	// Generation failing.
	failing := func(context.Context, string) error { return errors.New("boom") }
	if _, err := loadOrGenerate(ctx, filepath.Join(dir, "other.bin"), 2, want, failing); err == nil ||
		!strings.Contains(err.Error(), "boom") {
		t.Fatalf("failing generator: err %v", err)
	}
}

// hexTail returns the hex checksum that ends a tables file.
func hexTail(data []byte) string {
	const hexdigits = "0123456789abcdef"
	var b strings.Builder
	for _, c := range data[len(data)-32:] {
		b.WriteByte(hexdigits[c>>4])
		b.WriteByte(hexdigits[c&15])
	}
	return b.String()
}

func TestChildNotWired(t *testing.T) {
	// A binary that ignores the child variables writes nothing: the error says why.
	err := GenerateFile(context.Background(), Options{Executable: "/bin/true"}, filepath.Join(t.TempDir(), "x"), 1)
	if err == nil || !strings.Contains(err.Error(), "RunChildIfRequested") {
		t.Fatalf("err = %v", err)
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg")
	if d, err := DefaultCacheDir(); err != nil || d != "/tmp/xdg/serbench" {
		t.Fatalf("DefaultCacheDir = %q, %v", d, err)
	}
	if !strings.Contains(FileName(), FullSHA256[:16]) {
		t.Fatalf("FileName %q lacks the dataset hash", FileName())
	}
}

func TestProject(t *testing.T) {
	r := sampleTables().Slice(1)[0]
	tests := []struct {
		leaves []string
		want   LineItem
	}{
		{[]string{"order.customer.nation.region.name"},
			LineItem{Order: Order{Customer: Customer{Nation: Nation{Region: Region{Name: "EUROPE"}}}}}},
		{[]string{"tax", "supplier.account_balance", "part.size"},
			LineItem{Tax: 0.02, Supplier: Supplier{AccountBalance: -379.71}, Part: Part{Size: 42}}},
		{nil, LineItem{}},
		{Leaves(), r},
	}
	for _, tt := range tests {
		got, err := Project(&r, tt.leaves)
		if err != nil {
			t.Fatal(err)
		}
		if err := Diff(&got, &tt.want); err != nil {
			t.Errorf("Project(%q): %v", tt.leaves, err)
		}
	}
	if _, err := NewProjector([]string{"order.customer"}); err == nil {
		t.Error("group accepted as a leaf")
	}
}

func TestChildFailureMessage(t *testing.T) {
	// The test binary is the child (TestMain): asked for a negative count it
	// fails at once, and its message ends up in the error.
	err := GenerateFile(context.Background(), Options{}, filepath.Join(t.TempDir(), "x"), -1)
	if err == nil || !strings.Contains(err.Error(), "negative line count") {
		t.Fatalf("err = %v", err)
	}
	var w tailWriter
	w.max = 4
	w.Write([]byte("abcdef"))
	w.Write([]byte("gh"))
	if string(w.b) != "efgh" {
		t.Fatalf("tail %q", w.b)
	}
}

// FuzzUnmarshal feeds the decoder arbitrary bodies with a valid checksum: it
// must return an error or tables, never panic.
func FuzzUnmarshal(f *testing.F) {
	good := sampleTables().Marshal()
	f.Add(good[len(fileMagic) : len(good)-sha256.Size])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		data := append([]byte(fileMagic), body...)
		sum := sha256.Sum256(data)
		tb, err := Unmarshal(append(data, sum[:]...))
		if err == nil {
			tb.Slice(tb.Len())
		}
	})
}

func TestScaleFactorMapping(t *testing.T) {
	// The seed's first order: customer 36901 at SF 1 is 3691 at SF 0.1.
	if got := sf01CustKey(36901); got != 3691 {
		t.Errorf("sf01CustKey(36901) = %d, want 3691", got)
	}
	for k := int64(1); k <= 150_000; k++ {
		c := sf01CustKey(k)
		if c < 1 || c > sf01Customers || c%3 == 0 {
			t.Fatalf("sf01CustKey(%d) = %d", k, c)
		}
	}
	if sf01Key(1) != 1 || sf01Key(10) != 1 || sf01Key(11) != 2 || sf01Key(200_000) != sf01Parts {
		t.Error("sf01Key")
	}
	// TPC-H part 1 costs 901.00.
	if retailPrice(1) != 90100 {
		t.Errorf("retailPrice(1) = %d", retailPrice(1))
	}
	for p := int64(1); p <= 200_000; p += 997 {
		for s := range int64(suppPerPart) {
			if n, ok := suppNumber(p, suppBridge(p, s, sf1Suppliers)); !ok || n != s {
				t.Fatalf("suppNumber(%d, bridge %d) = %d, %t", p, s, n, ok)
			}
			if k := suppBridge(sf01Key(p), s, sf01Suppliers); k < 1 || k > sf01Suppliers {
				t.Fatalf("SF 0.1 supplier %d out of range", k)
			}
		}
	}
	// The seed's first line: 17 × 1434.51 less 4%, plus 2% tax.
	if got := lineTotal(17*143451, 4, 2); got != 2438667*96/100*102/100 {
		t.Errorf("lineTotal = %d", got)
	}
}
