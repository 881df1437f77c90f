package records

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
	"github.com/serbench/serbench/workload/records/recordsfmt"
)

// TestPlan checks the matrix: at full scale every stream format × every
// codec (4 ops, 3 with codec none), below it the seed's formats × every
// codec and the others × none and zstd; the self-compressing and
// random-access formats with codec none only, the unbuffered msgpack write
// and the bare loop; each pair's write first.
func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		scale    workload.Scale
		seedOnly bool
	}{{workload.Full, false}, {workload.Quick, true}, {workload.Default, true}} {
		t.Run(string(tc.scale), func(t *testing.T) { testPlan(t, tc.scale, tc.seedOnly) })
	}
}

func testPlan(t *testing.T, scale workload.Scale, seedOnly bool) {
	cfg := workload.Config{Scale: scale, TempDir: t.TempDir()}
	p, err := New().Plan(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	fs, err := recordsfmt.Formats()
	if err != nil {
		t.Fatal(err)
	}
	codecs := len(codec.Default().Names())
	stream, own := 0, 0
	for _, f := range fs.All() {
		if f.Descriptor().StreamOnly() {
			stream++
		} else {
			own++
		}
	}
	if stream != 11 || own != 10 || codecs != 8 {
		t.Fatalf("%d stream formats, %d self-contained, %d codecs; the expected count below assumes 11, 10, 8", stream, own, codecs)
	}
	want := stream*(3+(codecs-1)*4) + own*3 + 1 + 2
	if seedOnly {
		seed := len(seedFormats)
		want = seed*(3+(codecs-1)*4) + (stream-seed)*(3+(len(scaleCodecs)-1)*4) + own*3 + 1 + 2
	}
	if len(p.Cases) != want || want != map[bool]int{false: 374, true: 182}[seedOnly] {
		t.Fatalf("%d cases, want %d", len(p.Cases), want)
	}
	seenWrite := map[string]bool{}
	for _, c := range p.Cases {
		if c.Workload != Name || c.Name != caseName {
			t.Fatalf("case %s/%s", c.Workload, c.Name)
		}
		keys := []string{}
		for _, l := range c.Labels {
			keys = append(keys, l.Key)
		}
		if k := strings.Join(keys[:3], ","); k != "subject,codec,op" {
			t.Fatalf("%s: labels %s", c.FullName(), k)
		}
		pair := c.Labels.Get(filecase.LabelFormat) + "/" + c.Labels.Get(filecase.LabelCodec) + "/" + c.Labels.Get(filecase.LabelVariant)
		switch c.Labels.Get(filecase.LabelOp) {
		case filecase.OpWrite:
			seenWrite[pair] = true
		default:
			if !seenWrite[pair] {
				t.Errorf("%s runs before its pair's write", c.FullName())
			}
		}
		limit := c.Role == results.RoleLimit
		if isLimit := c.Labels.Get(filecase.LabelOp) == filecase.OpReadBytes || c.Labels.Get(filecase.LabelOp) == filecase.OpDecompress; isLimit != limit {
			t.Errorf("%s: role %q", c.FullName(), c.Role)
		}
		wantBudget, wantCount, wantPerRound := budgetFor(scales().At(scale)), 0, 0 // 0: --count, one per round
		switch {
		case c.Labels.Get(filecase.LabelOp) == filecase.OpReadBytes:
			wantPerRound = readBytesPerRound
		case limit:
			wantCount = filecase.LimitCount
		case c.Labels.Get(filecase.LabelVariant) == filecase.VariantUnbuffered:
			// Its records are capped: its budget is theirs.
			wantBudget = budgetFor(min(scales().At(scale), unbufferedRecords))
		case pair == filecase.BareSubject+"/zstd/" || pair == filecase.BareMsgpSubject+"/none/":
			// The harness comparison takes every planned pair of runs.
			wantBudget, wantCount = 0, 10
		}
		if c.Budget != wantBudget || c.Count != wantCount || c.PerRound != wantPerRound || !c.NoWarmup {
			t.Errorf("%s: budget %v (want %v), count %d (want %d), per round %d (want %d), NoWarmup %v",
				c.FullName(), c.Budget, wantBudget, c.Count, wantCount, c.PerRound, wantPerRound, c.NoWarmup)
		}
		if c.Setup == nil || c.Verify == nil || c.Run == nil {
			t.Errorf("%s: missing Setup, Verify or Run", c.FullName())
		}
	}
	for _, pair := range []string{"msgpack/none/" + filecase.VariantUnbuffered, filecase.BareSubject + "/zstd/", filecase.BareMsgpSubject + "/none/", "parquet-zstd/none/", "csv/zstd/", "jsonl/xz/", "flatbuffers/brotli/"} {
		if !seenWrite[pair] {
			t.Errorf("no write case for %s", pair)
		}
	}
	if seenWrite["csv/xz/"] == seedOnly {
		t.Errorf("csv with xz written: %v at scale %s", seenWrite["csv/xz/"], scale)
	}
	if seenWrite["parquet-zstd/zstd/"] || seenWrite["arrow-file/gzip/"] {
		t.Error("a self-compressing or random-access format is combined with an outer codec")
	}
}

// smallPlan is a plan at n records for a few subjects, filtered by re.
func smallPlan(t *testing.T, n int, dir string, re string, subjects ...string) *workload.Plan {
	t.Helper()
	p, err := New().newPlan(context.Background(), n, workload.Config{Subjects: subjects, TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if re != "" {
		p.Cases = workload.FilterCases(p.Cases, regexp.MustCompile(re))
	}
	return p
}

var fast = bench.Options{Count: 1, SampleTime: time.Millisecond}

func measure(t *testing.T, c bench.Case) results.Case {
	t.Helper()
	c.Count = 1
	r, err := bench.Measure(context.Background(), c, fast)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCasesMeasure runs real cases at 2,000 records: every op of a stream
// format with and without a codec, a self-compressing format, the bare loop
// and the unbuffered write.
func TestCasesMeasure(t *testing.T) {
	dir := t.TempDir()
	p := smallPlan(t, 2000, dir, `codec=(none|zstd)/`, "msgpack", "parquet-zstd", filecase.BareSubject, filecase.BareMsgpSubject)
	if len(p.Cases) != 3+4+1+3+1+1 {
		t.Fatalf("%d cases", len(p.Cases))
	}
	for _, c := range p.Cases {
		r := measure(t, c)
		if !r.OK() {
			t.Fatalf("%s: %s", r.FullName(), r.Error)
		}
		if len(r.Samples) != 1 || r.Samples[0].NsPerOp <= 0 {
			t.Errorf("%s: samples %+v", r.FullName(), r.Samples)
		}
		if r.Metrics[filecase.MetricFile] <= 0 || r.Metrics[filecase.MetricRecords] != 2000 {
			t.Errorf("%s: metrics %v", r.FullName(), r.Metrics)
		}
		if _, ok := r.Median(results.UnitMBPerS); !ok {
			t.Errorf("%s: no MB/s", r.FullName())
		}
		bare := r.Labels.Get(filecase.LabelFormat) == filecase.BareSubject || r.Labels.Get(filecase.LabelFormat) == filecase.BareMsgpSubject
		if _, ok := r.Median(filecase.MetricPeakHeap); !ok && !bare {
			t.Errorf("%s: no peak heap", r.FullName())
		}
		if x, ok := r.Median(filecase.MetricPipelineRatio); bare && (!ok || x <= 0) {
			t.Errorf("%s: pipeline ÷ bare %v, %v", r.FullName(), x, ok)
		}
		if r.Labels.Get(filecase.LabelCodec) == "zstd" && r.Labels.Get(filecase.LabelOp) != filecase.OpReadBytes &&
			r.Metrics[filecase.MetricEncoded] <= r.Metrics[filecase.MetricFile] {
			t.Errorf("%s: encoded %v not above file %v", r.FullName(), r.Metrics[filecase.MetricEncoded], r.Metrics[filecase.MetricFile])
		}
	}
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("files left behind: %v", left)
	}
}

// TestBadInput breaks the disk or the file of the first pair and checks
// that the affected case fails with a clear reason and that the next pair's
// write still runs.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		// before runs before the first case; after between the write
		// and the read of the first pair.
		before, after func(t *testing.T, dir, path string)
		failOp        string
		reason        string
	}{
		{
			name: "full disk",
			before: func(t *testing.T, _, path string) {
				if _, err := os.Stat("/dev/full"); err != nil {
					t.Skip("no /dev/full")
				}
				if err := os.Symlink("/dev/full", path+".verify"); err != nil {
					t.Fatal(err)
				}
			},
			failOp: filecase.OpWrite, reason: "no space left on device",
		},
		{
			name: "truncated between write and read",
			after: func(t *testing.T, _, path string) {
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(path, fi.Size()/2); err != nil {
					t.Fatal(err)
				}
			},
			failOp: filecase.OpRead, reason: "truncated or replaced between write and read",
		},
		{
			name: "corrupted between write and read",
			after: func(t *testing.T, _, path string) {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				for i := len(b) / 2; i < len(b)/2+64; i++ {
					b[i] ^= 0x5a
				}
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
			},
			failOp: filecase.OpRead, reason: "run: filebench: read msgpack/none",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := smallPlan(t, 500, dir, `codec=(none|gzip)/op=(write|read)$`, "msgpack")
			if len(p.Cases) != 4 {
				t.Fatalf("%d cases", len(p.Cases))
			}
			path := filepath.Join(dir, "records-msgpack-none.bin")
			if tc.before != nil {
				tc.before(t, dir, path)
			}
			var got []results.Case
			for i, c := range p.Cases {
				if i == 1 && tc.after != nil {
					tc.after(t, dir, path)
				}
				got = append(got, measure(t, c))
			}
			failed := got[0]
			if tc.failOp == filecase.OpRead {
				failed = got[1]
				if !got[0].OK() {
					t.Fatalf("write failed: %s", got[0].Error)
				}
			}
			if failed.OK() || !strings.Contains(failed.Error, tc.reason) {
				t.Errorf("%s: status %s, error %q; want failed with %q", failed.FullName(), failed.Status, failed.Error, tc.reason)
			}
			if next := got[2]; !next.OK() || next.Labels.Get(filecase.LabelCodec) != "gzip" {
				t.Errorf("next pair: %s %s %s", next.FullName(), next.Status, next.Error)
			}
		})
	}
}

// TestUnwritableTempDir: a temp dir that cannot hold files fails every
// case with the reason; planning itself succeeds.
func TestUnwritableTempDir(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p := smallPlan(t, 100, notDir, `codec=none/op=(write|read)$`, "jsonl")
	if len(p.Cases) != 2 {
		t.Fatalf("%d cases", len(p.Cases))
	}
	for _, c := range p.Cases {
		r := measure(t, c)
		if r.OK() || !strings.Contains(r.Error, "not a directory") {
			t.Errorf("%s: status %s, error %q", r.FullName(), r.Status, r.Error)
		}
	}
}

// TestBudgetFor: a case's sampling budget is filecase.Budget at the seed's
// 1M records, the same share of it as of the records below (never less
// than minBudget), and no more above.
func TestBudgetFor(t *testing.T) {
	for _, tc := range []struct {
		records int
		want    time.Duration
	}{
		{1, minBudget},
		{25_000, minBudget},
		{100_000, minBudget},
		{250_000, 250 * time.Millisecond},
		{500_000, 500 * time.Millisecond},
		{1_000_000, filecase.Budget},
		{4_000_000, filecase.Budget},
	} {
		if got := budgetFor(tc.records); got != tc.want {
			t.Errorf("budgetFor(%d) = %v, want %v", tc.records, got, tc.want)
		}
	}
}
