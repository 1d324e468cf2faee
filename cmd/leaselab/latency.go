package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"leaselab/runner"
	"leaselab/runner/experiments"
)

// `leaselab run --latency-chart FILE`: the run's latency percentiles,
// HDR histogram and throughput over time (experiments.LoadFigure).
func init() {
	var path *string
	registerRunExtension(runExtension{
		flags: func(fs *pflag.FlagSet) {
			path = fs.String("latency-chart", "", "draw the run's latency percentiles (p50 … p99.9, max), its HDR latency histogram and its throughput over time to this .png or .svg file")
		},
		before: func(*ctx, runner.Spec, *runner.Options) error { return checkChartPath("--latency-chart", *path) },
		after: func(c *ctx, res runner.Result) error {
			if *path == "" {
				return nil
			}
			fig := experiments.LoadFigure(res, fmt.Sprintf("leaselab run: %s, %s", res.Algo, res.Workload))
			if err := fig.Save(*path); err != nil {
				return fmt.Errorf("--latency-chart: %w", err)
			}
			fmt.Fprintf(c.stderr, "latency chart: %s\n", *path)
			return nil
		},
	})
}
