package plots

import (
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var algos = []string{"naive", "naive-undo", "paxoslease", "paxoslease (no backoff)", "fatlease", "classicpaxos"}

// syntheticLines is a fig5-like data set: throughput against batch size,
// with intervals, and a zero series that a log axis cannot show.
func syntheticLines(logY bool) LineChart {
	xs := []float64{100, 500, 1000, 5000, 10000, 40000}
	var ss []Series
	for k, a := range algos {
		s := Series{Name: a, X: xs}
		for i, x := range xs {
			y := 3000 / (1 + float64(k)*0.3) * (1 - float64(i)*0.1)
			if a == "classicpaxos" && x >= 5000 {
				y = 0 // regular Paxos negotiates nothing: zero on a log axis
			}
			s.Y = append(s.Y, y)
			s.Lo = append(s.Lo, y*0.8-200) // may go below zero
			s.Hi = append(s.Hi, y*1.1)
		}
		ss = append(ss, s)
	}
	return LineChart{Title: "a) throughput", XLabel: "batch size (leases)", YLabel: "throughput (leases/s)",
		LogX: true, LogY: logY, Series: ss, Dodge: 6}
}

func syntheticBars() BarChart {
	var bars []Bar
	for _, a := range []string{"naive", "paxoslease", "fatlease", "classicpaxos"} {
		for i, ab := range []string{"none", "restart-wait", "distinct-votes"} {
			v := float64(i * 3)
			bars = append(bars, Bar{Group: a, Label: ab, Value: v, Lo: v - 1, Hi: v + 1})
		}
	}
	return BarChart{Title: "violations per 100 runs", YLabel: "violations", Bars: bars, ValueLabels: true}
}

func syntheticTimeline() Timeline {
	return Timeline{
		Title: "paxoslease, 3 acceptors, seed 1", Series: "paxoslease",
		Rows:       []string{"n0", "n1", "n2"},
		Holds:      []Interval{{0, 0.5, 3}, {1, 3.2, 6}, {2, 6.5, 9}, {0, 9, 12}},
		Down:       []Interval{{1, 6.1, 8}},
		Crashes:    []Mark{{1, 6.1}},
		Restarts:   []Mark{{1, 8}},
		Partitions: []Span{{Start: 10, End: 11}},
		Violations: []Span{{Start: 11.5, End: 11.6, Rows: []int{0, 2}}},
		End:        15,
	}
}

func syntheticFigure(logY bool) Figure {
	lc := syntheticLines(logY)
	lc2 := lc
	lc2.Title, lc2.YLabel, lc2.LogY = "b) timeouts", "timeouts", false
	return Figure{
		Title:  "Fig. 5: concurrent lease negotiation, one machine (synthetic)",
		Panels: []Panel{lc, lc2, syntheticBars(), syntheticTimeline()},
		Cols:   2,
		Notes:  []string{"Synthetic data for tests."},
	}
}

func render(t *testing.T, f Figure, format string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := f.Render(&buf, format); err != nil {
		t.Fatalf("render %s: %v", format, err)
	}
	if buf.Len() < 1000 {
		t.Fatalf("render %s: only %d bytes", format, buf.Len())
	}
	return buf.Bytes()
}

func TestRenderFormats(t *testing.T) {
	for _, tc := range []struct {
		name string
		fig  Figure
	}{
		{"lines-log", Figure{Title: "log", Panels: []Panel{syntheticLines(true)}}},
		{"lines-lin", Figure{Title: "linear", Panels: []Panel{syntheticLines(false)}}},
		{"bars", Figure{Title: "bars", Panels: []Panel{syntheticBars()}}},
		{"timeline", Figure{Title: "timeline", Panels: []Panel{syntheticTimeline()}}},
		{"grid", syntheticFigure(true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := render(t, tc.fig, "png")
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("PNG does not decode: %v", err)
			}
			w, h, err := tc.fig.Size()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := img.Bounds().Dx(), int(math.Round(w.Dots(DPI))); abs(got-want) > 1 {
				t.Errorf("PNG width %d px, want %d", got, want)
			}
			if got, want := img.Bounds().Dy(), int(math.Round(h.Dots(DPI))); abs(got-want) > 1 {
				t.Errorf("PNG height %d px, want %d", got, want)
			}
			s := render(t, tc.fig, "svg")
			if !bytes.Contains(s, []byte("<svg")) {
				t.Errorf("SVG output has no <svg element")
			}
			if dir := os.Getenv("PLOTS_OUT"); dir != "" {
				os.WriteFile(filepath.Join(dir, tc.name+".png"), b, 0o644)
				os.WriteFile(filepath.Join(dir, tc.name+".svg"), s, 0o644)
			}
		})
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Every point a chart can draw is drawn inside its axes: the sideways
// dodge between series must not push the first or the last point past the
// data area (where it was clipped and silently left out), on linear and
// log axes alike.
func TestDodgedPointsInsideAxes(t *testing.T) {
	for _, logX := range []bool{false, true} {
		var ss []Series
		for _, name := range []string{"naive", "paxoslease", "fatlease", "classicpaxos"} {
			ss = append(ss, Series{Name: name, X: []float64{100, 1000, 40000}, Y: []float64{1100, 3000, 3800},
				Lo: []float64{1000, 2900, 3700}, Hi: []float64{1200, 3100, 3900}})
		}
		lc := LineChart{Title: "t", XLabel: "x", YLabel: "y", LogX: logX, Series: ss, Dodge: vg.Points(10)}
		p, sps, _, notes, err := lc.buildLines()
		if err != nil {
			t.Fatal(err)
		}
		if len(notes) > 0 {
			t.Errorf("log x %v: notes %q for a chart that leaves nothing out", logX, notes)
		}
		c := vgimg.New(4.8*vg.Inch, 3.4*vg.Inch)
		p.Draw(draw.New(c))
		for _, sp := range sps {
			if sp.drawn != 3 {
				t.Errorf("log x %v: %s: %d of 3 points drawn (shift %v)", logX, sp.name, sp.drawn, sp.shift)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, format := range []string{"png", "svg"} {
		a := render(t, syntheticFigure(true), format)
		b := render(t, syntheticFigure(true), format)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: same input, different output", format)
		}
	}
}

// Zeros, negatives and NaN on log axes must neither panic nor vanish
// silently: they are left out and a note says so.
func TestLogAxisZeros(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ys        []float64
		wantNote  string
		wantEmpty bool
	}{
		{"some zeros", []float64{0, 5, 0, 10}, "left out (naive at 0, 100)", false},
		{"all zeros", []float64{0, 0, 0, 0}, "no data to draw", true},
		{"negative and NaN", []float64{-1, math.NaN(), 3, 4}, "left out (naive at 0).\nt: no value to draw (every run failed, or the meter had nothing to measure) for naive at 10.", false},
		{"single point", []float64{0, 0, 7, 0}, "left out (naive at 0, 10, 1000)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lc := LineChart{Title: "t", XLabel: "x", YLabel: "y", LogX: true, LogY: true,
				Series: []Series{{Name: "naive", X: []float64{0, 10, 100, 1000}, Y: tc.ys,
					Lo: []float64{-5, 0, 1, 2}, Hi: []float64{1, 20, 30, 40}}}}
			_, _, notes, err := lc.build()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(notes, "\n"), tc.wantNote) {
				t.Errorf("notes %q do not say %q", notes, tc.wantNote)
			}
			f := Figure{Panels: []Panel{lc}}
			render(t, f, "png")
			render(t, f, "svg")
		})
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		fig  Figure
	}{
		{"no panels", Figure{}},
		{"ragged series", Figure{Panels: []Panel{LineChart{Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1}}}}}}},
		{"ragged interval", Figure{Panels: []Panel{LineChart{Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}, Lo: []float64{1}}}}}}},
		{"no bars", Figure{Panels: []Panel{BarChart{}}}},
		{"timeline row out of range", Figure{Panels: []Panel{Timeline{Rows: []string{"n0"}, Holds: []Interval{{Row: 3, Start: 0, End: 1}}}}}},
		{"timeline backwards hold", Figure{Panels: []Panel{Timeline{Rows: []string{"n0"}, Holds: []Interval{{Row: 0, Start: 2, End: 1}}}}}},
		{"nil panel", Figure{Panels: []Panel{nil}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.fig.Render(&bytes.Buffer{}, "png"); err == nil {
				t.Errorf("no error")
			}
		})
	}
	if err := (Figure{Panels: []Panel{syntheticBars()}}).Render(&bytes.Buffer{}, "gif"); err == nil {
		t.Errorf("unknown format: no error")
	}
}

func TestStyleFixedAndDistinct(t *testing.T) {
	seen := map[string]string{}
	for _, a := range algos {
		s := StyleFor(a)
		r, g, b, _ := s.Color.RGBA()
		key := string(rune(r>>8)) + string(rune(g>>8)) + string(rune(b>>8))
		if other, dup := seen[key]; dup {
			t.Errorf("%s and %s share a colour", a, other)
		}
		seen[key] = a
		if !sameStyle(s, StyleFor(a)) {
			t.Errorf("%s: style not stable", a)
		}
	}
	// Variants of a known algorithm borrow its colour.
	if v, b := StyleFor("fatlease (no renew)"), StyleFor("fatlease"); v.Color != b.Color {
		t.Errorf("variant colour %v, want the base colour %v", v.Color, b.Color)
	}
}

func sameStyle(a, b Style) bool {
	return a.Color == b.Color && a.Shape == b.Shape && len(a.Dashes) == len(b.Dashes) && a.Order == b.Order
}

func TestFormatNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {7, "7"}, {2500, "2500"}, {10000, "10k"}, {40000, "40k"}, {12345, "12.35k"},
		{1.5e6, "1.5M"}, {0.5, "0.5"}, {33.3333, "33.3"}, {123.4, "123"}, {math.NaN(), "n/a"}, {-20000, "-20k"},
	} {
		if got := FormatNumber(tc.v); got != tc.want {
			t.Errorf("FormatNumber(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     []string
	}{
		{100, 40000, []string{"100", "1000", "10k"}},
		{2, 16, []string{"2", "3", "4", "5", "6", "7", "8", "9", "10"}},
		{0.5, 60, []string{"0.5", "1", "2", "5", "10", "20", "50"}},
	} {
		var got []string
		for _, tk := range (logTicks{}).Ticks(tc.min, tc.max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("ticks(%g, %g) = %v, want %v", tc.min, tc.max, got, tc.want)
		}
	}
	if ticks := (logTicks{}).Ticks(0, 10); ticks != nil {
		t.Errorf("ticks from 0: %v, want none", ticks)
	}
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	f := Figure{Title: "t", Panels: []Panel{syntheticBars()}}
	for _, name := range []string{"a.png", "a.svg"} {
		p := filepath.Join(dir, name)
		if err := f.Save(p); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(p); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v, %v", name, st, err)
		}
	}
	if err := f.Save(filepath.Join(dir, "a.jpg")); err == nil {
		t.Errorf("jpg: no error")
	}
}

func TestLinearTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     string
	}{
		{0, 2500, "0,500,1000,1500,2000,2500"},
		{0, 1, "0,0.2,0.4,0.6,0.8,1"},
		{0, 100, "0,20,40,60,80,100"},
		{-20, 140, "0,25,50,75,100,125"},
		{0, 40000, "0,10k,20k,30k,40k"},
	} {
		var got []string
		for _, tk := range (linearTicks{}).Ticks(tc.min, tc.max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("ticks(%g, %g) = %v, want %s", tc.min, tc.max, got, tc.want)
		}
	}
}

// Sweep values label the axis; crowded ones are left out, never overlap.
func TestValueTicks(t *testing.T) {
	vt := valueTicks{base: log10Axis{}, gap: 0.075}
	for _, v := range []float64{100, 1000, 35000, 40000, 100000} {
		vt.at = append(vt.at, math.Log10(v))
		vt.labels = append(vt.labels, FormatNumber(v))
	}
	var got []string
	for _, tk := range vt.Ticks(2, 5) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if strings.Join(got, ",") != "100,1000,35k,100k" {
		t.Errorf("labels %v", got)
	}
	// The last value keeps its label even when its neighbour is close.
	vt.at, vt.labels, got = nil, nil, nil
	for _, v := range []float64{100, 1000, 60000, 100000} {
		vt.at = append(vt.at, math.Log10(v))
		vt.labels = append(vt.labels, FormatNumber(v))
	}
	for _, tk := range vt.Ticks(2, 5) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if strings.Join(got, ",") != "100,1000,100k" {
		t.Errorf("labels %v", got)
	}
}

// A log y axis must not shrink the panel: gonum's LogScale places the
// axis title's glyph box at the arithmetic mean of the range (near the top
// when the range spans decades), which once squeezed log panels.
func TestLogPanelSameHeight(t *testing.T) {
	xs := []float64{100, 1000, 40000}
	height := func(logY bool) vg.Length {
		lc := LineChart{Title: "t", XLabel: "x", YLabel: "throughput (leases/s)", LogX: true, LogY: logY,
			Series: []Series{{Name: "naive", X: xs, Y: []float64{1e3, 1e6, 6e8}}}}
		p, _, _, err := lc.build()
		if err != nil {
			t.Fatal(err)
		}
		c := draw.New(vgimg.New(4.8*vg.Inch, 3.4*vg.Inch))
		dc := p.DataCanvas(c)
		return dc.Max.Y - dc.Min.Y
	}
	if lin, lg := height(false), height(true); math.Abs(float64(lin-lg)) > 10 { // a tick label at the very top may take 6 pt
		t.Errorf("data area %v high on a log axis, %v on a linear one", lg, lin)
	}
}
