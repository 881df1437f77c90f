package dynamic

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestRangeEqualAgreesWithValues: the Verifier's fast path never calls
// equal what the value-by-value comparison calls different, on random
// schemas (nested, NULLs, NaN, -0) compared with themselves at shifted
// slices and with other random batches of the same schema.
func TestRangeEqualAgreesWithValues(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		g := &gen{r: rand.New(rand.NewPCG(seed, 11)), nested: true, special: true}
		s := g.schema()
		a := g.batch(s, 40)
		b := g.batch(s, 40)
		for c := 0; c < int(a.NumCols()); c++ {
			// Slices (a data offset: the split batches of an Arrow input,
			// a Parquet batch's rows) against the whole array.
			sa, sb := array.NewSlice(a.Column(c), 2, 40), array.NewSlice(b.Column(c), 1, 33)
			defer sa.Release()
			defer sb.Release()
			for _, pair := range [][2]arrow.Array{{a.Column(c), a.Column(c)}, {a.Column(c), b.Column(c)}, {sa, a.Column(c)}, {a.Column(c), sa}, {sa, sb}} {
				x, y := pair[0], pair[1]
				for _, off := range [][3]int{{0, 0, 31}, {3, 3, 20}, {5, 9, 13}, {0, 1, 30}, {0, 2, 30}, {2, 0, 29}} {
					// Only a fast "equal" is checked value by value: a
					// difference would format values (ValueStr caches a
					// time zone in the shared timestamp types of gen,
					// which later tests' schemas then differ from).
					if !rangeEqual(x, off[0], y, off[1], off[2]) {
						continue
					}
					for r := 0; r < off[2]; r++ {
						if msg := compareValue(x, off[0]+r, y, off[1]+r, "c"); msg != "" {
							t.Fatalf("seed %d column %d (%s) %v: fast path equal, values differ: %s", seed, c, x.DataType(), off, msg)
						}
					}
				}
			}
		}
		a.Release()
		b.Release()
	}
}
