package verify

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/campaign"
	"leaselab/runner/explore"
	"leaselab/runner/shard"
)

// Config is one battery run.
type Config struct {
	Algo   string
	Ablate algorithms.Ablations
	// Budget is the wall time the whole battery may take (see Run for how
	// it is split); 0 means DefaultBudget.
	Budget time.Duration
	// Seed: the explorer's --seed (the nodes' random sources) and the
	// campaigns' first seed.
	Seed uint64
	// Workers: the explorer's goroutines (0: runtime.NumCPU()). Campaigns
	// run on GOMAXPROCS, as `leaselab check` does.
	Workers int
	// MemoryCap: the resident memory a search may use
	// (explore.Config.MaxMemory: it stops cleanly before passing it); 0
	// means DefaultMemoryCap.
	MemoryCap uint64
	// Only, if set, runs just these configurations (IDs of Matrix).
	Only []string
	// Scenario: a campaign's violation is recorded and shrunk to a
	// scenario (campaign.ShrinkCampaign, within ShrinkTime; 0 means
	// campaign.DefaultShrinkBudget); if its recording does not violate,
	// what is left of the budget goes to the searches still open, for a
	// counterexample (Result.Scenario, ScenarioBy). The verdict and
	// FoundBy stay the campaign's.
	Scenario   bool
	ShrinkTime time.Duration
	// deadline: when the budget ends (set by Run).
	deadline time.Time
	// Progress, if set, is called before and after each configuration.
	Progress func(Event)
	// Stop, if closed, ends the battery early (verify's Ctrl-C): the
	// configuration in flight stops as at the end of its share, no other
	// starts, and the result says Interrupted.
	Stop <-chan struct{}
	// From, To: run only the configurations [From, To) of Select's (a
	// part of a sharded battery, verify --shard i/n); both zero: every
	// one.
	From, To int
}

// DefaultBudget is the battery's default wall time.
const DefaultBudget = 10 * time.Minute

// DefaultMemoryCap keeps one search within what a shared machine can give
// it.
const DefaultMemoryCap = 3 << 30

// ErrBadConfig marks bad input (unknown algorithm, ablation or
// configuration ID).
var ErrBadConfig = errors.New("bad verify configuration")

func badf(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrBadConfig, fmt.Sprintf(format, a...))
}

// Event reports progress: Done false before a configuration runs, true
// after (with its result).
type Event struct {
	Index, Total int
	Entry        Entry
	Done         bool
	Result       ConfigResult
}

// Why a configuration ended (ConfigResult.Stopped).
const (
	StopExhausted = "exhausted" // every state within the bounds was searched
	StopDepth     = "depth"     // every state within its --max-depth was searched (a depth-first search)
	StopViolation = "violation"
	StopTime      = "time"    // its share of the budget
	StopMemory    = "memory"  // it would have passed MemoryCap
	StopStates    = "states"  // its state cap
	StopSeeds     = "seeds"   // its seed cap
	StopBudget    = "budget"  // not run: no budget left
	StopSkipped   = "skipped" // not run: a violation was found before it
	StopInvalid   = "invalid" // not run: the algorithm rejects it (with these ablations)
	// StopInterrupted: cut short, or not run, because the battery was
	// interrupted (Config.Stop).
	StopInterrupted = "interrupted"
	// StopUnanswered: a campaign left requests unanswered after its
	// seeds' faults stopped (ConfigResult.Unanswered).
	StopUnanswered = "unanswered"
	// StopTokens: a campaign's fenced store, or a search with --tokens,
	// showed a fencing token that did not grow where the algorithm says
	// it grows (ConfigResult.TokenFailures).
	StopTokens = "tokens"
)

// Rejected counts the configurations the algorithm rejected (StopInvalid:
// not searched) and returns the first of them.
func (r Result) Rejected() (n int, first ConfigResult) {
	return r.count(func(c ConfigResult) bool { return c.Stopped == StopInvalid })
}

// Vacuous counts the configurations that ran to their end without a
// violation and never saw a lease (Leases 0), or, for a search, never saw
// leases of two different nodes (Holders below 2): no path searched and
// no run reached two holders, so their "no violation" says nothing about
// the algorithm (a node that drops every message would pass them); nor
// does a campaign of a fenced store that judged no seed's tokens (every
// seed had a fault under which the algorithm does not claim its tokens
// grow). The first is returned too. Those not run, cut short by an interrupt or
// stopped at a violation do not count.
func (r Result) Vacuous() (n int, first ConfigResult) {
	return r.count(func(c ConfigResult) bool {
		switch c.Stopped {
		case StopBudget, StopSkipped, StopInvalid, StopInterrupted, StopViolation:
			return false
		}
		return c.Leases == 0 || c.Kind == KindExplore && c.Holders < 2 || c.Liveness && c.RestStates+c.ProbedStates == 0 ||
			c.Tokens && c.TokensJudged == 0
	})
}

// count counts the configurations that match and returns the first.
func (r Result) count(match func(ConfigResult) bool) (n int, first ConfigResult) {
	for _, c := range r.Configurations {
		if match(c) {
			if n == 0 {
				first = c
			}
			n++
		}
	}
	return n, first
}

// ConfigResult is what one configuration did.
type ConfigResult struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Flags: the configuration's flags beyond --algo and --ablate.
	Flags string `json:"flags"`
	// Command reproduces what ran: the flags with the cap that ended it
	// (--max-states or --max-depth; --seeds and --first-seed for a
	// campaign), "" if it did not run.
	Command    string  `json:"command"`
	Why        string  `json:"why"`
	States     int64   `json:"states"`
	Seeds      int     `json:"seeds"`
	Depth      int     `json:"depth"`
	Exhausted  bool    `json:"exhausted"`
	Violations int     `json:"violations"`
	Seconds    float64 `json:"seconds"`
	CapSeconds float64 `json:"cap_seconds"`
	// Passes: 1 if it ran in the quick pass only, 2 if in the deep pass
	// too (Run); its figures are the last pass's, its seconds the sum.
	Passes  int    `json:"passes"`
	Stopped string `json:"stopped"`
	// Leases: what it saw of leases. For a search, the distinct states in
	// which some node held one (explore's held_states); for a campaign,
	// the leases its runs acquired. 0 in a configuration that ran makes
	// its verdict vacuous (Result.Vacuous).
	Leases int64 `json:"leases"`
	// Holders: for a search, how many nodes it saw holding a lease
	// (explore's holders; every search has two proposers or more, and
	// two holders at once need leases of two nodes); 0 for a campaign.
	Holders int `json:"holders"`
	// Note says why an invalid configuration was not run.
	Note string `json:"note"`
	// Unanswered: for a campaign, the requests its seeds left unanswered
	// at the end of their settle stretch (campaign.Vary.Settle), a
	// liveness failure; it ends the campaign (Stopped "unanswered"), not
	// the battery. For a search with --liveness, the states at rest with
	// a request unanswered, the settle probes that left one and the late
	// answers, a holder's Acquire not answered at once (explore's
	// unanswered_states); the search runs on to its end.
	Unanswered int `json:"unanswered"`
	// Liveness: a search that judged liveness (--liveness);
	// RestStates the states at rest it judged and ProbedStates those it
	// probed (explore's rest_states and probed_states), where 0 for both
	// makes its liveness verdict vacuous (Result.Vacuous).
	Liveness     bool  `json:"liveness"`
	RestStates   int64 `json:"rest_states"`
	ProbedStates int64 `json:"probed_states"`
	// HolderAsks: the client Acquires the search ran at a node holding
	// the lease, each judged for an answer at once; LateAnswers those
	// answered late (counted in Unanswered too).
	HolderAsks  int64 `json:"holder_asks"`
	LateAnswers int64 `json:"late_answers"`
	// Tokens: a fixed-mix campaign with a fenced store, which judges
	// the fencing tokens of every seed or of none; TokensJudged the
	// seeds it judged (campaign.TokensJudged: no fault on under which
	// the algorithm does not claim its tokens grow), where 0 makes a
	// Tokens campaign's token verdict vacuous (a swarm with a fenced
	// store judges the seeds whose draws allow it, and is not Tokens);
	// TokenFailures the writes in judged seeds that show a token that
	// did not grow (a rejected write of a current lease, an accepted
	// stale one, a tie with another node's token), or a search's states
	// with a token failure (--tokens). A failure ends the configuration
	// (Stopped "tokens"), not the battery.
	Tokens        bool  `json:"tokens"`
	TokensJudged  int   `json:"tokens_judged"`
	TokenFailures int64 `json:"token_failures"`
}

// Result is a battery's outcome.
type Result struct {
	Meta *runner.Meta `json:"meta"` // filled by the command
	// Shard: in a part of a sharded battery (verify --shard i/n), which
	// part, with the whole battery's Spec (null otherwise; set by the
	// command); its Configurations are the part's. Shards: in a merged
	// result (Merge), the parts it was merged from ([] otherwise).
	Shard         *shard.Info  `json:"shard"`
	Shards        []shard.Part `json:"shards"`
	Algo          string       `json:"algo"`
	Ablate        []string     `json:"ablate"`
	Budget        string       `json:"budget"`
	BudgetSeconds float64      `json:"budget_seconds"`
	Seed          uint64       `json:"seed"`
	Workers       int          `json:"workers"`
	MemoryCap     uint64       `json:"memory_cap_bytes"`
	// Configurations: every configuration the battery runs (Select's; a
	// part's range of them), in the order run, those not run included
	// (Stopped says why).
	Configurations []ConfigResult `json:"configurations"`
	// Ran: configurations that ran; Exhausted: those whose bounded space
	// was searched to the end.
	Ran       int `json:"ran"`
	Exhausted int `json:"exhausted"`
	// Interrupted: the battery was stopped early (Config.Stop); the
	// configurations it cut short or did not start say "interrupted".
	Interrupted bool `json:"interrupted"`
	// Violations found by the first configuration that found any (the
	// battery stops there; in a merged result, the finding Merge
	// reports); 0 if none.
	Violations int `json:"violations"`
	// FoundBy is that configuration's ID, FoundByCommand its command.
	FoundBy        string `json:"found_by"`
	FoundByCommand string `json:"found_by_command"`
	// Counterexample is the file the scenario was written to (set by the
	// caller), "" if none.
	Counterexample string `json:"counterexample"`
	// Reproduce: for a violation a campaign found, the `leaselab run`
	// command of its first violating seed (set by the caller from
	// ViolatingSpec).
	Reproduce string `json:"reproduce"`
	// Findings: the violation found, with its counterexample (FindingsOf);
	// in a merged result every part's, the one reported above first
	// (Merge). [] when none.
	Findings []Finding `json:"findings"`
	// Seconds: the battery's wall time; in a merged result the sum of
	// its parts' (the work, not the time it took them).
	Seconds float64 `json:"seconds"`
	// Scenario is the explorer's counterexample, "" if none (a campaign
	// found the violation and no search did); ScenarioBy is the search
	// that found it.
	Scenario   string `json:"-"`
	ScenarioBy string `json:"counterexample_by"`
	// Shrink: how a campaign's violation was shrunk to Scenario.
	Shrink *campaign.ShrinkResult `json:"shrink"`
	// ViolatingSpec is the spec of a campaign's first violating seed.
	ViolatingSpec *runner.Spec `json:"-"`
	// Unanswered: requests a campaign's seeds left unanswered after the
	// faults stopped (a liveness failure; the first configuration that
	// found any), UnansweredBy its ID and UnansweredRun the `leaselab
	// run` command of its first such seed (set by the caller from
	// UnansweredSpec). 0 and "" if none.
	Unanswered     int          `json:"unanswered"`
	UnansweredBy   string       `json:"unanswered_by"`
	UnansweredRun  string       `json:"unanswered_run"`
	UnansweredSpec *runner.Spec `json:"-"`
	// UnansweredScenario: when a search (--liveness) found the liveness
	// failure, the path to its first state with a request unanswered (at
	// rest, or with the settle probe's moves after it), as a scenario on
	// which replay exits 1; UnansweredRun is then that search's command.
	UnansweredScenario string `json:"-"`
	// TokenFailures: writes that showed a fencing token that did not
	// grow where the algorithm says it grows (the first configuration
	// that found any; a search's: states with a token failure), TokensBy
	// its ID and TokensRun the `leaselab run` command of a campaign's
	// first such seed (set by the caller from TokensSpec) or the search's
	// `leaselab explore` command. 0 and "" if none. TokensScenario: a
	// search's path to its first token failure, as a scenario on which
	// replay exits 1.
	TokenFailures  int64        `json:"token_failures"`
	TokensBy       string       `json:"tokens_by"`
	TokensRun      string       `json:"tokens_run"`
	TokensSpec     *runner.Spec `json:"-"`
	TokensScenario string       `json:"-"`
}

// Run runs the battery: the configurations of Select(c) (the matrix of
// c.Algo, or those c.Only names; of those only [c.From, c.To) when either
// is set) in two passes, until one finds a violation or the budget is
// spent.
//
// The quick pass gives every configuration a small slice (QuickShare of
// the budget split by weight, at least QuickMin where the budget allows,
// at most QuickStates states or QuickSeeds seeds), so a bug that any configuration shows early is found in the
// first minute or two whatever the order. The deep pass splits what is
// left among the configurations still open (not exhausted, not at their
// cap) as it goes: each may take the time left times its weight over the
// weights of those still to run, so time one leaves unused (it exhausted
// its space or reached its state, memory or seed cap) goes to the ones
// after it. A search in the deep pass starts again from the beginning (a
// breadth-first search cannot resume), deeper; a campaign continues with
// the seeds after those it ran.
//
// A part of a sharded battery (From, To) is a battery of its own
// configurations with the whole Budget: the weights that split it are its
// configurations' alone, a subset of the whole battery's, so each
// configuration's share of a pass is at least its share in the unsharded
// battery with the same Budget.
func Run(c Config) (Result, error) {
	start := time.Now()
	b, err := newBattery(c, start)
	if err != nil {
		return Result{}, err
	}
	if err := b.quickPass(); err != nil {
		return b.res, err
	}
	if err := b.deepPass(); err != nil {
		return b.res, err
	}
	b.res.Configurations = b.crs
	b.res.Interrupted = runner.Closed(c.Stop)
	b.res.tally()
	b.res.Findings = FindingsOf(b.res)
	b.res.Seconds = time.Since(start).Seconds()
	return b.res, nil
}

// battery is a Run in progress: its configurations and what they did.
type battery struct {
	c     Config
	es    []Entry
	crs   []ConfigResult
	res   Result
	start time.Time
}

// newBattery checks c, fills in its defaults and lays out the
// configurations it runs, none run yet.
func newBattery(c Config, start time.Time) (*battery, error) {
	if c.Budget < 0 {
		return nil, badf("budget must not be negative, got %v", c.Budget)
	}
	if c.Budget == 0 {
		c.Budget = DefaultBudget
	}
	if c.Workers < 0 {
		return nil, badf("workers must not be negative, got %d", c.Workers)
	}
	if c.Workers == 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.MemoryCap == 0 {
		c.MemoryCap = DefaultMemoryCap
	}
	c.deadline = start.Add(c.Budget)
	es, err := Select(c)
	if err != nil {
		return nil, err
	}
	if c.From != 0 || c.To != 0 {
		if c.From < 0 || c.To < c.From || c.To > len(es) {
			return nil, badf("configurations [%d, %d) are not a range of the %d selected", c.From, c.To, len(es))
		}
		es = es[c.From:c.To]
	}
	res := Result{Algo: c.Algo, Ablate: append([]string{}, c.Ablate...), Budget: c.Budget.String(),
		BudgetSeconds: c.Budget.Seconds(), Seed: c.Seed, Workers: c.Workers, MemoryCap: c.MemoryCap,
		Shards: []shard.Part{}, Findings: []Finding{}}
	crs := make([]ConfigResult, len(es))
	for i, e := range es {
		crs[i] = ConfigResult{ID: e.ID, Kind: e.Kind, Flags: e.Flags(), Why: e.Why, Stopped: StopBudget}
	}
	return &battery{c: c, es: es, crs: crs, res: res, start: start}, nil
}

// Select is the configurations a battery of c runs, in the order it runs
// them: the matrix of c.Algo, or the ones c.Only names, in its order (a
// part of a sharded battery runs [c.From, c.To) of them). It checks the
// algorithm and its ablations.
func Select(c Config) ([]Entry, error) {
	a, err := algorithms.Lookup(c.Algo)
	if err != nil {
		return nil, badf("%v", err)
	}
	for _, x := range c.Ablate {
		if !slices.ContainsFunc(a.Ablations, func(ab algorithms.Ablation) bool { return ab.Name == x }) {
			return nil, badf("algorithm %s has no ablation %q", c.Algo, x)
		}
	}
	es, err := Matrix(c.Algo)
	if err != nil {
		return nil, badf("%v", err)
	}
	if len(c.Only) == 0 {
		return es, nil
	}
	var sel []Entry
	for _, id := range c.Only {
		i := slices.IndexFunc(es, func(e Entry) bool { return strings.EqualFold(e.ID, id) })
		if i < 0 {
			return nil, badf("no configuration %q in the matrix of %s (see --list)", id, c.Algo)
		}
		sel = append(sel, es[i])
	}
	return sel, nil
}

// step runs configuration i within share; in the quick pass at most
// QuickStates states or QuickSeeds seeds.
func (b *battery) step(i int, share time.Duration, quick bool) error {
	e, cr := b.es[i], &b.crs[i]
	if b.c.Progress != nil {
		b.c.Progress(Event{Index: i, Total: len(b.es), Entry: e})
	}
	cr.CapSeconds += share.Seconds()
	cr.Passes++
	var err error
	switch e.Kind {
	case KindExplore:
		if quick {
			e.MaxStates = min(e.MaxStates, QuickStates)
		}
		err = runExplore(b.c, e, share, cr, &b.res)
	case KindCheck:
		if quick {
			e.MaxSeeds = min(e.MaxSeeds, QuickSeeds)
		}
		err = runCheck(b.c, e, share, cr, &b.res)
	}
	if err != nil {
		return fmt.Errorf("%s (%s %s): %w", e.ID, e.Kind, e.Flags(), err)
	}
	if cr.Stopped == StopTime && runner.Closed(b.c.Stop) {
		cr.Stopped = StopInterrupted
	}
	if b.c.Progress != nil {
		b.c.Progress(Event{Index: i, Total: len(b.es), Entry: e, Done: true, Result: *cr})
	}
	return nil
}

// open: configuration i is worth another pass.
func (b *battery) open(i int, quick bool) bool {
	switch b.crs[i].Stopped {
	case StopExhausted, StopDepth, StopInvalid, StopViolation, StopMemory, StopUnanswered, StopTokens:
		// A search that met the memory cap would meet it again at the
		// same depth; one that searched its depth bound would search it
		// again.
		return false
	case StopStates:
		return quick && b.es[i].MaxStates > QuickStates
	case StopSeeds:
		return quick && b.es[i].MaxSeeds > QuickSeeds
	}
	return true
}

// quickPass runs every configuration in order, each within its slice of
// QuickShare of the budget, until one finds a violation.
func (b *battery) quickPass() error {
	quickLeft := time.Duration(float64(b.c.Budget) * QuickShare)
	weights := 0.0
	for _, e := range b.es {
		weights += e.Weight
	}
	for i, e := range b.es {
		if b.res.FoundBy != "" || time.Since(b.start) >= b.c.Budget || runner.Closed(b.c.Stop) {
			break
		}
		// At least QuickMin (a search's start-up and first levels) if
		// the floors together take at most half the budget; never past
		// the budget.
		share := max(time.Duration(float64(quickLeft)*e.Weight/weights), min(QuickMin, b.c.Budget/time.Duration(2*len(b.es))))
		share = min(share, b.c.Budget-time.Since(b.start))
		weights -= e.Weight
		t0 := time.Now()
		if err := b.step(i, share, true); err != nil {
			return err
		}
		quickLeft -= time.Since(t0)
	}
	return nil
}

// deepPass gives what is left of the budget to the configurations still
// open; after a campaign's violation, with Scenario, only to the
// searches, for a counterexample.
func (b *battery) deepPass() error {
	hunt := b.res.FoundBy != "" && b.res.Scenario == "" && b.c.Scenario
	deep := func(i int) bool {
		if !b.open(i, true) || b.crs[i].Passes == 0 {
			return false
		}
		if hunt {
			return b.es[i].Kind == KindExplore
		}
		return b.res.FoundBy == ""
	}
	weights := 0.0
	for i, e := range b.es {
		if deep(i) {
			weights += e.Weight
		}
	}
	for i, e := range b.es {
		if !deep(i) || (hunt && b.res.Scenario != "") {
			continue
		}
		left := b.c.Budget - time.Since(b.start)
		if left <= 0 || runner.Closed(b.c.Stop) {
			break
		}
		share := time.Duration(float64(left) * e.Weight / weights)
		weights -= e.Weight
		if err := b.step(i, share, false); err != nil {
			return err
		}
	}
	return nil
}

// tally marks the configurations left unrun by a violation as skipped,
// and counts those that ran and those that exhausted their space.
func (r *Result) tally() {
	r.Ran, r.Exhausted = 0, 0
	for i := range r.Configurations {
		cr := &r.Configurations[i]
		switch {
		case cr.Passes == 0 && r.FoundBy != "":
			cr.Stopped = StopSkipped
		case cr.Passes == 0 && r.Interrupted:
			cr.Stopped = StopInterrupted
		case cr.Passes > 0 && cr.Stopped != StopInvalid:
			r.Ran++
			if cr.Exhausted {
				r.Exhausted++
			}
		}
	}
}

// shrinkTime is what shrinking a campaign's violation may take: ShrinkTime
// (or campaign.DefaultShrinkBudget), at most what is left of the budget
// (at least a second).
func (c Config) shrinkTime() time.Duration {
	t := c.ShrinkTime
	if t <= 0 {
		t = campaign.DefaultShrinkBudget
	}
	return min(t, max(time.Until(c.deadline), time.Second))
}

// The quick pass (see Run).
const (
	QuickShare  = 0.25
	QuickMin    = time.Second
	QuickStates = 500_000
	QuickSeeds  = 500
)

// runExplore runs one search within share (a deadline on its context)
// and the caps; a search that ran before is replaced by this one, its
// time added.
func runExplore(c Config, e Entry, share time.Duration, cr *ConfigResult, res *Result) error {
	cf := explore.DefaultConfig()
	cf.Algo, cf.Ablate, cf.Seed, cf.Workers = c.Algo, c.Ablate, c.Seed, c.Workers
	cf.MaxStates = e.MaxStates
	cf.MaxMemory = int64(c.MemoryCap)
	if err := applyExplore(&cf, e.Args); err != nil {
		return err
	}
	start := time.Now()
	ctx, cancel := stopContext(c.Stop, share)
	r, err := explore.ExploreContext(ctx, cf)
	cancel()
	cr.Seconds += time.Since(start).Seconds()
	freeMemory()
	if errors.Is(err, explore.ErrBadConfig) {
		cr.Stopped, cr.Note = StopInvalid, err.Error()
		return nil
	}
	if err != nil {
		return err
	}
	cr.States, cr.Depth, cr.Exhausted, cr.Violations = r.States, r.MaxDepth, r.Exhausted, r.Violations
	cr.Leases, cr.Holders = r.HeldStates, r.Holders
	cr.Liveness, cr.RestStates, cr.ProbedStates, cr.Unanswered = r.Liveness, r.RestStates, r.ProbedStates, int(r.Unanswered)
	cr.HolderAsks, cr.LateAnswers = r.HolderAsks, r.LateAnswers
	cr.TokenFailures = int64(r.TokenFailures)
	base := exploreCommand(c, e)
	cr.Command = base
	switch r.Stopped {
	case explore.StopViolation:
		cr.Stopped = StopViolation
	case explore.StopTokens:
		cr.Stopped = StopTokens
	case explore.StopExhausted:
		cr.Stopped = StopExhausted
	case explore.StopMaxDepth:
		// Every state within its --max-depth was searched.
		cr.Stopped = StopDepth
	case explore.StopMaxStates:
		cr.Stopped = StopStates
		cr.Command = base + " --max-states " + strconv.FormatInt(cf.MaxStates, 10)
	default:
		// Time (the context's deadline) or memory: either search visits
		// states in a fixed order (breadth first: commits in chunk order,
		// whatever the workers), so the same number of states
		// reproduces what ran.
		cr.Stopped = StopTime
		if r.Stopped == explore.StopMaxMemory {
			cr.Stopped = StopMemory
		}
		cr.Command = base + " --max-states " + strconv.FormatInt(r.States, 10)
	}
	if cf.Strategy == "random" {
		// Walk i is the same whatever the workers, so --walks W takes
		// walks 0 to W-1: what ran, but for the few walks in flight at a
		// deadline, which were dropped. The lowest-numbered violating
		// walk is among them. (A state cap would reproduce less: which
		// walks' states fill it depends on the workers' timing.)
		cr.Command = base + " --walks " + strconv.FormatInt(r.Walks, 10)
	}
	if r.Violations > 0 {
		if res.FoundBy == "" {
			res.Violations, res.FoundBy, res.FoundByCommand = r.Violations, e.ID, cr.Command
		}
		res.Scenario, res.ScenarioBy = r.Scenario, e.ID
	}
	if r.Unanswered > 0 && res.UnansweredBy == "" {
		res.Unanswered, res.UnansweredBy, res.UnansweredRun = int(r.Unanswered), e.ID, cr.Command
		res.UnansweredScenario = r.UnansweredScenario
	}
	if r.TokenFailures > 0 && r.Violations == 0 && res.TokensBy == "" {
		res.TokenFailures, res.TokensBy, res.TokensRun = int64(r.TokenFailures), e.ID, cr.Command
		res.TokensScenario = r.Scenario
	}
	return nil
}

// exploreCommand is the `leaselab explore` command of an entry.
func exploreCommand(c Config, e Entry) string {
	s := "leaselab explore --algo " + c.Algo
	if len(c.Ablate) > 0 {
		s += " --ablate " + strings.Join(c.Ablate, ",")
	}
	if f := e.Flags(); f != "" {
		s += " " + f
	}
	if c.Seed != explore.DefaultConfig().Seed {
		s += " --seed " + strconv.FormatUint(c.Seed, 10)
	}
	return s
}

// runCheck runs one campaign, in chunks of seeds, within share: at the
// deadline the runs in flight are cut short and the seeds that finished
// count (campaign.Check with runner.Options.Stop).
func runCheck(c Config, e Entry, share time.Duration, cr *ConfigResult, res *Result) error {
	start := time.Now()
	first := c.Seed
	done, chunk := cr.Seeds, runtime.GOMAXPROCS(0)
	cr.Stopped = StopSeeds
	ctx, cancel := stopContext(c.Stop, share)
	defer cancel()
	stop := ctx.Done()
	for done < e.MaxSeeds {
		n := min(chunk, e.MaxSeeds-done)
		cs, err := checkSpec(c.Algo, c.Ablate, e.Args, n, first+uint64(done))
		if err != nil {
			return err
		}
		if err := cs.Base.Validate(); err != nil {
			cr.Stopped, cr.Note = StopInvalid, err.Error()
			return nil
		}
		t0 := time.Now()
		r, err := campaign.Check(cs, runner.Options{Stop: stop})
		if err != nil {
			return err
		}
		done += r.Seeds
		cr.Leases += int64(r.LeasesAcquired)
		// A fixed mix with a fenced store judges every seed's tokens or
		// none (its kinds are on in every seed), and so is a restricted
		// swarm meant to judge every seed (the matrix's token swarm,
		// tokenSwarmEntry: kinds that cause none of the algorithm's
		// conditions); a whole swarm judges the seeds whose draws allow
		// it, and may judge none in a short share.
		cr.Tokens = cs.Base.Store == "fenced" && cs.Base.Writes > 0 && (cs.Faults[0] != campaign.Swarm || len(cs.Faults) > 1)
		cr.TokensJudged += r.TokensJudged
		if r.Violations == 0 && (r.TokenFailures > 0 || r.Unanswered > 0) {
			// A chunk may show both: each is kept, and the configuration
			// stops on the one `leaselab verify` reports first (a request
			// unanswered, then a token).
			if r.TokenFailures > 0 {
				cr.TokenFailures, cr.Stopped = r.TokenFailures, StopTokens
				if res.TokensBy == "" {
					s := r.TokenFailureSpecs[0]
					res.TokenFailures, res.TokensBy, res.TokensSpec = r.TokenFailures, e.ID, &s
				}
			}
			if r.Unanswered > 0 {
				cr.Unanswered, cr.Stopped = r.Unanswered, StopUnanswered
				if res.UnansweredBy == "" {
					s := r.UnansweredSpecs[0]
					res.Unanswered, res.UnansweredBy, res.UnansweredSpec = r.Unanswered, e.ID, &s
				}
			}
			break
		}
		if r.Violations > 0 {
			cr.Violations = r.Violations
			cr.Stopped = StopViolation
			res.Violations, res.FoundBy = r.Violations, e.ID
			if len(r.ViolatingSpecs) > 0 {
				s := r.ViolatingSpecs[0]
				res.ViolatingSpec = &s
			}
			if c.Scenario {
				// The violating run, recorded and shrunk to a scenario.
				sr, err := campaign.ShrinkCampaign(cs, r, c.shrinkTime())
				if err == nil {
					res.Scenario, res.ScenarioBy, res.Shrink = sr.Scenario, e.ID, &sr
				} else if !errors.Is(err, campaign.ErrNotReproduced) {
					return err
				}
			}
			break
		}
		el := time.Since(start)
		if r.Interrupted || el >= share {
			cr.Stopped = StopTime
			break
		}
		// Chunks grow while they take under a tenth of the time left.
		if d := time.Since(t0); d*20 < share-el && chunk < 1024 {
			chunk *= 2
		}
	}
	cr.Seeds = done
	cr.Seconds += time.Since(start).Seconds()
	cr.Command = "leaselab check --algo " + c.Algo
	if len(c.Ablate) > 0 {
		cr.Command += " --ablate " + strings.Join(c.Ablate, ",")
	}
	cr.Command += " " + e.Flags() + " --seeds " + strconv.Itoa(done) + " --first-seed " + strconv.FormatUint(first, 10)
	if res.FoundBy == e.ID {
		res.FoundByCommand = cr.Command
	}
	return nil
}

// freeMemory gives a finished search's memory back before the next one.
func freeMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

// stopContext ends at share or when stop is closed, whichever is first.
func stopContext(stop <-chan struct{}, share time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), share)
	if stop != nil {
		go func() {
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return ctx, cancel
}
