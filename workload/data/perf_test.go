package data

import (
	"context"
	"flag"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/filebench"
	"github.com/serbench/serbench/format/dynamic"
	"github.com/serbench/serbench/workload/filecase"
	"github.com/serbench/serbench/workload/userdata"
)

var perfInput = flag.String("perf-input", "", "input file of BenchmarkReadVerify (e.g. a -gen-records file)")

// BenchmarkReadVerify writes -perf-input (its first 1M rows) with each
// format, codec none, then times reading it back with and without the
// row-by-row verification, to tell the decoder's cost from the Verifier's.
func BenchmarkReadVerify(b *testing.B) {
	if *perfInput == "" {
		b.Skip("no -perf-input")
	}
	d, err := userdata.ReadAll(*perfInput, userdata.Options{Limit: 1_000_000})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Release()
	in := &input{data: d, rows: d.Rows, schema: d.Schema}
	for _, name := range []string{"arrow-stream", "csv", "jsonl", "msgpack", "avro-ocf"} {
		for _, c := range dynamic.Constructors() {
			if c.Name != name {
				continue
			}
			f, err := c.New(d.Schema, dynamic.Options{})
			if err != nil {
				b.Fatal(err)
			}
			p := newPair(in, &filecase.Files{Dir: b.TempDir()}, name, f, codec.Default().MustParse("none"))
			if err := p.Prepare(); err != nil {
				b.Fatal(err)
			}
			b.Run(name+"/read+verify", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := p.read(p.Path, d.Batches); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(name+"/decode-only", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := readNoVerify(p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func readNoVerify(p *pair) (int64, error) {
	var rows int64
	_, err := filebenchRead(p, func(n int64) { rows += n })
	return rows, err
}

func filebenchRead(p *pair, count func(int64)) (any, error) {
	return filebench.Read(context.Background(), p.Path, p.format, p.Codec, -1,
		func(_ int, got *arrow.RecordBatch) error { count((*got).NumRows()); return nil }, filebench.Options{})
}
