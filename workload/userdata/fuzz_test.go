package userdata

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The fuzz targets feed arbitrary bytes to the binary readers: whatever the
// bytes declare, Open and Next must return (an error is fine) without
// crashing the process, and without allocating through the Arrow allocator
// far more than the input holds. Crashers found are kept under
// testdata/fuzz/<target> and replayed by go test.
//
//	go test ./workload/userdata -run '^$' -fuzz '^FuzzAvro$' -fuzztime 60s -fuzzminimizetime 10s -parallel 1

// boundedAllocator is a Go allocator that records any allocation larger
// than max.
type boundedAllocator struct {
	memory.Allocator
	max     int
	biggest atomic.Int64
}

func (b *boundedAllocator) Allocate(n int) []byte {
	if int64(n) > b.biggest.Load() {
		b.biggest.Store(int64(n))
	}
	return b.Allocator.Allocate(n)
}

func (b *boundedAllocator) Reallocate(n int, p []byte) []byte {
	if int64(n) > b.biggest.Load() {
		b.biggest.Store(int64(n))
	}
	return b.Allocator.Reallocate(n, p)
}

// fuzzRead reads data saved as a file named name with small batches and a
// row limit, and fails on an allocation of more than 64 MiB.
func fuzzRead(t *testing.T, name string, data []byte) {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	alloc := &boundedAllocator{Allocator: memory.NewGoAllocator(), max: 64 << 20}
	r, err := Open(p, Options{BatchSize: 64, Limit: 1000, Allocator: alloc, TempDir: t.TempDir()})
	if err == nil {
		for r.Next() {
		}
		err = r.Err()
		r.Close()
	}
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Errorf("error of more than one line: %q", err)
	}
	if b := alloc.biggest.Load(); b > int64(alloc.max) {
		t.Errorf("an allocation of %d bytes for %d bytes of input", b, len(data))
	}
}

// seeds adds the files of testdata and testdata/hostile whose names end
// with one of exts.
func seeds(f *testing.F, exts ...string) {
	for _, dir := range []string{"testdata", hostileDir} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			f.Fatal(err)
		}
		for _, e := range ents {
			for _, ext := range exts {
				if strings.HasSuffix(e.Name(), ext) {
					b, err := os.ReadFile(filepath.Join(dir, e.Name()))
					if err != nil {
						f.Fatal(err)
					}
					f.Add(b)
				}
			}
		}
	}
}

func FuzzAvro(f *testing.F) {
	seeds(f, ".avro")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "x.avro", data) })
}

func FuzzParquet(f *testing.F) {
	seeds(f, ".parquet")
	f.Add(parquetChunkBomb())
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "x.parquet", data) })
}

func FuzzArrow(f *testing.F) {
	seeds(f, ".arrow", ".arrows")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "x.arrow", data)  // the file format, else a stream
		fuzzRead(t, "x.arrows", data) // a stream
	})
}

// FuzzJSONRecords feeds arbitrary bytes as a .json input, and as the
// member array of a top-level object (Options.Records): no crash, one-line
// errors, and an array read as a member gives the rows it gives at the top
// level.
//
//	go test ./workload/userdata -run '^$' -fuzz '^FuzzJSONRecords$' -fuzztime 60s -parallel 1
func FuzzJSONRecords(f *testing.F) {
	seeds(f, ".json")
	for _, s := range []string{`[{"a":1},{"a":[1,{"b":"]"}]}]`, `{"r":[{"a":1}]}`, `[]`, `[1]`, `{"a":{"b":[{"c":{"d":1}}]}}`, `[{"m":{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8}}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		read := func(name, records string, content []byte) (*Data, error) {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, content, 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := ReadAll(p, Options{BatchSize: 64, Limit: 1000, Records: records})
			if err != nil && strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("error of more than one line: %q", err)
			}
			return d, err
		}
		top, err := read("top.json", "", data)
		if d, err := read("member.json", "a.b", data); err == nil {
			d.Release()
		}
		if err != nil {
			return
		}
		defer top.Release()
		wrapped := append(append([]byte(`{"pre":[1,{"x":"]}"}],"a":{"b":`), data...), `},"post":{"y":[]}}`...)
		m, err := read("wrapped.json", "a.b", wrapped)
		if err != nil {
			if data[0] == '[' || data[0] == ' ' {
				t.Logf("wrapped: %v", err) // the top level may have been JSON Lines content
			}
			return
		}
		defer m.Release()
		if m.Rows != top.Rows || !m.Schema.Equal(top.Schema) {
			t.Errorf("as a member: %d rows %s; at the top level: %d rows %s", m.Rows, m.Schema, top.Rows, top.Schema)
		}
	})
}
