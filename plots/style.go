// Package plots draws leaselab's charts with gonum.org/v1/plot: line charts
// of a meter against a swept parameter (one line per algorithm, error bars
// over repetitions, optional log axes), grouped bar charts (ablations) and
// lease timelines (who held the lease when, with crashes, partitions and
// violations). Every chart is a Panel; a Figure lays panels out in a grid
// under one title and one shared legend and writes PNG or SVG.
//
// Colours, dashes and markers are keyed by series name, so an algorithm has
// the same look in every chart of a report, and the markers and dash
// patterns keep the series apart when the page is printed in grey.
package plots

import (
	"image/color"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Style is how one series is drawn.
type Style struct {
	Color  color.Color
	Dashes []vg.Length // nil: solid
	Shape  draw.GlyphDrawer
	// Order sorts legend entries: known algorithms first, in a fixed order.
	Order int
}

// The Okabe-Ito palette (Okabe & Ito, "Color Universal Design", 2002): eight
// colours that stay distinguishable under the common colour-vision
// deficiencies. Yellow is kept for backgrounds (violation bands) because
// thin yellow lines vanish on white.
var (
	okBlack     = color.RGBA{0x00, 0x00, 0x00, 0xff}
	okOrange    = color.RGBA{0xE6, 0x9F, 0x00, 0xff}
	okSkyBlue   = color.RGBA{0x56, 0xB4, 0xE9, 0xff}
	okGreen     = color.RGBA{0x00, 0x9E, 0x73, 0xff}
	okYellow    = color.RGBA{0xF0, 0xE4, 0x42, 0xff}
	okBlue      = color.RGBA{0x00, 0x72, 0xB2, 0xff}
	okVermilion = color.RGBA{0xD5, 0x5E, 0x00, 0xff}
	okPurple    = color.RGBA{0xCC, 0x79, 0xA7, 0xff}
)

var (
	dashed  = []vg.Length{vg.Points(6), vg.Points(3)}
	dotted  = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
	dashDot = []vg.Length{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}
)

// known is the fixed look of the series the experiments draw. Variant names
// follow the pattern "algorithm (what differs)".
var known = map[string]Style{
	"naive":                   {Color: okVermilion, Shape: draw.PyramidGlyph{}, Order: 0},
	"naive-undo":              {Color: okPurple, Dashes: dashed, Shape: draw.TriangleGlyph{}, Order: 1},
	"paxoslease":              {Color: okBlue, Shape: draw.CircleGlyph{}, Order: 2},
	"paxoslease (no backoff)": {Color: okSkyBlue, Dashes: dashed, Shape: draw.RingGlyph{}, Order: 3},
	"fatlease":                {Color: okGreen, Shape: draw.BoxGlyph{}, Order: 4},
	"classicpaxos":            {Color: okOrange, Dashes: dashDot, Shape: draw.CrossGlyph{}, Order: 5},
	// fig5 over real UDP with one message per datagram: drawn next to
	// the same algorithms' batched series, so each gets a colour of its
	// own rather than its algorithm's (the fallback below), and its
	// algorithm's marker shape, hollow where there is a hollow one.
	"fatlease (1 msg/datagram)":     {Color: okBlack, Dashes: dashed, Shape: draw.SquareGlyph{}, Order: 6},
	"classicpaxos (1 msg/datagram)": {Color: okPurple, Dashes: dashDot, Shape: draw.CrossGlyph{}, Order: 7},
}

// StyleFor returns the look of the series called name. Known names have a
// fixed style; "algo (something)" borrows algo's colour with a dotted line
// and an open marker; anything else is black with a plus marker. The result
// depends on name only, never on which other series share the chart.
func StyleFor(name string) Style {
	if s, ok := known[name]; ok {
		return s
	}
	if i := strings.Index(name, " ("); i > 0 {
		if base, ok := known[name[:i]]; ok {
			s := Style{Color: base.Color, Dashes: dotted, Shape: openShape(base.Shape), Order: base.Order*10 + 100}
			return s
		}
	}
	return Style{Color: okBlack, Dashes: dotted, Shape: draw.PlusGlyph{}, Order: 1000}
}

// openShape returns the hollow counterpart of a filled marker, so a variant
// of an algorithm looks related to it but not identical.
func openShape(g draw.GlyphDrawer) draw.GlyphDrawer {
	switch g.(type) {
	case draw.PyramidGlyph:
		return draw.TriangleGlyph{}
	case draw.CircleGlyph:
		return draw.RingGlyph{}
	case draw.BoxGlyph:
		return draw.SquareGlyph{}
	}
	return draw.PlusGlyph{}
}

// lineStyle is the stroke of a series.
func (s Style) lineStyle() draw.LineStyle {
	return draw.LineStyle{Color: s.Color, Width: vg.Points(1.5), Dashes: s.Dashes}
}

// glyphStyle is the marker of a series.
func (s Style) glyphStyle() draw.GlyphStyle {
	return draw.GlyphStyle{Color: s.Color, Radius: vg.Points(3.2), Shape: s.Shape}
}

// lighten mixes c with white; f=0 keeps c, f=1 is white.
func lighten(c color.Color, f float64) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 {
		x := float64(v>>8)*(1-f) + 255*f
		return uint8(x + 0.5)
	}
	return color.RGBA{mix(r), mix(g), mix(b), 0xff}
}
