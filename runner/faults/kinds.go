package faults

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// Kind is one kind of fault, the way the parameter table
// (runner.Params) is one parameter: everything that spells or handles a
// fault kind is derived from this table. Campaigns (runner/campaign)
// take their kind names, draws and exercised counters from it; each
// environment's runner.Env.Check rejects a spec asking for a kind it does
// not support (Unsupported); the scenario language (runner/sim) has a
// command for every kind's Scenario; the explorer (runner/explore) has a
// budget for every kind's Budget.
type Kind struct {
	// Name is the kind's one name: `check --faults NAME`, a swarm's
	// counts, the error that rejects it.
	Name string
	// Summary names the fault in a plural noun phrase ("process
	// pauses"), as errors and listings use it.
	Summary string
	// Note, if set, follows the error that rejects the kind in another
	// environment: what to use there instead.
	Note string
	// Params are the parameters (runner.Params names: the command line's
	// flags, a scenario's keys) that set the kind in a Spec; the first
	// turns it on.
	Params []string
	// On reports whether spec s asks for the fault (nil: the kind shapes
	// the run rather than injecting a fault, and every environment runs
	// it).
	On func(s *runner.Spec) bool
	// Envs are the environments that can inject it (runner.Envs names);
	// Resolve rejects a spec that asks another one for it (Unsupported,
	// through runner.Env.Check: exit status 2).
	Envs []string
	// Scenario are the scenario commands that inject it by hand
	// (runner/sim/testdata/README.md).
	Scenario []string
	// Budget is the explorer's budget of moves of this kind ("": the
	// explorer does not inject it).
	Budget string
	// Traces are the trace kinds its happenings add.
	Traces []runner.TraceKind
	// Counters say how often it happened in a run (a campaign sums them
	// over its seeds as its "exercised" counts).
	Counters []Counter
	// Draw sets the kind's parameters for one seed of a fixed-mix
	// campaign (`check --faults NAME`), Swarm for a swarm seed that drew
	// the kind in (choice.go). Nil: that kind of campaign does not draw it.
	Draw, Swarm func(c *Choice, s *runner.Spec)
	// Opt: a campaign draws the kind only when asked for it by name, not
	// as part of "all" or a swarm. Clock jumps break what every
	// algorithm assumes of its clocks, so a campaign of all kinds would
	// find violations of correct algorithms; pauses break no assumption
	// the belief checker judges, but what they do shows in the protected
	// store's meters, and a campaign that means to measure them says so
	// (--faults all,pause); both keep the campaigns that do not ask for
	// them as they were.
	Opt bool
	// Causes: the conditions under which an algorithm may not claim its
	// fencing tokens grow (algorithms.TokenBreaks) that the kind brings
	// about when it is on. A campaign with a fenced store judges the
	// tokens of a seed only where no kind on in it causes a condition
	// its algorithm names (TokenCauses).
	Causes algorithms.TokenBreaks
	// Unassumed: the kind breaks what every algorithm assumes (clock
	// jumps), so no claim about tokens holds under it and no seed with it
	// is judged for them.
	Unassumed bool
}

// Counter is one of a kind's exercised counters: its JSON name and its
// value in a run's result.
type Counter struct {
	Name string
	Of   func(r *runner.Result) int64
}

// Supports reports whether environment env can inject k.
func (k *Kind) Supports(env string) bool { return slices.Contains(k.Envs, env) }

// TokenCauses says which token-breaking conditions the fault kinds on in
// spec s cause, and whether all of them keep to what the algorithms
// assume (false with clock jumps). Kinds that only shape the run (On nil)
// count through the parameters they set: free-running clocks through the
// drift kind's offsets and rates.
func TokenCauses(s *runner.Spec) (causes algorithms.TokenBreaks, assumed bool) {
	assumed = true
	for i := range kinds {
		k := &kinds[i]
		if k.On == nil || !k.On(s) {
			continue
		}
		causes |= k.Causes
		if k.Unassumed {
			assumed = false
		}
	}
	return causes, assumed
}

// TokenKinds are the kinds a fixed-mix campaign can draw (`check --faults
// NAME`) that keep to the algorithms' assumptions and cause none of the
// conditions in breaks: the faults under which an algorithm with those
// TokenBreaks claims its fencing tokens grow.
func TokenKinds(breaks algorithms.TokenBreaks) []string {
	return tokenKinds(breaks, func(k *Kind) bool { return k.Draw != nil })
}

// TokenSwarmKinds are the same among the kinds a swarm seed may draw
// (SwarmKinds): a swarm restricted to them (`check --faults swarm,K,...`)
// judges the tokens of every seed.
func TokenSwarmKinds(breaks algorithms.TokenBreaks) []string {
	return tokenKinds(breaks, func(k *Kind) bool { return k.Swarm != nil })
}

// tokenKinds names the kinds in, in table order, that keep to the
// algorithms' assumptions and cause none of breaks.
func tokenKinds(breaks algorithms.TokenBreaks, in func(*Kind) bool) []string {
	var names []string
	for i := range kinds {
		if k := &kinds[i]; in(k) && !k.Unassumed && k.Causes&breaks == 0 {
			names = append(names, k.Name)
		}
	}
	return names
}

// Kinds is the fault-kind table, in the order campaigns list and draw the
// kinds.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// LookupKind finds a kind by name; an unknown name is an error that lists
// the valid ones.
func LookupKind(name string) (Kind, error) {
	for _, k := range kinds {
		if k.Name == name {
			return k, nil
		}
	}
	return Kind{}, fmt.Errorf("unknown fault kind %q (valid: %s)", name, strings.Join(KindNames(), ", "))
}

// KindNames lists the kinds' names, in table order.
func KindNames() []string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.Name
	}
	return names
}

// Unsupported says which kind spec s asks for that environment env cannot
// inject (nil: none): the environments' runner.Env.Check derive from it.
func Unsupported(env string, s *runner.Spec) error {
	for i := range kinds {
		k := &kinds[i]
		if k.On == nil || k.Supports(env) || !k.On(s) {
			continue
		}
		where := "run only in " + strings.Join(k.Envs, ", ")
		if len(k.Envs) == 1 && k.Envs[0] == "sim" {
			where = "are simulator-only"
		}
		note := ""
		if k.Note != "" {
			note = "; " + k.Note
		}
		return fmt.Errorf("%s: %s %s (--%s)%s", env, k.Summary, where, k.Params[0], note)
	}
	return nil
}

// ScenarioKinds lists, for every scenario command that injects a fault,
// the kind it belongs to.
func ScenarioKinds() map[string]string {
	m := map[string]string{}
	for _, k := range kinds {
		for _, c := range k.Scenario {
			m[c] = k.Name
		}
	}
	return m
}

// defaultNet is the default network, against which the slow kind is on.
var defaultNet = runner.DefaultSpec().Net

// everywhere is every environment: the kind shapes the workload or the
// network the environments all emulate.
var everywhere = []string{"sim", "udp"}

func rate(v float64) bool { return v > 0 }

var kinds = []Kind{
	{Name: "loss", Summary: "lost messages", Params: []string{"loss"},
		Causes: algorithms.BreaksOnLapse, // a lost release
		On:     func(s *runner.Spec) bool { return rate(s.Net.Loss) }, Envs: everywhere,
		Scenario: []string{"drop"}, Budget: "drops", Traces: []runner.TraceKind{runner.TraceDrop},
		// Fixed mixes: uniform in [0.01, 0.10]; a swarm: in [0.01, 0.2].
		Draw:  func(c *Choice, s *runner.Spec) { c.set("loss", &s.Net.Loss, c.Mild.Loss) },
		Swarm: func(c *Choice, s *runner.Spec) { c.set("loss", &s.Net.Loss, c.Wide.Loss) }},
	{Name: "dup", Summary: "duplicated messages", Params: []string{"dup"},
		On: func(s *runner.Spec) bool { return rate(s.Net.Dup) }, Envs: everywhere,
		Scenario: []string{"dup"}, Budget: "dups", Traces: []runner.TraceKind{runner.TraceDup},
		// [0.01, 0.10]; a swarm: [0.01, 0.3].
		Draw:  func(c *Choice, s *runner.Spec) { c.set("dup", &s.Net.Dup, c.Mild.Dup) },
		Swarm: func(c *Choice, s *runner.Spec) { c.set("dup", &s.Net.Dup, c.Wide.Dup) }},
	{Name: "reorder", Summary: "reordered messages", Params: []string{"reorder"},
		// A message held back (up to 2 RTT) is a delay that need not be
		// small against the gap between a holder's last token and the
		// next holder's ask: a waiter's ask, sent before the holder
		// extended, is granted after the holder's extension and
		// release, below the extension's token where a token is read
		// off when its round began (the naive votes; central's token
		// swarm, seed 19252, when its token was read so).
		Causes: algorithms.BreaksOnDelay,
		On:     func(s *runner.Spec) bool { return rate(s.Net.Reorder) }, Envs: everywhere,
		Scenario: []string{"deliver"}, Traces: []runner.TraceKind{runner.TraceDeliver},
		// [0.05, 0.25]; a swarm: [0.05, 0.5].
		Draw:  func(c *Choice, s *runner.Spec) { c.set("reorder", &s.Net.Reorder, c.Mild.Reorder) },
		Swarm: func(c *Choice, s *runner.Spec) { c.set("reorder", &s.Net.Reorder, c.Wide.Reorder) }},
	{Name: "partition", Summary: "network partitions", Params: []string{"partitions", "partition-len"},
		Causes: algorithms.BreaksOnLapse, // releases lost across it
		On:     func(s *runner.Spec) bool { return rate(s.Faults.Partitions) }, Envs: everywhere,
		Traces:   []runner.TraceKind{runner.TracePartition, runner.TraceHeal},
		Counters: []Counter{{"partitions", func(r *runner.Result) int64 { return int64(r.PartitionCount) }}},
		// [1, 4] per minute, the base's length (3 s if none); a swarm:
		// log-uniform in [0.5, 8], lengths log-uniform in [50 ms, 3T].
		Draw: drawPartition, Swarm: swarmPartition},
	{Name: "crash", Summary: "random crashes (crash rate)", Params: []string{"crash-rate", "downtime"},
		Causes: algorithms.BreaksOnRestart | algorithms.BreaksOnLapse, // a crashed holder releases nothing
		Note:   "the udp environment crashes nodes only as the workload asks (failover)",
		On:     func(s *runner.Spec) bool { return rate(s.Faults.CrashRate) }, Envs: []string{"sim"},
		Scenario: []string{"crash", "restart"}, Budget: "crashes",
		Traces:   []runner.TraceKind{runner.TraceCrash, runner.TraceRestart},
		Counters: []Counter{{"crashes", func(r *runner.Result) int64 { return int64(r.Crashes) }}},
		// [0.5, 2] per node per minute, the base's downtime (2 s if
		// none); a swarm: log-uniform in [0.3, 20], downtimes
		// log-uniform in [1 ms, 3M].
		Draw: drawCrash, Swarm: swarmCrash},
	{Name: "drift", Summary: "clock offsets and rate errors", Params: []string{"drift", "skew"},
		Causes: algorithms.BreaksOnClocks,
		On:     func(s *runner.Spec) bool { return rate(s.Clocks.Drift) || s.Clocks.Skew > 0 }, Envs: everywhere,
		Scenario: []string{"clock"}, Traces: []runner.TraceKind{runner.TraceClock},
		// Slewed clocks, rate error uniform in [0, ρ], skew in [0,
		// d_max]: within the allowances (unless the seed's clocks run
		// free, freeclock).
		Draw:  func(c *Choice, s *runner.Spec) { drawDrift(c, s, c.Mild.Drift, c.Mild.Skew) },
		Swarm: func(c *Choice, s *runner.Spec) { drawDrift(c, s, c.Wide.Drift, c.Wide.Skew) }},
	{Name: "freeclock", Summary: "free-running clocks at the edges of their ranges", Params: []string{"free-clocks", "clock-edges"},
		Causes: algorithms.BreaksOnClocks, // (judged through the drift kind's On: it sets offsets and rates)
		Envs:   everywhere, Traces: []runner.TraceKind{runner.TraceClock},
		Counters: []Counter{{"free_clock_seeds", func(r *runner.Result) int64 {
			return b2i(r.Params.Clocks.Free && r.Params.Clocks.Drift > 0)
		}}},
		// Free clocks at the edges, within ClockAllowance for an
		// algorithm that assumes a skew bound; with drift in too, free or
		// slewed with even odds.
		Draw:  func(c *Choice, s *runner.Spec) { drawFreeClocks(c, s, c.Mild.FreeRate, c.Mild.FreeSkew) },
		Swarm: func(c *Choice, s *runner.Spec) { drawFreeClocks(c, s, c.Wide.FreeRate, c.Wide.FreeSkew) }},
	{Name: "stale", Summary: "stale messages (held back for lease spans)", Params: []string{"stale", "stale-max"},
		Causes: algorithms.BreaksOnLate | algorithms.BreaksOnLapse | algorithms.BreaksOnDelay, // a release held back past its lease
		On:     func(s *runner.Spec) bool { return rate(s.Net.Stale) }, Envs: []string{"sim"},
		Counters: []Counter{{"stale_delivered", func(r *runner.Result) int64 { return r.StaleDelivered }}},
		// [0.25, 1.5] stalls per link per minute, up to the base's
		// stale-max (4 spans if none); a swarm: [0.25, 3], up to [1, 3]
		// × (M + downtime) / T spans.
		Draw: drawStale,
		Swarm: func(c *Choice, s *runner.Spec) {
			c.set("stale", &s.Net.Stale, c.Wide.Stale)
			swarmLongHold(c, s)
		}},
	{Name: "late", Summary: "late messages (held back alone for lease spans)", Params: []string{"late", "stale-max"},
		Causes: algorithms.BreaksOnLate | algorithms.BreaksOnLapse | algorithms.BreaksOnDelay,
		On:     func(s *runner.Spec) bool { return rate(s.Net.Late) }, Envs: []string{"sim"},
		// A swarm only: [0.001, 0.02] of the messages, up to the stale
		// kind's spans.
		Swarm: func(c *Choice, s *runner.Spec) {
			c.set("late", &s.Net.Late, c.Wide.Late)
			swarmLongHold(c, s)
		}},
	{Name: "giveup", Summary: "acquisitions given up mid-round", Params: []string{"giveup"},
		Envs: everywhere, Scenario: []string{"release"},
		Counters: []Counter{{"giveups_mid_round", func(r *runner.Result) int64 { return int64(r.GiveupsMidRound) }}},
		// Contention: [0.05, 0.3]; a swarm: [0.05, 0.5].
		Draw: func(c *Choice, s *runner.Spec) {
			if contention(s) {
				c.set("giveup", &s.Giveup, c.Mild.Giveup)
			}
		},
		Swarm: func(c *Choice, s *runner.Spec) {
			if contention(s) {
				c.set("giveup", &s.Giveup, c.Wide.Giveup)
			}
		}},
	{Name: "extend", Summary: "extensions of contention leases", Params: []string{"extend"},
		Envs: everywhere, Scenario: []string{"extend"},
		Counters: []Counter{
			{"extensions", func(r *runner.Result) int64 { return int64(r.Extensions) }},
			{"extend_releases", func(r *runner.Result) int64 { return int64(r.ExtendReleases) }},
			{"releases_mid_extension", func(r *runner.Result) int64 { return int64(r.ReleasesMidExtension) }}},
		// Contention: [0.1, 0.5]; a swarm: [0.1, 0.7].
		Draw: func(c *Choice, s *runner.Spec) {
			if contention(s) {
				c.set("extend", &s.Extend, c.Mild.Extend)
			}
		},
		Swarm: func(c *Choice, s *runner.Spec) {
			if contention(s) {
				c.set("extend", &s.Extend, c.Wide.Extend)
			}
		}},
	{Name: "resources", Summary: "several contended resources", Params: []string{"resources"},
		Envs:     everywhere,
		Counters: []Counter{{"multi_resource_seeds", func(r *runner.Result) int64 { return b2i(r.Params.Resources > 1) }}},
		// Contention: {2, 3, 4}; a swarm: {2, ..., 5}.
		Draw:  func(c *Choice, s *runner.Spec) { drawResources(c, s, c.Mild.Resources) },
		Swarm: func(c *Choice, s *runner.Spec) { drawResources(c, s, c.Wide.Resources) }},
	{Name: "shape", Summary: "clusters of unequal acceptors and proposers", Params: []string{"acceptors", "proposers"},
		Envs: everywhere,
		Counters: []Counter{
			{"proposer_only_seeds", func(r *runner.Result) int64 { return b2i(r.Params.Proposers > r.Params.Acceptors) }},
			{"acceptor_only_seeds", func(r *runner.Result) int64 { return b2i(r.Params.Acceptors > r.Params.Proposers) }}},
		// A swarm only: acceptors in {1..5}, proposers in {2..6}, unequal.
		Swarm: swarmShape},
	{Name: "slow", Summary: "slow networks", Params: []string{"jitter", "rtt"},
		// On: a network slower than the default one (1 ms round trips,
		// ±200 µs): delays no longer small against a quick hand-off.
		On:     func(s *runner.Spec) bool { return s.Net.RTT > defaultNet.RTT || s.Net.Jitter > defaultNet.Jitter },
		Causes: algorithms.BreaksOnDelay,
		Envs:   everywhere,
		// A swarm only: RTT log-uniform in [1 ms, T/5], jitter up to RTT/2.
		Swarm: swarmSlow},
	{Name: "pause", Summary: "process pauses", Note: "`leaselab cluster --pause D` pauses a real node process (SIGSTOP)",
		Causes: algorithms.BreaksOnLapse, // a holder paused past its lease
		Params: []string{"pause-rate", "pause-max"},
		On:     func(s *runner.Spec) bool { return s.Faults.PauseRate > 0 },
		Envs:   []string{"sim"}, Scenario: []string{"pause"}, Budget: "pauses", Opt: true,
		Traces:   []runner.TraceKind{runner.TracePause, runner.TraceResume},
		Counters: []Counter{{"pauses", func(r *runner.Result) int64 { return int64(r.Pauses) }}},
		// Pauses per node per minute uniform in [0.5, 2], each up to the
		// base's pause-max (10 s unless given: twice the default lease
		// span, so that some outlast a lease).
		Draw: func(c *Choice, s *runner.Spec) {
			r := c.Rand("pause")
			c.set("pause-rate", &s.Faults.PauseRate, uniformF(r, 0.5, 2))
		}},
	{Name: "clockjump", Summary: "clock jumps", Params: []string{"clock-jumps", "clock-jump-max", "clock-jump-len", "clock-strobe"},
		Causes: algorithms.BreaksOnClocks, Unassumed: true,
		On:   func(s *runner.Spec) bool { return s.Clocks.Jumps > 0 },
		Envs: []string{"sim"}, Scenario: []string{"clock"}, Opt: true,
		Traces:   []runner.TraceKind{runner.TraceClock},
		Counters: []Counter{{"clock_jumps", func(r *runner.Result) int64 { return int64(r.ClockJumps) }}},
		// Episodes per node per minute uniform in [0.5, 2], steps up to
		// the base's clock-jump-max; with even odds the seed's episodes
		// are strobes with a period uniform in [10 ms, 100 ms].
		Draw: func(c *Choice, s *runner.Spec) {
			r := c.Rand("clockjump")
			rate, strobe, period := uniformF(r, 0.5, 2), r.IntN(2) == 0, uniformF(r, 10, 100)
			c.set("clock-jumps", &s.Clocks.Jumps, rate)
			if strobe && c.Zero("clock-strobe", float64(s.Clocks.Strobe)) {
				s.Clocks.Strobe = time.Duration(period * float64(time.Millisecond))
			}
		}},
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
