package main

// leaselab reproduce: the papers' evaluations, regenerated (runner/experiments
// holds the experiments as data; plots/ draws them). Also `leaselab run
// --timeline FILE.png`, which draws the timeline chart for any single run.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/experiments"
	"leaselab/runner/htmlview"
)

func init() {
	register(command{
		name:    "reproduce",
		summary: "regenerate the papers' evaluations (FaTLease Figs. 5-10, deadlock, contention, timeline, ablations) as charts, CSV, JSON and a report",
		usage:   "[--quick] [--out DIR] [--only NAME,...] [--seeds K] [--env sim|udp] [--quiet]",
		long: `Runs the experiments of runner/experiments and writes, for each, NAME.png and
NAME.svg (the chart), NAME.csv (one row per run), NAME_summary.csv (mean and
95% confidence interval per point), NAME.json (everything, with full
results), and at the end DIR/report.md, which embeds every chart, prints the
tables and sets the papers' published numbers beside ours.

Experiments: ` + strings.Join(experiments.Names(), ", ") + `.

--quick runs shorter sweeps with fewer repetitions (a few minutes on two
cores). The full run first calibrates on two runs of every series,
prints its estimated duration, and shows progress on stderr when stderr is
a terminal.

Default environments: ` + defaultEnvsText() + `.
--env sim or --env udp moves every experiment that supports it. Simulated
runs are deterministic: the same command writes the same CSV files. Runs over real UDP measure real
time, CPU and fsync on this machine and differ from one invocation to the
next (the report shows their spread); they run one at a time.

Exit status 1 if any run failed (every file is still written and the
report lists the failures), 2 for bad input.`,
		setup: setupReproduce,
	})
	registerRunExtension(runExtension{
		flags:  timelineFlags,
		before: timelineBefore,
		after:  timelineAfter,
	})
}

func setupReproduce(fs *pflag.FlagSet) action {
	quick := fs.Bool("quick", false, "shorter sweeps and fewer repetitions (under 5 minutes on 2 cores for all experiments)")
	out := fs.String("out", "results", "directory for the charts, CSV, JSON and report.md (created if missing)")
	only := fs.StringSlice("only", nil, "comma-separated experiments to run (default: all): "+strings.Join(experiments.Names(), ", "))
	seeds := fs.Int("seeds", 0, "repetitions (seeds) per point, overriding each experiment's own (0: keep)")
	env := fs.String("env", "", "environment for the experiments that support it (sim, udp; default: each experiment's own: "+defaultEnvsText()+")")
	workers := fs.Int("workers", 0, "runs in parallel (0: GOMAXPROCS); udp runs always run alone")
	quiet := addQuietFlag(fs)
	return func(c *ctx, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q", args[0])
		}
		if *seeds < 0 {
			return usagef("--seeds must not be negative, got %d", *seeds)
		}
		if *workers < 0 {
			return usagef("--workers must not be negative, got %d", *workers)
		}
		if *env != "" && !slices.Contains(runner.Envs(), *env) {
			return usagef("unknown environment %q (valid: %s)", *env, strings.Join(runner.Envs(), ", "))
		}
		if *out == "" {
			return usagef("--out must name a directory")
		}
		exps, err := experiments.Select(*only)
		if err != nil {
			return badInput(err)
		}
		opt := experiments.Options{Quick: *quick, Seeds: *seeds, Env: *env}
		total, err := experiments.Plan(exps, opt)
		if err != nil {
			return badInput(err)
		}
		if err := reproduceEnvNotes(c, exps, opt, *quiet); err != nil {
			return err
		}
		say := func(format string, a ...any) {
			if !*quiet {
				fmt.Fprintf(c.stderr, format, a...)
			}
		}
		reproduceHeader(say, *quick, len(exps), total, *workers, *out)
		bar := newReproduceProgress(c, *quiet)
		cmdline := reproCommand(*quick, *only, *seeds, *env)
		start := time.Now()
		stop, release := interruptible(c)
		defer release()
		reports, err := experiments.Reproduce(exps, experiments.Config{
			Options: opt, Out: *out, Workers: *workers, Command: cmdline, Meta: c.meta(), Stop: stop,
			Progress: reproduceProgressFunc(bar, *quick, say),
		})
		bar.clear()
		if reports != nil {
			if werr := reproSummary(c, reports, *out, start, !errors.Is(err, experiments.ErrInterrupted)); werr != nil && err == nil {
				err = werr
			}
		}
		switch {
		case errors.Is(err, experiments.ErrInterrupted):
			fmt.Fprintf(c.stderr, "leaselab reproduce: interrupted: %d of %d experiments finished and written (above); no report.md\n", len(reports), len(exps))
			return exitStatus(130)
		case errors.Is(err, experiments.ErrRunsFailed):
			fmt.Fprintf(c.stderr, "leaselab reproduce: %v\n", oneLine(err))
			return exitStatus(1)
		}
		return err
	}
}

// reproduceHeader says what is about to run, and where it goes.
func reproduceHeader(say func(string, ...any), quick bool, exps, runs, workers int, out string) {
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	mode := "full run"
	if quick {
		mode = "quick run"
	}
	what := fmt.Sprintf("%d experiments", exps)
	if exps == 1 {
		what = "1 experiment"
	}
	say("reproduce: %s of %s, %d runs on %d workers, into %s\n", mode, what, runs, workers, out)
	if !quick {
		say("reproduce: calibrating on two runs of every series (the smallest and the middle sweep value) ...\n")
	}
}

// reproduceEnvNotes prints why experiments run in their own environment
// rather than --env's, and refuses an --env none of them can run in.
func reproduceEnvNotes(c *ctx, exps []experiments.Experiment, opt experiments.Options, quiet bool) error {
	var envNotes []string
	for _, e := range exps {
		if r, err := e.Resolve(opt); err == nil && r.EnvNote != "" {
			envNotes = append(envNotes, r.EnvNote)
		}
	}
	if opt.Env != "" && len(envNotes) == len(exps) {
		return usagef("none of the selected experiments can run in environment %q (udp: %s)", opt.Env, strings.Join(udpCapable(), ", "))
	}
	if !quiet {
		for _, n := range envNotes {
			fmt.Fprintf(c.stderr, "reproduce: note: %s\n", n)
		}
	}
	return nil
}

// reproduceProgressFunc reports a reproduction's progress: the estimate once
// the calibration runs are done (full runs), the files as they are
// written, the bar otherwise.
func reproduceProgressFunc(bar *reproduceProgress, quick bool, say func(string, ...any)) func(experiments.Progress) {
	return func(p experiments.Progress) {
		if p.Calibrated && !quick {
			bar.clear()
			say("reproduce: estimated duration %s (from %d calibration runs; the estimate is refined as runs finish)\n",
				reproRound(p.Estimate), p.Done)
		}
		if len(p.Wrote) > 0 {
			bar.clear()
			if p.Experiment == "" {
				say("reproduce: wrote %s\n", strings.Join(p.Wrote, " "))
			} else {
				say("reproduce: %s: wrote %s\n", p.Experiment, strings.Join(p.Wrote, " "))
			}
			return
		}
		bar.update(p)
	}
}

// reproCommand is the command line the report names (the flags that
// change what runs).
func reproCommand(quick bool, only []string, seeds int, env string) string {
	cmdline := "leaselab reproduce"
	if quick {
		cmdline += " --quick"
	}
	if len(only) > 0 {
		cmdline += " --only " + strings.Join(only, ",")
	}
	if seeds > 0 {
		cmdline += fmt.Sprintf(" --seeds %d", seeds)
	}
	if env != "" {
		cmdline += " --env " + env
	}
	return cmdline
}

// reproSummary prints a table of the experiments run and where the
// report is.
func reproSummary(c *ctx, reports []*experiments.Report, out string, start time.Time, report bool) error {
	var rows [][]string
	for _, r := range reports {
		runTime := reproRound(r.Wall).String()
		if shared := countShared(r); shared == len(r.Runs) && shared > 0 {
			runTime = "shared" // every run was another experiment's
		}
		rows = append(rows, []string{r.Exp.Name, r.Exp.Env, fmt.Sprint(r.RunCount()), fmt.Sprint(r.Failed),
			runTime, filepath.Join(out, r.Exp.Name+".png")})
	}
	err := writeTable(c.stdout, []string{"experiment", "env", "runs", "failed", "run time", "chart"}, rows)
	if report {
		fmt.Fprintf(c.stdout, "report: %s (wall time %s)\n", filepath.Join(out, "report.md"), reproRound(time.Since(start)))
	}
	return err
}

// defaultEnvsText says which experiments run where by default, e.g.
// "udp for fig5, fig6, fig9; sim for the others".
func defaultEnvsText() string {
	byEnv := map[string][]string{}
	var order []string
	for _, e := range experiments.All() {
		env := e.Envs[0]
		if byEnv[env] == nil {
			order = append(order, env)
		}
		byEnv[env] = append(byEnv[env], e.Name)
	}
	var parts []string
	for _, env := range order {
		parts = append(parts, env+" for "+strings.Join(byEnv[env], ", "))
	}
	return strings.Join(parts, "; ")
}

// udpCapable lists the experiments that can run over real UDP.
func udpCapable() []string {
	var names []string
	for _, e := range experiments.All() {
		if slices.Contains(e.Envs, "udp") {
			names = append(names, e.Name)
		}
	}
	return names
}

// countShared counts the runs of r that reused an identical run of another
// experiment (fig9 plots other meters of fig5's runs).
func countShared(r *experiments.Report) int {
	n := 0
	for _, rec := range r.Runs {
		if rec.Shared {
			n++
		}
	}
	return n
}

// reproRound keeps durations readable: minutes from ten minutes up, then
// seconds, tenths of a second, milliseconds.
func reproRound(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Minute:
		return d.Round(time.Minute)
	case d >= 10*time.Second:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// reproduceProgress draws one status line on stderr, only on a terminal
// and without --quiet.
type reproduceProgress struct {
	c      *ctx
	on     bool
	shown  int
	last   time.Time
	lastPC int
}

func newReproduceProgress(c *ctx, quiet bool) *reproduceProgress {
	return &reproduceProgress{c: c, on: !quiet && isTerminal(c.stderr), lastPC: -1}
}

func (b *reproduceProgress) update(p experiments.Progress) {
	if !b.on || p.Total == 0 {
		return
	}
	pc := p.Done * 100 / p.Total
	// Redraw at most ten times a second, or when the percentage moves.
	if pc == b.lastPC && time.Since(b.last) < 100*time.Millisecond {
		return
	}
	b.lastPC, b.last = pc, time.Now()
	const width = 24
	n := p.Done * width / p.Total
	line := fmt.Sprintf("reproduce [%s%s] %3d%% %d/%d runs, %s", strings.Repeat("#", n), strings.Repeat(" ", width-n),
		pc, p.Done, p.Total, reproRound(p.Elapsed))
	if p.Remaining > 0 {
		line += fmt.Sprintf(", ~%s left", reproRound(p.Remaining))
	}
	if p.Experiment != "" {
		line += " (" + p.Experiment + ")"
	}
	pad := ""
	if len(line) < b.shown {
		pad = strings.Repeat(" ", b.shown-len(line))
	}
	fmt.Fprintf(b.c.stderr, "\r%s%s", line, pad)
	b.shown = len(line)
}

func (b *reproduceProgress) clear() {
	if b.on && b.shown > 0 {
		fmt.Fprintf(b.c.stderr, "\r%s\r", strings.Repeat(" ", b.shown))
		b.shown = 0
	}
}

// --- leaselab run --timeline FILE.png -------------------------------------

// The extension's state lives for one invocation: flags are declared afresh
// for every run of the command (see command.setup), and these variables are
// set from there.
var timelineState struct {
	path  *string
	chart *experiments.TimelineTrace // --timeline FILE.png or .svg
	html  *htmlview.Collector        // --timeline FILE.html
}

func timelineFlags(fs *pflag.FlagSet) {
	timelineState.path = fs.String("timeline", "", "draw who held the lease over time (one row per node, crashes, partitions, violations) to this .png or .svg file, "+
		"or write it as an interactive .html page (zoom, pan, and every message: hover for kind, ballot, send and delivery times; self-contained, no network needed)")
	timelineState.chart, timelineState.html = nil, nil
}

func timelineBefore(c *ctx, spec runner.Spec, opt *runner.Options) error {
	path := *timelineState.path
	if path == "" {
		return nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".svg", ".html", ".htm":
	default:
		return usagef("--timeline %s: the file must end in .png, .svg or .html", path)
	}
	// Fail fast on a missing directory, before the run (without leaving
	// an empty file behind if the run then fails).
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return usagef("--timeline %s: no such directory %s", path, filepath.Dir(path))
	}
	if isHTML(path) {
		timelineState.html = newHTMLCollector(spec)
		opt.Observers = append(opt.Observers, timelineState.html)
		return nil
	}
	timelineState.chart = &experiments.TimelineTrace{}
	opt.Observers = append(opt.Observers, timelineState.chart)
	return nil
}

func timelineAfter(c *ctx, res runner.Result) error {
	series := res.Algo
	if len(res.Params.Ablate) > 0 {
		series += " (no " + strings.Join(res.Params.Ablate, ", no ") + ")"
	}
	if col := timelineState.html; col != nil {
		s := res.Params
		title := fmt.Sprintf("leaselab run: %s, %s workload, seed %d", series, s.Workload, s.Seed)
		if err := writeHTMLTimeline(*timelineState.path, col, title, res.Meta, res.SimulatedNS, res.ViolationList); err != nil {
			return fmt.Errorf("--timeline: %w", err)
		}
		fmt.Fprintf(c.stderr, "timeline: %s\n", *timelineState.path)
		return nil
	}
	if timelineState.chart == nil {
		return nil
	}
	t := experiments.TimelineOf(res, timelineState.chart, series)
	if err := t.Figure().Save(*timelineState.path); err != nil {
		return fmt.Errorf("--timeline: %w", err)
	}
	fmt.Fprintf(c.stderr, "timeline: %s\n", *timelineState.path)
	return nil
}

func isHTML(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".html" || ext == ".htm"
}

// newHTMLCollector starts the interactive page (runner/htmlview) of a run
// of s, as its trace records happen.
func newHTMLCollector(s runner.Spec) *htmlview.Collector {
	c := algorithms.NewCluster(s.Acceptors, s.Proposers)
	return htmlview.NewCollector(htmlview.Input{Nodes: c.Nodes, Acceptors: c.Acceptors, Proposers: c.Proposers,
		NoDropReasons: s.Env == "udp"})
}

// htmlTimelineFlag checks the --timeline FILE.html of command cmd and
// starts its page for a run of s (nil if the flag is not given).
func htmlTimelineFlag(path, cmd string, s runner.Spec) (*htmlview.Collector, error) {
	if path == "" {
		return nil, nil
	}
	if !isHTML(path) {
		return nil, usagef("--timeline %s: %s writes an .html page", path, cmd)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return nil, usagef("--timeline %s: no such directory %s", path, filepath.Dir(path))
	}
	return newHTMLCollector(s), nil
}

// writeHTMLTimeline writes the page col collected to path, with what is
// known once the run is over: its title, provenance, end (0: the last
// record's) and violations.
func writeHTMLTimeline(path string, col *htmlview.Collector, title string, meta *runner.Meta, endNS int64, vs []runner.Violation) error {
	in := col.Input()
	in.Title, in.Meta, in.EndNS, in.Violations = title, meta, endNS, vs
	var buf bytes.Buffer
	if err := htmlview.Render(&buf, col.Finish()); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
