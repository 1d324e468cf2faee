package plots

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one line of a line chart: Y against X, optionally with an
// interval [Lo, Hi] per point (a confidence interval over repetitions).
// NaN in Y marks a missing point; the line is broken there.
type Series struct {
	Name   string
	X, Y   []float64
	Lo, Hi []float64 // nil, or one per point; NaN: no interval at that point
}

// LineChart is a meter against a swept parameter, one series per
// algorithm.
type LineChart struct {
	Title          string
	XLabel, YLabel string // with units, e.g. "batch size (leases)"
	LogX, LogY     bool
	Series         []Series
	// Dodge shifts the series sideways by this much in total (spread
	// evenly), so that series with equal values (e.g. several algorithms at
	// zero) stay visible instead of hiding each other. Only the drawing
	// moves, by a few points; the axis still reads the true x.
	Dodge vg.Length
	// XTicks, if set, are the values labelled on the x axis (the sweep's
	// points), instead of round numbers; labels that would crowd each other
	// are left out.
	XTicks []float64
}

func (lc LineChart) validate() error {
	for _, s := range lc.Series {
		if len(s.Y) != len(s.X) {
			return fmt.Errorf("series %q: %d x values but %d y values", s.Name, len(s.X), len(s.Y))
		}
		if s.Lo != nil && len(s.Lo) != len(s.X) || s.Hi != nil && len(s.Hi) != len(s.X) {
			return fmt.Errorf("series %q: interval bounds must have one value per point", s.Name)
		}
	}
	return nil
}

type linePoint struct{ x, y, lo, hi float64 }

// seriesPlotter draws one series: line, error bars, markers.
type seriesPlotter struct {
	name  string
	style Style
	pts   [][]linePoint // runs of consecutive drawable points, in axis units (log10 on a log axis)
	shift vg.Length
	// drawn counts the markers drawn by the last Plot (tests check that
	// every drawable point is drawn, none pushed outside the axes).
	drawn int
}

// errCap is half the width of an error bar's cap.
const errCap = vg.Length(3)

// GlyphBoxes implements plot.GlyphBoxer: every marker and error-bar cap,
// where it is drawn (moved sideways by the dodge). The plot shrinks its
// data area until every box fits, so a dodged first or last point stays
// inside the axes instead of being pushed past them and left out.
func (sp *seriesPlotter) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	r := max(sp.style.glyphStyle().Radius, errCap)
	var bs []plot.GlyphBox
	for _, run := range sp.pts {
		for _, pt := range run {
			bs = append(bs, plot.GlyphBox{X: p.X.Norm(pt.x), Y: p.Y.Norm(pt.y), Rectangle: vg.Rectangle{
				Min: vg.Point{X: sp.shift - r, Y: -r},
				Max: vg.Point{X: sp.shift + r, Y: r},
			}})
		}
	}
	return bs
}

// drawable filters s for the axes: points with a missing value, or a value
// a log axis cannot show, are left out, and the x of each point left out
// is returned so the chart can say so: missing (no value: NaN or
// infinite y) and dropped (<= 0 on a log axis).
func drawable(s Series, logX, logY bool) (runs [][]linePoint, missing, dropped []float64) {
	var cur []linePoint
	flush := func() {
		if len(cur) > 0 {
			runs = append(runs, cur)
			cur = nil
		}
	}
	// Points are drawn in x order whatever order they came in.
	idx := make([]int, len(s.X))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.X[idx[a]] < s.X[idx[b]] })
	for _, i := range idx {
		p := linePoint{x: s.X[i], y: s.Y[i], lo: math.NaN(), hi: math.NaN()}
		if s.Lo != nil {
			p.lo = s.Lo[i]
		}
		if s.Hi != nil {
			p.hi = s.Hi[i]
		}
		if !finite(p.x) || !finite(p.y) {
			if finite(p.x) {
				missing = append(missing, p.x)
			}
			flush()
			continue
		}
		if (logX && p.x <= 0) || (logY && p.y <= 0) {
			dropped = append(dropped, p.x)
			flush()
			continue
		}
		// Log axes are drawn as linear axes of log10 values (gonum's
		// LogScale places the y-axis title's glyph box at the arithmetic
		// mean of the range, which squeezes the panel). A bound <= 0 has
		// no logarithm: -Inf pins the bar to the bottom edge.
		if logX {
			p.x = math.Log10(p.x)
		}
		if logY {
			p.y = math.Log10(p.y)
			p.lo, p.hi = log10OrInf(p.lo), log10OrInf(p.hi)
		}
		cur = append(cur, p)
	}
	flush()
	return runs, missing, dropped
}

// log10OrInf is log10(v), -Inf for v <= 0, NaN for NaN.
func log10OrInf(v float64) float64 {
	switch {
	case math.IsNaN(v):
		return v
	case v <= 0:
		return math.Inf(-1)
	}
	return math.Log10(v)
}

func (sp *seriesPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, run := range sp.pts {
		for _, p := range run {
			xmin, xmax = math.Min(xmin, p.x), math.Max(xmax, p.x)
			ymin, ymax = math.Min(ymin, p.y), math.Max(ymax, p.y)
			// An interval bound widens the range only where the axis can
			// show it; a log axis cannot show a bound <= 0 (-Inf here), and
			// the bar is then drawn down to the bottom edge instead.
			if finite(p.hi) {
				ymax = math.Max(ymax, p.hi)
			}
			if finite(p.lo) {
				ymin = math.Min(ymin, p.lo)
			}
		}
	}
	return
}

func (sp *seriesPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	sp.drawn = 0
	trX, trY := p.Transforms(&c)
	// clampY maps y onto the canvas, pinning values the axis cannot show
	// (<= 0 on a log axis, or outside the range) to the nearest edge.
	clampY := func(y float64) vg.Length {
		if y < p.Y.Min {
			return c.Min.Y
		}
		if y > p.Y.Max {
			return c.Max.Y
		}
		return trY(y)
	}
	// The dodge moves the series by shift, so its points at the ends of
	// the x range lie up to |shift| outside the data area; the plot made
	// room for them (GlyphBoxes), and they are clipped to the data area
	// widened by |shift|, not to the data area itself.
	wide := c
	wide.Min.X -= max(sp.shift, -sp.shift)
	wide.Max.X += max(sp.shift, -sp.shift)
	for _, run := range sp.pts {
		line := make([]vg.Point, len(run))
		for i, pt := range run {
			line[i] = vg.Point{X: trX(pt.x) + sp.shift, Y: trY(pt.y)}
		}
		if len(line) > 1 {
			c.StrokeLines(sp.style.lineStyle(), wide.ClipLinesXY(line)...)
		}
		bar := draw.LineStyle{Color: sp.style.Color, Width: vg.Points(1)}
		cap := errCap
		for i, pt := range run {
			if math.IsNaN(pt.lo) || !finite(pt.hi) || pt.hi <= pt.lo {
				continue
			}
			x := line[i].X
			y0, y1 := clampY(pt.lo), clampY(pt.hi)
			c.StrokeLine2(bar, x, y0, x, y1)
			if pt.lo >= p.Y.Min {
				c.StrokeLine2(bar, x-cap, y0, x+cap, y0)
			}
			if pt.hi <= p.Y.Max {
				c.StrokeLine2(bar, x-cap, y1, x+cap, y1)
			}
		}
		for _, pt := range line {
			if wide.Contains(pt) {
				c.DrawGlyphNoClip(sp.style.glyphStyle(), pt)
				sp.drawn++
			}
		}
	}
}

// seriesThumb is the legend sample of a series: a short line with the
// series' marker in its middle.
type seriesThumb struct{ style Style }

func (t seriesThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(t.style.lineStyle(), c.Min.X, y, c.Max.X, y)
	c.DrawGlyphNoClip(t.style.glyphStyle(), c.Center())
}

// SeriesThumb returns the legend sample of the series called name.
func SeriesThumb(name string) plot.Thumbnailer { return seriesThumb{StyleFor(name)} }

func (lc LineChart) build() (*plot.Plot, []LegendEntry, []string, error) {
	p, _, legend, notes, err := lc.buildLines()
	return p, legend, notes, err
}

// leftOut names the points of a series left out: "naive at 100, 200".
func leftOut(name string, xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = FormatNumber(x)
	}
	return name + " at " + strings.Join(s, ", ")
}

// buildLines is build, with the series' plotters.
func (lc LineChart) buildLines() (*plot.Plot, []*seriesPlotter, []LegendEntry, []string, error) {
	if err := lc.validate(); err != nil {
		return nil, nil, nil, nil, err
	}
	p := newPlot(lc.Title, lc.XLabel, lc.YLabel)
	var (
		legend           []LegendEntry
		missing, dropped []string
		sps              []*seriesPlotter
	)
	n := len(lc.Series)
	for i, s := range lc.Series {
		runs, miss, d := drawable(s, lc.LogX, lc.LogY)
		if len(d) > 0 {
			dropped = append(dropped, leftOut(s.Name, d))
		}
		if len(miss) > 0 {
			missing = append(missing, leftOut(s.Name, miss))
		}
		st := StyleFor(s.Name)
		shift := vg.Length(0)
		if n > 1 {
			shift = lc.Dodge * (vg.Length(i)/vg.Length(n-1) - 0.5)
		}
		sp := &seriesPlotter{name: s.Name, style: st, pts: runs, shift: shift}
		if len(runs) > 0 {
			p.Add(sp)
			sps = append(sps, sp)
		}
		legend = append(legend, LegendEntry{Name: s.Name, Thumb: seriesThumb{st}, order: st.Order})
	}
	notes := lc.leftOutNotes(dropped, missing)
	if len(sps) == 0 {
		// Nothing to draw: keep an empty, labelled frame rather than fail,
		// and say why.
		notes = append(notes, fmt.Sprintf("%s: no data to draw.", panelName(lc.Title)))
	}
	lc.fitRanges(p, len(sps) > 0)
	lc.setTicks(p)
	return p, sps, legend, notes, nil
}

// leftOutNotes say which points the chart could not draw: dropped (<= 0
// on a log axis) and missing (no value), each a list of leftOut texts.
func (lc LineChart) leftOutNotes(dropped, missing []string) []string {
	var notes []string
	if len(dropped) > 0 {
		axis := "y"
		if lc.LogX && !lc.LogY {
			axis = "x"
		}
		notes = append(notes, fmt.Sprintf("%s: values <= 0 cannot be drawn on the log %s axis and are left out (%s).",
			panelName(lc.Title), axis, strings.Join(dropped, "; ")))
	}
	if len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("%s: no value to draw (every run failed, or the meter had nothing to measure) for %s.",
			panelName(lc.Title), strings.Join(missing, "; ")))
	}
	return notes
}

// fitRanges adjusts the axes' ranges that the plotted series (if any,
// drawn) set: a linear y axis from zero, an empty frame for no data, and
// a degenerate range opened up.
func (lc LineChart) fitRanges(p *plot.Plot, drawn bool) {
	// Linear y axes start at zero: the quantities drawn here are counts,
	// rates and durations, and a truncated axis exaggerates differences.
	if !lc.LogY && drawn {
		if p.Y.Min > 0 {
			p.Y.Min = 0
		}
		if p.Y.Max < 0 {
			p.Y.Max = 0
		}
	}
	if !drawn {
		// (In log units 0..1 is 1 to 10.)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	}
	// In log units a degenerate range opens by a factor of two each way.
	if p.Y.Min == p.Y.Max {
		if lc.LogY {
			p.Y.Min, p.Y.Max = p.Y.Min-0.3, p.Y.Max+0.3
		} else {
			p.Y.Max = p.Y.Min + 1
		}
	}
	if p.X.Min == p.X.Max {
		if lc.LogX {
			p.X.Min, p.X.Max = p.X.Min-0.3, p.X.Max+0.3
		} else {
			p.X.Min, p.X.Max = p.X.Min-1, p.X.Max+1
		}
	}
}

// setTicks labels log axes in powers of ten and, with XTicks, the x axis
// at the sweep's values.
func (lc LineChart) setTicks(p *plot.Plot) {
	if lc.LogX {
		p.X.Tick.Marker = log10Axis{}
	}
	if lc.LogY {
		p.Y.Tick.Marker = log10Axis{}
	}
	if len(lc.XTicks) > 0 {
		vt := valueTicks{base: p.X.Tick.Marker, gap: 0.075}
		for _, v := range lc.XTicks {
			if lc.LogX {
				if v <= 0 {
					continue
				}
				vt.at = append(vt.at, math.Log10(v))
			} else {
				vt.at = append(vt.at, v)
			}
			vt.labels = append(vt.labels, FormatNumber(v))
		}
		p.X.Tick.Marker = vt
	}
}

// panelName names a panel in a note.
func panelName(title string) string {
	if title == "" {
		return "chart"
	}
	return title
}
