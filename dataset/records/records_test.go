package records

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/quick"
	"unsafe"
)

var update = flag.Bool("update", false, "rewrite golden files")

// canonicalHash hashes records in a fixed binary layout independent of any
// serialization library.
func canonicalHash(rs []Record) string {
	h := sha256.New()
	var b []byte
	for _, r := range rs {
		b = b[:0]
		b = binary.LittleEndian.AppendUint64(b, uint64(r.ID))
		for _, s := range []string{r.Name, r.Email, r.Category} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(r.Age))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.Score))
		if r.Active {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(r.Timestamp))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestGolden pins the dataset: the hash of the first 2,000 records and the
// first three records in readable form. A change here changes every result.
func TestGolden(t *testing.T) {
	rs := New(DefaultSeed).Slice(2000)
	first, err := json.MarshalIndent(rs[:3], "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got := canonicalHash(rs) + "\n" + string(first) + "\n"
	path := filepath.Join("testdata", "golden.txt")
	if *update {
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

func TestIteratorsAgree(t *testing.T) {
	g := New(DefaultSeed)
	want := g.Slice(1000)
	i := 0
	for j, r := range g.All(1000) {
		if j != i || !Equal(r, &want[i]) {
			t.Fatalf("All: record %d differs: %s", i, Diff(r, &want[i]))
		}
		i++
	}
	if i != 1000 {
		t.Fatalf("All yielded %d records", i)
	}
	i = 0
	for r := range g.Records(1000) {
		if !Equal(r, &want[i]) {
			t.Fatalf("Records: record %d differs", i)
		}
		i++
	}
	for _, size := range []int{1, 7, 1000, 4096} {
		i = 0
		for c := range g.Chunks(1000, size) {
			for k := range c {
				if !Equal(&c[k], &want[i]) {
					t.Fatalf("Chunks(%d): record %d differs", size, i)
				}
				i++
			}
		}
		if i != 1000 {
			t.Fatalf("Chunks(%d) yielded %d records", size, i)
		}
	}
	// Early stop must not panic or continue.
	n := 0
	for range g.All(1000) {
		n++
		if n == 5 {
			break
		}
	}
}

// TestDeterministic checks the property that a record depends only on the
// seed and its index, and that distinct seeds give distinct data.
func TestDeterministic(t *testing.T) {
	a, b := New(42), New(42)
	f := func(i uint32) bool {
		var x, y Record
		a.At(int(i%5_000_000), &x)
		b.At(int(i%5_000_000), &y)
		return Equal(&x, &y) && x.ID == int64(i%5_000_000)+1
	}
	if err := quick.Check(f, nil); err != nil {
		t.Fatal(err)
	}
	if canonicalHash(New(1).Slice(100)) == canonicalHash(New(2).Slice(100)) {
		t.Fatal("seeds 1 and 2 generate the same records")
	}
}

// TestShape checks the record shape the seed describes: Name ~20 chars, Email
// ~30, Category ~10 from a small set, plausible ages and scores, increasing
// timestamps.
func TestShape(t *testing.T) {
	rs := New(DefaultSeed).Slice(2000)
	var name, email, cat float64
	cats := map[string]bool{}
	for i, r := range rs {
		name += float64(len(r.Name))
		email += float64(len(r.Email))
		cat += float64(len(r.Category))
		cats[r.Category] = true
		if r.Age < 18 || r.Age > 80 || r.Score < 0 || r.Score > 100 || !strings.Contains(r.Email, "@") {
			t.Fatalf("record %d implausible: %+v", i, r)
		}
		if i > 0 && r.Timestamp <= rs[i-1].Timestamp {
			t.Fatalf("timestamps not increasing at %d", i)
		}
	}
	n := float64(len(rs))
	for _, c := range []struct {
		what     string
		avg      float64
		min, max float64
	}{{"Name", name / n, 16, 24}, {"Email", email / n, 26, 36}, {"Category", cat / n, 8, 12}} {
		if c.avg < c.min || c.avg > c.max {
			t.Errorf("average %s length %.1f outside [%v, %v]", c.what, c.avg, c.min, c.max)
		}
	}
	if len(cats) != len(Categories()) {
		t.Errorf("%d categories used, want %d", len(cats), len(Categories()))
	}
}

func TestVerify(t *testing.T) {
	g := New(DefaultSeed)
	v := g.Verify()
	rs := g.Slice(10)
	for i := range rs {
		if err := v(i, &rs[i]); err != nil {
			t.Fatal(err)
		}
	}
	bad := rs[3]
	bad.Score = math.Nextafter(bad.Score, 200)
	if err := v(3, &bad); err == nil || !strings.Contains(err.Error(), "Score") {
		t.Fatalf("one-ulp Score change: err = %v", err)
	}
	if err := v(4, &rs[3]); err == nil {
		t.Fatal("record 3 accepted as record 4")
	}
}

func TestAvroSchemaIsJSON(t *testing.T) {
	var v map[string]any
	if err := json.Unmarshal([]byte(AvroSchema()), &v); err != nil {
		t.Fatal(err)
	}
	if fs, _ := v["fields"].([]any); len(fs) != 8 {
		t.Fatalf("schema has %d fields, want 8", len(fs))
	}
}

// BenchmarkGenerate measures generating one record.
func BenchmarkGenerate(b *testing.B) {
	g := New(DefaultSeed)
	var r Record
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		g.At(i, &r)
	}
}

// TestTableMatchesGenerator: every record of a Table equals the
// generator's, through At, Records and Verify.
func TestTableMatchesGenerator(t *testing.T) {
	g := New(DefaultSeed)
	const n = 20_000
	tab, err := NewTable(g, n)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != n {
		t.Fatalf("Len %d", tab.Len())
	}
	want := g.Slice(n)
	verify := tab.Verify()
	i := 0
	for r := range tab.Records(n + 5) {
		if !Equal(r, &want[i]) {
			t.Fatalf("record %d: %s", i, Diff(r, &want[i]))
		}
		if err := verify(i, &want[i]); err != nil {
			t.Fatal(err)
		}
		i++
	}
	if i != n {
		t.Fatalf("Records yielded %d, want %d", i, n)
	}
	bad := want[7]
	bad.Email += "x"
	for _, tc := range []struct {
		i int
		r *Record
	}{{7, &bad}, {-1, &want[0]}, {n, &want[0]}, {8, &want[7]}} {
		if err := verify(tc.i, tc.r); err == nil {
			t.Errorf("Verify(%d) accepted a wrong record", tc.i)
		}
	}
	if _, err := NewTable(g, -1); err == nil {
		t.Error("NewTable(-1) succeeded")
	}
}

// TestTableAt holds At to its promise: no allocation, and a packed row of 16
// bytes.
func TestTableAt(t *testing.T) {
	tab, err := NewTable(New(DefaultSeed), 1000)
	if err != nil {
		t.Fatal(err)
	}
	var r Record
	if a := testing.AllocsPerRun(100, func() { tab.At(999, &r) }); a != 0 {
		t.Errorf("At allocates %v times", a)
	}
	if s := unsafe.Sizeof(packedRecord{}); s != 16 {
		t.Errorf("packedRecord is %d bytes, want 16", s)
	}
}
