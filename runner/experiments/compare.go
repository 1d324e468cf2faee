package experiments

import (
	"fmt"
	"math"
	"sort"

	"leaselab/plots"
)

// How a Published claim is compared with our results. Each computes "ours"
// from the aggregated means of one series (Variant, in Facet) and the
// claim's meter:
var compareHows = map[string]string{
	"at":            "our mean at sweep value X",
	"max":           "the largest mean over the sweep",
	"argmax":        "the sweep value with the largest mean",
	"first_nonzero": "the smallest sweep value whose mean is above zero",
	"zero_upto":     "the largest sweep value up to which every mean is zero",
	"diff_mean":     "the mean over the sweep of (Variant - Other)",
	"spread":        "(max - min) / mean over the sweep, as a fraction",
	"total":         "the sum over every sweep value and repetition",
	"greater_total": "the sum over the sweep of Variant minus that of Other",
	"ratio":         "mean at X2 divided by mean at X",
}

// Ops are the verdict rules: ours compared with Ref (or with Paper for ≈).
var compareOps = map[string]bool{"≈": true, ">=": true, "<=": true, ">": true, "<": true, "==": true}

// Num marks a number the paper states (for Published.Paper).
func Num(v float64) *float64 { return &v }

func (p Published) validate(e Experiment, variants, facets map[string]bool) error {
	if _, ok := compareHows[p.How]; !ok {
		return fmt.Errorf("unknown comparison %q", p.How)
	}
	if !compareOps[p.Op] {
		return fmt.Errorf("unknown verdict rule %q", p.Op)
	}
	if p.Op == "≈" && p.Paper == nil {
		return fmt.Errorf("≈ needs the paper's number")
	}
	// Ablation-expanded variants are named at Resolve time; claims name
	// only the variants written in the definition.
	if !variants[p.Variant] {
		return fmt.Errorf("unknown variant %q", p.Variant)
	}
	if (p.How == "diff_mean" || p.How == "greater_total") && !variants[p.Other] {
		return fmt.Errorf("unknown other variant %q", p.Other)
	}
	if p.Facet != "" && !facets[p.Facet] {
		return fmt.Errorf("unknown facet %q", p.Facet)
	}
	found := false
	for _, m := range e.Meters {
		if m.Key == p.Meter {
			found = true
		}
	}
	if !found {
		return fmt.Errorf("meter %q is not one of the experiment's meters", p.Meter)
	}
	return nil
}

// Comparison is one row of the report's "paper vs ours" table.
type Comparison struct {
	Published
	Ours     float64 `json:"ours"`
	OursText string  `json:"ours_text"`
	// Verdict: agrees, differs, not measured, or inconclusive (a ratio
	// whose two points' 95% intervals overlap).
	Verdict string `json:"verdict"`
}

// series is the aggregated means of one variant and meter, by sweep value.
type series struct {
	xs       []float64
	means    []float64
	sums     []float64
	los, his []float64 // 95% interval of each mean (NaN: fewer than two runs)
}

// The values are in the meter's shown units (scaled), like the paper's
// numbers they are compared with.
func (r *Report) series(facet, variant, meter string, minX float64) (series, bool) {
	var s series
	k := meterFor(r.Exp.Experiment, meter).scale()
	for _, a := range r.Summary {
		if a.Facet == facet && a.Variant == variant && a.Meter == meter && !(a.X < minX) {
			s.xs = append(s.xs, a.X)
			s.means = append(s.means, a.Stat.Mean*k)
			s.sums = append(s.sums, a.Stat.Sum*k)
			s.los = append(s.los, a.Stat.Lo*k)
			s.his = append(s.his, a.Stat.Hi*k)
		}
	}
	return s, len(s.xs) > 0
}

func meterFor(e Experiment, key string) Meter {
	for _, m := range e.Meters {
		if m.Key == key {
			return m
		}
	}
	return Meter{Key: key, Label: key}
}

// compare computes our counterpart of claim p.
func (r *Report) compare(p Published) Comparison {
	c := Comparison{Published: p, Ours: math.NaN(), Verdict: "not measured"}
	facet := p.Facet
	if facet == "" && len(r.Exp.Facets) > 0 {
		facet = r.Exp.Facets[0].Name
	}
	s, ok := r.series(facet, p.Variant, p.Meter, p.MinX)
	if !ok {
		c.OursText = "no data"
		return c
	}
	m := &measured{r: r, p: p, facet: facet, s: s, unit: meterFor(r.Exp.Experiment, p.Meter).Unit, param: r.Exp.Sweep.Param}
	m.xs, m.ms = s.valid()
	if fi := r.Exp.facetIndex(p.Facet); fi >= 0 {
		m.param = r.Exp.SweepOf(fi).Param
	}
	how := map[string]func(*Comparison) bool{
		"at": m.at, "max": m.max, "argmax": m.max, "first_nonzero": m.firstNonzero, "zero_upto": m.zeroUpto,
		"diff_mean": m.against, "greater_total": m.against, "spread": m.spread, "total": m.total, "ratio": m.ratio,
	}
	if f := how[p.How]; f != nil && f(&c) {
		return c
	}
	c.Verdict = verdict(p, c.Ours)
	return c
}

// measured is one published statement's series, for the measures of
// Published.How. Each measure fills in Ours and OursText and reports
// whether it has settled the verdict too (otherwise verdict decides).
type measured struct {
	r      *Report
	p      Published
	facet  string
	s      series
	xs, ms []float64 // the sweep values with a mean, and the means
	unit   string
	param  string
}

func (m *measured) withUnit(v float64) string {
	if m.unit == "" {
		return plots.FormatNumber(v)
	}
	return plots.FormatNumber(v) + " " + m.unit
}

// mean is the series' mean at sweep value x, if measured.
func (m *measured) mean(x float64) (float64, bool) {
	for i, sx := range m.s.xs {
		if sx == x && !math.IsNaN(m.s.means[i]) {
			return m.s.means[i], true
		}
	}
	return math.NaN(), false
}

// interval is the 95% interval of the mean at sweep value x.
func (m *measured) interval(x float64) (lo, hi float64) {
	for i, sx := range m.s.xs {
		if sx == x {
			return m.s.los[i], m.s.his[i]
		}
	}
	return math.NaN(), math.NaN()
}

// valid returns the sweep values that have a mean, and the means.
func (s series) valid() (xs, ms []float64) {
	for i := range s.xs {
		if !math.IsNaN(s.means[i]) {
			xs = append(xs, s.xs[i])
			ms = append(ms, s.means[i])
		}
	}
	return
}

// at: the mean at X.
func (m *measured) at(c *Comparison) bool {
	v, ok := m.mean(m.p.X)
	if !ok {
		c.OursText = fmt.Sprintf("%s = %s not in this sweep (%s)", m.param, plots.FormatNumber(m.p.X), sweepText(m.s.xs))
		return true
	}
	c.Ours, c.OursText = v, m.withUnit(v)
	return false
}

// max and argmax: the largest mean, or where it is.
func (m *measured) max(c *Comparison) bool {
	xs, ms := m.xs, m.ms
	if len(ms) == 0 {
		c.OursText = "no data"
		return true
	}
	best, worst := 0, 0
	for i := range ms {
		if ms[i] > ms[best] {
			best = i
		}
		if ms[i] < ms[worst] {
			worst = i
		}
	}
	switch {
	case ms[best] == ms[worst] && len(ms) > 1:
		// No maximum to point at: the series is flat.
		c.Ours = ms[best]
		if m.p.How == "argmax" {
			c.Ours = math.NaN()
		}
		c.OursText = fmt.Sprintf("%s everywhere in the sweep (%s)", m.withUnit(ms[best]), sweepText(xs))
	case m.p.How == "max":
		c.Ours = ms[best]
		c.OursText = fmt.Sprintf("%s (at %s = %s)", m.withUnit(ms[best]), m.param, plots.FormatNumber(xs[best]))
	default:
		c.Ours = xs[best]
		c.OursText = fmt.Sprintf("%s = %s (%s)", m.param, plots.FormatNumber(xs[best]), m.withUnit(ms[best]))
	}
	return false
}

// firstNonzero: the first sweep value with a mean above zero.
func (m *measured) firstNonzero(c *Comparison) bool {
	xs, ms := m.xs, m.ms
	for i := range ms {
		if ms[i] > 0 {
			c.Ours = xs[i]
			c.OursText = fmt.Sprintf("%s = %s", m.param, plots.FormatNumber(xs[i]))
			return false
		}
	}
	// Measured, and never above zero: that differs from a paper that saw
	// it happen inside our sweep.
	c.OursText = fmt.Sprintf("zero everywhere in the sweep (%s)", sweepText(xs))
	c.Verdict = "differs"
	if m.p.Paper != nil && len(xs) > 0 && *m.p.Paper > xs[len(xs)-1] {
		c.Verdict = "not measured" // the paper's point lies beyond our sweep
	}
	return true
}

// zeroUpto: the last sweep value up to which every mean is zero.
func (m *measured) zeroUpto(c *Comparison) bool {
	xs, ms := m.xs, m.ms
	last := math.NaN()
	for i := range ms {
		if ms[i] != 0 {
			break
		}
		last = xs[i]
	}
	if math.IsNaN(last) {
		c.OursText = fmt.Sprintf("not zero even at %s = %s", m.param, plots.FormatNumber(xs[0]))
		c.Ours = 0
		return false
	}
	c.Ours = last
	c.OursText = fmt.Sprintf("zero up to %s = %s", m.param, plots.FormatNumber(last))
	if last == xs[len(xs)-1] && m.p.Paper != nil && last < *m.p.Paper {
		// The sweep stopped before the paper's value: we cannot say more
		// than "none within the sweep".
		c.OursText += " (the end of this sweep)"
		c.Verdict = "not measured"
		return true
	}
	return false
}

// against (diff_mean, greater_total): this variant against Other.
func (m *measured) against(c *Comparison) bool {
	p, s := m.p, m.s
	o, ok := m.r.series(m.facet, p.Other, p.Meter, p.MinX)
	if !ok {
		c.OursText = "no data for " + p.Other
		return true
	}
	if p.How == "greater_total" {
		a, b := total(s.sums), total(o.sums)
		c.Ours = a - b
		c.OursText = fmt.Sprintf("%s: %s, %s: %s (difference %s)", p.Variant, plots.FormatNumber(a), p.Other, plots.FormatNumber(b), plots.FormatNumber(a-b))
		return false
	}
	var sum float64
	n := 0
	for i, x := range s.xs {
		for j, ox := range o.xs {
			if ox == x && !math.IsNaN(s.means[i]) && !math.IsNaN(o.means[j]) {
				sum += s.means[i] - o.means[j]
				n++
			}
		}
	}
	if n == 0 {
		c.OursText = "no common sweep values"
		return true
	}
	c.Ours = sum / float64(n)
	c.OursText = fmt.Sprintf("%s (mean over %d values)", m.withUnit(c.Ours), n)
	return false
}

// spread: (max - min) / |mean| over the sweep.
func (m *measured) spread(c *Comparison) bool {
	ms := m.ms
	if len(ms) < 2 {
		c.OursText = "fewer than two sweep values"
		return true
	}
	lo, hi, mean := ms[0], ms[0], 0.0
	for _, v := range ms {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		mean += v
	}
	mean /= float64(len(ms))
	if mean == 0 {
		c.Ours = 0
	} else {
		c.Ours = (hi - lo) / math.Abs(mean)
	}
	c.OursText = fmt.Sprintf("%s to %s (spread %.0f%% of the mean)", m.withUnit(lo), m.withUnit(hi), 100*c.Ours)
	return false
}

// total: the sum over all runs.
func (m *measured) total(c *Comparison) bool {
	c.Ours = total(m.s.sums)
	c.OursText = plots.FormatNumber(c.Ours) + " in all runs"
	return false
}

// ratio: the mean at X2 over the mean at X.
func (m *measured) ratio(c *Comparison) bool {
	p := m.p
	a, okA := m.mean(p.X)
	b, okB := m.mean(p.X2)
	if !okA || !okB {
		c.OursText = fmt.Sprintf("%s = %s and %s not both in this sweep", m.param, plots.FormatNumber(p.X), plots.FormatNumber(p.X2))
		return true
	}
	if a == 0 {
		c.OursText = fmt.Sprintf("%s at %s, %s at %s", m.withUnit(a), plots.FormatNumber(p.X), m.withUnit(b), plots.FormatNumber(p.X2))
		return true
	}
	c.Ours = b / a
	c.OursText = fmt.Sprintf("%s → %s (×%.2f)", m.withUnit(a), m.withUnit(b), c.Ours)
	// A change the repetitions cannot tell from noise (the two 95%
	// intervals overlap) neither agrees nor differs: over real UDP a
	// ratio of 0.9 or 1.1 between two points is often just that.
	loA, hiA := m.interval(p.X)
	loB, hiB := m.interval(p.X2)
	if !math.IsNaN(loA) && !math.IsNaN(loB) && loA <= hiB && loB <= hiA {
		c.OursText += "; the 95% intervals overlap"
		c.Verdict = "inconclusive"
		return true
	}
	return false
}

func total(vs []float64) float64 {
	var t float64
	for _, v := range vs {
		if !math.IsNaN(v) {
			t += v
		}
	}
	return t
}

// verdict applies the claim's rule. "≈" means within a factor of two of the
// paper's number (exactly zero if the paper's number is zero): the setups
// differ too much (hardware of 2008, a simulator) for a finer test to mean
// anything, and the report prints both numbers anyway.
func verdict(p Published, ours float64) string {
	if math.IsNaN(ours) {
		return "not measured"
	}
	ref := p.Ref
	ok := false
	switch p.Op {
	case "≈":
		paper := *p.Paper
		if paper == 0 {
			ok = ours == 0
		} else {
			q := ours / paper
			ok = q >= 0.5 && q <= 2
		}
	case ">=":
		ok = ours >= ref
	case "<=":
		ok = ours <= ref
	case ">":
		ok = ours > ref
	case "<":
		ok = ours < ref
	case "==":
		ok = ours == ref
	}
	if ok {
		return "agrees"
	}
	return "differs"
}

// Rule is the verdict rule in words, for the report.
func (p Published) Rule() string {
	switch p.Op {
	case "≈":
		return "within ×2 of the paper"
	case "==":
		return "= " + plots.FormatNumber(p.Ref)
	}
	return p.Op + " " + plots.FormatNumber(p.Ref)
}

// PaperText is the paper's number, or a dash where it states none.
func (p Published) PaperText() string {
	if p.Paper == nil {
		return "—"
	}
	return plots.FormatNumber(*p.Paper)
}

func sweepText(xs []float64) string {
	ys := append([]float64{}, xs...)
	sort.Float64s(ys)
	if len(ys) == 0 {
		return "empty"
	}
	return fmt.Sprintf("swept %s..%s", plots.FormatNumber(ys[0]), plots.FormatNumber(ys[len(ys)-1]))
}
