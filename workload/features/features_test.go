package features

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/bench"
	ds "github.com/serbench/serbench/dataset/features"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/subject"
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
	// 6 subjects × 5 types, plus proto3-fixed on int32 and fp16 and
	// psdb-bits on bool, × 3 sizes × 2 ops.
	if want := (6*5 + 3) * 3 * 2; len(p.Cases) != want {
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

// TestEveryTypeVerifies round-trips every type through every subject that
// supports it, at a small N and at an odd one (bool padding, vectors of
// bits that do not end on a byte).
func TestEveryTypeVerifies(t *testing.T) {
	data := newDataCache()
	for _, typ := range ds.Types() {
		for _, s := range builtin() {
			if !s.Accepts(string(typ)) {
				continue
			}
			for _, n := range []int{13, 100} {
				c := newCase(data, s, typ, n, "decode")
				if err := c.Setup(); err != nil {
					t.Fatalf("%s: setup: %v", c.FullName(), err)
				}
				if err := c.Verify(); err != nil {
					t.Errorf("%s: verify: %v", c.FullName(), err)
				}
			}
		}
	}
}

// TestFullCoversEveryType checks that psdb and the limit row measure
// every type at the full scale, with exactly one limit row per type (the
// default scale measures every scalar type and four vector types).
func TestFullCoversEveryType(t *testing.T) {
	p, err := New().Plan(context.Background(), workload.Config{Scale: workload.Full, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	psdbN, limits := map[string]int{}, map[string]int{}
	for _, c := range p.Cases {
		typ := c.Labels.Get("type")
		switch c.Role {
		case results.RoleBaseline:
			psdbN[typ]++
		case results.RoleLimit:
			limits[typ+"/"+c.Labels.Get("n")+"/"+c.Labels.Get("op")]++
		}
	}
	for _, typ := range ds.Types() {
		sizes := 0
		for _, n := range Sizes(workload.Full) {
			if typ.IsVector() && n > maxVectorFeatures {
				continue
			}
			sizes++
			for _, op := range ops {
				if k := fmt.Sprintf("%s/%d/%s", typ, n, op); limits[k] != 1 {
					t.Errorf("%s: %d limit rows, want 1", k, limits[k])
				}
			}
		}
		if psdbN[string(typ)] != sizes*2 {
			t.Errorf("%s: %d psdb cases, want %d", typ, psdbN[string(typ)], sizes*2)
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
	broken := subject.Subject[*ds.Data, Serializer]{Desc: results.Descriptor{Name: "broken"}, Bind: func(d *dsData) (Serializer, error) {
		inner, err := newLimit(d)
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
	_, md := workloadtest.Markdown(t, run, New())
	if !strings.Contains(md, table.FailedText) || !strings.Contains(md, "round trip") {
		t.Errorf("report does not show the failure:\n%s", md)
	}
}

// lossy drops the last decoded value.
type lossy struct{ Serializer }

func (l lossy) Out() *dsOutput {
	o := *l.Serializer.Out()
	if len(o.Int32) > 0 {
		o.Int32 = o.Int32[:len(o.Int32)-1]
	}
	return &o
}

type (
	dsData   = ds.Data
	dsOutput = ds.Output
)

// TestFullCapsVectors checks that the full scale measures vector types up
// to N = 100,000 features and scalar types at N = 1,000,000.
func TestFullCapsVectors(t *testing.T) {
	p, err := New().Plan(context.Background(), workload.Config{Scale: workload.Full})
	if err != nil {
		t.Fatal(err)
	}
	scalarsAtMillion := 0
	for _, c := range p.Cases {
		if c.Labels.Get("n") != "1000000" {
			continue
		}
		if ds.Type(c.Labels.Get("type")).IsVector() {
			t.Fatalf("%s: vector type at N = 1,000,000", c.FullName())
		}
		scalarsAtMillion++
	}
	if scalarsAtMillion == 0 {
		t.Error("no scalar case at N = 1,000,000")
	}
}
