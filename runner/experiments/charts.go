package experiments

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot/vg"

	"leaselab/plots"
)

// panelLetter names panels a), b), ... as the papers do.
func panelLetter(i int) string { return string(rune('a'+i)) + ") " }

// Figure draws the experiment from its summary (never from raw runs, so the
// chart shows exactly what the summary CSV holds).
func (r *Report) Figure() (plots.Figure, error) {
	if r.Exp.Kind == Frontier {
		return r.frontierFigure(), nil
	}
	e := r.Exp
	fig := plots.Figure{Title: fmt.Sprintf("%s: %s", e.Name, e.Title)}
	if n := e.ChartNotes[e.Env]; n != "" {
		fig.Notes = append(fig.Notes, n)
	}
	fig.Notes = append(fig.Notes, r.provenance())
	switch e.Kind {
	case Lines:
		i := 0
		meters := e.facetMeters(0)
		for fi, f := range e.Facets {
			for _, m := range e.facetMeters(fi) {
				title := panelLetter(i) + m.Label
				if f.Name != "" {
					title += ", " + f.Name
				}
				fig.Panels = append(fig.Panels, r.linePanel(fi, m, title))
				i++
			}
		}
		switch n := len(meters); {
		case n == 1:
			fig.Cols = min(len(e.Facets), 3)
		case n <= 3:
			fig.Cols = n
		case n == 4:
			fig.Cols = 2
		default:
			fig.Cols = 3
		}
		if e.Chains {
			fig.Panels = append(fig.Panels, r.chainPanel(panelLetter(i)))
		}
	case Bars:
		// A row per meter, a column per facet.
		i := 0
		for _, m := range e.chartMeters() {
			for _, f := range e.Facets {
				title := panelLetter(i) + m.Label
				if f.Name != "" {
					title += ", " + f.Name
				}
				fig.Panels = append(fig.Panels, r.barPanel(f.Name, m, title))
				i++
			}
		}
		fig.Cols = len(e.Facets)
		fig.PanelWidth = vg.Length(math.Max(6, 0.3*float64(len(e.Variants))+1.5)) * vg.Inch
		fig.PanelHeight = 3.6 * vg.Inch
	case Timelines:
		if len(r.Timelines) == 0 {
			return fig, fmt.Errorf("no timeline: every run failed")
		}
		for i, t := range r.Timelines {
			title := fmt.Sprintf("%s%s, seed %d: %d holds, %d violations", panelLetter(i), t.Variant, t.Seed, len(t.Holds), len(t.Violations))
			fig.Panels = append(fig.Panels, t.Chart(title))
		}
		fig.Cols = 1
		fig.PanelWidth = 9 * vg.Inch
		fig.PanelHeight = vg.Length(1.1+0.32*float64(r.Timelines[0].Nodes)) * vg.Inch
	}
	return fig, nil
}

// provenance says where the numbers come from, under the chart.
func (r *Report) provenance() string {
	e := r.Exp
	env := "deterministic simulator (sim)"
	if e.Env == "udp" {
		env = "real UDP sockets, CPU and disk on this machine (udp; real time, so repetitions differ and no seed reproduces them)"
	}
	s := fmt.Sprintf("Environment: %s. %s.", env, repsText(e.NReps, e.Base.Seed))
	if e.NReps > 1 && e.Kind != Timelines {
		s += " Error bars: 95% confidence interval of the mean (Student's t"
		for _, m := range e.Meters {
			if m.Proportion {
				s += "; Wilson score interval for " + m.Label
			}
		}
		s += "; intervals are clipped to the meter's range)."
	}
	if e.Quick {
		s += " Quick run (--quick)."
	}
	if r.Failed == 1 {
		s += " 1 run failed and is left out (see the report)."
	} else if r.Failed > 1 {
		s += fmt.Sprintf(" %d runs failed and are left out (see the report).", r.Failed)
	}
	if e.EnvNote != "" {
		s += " " + e.EnvNote + "."
	}
	return s
}

func repsText(n int, seed uint64) string {
	if n == 1 {
		return fmt.Sprintf("One run per point (seed %d)", seed)
	}
	return fmt.Sprintf("%d repetitions per point (seeds %d..%d)", n, seed, seed+uint64(n)-1)
}

func (r *Report) linePanel(fi int, m Meter, title string) plots.LineChart {
	e := r.Exp
	facet, sw, values := e.Facets[fi].Name, e.SweepOf(fi), e.ValuesOf(fi)
	lc := plots.LineChart{Title: title, XLabel: paramLabel(sw.Param), YLabel: m.AxisLabel(),
		LogX: sw.LogX, LogY: m.LogY, Dodge: vg.Points(2.5 * float64(len(e.Variants)))}
	if len(values) <= 12 {
		// Label the sweep's own points; a long sweep gets round numbers.
		lc.XTicks = values
	}
	k := m.scale()
	for _, v := range e.Variants {
		if !v.inFacet(facet) {
			continue
		}
		s := plots.Series{Name: v.Name}
		for xi, x := range values {
			st, _ := r.stat(facet, v.Name, xi, m.Key)
			lo, hi := m.clip(st.Lo*k, st.Hi*k)
			s.X = append(s.X, x)
			s.Y = append(s.Y, st.Mean*k)
			s.Lo = append(s.Lo, lo)
			s.Hi = append(s.Hi, hi)
		}
		lc.Series = append(lc.Series, s)
	}
	return lc
}

func (r *Report) barPanel(facet string, m Meter, title string) plots.BarChart {
	bc := plots.BarChart{Title: title, YLabel: m.AxisLabel(), ValueLabels: true}
	k := m.scale()
	for _, v := range r.Exp.Variants {
		st, _ := r.stat(facet, v.Name, 0, m.Key)
		lo, hi := m.clip(st.Lo*k, st.Hi*k)
		b := plots.Bar{Group: v.Group, Label: v.Label, Value: st.Mean * k, Lo: lo, Hi: hi}
		if m.Sum {
			b.Value, b.Lo, b.Hi = st.Sum, math.NaN(), math.NaN()
			if st.N == 0 {
				b.Value = math.NaN()
			}
			b.Value *= k
		}
		bc.Bars = append(bc.Bars, b)
	}
	if m.Sum {
		bc.YLabel += ", total over " + plural(r.Exp.NReps, "run")
	}
	return bc
}

// chainPanel is the distribution of pre-emption chain lengths at the
// largest swept value, summed over repetitions.
func (r *Report) chainPanel(letter string) plots.LineChart {
	e := r.Exp
	xmax := e.ValuesOf(0)[len(e.ValuesOf(0))-1]
	lc := plots.LineChart{
		Title:  fmt.Sprintf("%spre-emption chains, %s = %s", letter, shortParam(e.SweepOf(0).Param), plots.FormatNumber(xmax)),
		XLabel: "rounds lost in a row to higher ballots", YLabel: "attempts (total of " + plural(e.NReps, "run") + ")",
		LogY: true, Dodge: vg.Points(2.5 * float64(len(e.Variants))),
	}
	facet := e.Facets[0].Name
	maxLen := 0
	for _, c := range r.Chains {
		if c.Facet == facet && c.X == xmax && c.Length > maxLen {
			maxLen = c.Length
		}
	}
	for _, v := range e.Variants {
		s := plots.Series{Name: v.Name}
		counts := map[int]int{}
		for _, c := range r.Chains {
			if c.Facet == facet && c.Variant == v.Name && c.X == xmax {
				counts[c.Length] = c.Count
			}
		}
		for l := 0; l <= maxLen; l++ {
			// A length nobody reached is a count of zero, which the log
			// axis cannot show: the chart leaves it out and its note
			// says where; the chains CSV lists every count.
			y := float64(counts[l])
			s.X = append(s.X, float64(l))
			s.Y = append(s.Y, y)
		}
		lc.Series = append(lc.Series, s)
	}
	return lc
}

func shortParam(p string) string {
	return strings.SplitN(paramLabel(p), " ", 2)[0]
}

// chartMeters are the meters drawn (TableOnly ones are left out).
func (e Resolved) chartMeters() []Meter {
	var ms []Meter
	for _, m := range e.Meters {
		if !m.TableOnly {
			ms = append(ms, m)
		}
	}
	return ms
}

// clip keeps an interval (in shown units) inside the meter's range.
func (m Meter) clip(lo, hi float64) (float64, float64) {
	if lo < 0 {
		lo = 0
	}
	if m.Max > 0 && hi > m.Max {
		hi = m.Max
	}
	return lo, hi
}
