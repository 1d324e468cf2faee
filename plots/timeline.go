package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Interval is a stretch of true time, in seconds, on one row.
type Interval struct {
	Row        int
	Start, End float64
}

// Mark is an instant, in seconds of true time, on one row.
type Mark struct {
	Row int
	T   float64
}

// Span is a stretch of true time that concerns several rows (a partition,
// a violation); Rows empty means all rows.
type Span struct {
	Start, End float64
	Rows       []int
}

// Timeline shows who held the lease over time: one row per node, a bar for
// each hold interval, crossed marks for crashes, grey for time a node was
// down, light bands for partitions and yellow bands for violations of the
// lease invariant (with a star on each owner's row).
type Timeline struct {
	Title string
	// Series names the run's algorithm; hold bars take its colour.
	Series string
	Rows   []string // row labels, index = row number (e.g. "n0")
	Holds  []Interval
	// Down: a node was crashed from Start to End.
	Down       []Interval
	Crashes    []Mark
	Restarts   []Mark
	Partitions []Span
	Violations []Span
	// End: the run's length in seconds (0: the last event).
	End float64
}

func (tl Timeline) validate() error {
	if len(tl.Rows) == 0 {
		return fmt.Errorf("timeline %q has no rows", tl.Title)
	}
	check := func(what string, row int) error {
		if row < 0 || row >= len(tl.Rows) {
			return fmt.Errorf("timeline %q: %s on row %d, but there are %d rows", tl.Title, what, row, len(tl.Rows))
		}
		return nil
	}
	for _, iv := range tl.Holds {
		if err := check("hold", iv.Row); err != nil {
			return err
		}
		if !(iv.End >= iv.Start) {
			return fmt.Errorf("timeline %q: hold on row %d ends (%g s) before it starts (%g s)", tl.Title, iv.Row, iv.End, iv.Start)
		}
	}
	for _, iv := range tl.Down {
		if err := check("downtime", iv.Row); err != nil {
			return err
		}
	}
	for _, m := range append(append([]Mark{}, tl.Crashes...), tl.Restarts...) {
		if err := check("crash/restart", m.Row); err != nil {
			return err
		}
	}
	for _, s := range tl.Violations {
		for _, r := range s.Rows {
			if err := check("violation", r); err != nil {
				return err
			}
		}
	}
	return nil
}

var (
	partitionColor = color.RGBA{0xDD, 0xDD, 0xDD, 0xff}
	downColor      = color.RGBA{0x99, 0x99, 0x99, 0xff}
	violationColor = okYellow
)

type timelinePlotter struct{ tl Timeline }

func (t *timelinePlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmax = t.tl.End
	for _, iv := range append(append([]Interval{}, t.tl.Holds...), t.tl.Down...) {
		xmax = math.Max(xmax, iv.End)
	}
	for _, s := range append(append([]Span{}, t.tl.Partitions...), t.tl.Violations...) {
		xmax = math.Max(xmax, s.End)
	}
	if xmax <= 0 {
		xmax = 1
	}
	return 0, xmax, -0.5, float64(len(t.tl.Rows)) - 0.5
}

func rowY(row int) float64 { return float64(row) }

func (t *timelinePlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	rect := func(x0, x1, y0, y1 vg.Length) []vg.Point {
		return []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
	}
	full := func(s Span, col color.Color) {
		x0, x1 := trX(s.Start), trX(s.End)
		if x1-x0 < vg.Points(1.5) {
			x1 = x0 + vg.Points(1.5) // keep a short overlap visible
		}
		if len(s.Rows) == 0 {
			c.FillPolygon(col, c.ClipPolygonXY(rect(x0, x1, c.Min.Y, c.Max.Y)))
			return
		}
		for _, r := range s.Rows {
			y := rowY(r)
			c.FillPolygon(col, c.ClipPolygonXY(rect(x0, x1, trY(y-0.48), trY(y+0.48))))
		}
	}
	// Backgrounds first: partitions, then violations on top of them.
	for _, s := range t.tl.Partitions {
		full(s, partitionColor)
	}
	for _, s := range t.tl.Violations {
		full(Span{Start: s.Start, End: s.End}, violationColor)
	}
	// Faint row guides.
	guide := draw.LineStyle{Color: color.Gray{0xE8}, Width: vg.Points(0.5)}
	for r := range t.tl.Rows {
		c.StrokeLine2(guide, c.Min.X, trY(rowY(r)), c.Max.X, trY(rowY(r)))
	}
	for _, iv := range t.tl.Down {
		y := rowY(iv.Row)
		c.FillPolygon(downColor, c.ClipPolygonXY(rect(trX(iv.Start), trX(iv.End), trY(y-0.08), trY(y+0.08))))
	}
	st := StyleFor(t.tl.Series)
	for _, iv := range t.tl.Holds {
		y := rowY(iv.Row)
		x0, x1 := trX(iv.Start), trX(iv.End)
		if x1-x0 < vg.Points(1) {
			x1 = x0 + vg.Points(1)
		}
		box := rect(x0, x1, trY(y-0.3), trY(y+0.3))
		c.FillPolygon(st.Color, c.ClipPolygonXY(box))
	}
	for _, m := range t.tl.Restarts {
		c.DrawGlyph(restartGlyph, vg.Point{X: trX(m.T), Y: trY(rowY(m.Row))})
	}
	for _, m := range t.tl.Crashes {
		c.DrawGlyph(crashGlyph, vg.Point{X: trX(m.T), Y: trY(rowY(m.Row))})
	}
	for _, s := range t.tl.Violations {
		for _, r := range s.Rows {
			c.DrawGlyph(violationGlyph, vg.Point{X: trX(s.Start), Y: trY(rowY(r) + 0.38)})
		}
	}
}

var (
	crashGlyph     = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4.5), Shape: draw.CrossGlyph{}}
	restartGlyph   = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3.5), Shape: draw.RingGlyph{}}
	violationGlyph = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3.5), Shape: draw.PyramidGlyph{}}
)

type rectThumb struct {
	col    color.Color
	height float64 // fraction of the thumbnail's height
}

func (r rectThumb) Thumbnail(c *draw.Canvas) {
	mid := c.Center().Y
	h := (c.Max.Y - c.Min.Y) * vg.Length(r.height) / 2
	c.FillPolygon(r.col, []vg.Point{{X: c.Min.X, Y: mid - h}, {X: c.Max.X, Y: mid - h}, {X: c.Max.X, Y: mid + h}, {X: c.Min.X, Y: mid + h}})
}

type glyphThumb struct{ g draw.GlyphStyle }

func (g glyphThumb) Thumbnail(c *draw.Canvas) { c.DrawGlyphNoClip(g.g, c.Center()) }

func (tl Timeline) build() (*plot.Plot, []LegendEntry, []string, error) {
	if err := tl.validate(); err != nil {
		return nil, nil, nil, err
	}
	p := newPlot(tl.Title, "true time (s)", "node")
	p.Add(&timelinePlotter{tl})
	ticks := make([]plot.Tick, len(tl.Rows))
	for i, r := range tl.Rows {
		ticks[i] = plot.Tick{Value: rowY(i), Label: r}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Padding = 0
	p.X.Padding = 0
	series := tl.Series
	if series == "" {
		series = "lease held"
	}
	st := StyleFor(tl.Series)
	legend := []LegendEntry{{Name: "lease held (" + series + ")", Thumb: rectThumb{st.Color, 0.7}, order: -10}}
	if len(tl.Crashes) > 0 || len(tl.Down) > 0 {
		legend = append(legend,
			LegendEntry{Name: "crash", Thumb: glyphThumb{crashGlyph}, order: 2000},
			LegendEntry{Name: "down", Thumb: rectThumb{downColor, 0.2}, order: 2001})
	}
	if len(tl.Restarts) > 0 {
		legend = append(legend, LegendEntry{Name: "restart", Thumb: glyphThumb{restartGlyph}, order: 2002})
	}
	if len(tl.Partitions) > 0 {
		legend = append(legend, LegendEntry{Name: "partition", Thumb: rectThumb{partitionColor, 1}, order: 2003})
	}
	legend = append(legend, LegendEntry{Name: "violation (two holders)", Thumb: violationThumb{}, order: 2004})
	return p, legend, nil, nil
}

type violationThumb struct{}

func (violationThumb) Thumbnail(c *draw.Canvas) {
	rectThumb{violationColor, 1}.Thumbnail(c)
	c.DrawGlyphNoClip(violationGlyph, c.Center())
}
