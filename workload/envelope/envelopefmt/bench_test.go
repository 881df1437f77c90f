package envelopefmt

import (
	"testing"

	ds "github.com/serbench/serbench/dataset/envelope"
)

// BenchmarkSubjects measures every subject's operations at the Tiny and
// XLarge payload sizes. Unmarshal decodes into a fresh message per call;
// ReadHeader reads only id, topic_id, geography and publisher.
func BenchmarkSubjects(b *testing.B) {
	for _, size := range []ds.Size{{Name: "Tiny", Bytes: ds.Tiny}, {Name: "XLarge", Bytes: ds.XLarge}} {
		e, err := ds.New(1, size.Bytes)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range Subjects() {
			p, err := s.Bind(e)
			if err != nil {
				b.Fatal(err)
			}
			if err := p.Verify(); err != nil {
				b.Fatal(err)
			}
			data := p.Encoded()
			prefix := size.Name + "/" + s.Name() + "/"
			b.Run(prefix+"Marshal", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.Marshal(); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(prefix+"MarshalReuse", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.MarshalReuse(); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(prefix+"Unmarshal", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := p.Unmarshal(data); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(prefix+"ReadHeader", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.ReadHeader(data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
