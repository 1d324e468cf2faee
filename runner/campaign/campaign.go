package campaign

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
	"leaselab/runner/internal/pool"
	"leaselab/runner/shard"
	"leaselab/runner/sim"
)

// FaultKinds are the fault kinds a campaign can draw by name (the fault-kind
// table's, runner/faults.Kinds: those with a fixed-mix draw; "all" means
// every one of them but pause and clockjump, which a campaign draws only
// when asked by name, faults.Kind.Opt).
var FaultKinds = faults.CampaignKinds()

// SwarmKinds are the kinds a swarm seed draws in or out, in the order of
// CheckResult.Swarm (faults.SwarmKinds).
var SwarmKinds = faults.SwarmKinds()

// Each fault kind's draw is in the fault-kind table (runner/faults,
// Kind.Draw for a fixed mix, Kind.Swarm for a swarm), with its ranges;
// a kind asked for sets only what the base spec leaves at zero and the
// caller did not fix (Vary.Fixed), each seed drawing its own rates, so a
// campaign covers mild and harsh mixes. Rates the base spec sets
// (non-zero) are used as given, for every seed, whether or not their kind
// is requested; so are those Vary.Fixed names, zero included.
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
//
// (a swarm widens the downtime and partition-length draws of the kinds it
// drew in).

// expandFaults checks and expands the fault kinds.
func expandFaults(kinds []string) ([]string, error) {
	if len(kinds) == 0 {
		return nil, fmt.Errorf("no fault kinds given (valid: all, swarm, %s)", strings.Join(FaultKinds, ", "))
	}
	if slices.Contains(kinds, Swarm) {
		// swarm alone: every seed draws among all of SwarmKinds; swarm
		// first, then swarm kinds: among those only.
		if kinds[0] != Swarm {
			return nil, fmt.Errorf("fault kind swarm draws every seed's kinds itself: give it first, then the swarm kinds it may draw (%s), not after %s", strings.Join(SwarmKinds, ", "), kinds[0])
		}
		out := []string{Swarm}
		for _, k := range SwarmKinds {
			if slices.Contains(kinds[1:], k) {
				out = append(out, k)
			}
		}
		for _, k := range kinds[1:] {
			if !slices.Contains(SwarmKinds, k) {
				return nil, fmt.Errorf("unknown swarm kind %q after swarm (valid: %s)", k, strings.Join(SwarmKinds, ", "))
			}
		}
		return out, nil
	}
	set := map[string]bool{}
	for _, k := range kinds {
		if k == "all" {
			for _, f := range faults.AllKinds() {
				set[f] = true
			}
			continue
		}
		if !slices.Contains(FaultKinds, k) {
			return nil, fmt.Errorf("unknown fault kind %q (valid: all, swarm, %s)", k, strings.Join(FaultKinds, ", "))
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
// kinds it drew (by SwarmKinds): the seed's workload, downtime and
// partition-length draws (Vary), then each kind's draw from the table.
func specFor(base runner.Plan, kinds []string, vary Vary, seed uint64) (runner.Spec, []bool) {
	s := base.Spec
	s.Seed = seed
	var wide *faults.Wide
	if len(kinds) > 0 && kinds[0] == Swarm {
		w := faults.DrawWide(seed)
		if only := kinds[1:]; len(only) > 0 {
			// A restricted swarm: the seed's draws as a whole swarm's,
			// with the kinds it may not draw left out (it may draw
			// none).
			for i, k := range SwarmKinds {
				w.In[i] = w.In[i] && slices.Contains(only, k)
			}
		}
		wide = &w
	}
	c := faults.NewChoice(base, seed, kinds, wide, vary.fixed)
	c.VaryDowntime, c.VaryPartitionLen = vary.Downtime, vary.PartitionLen
	varyDraws(c.Mild, &s, vary)
	for _, k := range faults.Kinds() {
		switch {
		case wide != nil && k.Swarm != nil && wide.Has(k.Name):
			k.Swarm(c, &s)
		case wide == nil && k.Draw != nil && slices.Contains(kinds, k.Name):
			k.Draw(c, &s)
		}
	}
	if vary.Settle && s.Settle == 0 && s.Workload == "contention" {
		s.Settle = SettleFor(s)
	}
	if wide != nil {
		return s, wide.In
	}
	return s, nil
}

// SettleFor is the settle stretch a campaign gives a seed whose spec is
// s (Vary.Settle): long enough for the longest fault episode s can have
// under way when its faults stop (a downtime, a partition, a stall or a
// late message, a pause, a clock-jump episode) to end, and then for each
// proposer in turn to wait out a hold (an extended one: the hold and two
// maximum lease spans), a restart's quarantine and a whole failed acquisition
// (every round timing out and backing off), a pause, and a second to
// spare. A correct algorithm answers every request well within it
// (CheckResult.DrainMaxShare; TestSettleAnswersEveryRequest asks for
// under half). The run ends when nothing is left to answer, so a
// generous bound costs nothing where the algorithm is live.
func SettleFor(s runner.Spec) time.Duration {
	p := s.Params
	var episode time.Duration
	if s.Faults.CrashRate > 0 {
		episode = max(episode, s.Faults.Downtime)
	}
	if s.Faults.Partitions > 0 {
		episode = max(episode, s.Faults.PartitionLen)
	}
	if s.Net.Stale > 0 || s.Net.Late > 0 {
		episode = max(episode, time.Duration(s.Net.StaleSpans*float64(p.LeaseSpan)))
	}
	if s.Faults.PauseRate > 0 {
		episode = max(episode, s.Faults.PauseMax)
	}
	if s.Clocks.Jumps > 0 {
		episode = max(episode, s.Clocks.JumpLen)
	}
	each := s.Hold + 3*p.MaxLease + time.Duration(p.MaxRounds)*(p.ResponseTimeout+p.Backoff) + s.Pause + time.Second
	return episode + time.Duration(max(s.Proposers, 1))*each
}

// varyDraws sets the parts of the experiment vary asks each seed to draw.
func varyDraws(d faults.Mild, s *runner.Spec, vary Vary) {
	p := s.Params
	if vary.Workload && s.Workload == "contention" {
		s.Release = !d.Expire
		s.Hold = time.Duration(d.Hold * float64(p.LeaseSpan))
		s.Pause = time.Duration(d.Pause * float64(p.LeaseSpan))
	}
	if vary.Downtime {
		lo, hi := float64(10*time.Millisecond), float64(2*p.MaxLease)
		s.Faults.Downtime = time.Duration(lo * math.Pow(hi/lo, d.Down))
	}
	if vary.PartitionLen {
		lo, hi := float64(100*time.Millisecond), float64(2*p.LeaseSpan)
		s.Faults.PartitionLen = time.Duration(lo + d.PLen*(hi-lo))
	}
}

// ClockAllowance is how far apart a campaign keeps two free-running clocks
// for an algorithm that assumes a skew bound (faults.ClockAllowance).
func ClockAllowance(p algorithms.Params) time.Duration { return faults.ClockAllowance(p) }

// maxFirst bounds CheckResult.First and ViolatingSpecs.
const maxFirst = 20

// outcome is one seed's run.
type outcome struct {
	ran           bool // the run ended (not cut short by Options.Stop)
	res           runner.Result
	err           error
	drew          []bool // swarm: the kinds this seed drew
	holderCrashes int
	tokensJudged  bool // TokensJudged
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

// addDoubleBelief adds ms, a double belief time in milliseconds that is a
// whole number of nanoseconds (runner.Result.DoubleBeliefMS, or a part's
// sum), to cr's. It sums whole nanoseconds, so that the sum does not
// depend on how the seeds are grouped: a campaign merged from parts
// (MergeCheck) has the double_belief_ms of one process to the bit, which
// a sum of floats would miss in the last digits. ns/1e6 and back is exact
// below 2^52 ns (52 days).
func (cr *CheckResult) addDoubleBelief(ms float64) {
	cr.doubleBeliefNS += int64(math.Round(ms * 1e6))
	cr.DoubleBeliefMS = float64(cr.doubleBeliefNS) / 1e6
}

// add sums the outcome of seed into cr.
func (cr *CheckResult) add(seed uint64, o outcome) {
	res := o.res
	cr.LeasesAcquired += res.LeasesAcquired
	cr.Writes += res.Writes
	cr.StaleWrites += res.StaleWrites
	cr.FencedRejects += res.FencedRejects
	cr.LiveRejects += res.LiveRejects
	cr.TokenTies += res.TokenTies
	cr.addDoubleBelief(res.DoubleBeliefMS)
	if res.StaleWrites > 0 {
		cr.StaleWriteSeeds = append(cr.StaleWriteSeeds, seed)
	}
	if o.tokensJudged {
		cr.TokensJudged++
		if n := res.LiveRejects + res.StaleWrites + res.TokenTies; n > 0 {
			cr.TokenFailures += n
			cr.TokenFailureSeeds = append(cr.TokenFailureSeeds, seed)
			if len(cr.TokenFailureSpecs) < maxFirst {
				cr.TokenFailureSpecs = append(cr.TokenFailureSpecs, res.Params)
			}
		}
	}
	if res.DrainMS.Valid() && res.Params.Settle > 0 {
		cr.DrainMaxShare = max(cr.DrainMaxShare, float64(res.DrainMS)*1e6/float64(res.Params.Settle))
	}
	if res.Unanswered > 0 {
		cr.Unanswered += res.Unanswered
		cr.UnansweredSeeds = append(cr.UnansweredSeeds, seed)
		if len(cr.UnansweredSpecs) < maxFirst {
			cr.UnansweredSpecs = append(cr.UnansweredSpecs, res.Params)
			cr.FirstUnanswered = append(cr.FirstUnanswered, res.UnansweredList[0])
		}
	}
	cr.Exercised.add(res)
	cr.Exercised.HolderCrashes += o.holderCrashes
	if o.drew != nil {
		if len(cr.Swarm) == 0 {
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
// the first violating seed; with no violation, Trace and Holds receive
// that of the first seed that left a request unanswered, and with
// neither, that of the first seed whose tokens failed (TokensJudged);
// nothing if there is none of these. Stop, when
// closed, starts no further seed and cuts the runs in flight short: the
// result then sums the seeds from FirstSeed up to the first one that did
// not run to its end (CheckResult.Seeds, Interrupted), and nothing is
// re-run.
func Check(cs CheckSpec, opt runner.Options) (CheckResult, error) {
	start := time.Now()
	kinds, base, err := cs.resolve()
	if err != nil {
		return CheckResult{}, err
	}
	results := make([]outcome, cs.Seeds)
	// With StopAtFirst, last is the index of the lowest violating seed
	// found so far: seeds are started in order and none is started after
	// a violation, so every seed below it has run, whatever the
	// scheduling.
	last, done, interrupted := cs.Seeds-1, 0, false
	pool.Pool{}.Run(cs.Seeds, func(_, i int) {
		spec, drew := specFor(base, kinds, cs.Vary, cs.FirstSeed+uint64(i))
		o := outcome{drew: drew}
		if p, err := base.With(spec); err != nil {
			o.err = fmt.Errorf("seed %d: %w", spec.Seed, err)
		} else {
			var hc holderCrashes
			o.res, o.err = sim.RunPlan(p, runner.Options{Observers: []runner.Observer{&hc}, Stop: opt.Stop})
			o.holderCrashes = hc.n
			o.tokensJudged = TokensJudged(p)
		}
		o.ran = o.err != nil || !o.res.Interrupted
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
		if runner.Closed(opt.Stop) {
			interrupted = true
			return false
		}
		return true
	})
	if interrupted || runner.Closed(opt.Stop) {
		// The seeds up to the first that did not run to its end.
		for i := 0; i <= last; i++ {
			if !results[i].ran {
				last, interrupted = i-1, true
				break
			}
		}
	}
	cr := newResult(cs, kinds)
	cr.Seeds, cr.Interrupted = last+1, interrupted
	for i, o := range results[:last+1] {
		if o.err != nil {
			return CheckResult{}, o.err
		}
		cr.add(cs.FirstSeed+uint64(i), o)
	}
	sort.Slice(cr.ViolatingSeeds, func(i, j int) bool { return cr.ViolatingSeeds[i] < cr.ViolatingSeeds[j] })
	switch {
	case interrupted:
	case len(cr.ViolatingSeeds) > 0 && (opt.Trace != nil || opt.Holds != nil || opt.ViolationTrace != nil || len(opt.Observers) > 0):
		spec, _ := specFor(base, kinds, cs.Vary, cr.ViolatingSeeds[0])
		if err := rerunFirst(base, spec, opt); err != nil {
			return cr, err
		}
	case len(cr.UnansweredSeeds) > 0 && (opt.Trace != nil || opt.Holds != nil):
		// No violation, but a liveness failure: its seed's full trace
		// and holds (there is no violation to end a window at).
		spec, _ := specFor(base, kinds, cs.Vary, cr.UnansweredSeeds[0])
		if err := rerunFirst(base, spec, runner.Options{Trace: opt.Trace, Holds: opt.Holds}); err != nil {
			return cr, err
		}
	case len(cr.TokenFailureSeeds) > 0 && (opt.Trace != nil || opt.Holds != nil):
		// Tokens that did not grow: the first such seed's trace and
		// holds, whose Acquired records carry the tokens.
		spec, _ := specFor(base, kinds, cs.Vary, cr.TokenFailureSeeds[0])
		if err := rerunFirst(base, spec, runner.Options{Trace: opt.Trace, Holds: opt.Holds}); err != nil {
			return cr, err
		}
	}
	cr.WallMS = float64(time.Since(start).Microseconds()) / 1e3
	return cr, nil
}

// TokensJudged reports whether a run of p is judged for its fencing
// tokens: a holder writes to a fenced store, and no fault on in the run
// causes a condition under which p's algorithm does not claim that a
// later holder's token is higher (algorithms.Algorithm.TokenBreaks,
// faults.TokenCauses), nor breaks what every algorithm assumes (clock
// jumps). In such a run, a fenced store that rejects a write of a
// current lease, or accepts a stale one, shows a token that did not grow
// where the algorithm says it grows: a failure, as a violation is.
func TokensJudged(p runner.Plan) bool {
	s := &p.Spec
	if s.Store != "fenced" || s.Writes <= 0 {
		return false
	}
	causes, assumed := faults.TokenCauses(s)
	return assumed && causes&p.Algo.TokenBreaks == 0
}

// resolve checks a campaign's spec: its fault kinds, expanded, and the
// base plan every seed starts from.
func (cs CheckSpec) resolve() ([]string, runner.Plan, error) {
	if cs.Seeds < 1 {
		return nil, runner.Plan{}, fmt.Errorf("need at least 1 seed, got %d", cs.Seeds)
	}
	kinds, err := expandFaults(cs.Faults)
	if err != nil {
		return nil, runner.Plan{}, err
	}
	if cs.Base.Env != "sim" {
		return nil, runner.Plan{}, fmt.Errorf("check runs in the simulator only, not env %q", cs.Base.Env)
	}
	base, err := runner.Resolve(cs.Base)
	if err != nil {
		return nil, runner.Plan{}, err
	}
	return kinds, base, nil
}

// rerunFirst runs the first violating seed's spec again with opt's trace,
// holds, violation trace and observers.
func rerunFirst(base runner.Plan, spec runner.Spec, opt runner.Options) error {
	p, err := base.With(spec)
	if err != nil {
		return err
	}
	rerun := runner.Options{Trace: opt.Trace, Holds: opt.Holds, ViolationTrace: opt.ViolationTrace, Observers: opt.Observers}
	_, err = sim.RunPlan(p, rerun)
	return err
}

// newResult is the result of a campaign of cs over the fault kinds given
// before any seed is counted: every list empty, not nil, so the JSON has
// every key.
func newResult(cs CheckSpec, kinds []string) CheckResult {
	return CheckResult{
		Algo:              cs.Base.Algo,
		Ablate:            cs.Base.Ablate,
		Faults:            kinds,
		FirstSeed:         cs.FirstSeed,
		Params:            cs.Base,
		ViolatingSeeds:    []uint64{},
		StaleWriteSeeds:   []uint64{},
		TokenFailureSeeds: []uint64{},
		TokenFailureSpecs: []runner.Spec{},
		LivenessJudged:    cs.Base.Settle > 0 || cs.Vary.Settle && cs.Base.Workload == "contention",
		UnansweredSeeds:   []uint64{},
		UnansweredSpecs:   []runner.Spec{},
		FirstUnanswered:   []runner.PendingAsk{},
		First:             []runner.Violation{},
		ViolatingSpecs:    []runner.Spec{},
		Swarm:             []KindSeeds{},
		Shards:            []shard.Part{},
		Counterexamples:   []Counterexample{},
	}
}
