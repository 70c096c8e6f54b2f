package report

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart size in points (1/72 in); the HTML report scales it to its column.
const (
	chartWidth  = 640
	chartHeight = 360
)

// chartFont is the face every chart text uses. gonum/plot measures text with
// its embedded Liberation fonts; the SVG names the family and falls back to
// the metric-compatible Arial, then any sans-serif. The HTML report embeds the
// face once (chartFontCSS), so labels sit where gonum measured them offline.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// chartFamily is the font-family vgsvg writes for chartFont, and its
// replacement with fallbacks.
const (
	chartFamily         = "font-family:Liberation Sans;"
	chartFamilyFallback = "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"
)

// palette is Okabe and Ito's colour-blind safe palette (without its yellow,
// too pale on white), then four of Paul Tol's "muted" colours and
// Tableau's grey, each far from the others (TestPaletteDistinct): twelve
// series get twelve colours. Series also differ by glyph shape.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0x33, 0x22, 0x88, 0xff}, // indigo (Tol)
	{0x99, 0x99, 0x33, 0xff}, // olive (Tol)
	{0x88, 0x22, 0x55, 0xff}, // wine (Tol)
	{0x44, 0xAA, 0x99, 0xff}, // teal (Tol)
	{0x7F, 0x7F, 0x7F, 0xff}, // grey (Tableau)
}

var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.PlusGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{},
	draw.PyramidGlyph{},
}

// seriesColor is the colour of the i-th series; the HTML tables reuse it.
func seriesColor(i int) color.RGBA { return palette[i%len(palette)] }

// RenderChartSVG draws c as a standalone SVG image of about 640×360 pt with
// gonum/plot: a line chart (numeric X, one line with points per series,
// min–max error bars) or a bar chart (categorical X, grouped bars per series,
// min–max error bars), a legend, and the axis labels. Points a log axis
// cannot show (values ≤ 0) are left out and said so under the title.
func RenderChartSVG(c Chart) ([]byte, error) {
	svg, _, err := renderChart(c, true)
	if err != nil {
		return nil, err
	}
	// Name the image for assistive technology.
	if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
		if j := bytes.IndexByte(svg[i:], '>'); j >= 0 {
			at := i + j + 1
			title := "<title>" + html.EscapeString(strings.TrimSuffix(chartAlt(c), altTableHint)) + "</title>"
			svg = append(svg[:at:at], append([]byte(title), svg[at:]...)...)
		}
	}
	return svg, nil
}

// renderChart draws c; with title false the caller shows the title (and the
// returned notes) itself.
func renderChart(c Chart, title bool) (svg []byte, notes []string, err error) {
	defer func() {
		// gonum/plot panics on some inputs it cannot draw; report them.
		if r := recover(); r != nil {
			svg, err = nil, fmt.Errorf("chart %q: %v", c.Title, r)
		}
	}()
	var cp chartPlot
	switch c.Kind {
	case "line", "":
		cp, err = linePlot(c)
	case "bar":
		cp, err = barPlot(c)
	default:
		return nil, nil, fmt.Errorf("chart %q: unknown kind %q (want line or bar)", c.Title, c.Kind)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("chart %q: %w", c.Title, err)
	}
	p, leg, notes := cp.p, cp.leg, cp.notes
	if title && (c.Title != "" || len(notes) > 0) {
		p.Title.Text = strings.TrimSpace(c.Title + "\n" + strings.Join(notes, "; "))
		p.Title.TextStyle.Font = font.From(chartFont, 13)
		p.Title.Padding = vg.Points(6)
	}

	canvas := vgsvg.New(vg.Points(chartWidth), vg.Points(chartHeight))
	dc := draw.New(canvas)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	dc = draw.Crop(dc, 4, -4, 4, -6)

	// The legend has a strip of its own right of the plot, so it never
	// covers data.
	legendW := vg.Length(0)
	if len(c.Series) > 0 {
		legendW = leg.Rectangle(dc).Size().X + 12
	}
	area := draw.Crop(dc, 0, -legendW, 0, 0)
	if c.Kind == "bar" {
		sizeBars(p, cp.bars, area)
	} else {
		thinTicks(p, area)
	}
	p.Draw(area)
	if legendW > 0 {
		data := p.DataCanvas(area)
		lc := dc
		lc.Min.X = dc.Max.X - legendW + 12
		lc.Max.Y = data.Max.Y
		leg.Draw(lc)
	}

	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return nil, nil, fmt.Errorf("chart %q: %w", c.Title, err)
	}
	return bytes.ReplaceAll(b.Bytes(), []byte(chartFamily), []byte(chartFamilyFallback)), notes, nil
}

// chartPlot is a chart laid out by gonum/plot, before drawing.
type chartPlot struct {
	p     *plot.Plot
	leg   plot.Legend
	notes []string
	bars  []*plotter.BarChart
}

// newPlot is a plot with chartFont everywhere and the axis labels of c.
func newPlot(c Chart) (*plot.Plot, plot.Legend) {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = c.XLabel, c.YLabel
	p.X.Label.TextStyle.Font = font.From(chartFont, 13)
	p.Y.Label.TextStyle.Font = font.From(chartFont, 13)
	p.X.Tick.Label.Font = font.From(chartFont, 11)
	p.Y.Tick.Label.Font = font.From(chartFont, 11)
	p.Y.Tick.Marker = groupedTicks{}
	p.X.Label.Padding, p.Y.Label.Padding = vg.Points(4), vg.Points(4)
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xe4}
	grid.Horizontal.Color = color.Gray{Y: 0xe4}
	if c.Kind == "bar" {
		grid.Vertical.Width = 0
	}
	p.Add(grid)
	leg := plot.NewLegend()
	leg.TextStyle.Font = font.From(chartFont, 12)
	leg.Top, leg.Left = true, true
	leg.Padding = vg.Points(3)
	leg.ThumbnailWidth = vg.Points(22)
	return p, leg
}

// groupedTicks are gonum's ticks labelled like the tables (35,000 rather
// than 35000).
type groupedTicks struct{ plot.Ticker }

func (g groupedTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	if g.Ticker == nil {
		ts = plot.DefaultTicks{}.Ticks(min, max)
	} else {
		ts = g.Ticker.Ticks(min, max)
	}
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = formatNumber(ts[i].Value)
		}
	}
	return ts
}

// legendName shortens long series names so the legend leaves the plot its
// room; the table beside the chart has them whole.
func legendName(s string) string {
	const most = 28
	if r := []rune(s); len(r) > most {
		return string(r[:most-1]) + "…"
	}
	return s
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// spread is the min–max error bar of pt relative to its median; zero when
// the point carries no spread or (on a log axis) when the bar would reach
// zero or below.
func spread(pt ChartPoint, ylog bool) (lo, hi float64) {
	if pt.Min == 0 && pt.Max == 0 || !finite(pt.Min) || !finite(pt.Max) {
		return 0, 0
	}
	lo, hi = math.Max(pt.Y-pt.Min, 0), math.Max(pt.Max-pt.Y, 0)
	if ylog && pt.Min <= 0 {
		lo = 0
	}
	return lo, hi
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func linePlot(c Chart) (chartPlot, error) {
	p, leg := newPlot(c)
	var notes []string
	if err := addShades(p, &leg, c); err != nil {
		return chartPlot{}, err
	}
	skipped, plotted := 0, 0
	xs := map[float64]string{}
	for i, s := range c.Series {
		col := seriesColor(i)
		var xys plotter.XYs
		var errs plotter.YErrors
		for _, pt := range s.Points {
			if !finite(pt.X) || !finite(pt.Y) || c.XLog && pt.X <= 0 || c.YLog && pt.Y <= 0 {
				skipped++
				continue
			}
			lo, hi := spread(pt, c.YLog)
			xys = append(xys, plotter.XY{X: pt.X, Y: pt.Y})
			errs = append(errs, struct{ Low, High float64 }{lo, hi})
			if _, ok := xs[pt.X]; !ok || xs[pt.X] == "" {
				xs[pt.X] = pt.XLabel
			}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if len(xys) == 0 {
			// A legend entry still says the series exists.
			line, points, err = &plotter.Line{}, &plotter.Scatter{}, nil
		}
		if err != nil {
			return chartPlot{}, fmt.Errorf("series %q: %w", s.Name, err)
		}
		line.Color, line.Width = col, vg.Points(1.6)
		points.Color, points.Radius, points.Shape = col, vg.Points(3), glyphs[i%len(glyphs)]
		name := s.Name
		if len(xys) == 0 {
			name += " (no data)"
		} else {
			eb := &plotter.YErrorBars{XYs: xys, YErrors: errs, CapWidth: vg.Points(6),
				LineStyle: draw.LineStyle{Color: col, Width: vg.Points(1)}}
			p.Add(eb, line, points)
			plotted += len(xys)
		}
		leg.Add(legendName(name), line, points)
	}
	if skipped > 0 {
		what := "not finite"
		if c.XLog || c.YLog {
			what = "≤ 0 or not finite, not shown on the log axis"
		}
		notes = append(notes, plural(skipped, "point", "points")+" "+what)
	}
	if plotted > 0 {
		logAxis(&p.X, c.XLog)
		logAxis(&p.Y, c.YLog)
	}
	if !c.YLog || plotted == 0 {
		if p.Y.Min > 0 {
			p.Y.Min = 0 // throughput and latency read against zero
		}
		if p.Y.Max <= p.Y.Min {
			p.Y.Max = p.Y.Min + 1
		}
		p.Y.Max *= 1.05
	}
	// Few distinct X values (clients 1, 2, 4, …; sizes): tick each of them.
	if n := len(xs); n > 0 && n <= 12 {
		var ticks plot.ConstantTicks
		for x, label := range xs {
			if label == "" {
				label = formatNumber(x)
			}
			ticks = append(ticks, plot.Tick{Value: x, Label: label})
		}
		sortTicks(ticks)
		p.X.Tick.Marker = ticks
	}
	return chartPlot{p: p, leg: leg, notes: notes}, nil
}

// addShades draws c's shaded ranges of x behind its data, over the y range
// of its points.
func addShades(p *plot.Plot, leg *plot.Legend, c Chart) error {
	if len(c.Shades) == 0 {
		return nil
	}
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, pt := range s.Points {
			if finite(pt.Y) && (!c.YLog || pt.Y > 0) {
				ylo, yhi = min(ylo, pt.Y), max(yhi, pt.Y)
			}
		}
	}
	if !finite(ylo) || !finite(yhi) {
		return nil
	}
	for _, sh := range c.Shades {
		if !finite(sh.Lo) || !finite(sh.Hi) || sh.Hi <= sh.Lo {
			continue
		}
		poly, err := plotter.NewPolygon(plotter.XYs{{X: sh.Lo, Y: ylo}, {X: sh.Hi, Y: ylo}, {X: sh.Hi, Y: yhi}, {X: sh.Lo, Y: yhi}})
		if err != nil {
			return fmt.Errorf("shade %q: %w", sh.Label, err)
		}
		poly.Color = color.RGBA{R: 120, G: 120, B: 120, A: 60}
		poly.LineStyle.Width = 0
		p.Add(poly)
		leg.Add(legendName(sh.Label), poly)
	}
	return nil
}

// logAxis puts a on a log scale, widening a one-value range so that it stays
// above zero.
func logAxis(a *plot.Axis, on bool) {
	if !on {
		return
	}
	if a.Min == a.Max {
		a.Min, a.Max = a.Min/2, a.Max*2
	}
	a.Scale = plot.LogScale{}
	a.Tick.Marker = groupedTicks{logTicks{}}
}

// logTicks label a log axis densely enough to read its points: 1, 2 and 5
// of each decade (every digit when that gives fewer than three labels),
// with unlabelled marks at the other digits. gonum's LogTicks label only
// powers of ten: a range of 300 to 8,500 got one label.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	if min <= 0 || max <= 0 || min > max {
		return plot.LogTicks{Prec: -1}.Ticks(min, max)
	}
	build := func(labelled func(d int) bool) ([]plot.Tick, int) {
		var ts []plot.Tick
		n := 0
		for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
			p := math.Pow(10, e)
			for d := 1; d <= 9; d++ {
				v := float64(d) * p
				if v < min*(1-1e-9) || v > max*(1+1e-9) {
					continue
				}
				t := plot.Tick{Value: v}
				if labelled(d) {
					t.Label = "x" // replaced by groupedTicks
					n++
				}
				ts = append(ts, t)
			}
		}
		return ts, n
	}
	ts, n := build(func(d int) bool { return d == 1 || d == 2 || d == 5 })
	if n < 3 {
		ts, _ = build(func(int) bool { return true })
	}
	return ts
}

func sortTicks(ts plot.ConstantTicks) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Value < ts[j-1].Value; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// thinTicks blanks the labels of constant ticks that would overlap their
// left neighbour (clients 1, 2, 4 on a linear axis), keeping the tick marks.
func thinTicks(p *plot.Plot, area draw.Canvas) {
	ticks, ok := p.X.Tick.Marker.(plot.ConstantTicks)
	if !ok || len(ticks) < 2 {
		return
	}
	dc := p.DataCanvas(area)
	x, _ := p.Transforms(&dc)
	thinned := append(plot.ConstantTicks(nil), ticks...)
	right := vg.Length(math.Inf(-1))
	for i, t := range thinned {
		w := p.X.Tick.Label.Width(t.Label)
		at := x(t.Value)
		if at-w/2 < right+4 {
			thinned[i].Label = ""
			continue
		}
		right = at + w/2
	}
	p.X.Tick.Marker = thinned
}

// barGroup is the share of a category's width its group of bars takes.
const barGroup = 0.8

func barPlot(c Chart) (chartPlot, error) {
	p, leg := newPlot(c)
	var notes []string
	var cp chartPlot
	if c.YLog {
		notes = append(notes, "bars use a linear axis")
	}
	// Categories in order of first appearance across the series.
	var cats []string
	index := map[string]int{}
	label := func(pt ChartPoint) string {
		if pt.XLabel != "" {
			return pt.XLabel
		}
		return formatNumber(pt.X)
	}
	for _, s := range c.Series {
		for _, pt := range s.Points {
			if l := label(pt); !has(index, l) {
				index[l] = len(cats)
				cats = append(cats, l)
			}
		}
	}
	n := len(c.Series)
	skipped := 0
	for i, s := range c.Series {
		col := seriesColor(i)
		vals := make(plotter.Values, len(cats))
		var xys plotter.XYs
		var errs plotter.YErrors
		off := -barGroup/2 + barGroup/float64(n)*(float64(i)+0.5)
		for _, pt := range s.Points {
			if !finite(pt.Y) {
				skipped++
				continue
			}
			k := index[label(pt)]
			vals[k] = pt.Y
			if lo, hi := spread(pt, false); lo > 0 || hi > 0 {
				xys = append(xys, plotter.XY{X: float64(k) + off, Y: pt.Y})
				errs = append(errs, struct{ Low, High float64 }{lo, hi})
			}
		}
		if len(cats) == 0 {
			leg.Add(legendName(s.Name+" (no data)"), &plotter.BarChart{Color: col})
			continue
		}
		bars, err := plotter.NewBarChart(vals, vg.Points(10))
		if err != nil {
			return chartPlot{}, fmt.Errorf("series %q: %w", s.Name, err)
		}
		bars.Color, bars.XMin, bars.LineStyle.Width = col, off, 0
		p.Add(bars)
		cp.bars = append(cp.bars, bars)
		if len(xys) > 0 {
			p.Add(&plotter.YErrorBars{XYs: xys, YErrors: errs, CapWidth: vg.Points(5),
				LineStyle: draw.LineStyle{Color: color.Gray{Y: 0x30}, Width: vg.Points(1)}})
		}
		leg.Add(legendName(s.Name), bars)
	}
	if skipped > 0 {
		notes = append(notes, plural(skipped, "value", "values")+" not finite, not shown")
	}
	if len(cats) > 0 {
		p.NominalX(cats...)
		p.X.Min, p.X.Max, p.X.Padding, p.Y.Padding = -0.5, float64(len(cats))-0.5, 0, 0
	}
	if p.Y.Min > 0 {
		p.Y.Min = 0
	}
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min + 1
	}
	p.Y.Max *= 1.05
	cp.p, cp.leg, cp.notes = p, leg, notes
	return cp, nil
}

func has(m map[string]int, k string) bool { _, ok := m[k]; return ok }

// sizeBars gives the bars their width in points now that the data area is
// known, and slants category labels that would not fit side by side.
func sizeBars(p *plot.Plot, bars []*plotter.BarChart, area draw.Canvas) {
	ticks, _ := p.X.Tick.Marker.(plot.ConstantTicks)
	if len(ticks) == 0 {
		return
	}
	var widest vg.Length
	for _, t := range ticks {
		widest = max(widest, p.X.Tick.Label.Width(t.Label))
	}
	dc := p.DataCanvas(area)
	perCat := (dc.Max.X - dc.Min.X) / vg.Length(len(ticks))
	if widest > perCat-6 {
		// Slanted labels end under their bars; make room on the left for
		// the first one.
		const slant = math.Pi / 6
		p.X.Tick.Label.Rotation = slant
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YTop
		dc = p.DataCanvas(area)
		perCat = (dc.Max.X - dc.Min.X) / vg.Length(len(ticks))
		first := p.X.Tick.Label.Width(ticks[0].Label) * vg.Length(math.Cos(slant))
		if short := first - (dc.Min.X - area.Min.X + perCat/2); short > 0 {
			p.Y.Padding += short
			dc = p.DataCanvas(area)
			perCat = (dc.Max.X - dc.Min.X) / vg.Length(len(ticks))
		}
	}
	for _, b := range bars {
		b.Width = perCat * barGroup / vg.Length(len(bars))
	}
}
