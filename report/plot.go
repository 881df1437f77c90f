package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/serbench/serbench/table"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// okabeIto is the colour-blind-safe palette of Okabe and Ito (2008),
// without its black, which the limit rows' grey stands apart from.
var okabeIto = [...]color.RGBA{
	{0, 114, 178, 255},   // blue
	{230, 159, 0, 255},   // orange
	{0, 158, 115, 255},   // bluish green
	{204, 121, 167, 255}, // reddish purple
	{86, 180, 233, 255},  // sky blue
	{213, 94, 0, 255},    // vermillion
	{240, 228, 66, 255},  // yellow
}

// limitGrey draws limit rows.
var limitGrey = color.RGBA{110, 110, 110, 255}

// style returns the colour, dash pattern and glyph of name (or of series
// number i when the palette does not know the name).
func style(p table.Palette, name string, i int) (color.Color, []vg.Length, draw.GlyphDrawer) {
	if p != nil {
		if k := slices.Index(p, name); k >= 0 {
			i = k
		} else {
			i = len(p) + i
		}
	}
	n := len(okabeIto)
	var dashes []vg.Length
	if i/n%2 == 1 {
		dashes = []vg.Length{vg.Points(5), vg.Points(2)}
	}
	return okabeIto[i%n], dashes, plotutil.Shape(i)
}

// errPoints are a series' points with their intervals, for error bars.
type errPoints struct {
	xys    plotter.XYs
	lo, hi []float64
}

func (e errPoints) Len() int                    { return len(e.xys) }
func (e errPoints) XY(i int) (float64, float64) { return e.xys[i].X, e.xys[i].Y }
func (e errPoints) YError(i int) (float64, float64) {
	return e.xys[i].Y - e.lo[i], e.hi[i] - e.xys[i].Y
}

// lineSVG renders a line chart. Points that a log axis cannot show (≤ 0) are
// dropped; a chart with no drawable point is an error. A categorical chart
// draws dots side by side in each category and no lines. Series whose
// names cross two factors (library-layout, see factorsOf) take their
// colour from the first and their dashes from the second, and the legend
// says which dash is which; intervals get a legend entry of their own.
func lineSVG(c *table.LineChart) ([]byte, error) {
	p := newPlot(c.Title, c.XLabel, c.YLabel, c.LogX, c.LogY)
	setTickFormat(&p.X, c.LogX, c.XFormat)
	if c.LogX && c.BinaryX {
		p.X.Tick.Marker = labelledTicks{inner: logTicks2{}, format: orCompact(c.XFormat)}
	}
	if c.Categorical {
		p.X.Tick.Marker = categoryTicks{format: orCompact(c.XFormat)}
	}
	setTickFormat(&p.Y, c.LogY, c.YFormat)
	legend := plot.NewLegend()
	var names []string
	drawn, intervals := 0, false
	var all []string
	for _, s := range c.Series {
		all = append(all, s.Name)
	}
	fs := factorsOf(all)
	for i, s := range c.Series {
		var ep errPoints
		withCI := len(s.Lo) == len(s.X) && len(s.Hi) == len(s.X)
		// Dots of a categorical chart sit side by side within their
		// category, in series order.
		dodge := 0.0
		if c.Categorical && len(c.Series) > 1 {
			dodge = (float64(i) - float64(len(c.Series)-1)/2) * min(0.6/float64(len(c.Series)-1), 0.15)
		}
		for j := range s.X {
			if j >= len(s.Y) || (c.LogX && s.X[j] <= 0) || (c.LogY && s.Y[j] <= 0) || !finite(s.X[j]) || !finite(s.Y[j]) {
				continue
			}
			ep.xys = append(ep.xys, plotter.XY{X: s.X[j] + dodge, Y: s.Y[j]})
			lo, hi := s.Y[j], s.Y[j]
			if withCI && finite(s.Lo[j]) && finite(s.Hi[j]) && (!c.LogY || s.Lo[j] > 0) {
				lo, hi = min(s.Lo[j], s.Y[j]), max(s.Hi[j], s.Y[j])
			}
			ep.lo, ep.hi = append(ep.lo, lo), append(ep.hi, hi)
		}
		if len(ep.xys) == 0 {
			continue
		}
		sort.Sort(byX(ep))
		l, pts, err := plotter.NewLinePoints(ep.xys)
		if err != nil {
			return nil, fmt.Errorf("plot %q: %w", c.Title, err)
		}
		col, dashes, glyph := style(c.Palette, s.Name, i)
		if fs != nil {
			col, dashes, glyph = fs.style(s.Name)
		}
		if s.Limit {
			col, dashes, glyph = limitGrey, []vg.Length{vg.Points(2), vg.Points(2)}, draw.BoxGlyph{}
		}
		l.Color, pts.Color = col, col
		l.Dashes = dashes
		pts.Shape = glyph
		if c.Categorical {
			pts.Radius = vg.Points(3.5)
			p.Add(pts)
		} else {
			p.Add(l, pts)
		}
		if withCI {
			eb, err := plotter.NewYErrorBars(ep)
			if err != nil {
				return nil, fmt.Errorf("plot %q: %w", c.Title, err)
			}
			eb.Color = col
			eb.CapWidth = vg.Points(4)
			p.Add(eb)
			intervals = true
		}
		if c.Categorical {
			legend.Add(s.Name, pts)
		} else {
			legend.Add(s.Name, l, pts)
		}
		names = append(names, s.Name)
		drawn++
	}
	if drawn == 0 {
		return nil, fmt.Errorf("plot %q: no data to draw", c.Title)
	}
	if fs != nil && !c.Categorical {
		for k, v := range fs.second {
			n := "line " + dashNames[k%len(dashNames)] + ": " + v
			legend.Add(n, dashThumb{dashes: factorDashes(k)})
			names = append(names, n)
		}
	}
	if intervals {
		const n = "bar: the median's 95% interval"
		legend.Add(n, intervalThumb{})
		names = append(names, n)
	}
	if c.Categorical {
		p.X.Min, p.X.Max = 0.5, math.Round(p.X.Max)+0.5
	}
	return renderWithLegend(p, legend, names)
}

// categoryTicks marks the integers of a categorical axis, each labelled
// by format, a label "a · b" on two lines so that neighbours stay apart.
type categoryTicks struct{ format func(float64) string }

// Ticks implements plot.Ticker.
func (t categoryTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for v := math.Ceil(lo); v <= hi; v++ {
		ts = append(ts, plot.Tick{Value: v, Label: strings.Replace(t.format(v), " · ", "\n", 1)})
	}
	return ts
}

// factors splits series names that cross two factors: "protobuf-flat",
// "protobuf-wrapped", "msgp-flat" … are a library (first) and a layout
// (second).
type factors struct {
	first, second []string
}

// dashNames name factorDashes' patterns in the legend.
var dashNames = [...]string{"solid", "dashed", "dotted", "dash-dot"}

// factorDashes is the dash pattern of the k-th value of the second factor.
func factorDashes(k int) []vg.Length {
	switch k % len(dashNames) {
	case 1:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		return []vg.Length{vg.Points(1.5), vg.Points(2)}
	case 3:
		return []vg.Length{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}
	}
	return nil
}

// splitFactors cuts a name at its last hyphen before any parenthesis:
// "msgp-wrapped (outer only)" is "msgp" and "wrapped (outer only)".
func splitFactors(name string) (string, string, bool) {
	base := name
	if i := strings.Index(name, " ("); i >= 0 {
		base = name[:i]
	}
	i := strings.LastIndex(base, "-")
	if i <= 0 || i == len(base)-1 {
		return "", "", false
	}
	return name[:i], name[i+1:], true
}

// factorsOf returns the factors of names when every name has two, the
// second takes two to four values and at least two first values each come
// with two second values or more; else nil (the names are colored one by
// one).
func factorsOf(names []string) *factors {
	f := &factors{}
	per := map[string]int{}
	for _, n := range names {
		a, b, ok := splitFactors(n)
		if !ok {
			return nil
		}
		if !slices.Contains(f.first, a) {
			f.first = append(f.first, a)
		}
		if !slices.Contains(f.second, b) {
			f.second = append(f.second, b)
		}
		per[a]++
	}
	crossed := 0
	for _, n := range per {
		if n >= 2 {
			crossed++
		}
	}
	if len(f.second) < 2 || len(f.second) > len(dashNames) || crossed < 2 {
		return nil
	}
	return f
}

// style is a name's colour and glyph (by its first factor) and dashes (by
// its second).
func (f *factors) style(name string) (color.Color, []vg.Length, draw.GlyphDrawer) {
	a, b, _ := splitFactors(name)
	i, k := slices.Index(f.first, a), slices.Index(f.second, b)
	n := len(okabeIto)
	return okabeIto[i%n], factorDashes(k), plotutil.Shape(i)
}

// dashThumb is a legend entry's grey line in one dash pattern.
type dashThumb struct{ dashes []vg.Length }

// Thumbnail implements plot.Thumbnailer.
func (d dashThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle{Color: limitGrey, Width: vg.Points(1), Dashes: d.dashes}, c.Min.X, y, c.Max.X, y)
}

// intervalThumb is the legend entry of the error bars: a grey bar with
// caps.
type intervalThumb struct{}

// Thumbnail implements plot.Thumbnailer.
func (intervalThumb) Thumbnail(c *draw.Canvas) {
	ls := draw.LineStyle{Color: limitGrey, Width: vg.Points(1)}
	x := c.Center().X
	lo, hi := c.Min.Y+vg.Points(1), c.Max.Y-vg.Points(1)
	c.StrokeLine2(ls, x, lo, x, hi)
	c.StrokeLine2(ls, x-vg.Points(2), lo, x+vg.Points(2), lo)
	c.StrokeLine2(ls, x-vg.Points(2), hi, x+vg.Points(2), hi)
}

// byX sorts a series' points by X, keeping their intervals with them.
type byX errPoints

func (b byX) Len() int           { return len(b.xys) }
func (b byX) Less(i, j int) bool { return b.xys[i].X < b.xys[j].X }
func (b byX) Swap(i, j int) {
	b.xys[i], b.xys[j] = b.xys[j], b.xys[i]
	b.lo[i], b.lo[j] = b.lo[j], b.lo[i]
	b.hi[i], b.hi[j] = b.hi[j], b.hi[i]
}

// SVG renders the scatter chart: every point, the Pareto frontier drawn
// and labelled first, then as many other labels as fit without
// overlapping (the report's tables carry every value).
func scatterSVG(c *table.ScatterChart) ([]byte, error) {
	p := newPlot(c.Title, c.XLabel, c.YLabel, c.LogX, c.LogY)
	setTickFormat(&p.X, c.LogX, c.XFormat)
	if c.LogX && c.BinaryX {
		p.X.Tick.Marker = labelledTicks{inner: logTicks2{}, format: orCompact(c.XFormat)}
	}
	setTickFormat(&p.Y, c.LogY, c.YFormat)
	var keep []int
	var xys plotter.XYs
	for i, pt := range c.Points {
		if (c.LogX && pt.X <= 0) || (c.LogY && pt.Y <= 0) || !finite(pt.X) || !finite(pt.Y) {
			continue
		}
		keep = append(keep, i)
		xys = append(xys, plotter.XY{X: pt.X, Y: pt.Y})
	}
	if len(xys) == 0 {
		return nil, fmt.Errorf("plot %q: no data to draw", c.Title)
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, fmt.Errorf("plot %q: %w", c.Title, err)
	}
	sc.Color = okabeIto[0]
	sc.Shape = draw.CircleGlyph{}
	p.Add(sc)
	legend := plot.NewLegend()
	names := []string{"format + codec"}
	legend.Add(names[0], sc)
	onFront := map[int]bool{}
	if c.Frontier {
		// The frontier of the points drawn: one a log axis cannot show
		// (≤ 0) is on no line of it.
		drawn := make([]table.Point, len(keep))
		for k, i := range keep {
			drawn[k] = c.Points[i]
		}
		var fr plotter.XYs
		for _, k := range table.ParetoFront(drawn) {
			onFront[keep[k]] = true
			fr = append(fr, plotter.XY{X: drawn[k].X, Y: drawn[k].Y})
		}
		if len(fr) > 0 {
			l, pts, err := plotter.NewLinePoints(fr)
			if err != nil {
				return nil, fmt.Errorf("plot %q: %w", c.Title, err)
			}
			l.Color, pts.Color = okabeIto[5], okabeIto[5]
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			pts.Shape = draw.CircleGlyph{}
			pts.Radius = vg.Points(3.5)
			p.Add(l, pts)
			legend.Add("Pareto frontier", l, pts)
			names = append(names, "Pareto frontier")
		}
	}
	// Label the frontier first, then the rest where there is room.
	order := slices.Clone(keep)
	sort.SliceStable(order, func(a, b int) bool { return onFront[order[a]] && !onFront[order[b]] })
	pl := &placedLabels{avoid: xys, style: draw.TextStyle{Color: color.Black, XAlign: draw.XLeft, YAlign: draw.YBottom, Handler: p.Title.TextStyle.Handler}}
	pl.style.Font = p.X.Tick.Label.Font
	pl.style.Font.Size = vg.Points(7)
	for _, i := range order {
		if pt := c.Points[i]; pt.Label != "" {
			pl.pts = append(pl.pts, plotter.XY{X: pt.X, Y: pt.Y})
			pl.labels = append(pl.labels, pt.Label)
		}
	}
	if len(pl.labels) > 0 {
		p.Add(pl)
	}
	pad(&p.X, c.LogX, 0.04, 0.12)
	pad(&p.Y, c.LogY, 0.06, 0.06)
	return renderWithLegend(p, legend, names)
}

// pad widens an axis's range by the fractions lo and hi of its span (in
// log space on a log axis), so points and their labels stay inside.
func pad(ax *plot.Axis, log bool, lo, hi float64) {
	if log && ax.Min > 0 && ax.Max > 0 {
		span := math.Log10(ax.Max) - math.Log10(ax.Min)
		if span == 0 {
			span = 1
		}
		ax.Min /= math.Pow(10, lo*span)
		ax.Max *= math.Pow(10, hi*span)
		return
	}
	span := ax.Max - ax.Min
	if span == 0 {
		span = 1
	}
	ax.Min -= lo * span
	ax.Max += hi * span
}

// placedLabels labels points without overlap, placed when the plot is
// drawn (in the canvas's own coordinates, with the font's real widths):
// each label, in order, takes the first free spot of right, left, above,
// below and the four corners of its point, free meaning inside the data
// area and clear of every label placed and every point's marker; a label
// with no free spot is left out (the report's tables carry every value).
type placedLabels struct {
	pts    plotter.XYs
	labels []string
	// avoid are the points whose markers no label may cover.
	avoid plotter.XYs
	style draw.TextStyle
}

// markerRadius is the room a point's marker takes, with a margin.
const markerRadius = 4.5

// Plot implements plot.Plotter.
func (l *placedLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	type box struct{ x0, y0, x1, y1 vg.Length }
	overlaps := func(a, b box) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }
	r := vg.Points(markerRadius)
	var taken []box
	for _, xy := range l.avoid {
		x, y := trX(xy.X), trY(xy.Y)
		taken = append(taken, box{x - r, y - r, x + r, y + r})
	}
	h := l.style.Height("M")
	gap := vg.Points(1)
	for i, label := range l.labels {
		x, y := trX(l.pts[i].X), trY(l.pts[i].Y)
		w := l.style.Width(label)
		for _, o := range [][2]vg.Length{
			{r + gap, -h / 2}, {-r - gap - w, -h / 2}, {-w / 2, r + gap}, {-w / 2, -r - gap - h},
			{r, r}, {r, -r - h}, {-r - w, r}, {-r - w, -r - h},
		} {
			b := box{x + o[0], y + o[1], x + o[0] + w, y + o[1] + h}
			if b.x0 < c.Min.X || b.x1 > c.Max.X || b.y0 < c.Min.Y || b.y1 > c.Max.Y {
				continue
			}
			free := true
			for _, t := range taken {
				if overlaps(b, t) {
					free = false
					break
				}
			}
			if free {
				taken = append(taken, b)
				c.FillText(l.style, vg.Point{X: b.x0, Y: b.y0}, label)
				break
			}
		}
	}
}

func newPlot(title, xl, yl string, logX, logY bool) *plot.Plot {
	p := plot.New()
	// The page's font (Liberation Sans, metric-compatible with Arial and
	// Helvetica), not gonum's default serif.
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Variant = "Sans"
	}
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

// Size of every chart.
const (
	plotWidth  = 7 * vg.Inch
	plotHeight = 4.5 * vg.Inch
)

// renderWithLegend draws the plot and, at its right outside the data, the
// legend.
func renderWithLegend(p *plot.Plot, legend plot.Legend, names []string) ([]byte, error) {
	legend.TextStyle.Font.Size = vg.Points(9)
	legend.TextStyle.Font.Variant = "Sans"
	legend.Padding = vg.Points(3)
	legend.Top, legend.Left = true, true
	var legW vg.Length
	for _, n := range names {
		if w := legend.TextStyle.Width(n); w > legW {
			legW = w
		}
	}
	legW += legend.ThumbnailWidth + 3*legend.TextStyle.Width(" ")
	legW = min(legW, plotWidth/2)
	width := plotWidth + legW
	saneRange(&p.X)
	saneRange(&p.Y)
	c := vgsvg.New(width, plotHeight)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -legW, 0, 0))
	area := draw.Crop(dc, plotWidth+legend.TextStyle.Width(" "), 0, 0, -vg.Points(30))
	legend.Draw(area)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plot %q: %w", p.Title.Text, err)
	}
	return buf.Bytes(), nil
}

// saneRange makes an axis's range one gonum draws: finite, positive on a
// log axis, and wider than rounding. gonum widens an empty range by ±1,
// which changes nothing past 2^53 and crosses zero on a log axis below 1,
// and then panics ("illegal range", "Values must be greater than 0").
func saneRange(ax *plot.Axis) {
	_, isLog := ax.Scale.(plot.LogScale)
	lo, hi := ax.Min, ax.Max
	if math.IsNaN(lo) || math.IsNaN(hi) {
		lo, hi = 0, 0
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	// Far inside float64's range, so that widening cannot overflow.
	const tiny, huge = 1e-300, 1e300
	if isLog {
		lo, hi = min(max(lo, tiny), huge), min(max(hi, tiny), huge)
		if hi <= lo*(1+1e-6) {
			lo, hi = lo/2, hi*2
		}
	} else {
		lo, hi = min(max(lo, -huge), huge), min(max(hi, -huge), huge)
		if m := max(math.Abs(lo), math.Abs(hi)); hi-lo <= m*1e-6 {
			d := max(m*0.01, 1)
			lo, hi = lo-d, hi+d
		}
	}
	ax.Min, ax.Max = lo, hi
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// trimZeros drops the zero decimals of a tick label: "50.0 µs" → "50 µs".
var trimZeros = regexp.MustCompile(`(\d)\.0+\b`)

// labelledTicks relabels the ticks of another Ticker.
type labelledTicks struct {
	inner  plot.Ticker
	format func(float64) string
}

func (t labelledTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := t.inner.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = trimZeros.ReplaceAllString(t.format(ts[i].Value), "$1")
		}
	}
	return ts
}

func setTickFormat(ax *plot.Axis, log bool, f func(float64) string) {
	if f == nil {
		f = table.Compact
	}
	var inner plot.Ticker = plot.DefaultTicks{}
	if log {
		inner = logTicks125{}
	}
	ax.Tick.Marker = labelledTicks{inner: inner, format: f}
}

// orCompact returns f, or table.Compact when f is nil.
func orCompact(f func(float64) string) func(float64) string {
	if f == nil {
		return table.Compact
	}
	return f
}

// logTicks2 marks a log axis at powers of two, labelling every second,
// fourth … so that at most about eight carry a label.
type logTicks2 struct{}

func (logTicks2) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	}
	first, last := int(math.Ceil(math.Log2(lo))), int(math.Floor(math.Log2(hi)))
	step := 1
	for (last-first)/step > 8 {
		step *= 2
	}
	var ts []plot.Tick
	for e := first; e <= last; e++ {
		t := plot.Tick{Value: math.Exp2(float64(e))}
		if (e-first)%step == 0 {
			t.Label = "x"
		}
		ts = append(ts, t)
	}
	return ts
}

// logTicks125 marks a log axis at 1, 2 and 5 times each power of ten
// (labelled) and at the other integers (unlabelled), so that an axis
// spanning less than a decade still has labelled ticks.
type logTicks125 struct{}

func (logTicks125) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	}
	var ts []plot.Tick
	labelled := 0
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		base := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * base
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = "x"
				labelled++
			}
			ts = append(ts, t)
		}
	}
	if labelled < 2 {
		ts = append(ts, plot.Tick{Value: lo, Label: "x"}, plot.Tick{Value: hi, Label: "x"})
	}
	// Too many decades: label the powers of ten only.
	if labelled > 12 {
		for i := range ts {
			if l := math.Log10(ts[i].Value); math.Abs(l-math.Round(l)) > 1e-9 {
				ts[i].Label = ""
			}
		}
	}
	return ts
}
