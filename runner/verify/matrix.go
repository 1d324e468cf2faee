package verify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/campaign"
	"leaselab/runner/explore"
	"leaselab/runner/faults"
)

// Kinds of configuration.
const (
	KindExplore = "explore"
	KindCheck   = "check"
)

// Entry is one configuration of the matrix: the flags of a `leaselab
// explore` or `leaselab check` command beyond --algo and --ablate (and
// beyond the caps the battery adds: --max-states or --seeds).
type Entry struct {
	ID   string   `json:"id"`
	Kind string   `json:"kind"`
	Args []string `json:"args"`
	// Why: what the configuration adds to the others (which bug class
	// needed it).
	Why string `json:"why"`
	// Weight is the entry's share of the budget, relative to the entries
	// after it (see Run).
	Weight float64 `json:"-"`
	// MaxStates (explore) and MaxSeeds (check) cap the entry whatever
	// time is left.
	MaxStates int64 `json:"-"`
	MaxSeeds  int   `json:"-"`
}

// Flags is the entry's flags as one command line fragment.
func (e Entry) Flags() string { return strings.Join(e.Args, " ") }

// x and c build entries from a flag string. A search without
// --max-pending gets --max-pending matrixPending.
func x(why, flags string) Entry {
	args := strings.Fields(flags)
	if !slices.Contains(args, "--max-pending") {
		args = append(args, "--max-pending", strconv.Itoa(matrixPending))
	}
	return Entry{Kind: KindExplore, Args: args, Why: why, Weight: 1, MaxStates: defaultMaxStates}
}

// matrixPending bounds the messages in flight of a search that sets no
// bound of its own: 4, the explorer's default when the matrix and
// ablations.md were made. The explorer's default is now
// explore.DefaultMaxPending of the cluster, 2 on one acceptor and two
// proposers, under which E22 searches its whole depth bound (458,173
// states) without PaxosLease's cross-life-ballots counterexample, which
// keeps a Propose and a Release of an earlier life in flight beside a
// round of the new one.
const matrixPending = 4

// d builds a depth-first search (explore --strategy dfs), with a weight:
// it reaches deep paths that no breadth-first frontier fits in memory,
// at the price of time.
func d(why, flags string, weight float64) Entry {
	e := x(why, "--strategy dfs "+flags)
	e.Weight = weight
	return e
}

// w builds a search by seeded random walks (explore --strategy random,
// no pending bound): TLC's simulation mode, for a cluster whose rounds
// are too deep for a breadth-first frontier and too wide for one
// depth-first corner.
func w(why, flags string) Entry {
	return x(why, "--strategy random --max-pending 0 "+flags)
}

func c(why, flags string) Entry {
	return Entry{Kind: KindCheck, Args: strings.Fields(flags), Why: why, Weight: campaignWeight, MaxSeeds: defaultMaxSeeds}
}

const (
	// defaultMaxStates caps one search; the memory cap (Config.MemoryCap)
	// usually ends a long search first.
	defaultMaxStates = 20_000_000
	// defaultMaxSeeds caps one campaign.
	defaultMaxSeeds = 20_000
	// campaignWeight: a campaign's share of the budget against a
	// search's. Campaigns need little memory, so they can use time that
	// searches, stopped by the memory cap, cannot; and in both passes
	// they found bugs the searches reach only deep (abandon-release).
	campaignWeight = 3
)

// baseMatrix is the battery, cheapest and most productive first. The
// explorer's defaults (explore.DefaultConfig) hold where a flag is not
// given: 3 acceptors, 2 proposers, one resource, 2 client inputs, one
// crash, at most 4 messages in flight, no duplicates, exact clocks,
// --response-timeout 10s (above the 7.014 s quarantine), --max-rounds 1,
// --backoff 0. A campaign's base is `leaselab check`'s (10 simulated
// minutes, 5 proposers, contention).
var baseMatrix = []Entry{
	x("one acceptor, a proposer-only node, four inputs, no bound on the network: a proposer's ballot reused after its record is deleted (reused-ballots); a late release of the owner's previous round (owner-only-release)",
		"--acceptors 1 --proposers 2 --crashes 0 --inputs 4 --max-pending 0"),
	x("one acceptor that crashes, acquire and release only, no bound on the network: a restarted acceptor's forgotten instance (previous-instance-check); a restarted node that answers at once (restart-wait)",
		"--acceptors 1 --proposers 2 --inputs 3 --input-kinds acquire,release --max-pending 0"),
	x("the explorer's default cluster: a restarted acceptor that answers at once (restart-wait)",
		""),
	x("three acceptors, a duplicated message: one vote counted twice (count-by-message)",
		"--dups 1"),
	x("one acceptor, clocks at the edges of their rate and offset bounds (drift-margin)",
		"--acceptors 1 --proposers 2 --inputs 3 --clocks extremes"),
	x("drifting clocks: a holder's clock slower than the acceptors' (drift-margin)",
		"--clocks drift"),
	x("skewed clocks, d_max apart (safety-period)",
		"--clocks skew"),
	x("three acceptors, up to 8 messages in flight: rounds whose Learn messages go to every node",
		"--max-pending 8"),
	x("three proposers on one acceptor, four inputs, no bound on the network: an abandoned round's Propose and Release outlive a restart (abandon-release)",
		"--acceptors 1 --proposers 3 --inputs 4 --max-pending 0"),
	x("a retry: a node's second round without a second input, its messages never bounded",
		"--acceptors 1 --proposers 2 --inputs 4 --max-rounds 2 --max-pending 0"),
	x("two acceptors and a proposer-only node, four inputs, no bound on the network",
		"--acceptors 2 --proposers 3 --inputs 4 --max-pending 0"),
	x("five client inputs on one acceptor", "--acceptors 1 --proposers 2 --inputs 5"),
	x("two resources", "--resources 2 --inputs 3"),
	x("two crashes", "--crashes 2 --inputs 3"),
	w("five acceptors, two crashes, random walks of up to 60 moves. A round to five acceptors keeps 7 messages in flight, more than the bound of 4 the breadth-first searches take, and its first lease is 8 moves deep: as a breadth-first search with that bound this configuration never reached a lease for PaxosLease, FaTLease or classic Paxos",
		"--acceptors 5 --proposers 2 --crashes 2 --max-depth 60"),
	x("a proposer-only node beside three acceptors", "--acceptors 3 --proposers 4 --inputs 3"),
	x("two acceptors, clocks at the edges", "--acceptors 2 --proposers 2 --inputs 3 --clocks extremes"),
	x("the hand-off rules that need a backoff (PaxosLease's guard, round-trip measurement, head start, split retry)", "--backoff 1ms --inputs 3"),
	x("the run's response timeout (1 s, below the quarantine): rounds that time out and retry", "--response-timeout 1s --max-rounds 3 --inputs 3"),
	x("one acceptor, a duplicated message", "--acceptors 1 --proposers 2 --inputs 3 --dups 1"),
	d("depth first to 16 moves on one acceptor, five inputs (extend too), no bound on the network: an extension request and a Release of a proposer's earlier life, delayed past its crash and silence, act on its new life's grant (naive's cross-life-ballots, 15 moves)",
		"--acceptors 1 --proposers 2 --inputs 5 --max-pending 0 --max-depth 16", 6),
	d("depth first to 18 moves and 13 s of true time (a round's timeout, a quarantine, a second to spare) on one acceptor, two crashes, a retry: a proposer's second round (its ballot above its next life's first) leaves a Propose and a Release in flight, the acceptor and the proposer crash and restart, and the stale pair replaces and clears the new life's lease (PaxosLease's cross-life-ballots, 18 moves, about 2.5 million states)",
		"--acceptors 1 --proposers 2 --crashes 2 --inputs 4 --input-kinds acquire,release --max-rounds 2 --max-depth 18 --horizon 13s", 20),
	x("a restart wait tight against the lease: M 4 µs above T, drifting clocks, one acceptor, 6 s of true time (a lease and a second): a restarted node's wait, measured by a fast clock, against a lease held on a slow one. With M at 7 s every wait of M or more outlasts any lease, so no other search tests a wait's drift factor (PaxosLease's quarantine M(1+ρ)(1-ρ), 4.999999 s, is found at depth 9)",
		"--acceptors 1 --proposers 2 --inputs 3 --clocks drift --max-lease 5.000004s --horizon 6s --max-pending 0"),
	x("liveness (--liveness): one acceptor, three inputs, no bound on the network: a state at rest (nothing in flight, no timer) with a client's acquire unanswered, such as the holder asked again that took no notice (naive, PaxosLease, fairq and central before the fix: 2 such states among 26 to 35)",
		"--acceptors 1 --proposers 2 --inputs 3 --max-pending 0 --liveness=true"),
	x("liveness on the explorer's default cluster, two inputs", "--inputs 2 --liveness=true"),
	x("liveness with a lost message and a retry: rounds that time out, retry and fail must still answer",
		"--acceptors 1 --proposers 2 --inputs 3 --drops 1 --max-rounds 2 --response-timeout 1s --max-pending 0 --liveness=true"),
	x("liveness with a process pause: a client's request kept through the pause must be answered after it, whatever came due meanwhile (FaTLease and classic Paxos dropped one that ran at their hold's end before the hold timer: 11,536 and 12,977 such states in 3 million)",
		"--acceptors 1 --proposers 2 --inputs 3 --pauses 1 --max-pending 0 --liveness=true"),
	x("liveness with a crash and two resources, acquire and release: a restarted node defers its clients' requests through its silence, and a release withdraws only its own resource's (naive's relinquish made to withdraw another resource's deferred acquisition, a mutant, left that acquire unanswered: 224 such states in 82,630; no search with one resource, or without a crash, reaches it)",
		"--acceptors 1 --proposers 2 --resources 2 --crashes 1 --inputs 3 --input-kinds acquire,release --max-pending 0 --liveness=true"),
	c("stale links, give-ups, extensions and crashes (abandon-release)", "--faults stale,giveup,extend,crash"),
	c("swarm: each seed draws its own fault kinds and intensities, cluster shape, network speed, late messages that outlive a crash; a holder writes to a fenced store, whose tokens are judged in every seed whose draws cause none of the algorithm's TokenBreaks (one harsh fault at a time, which the token campaign's fixed mix never has)",
		"--faults swarm --duration 1m --writes 50ms --store fenced"),
	c("every fault kind", "--faults all"),
	c("frequent short crashes", "--faults crash --crash-rate 20 --downtime 10ms"),
	c("clocks: slewed and free-running", "--faults drift,freeclock"),
	c("quick re-acquisition with duplicated and reordered messages; a holder writes to a fenced store every 2 ms, so tokens are judged across thousands of hand-offs a seed (no algorithm names a condition these faults cause)",
		"--faults dup,reorder --pause 1ms --hold 10ms --duration 60s --proposers 3 --writes 2ms --store fenced"),
	c("leases short against message delays", "--faults reorder --lease-span 100ms --max-lease 150ms --response-timeout 50ms --backoff 10ms --rtt 20ms --jitter 10ms --hold 30ms --pause 50ms --dmax 20ms --duration 60s"),
}

// lastMatrix are configurations added after the battery's others, so
// that every earlier ID stays.
var lastMatrix = []Entry{
	c("quick hand-off with extensions on the default network: eight clients, 1 ms holds, a 2 ms backoff, extensions (half of them within two round trips before the release) and duplicated messages; a holder writes to a fenced store every 250 µs. A client on an acceptor's host extends and releases while another client's ask, sent before the extension, is still in flight (central with its token read off the client's clock, runner/internal/planted, fails in its first seed; the other campaigns' holds of 10 ms and more almost never meet it)",
		"--faults dup,extend --proposers 8 --hold 1ms --pause 1ms --backoff 2ms --duration 10s --writes 250us --store fenced"),
}

// durableExtra are configurations for algorithms whose acceptors write to
// disk: an fsync that takes time, so a crash can fall inside one.
var durableExtra = []Entry{
	x("one acceptor whose fsync takes 1 ms: a crash inside it (fsync)",
		"--acceptors 1 --proposers 2 --inputs 3 --fsync-latency 1ms"),
	c("crashes inside slow fsyncs", "--faults crash --crash-rate 20 --downtime 10ms --fsync-latency 500ms"),
}

// Matrix is the battery for algo, with IDs assigned (E1.. for searches,
// C1.. for campaigns) in the order they run. Configurations the
// algorithm cannot run as written (central has exactly one acceptor) are
// adapted to it; adapted duplicates are dropped.
func Matrix(algo string) ([]Entry, error) {
	a, err := algorithms.Lookup(algo)
	if err != nil {
		return nil, err
	}
	es := slices.Clone(baseMatrix)
	// The token searches go after the last search of the base matrix,
	// so the searches before them keep their IDs.
	last := slices.IndexFunc(es, func(e Entry) bool { return e.Kind == KindCheck })
	es = slices.Insert(es, last, tokenSearches(a)...)
	es = append(es, tokenEntry(a))
	if e, ok := tokenSwarmEntry(a); ok {
		es = append(es, e)
	}
	if a.Durable {
		// Each extra goes before the first entry of its kind after the
		// cheap head of the battery, so it runs early.
		for _, d := range durableExtra {
			at := len(es)
			if d.Kind == KindExplore {
				at = 2
			} else {
				at = slices.IndexFunc(es, func(e Entry) bool { return e.Kind == KindCheck })
			}
			es = slices.Insert(es, at, d)
		}
	}
	// A campaign left without its fenced store (unfenced) comes back
	// fenced, without the kinds that cost it the store, after every other
	// entry of its part, so their IDs stay; lastMatrix's part comes after.
	var all []Entry
	for _, part := range [][]Entry{es, lastMatrix} {
		var fencedLast []Entry
		for _, e := range part {
			var fenced, dropped []string
			var ok bool
			e.Args, fenced, dropped, ok = unfenced(a, adapt(algo, e))
			all = append(all, e)
			if ok {
				v := e
				v.Args = fenced
				v.Why = e.Why + "; here without " + strings.Join(dropped, ", ") + ", which cause a condition the algorithm names, so its fenced store judges every seed"
				fencedLast = append(fencedLast, v)
			}
		}
		all = append(all, fencedLast...)
	}
	var out []Entry
	seen := map[string]bool{}
	nx, nc := 0, 0
	for _, e := range all {
		key := e.Kind + " " + e.Flags()
		if seen[key] {
			continue
		}
		seen[key] = true
		if e.Kind == KindExplore {
			nx++
			e.ID = "E" + strconv.Itoa(nx)
		} else {
			nc++
			e.ID = "C" + strconv.Itoa(nc)
		}
		out = append(out, e)
	}
	return out, nil
}

// tokenEntry is the campaign that judges a's fencing tokens: a holder
// writes to a fenced store every 50 ms under each fault kind under which
// a claims its tokens grow (faults.TokenKinds of its TokenBreaks; pauses
// included, clock jumps never), so a rejected write of a current lease or
// an accepted stale one fails the battery (campaign.TokensJudged).
func tokenEntry(a algorithms.Algorithm) Entry {
	kinds := faults.TokenKinds(a.TokenBreaks)
	why := "fencing tokens: a fenced store under every fault kind under which the algorithm says a later holder's token is higher (" +
		a.Name + " names " + a.TokenBreaks.String() + "; algorithms.Algorithm.TokenBreaks); a write of a current lease rejected, or a stale one accepted, fails"
	return c(why, "--faults "+strings.Join(kinds, ",")+" --writes 50ms --store fenced")
}

// unfenced drops the fenced store from a fixed-mix campaign whose kinds
// cause a condition a names (the quick re-acquisition campaign's
// reordering, for the algorithms whose tokens are read off when a round
// began): there it would judge no seed, and a fenced campaign that
// judges none is vacuous. The campaign still runs, for the lease
// invariant and liveness. fenced is the same campaign without those
// kinds, its store kept, so its tokens are judged in every seed (the
// naive votes' quick re-acquisition with duplicates alone), and ok false
// when no kind would be left; dropped names the kinds left out. args
// comes back as it is when nothing is dropped.
func unfenced(a algorithms.Algorithm, args []string) (out, fenced, dropped []string, ok bool) {
	kv, err := pairs(args)
	if err != nil {
		return args, nil, nil, false
	}
	store, swarm := false, false
	var keep []string
	for _, p := range kv {
		switch p[0] {
		case "store":
			store = p[1] == "fenced"
		case "faults":
			for _, k := range strings.Split(p[1], ",") {
				if k == campaign.Swarm || k == "all" {
					swarm = true
				}
				if fk, err := faults.LookupKind(k); err == nil && fk.Causes&a.TokenBreaks != 0 {
					dropped = append(dropped, k)
					continue
				}
				keep = append(keep, k)
			}
		}
	}
	if !store || swarm || len(dropped) == 0 {
		return args, nil, nil, false
	}
	out = dropFlags(args, "--writes", "--store")
	if len(keep) == 0 {
		return out, nil, dropped, false
	}
	return out, setFlags(args, "--faults", strings.Join(keep, ",")), dropped, true
}

// tokenSwarmEntry is the swarm that judges a's fencing tokens in every
// seed: its seeds draw as the swarm campaign's do, among the swarm kinds
// that cause none of a's TokenBreaks (faults.TokenSwarmKinds), so one
// harsh fault at a time, which the token campaign's fixed mix never has,
// is judged in every seed rather than in the few whose draws allow it
// (a thirtieth of the naive votes' and fairq's). None for an
// algorithm that names no condition: its swarm campaign judges every
// seed already.
func tokenSwarmEntry(a algorithms.Algorithm) (Entry, bool) {
	if a.TokenBreaks == 0 {
		return Entry{}, false
	}
	kinds := faults.TokenSwarmKinds(a.TokenBreaks)
	why := "fencing tokens under the swarm's draws: each seed draws its own kinds and intensities among the swarm kinds under which the algorithm says a later holder's token is higher (" +
		strings.Join(kinds, ", ") + "), one harsh fault at a time too, and every seed's tokens are judged"
	return c(why, "--faults swarm,"+strings.Join(kinds, ",")+" --duration 1m --writes 50ms --store fenced"), true
}

// tokenSearchMatrix are searches that judge fencing tokens (explore
// --tokens): at the end of every transition a lease with a new token
// writes to a fenced store, and a token not above an earlier holder's
// fails. A search can always delay a message and leave a lease to lapse,
// so only an algorithm that names none of late, delay and lapse can be
// judged; crashes and clocks that disagree add restart and clocks
// (explore.Config.TokenCauses). tokenSearches keeps those the algorithm
// can be judged in.
var tokenSearchMatrix = []Entry{
	x("fencing tokens (--tokens): one acceptor, two proposers, four inputs, no crash, no bound on the network: every order of acquisitions, extensions and releases, each new token written to a fenced store (a planted PaxosLease that gives a lease its node's previous token is found at depth 9)",
		"--acceptors 1 --proposers 2 --crashes 0 --inputs 4 --max-pending 0 --tokens=true"),
	x("fencing tokens: three proposers on one acceptor, no crash: rounds that overtake each other's ballots",
		"--acceptors 1 --proposers 3 --crashes 0 --inputs 4 --max-pending 0 --tokens=true"),
	x("fencing tokens: three acceptors, no crash: a token chosen by a majority that saw another round's promise",
		"--crashes 0 --inputs 3 --tokens=true"),
	x("fencing tokens with a process pause and a duplicated message, one acceptor, no crash",
		"--acceptors 1 --proposers 2 --crashes 0 --inputs 3 --pauses 1 --dups 1 --max-pending 0 --tokens=true"),
	d("fencing tokens depth first to 16 moves, one acceptor, five inputs, no crash, no bound on the network",
		"--acceptors 1 --proposers 2 --crashes 0 --inputs 5 --max-pending 0 --max-depth 16 --tokens=true", 3),
	x("fencing tokens with a crash, one acceptor (an algorithm whose tokens survive restarts: its acceptors keep what they promised)",
		"--acceptors 1 --proposers 2 --inputs 3 --max-pending 0 --tokens=true"),
	x("fencing tokens with clocks at the edges of their bounds, one acceptor (an algorithm whose tokens do not read clocks)",
		"--acceptors 1 --proposers 2 --crashes 0 --inputs 3 --clocks extremes --tokens=true"),
	// --sync: for an algorithm that names late messages or lapses, whose
	// tokens the searches above cannot judge (fairq).
	x("fencing tokens in lockstep (--sync: time passes only with nothing in flight and no lease ending, so no message is late and no lease lapses), one acceptor, three proposers, six inputs, no crash",
		"--acceptors 1 --proposers 3 --crashes 0 --inputs 6 --max-pending 0 --sync=true --tokens=true"),
	x("fencing tokens in lockstep with a duplicated message, one acceptor, six inputs, no crash",
		"--acceptors 1 --proposers 2 --crashes 0 --inputs 6 --dups 1 --max-pending 0 --sync=true --tokens=true"),
	x("fencing tokens in lockstep on three acceptors, five inputs, no crash: an acceptor that missed a grant numbers below it unless proposers relay the highest number they saw (fairq with the relay inverted, a mutant of proposer.go, is found at depth 12 after 72,280 states; fairq exhausts 4,729,795)",
		"--acceptors 3 --proposers 2 --crashes 0 --inputs 5 --sync=true --tokens=true"),
}

// tokenSearches are the searches of tokenSearchMatrix a's tokens can be
// judged in. A lockstep search (--sync) searches a part of what the same
// search without it does, so it runs only where that one could not judge
// a's tokens.
func tokenSearches(a algorithms.Algorithm) []Entry {
	var out []Entry
	for _, e := range tokenSearchMatrix {
		cf := explore.DefaultConfig()
		if err := applyExplore(&cf, e.Args); err != nil {
			panic(fmt.Sprintf("verify: token search %q: %v", e.Flags(), err))
		}
		if cf.TokenCauses()&a.TokenBreaks != 0 {
			continue
		}
		free := cf
		free.Sync = false
		if cf.Sync && free.TokenCauses()&a.TokenBreaks == 0 {
			continue
		}
		out = append(out, e)
	}
	return out
}

// adapt rewrites an entry's flags for an algorithm with a fixed number of
// acceptors (central: one lease server).
func adapt(algo string, e Entry) []string {
	a, _ := algorithms.Lookup(algo)
	cf := explore.DefaultConfig()
	cf.Algo = algo
	if e.Kind == KindExplore {
		if err := applyExplore(&cf, e.Args); err != nil {
			return e.Args
		}
		if a.ValidateConfig(cf.Params, algorithms.NewCluster(cf.Acceptors, cf.Proposers), nil) == nil {
			return e.Args
		}
		// One acceptor, the proposers as given (at least two).
		args := setFlags(e.Args, "--acceptors", "1", "--proposers", strconv.Itoa(max(cf.Proposers, 2)))
		if cf.Strategy == "random" {
			// Random walks are for clusters too big to search whole; one
			// acceptor's space is searched breadth first, to its end.
			args = setFlags(dropFlags(args, "--strategy", "--max-depth"), "--max-pending", strconv.Itoa(matrixPending))
		}
		return args
	}
	s := checkBase(algo)
	if err := applyCheck(&s, e.Args); err != nil || s.Validate() == nil {
		return e.Args
	}
	// Adapted only where one acceptor is what the algorithm lacks.
	one := setFlags(e.Args, "--acceptors", "1")
	s = checkBase(algo)
	if err := applyCheck(&s, one); err == nil && s.Validate() == nil {
		return one
	}
	return e.Args
}

// setFlags sets flag/value pairs in args, replacing a flag's value where
// it is given and appending it otherwise.
func setFlags(args []string, kv ...string) []string {
	out := slices.Clone(args)
	for i := 0; i+1 < len(kv); i += 2 {
		if j := slices.Index(out, kv[i]); j >= 0 && j+1 < len(out) {
			out[j+1] = kv[i+1]
		} else {
			out = append(out, kv[i], kv[i+1])
		}
	}
	return out
}

// dropFlags removes the named flags and their values from args.
func dropFlags(args []string, names ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if slices.Contains(names, args[i]) && i+1 < len(args) {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// pairs splits "--name value" arguments.
func pairs(args []string) ([][2]string, error) {
	var kv [][2]string
	for i := 0; i < len(args); i++ {
		name, ok := strings.CutPrefix(args[i], "--")
		if !ok {
			return nil, fmt.Errorf("expected a --flag, got %q", args[i])
		}
		if n, v, ok := strings.Cut(name, "="); ok {
			// --name=value: how a bool flag (--liveness=true) is
			// written, so that the entry is also a valid command line.
			kv = append(kv, [2]string{n, v})
			continue
		}
		if i+1 >= len(args) {
			return nil, fmt.Errorf("flag --%s has no value", name)
		}
		kv = append(kv, [2]string{name, args[i+1]})
		i++
	}
	return kv, nil
}

// applyExplore sets the flags of a `leaselab explore` command (its
// names and meanings) in cf.
func applyExplore(cf *explore.Config, args []string) error {
	kv, err := pairs(args)
	if err != nil {
		return err
	}
	spec := runner.Spec{Params: cf.Params}
	driftSet := false
	for _, p := range kv {
		name, v := p[0], p[1]
		var err error
		atoi := func(dst *int) { *dst, err = strconv.Atoi(v) }
		switch name {
		case "acceptors":
			atoi(&cf.Acceptors)
		case "proposers":
			atoi(&cf.Proposers)
		case "resources":
			atoi(&cf.Resources)
		case "inputs":
			atoi(&cf.Inputs)
		case "crashes":
			atoi(&cf.Crashes)
		case "drops":
			atoi(&cf.Drops)
		case "dups":
			atoi(&cf.Dups)
		case "pauses":
			atoi(&cf.Pauses)
		case "slews":
			atoi(&cf.Slews)
		case "max-pending":
			atoi(&cf.MaxPending)
		case "max-depth":
			atoi(&cf.MaxDepth)
		case "max-states":
			cf.MaxStates, err = strconv.ParseInt(v, 10, 64)
		case "seed":
			cf.Seed, err = strconv.ParseUint(v, 10, 64)
		case "clocks":
			cf.Clocks = v
		case "strategy":
			cf.Strategy = v
		case "liveness":
			cf.Liveness, err = strconv.ParseBool(v)
		case "tokens":
			cf.Tokens, err = strconv.ParseBool(v)
		case "sync":
			cf.Sync, err = strconv.ParseBool(v)
		case "drift":
			cf.ClockDrift, err = strconv.ParseFloat(v, 64)
			driftSet = true
		case "fsync-latency":
			cf.FsyncLatency, err = time.ParseDuration(v)
		case "horizon":
			cf.Horizon, err = time.ParseDuration(v)
		case "input-kinds":
			cf.InputKinds = nil
			for _, k := range strings.Split(v, ",") {
				switch k {
				case "acquire":
					cf.InputKinds = append(cf.InputKinds, algorithms.Acquire)
				case "extend":
					cf.InputKinds = append(cf.InputKinds, algorithms.Extend)
				case "release":
					cf.InputKinds = append(cf.InputKinds, algorithms.Relinquish)
				default:
					err = fmt.Errorf("unknown input kind %q", k)
				}
			}
		default:
			err = runner.SetParams(&spec, "explore", runner.ParamsOf(runner.GroupProtocol), [][2]string{p})
		}
		if err != nil {
			return fmt.Errorf("--%s %s: %w", name, v, err)
		}
	}
	cf.Params = spec.Params
	if !driftSet {
		cf.ClockDrift = cf.Params.Drift
	}
	return nil
}

// checkBase is the base spec of `leaselab check` for algo: ten simulated
// minutes of contention among five proposers (cmd/leaselab/check.go).
func checkBase(algo string) runner.Spec {
	s := runner.DefaultSpec()
	s.Algo = algo
	s.Duration = 10 * time.Minute
	s.Proposers = 5
	return s
}

// checkRates are the rate flags a campaign draws per seed unless given
// (cmd/leaselab/check.go).
var checkRates = []string{"loss", "dup", "reorder", "partitions", "crash-rate", "drift", "skew", "stale", "giveup", "extend", "resources"}

// applyCheck sets the flags of a `leaselab check` command in s; --faults
// is left out (see checkSpec).
func applyCheck(s *runner.Spec, args []string) error {
	kv, err := pairs(args)
	if err != nil {
		return err
	}
	var rest [][2]string
	for _, p := range kv {
		if p[0] != "faults" {
			rest = append(rest, p)
		}
	}
	return runner.SetParams(s, "check", runner.Params(), rest)
}

// checkSpec is the campaign an entry's flags describe, as `leaselab
// check` would run it with --seeds seeds --first-seed first.
func checkSpec(algo string, ablate algorithms.Ablations, args []string, seeds int, first uint64) (campaign.CheckSpec, error) {
	s := checkBase(algo)
	s.Ablate = ablate
	if err := applyCheck(&s, args); err != nil {
		return campaign.CheckSpec{}, err
	}
	kv, _ := pairs(args)
	given := func(name string) bool {
		return slices.ContainsFunc(kv, func(p [2]string) bool { return p[0] == name })
	}
	faults := []string{"all"}
	for _, p := range kv {
		if p[0] == "faults" {
			faults = strings.Split(p[1], ",")
		}
	}
	vary := campaign.Vary{
		Workload:     !given("hold") && !given("pause") && !given("release"),
		Downtime:     !given("downtime"),
		PartitionLen: !given("partition-len"),
		Settle:       !given("settle"),
	}
	for _, r := range checkRates {
		if given(r) {
			vary.Fixed = append(vary.Fixed, r)
		}
	}
	s.Seed = first
	return campaign.CheckSpec{Base: s, Faults: faults, Seeds: seeds, FirstSeed: first, Vary: vary, StopAtFirst: true}, nil
}
