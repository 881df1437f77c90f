package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one named line of a chart.
type Series struct {
	Name string
	X, Y []float64
}

// LineChart draws one line per series, optionally on log axes.
type LineChart struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	// XFormat and YFormat label the ticks (default: compact numbers such
	// as 10k and 1M). Use Duration for an axis in nanoseconds.
	XFormat, YFormat func(float64) string
	Series           []Series
}

// SVG renders the chart. Points that a log axis cannot show (≤ 0) are
// dropped; a chart with no drawable point is an error.
func (c LineChart) SVG() ([]byte, error) {
	p := newPlot(c.Title, c.XLabel, c.YLabel, c.LogX, c.LogY)
	setTickFormat(&p.X, c.LogX, c.XFormat)
	setTickFormat(&p.Y, c.LogY, c.YFormat)
	// Lines of "time against size" charts rise to the right, leaving the
	// lower right free for the legend.
	p.Legend.Top, p.Legend.Left = false, false
	drawn := 0
	for i, s := range c.Series {
		xys := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			if j >= len(s.Y) || (c.LogX && s.X[j] <= 0) || (c.LogY && s.Y[j] <= 0) || !finite(s.X[j]) || !finite(s.Y[j]) {
				continue
			}
			xys = append(xys, plotter.XY{X: s.X[j], Y: s.Y[j]})
		}
		if len(xys) == 0 {
			continue
		}
		sort.Slice(xys, func(a, b int) bool { return xys[a].X < xys[b].X })
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("plot %q: %w", c.Title, err)
		}
		col := plotutil.Color(i)
		l.Color, pts.Color = col, col
		l.Dashes = plotutil.Dashes(i / len(plotutil.DefaultColors))
		pts.Shape = plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(s.Name, l, pts)
		drawn++
	}
	if drawn == 0 {
		return nil, fmt.Errorf("plot %q: no data to draw", c.Title)
	}
	// Leave room at the right for the legend and the last tick label.
	if c.LogX {
		p.X.Max *= 6
	} else {
		p.X.Max += 0.4 * (p.X.Max - p.X.Min)
	}
	return render(p)
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
	Points           []Point
	Frontier         bool
}

// SVG renders the scatter chart.
func (c ScatterChart) SVG() ([]byte, error) {
	p := newPlot(c.Title, c.XLabel, c.YLabel, c.LogX, c.LogY)
	setTickFormat(&p.X, c.LogX, c.XFormat)
	setTickFormat(&p.Y, c.LogY, c.YFormat)
	var xys plotter.XYs
	var labels []string
	for _, pt := range c.Points {
		if (c.LogX && pt.X <= 0) || (c.LogY && pt.Y <= 0) || !finite(pt.X) || !finite(pt.Y) {
			continue
		}
		xys = append(xys, plotter.XY{X: pt.X, Y: pt.Y})
		labels = append(labels, pt.Label)
	}
	if len(xys) == 0 {
		return nil, fmt.Errorf("plot %q: no data to draw", c.Title)
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, fmt.Errorf("plot %q: %w", c.Title, err)
	}
	sc.Color = color.RGBA{R: 70, G: 110, B: 180, A: 255}
	sc.Shape = draw.CircleGlyph{}
	p.Add(sc)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return nil, fmt.Errorf("plot %q: %w", c.Title, err)
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Size = vg.Points(6)
	}
	p.Add(lb)
	if c.Frontier {
		idx := ParetoFront(c.Points)
		var fr plotter.XYs
		for _, i := range idx {
			fr = append(fr, plotter.XY{X: c.Points[i].X, Y: c.Points[i].Y})
		}
		if len(fr) > 0 {
			l, err := plotter.NewLine(fr)
			if err != nil {
				return nil, fmt.Errorf("plot %q: %w", c.Title, err)
			}
			l.Color = color.RGBA{R: 200, G: 40, B: 40, A: 255}
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			p.Add(l)
			p.Legend.Add("Pareto frontier", l)
		}
	}
	return render(p)
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

func newPlot(title, xl, yl string, logX, logY bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xl
	p.Y.Label.Text = yl
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	return p
}

func render(p *plot.Plot) ([]byte, error) {
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, "svg")
	if err != nil {
		return nil, fmt.Errorf("plot %q: %w", p.Title.Text, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plot %q: %w", p.Title.Text, err)
	}
	return buf.Bytes(), nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// labelledTicks relabels the ticks of another Ticker.
type labelledTicks struct {
	inner  plot.Ticker
	format func(float64) string
}

func (t labelledTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := t.inner.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = t.format(ts[i].Value)
		}
	}
	return ts
}

func setTickFormat(ax *plot.Axis, log bool, f func(float64) string) {
	if f == nil {
		f = Compact
	}
	var inner plot.Ticker = plot.DefaultTicks{}
	if log {
		inner = plot.LogTicks{Prec: -1}
	}
	ax.Tick.Marker = labelledTicks{inner: inner, format: f}
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
