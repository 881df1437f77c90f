package dynamic

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// BenchmarkFormats encodes and decodes 20 000 generated rows of a nested
// schema with every format.
func BenchmarkFormats(b *testing.B) {
	g := &gen{r: rand.New(rand.NewPCG(42, 42)), nested: true}
	s := arrow.NewSchema(g.fields(0, 8), nil)
	rec := g.batch(s, 20000)
	defer rec.Release()
	for _, c := range Constructors() {
		f, err := c.New(s, Options{})
		if err != nil {
			continue
		}
		var buf bytes.Buffer
		b.Run(c.Name+"/encode", func(b *testing.B) {
			for b.Loop() {
				buf.Reset()
				enc, _ := f.NewEncoder(&buf)
				if err := enc.Encode(&rec); err != nil {
					b.Fatal(err)
				}
				enc.Close()
			}
			b.ReportMetric(float64(rec.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
		buf.Reset()
		enc, _ := f.NewEncoder(&buf)
		if err := enc.Encode(&rec); err != nil {
			b.Fatal(err)
		}
		enc.Close()
		data := bytes.Clone(buf.Bytes())
		b.Run(c.Name+"/decode", func(b *testing.B) {
			for b.Loop() {
				dec, err := f.NewDecoder(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				for {
					var got arrow.RecordBatch
					if err := dec.Decode(&got); err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
				}
			}
			b.ReportMetric(float64(rec.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
