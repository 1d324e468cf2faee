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

// linearTicks wraps gonum's default ticks with FormatNumber labels, so that
// 40000 reads "40k" on the axis as it does in the report.
type linearTicks struct{}

func (linearTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = FormatNumber(ticks[i].Value)
		}
	}
	return ticks
}

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
