package dynamic

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// FuzzDecoders feeds corrupt data to every row format's decoder for one
// nested schema: decoding must end in data or an error, never a panic, a
// hang or an unbounded allocation. The Arrow IPC and Parquet decoders are
// left out: arrow-go sizes schema and footer metadata from unchecked counts
// (a corrupt Arrow stream makes ipc.NewReader allocate hundreds of GB), so
// they are only for trusted data — what serbench wrote itself.
func FuzzDecoders(f *testing.F) {
	g := &gen{r: rand.New(rand.NewPCG(5, 5)), nested: true, special: true}
	s := g.schema()
	for s.NumFields() < 3 {
		s = g.schema()
	}
	rec := g.batch(s, 6)
	defer rec.Release()
	var formats []Format
	for i, c := range Constructors() {
		ft, err := c.New(s, Options{BatchRows: 4})
		if c.Name == "arrow-stream" || c.Name == "parquet" {
			err = errSkip
		}
		if err != nil {
			formats = append(formats, nil)
			continue
		}
		formats = append(formats, ft)
		_, data, err := roundTrip(ft, []arrow.RecordBatch{rec})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
		if len(data) > 8 {
			f.Add(uint8(i), data[:len(data)/2])
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		ft := formats[int(which)%len(formats)]
		if ft == nil {
			return
		}
		dec, err := ft.NewDecoder(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Every row takes at least one byte: more rows than bytes means
		// the decoder is not advancing.
		var rows int64
		for rows <= int64(len(data))+1 {
			var b arrow.RecordBatch
			if err := dec.Decode(&b); err != nil {
				return // io.EOF or an error: both fine
			}
			rows += max(b.NumRows(), 1)
		}
		t.Fatalf("%s: %d rows from %d bytes", ft.Descriptor().Name, rows, len(data))
	})
}

var errSkip = errors.New("not fuzzed")
