package experiments

import (
	"fmt"
	"math"

	"leaselab/plots"
	"leaselab/runner"
)

// LoadFigure draws one run's latency and throughput: a) its latency
// percentiles (p50, p90, p99, p99.9, max), b) its HDR latency histogram
// (requests per bucket against the bucket's bound, both axes
// logarithmic), c) its acquisitions per second over the run. With an
// open-loop load (Spec.Rate) the latencies count from each request's
// arrival.
func LoadFigure(res runner.Result, title string) plots.Figure {
	l := res.LatencyMS
	pct := plots.BarChart{Title: "a) latency percentiles", YLabel: "latency (ms)", ValueLabels: true}
	for _, b := range []struct {
		label string
		v     float64
	}{{"p50", l.P50}, {"p90", l.P90}, {"p99", l.P99}, {"p99.9", l.P999}, {"max", l.Max}} {
		pct.Bars = append(pct.Bars, plots.Bar{Group: res.Algo, Label: b.label, Value: b.v, Lo: math.NaN(), Hi: math.NaN()})
	}
	hist := plots.LineChart{Title: "b) latency histogram (HDR)", XLabel: "latency (ms, bucket bound)", YLabel: "requests",
		LogX: true, LogY: true}
	hs := plots.Series{Name: res.Algo}
	for _, b := range res.LatencyHistogram {
		if b.LE > 0 {
			hs.X = append(hs.X, b.LE)
			hs.Y = append(hs.Y, float64(b.Count))
		}
	}
	hist.Series = []plots.Series{hs}
	tp := plots.LineChart{Title: "c) throughput over time", XLabel: "true time (s)", YLabel: "leases acquired per second"}
	ts := plots.Series{Name: res.Algo}
	for i, v := range res.Throughput.LeasesPerSec {
		ts.X = append(ts.X, float64(int64(i)*res.Throughput.BucketNS)/1e9)
		ts.Y = append(ts.Y, v)
	}
	tp.Series = []plots.Series{ts}
	load := "closed loop"
	if res.Params.Rate > 0 {
		load = fmt.Sprintf("open loop, %g requests/s (Poisson arrivals; latency from arrival)", res.Params.Rate)
	}
	note := fmt.Sprintf("%s, %s workload, %s, env %s, seed %d: %d leases acquired, %d failed; throughput in buckets of %s.",
		res.Algo, res.Workload, load, res.Env, res.Seed, res.LeasesAcquired, res.LeasesFailed, fmtNS(res.Throughput.BucketNS))
	return plots.Figure{Title: title, Panels: []plots.Panel{pct, hist, tp}, Cols: 3, Notes: []string{note}}
}

// fmtNS prints a bucket width.
func fmtNS(ns int64) string {
	switch {
	case ns >= 1e9 && ns%1e9 == 0:
		return fmt.Sprintf("%d s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%g ms", float64(ns)/1e6)
	}
	return fmt.Sprintf("%d ns", ns)
}
