package campaign

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// Swarm is the fault "kind" that asks every seed to draw its own mix
// (swarm testing, as FoundationDB's simulator and TigerBeetle's VOPR do
// it): each of SwarmKinds is in or out with even odds (at least one in),
// and each kind that is in draws its intensity from a range wider than
// the fixed mixes use, so that one campaign has seeds with a single
// harsh fault as well as seeds with many mild ones. A fault that is
// always on can mask another (constant loss keeps a lease from ever
// being contended in the way a crash needs), which is why a swarm finds
// what an "all" campaign of the same size misses, and the other way
// round. The draws, from the seed's own stream (independent of the fixed
// mixes'):
//
//	loss       Net.Loss uniform in [0.01, 0.2]
//	dup        Net.Dup uniform in [0.01, 0.3]
//	reorder    Net.Reorder uniform in [0.05, 0.5]
//	partition  Faults.Partitions log-uniform in [0.5, 8] per minute;
//	           PartitionLen log-uniform in [50 ms, 3T]
//	crash      Faults.CrashRate log-uniform in [0.3, 20] per node per
//	           minute; Downtime log-uniform in [1 ms, 3M]: restarts
//	           within the quarantine as well as long after it; with
//	           several proposers most crashes hit a holder or a node in
//	           the middle of a round (Exercised.HolderCrashes counts the
//	           holders)
//	drift      slewed clocks, as the "drift" kind
//	freeclock  free-running clocks at their edges, as the "freeclock"
//	           kind (with drift in too: free or slewed with even odds)
//	stale      Net.Stale uniform in [0.25, 3] stalls per link per
//	           minute, each up to StaleSpans lease spans long, StaleSpans
//	           uniform in [1, 3] × (M + Downtime)/T: a message can stay in
//	           a stalled link past the lease's M and past a crash's
//	           downtime, so it arrives after its sender restarted and
//	           waited out its quarantine
//	late       Net.Late uniform in [0.001, 0.02]: that share of the
//	           messages is held back alone, up to StaleSpans lease spans
//	           (as for stale), and later messages on its link overtake it:
//	           a Propose and a Release of a node's earlier life arrive
//	           after its new lease (a stall keeps its link in order, so it
//	           cannot do this)
//	giveup     Spec.Giveup uniform in [0.05, 0.5]
//	extend     Spec.Extend uniform in [0.1, 0.7]
//	resources  Spec.Resources uniform in {2, ..., 5}
//	shape      the cluster: acceptors uniform in {1, ..., 5} and
//	           proposers in {2, ..., 6}, unequal, so some nodes only
//	           propose (proposers > acceptors: they have no acceptor
//	           state that would push their ballots up) or only accept
//	slow       a slow network: RTT log-uniform in [1 ms, T/5], jitter
//	           uniform in [0, RTT/2], the response timeout raised to
//	           DefaultResponseTimeout if it is shorter: leases short
//	           against message delays
//
// As in the fixed mixes, a rate the base spec sets (non-zero) or the
// caller fixed (Vary.Fixed: loss, dup, reorder, partitions, crash-rate,
// drift, skew, stale, late, giveup, extend, resources; also acceptors,
// proposers, rtt, jitter and response-timeout for shape and slow) is used
// as given for every seed; Vary's workload, downtime and partition-length
// draws are those of the fixed mixes unless a kind above widens them. A
// shape or slow network the algorithm does not accept (its
// ValidateConfig) is left out for that seed. giveup, extend and
// resources apply to the contention workload only.
const Swarm = "swarm"

// SwarmKinds are the kinds a swarm seed draws in or out, in the order of
// CheckResult.Swarm.
var SwarmKinds = []string{"loss", "dup", "reorder", "partition", "crash", "drift", "freeclock",
	"stale", "late", "giveup", "extend", "resources", "shape", "slow"}

const swarmStream = 0x737761726d000001

// KindSeeds says how many of a swarm campaign's seeds drew a kind.
type KindSeeds struct {
	Kind  string `json:"kind"`
	Seeds int    `json:"seeds"`
}

// swarmDraws are one seed's swarm choices: every value is drawn, in a
// fixed order, whether its kind is in or not.
type swarmDraws struct {
	in                              []bool // by SwarmKinds
	loss, dup, reorder              float64
	parts, plen                     float64
	crash, down                     float64
	stale, staleSpans, late         float64
	giveup, extend                  float64
	resources, acceptors, proposers int
	rtt, jitter                     float64
	freeCoin                        bool
	drift, skew, freeRate, freeSkew float64
}

func logUniform(r *rand.Rand, lo, hi float64) float64 { return lo * math.Pow(hi/lo, r.Float64()) }

func swarmDrawFor(seed uint64) swarmDraws {
	r := rand.New(rand.NewPCG(seed, swarmStream))
	d := swarmDraws{in: make([]bool, len(SwarmKinds))}
	any := false
	for i := range d.in {
		d.in[i] = r.Float64() < 0.5
		any = any || d.in[i]
	}
	if k := r.IntN(len(SwarmKinds)); !any {
		d.in[k] = true
	}
	d.loss = uniformF(r, 0.01, 0.2)
	d.dup = uniformF(r, 0.01, 0.3)
	d.reorder = uniformF(r, 0.05, 0.5)
	d.parts = logUniform(r, 0.5, 8)
	d.plen = r.Float64()
	d.crash = logUniform(r, 0.3, 20)
	d.down = r.Float64()
	d.stale = uniformF(r, 0.25, 3)
	d.staleSpans = uniformF(r, 1, 3)
	d.giveup = uniformF(r, 0.05, 0.5)
	d.extend = uniformF(r, 0.1, 0.7)
	d.resources = 2 + r.IntN(4)
	d.acceptors = 1 + r.IntN(5)
	d.proposers = 2 + r.IntN(4)
	if d.acceptors > 1 && d.proposers >= d.acceptors {
		d.proposers++ // unequal: {2..6} but the acceptors' number
	}
	d.rtt = r.Float64()
	d.jitter = r.Float64()
	d.freeCoin = r.Float64() < 0.5
	d.drift, d.skew = r.Float64(), r.Float64()
	d.freeRate, d.freeSkew = r.Float64(), r.Float64()
	d.late = uniformF(r, 0.001, 0.02)
	return d
}

// has reports whether kind k is in for draws d.
func (d *swarmDraws) has(k string) bool { return d.in[slices.Index(SwarmKinds, k)] }

// swarmSpecFor returns the spec of a swarm campaign's seed and the kinds
// it drew.
func swarmSpecFor(base runner.Plan, vary Vary, seed uint64) (runner.Spec, []bool) {
	s := base.Spec
	s.Seed = seed
	// The workload, downtime and partition-length draws of the fixed
	// mixes, from their stream.
	fixed := drawFor(seed)
	fixed.vary(&s, vary)
	d := swarmDrawFor(seed)
	p := s.Params
	c := choice{base: base.Spec, skewBound: base.Algo.SkewBound, vary: vary}
	contention := s.Workload == "contention"
	set := func(kind, flag string, field *float64, v float64) {
		if d.has(kind) && c.zero(flag, *field) {
			*field = v
		}
	}
	set("loss", "loss", &s.Net.Loss, d.loss)
	set("dup", "dup", &s.Net.Dup, d.dup)
	set("reorder", "reorder", &s.Net.Reorder, d.reorder)
	set("partition", "partitions", &s.Faults.Partitions, d.parts)
	if d.has("partition") {
		if vary.PartitionLen {
			lo, hi := float64(50*time.Millisecond), float64(3*p.LeaseSpan)
			s.Faults.PartitionLen = time.Duration(lo * math.Pow(hi/lo, d.plen))
		} else if s.Faults.PartitionLen == 0 {
			s.Faults.PartitionLen = 3 * time.Second
		}
	}
	set("crash", "crash-rate", &s.Faults.CrashRate, d.crash)
	if d.has("crash") {
		if vary.Downtime {
			lo, hi := float64(time.Millisecond), float64(3*p.MaxLease)
			s.Faults.Downtime = time.Duration(lo * math.Pow(hi/lo, d.down))
		} else if s.Faults.Downtime == 0 {
			s.Faults.Downtime = 2 * time.Second
		}
	}
	set("stale", "stale", &s.Net.Stale, d.stale)
	set("late", "late", &s.Net.Late, d.late)
	if (d.has("stale") || d.has("late")) && !vary.fixed("stale-max") {
		// Past M and past a downtime: a stalled message outlives its
		// sender's crash and quarantine.
		s.Net.StaleSpans = d.staleSpans * float64(p.MaxLease+s.Faults.Downtime) / float64(p.LeaseSpan)
	}
	if contention {
		set("giveup", "giveup", &s.Giveup, d.giveup)
		set("extend", "extend", &s.Extend, d.extend)
		if d.has("resources") && c.zero("resources", float64(s.Resources)) {
			s.Resources = d.resources
		}
	}
	if d.has("shape") && !vary.fixed("acceptors") && !vary.fixed("proposers") {
		cl := algorithms.NewCluster(d.acceptors, d.proposers)
		if base.Algo.ValidateConfig(s.Params, cl, s.Ablate) == nil {
			s.Acceptors, s.Proposers = d.acceptors, d.proposers
		}
	}
	if d.has("slow") && !vary.fixed("rtt") && !vary.fixed("jitter") {
		t := s
		lo, hi := float64(time.Millisecond), float64(p.LeaseSpan/5)
		t.Net.RTT = time.Duration(lo * math.Pow(hi/lo, d.rtt))
		t.Net.Jitter = time.Duration(d.jitter * float64(t.Net.RTT/2))
		if !vary.fixed("response-timeout") {
			t.Params.ResponseTimeout = max(t.Params.ResponseTimeout, runner.DefaultResponseTimeout(t.Net))
		}
		if _, err := base.With(t); err == nil {
			s = t
		}
	}
	// Clocks: the fixed mixes' drift and freeclock rules, with this
	// seed's draws.
	c.draws = draws{drift: d.drift, skew: d.skew, freeRate: d.freeRate, freeSkew: d.freeSkew}
	c.useFree = d.has("freeclock") && (!d.has("drift") || d.freeCoin)
	if d.has("drift") {
		c.apply(&s, "drift")
	}
	if d.has("freeclock") {
		c.apply(&s, "freeclock")
	}
	return s, d.in
}
