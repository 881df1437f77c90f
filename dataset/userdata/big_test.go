package userdata

import (
	"flag"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/serbench/serbench/format/dynamic"
)

var bigFile = flag.String("bigfile", "", "read this file in TestReadBigFile and report throughput")

// TestReadBigFile streams -bigfile and logs rows/s, MB/s and the Go heap
// peak; measure the process's peak RSS around it (/usr/bin/time -v).
func TestReadBigFile(t *testing.T) {
	if *bigFile == "" {
		t.Skip("no -bigfile")
	}
	fi, err := os.Stat(*bigFile)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := Open(*bigFile, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var peak uint64
	var ms runtime.MemStats
	for r.Next() {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	el := time.Since(start).Seconds()
	t.Logf("%s: %d rows, %.1f MB in %.2fs: %.0f rows/s, %.1f MB/s (both passes: inference on %d rows + full read); Go heap in use peak %.1f MB",
		*bigFile, r.Rows(), float64(fi.Size())/1e6, el, float64(r.Rows())/el, float64(fi.Size())/1e6/el,
		DefaultInferRows, float64(peak)/1e6)
	t.Logf("schema:\n%s", FormatSchema(r.Schema(), r.Notes()))
}

// BenchmarkDynamicFormats encodes and decodes the first 100 000 rows of
// -bigfile with every dynamic format that can hold them, reporting rows/s
// and the encoded size.
func BenchmarkDynamicFormats(b *testing.B) {
	if *bigFile == "" {
		b.Skip("no -bigfile")
	}
	d, err := ReadAll(*bigFile, Options{Limit: 100_000})
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
				dec, err := f.NewDecoder(newBytesReader(enc.b))
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
