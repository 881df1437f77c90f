package runner

import (
	"strings"
	"testing"

	"github.com/serbench/serbench/results"
)

// TestCheckVisits: a subject that reports decode for a read that visits
// no value — faster than copying its bytes allows — fails; a real
// decode, an announced open and a query do not.
func TestCheckVisits(t *testing.T) {
	mk := func(op string, bytes int64, ns ...float64) results.Case {
		c := results.Case{Status: results.StatusOK, BytesPerOp: bytes, Labels: results.Labels{{Key: results.OpLabel, Value: op}}}
		for _, v := range ns {
			c.Samples = append(c.Samples, results.Sample{Iters: 1, NsPerOp: v})
		}
		c.Summarize()
		return c
	}
	// The copy: 50 MiB in about 5 ms (10 GB/s).
	copyRow := func() results.Case { return mk("read-bytes", 50<<20, 5.0e6, 5.1e6, 4.9e6, 5.2e6, 5.0e6) }
	tests := []struct {
		name     string
		op       string // protocol op
		c        results.Case
		wantFail bool
	}{
		{"a decode that visits every value", OpDecode, mk(results.OpDecode, 50<<20, 7.1e6, 7.2e6, 7.0e6, 7.3e6, 7.1e6), false},
		{"a decode near the copy's speed", OpDecode, mk(results.OpDecode, 50<<20, 3.0e6, 3.1e6, 2.9e6, 3.0e6, 3.0e6), false},
		{"a decode that maps the bytes: 33 µs for 50 MiB", OpDecode, mk(results.OpDecode, 50<<20, 33e3, 34e3, 32e3, 33e3, 35e3), true},
		{"the same read announced as an open", OpDecode, mk(results.OpOpen, 50<<20, 33e3, 34e3, 32e3, 33e3, 35e3), false},
		{"a query reads its columns only", OpQuery, mk(results.OpDecode, 50<<20, 33e3, 34e3, 32e3, 33e3, 35e3), false},
		{"one sample near the bound is not enough to fail", OpDecode, mk(results.OpDecode, 50<<20, 2.0e6), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := []results.Case{tt.c, copyRow()}
			checkVisits(out, []Case{{ID: "s", Op: tt.op}, {ID: "copy", Op: OpCopy}})
			if failed := out[0].Status == results.StatusFailed; failed != tt.wantFail {
				t.Fatalf("failed = %v (%q), want %v", failed, out[0].Error, tt.wantFail)
			}
			if tt.wantFail && !strings.Contains(out[0].Error, "decode visits no value") {
				t.Errorf("error %q does not say why", out[0].Error)
			}
		})
	}
}

// TestOperation: a runner's protocol ops in the shared vocabulary.
func TestOperation(t *testing.T) {
	tests := []struct {
		op     string
		labels map[string]string
		want   string
	}{
		{OpEncode, nil, results.OpEncode},
		{OpDecode, nil, results.OpDecode},
		{OpDecode, map[string]string{"zero_copy": "no"}, results.OpDecode},
		{OpDecode, map[string]string{"zero_copy": "yes"}, results.OpOpen},
		{OpQuery, map[string]string{"zero_copy": "yes"}, results.OpOpen},
		{OpDecode, map[string]string{"zero_copy": "yes", "read": "every value"}, results.OpDecode},
		{OpCopy, nil, OpCopy},
	}
	for _, tt := range tests {
		if got := Operation(tt.op, &Subject{Labels: tt.labels}); got != tt.want {
			t.Errorf("Operation(%s, %v) = %s, want %s", tt.op, tt.labels, got, tt.want)
		}
	}
}
