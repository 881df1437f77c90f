package filecase

import (
	"fmt"
	"math"

	"github.com/serbench/serbench/table"
)

// A Point is one format × codec pair whose write and read both succeeded:
// what the top-performer and recommendation rules choose from.
type Point struct {
	// Format and Codec name the pair.
	Format, Codec string
	// WriteNs and ReadNs are the median times of one write and one read;
	// WriteN and ReadN the samples behind them (0: unknown).
	WriteNs, ReadNs float64
	WriteN, ReadN   int
	// FileB is the file size; PlainB the size of the same format
	// uncompressed (0 when unknown).
	FileB, PlainB float64
	// Base names the uncompressed format the saving is measured against
	// (Format itself, or e.g. avro-ocf for avro-ocf-snappy); empty when
	// unknown.
	Base string
	// Text marks human-readable formats; RandomAccess formats that can read
	// a column or row group without decoding the whole file.
	Text, RandomAccess bool
}

// family groups the pairs whose savings are measured against the same
// uncompressed file: Base, or Format when Base is unknown.
func (p Point) family() string {
	if p.Base != "" {
		return p.Base
	}
	return p.Format
}

// Subject is "format + codec".
func (p Point) Subject() string { return p.Format + " + " + p.Codec }

// TotalNs is write + read.
func (p Point) TotalNs() float64 { return p.WriteNs + p.ReadNs }

// WriteMark, ReadMark and TotalMark mark a median from fewer than
// table.FewSamples samples, as table.SamplesMark does a case's: " (n=1)",
// " (n=2)" or "". The total is marked by the fewer of its two counts.
func (p Point) WriteMark() string { return samplesMark(p.WriteN) }

// ReadMark: see WriteMark.
func (p Point) ReadMark() string { return samplesMark(p.ReadN) }

// TotalMark: see WriteMark.
func (p Point) TotalMark() string { return samplesMark(fewer(p.WriteN, p.ReadN)) }

// fewer is the smaller of two sample counts, a known one (> 0) before an
// unknown one.
func fewer(a, b int) int {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}

// samplesMark is table.SamplesNote(n) as a suffix: " (n=1)", " (n=2)" or
// "".
func samplesMark(n int) string {
	if s := table.SamplesNote(n); s != "" {
		return " (" + s + ")"
	}
	return ""
}

// Saved is the fraction saved against the same format uncompressed, or NaN
// when either size is unknown.
func (p Point) Saved() float64 {
	if p.PlainB <= 0 || p.FileB <= 0 {
		return math.NaN()
	}
	return 1 - p.FileB/p.PlainB
}

// A Rule picks one point by a stated criterion.
type Rule struct {
	// Name is the metric or use case.
	Name string
	// Rule states the criterion in words, printed with the pick.
	Rule string
	// Pick returns the index of the chosen point, or -1 when none
	// qualifies.
	Pick func(pts []Point) int
}

// argmin returns the index of the smallest key among the points for which
// keep is true (nil: all); ties go to the earlier point.
func argmin(pts []Point, keep func(Point) bool, key func(Point) float64) int {
	best := -1
	var bv float64
	for i, p := range pts {
		if keep != nil && !keep(p) {
			continue
		}
		v := key(p)
		if math.IsNaN(v) {
			continue
		}
		if best < 0 || v < bv {
			best, bv = i, v
		}
	}
	return best
}

func minOf(pts []Point, keep func(Point) bool, key func(Point) float64) float64 {
	i := argmin(pts, keep, key)
	if i < 0 {
		return math.NaN()
	}
	return key(pts[i])
}

func writeNs(p Point) float64 { return p.WriteNs }
func readNs(p Point) float64  { return p.ReadNs }
func totalNs(p Point) float64 { return p.TotalNs() }
func fileB(p Point) float64   { return p.FileB }
func isText(p Point) bool     { return p.Text }

// Thresholds of the use-case rules.
const (
	loggingShareBest = 0.90
	// Data archival: size first — written once, kept long, read rarely —
	// so slow compressors qualify (xz, brotli, high zstd levels: 100× and
	// more the fastest write, which is near memcpy for an uncompressed
	// columnar file); only a write or a read-back so slow as to be absurd
	// is left out. Files within archivalSizeSlack of the smallest count as
	// the smallest: among them the fastest round trip, so that 1% of size
	// is not bought with 10× the time.
	archivalMaxWrite  = 1000.0
	archivalMaxRead   = 100.0
	archivalSizeSlack = 0.10
	realtimeMinSaved  = 0.75
	readableMaxTotal  = 2.0
	balanceRuleString = "minimum of (round trip ÷ fastest round trip) × (file ÷ smallest file): the point nearest the origin of the log-log scatter, always on the Pareto frontier"
)

// TopRules are the quick-reference winners.
func TopRules() []Rule {
	return []Rule{
		{"Fastest round trip", "minimum write + read", func(pts []Point) int { return argmin(pts, nil, totalNs) }},
		{"Fastest write", "minimum write time", func(pts []Point) int { return argmin(pts, nil, writeNs) }},
		{"Fastest read", "minimum read time (every record decoded and verified)", func(pts []Point) int { return argmin(pts, nil, readNs) }},
		{"Smallest file", "minimum file size", func(pts []Point) int { return argmin(pts, nil, fileB) }},
		{"Best balance", balanceRuleString, pickBalance},
	}
}

func pickBalance(pts []Point) int {
	t, s := minOf(pts, nil, totalNs), minOf(pts, nil, fileB)
	if !(t > 0) || !(s > 0) {
		return -1
	}
	return argmin(pts, nil, func(p Point) float64 { return p.TotalNs() / t * p.FileB / s })
}

// pickArchival is the Data archival rule: among the pairs whose write and
// read are not absurdly slow (archivalMaxWrite, archivalMaxRead times the
// fastest), the fastest round trip among the files at most
// archivalSizeSlack larger than the smallest of them.
func pickArchival(pts []Point) int {
	w, r := minOf(pts, nil, writeNs), minOf(pts, nil, readNs)
	usable := func(p Point) bool { return p.WriteNs <= archivalMaxWrite*w && p.ReadNs <= archivalMaxRead*r }
	s := minOf(pts, usable, fileB)
	return argmin(pts, func(p Point) bool { return usable(p) && p.FileB <= (1+archivalSizeSlack)*s }, totalNs)
}

// UseCaseRules are the recommendations by use case.
func UseCaseRules() []Rule {
	return []Rule{
		{
			"High-throughput logging",
			fmt.Sprintf("fastest write among pairs that compress, saving at least %.0f%% of the best saving reached on the same format (relative, so it adapts to how compressible the data is)", loggingShareBest*100),
			func(pts []Point) int {
				best := map[string]float64{}
				for _, p := range pts {
					if s := p.Saved(); s > best[p.family()] {
						best[p.family()] = s
					}
				}
				return argmin(pts, func(p Point) bool {
					return p.Saved() > 0 && p.Saved() >= loggingShareBest*best[p.family()]
				}, writeNs)
			},
		},
		{
			"Data archival",
			fmt.Sprintf("size first: among pairs whose write takes at most %.0f× the fastest write and whose read at most %.0f× the fastest read, "+
				"the fastest round trip of those whose file is within %.0f%% of the smallest such file", archivalMaxWrite, archivalMaxRead, archivalSizeSlack*100),
			pickArchival,
		},
		{
			"Real-time processing",
			fmt.Sprintf("fastest round trip (write + read: data produced and consumed as it flows) among pairs saving at least %.0f%% against the same format uncompressed", realtimeMinSaved*100),
			func(pts []Point) int {
				return argmin(pts, func(p Point) bool { return p.Saved() >= realtimeMinSaved }, totalNs)
			},
		},
		{
			"Human-readable archives",
			fmt.Sprintf("smallest file among text formats whose round trip is within %.0f× the fastest text-format round trip", readableMaxTotal),
			func(pts []Point) int {
				t := minOf(pts, isText, totalNs)
				return argmin(pts, func(p Point) bool { return p.Text && p.TotalNs() <= readableMaxTotal*t }, fileB)
			},
		},
		{
			"Analytics (random access)",
			"fastest round trip among formats that can read one column or row group without decoding the file (Parquet, Arrow file)",
			func(pts []Point) int {
				return argmin(pts, func(p Point) bool { return p.RandomAccess }, totalNs)
			},
		},
	}
}
