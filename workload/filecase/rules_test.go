package filecase

import "testing"

// TestRules checks each top-performer and use-case rule on synthetic
// points chosen so that a wrong rule picks a different point.
func TestRules(t *testing.T) {
	pts := []Point{
		// 0: tiny but very slow to write.
		{Format: "msgpack", Codec: "xz", WriteNs: 40e9, ReadNs: 2e9, FileB: 1e6, PlainB: 120e6},
		// 1: fastest write, well compressed.
		{Format: "jsonl", Codec: "zstd", WriteNs: 1e9, ReadNs: 3e9, FileB: 3e6, PlainB: 150e6, Text: true},
		// 2: fastest read and fastest round trip, uncompressed.
		{Format: "flatbuffers", Codec: "none", WriteNs: 1.1e9, ReadNs: 0.1e9, FileB: 150e6, PlainB: 150e6},
		// 3: balanced.
		{Format: "msgpack", Codec: "zstd", WriteNs: 1.2e9, ReadNs: 0.6e9, FileB: 2e6, PlainB: 120e6},
		// 4: text, smallest text file but slow round trip.
		{Format: "jsonl", Codec: "brotli", WriteNs: 9e9, ReadNs: 3e9, FileB: 1.5e6, PlainB: 150e6, Text: true},
		// 5: text, within 2× of the fastest text round trip, smaller than 1.
		{Format: "csv", Codec: "zstd", WriteNs: 3e9, ReadNs: 3e9, FileB: 2.5e6, PlainB: 100e6, Text: true},
		// 6: random access.
		{Format: "parquet-zstd", Codec: "none", WriteNs: 2e9, ReadNs: 1e9, FileB: 4e6, PlainB: 30e6, RandomAccess: true},
		// 7: random access, slower.
		{Format: "arrow-file", Codec: "none", WriteNs: 2e9, ReadNs: 2e9, FileB: 30e6, PlainB: 30e6, RandomAccess: true},
		// 8: saves 80% (the best on its format), round trip 1.4 s.
		{Format: "protobuf", Codec: "lz4", WriteNs: 0.9e9 + 0.2e9, ReadNs: 0.3e9, FileB: 20e6, PlainB: 100e6},
	}
	rules := map[string]Rule{}
	for _, r := range append(TopRules(), UseCaseRules()...) {
		rules[r.Name] = r
	}
	for _, tc := range []struct {
		rule string
		pts  []Point
		want int
	}{
		{"Fastest round trip", pts, 2},
		{"Fastest write", pts, 1},
		{"Fastest read", pts, 2},
		{"Smallest file", pts, 0},
		{"Best balance", pts, 3},
		// jsonl+zstd saves 98%, ≥ 90% of jsonl+brotli's 99%: the fastest such write.
		{"High-throughput logging", pts, 1},
		// Without it, protobuf+lz4 (80%, the best on protobuf) writes fastest;
		// jsonl+brotli and csv+zstd qualify but write slower.
		{"High-throughput logging", []Point{pts[0], pts[2], pts[4], pts[5], pts[8]}, 4},
		// A self-compressing format is measured against its plain sibling's
		// family: 40% is far from the 99% that family reaches with xz.
		{"High-throughput logging", []Point{
			{Format: "avro-ocf", Codec: "xz", WriteNs: 9e9, FileB: 1e6, PlainB: 100e6, Base: "avro-ocf"},
			{Format: "avro-ocf-snappy", Codec: "none", WriteNs: 1e9, FileB: 60e6, PlainB: 100e6, Base: "avro-ocf"},
		}, 0},
		// xz's write is 40× the fastest: excluded; brotli's 9× qualifies.
		{"Data archival", pts, 4},
		// protobuf+lz4 saves 80% (≥ 75%) and has the fastest round trip among those.
		{"Real-time processing", pts, 8},
		{"Human-readable archives", pts, 5},
		{"Analytics (random access)", pts, 6},
		{"Analytics (random access)", pts[:6], -1},
		{"High-throughput logging", []Point{pts[2]}, -1},
		{"Smallest file", nil, -1},
		// Ties go to the earlier point.
		{"Smallest file", []Point{pts[1], pts[1]}, 0},
	} {
		r, ok := rules[tc.rule]
		if !ok {
			t.Fatalf("no rule %q", tc.rule)
		}
		if got := r.Pick(tc.pts); got != tc.want {
			t.Errorf("%s over %d points: picked %d, want %d", tc.rule, len(tc.pts), got, tc.want)
		}
		if r.Rule == "" {
			t.Errorf("%s states no rule", tc.rule)
		}
	}
}
