package experiments

import "math"

// Stat summarises one meter over the repetitions of one point.
type Stat struct {
	N    int     `json:"n"`    // values that went in (missing ones excluded)
	Miss int     `json:"miss"` // runs without a value (failed, or the meter did not apply)
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"` // sample standard deviation (n-1)
	// Lo, Hi: the 95% confidence interval of the mean (Student's t);
	// NaN when N < 2.
	Lo  float64 `json:"ci95_lo"`
	Hi  float64 `json:"ci95_hi"`
	Sum float64 `json:"sum"`
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// tTable holds the two-sided 95% quantiles of Student's t distribution,
// t(0.975, df), for df = 1..30 (standard table values).
var tTable = [...]float64{
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
}

// t975 is t(0.975, df). Beyond the table it interpolates in 1/df towards
// the normal quantile 1.960, which is accurate to the third decimal.
func t975(df int) float64 {
	switch {
	case df < 1:
		return math.NaN()
	case df <= len(tTable):
		return tTable[df-1]
	}
	// t(30) = 2.042, t(inf) = 1.960, linear in 1/df.
	return 1.960 + (2.042-1.960)*30/float64(df)
}

// Summarise computes the statistics of vs; NaN values count as missing.
func Summarise(vs []float64) Stat {
	st := Stat{Mean: math.NaN(), Std: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	var xs []float64
	for _, v := range vs {
		if math.IsNaN(v) {
			st.Miss++
			continue
		}
		xs = append(xs, v)
	}
	st.N = len(xs)
	if st.N == 0 {
		return st
	}
	st.Min, st.Max = xs[0], xs[0]
	for _, x := range xs {
		st.Sum += x
		st.Min = math.Min(st.Min, x)
		st.Max = math.Max(st.Max, x)
	}
	st.Mean = st.Sum / float64(st.N)
	if st.N < 2 {
		return st
	}
	var ss float64
	for _, x := range xs {
		d := x - st.Mean
		ss += d * d
	}
	st.Std = math.Sqrt(ss / float64(st.N-1))
	half := t975(st.N-1) * st.Std / math.Sqrt(float64(st.N))
	st.Lo, st.Hi = st.Mean-half, st.Mean+half
	return st
}

// Wilson replaces the interval of a proportion (values 0 or 1) by the
// Wilson score interval: the t interval of 0/1 data leaves [0, 1] and is
// zero-width when every run agrees, which claims certainty from a few runs.
func (st Stat) Wilson() Stat {
	if st.N == 0 {
		return st
	}
	const z = 1.959964
	n := float64(st.N)
	p := st.Mean
	den := 1 + z*z/n
	centre := (p + z*z/(2*n)) / den
	half := z / den * math.Sqrt(p*(1-p)/n+z*z/(4*n*n))
	st.Lo, st.Hi = math.Max(0, centre-half), math.Min(1, centre+half)
	return st
}
