package filebench_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/serbench/serbench/dataset/records"
	"github.com/serbench/serbench/filebench"
)

const benchRecords = 100_000

// benchCases are the format × codec pairs benchmarked here; the workload
// measures the full matrix.
var benchCases = []struct{ format, codec string }{{"jsonl", "zstd"}, {"msgpack", "zstd"}, {"flatbuffers", "none"}, {"msgpack-msgp", "none"}}

func BenchmarkWrite(b *testing.B) {
	fx := setup(b)
	dir := b.TempDir()
	for _, bc := range benchCases {
		f, _ := fx.formats.Get(bc.format)
		c := fx.codecs.MustParse(bc.codec)
		b.Run(bc.format+"-"+bc.codec, func(b *testing.B) {
			path := filepath.Join(dir, "w")
			var st filebench.WriteStats
			for b.Loop() {
				var err error
				if st, err = filebench.Write(context.Background(), path, f, c, fx.gen.Records(benchRecords), filebench.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(st.FileBytes), "file-bytes")
			b.ReportMetric(float64(st.Heap.PeakDelta()), "peak-heap-bytes")
		})
	}
	b.Run("bare-jsonl-zstd", func(b *testing.B) {
		path := filepath.Join(dir, "bare")
		for b.Loop() {
			if _, err := filebench.BareJSONLZstdWrite(path, fx.gen.Records(benchRecords)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bare-msgp-none", func(b *testing.B) {
		path := filepath.Join(dir, "bare")
		for b.Loop() {
			if _, err := filebench.BareMsgpWrite(path, fx.gen.Records(benchRecords)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkRead(b *testing.B) {
	fx := setup(b)
	dir := b.TempDir()
	for _, bc := range benchCases {
		f, _ := fx.formats.Get(bc.format)
		c := fx.codecs.MustParse(bc.codec)
		path := filepath.Join(dir, bc.format+"."+bc.codec)
		if _, err := filebench.Write(context.Background(), path, f, c, fx.gen.Records(benchRecords), filebench.Options{}); err != nil {
			b.Fatal(err)
		}
		b.Run(bc.format+"-"+bc.codec, func(b *testing.B) {
			for b.Loop() {
				if _, err := filebench.Read(context.Background(), path, f, c, benchRecords, fx.gen.Verify(), filebench.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.format+"-"+bc.codec+"-decompress-only", func(b *testing.B) {
			for b.Loop() {
				if _, err := filebench.Decompress(context.Background(), path, c, filebench.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	path := filepath.Join(dir, "jsonl.zstd")
	b.Run("read-file-only", func(b *testing.B) {
		for b.Loop() {
			if _, err := filebench.ReadFile(context.Background(), path, filebench.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkVerifyOnly is the cost of regenerating and comparing records, part
// of every Read figure.
func BenchmarkVerifyOnly(b *testing.B) {
	g := records.New(records.DefaultSeed)
	var r records.Record
	for b.Loop() {
		v := g.Verify()
		for i := 0; i < benchRecords; i++ {
			g.At(i, &r)
			if err := v(i, &r); err != nil {
				b.Fatal(err)
			}
		}
	}
}
