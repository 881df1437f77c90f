package records

import (
	"slices"
	"strings"
	"testing"

	"github.com/serbench/serbench/codec"
	"github.com/serbench/serbench/runner"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/filecase"
)

// TestProtocolCodec: each Go codec maps to the runner protocol's name at
// the Go default level; s2 has no runner implementation.
func TestProtocolCodec(t *testing.T) {
	want := map[string]string{"none": "none", "gzip": "gzip:6", "zstd": "zstd:3", "lz4": "lz4", "brotli": "brotli:6", "xz": "xz:6", "snappy": "snappy", "s2": ""}
	reg := codec.Default()
	for _, name := range reg.Names() {
		c := reg.MustParse(name)
		got, ok := protocolCodec(c.Info())
		w, known := want[name]
		if !known {
			t.Errorf("codec %s: no expectation", name)
			continue
		}
		if got != w || ok != (w != "") {
			t.Errorf("codec %s: got %q, %v; want %q", name, got, ok, w)
		}
	}
}

// TestRunnerWants: the default scale asks for the seed's row formats with
// codec none, the full scale for every record-holding subject with every
// codec the runner announces; protobuf subjects never join, decodes get a
// copy limit row and encodes none.
func TestRunnerWants(t *testing.T) {
	hello := &runner.Hello{Runner: "fake", Language: "java", Subjects: []runner.Subject{
		{Name: "jackson-json", Format: "json", Ops: []string{"encode", "decode"}, Codecs: []string{"none", "gzip:6", "zstd:3"}},
		{Name: "avro", Format: "avro", Ops: []string{"encode", "decode"}, Codecs: []string{"none", "zstd:1"}},
		{Name: "protobuf", Format: "protobuf", Ops: []string{"encode", "decode"}, Codecs: []string{"none"}},
	}}
	ready := []runner.Ready{{Runner: &runner.Runner{Name: "fake"}, Hello: hello}}
	for _, tc := range []struct {
		scale workload.Scale
		want  []string
	}{
		{workload.Default, []string{
			"java:jackson-json none encode", "java:jackson-json none decode", "java:copy none read-bytes"}},
		{workload.Full, []string{
			"java:jackson-json none encode", "java:avro none encode", "java:jackson-json none decode", "java:avro none decode", "java:copy none read-bytes",
			"java:jackson-json gzip encode", "java:jackson-json gzip decode", "java:copy gzip read-bytes",
			// avro announces zstd:1 only: the workload's zstd:3 is not sent to it.
			"java:jackson-json zstd encode", "java:jackson-json zstd decode", "java:copy zstd read-bytes"}},
	} {
		t.Run(string(tc.scale), func(t *testing.T) {
			wants, err := runnerWants(&source{n: 10}, 10, tc.scale)
			if err != nil {
				t.Fatal(err)
			}
			cases, descs := runner.Join(Name, caseName, t.TempDir(), filecase.MetricFile, ready, wants)
			var got []string
			for _, c := range cases {
				got = append(got, strings.Join([]string{c.Labels.Get(filecase.LabelFormat), c.Labels.Get(filecase.LabelCodec), c.Labels.Get(filecase.LabelOp)}, " "))
				if c.Labels.Get("language") != "java" || c.Metrics[filecase.MetricRecords] != 10 {
					t.Errorf("%s: labels %v metrics %v", c.FullName(), c.Labels, c.Metrics)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("cases\n got %q\nwant %q", got, tc.want)
			}
			if len(descs) == 0 {
				t.Error("no descriptors")
			}
		})
	}
}
