package campaign

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/internal/pool"
	"leaselab/runner/sim"
)

// FaultKinds are the fault kinds a campaign can draw ("all" means every
// one).
var FaultKinds = []string{"loss", "dup", "reorder", "partition", "crash", "drift",
	"stale", "giveup", "extend", "resources", "freeclock"}

// Campaign defaults, used for a requested fault kind whose rate the base
// spec leaves at zero. Each seed draws its own rate in the range, from the
// seed, so a campaign covers mild and harsh mixes:
//
//	loss       Net.Loss uniform in [0.01, 0.10]
//	dup        Net.Dup uniform in [0.01, 0.10]
//	reorder    Net.Reorder uniform in [0.05, 0.25]
//	partition  Faults.Partitions uniform in [1, 4] per minute; PartitionLen
//	           from the base spec, 3 s if zero
//	crash      Faults.CrashRate uniform in [0.5, 2] per node per minute;
//	           Downtime from the base spec, 2 s if zero
//	drift      Clocks.Drift uniform in [0, Params.Drift] and Clocks.Skew
//	           uniform in [0, Params.DMax]: within what the algorithm is
//	           told to allow; clocks are slewed back at the skew bound.
//	           A base spec with a non-zero Clocks.Drift or Skew uses that
//	           value as given, even beyond the allowance (that is how a
//	           user shows FaTLease breaking with --skew 3s --dmax 1s).
//	stale      Net.Stale uniform in [0.25, 1.5] stalls per link per minute:
//	           the messages sent on a stalled link arrive when the stall
//	           ends, up to Net.StaleSpans lease spans (4 if zero) later
//	giveup     Spec.Giveup uniform in [0.05, 0.3]: clients abandon that
//	           share of acquisitions mid-round (contention)
//	extend     Spec.Extend uniform in [0.1, 0.5]: clients extend that
//	           share of their leases, then release or let them expire
//	           (contention)
//	resources  Spec.Resources uniform in {2, 3, 4}: every proposer picks
//	           one at random for each attempt (contention)
//	freeclock  clocks run free (Clocks.Free: constant rate error, never
//	           slewed back) at the edges of their ranges (Clocks.Edges:
//	           offsets ±Skew/2, rates ±Drift). Drift is uniform in [0,
//	           Params.Drift] and Skew in [0, Params.DMax]; for an
//	           algorithm that assumes a skew bound (Algorithm.SkewBound)
//	           Drift is cut so that two clocks stay within
//	           ClockAllowance(Params) of each other for the whole run, and
//	           Skew is uniform in what that leaves. With drift requested
//	           too, each seed picks free or slewed clocks with even odds.
//
// Rates the base spec sets (non-zero) are used as given, for every seed,
// whether or not their kind is requested; so are those Vary.Fixed names,
// zero included.
//
// CheckSpec.Vary asks each seed to draw parts of the experiment too, so a
// campaign covers the ways leases end and the ways nodes come back, not
// just one:
//
//	workload       contention clients let the lease run out (half the
//	               seeds) or release it after a hold uniform in [0, 2T];
//	               the pause before the next attempt is uniform in [0, T]
//	downtime       a crashed node stays down for a time log-uniform in
//	               [10 ms, 2M] (with the default M, half the seeds below
//	               0.37 s): short downtimes are what make a restart
//	               quarantine matter, and the more often a node restarts,
//	               the more often a message from before its crash finds it
//	partition-len  a partition lasts uniform in [100 ms, 2T]
const checkStream = 0x636865636b000007

// expandFaults checks and expands the fault kinds.
func expandFaults(kinds []string) ([]string, error) {
	if len(kinds) == 0 {
		return nil, fmt.Errorf("no fault kinds given (valid: all, swarm, %v)", FaultKinds)
	}
	if slices.Contains(kinds, Swarm) {
		if len(kinds) > 1 {
			return nil, fmt.Errorf("fault kind swarm draws every seed's kinds itself: give it alone, not with %v", kinds)
		}
		return []string{Swarm}, nil
	}
	set := map[string]bool{}
	for _, k := range kinds {
		if k == "all" {
			for _, f := range FaultKinds {
				set[f] = true
			}
			continue
		}
		if !slices.Contains(FaultKinds, k) {
			return nil, fmt.Errorf("unknown fault kind %q (valid: all, swarm, %v)", k, FaultKinds)
		}
		set[k] = true
	}
	var out []string
	for _, f := range FaultKinds {
		if set[f] {
			out = append(out, f)
		}
	}
	return out, nil
}

func uniformF(r *rand.Rand, lo, hi float64) float64 { return lo + r.Float64()*(hi-lo) }

// CheckSpecFor returns the spec campaign cs runs for seed: the base spec
// with the seed and the fault rates drawn for it. Running it with Run
// reproduces that seed of the campaign exactly.
func CheckSpecFor(cs CheckSpec, seed uint64) (runner.Spec, error) {
	kinds, err := expandFaults(cs.Faults)
	if err != nil {
		return runner.Spec{}, err
	}
	base, err := runner.Resolve(cs.Base)
	if err != nil {
		return runner.Spec{}, err
	}
	s, _ := specFor(base, kinds, cs.Vary, seed)
	return s, nil
}

// specFor is the spec of seed for a resolved base, and for a swarm the
// kinds it drew (by SwarmKinds).
func specFor(base runner.Plan, kinds []string, vary Vary, seed uint64) (runner.Spec, []bool) {
	if len(kinds) == 1 && kinds[0] == Swarm {
		return swarmSpecFor(base, vary, seed)
	}
	s := base.Spec
	s.Seed = seed
	d := drawFor(seed)
	d.vary(&s, vary)
	c := choice{draws: d, base: base.Spec, skewBound: base.Algo.SkewBound, vary: vary,
		useFree: slices.Contains(kinds, "freeclock") && (!slices.Contains(kinds, "drift") || d.freeCoin)}
	for _, k := range kinds {
		c.apply(&s, k)
	}
	return s, nil
}

// draws are one seed's random choices.
type draws struct {
	loss, dup, reorder, parts, crash, drift, skew float64
	expire                                        bool
	hold, pause, down, plen                       float64
	stale, giveup, extend                         float64
	resources                                     int
	freeCoin                                      bool
	freeRate, freeSkew                            float64
}

// drawFor draws every range in a fixed order whether or not it is used,
// so one kind's presence does not shift another kind's draw; later
// groups were added after the earlier ones, leaving every seed's earlier
// draws as they were.
func drawFor(seed uint64) draws {
	r := rand.New(rand.NewPCG(seed, checkStream))
	var d draws
	d.loss = uniformF(r, 0.01, 0.10)
	d.dup = uniformF(r, 0.01, 0.10)
	d.reorder = uniformF(r, 0.05, 0.25)
	d.parts = uniformF(r, 1, 4)
	d.crash = uniformF(r, 0.5, 2)
	d.drift = uniformF(r, 0, 1)
	d.skew = uniformF(r, 0, 1)
	d.expire = r.Float64() < 0.5
	d.hold = uniformF(r, 0, 2)
	d.pause = uniformF(r, 0, 1)
	d.down = uniformF(r, 0, 1)
	d.plen = uniformF(r, 0, 1)
	d.stale = uniformF(r, 0.25, 1.5)
	d.giveup = uniformF(r, 0.05, 0.3)
	d.extend = uniformF(r, 0.1, 0.5)
	d.resources = 2 + r.IntN(3)
	d.freeCoin = r.Float64() < 0.5
	d.freeRate = uniformF(r, 0, 1)
	d.freeSkew = uniformF(r, 0, 1)
	return d
}

// vary sets the parts of the experiment vary asks each seed to draw.
func (d draws) vary(s *runner.Spec, vary Vary) {
	p := s.Params
	if vary.Workload && s.Workload == "contention" {
		s.Release = !d.expire
		s.Hold = time.Duration(d.hold * float64(p.LeaseSpan))
		s.Pause = time.Duration(d.pause * float64(p.LeaseSpan))
	}
	if vary.Downtime {
		lo, hi := float64(10*time.Millisecond), float64(2*p.MaxLease)
		s.Faults.Downtime = time.Duration(lo * math.Pow(hi/lo, d.down))
	}
	if vary.PartitionLen {
		lo, hi := float64(100*time.Millisecond), float64(2*p.LeaseSpan)
		s.Faults.PartitionLen = time.Duration(lo + d.plen*(hi-lo))
	}
}

// choice is what a seed's fault kinds are set from.
type choice struct {
	draws
	base      runner.Spec
	skewBound bool // the algorithm assumes clocks within d_max (Algorithm.SkewBound)
	vary      Vary
	useFree   bool // this seed's clocks run free (freeclock, or its coin against drift)
}

// zero: the base spec leaves this rate to the campaign.
func (c *choice) zero(name string, v float64) bool { return v == 0 && !c.vary.fixed(name) }

// apply sets fault kind k's rates in s.
func (c *choice) apply(s *runner.Spec, k string) {
	contention := s.Workload == "contention"
	// The kinds that draw one rate: the kind, its flag name (Vary.Fixed),
	// the field, the rate drawn, and whether only contention uses it.
	for _, r := range []struct {
		kind, flag string
		field      *float64
		v          float64
		contention bool
	}{
		{"loss", "loss", &s.Net.Loss, c.loss, false},
		{"dup", "dup", &s.Net.Dup, c.dup, false},
		{"reorder", "reorder", &s.Net.Reorder, c.reorder, false},
		{"partition", "partitions", &s.Faults.Partitions, c.parts, false},
		{"crash", "crash-rate", &s.Faults.CrashRate, c.crash, false},
		{"stale", "stale", &s.Net.Stale, c.stale, false},
		{"giveup", "giveup", &s.Giveup, c.giveup, true},
		{"extend", "extend", &s.Extend, c.extend, true},
	} {
		if r.kind == k && (contention || !r.contention) && c.zero(r.flag, *r.field) {
			*r.field = r.v
		}
	}
	switch k {
	case "partition":
		if s.Faults.PartitionLen == 0 {
			s.Faults.PartitionLen = 3 * time.Second
		}
	case "crash":
		if s.Faults.Downtime == 0 {
			s.Faults.Downtime = 2 * time.Second
		}
	case "stale":
		if s.Net.StaleSpans == 0 {
			s.Net.StaleSpans = 4
		}
	case "resources":
		if contention && c.zero("resources", float64(s.Resources)) {
			s.Resources = c.resources
		}
	case "drift":
		if c.useFree {
			return // this seed's clocks run free (freeclock)
		}
		if c.zero("drift", c.base.Clocks.Drift) {
			s.Clocks.Drift = c.drift * s.Params.Drift
		}
		if c.zero("skew", float64(c.base.Clocks.Skew)) {
			s.Clocks.Skew = time.Duration(c.skew * float64(s.Params.DMax))
		}
	case "freeclock":
		if c.useFree {
			c.freeClocks(s)
		}
	}
}

// freeClocks makes the clocks run free at the edges of their ranges,
// within ClockAllowance for an algorithm that assumes a skew bound.
func (c *choice) freeClocks(s *runner.Spec) {
	s.Clocks.Free, s.Clocks.Edges = true, true
	rate := c.freeRate * s.Params.Drift
	left := float64(s.Params.DMax)
	if c.skewBound {
		// Two clocks may drift 2·rate·Duration apart over the run: keep
		// that, and the offsets, within ClockAllowance.
		bound := float64(ClockAllowance(s.Params))
		rate = math.Min(rate, bound/(2*float64(s.Duration)))
		left = bound - 2*math.Floor(rate*1e9)/1e9*float64(s.Duration)
	}
	if c.zero("drift", c.base.Clocks.Drift) {
		// Whole ppb, rounded down, as the clocks use them.
		s.Clocks.Drift = math.Floor(rate*1e9) / 1e9
	}
	if c.zero("skew", float64(c.base.Clocks.Skew)) {
		s.Clocks.Skew = time.Duration(c.freeSkew * max(left, 0))
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

// maxFirst bounds CheckResult.First and ViolatingSpecs.
const maxFirst = 20

// outcome is one seed's run.
type outcome struct {
	res           runner.Result
	err           error
	drew          []bool // swarm: the kinds this seed drew
	holderCrashes int
}

// holderCrashes counts the crashes of nodes that held a lease (by the
// checker's hold intervals) from a run's trace.
type holderCrashes struct {
	holds []int // open hold intervals by node
	n     int
}

func (h *holderCrashes) Observe(r *runner.TraceRec) {
	switch r.Kind {
	case runner.TraceHoldStart, runner.TraceHoldEnd:
		if int(r.Owner) >= len(h.holds) {
			h.holds = append(h.holds, make([]int, int(r.Owner)+1-len(h.holds))...)
		}
		if r.Kind == runner.TraceHoldStart {
			h.holds[r.Owner]++
		} else {
			h.holds[r.Owner]--
		}
	case runner.TraceCrash:
		if int(r.Node) < len(h.holds) && h.holds[r.Node] > 0 {
			h.n++
		}
	}
}

// add sums the outcome of seed into cr.
func (cr *CheckResult) add(seed uint64, o outcome) {
	res := o.res
	cr.LeasesAcquired += res.LeasesAcquired
	cr.Exercised.add(res)
	cr.Exercised.HolderCrashes += o.holderCrashes
	if o.drew != nil {
		if cr.Swarm == nil {
			cr.Swarm = make([]KindSeeds, len(SwarmKinds))
			for k, name := range SwarmKinds {
				cr.Swarm[k].Kind = name
			}
		}
		for k, in := range o.drew {
			if in {
				cr.Swarm[k].Seeds++
			}
		}
	}
	if res.Violations > 0 {
		cr.Violations += res.Violations
		cr.ViolatingSeeds = append(cr.ViolatingSeeds, seed)
		if len(cr.First) < maxFirst && len(res.ViolationList) > 0 {
			cr.First = append(cr.First, res.ViolationList[0])
			cr.ViolatingSpecs = append(cr.ViolatingSpecs, res.Params)
		}
	}
}

// Check runs a fault campaign: Seeds simulations with seeds FirstSeed,
// FirstSeed+1, ..., each with its own fault mix (CheckSpecFor), in
// parallel on GOMAXPROCS workers. The result does not depend on the
// scheduling: runs are independent and summed in seed order.
//
// Options: Progress gets the fraction of seeds done. Trace, Holds,
// ViolationTrace and Observers, if set, receive the output of a re-run of
// the first violating seed (nothing if there is none).
func Check(cs CheckSpec, opt runner.Options) (CheckResult, error) {
	start := time.Now()
	if cs.Seeds < 1 {
		return CheckResult{}, fmt.Errorf("need at least 1 seed, got %d", cs.Seeds)
	}
	kinds, err := expandFaults(cs.Faults)
	if err != nil {
		return CheckResult{}, err
	}
	if cs.Base.Env != "sim" {
		return CheckResult{}, fmt.Errorf("check runs in the simulator only, not env %q", cs.Base.Env)
	}
	base, err := runner.Resolve(cs.Base)
	if err != nil {
		return CheckResult{}, err
	}
	results := make([]outcome, cs.Seeds)
	// With StopAtFirst, last is the index of the lowest violating seed
	// found so far: seeds are started in order and none is started after
	// a violation, so every seed below it has run, whatever the
	// scheduling.
	last, done := cs.Seeds-1, 0
	pool.Pool{}.Run(cs.Seeds, func(_, i int) {
		spec, drew := specFor(base, kinds, cs.Vary, cs.FirstSeed+uint64(i))
		o := outcome{drew: drew}
		if p, err := base.With(spec); err != nil {
			o.err = fmt.Errorf("seed %d: %w", spec.Seed, err)
		} else {
			var hc holderCrashes
			o.res, o.err = sim.RunPlan(p, runner.Options{Observers: []runner.Observer{&hc}})
			o.holderCrashes = hc.n
		}
		results[i] = o
	}, func(i int) bool {
		done++
		if opt.Progress != nil {
			opt.Progress(float64(done) / float64(cs.Seeds))
		}
		if o := results[i]; cs.StopAtFirst && o.err == nil && o.res.Violations > 0 {
			last = min(last, i)
			return false
		}
		return true
	})
	cr := CheckResult{
		Algo:           cs.Base.Algo,
		Ablate:         cs.Base.Ablate,
		Faults:         kinds,
		Seeds:          last + 1,
		ViolatingSeeds: []uint64{},
	}
	for i, o := range results[:last+1] {
		if o.err != nil {
			return CheckResult{}, o.err
		}
		cr.add(cs.FirstSeed+uint64(i), o)
	}
	sort.Slice(cr.ViolatingSeeds, func(i, j int) bool { return cr.ViolatingSeeds[i] < cr.ViolatingSeeds[j] })
	if len(cr.ViolatingSeeds) > 0 && (opt.Trace != nil || opt.Holds != nil || opt.ViolationTrace != nil || len(opt.Observers) > 0) {
		spec, _ := specFor(base, kinds, cs.Vary, cr.ViolatingSeeds[0])
		p, err := base.With(spec)
		if err != nil {
			return cr, err
		}
		rerun := runner.Options{Trace: opt.Trace, Holds: opt.Holds, ViolationTrace: opt.ViolationTrace, Observers: opt.Observers}
		if _, err := sim.RunPlan(p, rerun); err != nil {
			return cr, err
		}
	}
	cr.WallMS = float64(time.Since(start).Microseconds()) / 1e3
	return cr, nil
}
