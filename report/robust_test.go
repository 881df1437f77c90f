package report

import (
	"strings"
	"testing"

	"github.com/serbench/serbench/table"

	"github.com/serbench/serbench/results"
)

// TestBuildLeavesOutNilBlocks: a section that returns the nil table of a
// builder that found nothing (SubjectsTable on a run without descriptors,
// as the golden test's section does on such a run) is left out; it used to
// panic in Build.
func TestBuildLeavesOutNilBlocks(t *testing.T) {
	run, err := results.Read(strings.NewReader(`{"kind":"env","schema":4}`+"\n"+
		`{"kind":"case","workload":"features","name":"F","labels":[{"k":"subject","v":"a"}],"status":"ok","samples":[{"iters":1,"ns_op":3}]}`+"\n"), "r.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	layouts := map[string][]table.Section{"features": {
		{Title: "Subjects", Blocks: []table.BlockSpec{{Subjects: "subject"}}},
		{Title: "Nothing at all", Blocks: []table.BlockSpec{{Derived: "nothing"}}},
		{Title: "Some", Blocks: []table.BlockSpec{{Derived: "some"}}},
	}}
	derived := []map[string]table.Derived{{"features": {
		"nothing": {nil, (*Text)(nil), (*table.Plot)(nil), (*Code)(nil), (*table.Table)(nil)},
		"some":    {(*table.Table)(nil), &Text{Body: "kept"}, nil},
	}}}
	doc, err := Build(Input{Runs: []*results.Run{run}, Layouts: layouts, Derived: derived})
	if err != nil {
		t.Fatal(err)
	}
	var md, html strings.Builder
	doc.WriteMarkdown(&md)
	doc.WriteHTML(&html)
	if strings.Contains(md.String(), "### Subjects") || strings.Contains(md.String(), "### Nothing at all") {
		t.Errorf("a section of nil blocks was kept:\n%s", md.String())
	}
	if !strings.Contains(md.String(), "### Some\n\nkept") {
		t.Errorf("the section with a block lost it:\n%s", md.String())
	}
}

// TestChartsOfDegenerateData: charts whose points gonum cannot give a range
// to on its own render instead of panicking: one value far past 2^53 (gonum
// widens an empty range by ±1, which changes nothing there), one value
// below 1 on a log axis (±1 crosses zero), and a Pareto frontier on log
// axes through a point the axis cannot show (0 B/op).
func TestChartsOfDegenerateData(t *testing.T) {
	for _, tt := range []struct {
		name  string
		chart table.Chart
	}{
		{"line of one huge value", &table.LineChart{Title: "t", Series: []table.Series{{Name: "a", X: []float64{1, 2}, Y: []float64{9e18, 9e18}}}}},
		{"line of one huge x", &table.LineChart{Title: "t", Series: []table.Series{{Name: "a", X: []float64{1e300, 1e300}, Y: []float64{1, 2}}}}},
		{"line of one small value on log axes", &table.LineChart{Title: "t", LogX: true, LogY: true, Series: []table.Series{{Name: "a", X: []float64{0.5}, Y: []float64{0.25}}}}},
		{"line of one value on log axes with intervals", &table.LineChart{Title: "t", LogY: true, YFormat: table.Duration,
			Series: []table.Series{{Name: "a", X: []float64{3}, Y: []float64{0.5}, Lo: []float64{0.5}, Hi: []float64{0.5}}}}},
		{"line spanning float64 on log axes", &table.LineChart{Title: "t", LogX: true, LogY: true, BinaryX: true,
			Series: []table.Series{{Name: "a", X: []float64{1e-300, 1e300}, Y: []float64{1e-300, 1e300}}}}},
		{"scatter of one huge value", &table.ScatterChart{Title: "t", Points: []table.Point{{X: 9e18, Y: 9e18, Label: "a"}, {X: 9e18, Y: 9e18, Label: "b"}}, Frontier: true}},
		{"scatter frontier through 0 on log axes", &table.ScatterChart{Title: "t", LogX: true, LogY: true, Frontier: true,
			Points: []table.Point{{X: 0, Y: 5, Label: "zero B/op"}, {X: 100, Y: 10, Label: "a"}, {X: 1000, Y: 2, Label: "b"}}}},
		{"scatter of one small value on log axes", &table.ScatterChart{Title: "t", LogX: true, LogY: true, Points: []table.Point{{X: 0.5, Y: 0.5}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			svg, err := drawChart(tt.chart)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(svg), "<svg") {
				t.Errorf("no SVG: %.200s", svg)
			}
		})
	}
}

// TestIntPastInt64: integers past int64's range print as themselves (a
// conversion to int64 printed -9,223,372,036,854,775,808).
func TestIntPastInt64(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		f    func(float64) string
		want string
	}{
		{1.8e19, table.Int, "18,000,000,000,000,000,000"},
		{-1e20, table.Int, "-100,000,000,000,000,000,000"},
		{1.8e19, table.Count, "18,000,000,000,000,000,000"},
		{2e19, table.Float, "20,000,000,000,000,000,000"},
		{-0.4, table.Int, "0"},
		{-0.6, table.Int, "-1"},
		{1234567.5, table.Int, "1,234,568"},
	} {
		if got := tt.f(tt.v); got != tt.want {
			t.Errorf("%g: got %q, want %q", tt.v, got, tt.want)
		}
	}
}
