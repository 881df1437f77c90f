package run

import (
	"strings"
	"testing"

	"github.com/serbench/serbench/bench"
)

func TestParseShard(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	tests := []struct {
		in, idx string
		want    Shard
		err     string
	}{
		{"", "", Shard{}, ""},
		{"2/3", "", Shard{2, 3}, ""},
		{"auto/4", "0", Shard{1, 4}, ""},
		{"auto/4", "3", Shard{4, 4}, ""},
		{"auto/4", "4", Shard{}, "JOB_COMPLETION_INDEX is \"4\""},
		{"auto/4", "", Shard{}, "JOB_COMPLETION_INDEX"},
		{"0/3", "", Shard{}, "1 ≤ K ≤ N"},
		{"4/3", "", Shard{}, "1 ≤ K ≤ N"},
		{"x", "", Shard{}, "want K/N"},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in, env(tt.idx))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseShard(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestShardSelectPartitions: every case lands on exactly one shard, groups
// and affinities whole.
func TestShardSelectPartitions(t *testing.T) {
	var cases []bench.Case
	for i := 0; i < 20; i++ {
		c := bench.Case{Workload: "w", Name: "C" + string(rune('a'+i))}
		switch {
		case i%5 == 0:
			c.Group = "g" + string(rune('0'+i/5))
		case i%7 == 0:
			c.Affinity = "file"
		}
		cases = append(cases, c)
	}
	seen := map[string]int{}
	for k := 1; k <= 3; k++ {
		where := map[string]int{}
		for _, c := range (Shard{k, 3}).Select("w", cases) {
			seen[c.Name]++
			key := c.Group + c.Affinity
			if key != "" {
				if s, ok := where[key]; ok && s != k {
					t.Errorf("%s split", key)
				}
				where[key] = k
			}
		}
	}
	if len(seen) != len(cases) {
		t.Errorf("%d of %d cases on a shard", len(seen), len(cases))
	}
	for n, c := range seen {
		if c != 1 {
			t.Errorf("%s on %d shards", n, c)
		}
	}
	if runID([]string{"serbench", "run", "--out", "a", "--shard=1/3"}, "r") != runID([]string{"serbench", "run", "--out=b", "--shard", "2/3", "--force"}, "r") {
		t.Error("shards of one command must share a run id")
	}
}
