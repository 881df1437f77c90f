package data

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
)

// wordsJSONL writes n JSON Lines of pseudo-random words (compressible, but
// unlike at zstd levels 1 and 19) and returns the file's path.
func wordsJSONL(t *testing.T, n int) string {
	t.Helper()
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon")
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for i := range n {
		var ws []string
		for range 3 + r.IntN(12) {
			ws = append(ws, words[r.IntN(len(words))])
		}
		fmt.Fprintf(&b, "{\"id\":%d,\"score\":%d,\"text\":%q}\n", i, r.IntN(1000), strings.Join(ws, " "))
	}
	path := filepath.Join(t.TempDir(), "words.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCodecLabel: a codec's label is its name at the default level (the
// label of runs that name no level), name-level at any other; never a '/',
// ':' or space.
func TestCodecLabel(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"none", "none"}, {"zstd", "zstd"}, {"zstd:3", "zstd"}, {"zstd:1", "zstd-1"}, {"zstd:19", "zstd-19"},
		{"gzip:9", "gzip-9"}, {"brotli:0", "brotli-0"}, {"lz4", "lz4"}, {"xz", "xz"}, {"s2:3", "s2-3"},
	} {
		got := codecLabel(codec.Default().MustParse(tc.spec))
		if got != tc.want {
			t.Errorf("codecLabel(%s) = %q, want %q", tc.spec, got, tc.want)
		}
		if strings.ContainsAny(got, "/: \t") {
			t.Errorf("codecLabel(%s) = %q: not benchstat-friendly", tc.spec, got)
		}
	}
}

// TestCodecLevels (issue 26): two levels of one codec are two codecs — a
// label value, a file and a case name each — and a real run of both passes
// (they shared "codec=zstd" and one file, and one read FAILED: "read 124712
// bytes, the file was written as 142641"); zstd and zstd:3 (the default
// level) are one codec, measured once. Parquet, which takes codec none only,
// is not measured with --codecs zstd:… and says why (it was dropped
// silently).
func TestCodecLevels(t *testing.T) {
	input := wordsJSONL(t, 3000)
	var log bytes.Buffer
	s := Settings{Input: input, Formats: []string{"parquet", "csv", "msgpack"}, Codecs: []string{"zstd:1", "zstd:19", "zstd", "zstd:3"}}
	p, err := NewWith(s, &log).Plan(context.Background(), workload.Config{Scale: workload.Quick, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})

	pairs := map[string]bool{}
	names := map[string]bool{}
	paths := map[string]string{}
	for _, c := range p.Cases {
		pair := c.Labels.Get(filecase.LabelFormat) + "/" + c.Labels.Get(filecase.LabelCodec)
		pairs[pair] = true
		if names[c.FullName()] {
			t.Errorf("two cases named %s", c.FullName())
		}
		names[c.FullName()] = true
		if other, ok := paths[c.Affinity]; ok && other != pair {
			t.Errorf("%s and %s share the file %s", other, pair, c.Affinity)
		}
		paths[c.Affinity] = pair
	}
	want := map[string]bool{"csv/zstd-1": true, "csv/zstd-19": true, "csv/zstd": true, "msgpack/zstd-1": true, "msgpack/zstd-19": true, "msgpack/zstd": true}
	if fmt.Sprint(pairs) != fmt.Sprint(want) {
		t.Errorf("pairs %v, want %v", pairs, want)
	}

	levels := map[string]string{}
	var parquetWhy string
	for _, d := range p.Descriptors {
		switch {
		case d.Key == filecase.LabelCodec:
			levels[d.Name] = d.Settings["level"]
		case d.Key == filecase.LabelFormat && d.Name == "parquet":
			parquetWhy = d.Settings[SettingNotMeasured]
		}
	}
	if fmt.Sprint(levels) != fmt.Sprint(map[string]string{"zstd": "3", "zstd-1": "1", "zstd-19": "19"}) {
		t.Errorf("codec descriptors (name: level) %v", levels)
	}
	for _, s := range []string{parquetWhy, log.String()} {
		if !strings.Contains(s, "random access") || !strings.Contains(s, "none") {
			t.Errorf("parquet's omission is not explained: descriptor %q, log %q", parquetWhy, log.String())
			break
		}
	}
	if !strings.Contains(log.String(), "parquet not measured") {
		t.Errorf("log %q does not say parquet is not measured", log.String())
	}

	r := runPlan(t, New(), p)
	size := map[string]float64{}
	for i := range r.Cases {
		c := &r.Cases[i]
		if !c.OK() {
			t.Errorf("%s: %s", c.FullName(), c.Error)
			continue
		}
		if c.Labels.Get(filecase.LabelOp) == filecase.OpRead && c.Labels.Get(filecase.LabelFormat) == "msgpack" {
			size[c.Labels.Get(filecase.LabelCodec)] = c.Metrics[filecase.MetricFile]
		}
	}
	if !(size["zstd-19"] > 0 && size["zstd-19"] < size["zstd-1"]) {
		t.Errorf("msgpack file sizes by codec %v: want zstd-19 smaller than zstd-1", size)
	}
}

// TestUnknownCodecMessage: an unknown codec names the valid ones once
// (issue 26: "--codecs zip prints the valid list twice").
func TestUnknownCodecMessage(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"zip", "valid: "},
		{"zstd:99", "valid: 1..22"},
		{"snappy:2", "takes no level"},
	} {
		err := CheckSettings(Settings{Codecs: []string{tc.spec}})
		if err == nil {
			t.Errorf("%s accepted", tc.spec)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || strings.Count(msg, "valid:") > 1 || !strings.HasPrefix(msg, "--codecs") {
			t.Errorf("%s: %q, want one %q", tc.spec, msg, tc.want)
		}
	}
}
