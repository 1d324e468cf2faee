package main

import (
	"fmt"
	"os"
	"path/filepath"
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
		usage:   "--algo NAME --seeds K [--first-seed N] [--faults all|swarm[,K,...]|loss,dup,...] [--out FILE] [flags]",
		long:    checkLong,
		setup:   setupCheck,
	})
}

// checkLong is the --help text of check.
const checkLong = `Runs K simulations (campaign.Check) with seeds N, N+1, ..., N+K-1. Each draws
a random fault schedule from its seed using the fault kinds of --faults,
all of them (the default), or a swarm mix (--faults swarm, below):

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

and two kinds drawn only when named (all,pause or pause alone): 'all'
keeps to what the algorithms assume, and these do not:

  pause      --pause-rate drawn in [0.5, 2] per node per minute, each up
             to --pause-max (default 10s): a paused node handles nothing
             and resumes with its clock having run on; what it does shows
             in the protected store's meters (--writes D, --store
             plain|fenced) and in double_belief_ms, not as violations
  clockjump  --clock-jumps drawn in [0.5, 2] episodes per node per minute,
             steps up to --clock-jump-max; half the seeds strobe (a
             period in [10ms, 100ms]): every algorithm's clock assumption
             broken on purpose

--faults swarm: swarm testing, as FoundationDB and TigerBeetle do it. Every
seed draws its own subset of the kinds (each in with even odds) and its
own intensities, wider than above, so one campaign has seeds with one
harsh fault as well as seeds with many mild ones (a fault that is always
on can mask another). The kinds and the ranges a seed draws in:

  loss, dup, reorder  as above, up to 0.2, 0.3 and 0.5
  partition  0.5 to 8 per minute (log-uniform), 50ms to 3T long
  crash      0.3 to 20 per node per minute (log-uniform), down 1ms to 3M
             (log-uniform): restarts inside the quarantine and long after;
             with several proposers most crashes hit a holder or a round
  drift, freeclock  as above
  stale      0.25 to 3 stalls per link per minute, up to 1 to 3 times
             (M + downtime): a message outlives its sender's crash and
             quarantine
  late       --late 0.001 to 0.02: messages held back alone as long as
             stalls, so later ones on the link overtake them (a stall
             keeps its link in order)
  giveup, extend, resources  up to 0.5, 0.7 and 5
  shape      1 to 5 acceptors and 2 to 6 proposers, unequal: nodes that
             only propose (no acceptor state to push their ballots up) or
             only accept
  slow       RTT 1ms to T/5 (log-uniform), jitter up to RTT/2, the
             response timeout raised to fit: leases short against delays

--faults swarm,K,... restricts the swarm to the swarm kinds named after
it: each seed makes the whole swarm's draws and keeps only those kinds in
(it may keep none). A swarm restricted to the kinds that cause none of an
algorithm's token conditions (below) judges every seed's tokens: the
safety battery's token swarm.

The JSON's swarm key says how many seeds drew each kind. The same flags
give the same seeds, draws and result. A flag given on the command line
fixes its value for every seed here too (--acceptors and --proposers fix
the shape, --rtt and --jitter the network).

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

Liveness: each seed ends with a settle stretch after --duration (--settle
D fixes it, --settle 0 turns it off; by default each seed gets a bound
from its draws, campaign.SettleFor: the longest fault episode it can have
under way, then per proposer a whole hold, a quarantine and a whole
failed acquisition). In it no fault starts, no message is lost,
duplicated, reordered or held, free-running clocks stop drifting,
clients ask for nothing new and none gives up waiting; the seed ends
once no client wants or holds a lease. A request still unanswered
(neither Acquired nor Failed) at the end of the stretch is a liveness
failure: the table's "unanswered" row and the JSON's unanswered,
unanswered_seeds, first_unanswered and unanswered_specs (the full spec of
each such seed, so that 'leaselab run' reproduces it; the command of the
first is printed after the table).

Prints how many seeds ran, the leases acquired, the violations of the lease
invariant found and the seeds that produced them (table; --format json
gives keys seeds, leases_acquired, violations, violating_seeds, and
violating_specs: the full spec of each violating run, fault rates drawn for
its seed included, and exercised: how often the faults happened, summed
over the seeds: each fault kind's counters (crashes, partitions, stale
messages delivered, mid-round give-ups, extensions, releases of extended
leases and of leases whose extension was in flight, seeds with several
resources, with free-running clocks, with proposer-only and acceptor-only
nodes, pauses, clock jumps), then crashes of holders, seeds with downtimes
below M and with stalls longer than M plus the downtime; with --writes, the
summed writes, stale_writes, fenced_rejects, live_rejects and token_ties). After the table, on a line of its own, it prints
the 'leaselab run' command that re-runs the first violating seed alone;
add --trace FILE or --timeline FILE.html to it for the full trace, or
give --trace / --holds / --violation-trace / --timeline to check itself.

--out FILE shrinks a violation to a minimal scenario file (campaign.Shrink):
the violating run (of the seeds whose violation began earliest, the first
of up to ten whose recording reproduces a violation) is recorded from the
simulator as a scenario, every message delivery, input, crash, restart and
clock slew a command, and shrunk by delta debugging while a violation
persists: whole clients' inputs, crashes, chunks and then single actions
are left out, faulty messages (lost, duplicated, late) are made ordinary,
deliveries become drops, and skewed clocks exact, to a fixed point or until
--shrink-time is spent. 'leaselab replay FILE' exits 1 on it. The table
(and the JSON's counterexample key) gives the command counts before and
after. No violation: FILE is not written.

Fencing tokens: with --writes D --store fenced, a seed is judged for its
tokens when no fault on in it causes a condition under which the algorithm
does not claim that a later holder's token is higher ('leaselab algos'
lists each algorithm's conditions: restart, clocks, late, lapse, delay;
crashes cause restart and lapse, loss, partitions and pauses lapse, stale
and late messages late, lapse and delay, reordering and a network slower
than the default (--rtt, --jitter; the swarm's slow kind) delay, drift and
freeclock clocks; clock jumps are never judged).
In a judged seed, a write of a current lease that the store rejects, a
stale write it accepts, or a write that carries the highest token another
node had written (a tie: two holders with one token, which the store
cannot order) is a token failure: the table's "fencing tokens"
row and the JSON's tokens_judged, token_failures, token_failure_seeds and
token_failure_specs (the command of the first is printed after the table).

Exit status 1 when any violation, unanswered request or token failure is
found, 2 for bad input.`

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
	faults := fs.StringSlice("faults", []string{"all"}, "comma-separated fault kinds to draw: all; swarm (every seed draws its own kinds and intensities, see below), or swarm followed by the swarm kinds it may draw ("+strings.Join(campaign.SwarmKinds, ", ")+"); or any of "+strings.Join(campaign.FaultKinds, ", "))
	addSpecFlags(fs, &spec)
	_ = fs.MarkHidden("seed") // --first-seed replaces it
	_ = fs.MarkHidden("env")  // campaigns run in the simulator only
	format := addFormatFlag(fs)
	trace := fs.String("trace", "", "re-run the first violating seed (with none, the first that left a request unanswered) and write its full trace to this file (JSON lines)")
	holds := fs.String("holds", "", "re-run the first violating seed (with none, the first that left a request unanswered) and write its hold intervals to this CSV file")
	vtrace := fs.String("violation-trace", "", "re-run the first violating seed and write the trace records leading to its first violation to this file")
	timeline := fs.String("timeline", "", "re-run the first violating seed and write the trace leading to its first violation as an interactive, self-contained HTML page to this .html file "+
		"(holds, crashes, partitions, the violation, every message: hover for kind, ballot, send and delivery times)")
	outPath := fs.String("out", "", "shrink a violation to a minimal scenario and write it to this file ('leaselab replay FILE' exits 1 on it)")
	shrinkTime := fs.Duration("shrink-time", campaign.DefaultShrinkBudget, "with --out: the longest the shrinking may take (it keeps the smallest violating scenario found by then)")
	stopFirst := fs.Bool("stop-at-first", false, "end the campaign at the first violating seed (in seed order; every seed before it still runs, so the result does not depend on scheduling)")
	shardFlag := addShardFlag(fs, "seeds")
	quiet := addQuietFlag(fs)
	return func(c *ctx, args []string) error {
		if err := checkArgs(fs, spec, *seeds, args); err != nil {
			return err
		}
		kinds, err := parseFaults(*faults)
		if err != nil {
			return err
		}
		if err := checkShrinkArgs(*outPath, *shrinkTime); err != nil {
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
		cs, info, err := shardCheck(*shardFlag, campaign.CheckSpec{Base: spec, Faults: kinds, Seeds: *seeds, FirstSeed: *first, Vary: checkVary(fs), StopAtFirst: *stopFirst})
		if err != nil {
			return err
		}
		progress, done := newProgress(c, *quiet, "check "+spec.Algo)
		opt.Progress = progress
		stop, release := interruptible(c)
		defer release()
		opt.Stop = stop
		res, err := campaign.Check(cs, opt)
		done()
		if err != nil {
			return err
		}
		res.Shard = info
		if *outPath != "" && !res.Interrupted {
			if err := writeCounterexample(c, cs, &res, *outPath, *shrinkTime); err != nil {
				return err
			}
		}
		if err := out.finish(); err != nil {
			return err
		}
		return reportCheck(c, res, *format, col, *timeline)
	}
}

// checkShrinkArgs checks --out (its directory exists) and --shrink-time.
func checkShrinkArgs(outPath string, shrinkTime time.Duration) error {
	if outPath != "" {
		if st, err := os.Stat(filepath.Dir(outPath)); err != nil || !st.IsDir() {
			return usagef("--out %s: no such directory %s", outPath, filepath.Dir(outPath))
		}
	}
	if shrinkTime <= 0 {
		return usagef("--shrink-time must be positive, got %v", shrinkTime)
	}
	return nil
}

// reportCheck prints a campaign's result and writes its --timeline page;
// exit status 130 when it was interrupted, 1 when it found a violation,
// a request left unanswered after its seed's settle stretch, or a fencing
// token that did not grow where its algorithm says it grows.
func reportCheck(c *ctx, res campaign.CheckResult, format string, col *htmlview.Collector, timeline string) error {
	res.Meta = c.meta()
	if err := writeCheck(c, format, res); err != nil {
		return err
	}
	if col != nil && !res.Interrupted {
		if err := writeCheckTimeline(c, timeline, col, res); err != nil {
			return err
		}
	}
	switch {
	case res.Interrupted:
		return exitStatus(130)
	case res.Violations > 0 || res.Unanswered > 0 || res.TokenFailures > 0:
		return exitStatus(1)
	}
	return nil
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
		Settle:       !fs.Changed("settle"),
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
// requested fault kinds unless they are given (the swarm also draws the
// cluster's shape, the network's speed and the stalls' length).
var checkRates = []string{"loss", "dup", "reorder", "partitions", "crash-rate", "drift", "skew", "stale", "late", "giveup", "extend", "resources",
	"acceptors", "proposers", "rtt", "jitter", "response-timeout", "stale-max"}

// writeCounterexample shrinks a violation of campaign cs (result res) and
// writes the scenario to path (nothing without a violation).
func writeCounterexample(c *ctx, cs campaign.CheckSpec, res *campaign.CheckResult, path string, budget time.Duration) error {
	if res.Violations == 0 {
		fmt.Fprintf(c.stderr, "out: no violation, so nothing to shrink; %s not written\n", path)
		return nil
	}
	sr, err := campaign.ShrinkCampaign(cs, *res, budget)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := os.WriteFile(path, []byte(sr.Scenario), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	res.Counterexample = &campaign.Counterexample{File: path, ShrinkResult: sr}
	fmt.Fprintf(c.stderr, "out: seed %d shrunk from %d to %d commands in %.1f s; leaselab replay %s\n",
		sr.Seed, sr.Recorded, sr.Commands, sr.WallMS/1000, path)
	return nil
}

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
			if f.key == "first_violations" || f.key == "violating_specs" || f.key == "unanswered_specs" || f.key == "first_unanswered" || f.key == "token_failure_specs" || f.key == "meta" || strings.HasPrefix(f.key, "meta.") ||
				f.key == "shard" || strings.HasPrefix(f.key, "shard.") || f.key == "shards" || f.key == "counterexamples" {
				continue // lists of objects: see --format json; the meta is the comment line
			}
			header = append(header, f.key)
			row = append(row, formatValue(f.value, true))
		}
		return writeCSV(c.stdout, header, [][]string{row})
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
		{"seeds", seedsText(res)},
		{"leases acquired", strconv.Itoa(res.LeasesAcquired)},
		{"violations", strconv.Itoa(res.Violations)},
		{"violating seeds", none(seedList(res.ViolatingSeeds))},
		{"unanswered", unansweredText(res)},
		{"fencing tokens", tokensText(res)},
		{"exercised", exercised(res.Exercised)},
	}
	if len(res.Swarm) > 0 {
		var kinds []string
		for _, k := range res.Swarm {
			kinds = append(kinds, fmt.Sprintf("%s %d", k.Kind, k.Seeds))
		}
		rows = append(rows, []string{"swarm seeds by kind", strings.Join(kinds, ", ")})
	}
	if cx := res.Counterexample; cx != nil {
		rows = append(rows, []string{"counterexample", fmt.Sprintf("%s: seed %d shrunk from %d to %d commands (%s)",
			cx.File, cx.Seed, cx.Recorded, cx.Commands, shrinkNote(cx.ShrinkResult))})
	}
	rows = append(rows, shardRows(res)...)
	rows = append(rows, [][]string{
		{"wall time", formatValue(res.WallMS/1000, false) + " s"},
	}...)
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
	if len(res.TokenFailureSpecs) > 0 {
		fmt.Fprintf(c.stdout, "\nseed %d's fenced store rejected a current lease's write, accepted a stale one or took another node's token again, a token that did not grow; re-run it alone (--trace FILE shows the Acquired tokens):\n%s\n",
			res.TokenFailureSpecs[0].Seed, runCommand(res.TokenFailureSpecs[0]))
	}
	if len(res.UnansweredSpecs) > 0 {
		a := res.FirstUnanswered[0]
		fmt.Fprintf(c.stdout, "\nseed %d left node %d's request for resource %d (made at %.3f s) unanswered after its settle stretch; re-run it alone:\n%s\n",
			res.UnansweredSpecs[0].Seed, a.Node, a.Resource, a.SinceMS/1000, runCommand(res.UnansweredSpecs[0]))
	}
	return nil
}

// unansweredText says how many requests no answer came to by the end of
// their seed's settle stretch, and in which seeds.
func unansweredText(res campaign.CheckResult) string {
	if res.Unanswered == 0 {
		if !res.LivenessJudged {
			return "- (no settle stretch: liveness not judged)"
		}
		return fmt.Sprintf("0 (the longest drain took %.1f%% of its settle stretch)", 100*res.DrainMaxShare)
	}
	return fmt.Sprintf("%d, in seeds %s", res.Unanswered, seedList(res.UnansweredSeeds))
}

// seedList writes seeds as a space-separated list ("" for none).
func seedList(seeds []uint64) string {
	out := make([]string, len(seeds))
	for i, s := range seeds {
		out[i] = strconv.FormatUint(s, 10)
	}
	return strings.Join(out, " ")
}

// tokensText says how many seeds were judged for their fencing tokens
// and what failed.
func tokensText(res campaign.CheckResult) string {
	switch {
	case res.Params.Store != "fenced" || res.Params.Writes <= 0:
		return "- (no fenced store: --writes D --store fenced)"
	case res.TokensJudged == 0:
		return fmt.Sprintf("- (not judged: every seed had a fault under which %s does not claim its tokens grow)", res.Algo)
	case res.TokenFailures == 0:
		return fmt.Sprintf("judged in %d of %d seeds: 0 failures", res.TokensJudged, res.Seeds)
	}
	return fmt.Sprintf("judged in %d of %d seeds: %d writes rejected while current, accepted while stale or tied with another node's token, in seeds %s",
		res.TokensJudged, res.Seeds, res.TokenFailures, seedList(res.TokenFailureSeeds))
}

// shrinkNote says whether a shrink reached its fixed point and whether
// the recording was exact.
func shrinkNote(sr campaign.ShrinkResult) string {
	s := "minimal"
	if !sr.Minimal {
		s = "--shrink-time spent before a fixed point"
	}
	if !sr.Faithful {
		s += "; the recording replayed to another violation than the run's"
	}
	return s
}

// exercised says in one line how often the campaign's faults happened.
func exercised(e campaign.Exercised) string { return e.String() }

// rerun is the command line that reproduces the first violating seed.
func rerun(res campaign.CheckResult) string {
	if len(res.ViolatingSpecs) == 0 {
		return ""
	}
	return runCommand(res.ViolatingSpecs[0])
}

// seedsText says which seeds ran, and whether the campaign was cut short.
func seedsText(res campaign.CheckResult) string {
	s := strconv.Itoa(res.Seeds)
	if res.Seeds > 0 {
		s += fmt.Sprintf(" (%d..%d)", res.FirstSeed, res.FirstSeed+uint64(res.Seeds)-1)
	}
	if res.Interrupted {
		s += ", interrupted: the seeds before the first that did not finish"
	}
	return s
}
