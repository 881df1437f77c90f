package table

import (
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/serbench/serbench/results"
)

// Series is one named line of a chart.
type Series struct {
	Name string
	X, Y []float64
	// Lo and Hi, when set (one per point), are the ends of each point's
	// confidence interval, drawn as error bars.
	Lo, Hi []float64
	// Limit draws the series as a physical-limit row: grey and dashed.
	Limit bool
}

// LineChart draws one line per series, optionally on log axes.
type LineChart struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	// XFormat and YFormat label the ticks (default: compact numbers such
	// as 10k and 1M). Use Duration for an axis in nanoseconds.
	XFormat, YFormat func(float64) string
	// BinaryX puts a log X axis's ticks at powers of two (for byte sizes
	// formatted with Bytes: 1 KiB, 4 KiB … instead of 9.77 KiB).
	BinaryX bool
	// Categorical says the X values 1 … n are categories (named by
	// XFormat), not a scale: each series is drawn as dots side by side in
	// each category, no line joining them.
	Categorical bool
	Series      []Series
	// Palette gives each series its colour by name, the same in every
	// chart of a run (see RunPalette); nil colours by series order.
	Palette Palette
}

// Palette gives names their colours in plots: the i-th name gets the i-th
// colour of the report's colour-blind-safe palette (Okabe–Ito), then the
// same colours dashed. A nil palette colours by series order.
type Palette []string

// NewPalette returns a palette that gives names their colours in order.
func NewPalette(names ...string) Palette { return slices.Clone(names) }

// RunPalette is the palette of a run: its subjects in the order the run
// recorded them (descriptors first, then the cases), so a subject has one
// colour in every plot of the run.
func RunPalette(run *results.Run) Palette {
	var p Palette
	add := func(n string) {
		if n != "" && !slices.Contains(p, n) {
			p = append(p, n)
		}
	}
	for _, d := range run.Descriptors {
		if d.Key == "subject" && d.Role != results.RoleLimit {
			add(d.Name)
		}
	}
	for i := range run.Cases {
		if !run.Cases[i].IsLimit() {
			add(run.Cases[i].Labels.Get("subject"))
		}
	}
	return p
}

// Point is one labelled point of a scatter chart.
type Point struct {
	X, Y  float64
	Label string
}

// ScatterChart draws labelled points and, when Frontier is set, the Pareto
// frontier (points no other point beats on both X and Y, lower is better).
type ScatterChart struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	// XFormat and YFormat label the ticks, as for LineChart.
	XFormat, YFormat func(float64) string
	// BinaryX puts a log X axis's ticks at powers of two (see LineChart).
	BinaryX  bool
	Points   []Point
	Frontier bool
}

// ParetoFront returns the indexes of the points not dominated by any other
// (lower X and lower Y are better), sorted by X.
func ParetoFront(pts []Point) []int {
	idx := make([]int, 0, len(pts))
	for i, p := range pts {
		if finite(p.X) && finite(p.Y) {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool {
		pa, pb := pts[idx[a]], pts[idx[b]]
		if pa.X != pb.X {
			return pa.X < pb.X
		}
		return pa.Y < pb.Y
	})
	var out []int
	best := math.Inf(1)
	for _, i := range idx {
		if pts[i].Y < best {
			out = append(out, i)
			best = pts[i].Y
		}
	}
	return out
}

// Compact formats a number with a k/M/G suffix: 100, 10k, 1.5M.
func Compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', 3, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case a >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
