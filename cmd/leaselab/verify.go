package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"leaselab/algorithms"
	"leaselab/runner/campaign"
	"leaselab/runner/shard"
	"leaselab/runner/verify"
)

func init() {
	register(command{
		name:    "verify",
		summary: "a safety battery: a matrix of explorer searches and fault campaigns, within a time budget, for a lease violation",
		usage:   "--algo NAME [--ablate X] [--budget D] [--out FILE] [--shard i/n] [--format table|json] [flags]",
		long: `Runs the algorithm through a fixed matrix of configurations (runner/verify
documents it, and what it leaves out): breadth-first 'leaselab explore'
searches over 1, 2, 3 and 5 acceptors, proposer-only nodes, 2 to 5 client
inputs (acquire, extend, release), 0 to 2 crashes, bounded and unbounded
messages in flight, duplicates, exact, drifting, skewed and extreme clocks,
several resources, fsyncs that take time (durable algorithms); depth-first
searches (explore --strategy dfs) that reach 16 and 18 moves on one
acceptor, where a proposer's earlier life acts after its crash; then
seeded 'leaselab check' campaigns with several fault mixes. Nothing is chosen per
ablation: the same matrix runs with every rule on and with --ablate.

Besides the lease invariant: the campaigns' seeds end with a settle
stretch, and five searches judge liveness (explore --liveness), so a
request left unanswered fails the battery. Fencing tokens too: the token
campaign has a holder write to a fenced store every 50 ms under every
fault kind under which the algorithm claims its tokens grow (its
TokenBreaks, 'leaselab algos --format markdown'); the token swarm, the
quick re-acquisition (every 2 ms) and the last campaign, a quick hand-off
on the default network (1 ms holds, a write every 250 µs), write to one
as well, and the swarm campaign in each seed whose draws allow it; and
searches judge tokens over every interleaving of their bounds where no
search brings about a condition the algorithm names (explore --tokens:
six or seven, fairq's three in lockstep with --sync, none for the naive
votes). A write of a
current lease the store rejects, a stale write it accepts, or two
holders with one token fails the battery (a token failure, with the
'leaselab run' or 'leaselab explore' command that finds it).

The budget (default 10m) is split as the battery goes: each configuration
may take the time left times its share (a deadline: a search or a
campaign stops at it, a campaign keeping the seeds that finished), so the
battery ends within the budget and a few seconds; a search also stops at
its state cap and before its memory would pass --memory-cap; time left
unused goes to the configurations after it. The cheap configurations that found
bugs before come first. The battery stops at the first violation and
writes its counterexample with --out FILE: a scenario that 'leaselab
replay FILE' replays to the violation (exit 1). A configuration the
algorithm rejects (its parameters fail the algorithm's validation) is not
run, and a battery with one exits 1 too: it did not check what it names.
So does a battery with a configuration that ran and never saw leases of
two nodes (the "leases" column: states searched in which some node held
one and how many nodes held one, or leases a campaign's runs acquired):
two holders at once need both, so its "no violation" judged nothing.
A violation a campaign finds is given as the 'leaselab run' command of its
seed; with --out the run is recorded and shrunk to a scenario
(campaign.Shrink, within --shrink-time, at most what is left of the
budget), and if its recording does not violate, what is left of the
budget goes to the searches still open, for one.

--all-ablations runs the battery per safety ablation and prints the table
of ablation, finder and seconds (runner/verify/ablations.md); --table-from
prints that table from saved 'verify --format json' results instead.

--list prints the matrix without running it. One line per configuration
goes to stderr as it ends (--quiet: none).

--shard i/n runs part i of n: of the battery's T configurations (the
matrix, or --only's, in their order) the contiguous range
[i·T/n, (i+1)·T/n); auto/n takes i from JOB_COMPLETION_INDEX (a
Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID (a Slurm job array). A
part is a battery of its own configurations with the whole --budget,
split among them as above: their weights over its own, a subset of the
whole battery's, so each configuration's share of each pass is at least
what the unsharded battery with the same --budget gives it. n parts take
n times the budget of machine time, and the budget of wall time when they
run at once. A part's JSON has a "shard" key (its index, count and range,
and the battery's spec: algo, ablate, budget, seed, memory cap, --out,
--shrink-time and the configurations' IDs); 'leaselab merge' combines the
parts into the battery's result. Only what does not depend on the
machine's speed can equal the unsharded run's: the configurations and
their flags, the figures of those that exhausted their space or stopped
at a state or seed cap, and a violation found in the quick pass (its
configuration, violations and the configurations skipped after it). A
configuration cut by its time share gets as far as the machine does.

JSON keys: configurations (each with id, kind, flags, command: the
reproducing command with the cap that ended it, states or seeds, depth,
exhausted, violations, seconds, cap_seconds, stopped: exhausted,
depth (a depth-first search that searched its depth bound), violation,
time, memory, states, seeds, unanswered, tokens (a token failure), or not
run: budget, skipped, invalid; unanswered; tokens, tokens_judged and
token_failures for a campaign with a fenced store), violations, found_by,
found_by_command, unanswered, unanswered_by, unanswered_run,
token_failures, tokens_by, tokens_run, counterexample,
reproduce, findings (the violation with its pass and counterexample; a
merged battery's: every part's), meta, algo, ablate, budget, seconds,
shard (a part's), shards (a merged result's parts).

Ctrl-C (or SIGTERM) ends the configuration in flight as at the end of its
share, starts no other and prints the result so far: interrupted is true,
and the configurations cut short or not started say "interrupted". merge
refuses an interrupted part.

Exit status 1 when a violation, a request left unanswered or a token
failure is found, or a configuration was rejected by the algorithm or
judged nothing; 0 otherwise (130 when interrupted before a violation was
found), 2 for bad input.`,
		setup: setupVerify,
	})
}

func setupVerify(fs *pflag.FlagSet) action {
	var c verify.Config
	fs.StringVar(&c.Algo, "algo", "paxoslease", "algorithm to verify (see 'leaselab algos'): "+strings.Join(algorithms.Names(), ", "))
	fs.StringSliceVar((*[]string)(&c.Ablate), "ablate", nil, "comma-separated rules of the algorithm to switch off")
	fs.DurationVar(&c.Budget, "budget", verify.DefaultBudget, "wall time for the whole battery (with --shard: for each part, which splits it among its own configurations)")
	fs.Uint64Var(&c.Seed, "seed", 1, "the explorer's --seed and the campaigns' first seed")
	fs.IntVar(&c.Workers, "workers", 0, "the explorer's goroutines (0: every core; campaigns use every core)")
	memMiB := fs.Uint64("memory-cap", verify.DefaultMemoryCap>>20, "MiB: a search stops cleanly before the process's resident memory would pass this (explore --max-memory)")
	fs.StringSliceVar(&c.Only, "only", nil, "run only these configurations (IDs from --list, e.g. E1,C2)")
	list := fs.Bool("list", false, "print the matrix (with --only, --shard: the configurations they select) and exit")
	out := fs.String("out", "", "write the counterexample (a scenario file for 'leaselab replay') to FILE, if there is one")
	fs.DurationVar(&c.ShrinkTime, "shrink-time", campaign.DefaultShrinkBudget, "with --out: the longest the shrinking of a campaign's violation may take")
	all := fs.Bool("all-ablations", false, "run the battery once per safety ablation of --algo (a comma-separated list, or all) and once with every rule on, "+
		"and print the table of ablation, the configuration that found it, and seconds (--format markdown for the committed table)")
	rulesOn := fs.Duration("rules-on-budget", verify.DefaultBudget, "with --all-ablations: the budget of each every-rule-on run (0: leave those rows out)")
	tableFrom := fs.StringSlice("table-from", nil, "print the --all-ablations table (--format markdown or json) from these files of 'verify --format json' output, in the order given, instead of running anything (batteries run separately, e.g. side by side)")
	format := addFormatFlag(fs, "table", "json", "markdown")
	quiet := fs.Bool("quiet", false, "no per-configuration lines on stderr")
	shardFlag := addShardFlag(fs, "configurations")
	return func(cx *ctx, args []string) error {
		if len(args) != 0 {
			return usagef("verify takes no arguments, got %q", args)
		}
		if *memMiB == 0 {
			return usagef("--memory-cap must be at least 1 MiB")
		}
		if err := checkShrinkArgs(*out, c.ShrinkTime); err != nil {
			return err
		}
		c.MemoryCap = *memMiB << 20
		c.Scenario = *out != ""
		if len(*tableFrom) > 0 {
			if *shardFlag != "" {
				return usagef("--table-from runs nothing: --shard does not apply")
			}
			return verifyTableFrom(cx, *tableFrom, *format)
		}
		if *all {
			return verifyAll(cx, c, *rulesOn, *format, *quiet, fs)
		}
		if *format == "markdown" {
			return usagef("--format markdown is for --all-ablations")
		}
		info, err := shardVerify(*shardFlag, &c)
		if err != nil {
			return err
		}
		if *list {
			return verifyList(cx, c, *format)
		}
		return runVerify(cx, c, info, *out, *format, *quiet)
	}
}

// verifyList is --list: the configurations c runs.
func verifyList(cx *ctx, c verify.Config, format string) error {
	es, err := verify.Select(c)
	if err != nil {
		return badInput(err)
	}
	if c.To > 0 {
		es = es[c.From:c.To]
	}
	if format == "json" {
		return writeJSON(cx.stdout, es)
	}
	rows := make([][]string, len(es))
	for i, e := range es {
		rows[i] = []string{e.ID, e.Kind, e.Flags(), e.Why}
	}
	return writeTableWidth(cx.stdout, []string{"id", "kind", "flags", "why"}, rows, 60)
}

// runVerify runs the battery c (a part of it with info), writes its
// counterexample to out, if it has one, and its result.
func runVerify(cx *ctx, c verify.Config, info *shard.Info, out, format string, quiet bool) error {
	if !quiet {
		c.Progress = verifyProgress(cx, c.Algo)
	}
	stop, release := interruptible(cx)
	c.Stop = stop
	res, err := verify.Run(c)
	release()
	if errors.Is(err, verify.ErrBadConfig) {
		return badInput(err)
	}
	if err != nil {
		return err
	}
	res.Meta, res.Shard = cx.meta(), info
	if res.ViolatingSpec != nil {
		res.Reproduce = runCommand(*res.ViolatingSpec)
	}
	if res.UnansweredSpec != nil {
		res.UnansweredRun = runCommand(*res.UnansweredSpec)
	}
	if res.TokensSpec != nil {
		res.TokensRun = runCommand(*res.TokensSpec)
	}
	if out != "" {
		switch {
		case res.Scenario != "":
			if err := os.WriteFile(out, []byte(res.Scenario), 0o644); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			res.Counterexample = out
		case res.Violations == 0 && res.UnansweredScenario != "":
			// No violation: the path to a search's request never answered.
			if err := os.WriteFile(out, []byte(res.UnansweredScenario), 0o644); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			res.Counterexample = out
		case res.Violations == 0 && res.Unanswered == 0 && res.TokensScenario != "":
			// No violation, no liveness failure: a search's path to a
			// token that did not grow.
			if err := os.WriteFile(out, []byte(res.TokensScenario), 0o644); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			res.Counterexample = out
		case res.Violations > 0:
			fmt.Fprintf(cx.stderr, "verify: a campaign found the violation and no search did within the budget, so %s is not written: re-run the campaign's seed with %s\n", out, res.Reproduce)
		}
	}
	res.Findings = verify.FindingsOf(res)
	if err := writeVerify(cx, format, res); err != nil || !res.Interrupted {
		return err
	}
	fmt.Fprintf(cx.stderr, "verify: interrupted: %d of %d configurations ran; the verdict covers only what they searched\n", res.Ran, len(res.Configurations))
	return exitStatus(130)
}

// verifyProgress prints a line on stderr as each configuration ends.
func verifyProgress(cx *ctx, algo string) func(verify.Event) {
	return func(e verify.Event) {
		if !e.Done {
			return
		}
		r := e.Result
		size := strconv.FormatInt(r.States, 10) + " states, depth " + strconv.Itoa(r.Depth)
		if r.Kind == verify.KindCheck {
			size = strconv.Itoa(r.Seeds) + " seeds"
		}
		fmt.Fprintf(cx.stderr, "verify %s: [%d/%d] %s %s %s: %s, %s, %.1f s\n", algo, e.Index+1, e.Total, r.ID, r.Kind, r.Flags, size, r.Stopped, r.Seconds)
	}
}

// writeVerify writes a battery's result (a part's, a merged one) and
// gives its exit status: 1 when it found a violation.
func writeVerify(cx *ctx, format string, res verify.Result) error {
	var err error
	if format == "json" {
		err = writeJSON(cx.stdout, res)
	} else {
		err = writeVerifyTable(cx, res)
	}
	if err != nil {
		return err
	}
	if res.Violations > 0 {
		return exitStatus(1)
	}
	// A request left unanswered once the faults stopped is a liveness
	// failure: the battery went on searching for violations, and fails.
	if res.Unanswered > 0 {
		if res.UnansweredScenario != "" {
			fmt.Fprintf(cx.stderr, "verify: %s found %d states with a request never answered (at rest, or left pending by the settle probe: a liveness failure); --out writes the path to the first, or re-run the search with %s --out FILE\n",
				res.UnansweredBy, res.Unanswered, res.UnansweredRun)
		} else {
			fmt.Fprintf(cx.stderr, "verify: %s left %d requests unanswered after its seeds' faults stopped (a liveness failure); re-run its first such seed with %s\n",
				res.UnansweredBy, res.Unanswered, res.UnansweredRun)
		}
		return exitStatus(1)
	}
	// A fenced store that rejected a current lease's write, or took a
	// stale one, in a seed whose faults the algorithm says its tokens
	// survive: its fencing claim (Algorithm.TokenBreaks) is broken.
	if res.TokenFailures > 0 {
		if strings.HasPrefix(res.TokensRun, "leaselab explore") {
			fmt.Fprintf(cx.stderr, "verify: %s found %d states where a lease's fencing token was not above an earlier holder's, in a search %s says its tokens survive; --out writes the path to the first, or re-run the search with %s --out FILE\n",
				res.TokensBy, res.TokenFailures, res.Algo, res.TokensRun)
		} else {
			fmt.Fprintf(cx.stderr, "verify: %s's fenced store rejected %d writes of a current lease, accepted stale ones or took another node's token again, under faults %s says its fencing tokens survive; re-run its first such seed with %s\n",
				res.TokensBy, res.TokenFailures, res.Algo, res.TokensRun)
		}
		return exitStatus(1)
	}
	// A configuration the algorithm rejected was not searched: a battery
	// with one is no pass, or an algorithm whose validation rejects the
	// matrix's standard parameters (none does today, with or without an
	// ablation) would pass having checked nothing.
	if n, first := res.Rejected(); n > 0 {
		fmt.Fprintf(cx.stderr, "verify: %d of %d configurations not run: %s rejects them (%s: %s); the battery's verdict does not cover them\n",
			n, len(res.Configurations), res.Algo, first.ID, first.Note)
		return exitStatus(1)
	}
	// A configuration that never saw leases of two nodes judged nothing
	// (two holders at once need both): an algorithm that drops every
	// message, or whose proposers never start, would pass it (a mutant
	// of FaTLease's message check did, in every configuration of
	// classic Paxos's battery).
	if n, first := res.Vacuous(); n > 0 {
		saw := "0 leases acquired"
		if first.Kind == verify.KindCheck && first.Leases > 0 {
			saw = fmt.Sprintf("%d leases acquired, the tokens of 0 of %d seeds judged", first.Leases, first.Seeds)
		}
		if first.Kind == verify.KindExplore {
			saw = fmt.Sprintf("%d states with a lease held, by %d nodes", first.Leases, first.Holders)
			if first.Liveness {
				saw += fmt.Sprintf(", %d at rest, %d probed", first.RestStates, first.ProbedStates)
			}
		}
		fmt.Fprintf(cx.stderr, "verify: %d of %d configurations never saw leases of two nodes, (--liveness) a state at rest or probed, or (--store fenced) a seed whose tokens it could judge (%s: %s, stopped: %s); their verdict is vacuous\n",
			n, len(res.Configurations), first.ID, saw, first.Stopped)
		return exitStatus(1)
	}
	return nil
}

func writeVerifyTable(cx *ctx, r verify.Result) error {
	rows := make([][]string, 0, len(r.Configurations))
	for _, c := range r.Configurations {
		size, depth, leases := "", "", ""
		switch {
		case c.Stopped == verify.StopBudget || c.Stopped == verify.StopSkipped || c.Stopped == verify.StopInvalid:
		case c.Kind == verify.KindCheck:
			size, leases = strconv.Itoa(c.Seeds)+" seeds", strconv.FormatInt(c.Leases, 10)+" acquired"
		default:
			size, depth, leases = strconv.FormatInt(c.States, 10), strconv.Itoa(c.Depth), fmt.Sprintf("%d held, %d nodes", c.Leases, c.Holders)
		}
		secs := ""
		if c.Command != "" {
			secs = strconv.FormatFloat(c.Seconds, 'f', 1, 64)
		}
		unans := ""
		if c.Kind == verify.KindCheck || c.Liveness {
			unans = strconv.Itoa(c.Unanswered)
		}
		rows = append(rows, []string{c.ID, c.Kind, c.Flags, size, depth, leases, c.Stopped, strconv.Itoa(c.Violations), unans, secs})
	}
	if err := writeTableWidth(cx.stdout, []string{"id", "kind", "flags", "states / seeds", "depth", "leases", "stopped", "violations", "unanswered", "s"}, rows, 48); err != nil {
		return err
	}
	abl := strings.Join(r.Ablate, ",")
	if abl == "" {
		abl = "- (every rule on)"
	}
	none := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	sum := [][]string{
		{"algo", r.Algo},
		{"ablate", abl},
		{"budget", fmt.Sprintf("%s (%.0f s used)", r.Budget, r.Seconds)},
		{"configurations", fmt.Sprintf("%d of %d ran, %d exhausted", r.Ran, len(r.Configurations), r.Exhausted)},
		{"violations", strconv.Itoa(r.Violations)},
		{"found by", none(r.FoundByCommand)},
		{"counterexample", none(r.Counterexample) + scenarioBy(r)},
	}
	if r.Reproduce != "" {
		sum = append(sum, []string{"reproduce", r.Reproduce})
	}
	if r.TokensBy != "" {
		sum = append(sum, []string{"token failures", fmt.Sprintf("%d, by %s: %s", r.TokenFailures, r.TokensBy, r.TokensRun)})
	}
	sum = append(sum, verifyShardRows(r)...)
	return writeTable(cx.stdout, []string{"verify", "value"}, sum)
}

// verifyTableFrom prints the ablation table from saved battery results.
func verifyTableFrom(cx *ctx, files []string, format string) error {
	var rows []verify.Row
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			return badInput(err)
		}
		var r verify.Result
		if err := json.Unmarshal(b, &r); err != nil || r.Algo == "" {
			return usagef("--table-from %s: not the JSON of a verify run (%v)", name, err)
		}
		rows = append(rows, verify.RowOf(r))
	}
	switch format {
	case "markdown":
		return verify.WriteMarkdown(cx.stdout, rows)
	case "json":
		return writeJSON(cx.stdout, struct {
			Meta any          `json:"meta"`
			Rows []verify.Row `json:"rows"`
		}{cx.meta(), rows})
	}
	return usagef("--table-from prints --format markdown or json")
}

// verifyAll is --all-ablations: the ablation table.
func verifyAll(cx *ctx, c verify.Config, rulesOn time.Duration, format string, quiet bool, fs *pflag.FlagSet) error {
	for _, name := range []string{"ablate", "out", "list", "only", "shard"} {
		if fs.Changed(name) {
			return usagef("--all-ablations runs every safety ablation: --%s does not apply", name)
		}
	}
	if rulesOn < 0 {
		return usagef("--rules-on-budget must not be negative, got %v", rulesOn)
	}
	algos := strings.Split(c.Algo, ",")
	if c.Algo == "all" {
		algos = algorithms.Names()
	}
	for _, a := range algos {
		if _, err := algorithms.Lookup(a); err != nil {
			return badInput(err)
		}
	}
	var progress func(verify.Row)
	if !quiet {
		progress = func(r verify.Row) {
			what := "every rule on"
			if r.Ablation != "" {
				what = "--ablate " + r.Ablation
			}
			found := "no violation"
			if r.FoundBy != "" {
				found = "found by " + r.FoundBy + ": " + r.Command
			}
			fmt.Fprintf(cx.stderr, "verify %s %s: %s (%.1f s)\n", r.Algo, what, found, r.Seconds)
		}
	}
	rows, err := verify.Table(c, algos, c.Budget, rulesOn, progress)
	if errors.Is(err, verify.ErrBadConfig) {
		return badInput(err)
	}
	if err != nil {
		return err
	}
	switch format {
	case "json":
		err = writeJSON(cx.stdout, struct {
			Meta any          `json:"meta"`
			Rows []verify.Row `json:"rows"`
		}{cx.meta(), rows})
	case "markdown":
		err = verify.WriteMarkdown(cx.stdout, rows)
	default:
		t := make([][]string, len(rows))
		for i, r := range rows {
			abl := r.Ablation
			if abl == "" {
				abl = "(every rule on)"
			}
			t[i] = []string{r.Algo, abl, r.FoundBy, r.Command, strconv.FormatFloat(r.Seconds, 'f', 1, 64)}
		}
		err = writeTableWidth(cx.stdout, []string{"algo", "ablation", "found by", "command", "s"}, t, 60)
	}
	if err != nil {
		return err
	}
	// The table is the finding: a safety ablation not found, or a
	// violation with every rule on, is exit 1.
	for _, r := range rows {
		alone := verify.Companions[r.Algo+"/"+r.Ablation] != ""
		if (r.Ablation != "" && r.FoundBy == "" && !alone) || (r.Ablation == "" && r.FoundBy != "") {
			return exitStatus(1)
		}
	}
	return nil
}

func scenarioBy(r verify.Result) string {
	if r.ScenarioBy == "" || r.ScenarioBy == r.FoundBy {
		return ""
	}
	return " (found by " + r.ScenarioBy + ")"
}
