package dynamic

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
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
			for _, pair := range [][2]arrow.Array{{a.Column(c), a.Column(c)}, {a.Column(c), b.Column(c)}} {
				x, y := pair[0], pair[1]
				for _, off := range [][3]int{{0, 0, 40}, {3, 3, 20}, {5, 9, 13}, {0, 1, 39}} {
					fast := rangeEqual(x, off[0], y, off[1], off[2])
					slow := true
					for r := 0; r < off[2]; r++ {
						if compareValue(x, off[0]+r, y, off[1]+r, "c") != "" {
							slow = false
							break
						}
					}
					if fast && !slow {
						t.Fatalf("seed %d column %d (%s) %v: fast path equal, values differ", seed, c, x.DataType(), off)
					}
					if x == y && off[0] == off[1] && !fast && x.NullN() == 0 {
						t.Logf("seed %d column %d (%s): no fast path for equal data", seed, c, x.DataType())
					}
				}
			}
		}
		a.Release()
		b.Release()
	}
}
