package campaign

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"leaselab/runner"
	"leaselab/runner/faults"
)

// DefaultShrinkBudget bounds a shrink when the caller gives no budget.
const DefaultShrinkBudget = time.Minute

// ShrinkResult is a violating run written as a scenario file and shrunk.
type ShrinkResult struct {
	// Scenario is the shrunk scenario file: `leaselab replay` runs it to
	// a violation and exits 1 (it has no `expect violations` line).
	Scenario string `json:"-"`
	Seed     uint64 `json:"seed"`
	// Recorded: the action commands of the run as recorded, up to its
	// first violation; Commands: those of the shrunk scenario (setup,
	// clocks and start not counted, advances counted).
	Recorded int `json:"recorded_commands"`
	Commands int `json:"shrunk_commands"`
	// Faithful: the recorded scenario replayed to the run's first
	// violation exactly (resource, owners, ballots, start). It can differ
	// where the simulator runs several events of one instant before what
	// they cause (a batch of stale messages released at once, each
	// answered by a message to the receiver itself) or where fsync
	// latencies matter (a scenario's fsync takes exactly the mean); the
	// recording still shrinks if it violates at all.
	Faithful bool `json:"faithful"`
	// Violation: the shrunk scenario's first violation; RunViolation the
	// run's.
	Violation    runner.Violation `json:"violation"`
	RunViolation runner.Violation `json:"run_violation"`
	// Minimal: no single action can be left out (a fixed point was
	// reached within the budget).
	Minimal bool    `json:"minimal"`
	Tests   int     `json:"tests"` // candidate scenarios played
	WallMS  float64 `json:"wall_ms"`
}

// ErrNotReproduced says a recorded run did not violate the lease
// invariant when replayed as a scenario (see ShrinkResult.Faithful).
var ErrNotReproduced = errors.New("the recorded scenario does not violate the lease invariant")

// Shrink runs spec (a violating run: a campaign's seed, CheckSpecFor) in
// the simulator, records it as a scenario up to its first violation (see
// recording) and shrinks that by delta debugging while a violation
// persists: it leaves out actions — deliveries (a message never
// delivered is one lost), duplicates, client inputs, crashes, restarts,
// clock slews — and the clocks' offsets and rates, in ever smaller
// groups, then one at a time until no single one can go (a fixed point)
// or budget (0: DefaultShrinkBudget) is spent; what it has then still
// violates. A shrunk scenario may violate differently from the run: any
// violation of the lease invariant keeps a candidate.
//
// Errors: the spec is invalid or does not violate (no violation to
// shrink), or ErrNotReproduced.
func Shrink(spec runner.Spec, budget time.Duration) (ShrinkResult, error) {
	start := time.Now()
	if budget <= 0 {
		budget = DefaultShrinkBudget
	}
	if spec.Env != "sim" {
		return ShrinkResult{}, fmt.Errorf("shrink runs in the simulator only, not env %q", spec.Env)
	}
	plan, err := runner.Resolve(spec)
	if err != nil {
		return ShrinkResult{}, err
	}
	rc, err := recordRun(plan)
	if err != nil {
		return ShrinkResult{}, err
	}
	if !rc.violated {
		return ShrinkResult{}, fmt.Errorf("seed %d does not violate the lease invariant: nothing to shrink", spec.Seed)
	}
	whole := rc.whole()
	full, err := rc.play(whole, false)
	if err != nil {
		return ShrinkResult{}, err
	}
	if !full.violated {
		return ShrinkResult{}, fmt.Errorf("seed %d: %w", spec.Seed, ErrNotReproduced)
	}
	sr := ShrinkResult{Seed: spec.Seed, Recorded: full.commands, RunViolation: rc.first, Faithful: sameViolation(rc.first, full.first)}
	sh := shrinker{rc: rc, deadline: start.Add(budget), cur: whole, last: full}
	sh.run()
	out, err := rc.play(sh.cur, true)
	if err != nil {
		return ShrinkResult{}, err
	}
	if !out.violated {
		return ShrinkResult{}, fmt.Errorf("seed %d: the shrunk scenario lost its violation (a shrinker bug)", spec.Seed)
	}
	sr.Scenario = shrinkHeader(spec, sr, out) + out.text
	sr.Commands, sr.Violation = out.commands, out.first
	sr.Minimal, sr.Tests = sh.minimal, sh.tests
	sr.WallMS = float64(time.Since(start).Microseconds()) / 1e3
	return sr, nil
}

// sameViolation compares two violations but for their lengths (a
// scenario stops where the overlap begins).
func sameViolation(a, b runner.Violation) bool {
	a.OverlapNS, b.OverlapNS = 0, 0
	a.Seed, b.Seed = 0, 0
	return a == b
}

func shrinkHeader(spec runner.Spec, sr ShrinkResult, out played) string {
	v := out.first
	what := spec.Algo
	if len(spec.Ablate) > 0 {
		what += " with " + strings.Join(spec.Ablate, ",") + " ablated"
	}
	return fmt.Sprintf(`# A violation of the lease invariant found by 'leaselab check': seed %d
# of %s, recorded from the simulator and shrunk
# from %d to %d commands (runner/campaign.Shrink).
# 'leaselab replay FILE' exits 1 on it.
# Violation: r%d held by %s (b=%s) and %s (b=%s) from %v.
`, sr.Seed, what, sr.Recorded, out.commands,
		v.Resource, v.Owners[0], v.Ballots[0], v.Owners[1], v.Ballots[1], time.Duration(v.StartNS))
}

// shrinker is one delta-debugging run (Zeller and Hildebrandt's ddmin,
// leaving out chunks only, then single parts to a fixed point) over the
// parts of a recording: external actions, the faults of the messages
// the candidate sends, the deliveries it makes, the clocks at the start.
type shrinker struct {
	rc       *recording
	deadline time.Time
	cur      candidate
	last     played // cur's play
	tests    int
	minimal  bool
}

func (sh *shrinker) expired() bool { return time.Now().After(sh.deadline) }

// try keeps candidate c if it still violates and its scenario is no
// longer: fewer parts can mean more commands (messages that match
// nothing recorded are delivered, and a retry storm may follow).
func (sh *shrinker) try(c candidate) bool {
	sh.tests++
	p, err := sh.rc.play(c, false)
	if err != nil || !p.violated || p.commands > sh.last.commands {
		return false
	}
	sh.cur, sh.last = c, p
	return true
}

// part is one kind of part a candidate can leave out: the parts of cur
// that are still in, and the candidate without some of them.
type part struct {
	in    func(sh *shrinker) []int
	leave func(c candidate, out map[int]bool) candidate
}

var parts = []part{
	{ // external actions
		in: func(sh *shrinker) []int { return sh.cur.ext },
		leave: func(c candidate, out map[int]bool) candidate {
			var ext []int
			for _, i := range c.ext {
				if !out[i] {
					ext = append(ext, i)
				}
			}
			c.ext = ext
			return c
		},
	},
	{ // the faults of the messages sent: delivered once, in ordinary time
		in: func(sh *shrinker) []int {
			var in []int
			for _, i := range sh.last.matched {
				if sh.cur.fate[i] == fateRecorded && sh.rc.msgs[i].faulty(sh.rc.spec) {
					in = append(in, i)
				}
			}
			return in
		},
		leave: func(c candidate, out map[int]bool) candidate { return setFate(c, out, fateOrdinary) },
	},
	{ // deliveries: turned into drops
		in:    func(sh *shrinker) []int { return sh.last.delivered },
		leave: func(c candidate, out map[int]bool) candidate { return setFate(c, out, fateDropped) },
	},
}

func setFate(c candidate, out map[int]bool, f fate) candidate {
	c.fate = append([]fate(nil), c.fate...)
	for i := range out {
		c.fate[i] = f
	}
	return c
}

func (sh *shrinker) run() {
	rc := sh.rc
	ext := parts[0]
	// The resource of the violation alone: the other resources' inputs
	// go at once (algorithms keep resources apart, mostly).
	other := map[int]bool{}
	for _, i := range sh.cur.ext {
		if a := &rc.ext[i]; a.kind == extInput && a.res != rc.first.Resource {
			other[i] = true
		}
	}
	if len(other) > 0 {
		sh.try(ext.leave(sh.cur, other))
	}
	sh.window()
	// Whole groups: every input of one client, every crash and restart
	// of one node, all crashes; a violation needs two holders, and the
	// other clients are noise.
	nodes := len(sh.cur.boot)
	for _, group := range []func(a *extAction, n int) bool{
		func(a *extAction, n int) bool { return a.kind == extInput && int(a.node) == n },
		func(a *extAction, n int) bool {
			return (a.kind == extCrash || a.kind == extRestart) && int(a.node) == n
		},
		func(a *extAction, n int) bool { return a.kind == extCrash || a.kind == extRestart },
		func(a *extAction, n int) bool { return a.kind == extPause },
	} {
		for n := 0; n < nodes && !sh.expired(); n++ {
			out := map[int]bool{}
			for _, i := range sh.cur.ext {
				if group(&rc.ext[i], n) {
					out[i] = true
				}
			}
			if len(out) > 0 {
				sh.try(ext.leave(sh.cur, out))
			}
		}
	}
	for _, pt := range parts {
		sh.ddmin(pt)
	}
	sh.clocks()
	// Single parts to a fixed point: leaving one out can make another
	// unnecessary.
	for !sh.expired() {
		changed := false
		for _, pt := range parts {
			in := pt.in(sh)
			for k := len(in) - 1; k >= 0 && !sh.expired(); k-- {
				if sh.try(pt.leave(sh.cur, map[int]bool{in[k]: true})) {
					changed = true
				}
			}
		}
		if !changed && !sh.expired() {
			sh.minimal = true
			return
		}
	}
}

// window keeps only the external actions of the last stretch of the run
// before the violation (slews excepted): one lease span, two, four, ...,
// the first that still violates. A long run shrinks this way in a few
// cheap tests where leaving out halves would play most of it each time.
func (sh *shrinker) window() {
	end := sh.rc.end
	span := int64(sh.rc.spec.Params.LeaseSpan)
	for w := span; w < end && !sh.expired(); w *= 2 {
		out := map[int]bool{}
		for _, i := range sh.cur.ext {
			if a := &sh.rc.ext[i]; a.kind != extClock && a.t < end-w {
				out[i] = true
			}
		}
		if len(out) == 0 || sh.try(parts[0].leave(sh.cur, out)) {
			return
		}
	}
}

// ddmin leaves out chunks of pt's parts, from the end, halving the
// chunks when none can go.
func (sh *shrinker) ddmin(pt part) {
	n := 2
	for !sh.expired() {
		in := pt.in(sh)
		if len(in) == 0 {
			return
		}
		n = min(n, len(in))
		size := (len(in) + n - 1) / n
		removed := false
		for hi := len(in); hi > 0 && !sh.expired(); hi -= size {
			out := map[int]bool{}
			for _, i := range in[max(0, hi-size):hi] {
				out[i] = true
			}
			if sh.try(pt.leave(sh.cur, out)) {
				removed = true
			}
		}
		switch {
		case removed:
			n = max(n-1, 2)
		case size == 1:
			return
		default:
			n = min(2*n, len(in))
		}
	}
}

// clocks tries exact clocks, all at once, then node by node.
func (sh *shrinker) clocks() {
	for i := -1; i < len(sh.cur.boot) && !sh.expired(); i++ {
		c := sh.cur
		c.boot = make([]faults.Clock, len(c.boot))
		if i >= 0 {
			if sh.cur.boot[i] == (faults.Clock{}) {
				continue
			}
			copy(c.boot, sh.cur.boot)
			c.boot[i] = faults.Clock{}
		}
		if slices.Equal(c.boot, sh.cur.boot) {
			continue
		}
		if sh.try(c) && i < 0 {
			return
		}
	}
}

// maxShrinkTries bounds the violating seeds ShrinkCampaign records.
const maxShrinkTries = 10

// ShrinkCampaign shrinks one violating seed of campaign cs, whose result
// is cr: of the seeds in cr.First, those whose violation began earliest
// first (a shorter run to record and shrink), the first whose recording
// violates as a scenario (at most ten are tried). budget bounds the
// whole (0: DefaultShrinkBudget).
func ShrinkCampaign(cs CheckSpec, cr CheckResult, budget time.Duration) (ShrinkResult, error) {
	if budget <= 0 {
		budget = DefaultShrinkBudget
	}
	deadline := time.Now().Add(budget)
	if len(cr.First) == 0 {
		return ShrinkResult{}, fmt.Errorf("the campaign found no violation: nothing to shrink")
	}
	order := append([]runner.Violation(nil), cr.First...)
	slices.SortStableFunc(order, func(a, b runner.Violation) int {
		switch {
		case a.StartNS < b.StartNS:
			return -1
		case a.StartNS > b.StartNS:
			return 1
		}
		return 0
	})
	var errs []error
	for i, v := range order {
		left := time.Until(deadline)
		if i == maxShrinkTries || left <= 0 {
			break
		}
		spec, err := CheckSpecFor(cs, v.Seed)
		if err != nil {
			return ShrinkResult{}, err
		}
		sr, err := Shrink(spec, left)
		if err == nil {
			return sr, nil
		}
		if !errors.Is(err, ErrNotReproduced) {
			return ShrinkResult{}, err
		}
		errs = append(errs, err)
	}
	return ShrinkResult{}, fmt.Errorf("no violating seed could be recorded as a violating scenario: %w", errors.Join(errs...))
}
