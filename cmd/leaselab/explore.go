package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/explore"
	"leaselab/runner/faults"
)

// budgetHelp is the help of the explorer's fault budgets (a budget the
// fault-kind table adds without one here gets the kind's summary).
var budgetHelp = map[string]string{
	"crashes": "crashes along one path (a crashed node may restart at any later point)",
	"drops":   "messages lost along one path (0 by default: a message never delivered is already a lost one, so drops add states, never a violation)",
	"dups":    "messages duplicated along one path",
	"pauses":  "process pauses along one path (a running node's process pauses until just before or just after any timer deadline pending then; it does nothing meanwhile, its clock runs on; violations are two holders among running nodes, double_belief_states counts states where a paused one still believes)",
}

func init() {
	register(command{
		name:    "explore",
		summary: "search every interleaving of a small cluster (explicit state: breadth first, depth first or random walks) for a lease violation",
		usage:   "[flags]",
		long: `Explores every state a small cluster can reach, running the algorithm's own
state machines (the code the simulator and UDP run; no second model): from
every state it tries delivering any message in flight (in any order, after
any delay: a message may stay in flight for ever), losing one (--drops),
duplicating one (--dups), a client input at any proposer that is up
(--inputs: acquire, extend, release), crashing a node (--crashes) and
restarting it, pausing a node's process (--pauses), changing a clock's
rate (--slews), and letting true time pass to the next timer deadline
(or by --time-step short of it). A client
input the node ignores is skipped; without a pending bound
(--max-pending 0) so is a delivery the node ignores. The lease-invariant
checker judges every state in true time. States are deduplicated by a
128-bit fingerprint of their canonical encoding, so the search ends when
the bounded space is exhausted.

--strategy bfs (the default) searches level by level and finds a shortest
counterexample, the same for any --workers; only the fingerprints are in
memory (16 bytes each in tables at most 3/4 full), the frontier is on disk
as (parent, move) pairs and states are rebuilt by running moves again.
--strategy dfs goes deep first on one core; --strategy random takes --walks
seeded walks of --max-depth moves (500 unless given). --from FILE starts
the search where a scenario file ends.

The search stops cleanly at --max-memory (default: 3/4 of the memory
available at the start), at --max-states, or on Ctrl-C, and prints what it
found so far; "stopped" says why (exhausted, max-states, max-depth,
max-memory, interrupted, violation, walks). "states with a lease held"
(JSON held_states, and holders: how many nodes held one) counts the states
searched in which some node holds a lease: with 0, or with the leases of
one node only, no violation says nothing, because two holders at once need
leases of two nodes (a pending bound below one round to every acceptor
hands out none). With --checkpoint DIR a stopped breadth-first search is
saved in DIR and the same command resumes it.

The semantics are those of scenario files (runner/sim/testdata/README.md): a
counterexample is a path to a state where two owners hold one resource,
written with --out FILE as a scenario that 'leaselab replay FILE' replays to
the same violation.

Protocol defaults differ from 'run' on purpose: --response-timeout 10s
(above M, so a round can outlive a restarted node's wait), --max-rounds 1
and --backoff 0 (no random waits: the nodes' random draws then never
matter, and the state space stays small).

--liveness also judges the contract's promise that every acquire is
answered (Acquired or Failed), three ways. A state at rest (every node up
and running, no message in flight, no timer pending: nothing can happen
there without a new input or fault) with a client request still
unanswered is a liveness failure. And from every state the search expands
with a request pending and no client input left, the settle probe lets
the faults stop and the network be synchronous (a node that is down
restarts, and in hops of a fiftieth of the lease span the messages in
flight arrive in send order) for a generous bound of true time; a request
still pending then is a liveness failure too: rounds that never end. And
the contract says when: a node that holds the lease answers an acquire of
it at once, so a step that runs a client's acquire at a holder and leaves
it unanswered is a liveness failure (late_answers), though an answer may
come later (holder_asks counts the acquires so judged). All three count
in unanswered_states; the first is written with --out (when there is no
violation) as a scenario on which replay exits 1: a state at rest if one
was found, else a probe's, else a late answer's. rest_states and
probed_states say how many states were judged: with 0 for both, nothing.
The probe tries one fair schedule, not all; drifting clocks stop drifting
where they are when it begins; a random walk is probed once, where its
clients are done (its probes are counted per walk).

--tokens also judges fencing tokens: at the end of every transition each
lease whose token is new writes to a fenced store, and a token below the
highest written to its resource before (the store rejects a current
lease's write), or equal to one another node wrote (two holders with one
token), is a token failure; it stops the search as a violation does, and
--out writes a scenario with 'store fenced' and the writes, on which
replay exits 1 (expect fenced-rejects 0, or expect token-ties 0). The
highest token per resource becomes state. Only where the search brings
about none of the conditions under which the algorithm does not claim its
tokens grow ('leaselab algos', token_breaks): a search can always hold a
message for as long as it likes and leave a lease to lapse (late, delay,
lapse), crashes restart (restart), clocks other than exact or --slews
disagree (clocks). With --sync time passes only when nothing is in
flight and no lease would end, so no message is late and, without
--drops, --pauses or --crashes, no lease lapses; delays remain (within
an instant a release and the next ask are no time apart). So PaxosLease
and FaTLease are judged without crashes, classic Paxos and central
always, fairq with --sync and none of drops, pauses and crashes, the
naive votes never; asking elsewhere is bad input.

Exit status 1 when a violation, (--liveness) an unanswered request or
(--tokens) a token failure is found, 2 for bad input.`,
		setup: setupExplore,
	})
}

func setupExplore(fs *pflag.FlagSet) action {
	cfg := explore.DefaultConfig()
	cfg.Workers = runtime.NumCPU()
	fs.StringVar(&cfg.Algo, "algo", cfg.Algo, "algorithm to explore (see 'leaselab algos'): "+strings.Join(algorithms.Names(), ", "))
	fs.StringSliceVar((*[]string)(&cfg.Ablate), "ablate", nil, "comma-separated rules of the algorithm to switch off (names in 'leaselab algos')")
	fs.IntVar(&cfg.Acceptors, "acceptors", cfg.Acceptors, "number of acceptors (nodes 0..N-1)")
	fs.IntVar(&cfg.Proposers, "proposers", cfg.Proposers, "number of proposers (nodes 0..P-1; a node may be both)")
	fs.IntVar(&cfg.Resources, "resources", cfg.Resources, "resources r0..r{N-1} the clients may ask for (1..16)")
	protocol := runner.Spec{Params: cfg.Params}
	addGroupFlags(fs, &protocol, runner.GroupProtocol)
	// The table's text describes run's network-derived default; the
	// explorer has no network and its own default (above M).
	fs.Lookup("response-timeout").Usage = "a phase without a majority by then times out and the round is retried (time is the explorer's: above M by default, so a round can outlive a restarted node's wait)"
	fs.DurationVar(&cfg.FsyncLatency, "fsync-latency", cfg.FsyncLatency, "classic Paxos: every fsync takes exactly this long (a crash within it loses the records; with --ablate fsync the answers have already left)")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the nodes' random sources (matters only with --backoff > 0)")
	fs.IntVar(&cfg.Inputs, "inputs", cfg.Inputs, "client inputs along one path (each an acquire, extend or release at any proposer)")
	fs.BoolVar(&cfg.Liveness, "liveness", false, "also judge that every acquire is answered: a state at rest (every node up and running, nothing in flight, no timer pending) with a request unanswered is a liveness failure, and so is one from which a synchronous network without faults leaves a request unanswered (the settle probe, run from every state expanded with a request pending and no input left; bfs and dfs; drifting clocks stop drifting first). The requests become state, and two reductions are off, so the same bounds give more states. A holder that does not answer an acquire of its lease in the step that takes it fails too (late_answers)")
	fs.BoolVar(&cfg.Tokens, "tokens", false, "also judge fencing tokens: each lease whose token is new writes to a fenced store at the end of the transition, and a token below the highest written to its resource, or equal to another node's, is a token failure (stops the search; --out writes the scenario). Only where the search causes none of the algorithm's token_breaks ('leaselab algos'): PaxosLease and FaTLease with --crashes 0, classic Paxos and central always, fairq with --sync and no crashes, drops or pauses")
	fs.BoolVar(&cfg.Sync, "sync", false, "true time passes only when no message to a live node is in flight and no lease would end by then: every message arrives (or is dropped) before a timer fires, and a holder releases before its lease ends; messages still arrive in any order within an instant. Fewer interleavings: no late message, and without drops, pauses or crashes no lapse, so --tokens can judge an algorithm that names those (fairq). Not with --liveness or --from")
	kinds := fs.StringSlice("input-kinds", []string{"acquire", "extend", "release"}, "which client inputs are offered: acquire, extend, release")
	// The fault budgets come from the fault-kind table (faults.Kind.Budget).
	budgets := cfg.FaultBudgets()
	for _, k := range faults.Kinds() {
		if k.Budget == "" {
			continue
		}
		help := budgetHelp[k.Budget]
		if help == "" {
			help = k.Summary + " along one path"
		}
		fs.IntVar(budgets[k.Budget], k.Budget, *budgets[k.Budget], help)
	}
	fs.StringVar(&cfg.Clocks, "clocks", cfg.Clocks, "clock models, chosen once per node at the start: exact (all read true time), "+
		"drift (rate error -F or +F, F = --drift), skew (offset -d_max/2 or +d_max/2), extremes (both)")
	drift := fs.Float64("drift", cfg.Params.Drift, "ACTUAL rate error of drifting clocks (--clocks drift|extremes); default: the --drift-bound value")
	maxPending := fs.Int("max-pending", 0, "a state with more messages in flight is judged by the checker but not expanded (0: no bound, and every reduction applies; default: max(2A - (A/2+1), P) for A acceptors and P proposers, what a two-phase round to every acceptor keeps in flight, and none for --strategy random; the TLA+ audit's MaxNetwork)")
	fs.DurationVar(&cfg.Horizon, "horizon", cfg.Horizon, "true time never advances past this (0: no bound)")
	fs.DurationVar(&cfg.TimeStep, "time-step", 0, "also let true time pass by this much at a time short of the next timer deadline, so deliveries and inputs happen between deadlines (0: at deadlines only)")
	fs.IntVar(&cfg.Slews, "slews", 0, "clock rate changes along one path (each a node's rate error becoming another of the --clock-levels rates in [-F, +F], F = --drift; its reading continuous)")
	fs.IntVar(&cfg.ClockLevels, "clock-levels", 2, "values a clock's offset and rate error take, evenly spaced between the extremes (2: the extremes only)")
	fs.StringVar(&cfg.Strategy, "strategy", "bfs", "search strategy: bfs (shortest counterexample, same for any --workers), dfs (one core, deep first), random (--walks seeded walks of --max-depth moves)")
	fs.IntVar(&cfg.Walks, "walks", 10000, "--strategy random: number of walks (0: until --max-states, --max-memory or Ctrl-C)")
	from := fs.String("from", "", "start the search at the end of this scenario file (its setup lines set the algorithm, cluster, parameters, seed, disk and clocks; its commands are every path's prefix)")
	fs.IntVar(&cfg.MaxDepth, "max-depth", 0, "explore at most this many transitions from the start (0: no bound; --strategy random: each walk's length, 0 = 500)")
	fs.Int64Var(&cfg.MaxStates, "max-states", 0, "stop after this many distinct states (0: no bound)")
	maxMemory := fs.String("max-memory", "", "stop cleanly before the process uses more memory than this (e.g. 1GiB, 800MB; none: no cap; default: 3/4 of the memory available at the start)")
	fs.StringVar(&cfg.Checkpoint, "checkpoint", "", "--strategy bfs: save a stopped search in this directory, and resume the one saved there")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "goroutines expanding states (a breadth-first result does not depend on it)")
	out := fs.String("out", "", "write the counterexample (a scenario file for 'leaselab replay') to FILE")
	format := addFormatFlag(fs, "table", "json")
	quiet := addQuietFlag(fs)
	return func(c *ctx, args []string) error {
		if len(args) != 0 {
			return usagef("explore takes no arguments, got %q", args)
		}
		cfg.Params = protocol.Params
		if fs.Changed("max-pending") {
			if *maxPending < 0 {
				return usagef("--max-pending must not be negative, got %d", *maxPending)
			}
			cfg.MaxPending = *maxPending
		}
		if *maxMemory != "" {
			m, err := explore.ParseSize(*maxMemory)
			if err != nil {
				return usagef("--max-memory: %v", err)
			}
			if m == 0 {
				return usagef("--max-memory must be above 0 (none: no cap)")
			}
			cfg.MaxMemory = m
		}
		if *from != "" {
			for _, name := range []string{"algo", "ablate", "acceptors", "proposers", "seed", "fsync-latency", "clocks"} {
				if fs.Changed(name) {
					return usagef("--%s and --from: the scenario's setup lines say it", name)
				}
			}
			for _, p := range runner.ParamsOf(runner.GroupProtocol) {
				if fs.Changed(p.Name) {
					return usagef("--%s and --from: the scenario's params line says it", p.Name)
				}
			}
			b, err := os.ReadFile(*from)
			if err != nil {
				return badInput(err)
			}
			cfg.From, cfg.FromName = string(b), *from
		}
		if fs.Changed("drift") {
			cfg.ClockDrift = *drift
		} else {
			cfg.ClockDrift = cfg.Params.Drift
		}
		if cfg.Workers < 1 {
			return usagef("--workers must be at least 1, got %d", cfg.Workers)
		}
		var err error
		if cfg.InputKinds, err = parseInputKinds(*kinds); err != nil {
			return err
		}
		var f *os.File
		if *out != "" {
			if f, err = createOutput("out", *out); err != nil {
				return err
			}
			defer f.Close()
		}
		if !*quiet && isTerminal(c.stderr) {
			cfg.Progress = func(p explore.Progress) {
				fmt.Fprintf(c.stderr, "\rexplore: depth %d, %d states, frontier %d, %.0f states/s, %d MB   ", p.Depth, p.States, p.Frontier, p.StatesPerSec, p.Memory>>20)
			}
		}
		// Ctrl-C stops the search cleanly: it prints what it found.
		sctx, stop := interruptContext(c)
		defer stop()
		res, err := explore.ExploreContext(sctx, cfg)
		stop()
		if cfg.Progress != nil {
			fmt.Fprint(c.stderr, "\r"+strings.Repeat(" ", 78)+"\r")
		}
		if errors.Is(err, explore.ErrBadConfig) {
			return badInput(err)
		}
		if err != nil {
			return err
		}
		return writeExplore(c, cfg, res, f, *out, *format)
	}
}

// parseInputKinds reads --input-kinds.
func parseInputKinds(kinds []string) ([]algorithms.InputKind, error) {
	var ks []algorithms.InputKind
	for _, k := range kinds {
		switch k {
		case "acquire":
			ks = append(ks, algorithms.Acquire)
		case "extend":
			ks = append(ks, algorithms.Extend)
		case "release":
			ks = append(ks, algorithms.Relinquish)
		default:
			return nil, usagef("unknown input kind %q (valid: acquire, extend, release)", k)
		}
	}
	if len(ks) == 0 {
		return nil, usagef("--input-kinds needs at least one of acquire, extend, release")
	}
	return ks, nil
}

// writeExplore writes the counterexample to f (--out), if there is one,
// and prints the result (with warnings and why the search stopped on
// stderr); exit status 1 when a violation was found.
func writeExplore(c *ctx, cfg explore.Config, res explore.Result, f *os.File, out, format string) error {
	sc := res.Scenario
	if sc == "" {
		sc = res.UnansweredScenario // no violation: the liveness failure's path
	}
	if sc != "" && f != nil {
		if _, err := f.WriteString(sc); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		res.Counterexample = out
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(c.stderr, "explore: warning: %s\n", w)
	}
	if res.Stopped != explore.StopExhausted && res.Stopped != explore.StopViolation && res.Stopped != explore.StopTokens && res.Stopped != explore.StopWalks {
		fmt.Fprintf(c.stderr, "explore: stopped (%s) before the space was exhausted: the result covers only the states searched\n", res.Stopped)
	}
	if format == "json" {
		if err := writeJSON(c.stdout, exploreOutput(c, cfg, res)); err != nil {
			return err
		}
	} else if err := writeExploreTable(c, res); err != nil {
		return err
	}
	if res.Violations > 0 || res.Unanswered > 0 || res.TokenFailures > 0 {
		return exitStatus(1)
	}
	return nil
}

func capText(b int64) string {
	if b <= 0 {
		return "none"
	}
	return fmt.Sprintf("%d MB", b>>20)
}

func writeExploreTable(c *ctx, r explore.Result) error {
	abl := strings.Join(r.Ablate, ",")
	if abl == "" {
		abl = "-"
	}
	ce := r.Counterexample
	if ce == "" && (r.Scenario != "" || r.UnansweredScenario != "") {
		ce = "(not written: use --out FILE)"
	}
	if ce == "" {
		ce = "-"
	}
	pending := "none"
	if r.Bounds.MaxPending > 0 {
		pending = fmt.Sprintf("%d (%s)", r.Bounds.MaxPending, r.Bounds.MaxPendingFrom)
	}
	rows := [][]string{
		{"algo", r.Algo},
		{"ablate", abl},
		{"cluster", fmt.Sprintf("%d acceptors, %d proposers", r.Acceptors, r.Proposers)},
		{"strategy", r.Strategy},
		{"clocks", fmt.Sprintf("%s (%d initial states)", r.Clocks, r.InitStates)},
		{"time model", r.TimeModel.Covers},
		{"budgets", fmt.Sprintf("inputs %d, crashes %d, drops %d, dups %d, slews %d, pauses %d", r.Bounds.Inputs, r.Bounds.Crashes, r.Bounds.Drops, r.Bounds.Dups, r.Bounds.Slews, r.Bounds.Pauses)},
		{"max pending", pending},
		{"states (distinct)", strconv.FormatInt(r.States, 10)},
		{"transitions", strconv.FormatInt(r.Transitions, 10)},
		{"states with a lease held", heldText(r.HeldStates, r.Holders)},
		{"constrained (beyond --max-pending)", strconv.FormatInt(r.Constrained, 10)},
		{"max depth", strconv.Itoa(r.MaxDepth)},
		{"stopped", r.Stopped},
		{"exhausted", strconv.FormatBool(r.Exhausted)},
		{"states/s", fmt.Sprintf("%.0f (%d workers)", r.StatesPerSec, r.Workers)},
		{"states per CPU second", fmt.Sprintf("%.0f (%.0f ms CPU)", r.StatesPerCPUSec, r.CPUMS)},
		{"wall", fmt.Sprintf("%.0f ms", r.WallMS)},
		{"memory", fmt.Sprintf("peak %d MB seen (cap %s), visited set %d MB", r.PeakMemory>>20, capText(r.MaxMemory), r.VisitedBytes>>20)},
		{"violations", strconv.Itoa(r.Violations)},
	}
	if r.Walks > 0 {
		rows = append(rows, []string{"walks", strconv.FormatInt(r.Walks, 10)})
	}
	if r.Bounds.Pauses > 0 {
		rows = append(rows, []string{"double-belief states", fmt.Sprintf("%d (a paused node still believes it holds; first at depth %d)", r.DoubleBelief, r.BeliefDepth)})
	}
	if r.Liveness {
		rows = append(rows, []string{"states at rest (liveness judged)", restText(r.RestStates, r.ProbedStates)},
			[]string{"states probed (a synchronous network from there)", strconv.FormatInt(r.ProbedStates, 10)},
			[]string{"acquires at a holder (judged: answered at once?)", fmt.Sprintf("%d, %d answered late", r.HolderAsks, r.LateAnswers)},
			[]string{"unanswered (liveness failures)", stuckText(r.Unanswered, r.LateAnswers, r.UnansweredDepth)})
	}
	if r.Sync {
		rows = append(rows, []string{"time", "in lockstep (--sync): passes only with nothing in flight and no lease ending"})
	}
	if r.Tokens {
		rows = append(rows, []string{"fencing tokens (judged)", tokenFailText(r)})
	}
	if r.Checkpoint != "" {
		rows = append(rows, []string{"checkpoint", r.Checkpoint + " (run the same command to resume)"})
	}
	if r.First != nil {
		rows = append(rows,
			[]string{"counterexample depth", strconv.Itoa(r.CounterexampleDepth)},
			[]string{"first violation", fmt.Sprintf("r%d: %s (b=%s) and %s (b=%s) at %.3f ms", r.First.Resource, r.First.Owners[0], r.First.Ballots[0], r.First.Owners[1], r.First.Ballots[1], float64(r.First.AtNS)/1e6)})
	}
	rows = append(rows, []string{"counterexample", ce})
	return writeTable(c.stdout, []string{"explore", "value"}, rows)
}

// tokenFailText is the fencing-tokens row.
func tokenFailText(r explore.Result) string {
	f := r.FirstToken
	if f == nil {
		return fmt.Sprintf("%d token failures", r.TokenFailures)
	}
	how := "below"
	if f.Token == f.Highest {
		how = "equal to another node's"
	}
	return fmt.Sprintf("%d token failures: first at depth %d, %s's token %s on r%d %s %s at %.3f ms",
		r.TokenFailures, r.CounterexampleDepth, f.Owner, f.Token, f.Resource, how, f.Highest, float64(f.AtNS)/1e6)
}

// restText is the states-at-rest row: liveness is judged there and in
// the probed states only.
func restText(n, probed int64) string {
	if n+probed == 0 {
		return "0 (no state searched was at rest or probed: the liveness verdict says nothing)"
	}
	return strconv.FormatInt(n, 10)
}

// stuckText is the liveness row.
func stuckText(n, late int64, depth int) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d: %d states at rest or probes with a request never answered, %d late answers (first at depth %d; --out writes it when there is no violation)", n, n-late, late, depth)
}

// heldText is the held-states row: a search that never reached leases of
// two nodes judged nothing, whatever its violation count says.
func heldText(n int64, holders int) string {
	switch {
	case n == 0:
		return "0 (no lease was ever held: no violation here says nothing)"
	case holders < 2:
		return strconv.FormatInt(n, 10) + " (all of one node: no violation here says nothing)"
	}
	return fmt.Sprintf("%d (by %d nodes)", n, holders)
}

// exploreJSON is explore's JSON: the search's result with the provenance
// and everything that bounded the search, every key always present (the
// fields here shadow the result's of the same JSON name).
type exploreJSON struct {
	Meta *runner.Meta `json:"meta"`
	explore.Result
	Ablate []string           `json:"ablate"`
	First  *explore.Violation `json:"first_violation"` // null when none
	Params algorithms.Params  `json:"params"`
	Bounds exploreBounds      `json:"bounds"`
}

// exploreBounds are the explorer's bounds and budgets: what "exhausted"
// is relative to (the search's own, explore.Bounds: budgets, the pending
// bound and where it came from, the reductions; and the rest of
// explore.Config that shapes the space).
type exploreBounds struct {
	explore.Bounds
	Resources      int      `json:"resources"`
	Seed           uint64   `json:"seed"`
	FsyncLatencyNS int64    `json:"fsync_latency_ns"`
	InputKinds     []string `json:"input_kinds"`
	ClockDrift     float64  `json:"clock_drift"`
}

func exploreOutput(c *ctx, cfg explore.Config, res explore.Result) exploreJSON {
	kinds := []string{}
	for _, k := range cfg.InputKinds {
		kinds = append(kinds, k.String())
	}
	abl := res.Ablate
	if abl == nil {
		abl = []string{}
	}
	return exploreJSON{Meta: c.meta(), Result: res, Ablate: abl, First: res.First, Params: cfg.Params,
		Bounds: exploreBounds{Bounds: res.Bounds, Resources: cfg.Resources, Seed: cfg.Seed, FsyncLatencyNS: int64(cfg.FsyncLatency),
			InputKinds: kinds, ClockDrift: cfg.ClockDrift}}
}
