package faults

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// How campaigns draw the kinds (runner/campaign; each Kind's Draw and
// Swarm). A campaign seed's values come from two streams of its own,
// drawn whole in a fixed order whether a kind is used or not, so that one
// kind's presence never shifts another's draw: Mild for the fixed mixes
// (`check --faults KINDS`), Wide for a swarm (`check --faults swarm`,
// where every seed also draws which kinds are in). A kind added later
// draws from a stream of its own (Choice.Rand), leaving every seed's
// earlier draws as they were.

// StreamCheck and StreamSwarm are the streams of a campaign seed's Mild
// and Wide draws.
const (
	StreamCheck = 0x636865636b000007
	StreamSwarm = 0x737761726d000001
)

// Mild are one seed's draws for the fixed mixes.
type Mild struct {
	Loss, Dup, Reorder, Parts, Crash, Drift, Skew float64
	Expire                                        bool
	Hold, Pause, Down, PLen                       float64
	Stale, Giveup, Extend                         float64
	Resources                                     int
	FreeCoin                                      bool
	FreeRate, FreeSkew                            float64
}

func uniformF(r *rand.Rand, lo, hi float64) float64 { return lo + r.Float64()*(hi-lo) }

func logUniform(r *rand.Rand, lo, hi float64) float64 { return lo * math.Pow(hi/lo, r.Float64()) }

// DrawMild draws seed's Mild values.
func DrawMild(seed uint64) Mild {
	r := Rand(seed, StreamCheck)
	var d Mild
	d.Loss = uniformF(r, 0.01, 0.10)
	d.Dup = uniformF(r, 0.01, 0.10)
	d.Reorder = uniformF(r, 0.05, 0.25)
	d.Parts = uniformF(r, 1, 4)
	d.Crash = uniformF(r, 0.5, 2)
	d.Drift = uniformF(r, 0, 1)
	d.Skew = uniformF(r, 0, 1)
	d.Expire = r.Float64() < 0.5
	d.Hold = uniformF(r, 0, 2)
	d.Pause = uniformF(r, 0, 1)
	d.Down = uniformF(r, 0, 1)
	d.PLen = uniformF(r, 0, 1)
	d.Stale = uniformF(r, 0.25, 1.5)
	d.Giveup = uniformF(r, 0.05, 0.3)
	d.Extend = uniformF(r, 0.1, 0.5)
	d.Resources = 2 + r.IntN(3)
	d.FreeCoin = r.Float64() < 0.5
	d.FreeRate = uniformF(r, 0, 1)
	d.FreeSkew = uniformF(r, 0, 1)
	return d
}

// Wide are one seed's swarm draws: which kinds are in (In, by
// SwarmKinds), then every kind's value.
type Wide struct {
	In                              []bool
	Loss, Dup, Reorder              float64
	Parts, PLen                     float64
	Crash, Down                     float64
	Stale, StaleSpans, Late         float64
	Giveup, Extend                  float64
	Resources, Acceptors, Proposers int
	RTT, Jitter                     float64
	FreeCoin                        bool
	Drift, Skew, FreeRate, FreeSkew float64
}

// DrawWide draws seed's Wide values: each swarm kind in with even odds
// (at least one), then the values.
func DrawWide(seed uint64) Wide {
	r := Rand(seed, StreamSwarm)
	kinds := SwarmKinds()
	d := Wide{In: make([]bool, len(kinds))}
	any := false
	for i := range d.In {
		d.In[i] = r.Float64() < 0.5
		any = any || d.In[i]
	}
	if k := r.IntN(len(kinds)); !any {
		d.In[k] = true
	}
	d.Loss = uniformF(r, 0.01, 0.2)
	d.Dup = uniformF(r, 0.01, 0.3)
	d.Reorder = uniformF(r, 0.05, 0.5)
	d.Parts = logUniform(r, 0.5, 8)
	d.PLen = r.Float64()
	d.Crash = logUniform(r, 0.3, 20)
	d.Down = r.Float64()
	d.Stale = uniformF(r, 0.25, 3)
	d.StaleSpans = uniformF(r, 1, 3)
	d.Giveup = uniformF(r, 0.05, 0.5)
	d.Extend = uniformF(r, 0.1, 0.7)
	d.Resources = 2 + r.IntN(4)
	d.Acceptors = 1 + r.IntN(5)
	d.Proposers = 2 + r.IntN(4)
	if d.Acceptors > 1 && d.Proposers >= d.Acceptors {
		d.Proposers++ // unequal: {2..6} but the acceptors' number
	}
	d.RTT = r.Float64()
	d.Jitter = r.Float64()
	d.FreeCoin = r.Float64() < 0.5
	d.Drift, d.Skew = r.Float64(), r.Float64()
	d.FreeRate, d.FreeSkew = r.Float64(), r.Float64()
	d.Late = uniformF(r, 0.001, 0.02)
	return d
}

// Has reports whether kind is in for a swarm seed with draws d.
func (d *Wide) Has(kind string) bool {
	i := slices.Index(SwarmKinds(), kind)
	return i >= 0 && d.In[i]
}

// Choice is what one seed of a campaign draws its kinds from.
type Choice struct {
	// Seed is the seed being drawn for.
	Seed uint64
	// Plan is the campaign's base, resolved: its Spec's rates, when set
	// (non-zero), are used as given; its algorithm says whether clocks
	// must stay within d_max (SkewBound) and which clusters it runs.
	Plan runner.Plan
	// Fixed reports whether the caller fixed a parameter on purpose (zero
	// included); a kind never draws over it.
	Fixed func(param string) bool
	// VaryDowntime, VaryPartitionLen: the campaign draws these per seed.
	VaryDowntime, VaryPartitionLen bool
	Mild                           Mild
	// Wide: the swarm's draws (nil in a fixed mix).
	Wide *Wide
	// UseFree: this seed's clocks run free (kind freeclock, or, with
	// drift in too, its coin).
	UseFree bool
}

// NewChoice is the choice of seed for a campaign of kinds (names) over
// plan; wide: the seed's swarm draws (nil for a fixed mix).
func NewChoice(plan runner.Plan, seed uint64, kinds []string, wide *Wide, fixed func(string) bool) *Choice {
	c := &Choice{Seed: seed, Plan: plan, Fixed: fixed, Mild: DrawMild(seed), Wide: wide}
	if wide != nil {
		c.UseFree = wide.Has("freeclock") && (!wide.Has("drift") || wide.FreeCoin)
	} else {
		c.UseFree = slices.Contains(kinds, "freeclock") && (!slices.Contains(kinds, "drift") || c.Mild.FreeCoin)
	}
	return c
}

// Zero reports whether the base spec leaves parameter name (now v in the
// spec being drawn) to the campaign: zero and not fixed.
func (c *Choice) Zero(name string, v float64) bool {
	return v == 0 && (c.Fixed == nil || !c.Fixed(name))
}

// fixed reports whether the caller fixed parameter name.
func (c *Choice) fixed(name string) bool { return c.Fixed != nil && c.Fixed(name) }

// Rand is the stream kind draws from for this seed: one per kind, so that
// a kind's draws never shift another's.
func (c *Choice) Rand(kind string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(kind))
	return Rand(c.Seed, StreamKind^h.Sum64())
}

// set sets field to v if the base leaves it to the campaign.
func (c *Choice) set(param string, field *float64, v float64) {
	if c.Zero(param, *field) {
		*field = v
	}
}

// contention: giveup, extend and resources are behaviours of contention
// clients.
func contention(s *runner.Spec) bool { return s.Workload == "contention" }

// The kinds' draws (Kind.Draw for the fixed mixes, Kind.Swarm for a
// swarm): each sets what the base spec leaves to the campaign.

func drawPartition(c *Choice, s *runner.Spec) {
	c.set("partitions", &s.Faults.Partitions, c.Mild.Parts)
	if s.Faults.PartitionLen == 0 {
		s.Faults.PartitionLen = 3 * time.Second
	}
}

func swarmPartition(c *Choice, s *runner.Spec) {
	c.set("partitions", &s.Faults.Partitions, c.Wide.Parts)
	if c.VaryPartitionLen {
		lo, hi := float64(50*time.Millisecond), float64(3*s.Params.LeaseSpan)
		s.Faults.PartitionLen = time.Duration(lo * math.Pow(hi/lo, c.Wide.PLen))
	} else if s.Faults.PartitionLen == 0 {
		s.Faults.PartitionLen = 3 * time.Second
	}
}

func drawCrash(c *Choice, s *runner.Spec) {
	c.set("crash-rate", &s.Faults.CrashRate, c.Mild.Crash)
	if s.Faults.Downtime == 0 {
		s.Faults.Downtime = 2 * time.Second
	}
}

func swarmCrash(c *Choice, s *runner.Spec) {
	c.set("crash-rate", &s.Faults.CrashRate, c.Wide.Crash)
	if c.VaryDowntime {
		lo, hi := float64(time.Millisecond), float64(3*s.Params.MaxLease)
		s.Faults.Downtime = time.Duration(lo * math.Pow(hi/lo, c.Wide.Down))
	} else if s.Faults.Downtime == 0 {
		s.Faults.Downtime = 2 * time.Second
	}
}

func drawStale(c *Choice, s *runner.Spec) {
	c.set("stale", &s.Net.Stale, c.Mild.Stale)
	if s.Net.StaleSpans == 0 {
		s.Net.StaleSpans = 4
	}
}

// swarmLongHold: a swarm's stalled and late messages can stay past M and
// past a downtime, so they reach a sender that restarted and waited out
// its quarantine.
func swarmLongHold(c *Choice, s *runner.Spec) {
	if !c.fixed("stale-max") {
		p := s.Params
		s.Net.StaleSpans = c.Wide.StaleSpans * float64(p.MaxLease+s.Faults.Downtime) / float64(p.LeaseSpan)
	}
}

func drawResources(c *Choice, s *runner.Spec, n int) {
	if contention(s) && c.Zero("resources", float64(s.Resources)) {
		s.Resources = n
	}
}

// drawDrift: slewed clocks, rate error and skew within the algorithms'
// allowances (unless this seed's clocks run free).
func drawDrift(c *Choice, s *runner.Spec, drift, skew float64) {
	if c.UseFree {
		return
	}
	if c.Zero("drift", c.Plan.Spec.Clocks.Drift) {
		s.Clocks.Drift = drift * s.Params.Drift
	}
	if c.Zero("skew", float64(c.Plan.Spec.Clocks.Skew)) {
		s.Clocks.Skew = time.Duration(skew * float64(s.Params.DMax))
	}
}

// drawFreeClocks makes the clocks run free at the edges of their ranges,
// within ClockAllowance for an algorithm that assumes a skew bound.
func drawFreeClocks(c *Choice, s *runner.Spec, freeRate, freeSkew float64) {
	if !c.UseFree {
		return
	}
	s.Clocks.Free, s.Clocks.Edges = true, true
	rate := freeRate * s.Params.Drift
	left := float64(s.Params.DMax)
	if c.Plan.Algo.SkewBound {
		// Two clocks may drift 2·rate·Duration apart over the run: keep
		// that, and the offsets, within ClockAllowance.
		bound := float64(ClockAllowance(s.Params))
		rate = math.Min(rate, bound/(2*float64(s.Duration)))
		left = bound - 2*math.Floor(rate*1e9)/1e9*float64(s.Duration)
	}
	if c.Zero("drift", c.Plan.Spec.Clocks.Drift) {
		// Whole ppb, rounded down, as the clocks use them.
		s.Clocks.Drift = math.Floor(rate*1e9) / 1e9
	}
	if c.Zero("skew", float64(c.Plan.Spec.Clocks.Skew)) {
		s.Clocks.Skew = time.Duration(freeSkew * max(left, 0))
	}
}

// ClockAllowance is how far apart two clocks may be, at most, for the
// campaign's free-running clocks: Params.DMax, plus what two clocks whose
// rates are within Params.Drift = ρ of true time drift apart over the life
// of one lease and its safety period (v + 2·d_max), 2ρ(v + 2·d_max)/(1 -
// ρ). That is the assumption FaTLease's holder margin is built on (d_max
// when a lease is proposed, drift within ρ while it lives; fatlease/doc.go):
// within it every algorithm must stay safe, and FaTLease with its
// drift-margin ablated need not. Naive and PaxosLease assume no bound on
// the offsets at all (Algorithm.SkewBound false).
func ClockAllowance(p algorithms.Params) time.Duration {
	rho := p.Drift
	m := math.Ceil(2 * rho * float64(p.LeaseSpan+2*p.DMax) / (1 - rho))
	return p.DMax + time.Duration(m)
}

// swarmShape: a cluster shape of unequal acceptors and proposers, if the
// algorithm accepts it.
func swarmShape(c *Choice, s *runner.Spec) {
	if c.fixed("acceptors") || c.fixed("proposers") {
		return
	}
	cl := algorithms.NewCluster(c.Wide.Acceptors, c.Wide.Proposers)
	if c.Plan.Algo.ValidateConfig(s.Params, cl, s.Ablate) == nil {
		s.Acceptors, s.Proposers = c.Wide.Acceptors, c.Wide.Proposers
	}
}

// swarmSlow: a slow network, leases short against message delays, if the
// spec stays valid.
func swarmSlow(c *Choice, s *runner.Spec) {
	if c.fixed("rtt") || c.fixed("jitter") {
		return
	}
	t := *s
	lo, hi := float64(time.Millisecond), float64(s.Params.LeaseSpan/5)
	t.Net.RTT = time.Duration(lo * math.Pow(hi/lo, c.Wide.RTT))
	t.Net.Jitter = time.Duration(c.Wide.Jitter * float64(t.Net.RTT/2))
	if !c.fixed("response-timeout") {
		t.Params.ResponseTimeout = max(t.Params.ResponseTimeout, runner.DefaultResponseTimeout(t.Net))
	}
	if _, err := c.Plan.With(t); err == nil {
		*s = t
	}
}

// SwarmKinds are the kinds a swarm seed draws in or out (those with a
// Swarm draw), in table order: Wide.In and a swarm's counts follow it.
func SwarmKinds() []string {
	var names []string
	for _, k := range kinds {
		if k.Swarm != nil {
			names = append(names, k.Name)
		}
	}
	return names
}

// CampaignKinds are the kinds `check --faults` takes by name (those with
// a Draw), in table order; AllKinds those "all" means (less the Opt ones).
func CampaignKinds() []string {
	var names []string
	for _, k := range kinds {
		if k.Draw != nil {
			names = append(names, k.Name)
		}
	}
	return names
}

// AllKinds are the kinds "all" draws: every campaign kind but the Opt
// ones.
func AllKinds() []string {
	var names []string
	for _, k := range kinds {
		if k.Draw != nil && !k.Opt {
			names = append(names, k.Name)
		}
	}
	return names
}
