package data

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
	"github.com/serbench/serbench/workload/workloadtest"
)

// TestSelfCompressingFormats (issue 26): the formats that compress
// themselves (Parquet pages, Arrow IPC buffers, Avro blocks) are measured
// with codec none only, tagged as compressing, their savings read against
// their uncompressed sibling in the size table, and compared in their own
// table with the sibling and with the same codec around the sibling.
func TestSelfCompressingFormats(t *testing.T) {
	formats := []string{"arrow-stream", "arrow-stream-zstd", "parquet", "parquet-zstd", "parquet-snappy", "avro-ocf", "avro-ocf-zstd", "avro-ocf-deflate"}
	p := plan(t, Settings{Input: filepath.Join(testdata, "nested.jsonl"), Codecs: []string{"none", "zstd"}, Formats: formats}, workload.Config{})
	for _, c := range p.Cases {
		if f := c.Labels.Get(filecase.LabelFormat); f != sibling(f) && c.Labels.Get(filecase.LabelCodec) != "none" {
			t.Errorf("%s: a self-compressing format with an outer codec", c.FullName())
		}
	}
	for _, d := range p.Descriptors {
		if d.Key == filecase.LabelFormat && slices.Contains(formats, d.Name) {
			if got := slices.Contains(d.Tags, filecase.TagCompresses); got != (d.Name != sibling(d.Name)) {
				t.Errorf("%s: tagged compresses = %v", d.Name, got)
			}
		}
	}
	r := runPlan(t, New(), p)
	_, md := workloadtest.Markdown(t, r, New())
	for _, want := range []string{
		"its uncompressed sibling: arrow-stream-zstd against arrow-stream, parquet-zstd and parquet-snappy against parquet, avro-ocf-zstd and avro-ocf-deflate against avro-ocf.",
		"**Compression inside the format, against its uncompressed sibling and the same codec around it**",
		"| avro-ocf-zstd | zstd |", "| avro-ocf + zstd |", "| avro-ocf-deflate | deflate |", "| parquet-snappy | snappy |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The size table reads parquet-zstd against parquet: a % saved and a
	// vs plain, never "–".
	row := regexp.MustCompile(`(?m)^\| parquet-zstd \| none \| [0-9,]+ \| [0-9.]+ \| [0-9.]+ \| -?[0-9.]+% \| [0-9.]+× (smaller|larger) \|`)
	if !row.MatchString(md) {
		t.Errorf("size table: no parquet-zstd row read against parquet:\n%s", md)
	}
}

// sibling is the uncompressed format a self-compressing one extends.
func sibling(f string) string {
	for _, b := range []string{"arrow-stream", "parquet", "avro-ocf"} {
		if strings.HasPrefix(f, b+"-") {
			return b
		}
	}
	return f
}
