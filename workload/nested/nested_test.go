package nested

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/dataset/nested/tpch"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/workload"
)

func TestMain(m *testing.M) {
	tpch.RunChildIfRequested()
	os.Exit(m.Run())
}

// tinySizes is a plan small enough for unit tests.
func tinySizes() sizes {
	return sizes{TPCH: 300, Media: 300, UserEvents: 40, Singles: 2, PerK: 1, DecodeProject: true}
}

// runPlan measures every case of a plan and returns the results.
func runPlan(t *testing.T, p *workload.Plan) []results.Case {
	t.Helper()
	var out []results.Case
	err := bench.RunAll(context.Background(), p.Cases, bench.Options{SampleTime: time.Millisecond, Count: 1}, nil,
		func(c results.Case) error { out = append(out, c); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPlanRuns measures a tiny plan of every dataset: every case passes
// its verification (every record, projected for sub-schema queries).
func TestPlanRuns(t *testing.T) {
	datasets := []string{"media", "userevents"}
	if !testing.Short() {
		datasets = append(datasets, "tpch")
	}
	cfg := workload.Config{TempDir: t.TempDir()}
	p, err := newPlan(context.Background(), tinySizes(), cfg, datasets, builtinRows())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, c := range runPlan(t, p) {
		if c.Status != results.StatusOK {
			t.Errorf("%s: %s: %s", c.FullName(), c.Status, c.Error)
		}
	}
}

// TestDecodeProjectScale: without DecodeProject (the default scale) no row
// format reads a sub-schema by decoding its records whole; the readers
// that skip (reader schema, projection structs, columnar files) read every
// query either way, and the full reads are the same.
func TestDecodeProjectScale(t *testing.T) {
	count := func(dp bool) (rowQueries, skipping, full int) {
		sz := tinySizes()
		sz.DecodeProject = dp
		p, err := newPlan(context.Background(), sz, workload.Config{TempDir: t.TempDir()}, []string{"userevents"}, builtinRows())
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		for _, c := range p.Cases {
			q, s := c.Labels.Get("query"), c.Labels.Get(LabelSubject)
			switch {
			case q == QueryAll:
				full++
			case q == "":
			case strings.HasSuffix(s, StructParSuffix) || s == SubjectAvroReaderPar:
				skipping++
			case c.Labels.Get("tier") == TierDecodeProject && strings.HasSuffix(s, ParSuffix):
				rowQueries++
			}
		}
		return rowQueries, skipping, full
	}
	rq, sk, full := count(false)
	rqAll, skAll, fullAll := count(true)
	if rq != 0 || rqAll == 0 {
		t.Errorf("decode-and-project row reads of sub-schemas: %d without DecodeProject, %d with; want 0 and some", rq, rqAll)
	}
	if sk == 0 || sk != skAll || full != fullAll {
		t.Errorf("skipping readers %d vs %d, full reads %d vs %d: want the same, and some", sk, skAll, full, fullAll)
	}
}
