package sweep

import (
	"fmt"
	"sort"
	"strings"

	"gonum.org/v1/plot/vg"

	"leaselab/plots"
	"leaselab/runner"
)

// Figure draws a sweep: one panel per meter, the mean and its 95%
// confidence interval per cell. The x axis is the first numeric axis
// with more than one value, and every combination of the other axes'
// values is a line (named by its algorithm alone when the algorithm is
// the only other axis, so it keeps its colour from the reproduction's
// charts). A grid with no such axis is drawn as bars, grouped by the
// first axis.
func (r Result) Figure(title string) (plots.Figure, error) {
	if len(r.Cells) == 0 {
		return plots.Figure{}, fmt.Errorf("no cells to draw")
	}
	fig := plots.Figure{Title: title, Notes: []string{r.note()}}
	xi := r.xAxis()
	for i, m := range r.Meters {
		letter := string(rune('a'+i%26)) + ") "
		if xi < 0 {
			fig.Panels = append(fig.Panels, r.barPanel(letter+m, m))
		} else {
			lc, err := r.linePanel(letter+m, m, xi)
			if err != nil {
				return plots.Figure{}, err
			}
			fig.Panels = append(fig.Panels, lc)
		}
	}
	fig.Cols = min(3, len(fig.Panels))
	return fig, nil
}

// note says where the numbers come from, under the chart.
func (r Result) note() string {
	env := "deterministic simulator"
	if r.Params.Env == "udp" {
		env = "real UDP on this machine"
	}
	s := fmt.Sprintf("%s; %d seeds per cell (%d..%d); error bars: 95%% confidence interval of the mean (Student's t)",
		env, r.Seeds, r.FirstSeed, r.FirstSeed+uint64(r.Seeds)-1)
	if r.Seeds < 2 {
		s = fmt.Sprintf("%s; one seed per cell (%d), so no intervals", env, r.FirstSeed)
	}
	if r.Failed > 0 {
		s += fmt.Sprintf("; %d runs failed and are left out", r.Failed)
	}
	if r.Interrupted {
		s += "; interrupted: some cells have fewer seeds"
	}
	return s + "."
}

// xAxis is the index of the axis drawn along x (-1: none).
func (r Result) xAxis() int {
	for i, a := range r.Axes {
		p, err := runner.LookupParam(a.Param, nil)
		if err == nil && p.Numeric() && len(a.Values) > 1 {
			return i
		}
	}
	return -1
}

// seriesName names the combination of the values of every axis but
// skip; the algorithm's value alone when it is the only one.
func (r Result) seriesName(c CellResult, skip int) string {
	var parts []string
	for i, a := range r.Axes {
		if i == skip || len(a.Values) == 1 {
			continue
		}
		if a.Param == "algo" {
			parts = append(parts, c.Values[a.Param])
			continue
		}
		parts = append(parts, a.Param+"="+c.Values[a.Param])
	}
	if len(parts) == 0 {
		return r.Params.Algo
	}
	return strings.Join(parts, ", ")
}

// number is an axis value as a number in its parameter's unit.
func number(param, value string) (float64, error) {
	p, err := runner.LookupParam(param, nil)
	if err != nil {
		return 0, err
	}
	s := runner.DefaultSpec()
	if err := p.Set(&s, value); err != nil {
		return 0, err
	}
	return p.Number(s)
}

func (r Result) linePanel(title, meter string, xi int) (plots.LineChart, error) {
	p, _ := runner.LookupParam(r.Axes[xi].Param, nil)
	lc := plots.LineChart{Title: title, XLabel: p.Label, YLabel: meter}
	var order []string
	byName := map[string]*plots.Series{}
	for _, c := range r.Cells {
		name := r.seriesName(c, xi)
		s, ok := byName[name]
		if !ok {
			s = &plots.Series{Name: name}
			byName[name] = s
			order = append(order, name)
		}
		x, err := number(p.Name, c.Values[p.Name])
		if err != nil {
			return lc, err
		}
		st, _ := c.Stat(meter)
		lo, hi := clipLo(float64(st.Lo)), float64(st.Hi)
		s.X = append(s.X, x)
		s.Y = append(s.Y, float64(st.Mean))
		s.Lo = append(s.Lo, lo)
		s.Hi = append(s.Hi, hi)
	}
	for _, v := range r.Axes[xi].Values {
		x, err := number(p.Name, v)
		if err != nil {
			return lc, err
		}
		lc.XTicks = append(lc.XTicks, x)
	}
	sort.Float64s(lc.XTicks)
	if len(lc.XTicks) > 12 {
		lc.XTicks = nil
	}
	for _, n := range order {
		lc.Series = append(lc.Series, sortByX(*byName[n]))
	}
	// Series with equal values (several at zero) stay visible side by side.
	lc.Dodge = vg.Points(2.5 * float64(len(lc.Series)))
	return lc, nil
}

func (r Result) barPanel(title, meter string) plots.BarChart {
	bc := plots.BarChart{Title: title, YLabel: meter, ValueLabels: len(r.Cells) <= 12}
	for _, c := range r.Cells {
		st, _ := c.Stat(meter)
		group := r.Params.Algo
		if len(r.Axes) > 0 {
			group = c.Values[r.Axes[0].Param]
		}
		label := group
		if rest := r.seriesName(c, 0); len(r.Axes) > 1 && rest != r.Params.Algo {
			label = rest
		}
		lo, hi := clipLo(float64(st.Lo)), float64(st.Hi)
		bc.Bars = append(bc.Bars, plots.Bar{Group: group, Label: label, Value: float64(st.Mean), Lo: lo, Hi: hi})
	}
	return bc
}

// sortByX puts a series' points in the order of x (the axis' values may
// be given in any order).
func sortByX(s plots.Series) plots.Series {
	idx := make([]int, len(s.X))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.X[idx[a]] < s.X[idx[b]] })
	out := plots.Series{Name: s.Name}
	for _, i := range idx {
		out.X = append(out.X, s.X[i])
		out.Y = append(out.Y, s.Y[i])
		out.Lo = append(out.Lo, s.Lo[i])
		out.Hi = append(out.Hi, s.Hi[i])
	}
	return out
}

// clipLo keeps an interval's lower end at zero or above: every meter is
// non-negative, and a t interval of a few runs need not be.
func clipLo(lo float64) float64 {
	if lo < 0 {
		return 0
	}
	return lo
}
