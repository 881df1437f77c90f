package results

import (
	"strings"
	"testing"
	"time"
)

// TestMergeShardsMissing: missing shards are said once per run of
// consecutive shards, so a run that claims to be one of a billion shards
// merges at once (it used to append a warning per missing shard: a hang).
func TestMergeShardsMissing(t *testing.T) {
	tests := []struct {
		name   string
		shards []string
		want   []string
	}{
		{"all there", []string{"2/2", "1/2"}, nil},
		{"one missing", []string{"1/3", "3/3"}, []string{"shard 2/3 is missing: its cases are not in this report"}},
		{"the first and the last", []string{"2/3"}, []string{"shard 1/3 is missing", "shard 3/3 is missing"}},
		{"a run of them", []string{"1/5", "2/5"}, []string{"shards 3 to 5 of 5 are missing: their cases are not in this report"}},
		{"gaps on both sides", []string{"3/9", "5/9"}, []string{"shards 1 to 2 of 9 are missing", "shard 4/9 is missing", "shards 6 to 9 of 9 are missing"}},
		{"a billion shards", []string{"1/1000000000"}, []string{"shards 2 to 1000000000 of 1000000000 are missing"}},
		{"the largest int", []string{"9223372036854775807/9223372036854775807"}, []string{"shards 1 to 9223372036854775806 of 9223372036854775807 are missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var runs []*Run
			for _, s := range tt.shards {
				runs = append(runs, &Run{File: s, Env: Env{RunID: "r", Shard: s}, End: &End{Planned: 1, Done: 1}})
			}
			t0 := time.Now()
			m := MergeShards(runs)
			if d := time.Since(t0); d > time.Second {
				t.Errorf("merging took %v", d)
			}
			if len(m) != 1 {
				t.Fatalf("%d runs, want 1", len(m))
			}
			if len(m[0].Warnings) != len(tt.want) {
				t.Fatalf("warnings %q, want %q", m[0].Warnings, tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(m[0].Warnings[i], w) {
					t.Errorf("warning %d = %q, want %q", i, m[0].Warnings[i], w)
				}
			}
			if interrupted := m[0].End.Interrupted; interrupted != (len(tt.want) > 0) {
				t.Errorf("interrupted = %v with warnings %q", interrupted, m[0].Warnings)
			}
		})
	}
}
