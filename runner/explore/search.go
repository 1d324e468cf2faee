package explore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
	"leaselab/runner/host"
)

// Config is what to explore and how far.
type Config struct {
	Algo      string
	Ablate    algorithms.Ablations
	Acceptors int
	Proposers int
	Resources int // resources r0..r{Resources-1} the clients ask for
	Params    algorithms.Params
	Seed      uint64 // seeds the nodes' Config.Rand, as in a scenario
	// FsyncLatency: every fsync takes exactly this long (Durable
	// algorithms; the scenario's "disk fsync-latency=D").
	FsyncLatency time.Duration

	// Budgets along one path.
	Inputs  int // client inputs (acquire, extend, release) in all
	Crashes int // crashes (each crashed node may restart at any later point)
	Drops   int // messages lost
	Dups    int // messages duplicated
	// Slews: clock rate changes along one path (each a node's rate error
	// becoming another of the rate levels, its reading continuous).
	Slews int
	// Pauses: process pauses along one path (the fault-kind table's
	// "pause" budget; pause.go): a node that is running pauses for one of
	// the lengths that matter (pauseLengths).
	Pauses int
	// InputKinds: which client inputs are offered (default all three).
	InputKinds []algorithms.InputKind
	// Liveness: also judge that every Acquire is answered: a state at
	// rest (every node up and running, nothing in flight, no timer
	// pending) with a client request unanswered is a liveness failure
	// (liveness.go). The requests become part of the state, and the
	// reductions ignored-delivery and no-delivery-to-down-node are off,
	// so the same bounds give more states.
	Liveness bool
	// Tokens: also judge fencing tokens (tokens.go): at the end of every
	// transition each lease whose token is new writes to a fenced store,
	// and a token below the highest written to its resource before, or
	// equal to one another node wrote, is a token failure, which stops
	// the search as a violation does.
	// The highest token per resource becomes state. Only where the
	// search brings about none of the algorithm's TokenBreaks
	// (TokenCauses).
	Tokens bool
	// Sync: true time passes (to the next deadline, or by TimeStep) only
	// when no message to a live node is in flight and no hold would end
	// by then: every message is delivered (or dropped) before a timer
	// fires, and a holder releases before its lease ends. Messages still
	// arrive in any order within an instant. A search of fewer
	// interleavings, for one purpose: it brings about no late message
	// and, without drops, pauses or crashes, no lapse, so the tokens of
	// an algorithm that names those (fairq) can be judged
	// (TokenCauses). Not with Liveness (a holder that never releases
	// would stop time) or From.
	Sync bool

	// Clocks: "exact" (every clock reads true time), "drift" (each node's
	// rate error is one of the rate levels in [-ClockDrift, +ClockDrift]),
	// "skew" (each node's offset is one of the offset levels in
	// [-DMax/2, +DMax/2]), or "extremes" (both).
	Clocks     string
	ClockDrift float64
	// ClockLevels: how many evenly spaced values a clock's offset and rate
	// error take between their extremes (0 or 2: the extremes only; 3 adds
	// the middle, ...).
	ClockLevels int
	// TimeStep: besides advancing to the next timer deadline, true time
	// may pass by TimeStep at a time while that stays short of the next
	// deadline, so deliveries and inputs also happen between deadlines (0:
	// at deadlines only).
	TimeStep time.Duration

	// MaxPending bounds the messages in flight: a state with more is
	// judged by the checker but not expanded (0: no bound; AutoPending:
	// DefaultMaxPending of the cluster, or no bound for random walks),
	// like the network bound of the TLA+ audit's configurations.
	MaxPending int
	// Horizon bounds true time: time never advances past it (0: no bound).
	Horizon time.Duration

	// Strategy: "bfs" (breadth first; "" too), "dfs" (depth first) or
	// "random" (seeded random walks).
	Strategy string
	// MaxDepth: bfs and dfs: transitions from the initial state (0: no
	// bound); random: the length of every walk (0: DefaultWalkDepth).
	MaxDepth  int
	MaxStates int64 // distinct states (0: no bound)
	// Walks (random): how many walks (0: until MaxStates, the memory cap
	// or the context stops the search).
	Walks int
	// MaxMemory: bytes of memory (resident) the process may use; the
	// search stops cleanly before it would use more (0:
	// DefaultMaxMemory(); negative: no cap).
	MaxMemory int64
	// Checkpoint (bfs): a directory. If it holds a stopped search of this
	// configuration, the search resumes it; a search that stops before
	// it is done (interrupted, max-memory, max-states, max-depth) is saved
	// there.
	Checkpoint string
	// From: a scenario (its text) whose end the search starts from: its
	// setup lines replace Algo, Acceptors, Proposers, Params, Ablate, Seed,
	// FsyncLatency and the clocks; its commands are the path's prefix.
	// FromName names it in messages.
	From     string
	FromName string

	Workers int // 0: runtime.NumCPU()

	// Progress, if set, is called after every breadth-first level and
	// every few seconds within a long one (and every few seconds by the
	// other strategies).
	Progress func(Progress)
}

// ClockModes are the values of Config.Clocks.
var ClockModes = []string{"exact", "drift", "skew", "extremes"}

// Strategies are the values of Config.Strategy.
var Strategies = []string{"bfs", "dfs", "random"}

// AutoPending as Config.MaxPending asks for DefaultMaxPending.
const AutoPending = -1

// DefaultWalkDepth is the length of a random walk unless MaxDepth says.
const DefaultWalkDepth = 500

// DefaultMaxPending is the default bound on messages in flight: enough
// for a round of two phases to every acceptor, max(2A - (A/2+1), P) for A
// acceptors and P proposers. A phase to every acceptor keeps A messages in
// flight (each request delivered turns into its answer); when the
// majority-th answer of the first phase arrives the second phase's A
// requests leave while the first phase's A - (A/2+1) other answers are
// still in flight. With a single acceptor it is the proposers' requests
// at once. (3 acceptors: 4; 5 acceptors: 7.)
func DefaultMaxPending(acceptors, proposers int) int {
	return max(roundPending(acceptors), proposers)
}

// roundPending is what a two-phase round to every acceptor keeps in
// flight at most, choosing the order of deliveries.
func roundPending(acceptors int) int { return 2*acceptors - (acceptors/2 + 1) }

// DefaultConfig is the explorer's default: 3 acceptors, 2 proposers, one
// resource, two client inputs, one crash, no drops (a message never
// delivered is a lost one, so drops add no reachable violation, only
// states, where no pending bound applies), no duplicates, exact
// clocks, the pending bound scaled with the cluster, and protocol
// parameters under which a round is never abandoned while a restarted
// node waits out M (timeout above M) and a retry never waits a random
// time (Backoff 0).
func DefaultConfig() Config {
	p := algorithms.DefaultParams()
	p.ResponseTimeout = 10 * time.Second
	p.MaxRounds = 1
	p.Backoff = 0
	return Config{
		Algo: "paxoslease", Acceptors: 3, Proposers: 2, Resources: 1,
		Params: p, Seed: 1,
		Inputs: 2, Crashes: 1, Drops: 0, Dups: 0, MaxPending: AutoPending,
		Clocks: "exact", ClockDrift: p.Drift,
	}
}

// FaultBudgets maps every fault kind's explorer budget (the fault-kind
// table's faults.Kind.Budget: crashes, drops, dups, pauses) to its field
// of c: the command's flags are made from the table through it, and a
// test checks that the two name the same budgets.
func (c *Config) FaultBudgets() map[string]*int {
	return map[string]*int{"crashes": &c.Crashes, "drops": &c.Drops, "dups": &c.Dups, "pauses": &c.Pauses}
}

// Progress is reported as the search goes.
type Progress struct {
	Depth        int
	States       int64
	Frontier     int
	StatesPerSec float64
	// Memory: resident bytes at the last check.
	Memory int64
	// Walks done (random).
	Walks int64
}

// Violation is the first violating state found.
type Violation struct {
	Resource algorithms.ResourceID `json:"resource"`
	Owners   [2]algorithms.NodeID  `json:"owners"`
	Ballots  [2]string             `json:"ballots"`
	AtNS     int64                 `json:"at_ns"`
}

// Stop reasons (Result.Stopped).
const (
	StopExhausted   = "exhausted"   // every state within the bounds was expanded
	StopMaxStates   = "max-states"  // MaxStates distinct states were found
	StopMaxDepth    = "max-depth"   // states at MaxDepth were left unexpanded
	StopMaxMemory   = "max-memory"  // the memory cap would have been passed
	StopInterrupted = "interrupted" // the context was cancelled (SIGINT)
	StopViolation   = "violation"   // a violating state was found
	StopTokens      = "tokens"      // a token failure was found, and no violation (Tokens)
	StopWalks       = "walks"       // random: every walk asked for was taken
)

// Bounds are the limits a verdict holds within.
type Bounds struct {
	Inputs  int `json:"inputs"`
	Crashes int `json:"crashes"`
	Drops   int `json:"drops"`
	Dups    int `json:"dups"`
	Slews   int `json:"slews"`
	Pauses  int `json:"pauses"`
	// MaxPending: 0 means no bound; MaxPendingFrom says where it came
	// from (the default's formula, or "set").
	MaxPending     int    `json:"max_pending"`
	MaxPendingFrom string `json:"max_pending_from"`
	HorizonNS      int64  `json:"horizon_ns"`
	// SkewLimitNS: for an algorithm that assumes clocks within d_max,
	// drifting clocks are not let past this distance (d_max plus the
	// holder's drift margin; 0: no limit); see config.reachable.
	SkewLimitNS int64 `json:"skew_limit_ns"`
	MaxDepth    int   `json:"max_depth"`
	MaxStates   int64 `json:"max_states"`
	// Reductions applied (package doc): "ignored-input", and without a
	// pending bound "ignored-delivery" and "no-delivery-to-down-node".
	Reductions []string `json:"reductions"`
}

// TimeModel says which timings a verdict covers.
type TimeModel struct {
	// Instants: "deadlines" (time moves only to the next timer deadline)
	// or "deadlines+step" (also by TimeStepNS short of it).
	Instants   string `json:"instants"`
	TimeStepNS int64  `json:"time_step_ns"`
	// Clocks, levels and slews as configured; DriftPPB and SkewNS are the
	// extremes of rate error and offset.
	Clocks      string `json:"clocks"`
	ClockLevels int    `json:"clock_levels"`
	Slews       int    `json:"slews"`
	DriftPPB    int64  `json:"drift_ppb"`
	SkewNS      int64  `json:"skew_ns"`
	// Covers, in words.
	Covers string `json:"covers"`
}

// Result is what a search found.
type Result struct {
	Algo        string   `json:"algo"`
	Ablate      []string `json:"ablate"`
	Acceptors   int      `json:"acceptors"`
	Proposers   int      `json:"proposers"`
	Strategy    string   `json:"strategy"`
	Clocks      string   `json:"clocks"`
	InitStates  int      `json:"initial_states"`
	States      int64    `json:"states"`
	Transitions int64    `json:"transitions"`
	// HeldStates: the distinct states searched in which some node holds
	// a lease (the checker's view). 0 means no path searched reached a
	// lease, so "no violation" says nothing about the algorithm (a node
	// that drops every message is safe): verify fails such a
	// configuration.
	HeldStates int64 `json:"held_states"`
	// Holders: how many nodes were seen holding a lease in those states.
	// Two holders at once need two of them: with fewer, the search never
	// saw the lease pass from one node to another.
	Holders int `json:"holders"`
	// MaxDepth is the deepest level searched (transitions from an initial
	// state); for random walks, the longest walk.
	MaxDepth int `json:"max_depth"`
	// Stopped says why the search ended: exhausted, max-states,
	// max-depth, max-memory, interrupted, violation (or, random, walks).
	Stopped string `json:"stopped"`
	// Exhausted: every state within the bounds was searched (Stopped is
	// exhausted).
	Exhausted    bool    `json:"exhausted"`
	StatesPerSec float64 `json:"states_per_sec"`
	// StatesPerCPUSec is states per second of CPU time the process used
	// (all workers together): the per-core rate, whatever else runs on
	// the machine.
	StatesPerCPUSec float64 `json:"states_per_cpu_sec"`
	WallMS          float64 `json:"wall_ms"`
	CPUMS           float64 `json:"cpu_ms"`
	Workers         int     `json:"workers"`
	// PeakMemory is the largest resident size the search saw at its
	// checks; MaxMemory the cap (0: none); VisitedBytes what the visited
	// set's tables hold at the end.
	PeakMemory   int64 `json:"peak_memory_bytes"`
	MaxMemory    int64 `json:"max_memory_bytes"`
	VisitedBytes int64 `json:"visited_bytes"`
	// Walks taken (random).
	Walks int64 `json:"walks"`
	// Resumed: the search went on from a checkpoint.
	Resumed bool `json:"resumed"`
	// Checkpoint: the directory the stopped search was saved to.
	Checkpoint string `json:"checkpoint"`
	// Constrained: states beyond --max-pending, judged but not expanded.
	Constrained int64     `json:"constrained"`
	Bounds      Bounds    `json:"bounds"`
	TimeModel   TimeModel `json:"time_model"`
	// Warnings about the bounds (a round that cannot complete, ...).
	Warnings []string `json:"warnings"`
	// Violations is the number of distinct violating states at the depth
	// of the first one (the search stops after that level; dfs and random
	// stop at the first).
	Violations int `json:"violations"`
	// Tokens: the search judged fencing tokens (Config.Tokens).
	// TokenFailures is the number of distinct states at the depth of the
	// first one in which a lease's token was below the highest written
	// to its resource before, or equal to another node's, and no
	// violation (a violation takes precedence: the counterexample is then
	// the violation's); FirstToken describes the first, whose
	// counterexample replays to a rejected write of a current lease or a
	// token two holders share.
	Tokens        bool          `json:"tokens"`
	TokenFailures int           `json:"token_failures"`
	FirstToken    *TokenFailure `json:"first_token_failure"`
	// Sync: the search passed time in lockstep (Config.Sync).
	Sync bool `json:"sync"`
	// Depth of the counterexample (its number of transitions), 0 if none.
	CounterexampleDepth int `json:"counterexample_depth"`
	// Counterexample is the file the scenario was written to (set by the
	// caller), "" if none.
	Counterexample string     `json:"counterexample"`
	First          *Violation `json:"first_violation"`
	// Scenario is the counterexample as a scenario file, "" if none.
	Scenario string `json:"-"`
	// DoubleBelief (with --pauses): distinct states searched in which two
	// nodes believe they hold one resource, a paused node that held it
	// when it paused included (the double-belief meter's situation; with
	// no paused node it is a violation). BeliefDepth is the depth of the
	// first found and BeliefScenario the path to it as a scenario file
	// (bfs and dfs), which replays to double_belief_ms > 0.
	DoubleBelief   int64  `json:"double_belief_states"`
	BeliefDepth    int    `json:"double_belief_depth"`
	BeliefScenario string `json:"-"`
	// Liveness: the search judged liveness (Config.Liveness). RestStates
	// counts the distinct states searched that are at rest, where the
	// judgement is made; ProbedStates those from which the settle probe
	// ran a synchronous network (liveness.go; random walks: the walks
	// probed, one probe a walk): 0 for both means it judged nothing. Unanswered
	// counts the liveness failures: the states at rest with a client
	// request unanswered, the probes that left one, and the transitions
	// in which a node that held a lease did not answer an Acquire of it
	// at once (LateAnswers of them; liveness.go, "Late answers");
	// UnansweredDepth is the depth of the first found and
	// UnansweredScenario the path to it as a scenario file (the probe's
	// moves included), on which leaselab replay exits 1. The witness is a
	// state at rest if the search found one, else a probe's, else a late
	// answer's. HolderAsks counts the transitions judged for a late
	// answer (a client's Acquire run at a node holding the lease): 0
	// means that judgement judged nothing.
	Liveness           bool   `json:"liveness"`
	RestStates         int64  `json:"rest_states"`
	ProbedStates       int64  `json:"probed_states"`
	Unanswered         int64  `json:"unanswered_states"`
	LateAnswers        int64  `json:"late_answers"`
	HolderAsks         int64  `json:"holder_asks"`
	UnansweredDepth    int    `json:"unanswered_depth"`
	UnansweredScenario string `json:"-"`
}

// config is a validated Config.
type config struct {
	Config
	algo    algorithms.Algorithm
	cluster algorithms.Cluster
	inputs  []algorithms.InputKind
	roots   [][]faults.Clock
	rates   []int64 // the rate levels (ppb) a slew may choose
	absTime bool    // clocks drift: true time is part of the state
	// skewLimit: for an algorithm whose safety assumes clocks within
	// d_max (Algorithm.SkewBound), the largest distance two running clocks
	// may reach, d_max plus the holder's drift margin; time does not
	// advance past it (0: no limit).
	skewLimit int64
	// prune: the reductions that a pending bound would contradict apply
	// (no bound).
	prune      bool
	pendingSrc string
	from       *prefix
	setup      host.Setup // what every life of every node is built from
	warnings   []string
	maxMemory  int64
}

// ErrBadConfig marks a Config that cannot be explored (bad input).
var ErrBadConfig = errors.New("bad explore configuration")

// badConfig is an error that is ErrBadConfig without saying so in its
// message.
type badConfig struct{ msg string }

func (e badConfig) Error() string        { return e.msg }
func (e badConfig) Is(target error) bool { return target == ErrBadConfig }

func badf(format string, a ...any) error {
	return badConfig{msg: fmt.Sprintf(format, a...)}
}

func prepare(c Config) (*config, error) {
	cf, err := prepareAny(c)
	if err != nil {
		return nil, err
	}
	probe, err := cf.algo.New(algorithms.Config{ID: 0, Cluster: cf.cluster, Params: cf.Params, Ablations: cf.Ablate, Rand: rand.New(faults.NodeSource(cf.Seed, 0, 0))})
	if err != nil {
		return nil, badf("%v", err)
	}
	if _, ok := probe.(algorithms.Explorable); !ok {
		return nil, badf("algorithm %s cannot be explored: its nodes (%T) do not implement algorithms.Explorable", cf.Algo, probe)
	}
	return cf, nil
}

// prepareAny validates c without asking for Explorable nodes.
func prepareAny(c Config) (*config, error) {
	var pre *prefix
	if c.From != "" {
		var err error
		if pre, err = parsePrefix(&c); err != nil {
			return nil, err
		}
	}
	algo, err := algorithms.Lookup(c.Algo)
	if err != nil {
		return nil, badf("%v", err)
	}
	cl := algorithms.NewCluster(c.Acceptors, c.Proposers)
	if err := algo.ValidateConfig(c.Params, cl, c.Ablate); err != nil {
		return nil, badf("%v", err)
	}
	switch {
	case cl.Nodes > 16:
		return nil, badf("at most 16 nodes, got %d", cl.Nodes)
	case c.Resources < 1 || c.Resources > 16:
		return nil, badf("resources must be in [1, 16], got %d", c.Resources)
	case c.Inputs < 0 || c.Crashes < 0 || c.Drops < 0 || c.Dups < 0 || c.Slews < 0 || c.Pauses < 0:
		return nil, badf("budgets must not be negative (inputs %d, crashes %d, drops %d, dups %d, slews %d, pauses %d)", c.Inputs, c.Crashes, c.Drops, c.Dups, c.Slews, c.Pauses)
	case c.Inputs > math.MaxInt16 || c.Crashes > math.MaxInt16 || c.Drops > math.MaxInt16 || c.Dups > math.MaxInt16 || c.Slews > math.MaxInt16 || c.Pauses > math.MaxInt16:
		return nil, badf("budgets must be at most %d", math.MaxInt16)
	case c.FsyncLatency < 0:
		return nil, badf("fsync latency must not be negative, got %v", c.FsyncLatency)
	case c.MaxPending < AutoPending:
		return nil, badf("max pending must not be negative, got %d", c.MaxPending)
	case c.Horizon < 0:
		return nil, badf("horizon must not be negative, got %v", c.Horizon)
	case c.TimeStep < 0:
		return nil, badf("time step must not be negative, got %v", c.TimeStep)
	case c.MaxDepth < 0:
		return nil, badf("max depth must not be negative, got %d", c.MaxDepth)
	case c.MaxStates < 0:
		return nil, badf("max states must not be negative, got %d", c.MaxStates)
	case c.Walks < 0:
		return nil, badf("walks must not be negative, got %d", c.Walks)
	case c.Workers < 0:
		return nil, badf("workers must not be negative, got %d", c.Workers)
	case c.ClockDrift < 0 || c.ClockDrift >= 0.5:
		return nil, badf("clock drift must be in [0, 0.5), got %g", c.ClockDrift)
	case c.ClockLevels < 0 || c.ClockLevels == 1 || c.ClockLevels > 9:
		return nil, badf("clock levels must be 2 to 9 (0: 2), got %d", c.ClockLevels)
	}
	switch c.Strategy {
	case "":
		c.Strategy = "bfs"
	case "bfs", "dfs", "random":
	default:
		return nil, badf("unknown strategy %q (valid: %s)", c.Strategy, strings.Join(Strategies, ", "))
	}
	if c.Checkpoint != "" && c.Strategy != "bfs" {
		return nil, badf("--checkpoint needs --strategy bfs (got %s)", c.Strategy)
	}
	if c.Sync && c.Liveness {
		return nil, badf("--sync cannot judge liveness: it stops true time while a holder holds, so a request may wait for ever")
	}
	if c.Sync && c.From != "" {
		return nil, badf("--sync judges a search from its start: the --from prefix may pass time with messages in flight")
	}
	cf := &config{Config: c, algo: algo, cluster: cl, from: pre,
		setup: host.Setup{Algo: algo, Cluster: cl, Params: c.Params, Ablate: c.Ablate, Seed: c.Seed}}
	cf.inputs = c.InputKinds
	if len(cf.inputs) == 0 {
		cf.inputs = inputKinds[:]
	}
	for _, k := range cf.inputs {
		if k != algorithms.Acquire && k != algorithms.Extend && k != algorithms.Relinquish {
			return nil, badf("input kind %v is not a client input (acquire, extend, release)", k)
		}
	}
	if cf.Workers == 0 {
		cf.Workers = runtime.NumCPU()
	}
	switch {
	case cf.MaxPending == AutoPending && c.Strategy == "random":
		// A walk's length bounds it; a bound on messages would end walks
		// that pile them up.
		cf.MaxPending = 0
		cf.pendingSrc = "default for random walks: none"
	case cf.MaxPending == AutoPending:
		cf.MaxPending = DefaultMaxPending(c.Acceptors, c.Proposers)
		cf.pendingSrc = "default: max(2A - (A/2+1), P), a two-phase round to every acceptor"
	default:
		cf.pendingSrc = "set"
	}
	// Liveness needs the states at rest the pruned moves would skip
	// (liveness.go).
	cf.prune = cf.MaxPending == 0 && !cf.Liveness
	if need := roundPending(c.Acceptors); cf.MaxPending > 0 && cf.MaxPending < need {
		cf.warnings = append(cf.warnings, fmt.Sprintf("--max-pending %d is below %d: a two-phase round to all %d acceptors cannot complete, so exhausting this space says little", cf.MaxPending, need, c.Acceptors))
	}
	if c.Strategy == "random" && cf.MaxDepth == 0 {
		cf.MaxDepth = DefaultWalkDepth
	}
	cf.maxMemory = c.MaxMemory
	if cf.maxMemory == 0 {
		cf.maxMemory = DefaultMaxMemory()
	}
	if cf.maxMemory < 0 {
		cf.maxMemory = 0
	}
	if cf.algo.SkewBound {
		p := cf.Params
		cf.skewLimit = int64(p.DMax) + int64(math.Ceil(2*p.Drift*float64(p.LeaseSpan+2*p.DMax)/(1-p.Drift)))
	}
	if err := cf.clockRoots(pre); err != nil {
		return nil, err
	}
	if err := cf.checkTokens(); err != nil {
		return nil, err
	}
	return cf, nil
}

// levelsOf returns k evenly spaced values in [-x, x] (k >= 2), or {0}.
func levelsOf(x int64, k int) []int64 {
	if x == 0 {
		return []int64{0}
	}
	if k < 2 {
		k = 2
	}
	out := make([]int64, k)
	for i := range out {
		out[i] = -x + int64(math.Round(float64(2*x)*float64(i)/float64(k-1)))
	}
	return slices.Compact(out)
}

// clockRoots builds the clock assignments (one initial state each) and
// the rate levels of slews.
func (c *config) clockRoots(pre *prefix) error {
	rate := int64(math.Round(c.ClockDrift * 1e9))
	half := int64(c.Params.DMax) / 2
	c.rates = levelsOf(rate, c.ClockLevels)
	if c.Slews > 0 {
		if rate == 0 {
			return badf("--slews needs a rate error to slew to (--drift above 0)")
		}
		c.absTime = true
	}
	if pre != nil {
		c.roots = [][]faults.Clock{pre.clocks}
		for _, k := range pre.clocks {
			if k.RatePPB != 0 {
				c.absTime = true
			}
		}
		if pre.rates {
			c.absTime = true
		}
		return nil
	}
	var offs, rates []int64
	switch c.Clocks {
	case "exact", "":
		c.Clocks = "exact"
		offs, rates = []int64{0}, []int64{0}
	case "drift":
		offs, rates = []int64{0}, c.rates
	case "skew":
		offs, rates = levelsOf(half, c.ClockLevels), []int64{0}
	case "extremes":
		offs, rates = levelsOf(half, c.ClockLevels), c.rates
	default:
		return badf("unknown clock mode %q (valid: %s)", c.Clocks, strings.Join(ClockModes, ", "))
	}
	per := make([]faults.Clock, 0, len(offs)*len(rates))
	for _, o := range offs {
		for _, r := range rates {
			per = append(per, faults.Clock{Offset: o, RatePPB: r})
			if r != 0 {
				c.absTime = true
			}
		}
	}
	// Every assignment of a per-node choice to every node.
	total := 1
	for range c.cluster.Nodes {
		total *= len(per)
		if total > 1<<16 {
			return badf("clock mode %s with %d levels gives more than %d initial states with %d nodes", c.Clocks, max(c.ClockLevels, 2), 1<<16, c.cluster.Nodes)
		}
	}
	for i := range total {
		cs := make([]faults.Clock, c.cluster.Nodes)
		k := i
		for n := range cs {
			cs[n] = per[k%len(per)]
			k /= len(per)
		}
		c.roots = append(c.roots, cs)
	}
	return nil
}

func (c *config) newExec() *exec {
	return &exec{cfg: c, w: &world{}}
}

// root builds initial state i: every node started at true time 0 under
// clock assignment i, everything due at 0 run, and then the --from
// prefix.
func (c *config) root(x *exec, i int) (*world, error) {
	n := c.cluster.Nodes
	x.tokFailed, x.wrote = nil, x.wrote[:0]
	w := &world{
		root:   int32(i),
		clk:    slices.Clone(c.roots[i]),
		hosts:  make([]*host.Host, n),
		budget: budgets{inputs: int16(c.Inputs), crashes: int16(c.Crashes), drops: int16(c.Drops), dups: int16(c.Dups), slews: int16(c.Slews), pauses: int16(c.Pauses)},
	}
	if c.Tokens {
		w.tops = make([]tokTop, c.Resources)
	}
	for k := range w.hosts {
		// Durable records are kept for the next life, as in a scenario.
		w.hosts[k] = &host.Host{ID: algorithms.NodeID(k), Disk: host.Disk{Keep: true}}
	}
	x.w = w
	x.err = nil
	x.parent = nil
	x.touched = 0
	x.cnhSet = 0
	x.touched = 1<<n - 1 // the hosts are this world's own
	for k := range n {
		x.start(algorithms.NodeID(k), false)
	}
	x.settle()
	if c.from != nil && x.err == nil {
		if err := c.from.run(x); err != nil {
			return nil, err
		}
	}
	if c.Tokens {
		x.writeTokens()
	}
	w.bad = w.overlaps() > 0 || w.tokFail
	x.parent = nil
	if !x.walk && x.err == nil {
		x.fillNodeHashes()
	}
	return w, x.err
}

// Explore runs the search c asks for.
func Explore(c Config) (Result, error) {
	return ExploreContext(context.Background(), c)
}

// ExploreContext runs the search c asks for until it is done or ctx is
// cancelled; then it stops cleanly and returns the partial result with
// Stopped "interrupted" (and, with a checkpoint directory, saves the
// search there).
func ExploreContext(ctx context.Context, c Config) (Result, error) {
	cf, err := prepare(c)
	if err != nil {
		return Result{}, err
	}
	// The search allocates many short-lived node copies and keeps little
	// in the Go heap (the visited set is outside it): collecting less
	// often costs a few tens of megabytes and saves a sixth of the time
	// (GOGC 400 against 150, paxoslease, one worker). The memory cap's
	// soft limit still bounds the heap.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	st := &stats{start: time.Now(), cpu0: cpuTime()}
	var res Result
	switch cf.Strategy {
	case "dfs":
		res, err = cf.dfs(ctx, st)
	case "random":
		res, err = cf.random(ctx, st)
	default:
		res, err = cf.bfs(ctx, st)
	}
	if err != nil {
		return res, err
	}
	cf.finish(&res, st)
	return res, nil
}

// stats are the totals every strategy keeps.
type stats struct {
	start       time.Time
	cpu0        time.Duration
	prevWall    time.Duration // before a resume
	prevCPU     time.Duration
	states      int64
	transitions int64
	constrained int64
	held        int64  // states in which some node holds a lease
	holders     uint64 // the nodes seen holding one (world.holders)
	depth       int
	rest        int64 // states at rest (Liveness)
	probed      int64 // states probed (Liveness; liveness.go)
	stuck       int64 // states at rest with a request unanswered, and probes that left one
	late        int64 // transitions in which a holder did not answer an Acquire of its lease at once
	heldAsks    int64 // transitions in which a client's Acquire ran at a holder (judged for late)
}

// judge counts a new state's liveness verdict (Liveness; liveness.go),
// made by verdict: whether it is at rest, and stuck there.
func (st *stats) judge(rest, stuck bool) {
	if rest {
		st.rest++
	}
	if stuck {
		st.stuck++
	}
}

// hold counts a new state whose holders are held.
func (st *stats) hold(held uint64) {
	if held != 0 {
		st.held++
		st.holders |= held
	}
}

// finish fills in what every strategy reports alike.
func (c *config) finish(res *Result, st *stats) {
	res.Algo, res.Ablate = c.Algo, append([]string{}, c.Ablate...)
	res.Acceptors, res.Proposers = c.Acceptors, c.Proposers
	res.Strategy, res.Clocks, res.Workers, res.InitStates = c.Strategy, c.Clocks, c.Workers, len(c.roots)
	if c.from != nil {
		res.Clocks = "from scenario"
	}
	res.States, res.Transitions, res.Constrained, res.HeldStates = st.states, st.transitions, st.constrained, st.held
	res.Liveness, res.RestStates, res.ProbedStates = c.Liveness, st.rest, st.probed
	res.Tokens = c.Tokens
	res.Sync = c.Sync
	res.Unanswered, res.LateAnswers, res.HolderAsks = st.stuck+st.late, st.late, st.heldAsks
	res.Holders = bits.OnesCount64(st.holders)
	if res.MaxDepth < st.depth {
		res.MaxDepth = st.depth
	}
	res.Exhausted = res.Stopped == StopExhausted
	res.MaxMemory = c.maxMemory
	el := time.Since(st.start) + st.prevWall
	res.WallMS = float64(el.Microseconds()) / 1000
	if el > 0 {
		res.StatesPerSec = float64(res.States) / el.Seconds()
	}
	if cpu := cpuTime() - st.cpu0 + st.prevCPU; cpu > 0 {
		res.CPUMS = float64(cpu.Microseconds()) / 1000
		res.StatesPerCPUSec = float64(res.States) / cpu.Seconds()
	}
	res.Bounds = Bounds{Inputs: c.Inputs, Crashes: c.Crashes, Drops: c.Drops, Dups: c.Dups, Slews: c.Slews, Pauses: c.Pauses,
		MaxPending: c.MaxPending, MaxPendingFrom: c.pendingSrc, HorizonNS: int64(c.Horizon), SkewLimitNS: c.skewLimitIfUsed(),
		MaxDepth: c.MaxDepth, MaxStates: c.MaxStates, Reductions: []string{"ignored-input"}}
	if c.prune {
		res.Bounds.Reductions = append(res.Bounds.Reductions, "ignored-delivery", "no-delivery-to-down-node")
	}
	res.TimeModel = c.timeModel()
	// Never null: every key of the JSON is present, [] when empty.
	res.Warnings = append(append([]string{}, res.Warnings...), c.warnings...)
}

// timeModel describes the timings the search covers.
func (c *config) timeModel() TimeModel {
	tm := TimeModel{Instants: "deadlines", Clocks: c.Clocks, ClockLevels: max(c.ClockLevels, 2), Slews: c.Slews,
		DriftPPB: int64(math.Round(c.ClockDrift * 1e9)), SkewNS: int64(c.Params.DMax)}
	if c.from != nil {
		tm.Clocks = "from scenario"
	}
	var b strings.Builder
	if c.TimeStep > 0 {
		tm.Instants, tm.TimeStepNS = "deadlines+step", int64(c.TimeStep)
		fmt.Fprintf(&b, "events at timer deadlines and every %v short of the next deadline", c.TimeStep)
	} else {
		b.WriteString("events at timer deadlines only (none strictly between two)")
	}
	switch c.Clocks {
	case "exact":
		b.WriteString("; clocks exact")
	case "drift":
		fmt.Fprintf(&b, "; rate errors at %d levels in [-%g, +%g], fixed per path", tm.ClockLevels, c.ClockDrift, c.ClockDrift)
	case "skew":
		fmt.Fprintf(&b, "; offsets at %d levels in [-%v, +%v]", tm.ClockLevels, c.Params.DMax/2, c.Params.DMax/2)
	case "extremes":
		fmt.Fprintf(&b, "; offsets at %d levels in [-%v, +%v] and rate errors at %d levels in [-%g, +%g]", tm.ClockLevels, c.Params.DMax/2, c.Params.DMax/2, tm.ClockLevels, c.ClockDrift, c.ClockDrift)
	}
	if c.Slews > 0 {
		fmt.Fprintf(&b, "; up to %d rate changes per path, to any of %d rates in [-%g, +%g]", c.Slews, len(c.rates), c.ClockDrift, c.ClockDrift)
	}
	tm.Covers = b.String()
	return tm
}

// rebuild re-executes the path (root, moves), writing it as a scenario
// (header and commands) to b, and returns the world at its end.
func (c *config) rebuild(b *strings.Builder, root int, path []int32) (*world, error) {
	return c.rebuildOn(c.newExec(), b, root, path)
}

// rebuildOn is rebuild on x, which is left as the last move left it.
func (c *config) rebuildOn(x *exec, b *strings.Builder, root int, path []int32) (*world, error) {
	x.keepWrites = true
	defer func() { x.keepWrites = false }()
	w, err := c.root(x, root)
	if err != nil {
		return nil, err
	}
	c.header(b, w)
	writeLines(b, x.wrote)
	var ms []move
	for _, mi := range path {
		ms = c.moves(w, ms[:0])
		if int(mi) >= len(ms) {
			return nil, fmt.Errorf("explore: internal error: the path names move %d of %d", mi, len(ms))
		}
		fmt.Fprintf(b, "%s\n", c.describe(w, ms[mi]))
		p := w
		w = p.clone()
		x.w = w
		x.apply(p, ms[mi])
		if x.err != nil {
			return nil, x.err
		}
		writeLines(b, x.wrote)
	}
	return w, nil
}

// beliefWitness re-executes the path (root, moves) to a state of double
// belief and writes it as a scenario that expects no violation (the
// double belief is the meter's, double_belief_ms).
func (c *config) beliefWitness(root int, path []int32) (string, error) {
	var b strings.Builder
	w, err := c.rebuild(&b, root, path)
	if err != nil {
		return "", err
	}
	if !w.doubleBelief() {
		return "", fmt.Errorf("explore: internal error: the rebuilt path does not end in double belief")
	}
	b.WriteString("advance 1ns               # let the double belief last\n")
	b.WriteString("# two nodes believe they hold one resource (a paused one included): double_belief_ms > 0\n")
	fmt.Fprintf(&b, "expect violations %d\n", w.overlaps())
	return b.String(), nil
}

// counterexample re-executes the path (root, moves), which must end in a
// violation or (Tokens) a token failure, and writes it into res as a
// scenario: Scenario, CounterexampleDepth, and First or FirstToken.
func (c *config) counterexample(res *Result, root int, path []int32) error {
	var b strings.Builder
	x := c.newExec()
	w, err := c.rebuildOn(x, &b, root, path)
	if err != nil {
		return err
	}
	n := w.overlaps()
	switch {
	case n > 0:
		if a, h, ok := w.firstOverlap(); ok {
			res.First = &Violation{Resource: a.res, Owners: [2]algorithms.NodeID{a.owner, h.owner},
				Ballots: [2]string{a.ballot.String(), h.ballot.String()}, AtNS: w.now}
		}
		b.WriteString("advance 1ns               # let the overlap last, so the verdict counts it\n")
		// No "expect violations" line: replay exits 1 on a violation the
		// file does not expect, so a counterexample fails wherever it is
		// replayed. Kept as a regression test of the fix, it gets
		// "expect violations 0".
		fmt.Fprintf(&b, "# the checker finds %d violation(s) here: leaselab replay exits 1\n", n)
	case w.tokFail && x.tokFailed != nil:
		f := x.tokFailed
		res.FirstToken = &TokenFailure{Resource: f.res, Owner: f.owner, Token: f.tok.String(), Highest: f.top.String(), AtNS: w.now}
		tokenWitness(&b, f)
	default:
		return fmt.Errorf("explore: internal error: the rebuilt path does not end in a violation or a token failure")
	}
	res.Scenario, res.CounterexampleDepth = b.String(), len(path)
	return nil
}

// header writes the setup lines of a scenario (and the --from prefix).
func (c *config) header(b *strings.Builder, w *world) {
	fmt.Fprintf(b, "# leaselab explore counterexample: %s", c.Algo)
	if len(c.Ablate) > 0 {
		fmt.Fprintf(b, " --ablate %s", strings.Join(c.Ablate, ","))
	}
	fmt.Fprintf(b, ", %d acceptors, %d proposers, --strategy %s\n", c.Acceptors, c.Proposers, c.Strategy)
	fmt.Fprintf(b, "algo %s\n", c.Algo)
	// The setup lines spell parameters as runner's table does.
	spec := runner.Spec{Acceptors: c.Acceptors, Proposers: c.Proposers, Params: c.Params,
		Disk: runner.DiskSpec{FsyncLatency: c.FsyncLatency, GroupCommit: true}}
	fmt.Fprintf(b, "cluster %s\n", runner.FormatParams(spec, runner.NamedParams("acceptors", "proposers")))
	fmt.Fprintf(b, "params %s\n", runner.FormatParams(spec, runner.ParamsOf(runner.GroupProtocol)))
	if len(c.Ablate) > 0 {
		fmt.Fprintf(b, "ablate %s\n", strings.Join(c.Ablate, ","))
	}
	fmt.Fprintf(b, "seed %d\n", c.Seed)
	fmt.Fprintf(b, "disk %s\n", runner.FormatParams(spec, runner.NamedParams("fsync-latency", "group-commit")))
	for n, ck := range c.roots[w.root] {
		if ck != (faults.Clock{}) {
			fmt.Fprintf(b, "clock n%d offset=%s rate=%s\n", n, time.Duration(ck.Offset), strconv.FormatFloat(float64(ck.RatePPB)/1e9, 'g', -1, 64))
		}
	}
	if c.Tokens {
		b.WriteString("store fenced\n")
	}
	b.WriteString("start\n")
	if c.from != nil {
		fmt.Fprintf(b, "# the prefix (--from %s)\n", c.FromName)
		for _, l := range c.from.lines {
			b.WriteString(l + "\n")
		}
		b.WriteString("# the search from the end of the prefix\n")
	}
}

// skewLimitIfUsed is the skew limit the search applies: only when clocks
// drift (with static offsets two clocks keep their distance).
func (c *config) skewLimitIfUsed() int64 {
	if !c.absTime {
		return 0
	}
	return c.skewLimit
}
