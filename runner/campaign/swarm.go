package campaign

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

// KindSeeds says how many of a swarm campaign's seeds drew a kind.
type KindSeeds struct {
	Kind  string `json:"kind"`
	Seeds int    `json:"seeds"`
}
