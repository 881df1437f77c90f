package nested

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestQueriesRungs: a scale with Rungs measures those k of the ladder and
// all leaves but one, and each of its subsets is the same leaves as the
// full ladder's subset of that k.
func TestQueriesRungs(t *testing.T) {
	for _, tc := range []struct {
		leaves int
		rungs  []int
		want   string // the subset queries' ids
	}{
		{47, nil, "k02-1 k03-1 k05-1 k08-1 k13-1 k21-1 k34-1 k46-1"},
		{47, []int{2, 5, 13, 34}, "k02-1 k05-1 k13-1 k34-1 k46-1"},
		{17, []int{2, 5, 13, 34}, "k02-1 k05-1 k13-1 k16-1"},
		{9, []int{2, 5, 13, 34}, "k02-1 k05-1 k08-1"}, // all but one is a rung left out: kept
		{3, []int{2, 5, 13, 34}, "k02-1"},
	} {
		t.Run(fmt.Sprintf("%d/%v", tc.leaves, tc.rungs), func(t *testing.T) {
			leaves := make([]string, tc.leaves)
			for i := range leaves {
				leaves[i] = fmt.Sprintf("l%02d", i)
			}
			every := map[string][]string{}
			for _, q := range makeQueries("tpch", leaves, sizes{PerK: 1}) {
				every[q.id] = q.leaves
			}
			var ids []string
			for _, q := range makeQueries("tpch", leaves, sizes{PerK: 1, Rungs: tc.rungs}) {
				if q.id == QueryAll || strings.HasPrefix(q.id, "k01-") {
					continue
				}
				ids = append(ids, q.id)
				if !slices.Equal(q.leaves, every[q.id]) {
					t.Errorf("%s: leaves %v, the full ladder's %v", q.id, q.leaves, every[q.id])
				}
			}
			if got := strings.Join(ids, " "); got != tc.want {
				t.Errorf("queries %q, want %q", got, tc.want)
			}
		})
	}
}
