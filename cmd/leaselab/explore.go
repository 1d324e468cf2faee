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
)

func init() {
	register(command{
		name:    "explore",
		summary: "search every interleaving of a small cluster (breadth-first, explicit state) for a lease violation",
		usage:   "[flags]",
		long: `Explores, breadth first, every state a small cluster can reach, running
the algorithm's own state machines (the code the simulator and UDP run; no
second model): from every state it tries delivering any message in flight
(in any order, after any delay: a message may stay in flight for ever),
losing one (--drops), duplicating one (--dups), a client input at any
proposer that is up (--inputs: acquire, extend, release), crashing a node
(--crashes) and restarting it, and letting true time pass to the next
timer deadline. A delivery or client input the node ignores is skipped
(the state before it keeps every future). The lease-invariant checker
judges every state in true time. States are deduplicated by a 128-bit fingerprint of their canonical
encoding, so the search ends when the bounded space is exhausted.

The semantics are those of scenario files (runner/sim/testdata/README.md): a
counterexample is the shortest path to a state where two owners hold one
resource (with --depth-first: the first path found, within --max-depth), written with --out FILE as a scenario that 'leaselab replay FILE'
replays to the same violation.

Protocol defaults differ from 'run' on purpose: --response-timeout 10s
(above M, so a round can outlive a restarted node's wait), --max-rounds 1
and --backoff 0 (no random waits: the nodes' random draws then never
matter, and the state space stays small).

Exit status 1 when a violation is found, 2 for bad input.`,
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
	fs.DurationVar(&cfg.FsyncLatency, "fsync-latency", cfg.FsyncLatency, "classic Paxos: every fsync takes exactly this long (a crash within it loses the records; with --ablate fsync the answers have already left)")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the nodes' random sources (matters only with --backoff > 0)")
	fs.IntVar(&cfg.Inputs, "inputs", cfg.Inputs, "client inputs along one path (each an acquire, extend or release at any proposer)")
	kinds := fs.StringSlice("input-kinds", []string{"acquire", "extend", "release"}, "which client inputs are offered: acquire, extend, release")
	fs.IntVar(&cfg.Crashes, "crashes", cfg.Crashes, "crashes along one path (a crashed node may restart at any later point)")
	fs.IntVar(&cfg.Drops, "drops", cfg.Drops, "messages lost along one path (0 by default: a message never delivered is already a lost one, so drops add states, never a violation)")
	fs.IntVar(&cfg.Dups, "dups", cfg.Dups, "messages duplicated along one path")
	fs.StringVar(&cfg.Clocks, "clocks", cfg.Clocks, "clock models, chosen once per node at the start: exact (all read true time), "+
		"drift (rate error -F or +F, F = --drift), skew (offset -d_max/2 or +d_max/2), extremes (both)")
	drift := fs.Float64("drift", cfg.Params.Drift, "ACTUAL rate error of drifting clocks (--clocks drift|extremes); default: the --drift-bound value")
	fs.IntVar(&cfg.MaxPending, "max-pending", cfg.MaxPending, "a state with more messages in flight is judged by the checker but not expanded (0: no bound; the TLA+ audit's MaxNetwork)")
	fs.DurationVar(&cfg.Horizon, "horizon", cfg.Horizon, "true time never advances past this (0: no bound)")
	fs.IntVar(&cfg.MaxDepth, "max-depth", 0, "explore at most this many transitions from the start (0: no bound)")
	fs.Int64Var(&cfg.MaxStates, "max-states", 20_000_000, "stop after this many distinct states (0: no bound; memory grows by about 2.3 KB per state, see the README)")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "goroutines expanding states (the result does not depend on it; --depth-first uses one)")
	fs.BoolVar(&cfg.DepthFirst, "depth-first", false, "search depth first, keeping only the path and each state's fingerprint (about 40 bytes a state): deeper than breadth first in the same memory; bound it with --max-depth; its counterexample is the first found, not a shortest one")
	out := fs.String("out", "", "write the counterexample (a scenario file for 'leaselab replay') to FILE")
	format := addFormatFlag(fs, "table", "json")
	quiet := addQuietFlag(fs)
	return func(c *ctx, args []string) error {
		if len(args) != 0 {
			return usagef("explore takes no arguments, got %q", args)
		}
		cfg.Params = protocol.Params
		if fs.Changed("drift") {
			cfg.ClockDrift = *drift
		} else {
			cfg.ClockDrift = cfg.Params.Drift
		}
		if cfg.Workers < 1 {
			return usagef("--workers must be at least 1, got %d", cfg.Workers)
		}
		cfg.InputKinds = nil
		for _, k := range *kinds {
			switch k {
			case "acquire":
				cfg.InputKinds = append(cfg.InputKinds, algorithms.Acquire)
			case "extend":
				cfg.InputKinds = append(cfg.InputKinds, algorithms.Extend)
			case "release":
				cfg.InputKinds = append(cfg.InputKinds, algorithms.Relinquish)
			default:
				return usagef("unknown input kind %q (valid: acquire, extend, release)", k)
			}
		}
		if len(cfg.InputKinds) == 0 {
			return usagef("--input-kinds needs at least one of acquire, extend, release")
		}
		var f *os.File
		if *out != "" {
			var err error
			if f, err = createOutput("out", *out); err != nil {
				return err
			}
			defer f.Close()
		}
		if !*quiet && isTerminal(c.stderr) {
			cfg.Progress = func(p explore.Progress) {
				fmt.Fprintf(c.stderr, "\rexplore: depth %d, %d states, frontier %d, %.0f states/s   ", p.Depth, p.States, p.Frontier, p.StatesPerSec)
			}
		}
		res, err := explore.Explore(cfg)
		if cfg.Progress != nil {
			fmt.Fprint(c.stderr, "\r"+strings.Repeat(" ", 78)+"\r")
		}
		if errors.Is(err, explore.ErrBadConfig) {
			return badInput(err)
		}
		if err != nil {
			return err
		}
		if res.Scenario != "" && f != nil {
			if _, err := f.WriteString(res.Scenario); err != nil {
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			res.Counterexample = *out
		}
		if *format == "json" {
			if err := writeJSON(c.stdout, res); err != nil {
				return err
			}
		} else {
			if err := writeExploreTable(c, res); err != nil {
				return err
			}
		}
		if res.Violations > 0 {
			return exitStatus(1)
		}
		return nil
	}
}

func writeExploreTable(c *ctx, r explore.Result) error {
	abl := strings.Join(r.Ablate, ",")
	if abl == "" {
		abl = "-"
	}
	ce := r.Counterexample
	if ce == "" && r.Scenario != "" {
		ce = "(not written: use --out FILE)"
	}
	if ce == "" {
		ce = "-"
	}
	rows := [][]string{
		{"algo", r.Algo},
		{"ablate", abl},
		{"cluster", fmt.Sprintf("%d acceptors, %d proposers", r.Acceptors, r.Proposers)},
		{"clocks", fmt.Sprintf("%s (%d initial states)", r.Clocks, r.InitStates)},
		{"states (distinct)", strconv.FormatInt(r.States, 10)},
		{"transitions", strconv.FormatInt(r.Transitions, 10)},
		{"constrained (beyond --max-pending)", strconv.FormatInt(r.Constrained, 10)},
		{"max depth", strconv.Itoa(r.MaxDepth)},
		{"exhausted", strconv.FormatBool(r.Exhausted)},
		{"states/s", fmt.Sprintf("%.0f (%d workers)", r.StatesPerSec, r.Workers)},
		{"states per CPU second", fmt.Sprintf("%.0f (%.0f ms CPU)", r.StatesPerCPUSec, r.CPUMS)},
		{"wall", fmt.Sprintf("%.0f ms", r.WallMS)},
		{"violations", strconv.Itoa(r.Violations)},
	}
	if r.First != nil {
		rows = append(rows,
			[]string{"counterexample depth", strconv.Itoa(r.CounterexampleDepth)},
			[]string{"first violation", fmt.Sprintf("r%d: %s (b=%s) and %s (b=%s) at %.3f ms", r.First.Resource, r.First.Owners[0], r.First.Ballots[0], r.First.Owners[1], r.First.Ballots[1], float64(r.First.AtNS)/1e6)})
	}
	rows = append(rows, []string{"counterexample", ce})
	return writeTable(c.stdout, []string{"explore", "value"}, rows)
}
