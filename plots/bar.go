package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bar is one bar of a grouped bar chart. Bars of the same Group stand side
// by side and share the group's colour (the group is usually an algorithm,
// so it keeps its colour from the line charts); Label names the bar on the
// x axis (e.g. the ablation).
type Bar struct {
	Group  string
	Label  string
	Value  float64
	Lo, Hi float64 // interval; NaN (or Lo == Hi) for none
}

// BarChart is a grouped bar chart with a linear y axis from zero, or
// with LogY a log axis, the bars rising from its bottom (for values that
// span orders of magnitude; values <= 0 are marked "n/a").
type BarChart struct {
	Title  string
	YLabel string
	Bars   []Bar
	// ValueLabels prints each bar's value above it.
	ValueLabels bool
	LogY        bool
}

const (
	barWidth = 0.8
	groupGap = 0.7 // extra space between groups, in bar slots
)

type barPlotter struct {
	bars   []Bar
	xs     []float64
	labels bool
	log    bool
}

func (bp *barPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	ymin, ymax = 0, 0
	for i, b := range bp.bars {
		xmin = math.Min(xmin, bp.xs[i]-barWidth/2)
		xmax = math.Max(xmax, bp.xs[i]+barWidth/2)
		if finite(b.Value) {
			ymin, ymax = math.Min(ymin, b.Value), math.Max(ymax, b.Value)
		}
		if finite(b.Hi) {
			ymax = math.Max(ymax, b.Hi)
		}
		if finite(b.Lo) {
			ymin = math.Min(ymin, b.Lo)
		}
	}
	if bp.log {
		// From half the smallest positive value to twice the largest.
		ymin, ymax = math.Inf(1), 0
		for _, b := range bp.bars {
			if finite(b.Value) && b.Value > 0 {
				ymin, ymax = math.Min(ymin, b.Value/2), math.Max(ymax, b.Value*2)
			}
		}
		if ymax == 0 {
			ymin, ymax = 0.1, 1
		}
		return
	}
	// Head room for the value labels.
	if bp.labels && ymax > 0 {
		ymax *= 1.12
	}
	return
}

func (bp *barPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	lab := textStyle(font.From(plot.DefaultFont, 8), color.Black)
	lab.XAlign = draw.XCenter
	lab.YAlign = draw.YBottom
	for i, b := range bp.bars {
		st := StyleFor(b.Group)
		x0, x1 := trX(bp.xs[i]-barWidth/2), trX(bp.xs[i]+barWidth/2)
		base := 0.0
		if bp.log {
			base = p.Y.Min
		}
		if !finite(b.Value) || bp.log && b.Value <= 0 {
			// A missing value is marked, not drawn as zero.
			s := lab
			c.FillText(s, vg.Point{X: (x0 + x1) / 2, Y: trY(base)}, "n/a")
			continue
		}
		y0, y1 := trY(base), trY(b.Value)
		rect := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(lighten(st.Color, 0.15), c.ClipPolygonXY(rect))
		outline := draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}
		c.StrokeLines(outline, append(rect, rect[0]))
		xm := (x0 + x1) / 2
		if finite(b.Lo) && finite(b.Hi) && b.Hi > b.Lo {
			bar := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
			c.StrokeLine2(bar, xm, trY(b.Lo), xm, trY(b.Hi))
			c.StrokeLine2(bar, xm-vg.Points(3), trY(b.Lo), xm+vg.Points(3), trY(b.Lo))
			c.StrokeLine2(bar, xm-vg.Points(3), trY(b.Hi), xm+vg.Points(3), trY(b.Hi))
		}
		if bp.labels {
			top := y1
			if finite(b.Hi) && trY(b.Hi) > top {
				top = trY(b.Hi)
			}
			c.FillText(lab, vg.Point{X: xm, Y: top + vg.Points(2)}, FormatNumber(b.Value))
		}
	}
}

// barThumb is the legend sample of a bar group.
type barThumb struct{ style Style }

func (t barThumb) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{
		{X: c.Min.X + vg.Points(4), Y: c.Min.Y}, {X: c.Max.X - vg.Points(4), Y: c.Min.Y},
		{X: c.Max.X - vg.Points(4), Y: c.Max.Y}, {X: c.Min.X + vg.Points(4), Y: c.Max.Y},
	}
	c.FillPolygon(lighten(t.style.Color, 0.15), pts)
	c.StrokeLines(draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}, append(pts, pts[0]))
}

func (bc BarChart) build() (*plot.Plot, []LegendEntry, []string, error) {
	if len(bc.Bars) == 0 {
		return nil, nil, nil, fmt.Errorf("bar chart %q has no bars", bc.Title)
	}
	p := newPlot(bc.Title, "", bc.YLabel)
	xs := make([]float64, len(bc.Bars))
	var (
		ticks  []plot.Tick
		legend []LegendEntry
		seen   = map[string]bool{}
		x      = 0.0
	)
	for i, b := range bc.Bars {
		if i > 0 && b.Group != bc.Bars[i-1].Group {
			x += groupGap
		}
		xs[i] = x
		ticks = append(ticks, plot.Tick{Value: x, Label: b.Label})
		x++
		if !seen[b.Group] {
			seen[b.Group] = true
			st := StyleFor(b.Group)
			legend = append(legend, LegendEntry{Name: b.Group, Thumb: barThumb{st}, order: st.Order})
		}
	}
	p.Add(&barPlotter{bars: bc.Bars, xs: xs, labels: bc.ValueLabels, log: bc.LogY})
	if bc.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Label.Rotation = math.Pi / 5
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.X.Tick.Label.Font = font.From(plot.DefaultFont, 9)
	p.X.Tick.Length = 0
	if p.Y.Max == p.Y.Min && !bc.LogY {
		p.Y.Max = p.Y.Min + 1
	}
	return p, legend, nil, nil
}
