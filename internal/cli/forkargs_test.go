package cli

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// TestWorkloadArgs: a fork is given the workload options the parent was
// given (changed ones only, a list flag once per value), so that it plans
// the same cases.
func TestWorkloadArgs(t *testing.T) {
	fs := pflag.NewFlagSet("data", pflag.ContinueOnError)
	fs.String("input", "", "")
	fs.StringSlice("codecs", []string{"zstd"}, "")
	fs.Int("limit", 0, "")
	if err := fs.Parse([]string{"--input", "a b.jsonl", "--codecs", "none,gzip"}); err != nil {
		t.Fatal(err)
	}
	got := workloadArgs([]workloadFlags{{name: "data", fs: fs}})
	want := []string{"--codecs=none", "--codecs=gzip", "--input=a b.jsonl"}
	if !slices.Equal(got["data"], want) {
		t.Errorf("args %q, want %q", got["data"], want)
	}
	again := pflag.NewFlagSet("data", pflag.ContinueOnError)
	again.String("input", "", "")
	again.StringSlice("codecs", []string{"zstd"}, "")
	again.Int("limit", 0, "")
	if err := again.Parse(got["data"]); err != nil {
		t.Fatal(err)
	}
	if c, _ := again.GetStringSlice("codecs"); !slices.Equal(c, []string{"none", "gzip"}) {
		t.Errorf("a fork parses --codecs as %q", c)
	}
	if in, _ := again.GetString("input"); in != "a b.jsonl" {
		t.Errorf("a fork parses --input as %q", in)
	}
}
