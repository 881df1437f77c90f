package dynamic

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// fuzzFormats builds, for one nested schema, the formats of Constructors
// that compress themselves (compressed) or those that do not — nil in the
// place of those not fuzzed or that cannot hold the schema, so that a
// corpus entry's format index stays put — and adds to f, for each, its
// encoding of a few rows, whole and cut in half.
func fuzzFormats(f *testing.F, compressed bool) []Format {
	g := &gen{r: rand.New(rand.NewPCG(5, 5)), nested: true, special: true}
	s := g.schema()
	for s.NumFields() < 3 {
		s = g.schema()
	}
	rec := g.batch(s, 6)
	defer rec.Release()
	var formats []Format
	for _, c := range Constructors() {
		if (sibling(c.Name) != c.Name) != compressed {
			continue
		}
		ft, err := c.New(s, Options{BatchRows: 4})
		if b := sibling(c.Name); b == "arrow-stream" || b == "parquet" {
			err = errSkip
		}
		if err != nil {
			formats = append(formats, nil)
			continue
		}
		i := len(formats)
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
	return formats
}

// fuzzDecode decodes data with the format at index which (modulo the
// formats; nil ones skipped): decoding must end in data or an error, never
// a panic, a hang or an unbounded allocation.
func fuzzDecode(t *testing.T, formats []Format, which uint8, data []byte) {
	ft := formats[int(which)%len(formats)]
	if ft == nil {
		return
	}
	dec, err := ft.NewDecoder(bytes.NewReader(data))
	if err != nil {
		return
	}
	// Every row takes at least one byte: more rows than bytes means the
	// decoder is not advancing. A compressed block may hold up to
	// zstdMaxRatio bytes a byte.
	limit := int64(len(data)) + 1
	if ft.Descriptor().Compresses {
		limit *= zstdMaxRatio
	}
	var rows int64
	for rows <= limit {
		var b arrow.RecordBatch
		if err := dec.Decode(&b); err != nil {
			return // io.EOF or an error: both fine
		}
		rows += max(b.NumRows(), 1)
	}
	t.Fatalf("%s: %d rows from %d bytes", ft.Descriptor().Name, rows, len(data))
}

// FuzzDecoders feeds corrupt data to every uncompressed row format's
// decoder for one nested schema: decoding must end in data or an error,
// never a panic, a hang or an unbounded allocation. The Arrow IPC and
// Parquet decoders are left out: arrow-go sizes schema and footer metadata
// from unchecked counts (a corrupt Arrow stream makes ipc.NewReader
// allocate hundreds of GB), so they are only for trusted data — what
// serbench wrote itself. The formats that compress themselves are fuzzed
// apart (FuzzCompressed), so that this corpus's format indices stay put.
func FuzzDecoders(f *testing.F) {
	formats := fuzzFormats(f, false)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) { fuzzDecode(t, formats, which, data) })
}

// FuzzCompressed is FuzzDecoders for the row formats that compress
// themselves (avro-ocf-zstd, avro-ocf-deflate): their decoders inflate a
// block as it grows, never from a size it declares, up to a limit.
func FuzzCompressed(f *testing.F) {
	formats := fuzzFormats(f, true)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) { fuzzDecode(t, formats, which, data) })
}

var errSkip = errors.New("not fuzzed")
