package faults

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

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
	// Draw sets the kind's parameters for one seed of a campaign; see
	// Choice. Nil: campaigns cannot draw it.
	Draw func(c *Choice, s *runner.Spec)
	// Opt: a campaign draws the kind only when asked for it by name, not
	// as part of "all" or a swarm. Clock jumps break what every
	// algorithm assumes of its clocks, so a campaign of all kinds would
	// find violations of correct algorithms; pauses break no assumption
	// the belief checker judges, but what they do shows in the protected
	// store's meters, and a campaign that means to measure them says so
	// (--faults all,pause); both keep the campaigns that do not ask for
	// them as they were.
	Opt bool
}

// Counter is one of a kind's exercised counters: its JSON name and its
// value in a run's result.
type Counter struct {
	Name string
	Of   func(r *runner.Result) int64
}

// Supports reports whether environment env can inject k.
func (k *Kind) Supports(env string) bool { return slices.Contains(k.Envs, env) }

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

// Choice is what one seed of a campaign draws a kind's parameters from
// (filled by runner/campaign).
type Choice struct {
	// Seed is the seed being drawn for.
	Seed uint64
	// Base is the campaign's base spec: a rate it sets (non-zero) is used
	// as given.
	Base runner.Spec
	// Fixed reports whether the caller fixed a parameter on purpose (zero
	// included); a kind never draws over it.
	Fixed func(param string) bool
}

// Zero reports whether the base spec leaves parameter name (now v in the
// spec being drawn) to the campaign: zero and not fixed.
func (c *Choice) Zero(name string, v float64) bool {
	return v == 0 && (c.Fixed == nil || !c.Fixed(name))
}

// Rand is the stream kind draws from for this seed: one per kind, so that
// a kind's draws never shift another's.
func (c *Choice) Rand(kind string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(kind))
	return Rand(c.Seed, StreamKind^h.Sum64())
}

func uniform(r *rand.Rand, lo, hi float64) float64 { return lo + r.Float64()*(hi-lo) }

// everywhere is every environment: the kind shapes the workload or the
// network the environments all emulate.
var everywhere = []string{"sim", "udp"}

func rate(v float64) bool { return v > 0 }

var kinds = []Kind{
	{Name: "loss", Summary: "lost messages", Params: []string{"loss"},
		On: func(s *runner.Spec) bool { return rate(s.Net.Loss) }, Envs: everywhere,
		Scenario: []string{"drop"}, Budget: "drops", Traces: []runner.TraceKind{runner.TraceDrop}},
	{Name: "dup", Summary: "duplicated messages", Params: []string{"dup"},
		On: func(s *runner.Spec) bool { return rate(s.Net.Dup) }, Envs: everywhere,
		Scenario: []string{"dup"}, Budget: "dups", Traces: []runner.TraceKind{runner.TraceDup}},
	{Name: "reorder", Summary: "reordered messages", Params: []string{"reorder"},
		On: func(s *runner.Spec) bool { return rate(s.Net.Reorder) }, Envs: everywhere,
		Scenario: []string{"deliver"}, Traces: []runner.TraceKind{runner.TraceDeliver}},
	{Name: "partition", Summary: "network partitions", Params: []string{"partitions", "partition-len"},
		On: func(s *runner.Spec) bool { return rate(s.Faults.Partitions) }, Envs: everywhere,
		Traces:   []runner.TraceKind{runner.TracePartition, runner.TraceHeal},
		Counters: []Counter{{"partitions", func(r *runner.Result) int64 { return int64(r.PartitionCount) }}}},
	{Name: "crash", Summary: "random crashes (crash rate)", Params: []string{"crash-rate", "downtime"},
		Note: "the udp environment crashes nodes only as the workload asks (failover)",
		On:   func(s *runner.Spec) bool { return rate(s.Faults.CrashRate) }, Envs: []string{"sim"},
		Scenario: []string{"crash", "restart"}, Budget: "crashes",
		Traces:   []runner.TraceKind{runner.TraceCrash, runner.TraceRestart},
		Counters: []Counter{{"crashes", func(r *runner.Result) int64 { return int64(r.Crashes) }}}},
	{Name: "drift", Summary: "clock offsets and rate errors", Params: []string{"drift", "skew"},
		On: func(s *runner.Spec) bool { return rate(s.Clocks.Drift) || s.Clocks.Skew > 0 }, Envs: everywhere,
		Scenario: []string{"clock"}, Traces: []runner.TraceKind{runner.TraceClock}},
	{Name: "stale", Summary: "stale messages (held back for lease spans)", Params: []string{"stale", "stale-max"},
		On: func(s *runner.Spec) bool { return rate(s.Net.Stale) }, Envs: []string{"sim"},
		Counters: []Counter{{"stale_delivered", func(r *runner.Result) int64 { return r.StaleDelivered }}}},
	{Name: "late", Summary: "late messages (held back alone for lease spans)", Params: []string{"late", "stale-max"},
		On: func(s *runner.Spec) bool { return rate(s.Net.Late) }, Envs: []string{"sim"}},
	{Name: "giveup", Summary: "acquisitions given up mid-round", Params: []string{"giveup"},
		Envs: everywhere, Scenario: []string{"release"},
		Counters: []Counter{{"giveups_mid_round", func(r *runner.Result) int64 { return int64(r.GiveupsMidRound) }}}},
	{Name: "extend", Summary: "extensions of contention leases", Params: []string{"extend"},
		Envs: everywhere, Scenario: []string{"extend"},
		Counters: []Counter{
			{"extensions", func(r *runner.Result) int64 { return int64(r.Extensions) }},
			{"extend_releases", func(r *runner.Result) int64 { return int64(r.ExtendReleases) }},
			{"releases_mid_extension", func(r *runner.Result) int64 { return int64(r.ReleasesMidExtension) }}}},
	{Name: "resources", Summary: "several contended resources", Params: []string{"resources"},
		Envs:     everywhere,
		Counters: []Counter{{"multi_resource_seeds", func(r *runner.Result) int64 { return b2i(r.Params.Resources > 1) }}}},
	{Name: "freeclock", Summary: "free-running clocks at the edges of their ranges", Params: []string{"free-clocks", "clock-edges"},
		Envs: everywhere, Traces: []runner.TraceKind{runner.TraceClock},
		Counters: []Counter{{"free_clock_seeds", func(r *runner.Result) int64 {
			return b2i(r.Params.Clocks.Free && r.Params.Clocks.Drift > 0)
		}}}},
	{Name: "pause", Summary: "process pauses", Note: "`leaselab cluster --pause D` pauses a real node process (SIGSTOP)",
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
			if rate := uniform(r, 0.5, 2); c.Zero("pause-rate", s.Faults.PauseRate) {
				s.Faults.PauseRate = rate
			}
		}},
	{Name: "clockjump", Summary: "clock jumps",
		Params: []string{"clock-jumps", "clock-jump-max", "clock-jump-len", "clock-strobe"},
		On:     func(s *runner.Spec) bool { return s.Clocks.Jumps > 0 },
		Envs:   []string{"sim"}, Scenario: []string{"clock"}, Opt: true,
		Traces:   []runner.TraceKind{runner.TraceClock},
		Counters: []Counter{{"clock_jumps", func(r *runner.Result) int64 { return int64(r.ClockJumps) }}},
		// Episodes per node per minute uniform in [0.5, 2], steps up to
		// the base's clock-jump-max; with even odds the seed's episodes
		// are strobes with a period uniform in [10 ms, 100 ms].
		Draw: func(c *Choice, s *runner.Spec) {
			r := c.Rand("clockjump")
			rate, strobe, period := uniform(r, 0.5, 2), r.IntN(2) == 0, uniform(r, 10, 100)
			if c.Zero("clock-jumps", s.Clocks.Jumps) {
				s.Clocks.Jumps = rate
			}
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
