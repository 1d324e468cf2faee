package plots

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Panel is one chart of a figure.
type Panel interface {
	// build makes the gonum plot, the legend entries it needs and notes
	// the reader must see (e.g. values a log axis cannot show).
	build() (*plot.Plot, []LegendEntry, []string, error)
}

// LegendEntry is one line of a figure's shared legend.
type LegendEntry struct {
	Name  string
	Thumb plot.Thumbnailer
	order int
}

// Figure is a grid of panels under one title and one legend.
type Figure struct {
	Title  string
	Panels []Panel
	// Cols: panels per row (0: all in one row, at most 3).
	Cols int
	// PanelWidth, PanelHeight: size of one panel (0: 4.8 x 3.4 inches).
	PanelWidth, PanelHeight vg.Length
	// Notes are printed under the panels (e.g. where the data came from).
	Notes []string
}

// DPI of the PNG output: 4.8 inch panels become 480 pixels wide, and the
// 10-point tick labels about 14 pixels high.
const DPI = 100

var (
	titleFont  = font.From(plot.DefaultFont, 14)
	legendFont = font.From(plot.DefaultFont, 11)
	noteFont   = font.From(plot.DefaultFont, 9)
)

func textStyle(f font.Font, c color.Color) text.Style {
	return text.Style{Color: c, Font: f, Handler: plot.DefaultTextHandler}
}

// ErrNoPanels is returned when a figure has nothing to draw.
var ErrNoPanels = errors.New("plots: figure has no panels")

type builtPanel struct {
	p      *plot.Plot
	legend []LegendEntry
	notes  []string
}

func (f Figure) buildAll() ([]builtPanel, []LegendEntry, []string, error) {
	if len(f.Panels) == 0 {
		return nil, nil, nil, ErrNoPanels
	}
	var (
		built  []builtPanel
		legend []LegendEntry
		notes  []string
		seen   = map[string]bool{}
	)
	for i, pn := range f.Panels {
		if pn == nil {
			return nil, nil, nil, fmt.Errorf("plots: panel %d is nil", i)
		}
		p, le, nt, err := pn.build()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("plots: panel %d: %w", i, err)
		}
		built = append(built, builtPanel{p, le, nt})
		for _, e := range le {
			if !seen[e.Name] {
				seen[e.Name] = true
				legend = append(legend, e)
			}
		}
		for _, n := range nt {
			notes = append(notes, n)
		}
	}
	// Legend in the fixed algorithm order, then by first appearance.
	sort.SliceStable(legend, func(i, j int) bool { return legend[i].order < legend[j].order })
	notes = append(notes, f.Notes...)
	return built, legend, notes, nil
}

func (f Figure) grid(n int) (cols, rows int) {
	cols = f.Cols
	if cols <= 0 {
		cols = n
		if cols > 3 {
			cols = 3
		}
	}
	rows = (n + cols - 1) / cols
	return cols, rows
}

func (f Figure) panelSize() (vg.Length, vg.Length) {
	w, h := f.PanelWidth, f.PanelHeight
	if w <= 0 {
		w = 4.8 * vg.Inch
	}
	if h <= 0 {
		h = 3.4 * vg.Inch
	}
	return w, h
}

// legendLayout places entries left to right, wrapping into lines no wider
// than width; it returns each entry's line and x offset, and the number of
// lines.
func legendLayout(entries []LegendEntry, width vg.Length) (line []int, xoff []vg.Length, lines int) {
	sty := textStyle(legendFont, color.Black)
	thumb := vg.Points(22)
	gap := vg.Points(16)
	x := vg.Length(0)
	lines = 1
	for _, e := range entries {
		w := thumb + vg.Points(4) + sty.Width(e.Name)
		if x > 0 && x+w > width {
			lines++
			x = 0
		}
		line = append(line, lines-1)
		xoff = append(xoff, x)
		x += w + gap
	}
	return line, xoff, lines
}

// wrapNote breaks a note into lines of at most width.
func wrapNote(s string, width vg.Length) []string {
	sty := textStyle(noteFont, color.Black)
	var out []string
	cur := ""
	for _, w := range strings.Fields(s) {
		try := w
		if cur != "" {
			try = cur + " " + w
		}
		if cur != "" && sty.Width(try) > width {
			out = append(out, cur)
			cur = w
			continue
		}
		cur = try
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

// Size is the size of the whole figure.
func (f Figure) Size() (vg.Length, vg.Length, error) {
	built, legend, notes, err := f.buildAll()
	if err != nil {
		return 0, 0, err
	}
	w, h, _ := f.layout(built, legend, notes)
	return w, h, nil
}

type figLayout struct {
	titleH, legendH, notesH vg.Length
	noteLines               []string
	cols, rows              int
	pw, ph                  vg.Length
}

func (f Figure) layout(built []builtPanel, legend []LegendEntry, notes []string) (vg.Length, vg.Length, figLayout) {
	var l figLayout
	l.cols, l.rows = f.grid(len(built))
	l.pw, l.ph = f.panelSize()
	w := vg.Length(l.cols) * l.pw
	margin := vg.Points(10)
	if f.Title != "" {
		l.titleH = textStyle(titleFont, color.Black).Height(f.Title) + margin
	}
	if len(legend) > 0 {
		_, _, lines := legendLayout(legend, w-2*margin)
		l.legendH = vg.Length(lines)*vg.Points(18) + vg.Points(6)
	}
	for _, n := range notes {
		l.noteLines = append(l.noteLines, wrapNote(n, w-2*margin)...)
	}
	if len(l.noteLines) > 0 {
		l.notesH = vg.Length(len(l.noteLines))*vg.Points(12) + vg.Points(6)
	}
	h := l.titleH + l.legendH + vg.Length(l.rows)*l.ph + l.notesH + margin
	return w, h, l
}

// Draw renders the figure onto c, which must be of the figure's Size.
func (f Figure) draw(c draw.Canvas, built []builtPanel, legend []LegendEntry, l figLayout) {
	margin := vg.Points(10)
	top := c.Max.Y - margin/2
	if f.Title != "" {
		sty := textStyle(titleFont, color.Black)
		sty.XAlign = draw.XCenter
		sty.YAlign = draw.YTop
		c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: top}, f.Title)
		top -= l.titleH
	}
	if len(legend) > 0 {
		width := c.Max.X - c.Min.X - 2*margin
		line, xoff, lines := legendLayout(legend, width)
		// Centre each legend line.
		lineW := make([]vg.Length, lines)
		sty := textStyle(legendFont, color.Black)
		for i, e := range legend {
			end := xoff[i] + vg.Points(26) + sty.Width(e.Name)
			if end > lineW[line[i]] {
				lineW[line[i]] = end
			}
		}
		for i, e := range legend {
			y := top - vg.Length(line[i])*vg.Points(18) - vg.Points(14)
			x := c.Min.X + margin + (width-lineW[line[i]])/2 + xoff[i]
			icon := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: y},
				Max: vg.Point{X: x + vg.Points(22), Y: y + vg.Points(11)},
			}}
			e.Thumb.Thumbnail(&icon)
			s := sty
			s.YAlign = draw.YBottom
			c.FillText(s, vg.Point{X: x + vg.Points(26), Y: y}, e.Name)
		}
		top -= l.legendH
	}
	area := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: c.Min.X, Y: top - vg.Length(l.rows)*l.ph},
		Max: vg.Point{X: c.Max.X, Y: top},
	}}
	// Each panel is drawn in its own tile. (plot.Align would line the data
	// areas up exactly, but it moves a panel's title into the legend band
	// when the panels' axes differ in height.)
	tiles := draw.Tiles{Rows: l.rows, Cols: l.cols, PadX: vg.Points(14), PadY: vg.Points(14),
		PadLeft: vg.Points(6), PadRight: vg.Points(10), PadTop: vg.Points(4), PadBottom: vg.Points(4)}
	for i, b := range built {
		b.p.Draw(tiles.At(area, i%l.cols, i/l.cols))
	}
	if len(l.noteLines) > 0 {
		sty := textStyle(noteFont, color.Gray{0x30})
		sty.YAlign = draw.YTop
		y := area.Min.Y - vg.Points(4)
		for _, n := range l.noteLines {
			c.FillText(sty, vg.Point{X: c.Min.X + margin, Y: y}, n)
			y -= vg.Points(12)
		}
	}
}

// Render writes the figure as format "png" or "svg" to w.
func (f Figure) Render(w io.Writer, format string) error {
	built, legend, notes, err := f.buildAll()
	if err != nil {
		return err
	}
	width, height, l := f.layout(built, legend, notes)
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch strings.ToLower(format) {
	case "png":
		img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(DPI),
			vgimg.UseBackgroundColor(color.White))
		f.draw(draw.New(img), built, legend, l)
		canvas = vgimg.PngCanvas{Canvas: img}
	case "svg":
		svg := vgsvg.NewWith(vgsvg.UseWH(width, height))
		dc := draw.New(svg)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		f.draw(dc, built, legend, l)
		canvas = svg
	default:
		return fmt.Errorf("plots: unknown format %q (valid: png, svg)", format)
	}
	_, err = canvas.WriteTo(w)
	return err
}

// Save writes the figure to path; the extension (.png or .svg) picks the
// format. The file is written in full or not at all.
func (f Figure) Save(path string) error {
	format := strings.TrimPrefix(filepath.Ext(path), ".")
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	if err := f.Render(bw, format); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// newPlot is a plot with the house style: title, labels, grid-free, white.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(plot.DefaultFont, 12)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Label.TextStyle.Font = font.From(plot.DefaultFont, 11)
	p.Y.Label.TextStyle.Font = font.From(plot.DefaultFont, 11)
	p.X.Tick.Label.Font = font.From(plot.DefaultFont, 10)
	p.Y.Tick.Label.Font = font.From(plot.DefaultFont, 10)
	p.X.Tick.Marker = linearTicks{}
	p.Y.Tick.Marker = linearTicks{}
	return p
}
