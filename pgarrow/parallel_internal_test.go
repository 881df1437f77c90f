package pgarrow

import (
	"math"
	"testing"
)

func TestSplitRange(t *testing.T) {
	tests := []struct {
		lo, hi int64
		n      int
		want   int // number of ranges
	}{
		{1, 100, 4, 4},
		{1, 3, 4, 3},
		{5, 5, 3, 1},
		{-10, 10, 7, 7},
		{math.MinInt64, math.MaxInt64, 4, 4},
		{math.MinInt64, math.MinInt64 + 1, 8, 2},
		{0, math.MaxInt64, 3, 3},
		{0, 1, 1, 1},
	}
	for _, tt := range tests {
		b := splitRange(tt.lo, tt.hi, tt.n)
		if len(b) != tt.want || b[0] != tt.lo {
			t.Errorf("splitRange(%d, %d, %d) = %v, want %d ranges from %d", tt.lo, tt.hi, tt.n, b, tt.want, tt.lo)
			continue
		}
		for i := 1; i < len(b); i++ {
			if b[i] <= b[i-1] || b[i] > tt.hi {
				t.Errorf("splitRange(%d, %d, %d) = %v: bound %d out of order or past hi", tt.lo, tt.hi, tt.n, b, i)
			}
		}
	}
}
