package campaign

import (
	"fmt"
	"reflect"
	"slices"
)

// MergeCheck sums the parts of a sharded campaign cs (check --shard i/n,
// each a CheckResult of its seed range, in index order: parts[i] is part
// i) into the result the whole campaign gives in one process: the same
// seeds, leases, violations, violating seeds, first violations and
// violating specs (the first 20 in seed order), swarm counts, exercised
// counters and the protected store's meters (double_belief_ms too, to the
// bit: it is summed in whole nanoseconds, see addDoubleBelief). The parts cover contiguous seed ranges in index order, so
// concatenating them in that order is the seed order Check sums in.
//
// With cs.StopAtFirst, each part stopped at its own first violating seed;
// the campaign stops at the lowest, which is in the first part that found
// one, so the parts after it are left out, as the seeds after it are.
//
// Counterexample is the part's shrunk scenario whose run's violation
// began earliest (ties: the lower seed), the one ShrinkCampaign prefers;
// Counterexamples lists every part's in that order. WallMS is the sum of
// the parts'. Meta, Shard and Shards are left to the caller.
func MergeCheck(cs CheckSpec, parts []CheckResult) (CheckResult, error) {
	if len(parts) == 0 {
		return CheckResult{}, fmt.Errorf("no parts to merge")
	}
	kinds, err := expandFaults(cs.Faults)
	if err != nil {
		return CheckResult{}, err
	}
	cr := newResult(cs, kinds)
	for _, p := range parts {
		cr.WallMS += p.WallMS
	}
	if cs.StopAtFirst {
		for i, p := range parts {
			if p.Violations > 0 {
				parts = parts[:i+1]
				break
			}
		}
	}
	for i, p := range parts {
		if p.Interrupted {
			return CheckResult{}, fmt.Errorf("part %d was interrupted after %d seeds: run it again", i, p.Seeds)
		}
	}
	for i, p := range parts {
		if err := cr.addPart(i, p); err != nil {
			return CheckResult{}, err
		}
	}
	if !slices.IsSorted(cr.ViolatingSeeds) {
		return CheckResult{}, fmt.Errorf("the parts' violating seeds are not in seed order: parts not in index order")
	}
	slices.SortStableFunc(cr.Counterexamples, func(a, b Counterexample) int {
		if c := compareInt64(a.RunViolation.StartNS, b.RunViolation.StartNS); c != 0 {
			return c
		}
		return compareInt64(int64(a.Seed), int64(b.Seed))
	})
	if len(cr.Counterexamples) > 0 {
		c := cr.Counterexamples[0]
		cr.Counterexample = &c
	}
	return cr, nil
}

// addPart adds part i's counts, seeds, first violations (up to maxFirst)
// and counterexample to cr, in seed order as the parts come in index
// order; apart from MergeCheck, which also checks and orders the parts.
func (cr *CheckResult) addPart(i int, p CheckResult) error {
	if len(p.First) != len(p.ViolatingSpecs) {
		return fmt.Errorf("part %d: %d first violations but %d violating specs", i, len(p.First), len(p.ViolatingSpecs))
	}
	cr.Seeds += p.Seeds
	cr.LeasesAcquired += p.LeasesAcquired
	cr.Violations += p.Violations
	cr.ViolatingSeeds = append(cr.ViolatingSeeds, p.ViolatingSeeds...)
	cr.Writes += p.Writes
	cr.StaleWrites += p.StaleWrites
	cr.FencedRejects += p.FencedRejects
	cr.LiveRejects += p.LiveRejects
	cr.TokenTies += p.TokenTies
	cr.addDoubleBelief(p.DoubleBeliefMS)
	cr.StaleWriteSeeds = append(cr.StaleWriteSeeds, p.StaleWriteSeeds...)
	cr.TokensJudged += p.TokensJudged
	cr.TokenFailures += p.TokenFailures
	cr.TokenFailureSeeds = append(cr.TokenFailureSeeds, p.TokenFailureSeeds...)
	for _, s := range p.TokenFailureSpecs {
		if len(cr.TokenFailureSpecs) < maxFirst {
			cr.TokenFailureSpecs = append(cr.TokenFailureSpecs, s)
		}
	}
	cr.Unanswered += p.Unanswered
	cr.DrainMaxShare = max(cr.DrainMaxShare, p.DrainMaxShare)
	cr.UnansweredSeeds = append(cr.UnansweredSeeds, p.UnansweredSeeds...)
	if len(p.UnansweredSpecs) != len(p.FirstUnanswered) {
		return fmt.Errorf("part %d: %d unanswered specs but %d first unanswered requests", i, len(p.UnansweredSpecs), len(p.FirstUnanswered))
	}
	for k := range p.UnansweredSpecs {
		if len(cr.UnansweredSpecs) < maxFirst {
			cr.UnansweredSpecs = append(cr.UnansweredSpecs, p.UnansweredSpecs[k])
			cr.FirstUnanswered = append(cr.FirstUnanswered, p.FirstUnanswered[k])
		}
	}
	for k := range p.First {
		if len(cr.First) < maxFirst {
			cr.First = append(cr.First, p.First[k])
			cr.ViolatingSpecs = append(cr.ViolatingSpecs, p.ViolatingSpecs[k])
		}
	}
	if err := cr.mergeSwarm(p.Swarm); err != nil {
		return fmt.Errorf("part %d: %w", i, err)
	}
	cr.Exercised.merge(p.Exercised)
	if p.Counterexample != nil {
		cr.Counterexamples = append(cr.Counterexamples, *p.Counterexample)
	}
	return nil
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// mergeSwarm adds a part's seeds by swarm kind (in SwarmKinds order; a
// part of a fixed mix has none).
func (cr *CheckResult) mergeSwarm(ks []KindSeeds) error {
	if len(ks) == 0 {
		return nil
	}
	if len(cr.Swarm) == 0 {
		cr.Swarm = make([]KindSeeds, len(ks))
		for k := range ks {
			cr.Swarm[k].Kind = ks[k].Kind
		}
	}
	if len(ks) != len(cr.Swarm) {
		return fmt.Errorf("%d swarm kinds, not %d", len(ks), len(cr.Swarm))
	}
	for k := range ks {
		if ks[k].Kind != cr.Swarm[k].Kind {
			return fmt.Errorf("swarm kind %d is %s, not %s", k, ks[k].Kind, cr.Swarm[k].Kind)
		}
		cr.Swarm[k].Seeds += ks[k].Seeds
	}
	return nil
}

// merge adds o's counters to e. Every field of Exercised is a count summed
// over seeds (Counts by name), so it adds them all by reflection: a
// counter added to the struct is merged without a line here (the test
// checks every field is an integer or a map of them, and is summed).
func (e *Exercised) merge(o Exercised) {
	ev, ov := reflect.ValueOf(e).Elem(), reflect.ValueOf(o)
	for i := range ev.NumField() {
		f, g := ev.Field(i), ov.Field(i)
		if f.Kind() != reflect.Map {
			f.SetInt(f.Int() + g.Int())
			continue
		}
		if f.IsNil() {
			f.Set(reflect.MakeMap(f.Type()))
		}
		for it := g.MapRange(); it.Next(); {
			sum := reflect.New(f.Type().Elem()).Elem()
			if v := f.MapIndex(it.Key()); v.IsValid() {
				sum.SetInt(v.Int())
			}
			sum.SetInt(sum.Int() + it.Value().Int())
			f.SetMapIndex(it.Key(), sum)
		}
	}
}
