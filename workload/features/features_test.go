package features

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/report"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
	"github.com/serbench/serbench/workload/workloadtest"
)

// TestEveryQuickCaseVerifies sets up and verifies every case of the quick
// plan: every subject round-trips every type.
func TestEveryQuickCaseVerifies(t *testing.T) {
	p, err := New().Plan(context.Background(), workload.Config{Scale: workload.Quick})
	if err != nil {
		t.Fatal(err)
	}
	// 7 subjects × 7 types, minus proto3-fixed on the 4 types it lacks,
	// × 2 sizes × 2 ops.
	if want := (7*7 - 4) * 2 * 2; len(p.Cases) != want {
		t.Fatalf("%d cases, want %d", len(p.Cases), want)
	}
	for _, c := range p.Cases {
		if err := c.Setup(); err != nil {
			t.Fatalf("%s: setup: %v", c.FullName(), err)
		}
		if err := c.Verify(); err != nil {
			t.Errorf("%s: verify: %v", c.FullName(), err)
		}
	}
}

func TestPSDBSizesMatchTheSeed(t *testing.T) {
	want := map[string]float64{"100": 409, "1000": 4009, "10000": 40009, "100000": 400009}
	p, err := New().Plan(context.Background(), workload.Config{Scale: workload.Default, Subjects: []string{"psdb"}})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, c := range p.Cases {
		if c.Labels.Get("type") != "int32" || c.Labels.Get("op") != "encode" {
			continue
		}
		if err := c.Setup(); err != nil {
			t.Fatal(err)
		}
		if err := c.Verify(); err != nil {
			t.Fatal(err)
		}
		n := c.Labels.Get("n")
		if got := c.Metrics[MetricSerialized]; got != want[n] {
			t.Errorf("psdb int32 N=%s: %v bytes, want %v", n, got, want[n])
		}
		seen++
	}
	if seen != len(want) {
		t.Errorf("saw %d sizes, want %d", seen, len(want))
	}
}

// TestBrokenSubjectIsFailed shows that a subject whose decoder loses data
// is recorded as FAILED with the reason and appears so in the report.
func TestBrokenSubjectIsFailed(t *testing.T) {
	broken := subject{name: "broken", make: func(d *dsData) (codec, error) {
		inner, err := newMemcpy(d)
		return lossy{inner}, err
	}}
	c := newCase(newDataCache(), broken, "int32", 100, "decode")
	r, err := bench.Measure(context.Background(), c, bench.Options{Count: 2, SampleTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || !strings.Contains(r.Error, "round trip") {
		t.Fatalf("status %s, error %q; want failed round trip", r.Status, r.Error)
	}
	run := &results.Run{Cases: []results.Case{r}}
	_, md := workloadtest.Markdown(t, run, New().Sections())
	if !strings.Contains(md, report.Failed) || !strings.Contains(md, "round trip") {
		t.Errorf("report does not show the failure:\n%s", md)
	}
}

// lossy drops the last decoded value.
type lossy struct{ codec }

func (l lossy) Out() *dsOutput {
	o := *l.codec.Out()
	if len(o.Int32) > 0 {
		o.Int32 = o.Int32[:len(o.Int32)-1]
	}
	return &o
}

type (
	dsData   = ds.Data
	dsOutput = ds.Output
)
