package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"leaselab/runner"
	"leaselab/runner/campaign"
	"leaselab/runner/htmlview"
	"leaselab/runner/record"
)

func init() {
	register(command{
		name:    "check",
		summary: "run a seeded fault campaign and check the lease invariant",
		usage:   "--algo NAME --seeds K [--first-seed N] [--faults all|loss,dup,...] [flags]",
		long: `Runs K simulations (campaign.Check) with seeds N, N+1, ..., N+K-1. Each draws
a random fault schedule from its seed using the fault kinds of --faults,
or all of them:

  loss       --loss drawn in [0.01, 0.10]
  dup        --dup drawn in [0.01, 0.10]
  reorder    --reorder drawn in [0.05, 0.25]
  partition  --partitions drawn in [1, 4] per minute
  crash      --crash-rate drawn in [0.5, 2] per node per minute
  drift      slewed clocks: --drift in [0, --drift-bound], --skew in [0, --dmax]
  stale      --stale drawn in [0.25, 1.5] stalls per link per minute: the
             messages sent on a stalled link arrive when the stall ends, up
             to --stale-max lease spans (default 4) late and in order, so a
             Propose and the Release after it arrive seconds late
  giveup     --giveup drawn in [0.05, 0.3]: clients abandon acquisitions
             mid-round, while prepare / propose are in flight
  extend     --extend drawn in [0.1, 0.5]: clients extend leases, then
             release (sometimes while the extension is in flight) or let
             them expire
  resources  --resources drawn in {2, 3, 4}: every proposer contends for a
             random one of several resources on each attempt
  freeclock  free-running clocks at the edges (--free-clocks
             --clock-edges): offsets ±--skew/2 and a constant rate error of
             ±--drift, never slewed back, --drift up to --drift-bound; for
             FaTLease and classic Paxos cut so that two clocks stay within
             d_max + 2ρ(v + 2·d_max)/(1 - ρ) over the run (the skew
             FaTLease's holder margin absorbs); with drift too, each seed
             has free or slewed clocks with even odds

giveup, extend and resources apply to the contention workload. A rate flag
given on the command line is used as given for every seed, zero included
(--faults all --loss 0: every fault but loss); one left at its default is
drawn. The other flags are those of 'leaselab run' and describe the base
experiment (--seed is replaced by --first-seed).
Unless fixed by their flags, each seed also draws how contention clients
end a lease (release after a hold in [0, 2T], or let it expire), their
pause (in [0, T]), crash downtimes (log-uniform in [10ms, 2M]) and
partition lengths (in [100ms, 2T]), so one campaign covers hand-over by
release and by expiry, quick and slow restarts.

Prints how many seeds ran, the leases acquired, the violations of the lease
invariant found and the seeds that produced them (table; --format json
gives keys seeds, leases_acquired, violations, violating_seeds, and
violating_specs: the full spec of each violating run, fault rates drawn for
its seed included, and exercised: how often the faults happened, summed
over the seeds: crashes, partitions, stale messages delivered, mid-round
give-ups, extensions, releases of extended leases and of leases whose
extension was in flight, seeds with several resources and with
free-running clocks). After the table, on a line of its own, it prints
the 'leaselab run' command that re-runs the first violating seed alone;
add --trace FILE or --timeline FILE.html to it for the full trace, or
give --trace / --holds / --violation-trace / --timeline to check itself.

Exit status 1 when any violation is found, 2 for bad input.`,
		setup: setupCheck,
	})
}

func setupCheck(fs *pflag.FlagSet) action {
	spec := runner.DefaultSpec()
	// A campaign's runs are cheap (a simulated minute of contention takes
	// milliseconds), and rare interleavings need many rounds to show up:
	// ten simulated minutes with five proposers find in 200 seeds what one
	// minute with three does not.
	spec.Duration = 10 * time.Minute
	spec.Proposers = 5
	seeds := fs.Int("seeds", 100, "number of seeded runs")
	first := fs.Uint64("first-seed", 1, "seed of the first run")
	faults := fs.StringSlice("faults", []string{"all"}, "comma-separated fault kinds to draw: all, or any of "+strings.Join(campaign.FaultKinds, ", "))
	addSpecFlags(fs, &spec)
	_ = fs.MarkHidden("seed") // --first-seed replaces it
	_ = fs.MarkHidden("env")  // campaigns run in the simulator only
	format := addFormatFlag(fs)
	trace := fs.String("trace", "", "re-run the first violating seed and write its full trace to this file (JSON lines)")
	holds := fs.String("holds", "", "re-run the first violating seed and write its hold intervals to this CSV file")
	vtrace := fs.String("violation-trace", "", "re-run the first violating seed and write the trace records leading to its first violation to this file")
	timeline := fs.String("timeline", "", "re-run the first violating seed and write the trace leading to its first violation as an interactive, self-contained HTML page to this .html file "+
		"(holds, crashes, partitions, the violation, every message: hover for kind, ballot, send and delivery times)")
	stopFirst := fs.Bool("stop-at-first", false, "end the campaign at the first violating seed (in seed order; every seed before it still runs, so the result does not depend on scheduling)")
	quiet := addQuietFlag(fs)
	return func(c *ctx, args []string) error {
		if err := checkArgs(fs, spec, *seeds, args); err != nil {
			return err
		}
		kinds, err := parseFaults(*faults)
		if err != nil {
			return err
		}
		spec.Seed = *first
		opt, out := runner.Options{}, &outFiles{}
		defer out.abort()
		if err := out.openRun(c, fs, &spec, *trace, *holds, &opt); err != nil {
			return err
		}
		if err := out.open("violation-trace", *vtrace, &opt.ViolationTrace); err != nil {
			return err
		}
		col, err := htmlTimelineFlag(*timeline, "check", spec)
		if err != nil {
			return err
		}
		if col != nil {
			// What --violation-trace writes: the records before the first
			// violation of the first violating seed.
			opt.Observers = append(opt.Observers, record.NewViolationWindow(runner.ViolationContext, col))
		}
		progress, done := newProgress(c, *quiet, "check "+spec.Algo)
		opt.Progress = progress
		res, err := campaign.Check(campaign.CheckSpec{Base: spec, Faults: kinds, Seeds: *seeds, FirstSeed: *first, Vary: checkVary(fs), StopAtFirst: *stopFirst}, opt)
		done()
		if err != nil {
			return err
		}
		if err := out.finish(); err != nil {
			return err
		}
		res.Meta = c.meta()
		if err := writeCheck(c, *format, res); err != nil {
			return err
		}
		if col != nil {
			if err := writeCheckTimeline(c, *timeline, col, res); err != nil {
				return err
			}
		}
		if res.Violations > 0 {
			return exitStatus(1)
		}
		return nil
	}
}

// checkArgs refuses what check cannot run: arguments, --seed, another
// environment, no seeds.
func checkArgs(fs *pflag.FlagSet, spec runner.Spec, seeds int, args []string) error {
	switch {
	case len(args) > 0:
		return usagef("unexpected argument %q", args[0])
	case fs.Changed("seed"):
		return usagef("check runs seeds --first-seed .. --first-seed+--seeds-1; use --first-seed, not --seed")
	case spec.Env != "sim":
		return usagef("check runs in the simulator only, not --env %s", spec.Env)
	case seeds < 1:
		return usagef("--seeds must be at least 1, got %d", seeds)
	}
	return nil
}

// checkVary says what a campaign draws per seed: the workload shape,
// downtimes and partition lengths unless given, and every rate of
// checkRates left at its default (a rate given on the command line is
// used as given, zero included).
func checkVary(fs *pflag.FlagSet) campaign.Vary {
	vary := campaign.Vary{
		Workload:     !fs.Changed("hold") && !fs.Changed("pause") && !fs.Changed("release"),
		Downtime:     !fs.Changed("downtime"),
		PartitionLen: !fs.Changed("partition-len"),
	}
	for _, name := range checkRates {
		if fs.Changed(name) {
			vary.Fixed = append(vary.Fixed, name)
		}
	}
	return vary
}

// writeCheckTimeline writes the page of the records before the first
// violation of the campaign's first violating seed (if it found one).
func writeCheckTimeline(c *ctx, path string, col *htmlview.Collector, res campaign.CheckResult) error {
	if len(res.ViolatingSpecs) == 0 {
		fmt.Fprintf(c.stderr, "timeline: no violation, so no violation trace; %s not written\n", path)
		return nil
	}
	s := res.ViolatingSpecs[0]
	var vs []runner.Violation
	for _, v := range res.First {
		if v.Seed == s.Seed {
			vs = append(vs, v)
		}
	}
	title := fmt.Sprintf("leaselab check: %s, seed %d, the %d trace records before its first violation", s.Algo, s.Seed, runner.ViolationContext)
	if err := writeHTMLTimeline(path, col, title, res.Meta, 0, vs); err != nil {
		return fmt.Errorf("--timeline: %w", err)
	}
	fmt.Fprintf(c.stderr, "timeline: %s\n", path)
	return nil
}

// checkRates are the flags whose values a campaign draws per seed for the
// requested fault kinds unless they are given.
var checkRates = []string{"loss", "dup", "reorder", "partitions", "crash-rate", "drift", "skew", "stale", "giveup", "extend", "resources"}

func writeCheck(c *ctx, format string, res campaign.CheckResult) error {
	if res.ViolatingSeeds == nil {
		res.ViolatingSeeds = []uint64{} // JSON: [] rather than null
	}
	switch format {
	case "json":
		return writeJSON(c.stdout, res)
	case "csv":
		if err := writeMetaComment(c.stdout, res.Meta); err != nil {
			return err
		}
		var header, row []string
		for _, f := range flatten(res) {
			if f.key == "first_violations" || f.key == "violating_specs" || f.key == "meta" || strings.HasPrefix(f.key, "meta.") {
				continue // lists of objects: see --format json; the meta is the comment line
			}
			header = append(header, f.key)
			row = append(row, formatValue(f.value, true))
		}
		return writeCSV(c.stdout, header, [][]string{row})
	}
	seeds := make([]string, len(res.ViolatingSeeds))
	for i, s := range res.ViolatingSeeds {
		seeds[i] = strconv.FormatUint(s, 10)
	}
	none := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	rows := [][]string{
		{"algo", res.Algo},
		{"ablate", none(strings.Join(res.Ablate, ","))},
		{"faults", strings.Join(res.Faults, ",")},
		{"seeds", strconv.Itoa(res.Seeds)},
		{"leases acquired", strconv.Itoa(res.LeasesAcquired)},
		{"violations", strconv.Itoa(res.Violations)},
		{"violating seeds", none(strings.Join(seeds, " "))},
		{"exercised", exercised(res.Exercised)},
		{"wall time", formatValue(res.WallMS/1000, false) + " s"},
	}
	if err := writeTable(c.stdout, []string{"check", "value"}, rows); err != nil {
		return err
	}
	if len(res.First) > 0 {
		if err := writeViolations(c.stdout, res.First); err != nil {
			return err
		}
	}
	if cmd := rerun(res); cmd != "" {
		// On a line of its own, outside any table, so it can be copied.
		fmt.Fprintf(c.stdout, "\nre-run the first violating seed alone (add --trace FILE or --timeline FILE.html to see it):\n%s\n", cmd)
	}
	return nil
}

// exercised says in one line how often the campaign's faults happened.
func exercised(e campaign.Exercised) string {
	return fmt.Sprintf("%d crashes, %d partitions, %d stale messages delivered, %d mid-round give-ups, "+
		"%d extensions, %d releases after extending (%d mid-extension), %d multi-resource seeds, %d free-clock seeds",
		e.Crashes, e.Partitions, e.StaleDelivered, e.GiveupsMidRound, e.Extensions, e.ExtendReleases,
		e.ReleasesMidExtension, e.MultiResourceSeeds, e.FreeClockSeeds)
}

// rerun is the command line that reproduces the first violating seed.
func rerun(res campaign.CheckResult) string {
	if len(res.ViolatingSpecs) == 0 {
		return ""
	}
	return "leaselab run " + strings.Join(specArgs(res.ViolatingSpecs[0]), " ")
}
