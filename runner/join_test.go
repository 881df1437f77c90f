package runner

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/serbench/serbench/bench"
	"github.com/serbench/serbench/results"
)

// TestJoinNesting checks that a subject labelled nesting=flat joins a
// flat dataset's groups and not a nested one's, and that NestedSchema
// tells the two apart.
func TestJoinNesting(t *testing.T) {
	flat := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	nested := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String)}}, nil)
	structs := arrow.NewSchema([]arrow.Field{{Name: "p", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64})}}, nil)
	maps := arrow.NewSchema([]arrow.Field{{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)}}, nil)
	for _, tc := range []struct {
		name   string
		schema *arrow.Schema
		want   []string // subjects that join, in order
	}{
		{"flat", flat, []string{"test:csv", "test:json", "test:copy"}},
		{"list", nested, []string{"test:json", "test:copy"}},
		{"struct", structs, []string{"test:json", "test:copy"}},
		{"map", maps, []string{"test:json", "test:copy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Hello{Language: "test", Subjects: []Subject{
				{Name: "csv", Format: "csv", Ops: []string{OpDecode}, Codecs: []string{"none"}, Labels: map[string]string{LabelNesting: NestingFlat}},
				{Name: "json", Format: "json", Ops: []string{OpDecode}, Codecs: []string{"none"}},
			}}
			ds := &Dataset{Name: tc.name, Rows: 1, Nested: NestedSchema(tc.schema)}
			w := Want{Dataset: ds, Op: OpDecode, Codec: "none", Group: "g", Labels: func(subject string, _ *Subject) results.Labels {
				return results.Labels{{Key: "subject", Value: subject}}
			}}
			cases, _ := Join("w", "Case", t.TempDir(), "file-B", []Ready{{Runner: &Runner{Name: "test"}, Hello: h}}, []Want{w})
			var got []string
			for _, c := range cases {
				got = append(got, c.Labels.Get("subject"))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("subjects %v, want %v", got, tc.want)
			}
		})
	}
}

// TestStopReason: a runner case's stop is the run's budget when the group
// was cut, else its count or its own budget.
func TestStopReason(t *testing.T) {
	for _, tc := range []struct {
		n, count int
		cut      bool
		want     string
	}{
		{6, 6, true, bench.StopRun},
		{3, 20, true, bench.StopRun},
		{20, 20, false, bench.StopCount},
		{7, 20, false, bench.StopBudget},
	} {
		if got := stopReason(tc.n, tc.count, tc.cut); got != tc.want {
			t.Errorf("stopReason(%d, %d, %v) = %q, want %q", tc.n, tc.count, tc.cut, got, tc.want)
		}
	}
}
