package dynamic

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/serbench/serbench/format"
)

// projectors are the formats with a column-projection read: every
// Parquet and Arrow IPC format.
func projectors(t *testing.T) []Entry {
	t.Helper()
	var out []Entry
	for _, c := range Constructors() {
		if strings.HasPrefix(c.Name, "parquet") || strings.HasPrefix(c.Name, "arrow-") {
			out = append(out, c)
		}
	}
	if len(out) != 6 {
		t.Fatalf("%d Parquet and Arrow formats, want 6", len(out))
	}
	return out
}

// decodeColumns reads the columns cols of data with f's projection.
func decodeColumns(f Format, data []byte, cols []int) ([]arrow.RecordBatch, error) {
	dec, err := f.(Projector).NewColumnDecoder(bytes.NewReader(data), cols)
	if err != nil {
		return nil, err
	}
	return decodeAll(dec)
}

// TestProjectionRoundTrip: every Parquet and Arrow IPC format reads back
// any one top-level column of random schemas, flat and nested (structs
// and lists to three levels, every leaf of the column), and two columns
// in reverse order, equal to those columns of the rows written.
func TestProjectionRoundTrip(t *testing.T) {
	for _, c := range projectors(t) {
		t.Run(c.Name, func(t *testing.T) {
			nested := 0
			for seed := uint64(1); seed <= 60; seed++ {
				g := &gen{r: rand.New(rand.NewPCG(seed, 7)), nested: seed%2 == 0, special: true}
				s := g.schema()
				f, err := c.New(s, Options{BatchRows: 7})
				if err != nil {
					t.Fatalf("seed %d: schema %s: %v", seed, s, err)
				}
				if _, ok := f.(Projector); !ok {
					t.Fatalf("%s is no Projector", c.Name)
				}
				batches := []arrow.RecordBatch{g.batch(s, 5), g.batch(s, 0), g.batch(s, 13)}
				_, data, err := roundTrip(f, batches)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				projections := [][]int{}
				for k := range s.NumFields() {
					projections = append(projections, []int{k})
					if nesting(s.Field(k).Type) > 0 {
						nested++
					}
				}
				if n := s.NumFields(); n > 1 {
					projections = append(projections, []int{n - 1, 0})
				}
				for _, cols := range projections {
					want, err := Project(batches, cols)
					if err != nil {
						t.Fatal(err)
					}
					got, err := decodeColumns(f, data, cols)
					if err != nil {
						t.Fatalf("seed %d: columns %v of %s: %v", seed, cols, s, err)
					}
					if err := Compare(want, got); err != nil {
						t.Fatalf("seed %d: columns %v of %s: %v", seed, cols, s, err)
					}
					release(want)
					release(got)
				}
				release(batches)
			}
			if nested == 0 {
				t.Fatal("no nested column projected")
			}
		})
	}
}

// TestProjectionRefuses: a column out of range or named twice is an
// error, and a format without a projection read says so.
func TestProjectionRefuses(t *testing.T) {
	rec := compressible(10)
	defer rec.Release()
	for _, c := range projectors(t) {
		f, err := c.New(rec.Schema(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, data, err := roundTrip(f, []arrow.RecordBatch{rec})
		if err != nil {
			t.Fatal(err)
		}
		for _, cols := range [][]int{{3}, {-1}, {1, 1}, {}} {
			if _, err := decodeColumns(f, data, cols); err == nil {
				t.Errorf("%s: columns %v read", c.Name, cols)
			}
		}
	}
	csv, err := NewCSV(rec.Schema(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Projected(csv, []int{0}); err == nil || !strings.Contains(err.Error(), "no column-projection read") {
		t.Errorf("csv projected: %v", err)
	}
}

// countingReaderAt counts the bytes read through ReadAt and Read.
type countingReaderAt struct {
	*bytes.Reader
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.Reader.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingReaderAt) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	c.n.Add(int64(n))
	return n, err
}

var _ format.SizedReaderAt = (*countingReaderAt)(nil)

// TestParquetProjectionReadsOnlyItsColumn: a Parquet projection of one
// column reads that column's chunks and the footer, not the others'
// chunks; Projected reads as NewColumnDecoder does.
func TestParquetProjectionReadsOnlyItsColumn(t *testing.T) {
	rec := compressible(50000)
	defer rec.Release()
	for _, name := range []string{"parquet", "parquet-zstd", "parquet-snappy"} {
		var f Format
		for _, c := range Constructors() {
			if c.Name == name {
				var err error
				if f, err = c.New(rec.Schema(), Options{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		data := parquetRoundTrip(t, f, rec)
		pf, err := file.NewParquetReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		var col1, others int64
		for g := range pf.NumRowGroups() {
			rg := pf.MetaData().RowGroup(g)
			for k := range rg.NumColumns() {
				cc, err := rg.ColumnChunk(k)
				if err != nil {
					t.Fatal(err)
				}
				if k == 1 {
					col1 += cc.TotalCompressedSize()
				} else {
					others += cc.TotalCompressedSize()
				}
			}
		}
		pf.Close()
		read := func(cols []int) int64 {
			r := &countingReaderAt{Reader: bytes.NewReader(data)}
			p, err := Projected(f, cols)
			if err != nil {
				t.Fatal(err)
			}
			dec, err := p.NewDecoder(r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeAll(dec)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Project([]arrow.RecordBatch{rec}, cols)
			if err != nil {
				t.Fatal(err)
			}
			if err := Compare(want, got); err != nil {
				t.Fatal(err)
			}
			release(want)
			release(got)
			return r.n.Load()
		}
		full, one := read([]int{0, 1, 2}), read([]int{1})
		t.Logf("%s: %d bytes; column 1's chunks %d, the others' %d; read %d for all columns, %d for column 1", name, len(data), col1, others, full, one)
		if one < col1 || one > int64(len(data))-others {
			t.Errorf("%s: reading column 1 read %d bytes: want at least its chunks' %d and at most the file (%d) less the other chunks (%d)", name, one, col1, len(data), others)
		}
	}
}
