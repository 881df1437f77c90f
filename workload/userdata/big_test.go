package userdata

import (
	"flag"
	"os"
	"runtime"
	"testing"
	"time"
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
