package nested

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/serbench/serbench/digest"
	"github.com/serbench/serbench/format/arrowipc"
	"github.com/serbench/serbench/results"
	"github.com/serbench/serbench/runner"
)

// runnerWants is what the runners for other languages measure of a
// dataset: every subject's full decode of the same rows the Go readers
// read (in the report's full-read table beside them), and, with queries,
// the sub-schema reads of the subjects that can project (a Parquet
// projection schema, an Avro reader schema; row formats decode, then
// project). A runner decodes bytes held in memory; the Go readers read
// their files from the page cache.
func (d *dsCases[T]) runnerWants(am arrowipc.Mapping[T], queries []*query) ([]runner.Want, error) {
	ds := &runner.Dataset{Name: fmt.Sprintf("%s-%d", d.name, d.n), Rows: d.n, Nested: runner.NestedSchema(am.Schema), Build: func() (*arrow.Schema, []arrow.RecordBatch, error) {
		recs, err := d.src.get()
		if err != nil {
			return nil, nil, err
		}
		return arrowBatches(am, recs)
	}}
	paths, err := leafPaths(am.Schema)
	if err != nil {
		return nil, err
	}
	full := runner.Want{Dataset: ds, Op: runner.OpDecode, Codec: "none", Group: d.name + "/" + QueryAll + "/read", Affinity: d.name,
		Metrics: map[string]float64{MetricRecords: float64(d.n)}, Budget: readBudget, MinCount: 3,
		// For estimates: a runner's decode costs about a Go row format's.
		OpTime: time.Duration(d.n) * d.perRecord(),
		Labels: func(subject string, s *runner.Subject) results.Labels {
			if s == nil { // the limit row: a floor, as the Go readers' read-bytes
				return d.labels(subject, "none", OpReadBytes, QueryAll, "")
			}
			return d.labels(subject, "none", OpRead, QueryAll, runnerTier(s))
		}}
	wants := []runner.Want{full}
	for _, q := range queries {
		if q.leaves == nil {
			continue
		}
		var cols []string
		for _, l := range q.leaves {
			p, ok := paths[l]
			if !ok {
				return nil, fmt.Errorf("query %s: leaf %q has no Arrow column", q.id, l)
			}
			cols = append(cols, p)
		}
		w := full
		w.Op, w.Query, w.Group = runner.OpQuery, strings.Join(cols, ","), d.name+"/"+q.id+"/read"
		w.Metrics = map[string]float64{MetricRecords: float64(d.n), MetricLeaves: float64(len(q.leaves))}
		w.Labels = func(subject string, s *runner.Subject) results.Labels {
			if s == nil {
				return d.labels(subject, "none", OpReadBytes, q.id, "")
			}
			return d.labels(subject, "none", OpRead, q.id, runnerTier(s))
		}
		// Only subjects that read less than the whole record: the row
		// formats' decode-then-project costs a full decode. Feather (the
		// Arrow IPC file) reads the selected columns' buffers only.
		w.Accept = func(s *runner.Subject) bool {
			return s.Format == "parquet" || s.Format == "avro" || s.Format == "feather"
		}
		wants = append(wants, w)
	}
	return wants, nil
}

// runnerTier is the projection tier of a runner's subject, by its format.
func runnerTier(s *runner.Subject) string {
	if s == nil {
		return TierDecodeProject
	}
	switch s.Format {
	case "parquet", "feather":
		return TierColumns
	case "avro":
		return TierNative
	}
	return TierDecodeProject
}

// arrowBatches converts records into record batches of the mapping's
// schema.
func arrowBatches[T any](am arrowipc.Mapping[T], recs []T) (*arrow.Schema, []arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, am.Schema)
	defer b.Release()
	var out []arrow.RecordBatch
	for i := range recs {
		if err := am.Append(b, &recs[i]); err != nil {
			for _, r := range out {
				r.Release()
			}
			return nil, nil, fmt.Errorf("record %d to Arrow: %w", i, err)
		}
		if (i+1)%arrowipc.DefaultBatchRows == 0 {
			out = append(out, b.NewRecordBatch())
		}
	}
	if len(recs)%arrowipc.DefaultBatchRows != 0 || len(recs) == 0 {
		out = append(out, b.NewRecordBatch())
	}
	return am.Schema, out, nil
}

// leafPaths maps the dataset's dotted leaf names (nested.Leaves) to the
// digest's column paths of the Arrow schema, which mark list elements
// ("images.url" → "images.[].url").
func leafPaths(schema *arrow.Schema) (map[string]string, error) {
	dg, err := digest.New(schema)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range dg.Paths() {
		out[strings.ReplaceAll(p, ".[]", "")] = p
	}
	return out, nil
}
