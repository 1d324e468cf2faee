package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"leaselab/runner"
	"leaselab/runner/experiments"
	"leaselab/runner/sweep"
)

func init() {
	register(command{
		name:    "sweep",
		summary: "run a grid of algorithms × parameter values × seeds; mean and 95% CI per cell",
		usage:   "--algo A,B --PARAM V1,V2,... [--seeds K] [flags]",
		long: `Runs every combination (a cell) of the values given to the run flags, each
with seeds --first-seed .. --first-seed+K-1, and prints per cell the mean
of every meter and its 95% confidence interval (Student's t over the
seeds). Every flag of 'leaselab run' takes a comma-separated list here; a
flag with several values is an axis of the grid, one with a single value
sets it for every cell:

  leaselab sweep --algo naive,paxoslease --proposers 2,4 --seeds 3 --duration 30s

is 2 × 2 cells of 3 runs each. --ablate is an axis when repeated (each
occurrence one list, "none" for no ablation: --ablate none --ablate
backoff). A cell's run with seed S is exactly 'leaselab run' with the
cell's values and --seed S (the JSON keeps each run's trace_hash).

--meters picks what is summarised (a key of run's JSON, nested keys
dotted, e.g. latency_ms.p99, or a derived meter; see --meters help).
Output: a table (mean ± half the interval), --format csv (one row per
cell: mean, ci95_lo, ci95_hi and n per meter) or json (meta, params:
the base spec, axes, seeds, first_seed, and per cell its values, the
seeds run, every meter's n, mean, interval, std, min and max, and the
runs' trace hashes). --chart FILE.png or .svg draws one panel per meter
against the first numeric axis, a line per combination of the others.

--shard i/n runs part i of n: the cells [i·C/n, (i+1)·C/n) of the C
cells, in cell order (auto/n takes i from JOB_COMPLETION_INDEX or
SLURM_ARRAY_TASK_ID); 'leaselab merge' combines the parts' JSON into the
whole sweep's.

Runs go on all CPUs, over UDP one at a time. Interrupted (Ctrl-C), it
prints the cells so far (runs cut short are left out) and exits 130.
Exit status 1 if a run failed or any run violated the lease invariant,
2 for bad input.`,
		setup: setupSweep,
	})
}

func setupSweep(fs *pflag.FlagSet) action {
	def := runner.DefaultSpec()
	lists := map[string]*[]string{}
	var ablate *[]string
	for _, p := range runner.Params() {
		switch p.Name {
		case "seed":
			continue // --seeds and --first-seed
		case "ablate":
			ablate = fs.StringArray("ablate", nil, "comma-separated rules to switch off in every cell; repeat the flag to sweep several lists ("+sweep.NoAblation+": none)")
			continue
		}
		lists[p.Name] = fs.StringSlice(p.Name, []string{p.Format(def)}, p.Usage()+" (a comma-separated list sweeps it)")
		if p.Type() == "bool" {
			fs.Lookup(p.Name).NoOptDefVal = "true" // --group-commit alone, as in 'leaselab run'
		}
	}
	seeds := fs.Int("seeds", 5, "seeds per cell")
	first := fs.Uint64("first-seed", 1, "seed of each cell's first run")
	meters := fs.StringSlice("meters", sweep.DefaultMeters, "meters to summarise (keys of run's JSON, nested ones dotted, or derived): "+strings.Join(experiments.MeterKeys(), ", "))
	format := addFormatFlag(fs)
	chart := fs.String("chart", "", "draw the means and intervals to this .png or .svg file")
	workers := fs.Int("workers", 0, "runs at once (0: one per CPU)")
	shardFlag := addShardFlag(fs, "cells")
	quiet := addQuietFlag(fs)
	return func(c *ctx, args []string) error {
		g, err := sweepGrid(fs, lists, *ablate, *seeds, *first, *meters, args)
		if err != nil {
			return err
		}
		if err := checkChartPath("--chart", *chart); err != nil {
			return err
		}
		cells, err := g.Cells()
		if err != nil {
			return badInput(err)
		}
		info, err := shardSweep(*shardFlag, g, len(cells))
		if err != nil {
			return err
		}
		stop, release := interruptible(c)
		defer release()
		progress, done := newProgress(c, *quiet, fmt.Sprintf("sweep %d cells × %d seeds", len(cells), g.Seeds))
		opt := sweep.Options{Workers: *workers, Stop: stop}
		if info != nil {
			opt.From, opt.To = info.From, info.To
		}
		if progress != nil {
			opt.Progress = func(d, t int) { progress(float64(d) / float64(t)) }
		}
		res, err := sweep.Run(g, opt)
		done()
		release()
		if err != nil {
			return err
		}
		res.Meta = c.meta()
		res.Shard = info
		if err := writeSweep(c.stdout, *format, res); err != nil {
			return err
		}
		if *chart != "" {
			fig, err := res.Figure("leaselab sweep: " + sweepTitle(res))
			if err == nil {
				err = fig.Save(*chart)
			}
			if err != nil {
				return fmt.Errorf("--chart: %w", err)
			}
			fmt.Fprintf(c.stderr, "chart: %s\n", *chart)
		}
		return sweepStatus(res)
	}
}

// sweepGrid builds the grid from the flags: a flag with several values
// is an axis (in the parameter table's order), one value sets the base.
func sweepGrid(fs *pflag.FlagSet, lists map[string]*[]string, ablate []string, seeds int, first uint64, meters, args []string) (sweep.Grid, error) {
	if len(args) > 0 {
		return sweep.Grid{}, usagef("unexpected argument %q", args[0])
	}
	g := sweep.Grid{Base: runner.DefaultSpec(), Seeds: seeds, FirstSeed: first, Meters: meters,
		NetTimeout: !fs.Changed("response-timeout")}
	for _, p := range runner.Params() {
		var vals []string
		if p.Name == "ablate" {
			if len(ablate) == 1 && ablate[0] != sweep.NoAblation {
				vals = ablate
			} else if len(ablate) > 1 {
				g.Axes = append(g.Axes, sweep.Axis{Param: "ablate", Values: ablate})
			}
		} else if l := lists[p.Name]; l != nil {
			vals = *l
		}
		switch {
		case len(vals) == 0:
			if p.Name != "ablate" && p.Name != "seed" {
				return sweep.Grid{}, usagef("--%s needs at least one value", p.Name)
			}
		case len(vals) == 1:
			if err := p.Set(&g.Base, vals[0]); err != nil {
				return sweep.Grid{}, badInput(err)
			}
		default:
			g.Axes = append(g.Axes, sweep.Axis{Param: p.Name, Values: vals})
		}
	}
	if err := g.Validate(); err != nil {
		return sweep.Grid{}, badInput(err)
	}
	return g, nil
}

// checkChartPath refuses a chart file of another kind before any run.
func checkChartPath(flag, path string) error {
	if path == "" || strings.HasSuffix(path, ".png") || strings.HasSuffix(path, ".svg") {
		return nil
	}
	return usagef("%s %s: give a .png or .svg file", flag, path)
}

// sweepTitle names a sweep by its axes.
func sweepTitle(res sweep.Result) string {
	var parts []string
	for _, a := range res.Axes {
		parts = append(parts, a.Param+" "+strings.Join(a.Values, ","))
	}
	if len(parts) == 0 {
		return res.Params.Algo
	}
	return strings.Join(parts, " × ")
}

// sweepStatus is the exit status: 130 interrupted, 1 when a run failed
// or violated the lease invariant.
func sweepStatus(res sweep.Result) error {
	if res.Interrupted {
		return exitStatus(130)
	}
	bad := res.Failed > 0
	for _, c := range res.Cells {
		bad = bad || c.Violations > 0
	}
	if bad {
		return exitStatus(1)
	}
	return nil
}

// writeSweep prints a sweep's result in format.
func writeSweep(w io.Writer, format string, res sweep.Result) error {
	switch format {
	case "json":
		return writeJSON(w, res)
	case "csv":
		if err := writeMetaComment(w, res.Meta); err != nil {
			return err
		}
		var header []string
		for _, a := range res.Axes {
			header = append(header, a.Param)
		}
		header = append(header, "seeds_run", "failed")
		for _, m := range res.Meters {
			header = append(header, m+".mean", m+".ci95_lo", m+".ci95_hi", m+".n")
		}
		var rows [][]string
		for _, c := range res.Cells {
			row := cellValues(res, c)
			row = append(row, strconv.Itoa(len(c.SeedsRun)), strconv.Itoa(len(c.Errors)))
			for _, st := range c.Meters {
				row = append(row, csvNum(st.Mean), csvNum(st.Lo), csvNum(st.Hi), strconv.Itoa(st.N))
			}
			rows = append(rows, row)
		}
		return writeCSV(w, header, rows)
	}
	var header []string
	for _, a := range res.Axes {
		header = append(header, a.Param)
	}
	header = append(header, "n")
	header = append(header, res.Meters...)
	var rows [][]string
	for _, c := range res.Cells {
		row := append(cellValues(res, c), strconv.Itoa(len(c.SeedsRun)-len(c.Errors)))
		for _, st := range c.Meters {
			row = append(row, meanCI(st))
		}
		rows = append(rows, row)
	}
	if err := writeTableWidth(w, header, rows, 24); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d cells × %d seeds (%d..%d): mean ± half the 95%% confidence interval; %d runs, %d failed",
		len(res.Cells), res.Seeds, res.FirstSeed, res.FirstSeed+uint64(res.Seeds)-1, res.Runs, res.Failed)
	if res.Interrupted {
		fmt.Fprint(w, "; interrupted, so some cells have fewer seeds")
	}
	if s := res.Shard; s != nil {
		fmt.Fprintf(w, "; part %d/%d: cells %d..%d of %d (leaselab merge combines the parts' JSON)", s.Index, s.Count, s.From, s.To-1, s.Total)
	}
	if len(res.Shards) > 0 {
		fmt.Fprintf(w, "; merged from %d parts", len(res.Shards))
	}
	fmt.Fprintln(w)
	for _, c := range res.Cells {
		for _, e := range c.Errors {
			fmt.Fprintf(w, "cell %s: %s\n", cellName(res, c), e)
		}
	}
	return nil
}

func cellValues(res sweep.Result, c sweep.CellResult) []string {
	var vs []string
	for _, a := range res.Axes {
		vs = append(vs, c.Values[a.Param])
	}
	return vs
}

func cellName(res sweep.Result, c sweep.CellResult) string {
	var parts []string
	for _, a := range res.Axes {
		parts = append(parts, a.Param+"="+c.Values[a.Param])
	}
	return strings.Join(parts, ", ")
}

// meanCI prints "mean ± half-width" (the mean alone with one value, "-"
// with none).
func meanCI(st sweep.MeterStat) string {
	m := float64(st.Mean)
	if math.IsNaN(m) {
		return "-"
	}
	s := strconv.FormatFloat(m, 'g', 4, 64)
	if half := (float64(st.Hi) - float64(st.Lo)) / 2; !math.IsNaN(half) {
		s += " ± " + strconv.FormatFloat(half, 'g', 2, 64)
	}
	return s
}

// csvNum writes a number exactly, or an empty cell when there is none.
func csvNum(v sweep.Num) string {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
