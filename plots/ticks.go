package plots

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// logTicks labels a log axis. gonum's LogTicks labels powers of ten only,
// which leaves an axis that spans less than a decade (2..16 proposers) with
// one label or none; this ticker adds 2 and 5 times the powers of ten when
// the range is short, and always labels at least the two ends' decades.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > 0) || max < min {
		return nil
	}
	lo := math.Floor(math.Log10(min))
	hi := math.Ceil(math.Log10(max))
	decades := math.Log10(max / min)
	labelled := map[int]bool{1: true}
	if decades <= 2.5 {
		labelled[2], labelled[5] = true, true
	}
	if decades <= 1 {
		for i := 1; i < 10; i++ {
			labelled[i] = true
		}
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		p := math.Pow(10, e)
		for i := 1; i < 10; i++ {
			v := float64(i) * p
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled[i] {
				t.Label = FormatNumber(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// linearTicks labels a linear axis at 4 to 8 round values (steps of 1, 2,
// 2.5 or 5 times a power of ten; gonum's default often labels only two),
// with unlabelled minor ticks between them, and FormatNumber labels so that
// 40000 reads "40k" on the axis as it does in the report.
type linearTicks struct{}

func (linearTicks) Ticks(min, max float64) []plot.Tick {
	if !finite(min) || !finite(max) || max <= min {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	step, minor := niceStep(min, max)
	var ticks []plot.Tick
	first := math.Ceil(min/minor-1e-9) * minor
	for i := 0; ; i++ {
		v := first + float64(i)*minor
		if v > max+minor*1e-9 {
			break
		}
		if math.Abs(v) < minor*1e-9 {
			v = 0
		}
		t := plot.Tick{Value: v}
		if r := math.Mod(math.Abs(v)+step*1e-9, step); r < step*1e-6 {
			t.Label = FormatNumber(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// niceStep picks the smallest round step (1, 2, 2.5 or 5 times a power of
// ten) that puts at most 8 labels on [min, max], and the minor step.
func niceStep(min, max float64) (step, minor float64) {
	p := math.Pow(10, math.Floor(math.Log10((max-min)/10)))
	for i := 0; i < 8; i++ {
		for _, m := range []float64{1, 2, 2.5, 5} {
			step = m * p
			if math.Floor(max/step+1e-9)-math.Ceil(min/step-1e-9)+1 <= 8 {
				if m == 2 {
					return step, step / 4
				}
				return step, step / 5
			}
		}
		p *= 10
	}
	return step, step / 5
}

// log10Axis labels an axis whose values are log10 of the data (how
// LineChart draws log axes): the ticks of logTicks, placed at their
// logarithms.
type log10Axis struct{}

func (log10Axis) Ticks(min, max float64) []plot.Tick {
	ticks := logTicks{}.Ticks(math.Pow(10, min), math.Pow(10, max))
	for i := range ticks {
		ticks[i].Value = math.Log10(ticks[i].Value)
	}
	return ticks
}

// valueTicks labels the given positions (a sweep's points) with the given
// labels and keeps the unlabelled minor ticks of base; a label that would
// crowd the one before it (closer than gap of the axis length) is left
// out.
type valueTicks struct {
	at     []float64
	labels []string
	base   plot.Ticker
	gap    float64
}

func (vt valueTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for _, t := range vt.base.Ticks(min, max) {
		ticks = append(ticks, plot.Tick{Value: t.Value})
	}
	// Greedy from the left; the last value (the end of the sweep) always
	// keeps its label, at the cost of a neighbour that would crowd it.
	type lab struct {
		v, n float64
		s    string
	}
	var kept []lab
	var in []lab
	for i, v := range vt.at {
		if v >= min && v <= max {
			in = append(in, lab{v, (v - min) / (max - min), vt.labels[i]})
		}
	}
	for i, l := range in {
		if len(kept) > 0 && l.n-kept[len(kept)-1].n < vt.gap {
			if i != len(in)-1 {
				continue
			}
			kept = kept[:len(kept)-1]
		}
		kept = append(kept, l)
	}
	for _, l := range kept {
		ticks = append(ticks, plot.Tick{Value: l.v, Label: l.s})
	}
	return ticks
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// FormatNumber prints v compactly for axes and tables: integers as they
// are up to 9999, then with a k or M suffix when that is exact to three
// significant digits; other values with up to three significant digits.
func FormatNumber(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "-∞"
	case v == 0:
		return "0"
	}
	a := math.Abs(v)
	for _, u := range []struct {
		div float64
		sfx string
	}{{1e6, "M"}, {1e3, "k"}} {
		if a >= 10*u.div || (a >= u.div && a >= 1e4) {
			return trim(strconv.FormatFloat(v/u.div, 'f', 2, 64)) + u.sfx
		}
	}
	if a == math.Trunc(a) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if a >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if a >= 0.001 {
		return trim(strconv.FormatFloat(v, 'g', 3, 64))
	}
	return strconv.FormatFloat(v, 'e', 1, 64)
}

func trim(s string) string {
	if strings.Contains(s, ".") && !strings.ContainsAny(s, "eE") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}
