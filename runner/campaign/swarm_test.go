package campaign

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"leaselab/runner"
)

// swarmBase is the tests' base: paxoslease as `check` runs it.
func swarmBase(t *testing.T) runner.Plan {
	t.Helper()
	base := runner.DefaultSpec()
	base.Algo = "paxoslease"
	base.Proposers = 5
	base.Duration = time.Minute
	p, err := runner.Resolve(base)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var drawAll = Vary{Workload: true, Downtime: true, PartitionLen: true}

// A seed's swarm draws are a function of the seed: the same spec every
// time, and over a few dozen seeds every kind is both in and out, the
// mixes differ from seed to seed, and the clusters take several shapes.
func TestSwarmDrawsDeterministicAndVaried(t *testing.T) {
	base := swarmBase(t)
	in := make([]int, len(SwarmKinds))
	mixes := map[string]bool{}
	shapes := map[[2]int]bool{}
	const seeds = 64
	for seed := uint64(1); seed <= seeds; seed++ {
		a, drewA := specFor(base, []string{Swarm}, drawAll, seed)
		b, drewB := specFor(base, []string{Swarm}, drawAll, seed)
		if !reflect.DeepEqual(a, b) || !slices.Equal(drewA, drewB) {
			t.Fatalf("seed %d: two draws differ:\n%+v\n%+v", seed, a, b)
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("seed %d: invalid spec: %v", seed, err)
		}
		if !slices.Contains(drewA, true) {
			t.Errorf("seed %d drew no kind", seed)
		}
		for k, on := range drewA {
			if on {
				in[k]++
			}
		}
		mixes[fmt.Sprint(drewA)] = true
		shapes[[2]int{a.Acceptors, a.Proposers}] = true
	}
	for k, n := range in {
		if n == 0 || n == seeds {
			t.Errorf("kind %s in %d of %d seeds: not varied", SwarmKinds[k], n, seeds)
		}
	}
	if len(mixes) < seeds/2 {
		t.Errorf("only %d distinct mixes in %d seeds", len(mixes), seeds)
	}
	if len(shapes) < 4 {
		t.Errorf("only %d cluster shapes: %v", len(shapes), shapes)
	}
}

// What the kinds promise: stalls outlast M and the downtime, shapes have
// nodes that only propose or only accept, a fixed rate stays fixed.
func TestSwarmKinds(t *testing.T) {
	base := swarmBase(t)
	p := base.Spec.Params
	var longStall, proposerOnly, acceptorOnly, shortDown bool
	for seed := uint64(1); seed <= 200; seed++ {
		s, drew := specFor(base, []string{Swarm}, drawAll, seed)
		has := func(k string) bool { return drew[slices.Index(SwarmKinds, k)] }
		if has("stale") {
			longest := time.Duration(s.Net.StaleSpans * float64(p.LeaseSpan))
			if longest < p.MaxLease+s.Faults.Downtime {
				t.Errorf("seed %d: stalls up to %v, not past M + downtime %v", seed, longest, p.MaxLease+s.Faults.Downtime)
			}
			longStall = true
		}
		if has("shape") {
			proposerOnly = proposerOnly || s.Proposers > s.Acceptors
			acceptorOnly = acceptorOnly || s.Acceptors > s.Proposers
		}
		if has("crash") && s.Faults.Downtime < 100*time.Millisecond {
			shortDown = true
		}
		if !has("loss") && s.Net.Loss != 0 {
			t.Errorf("seed %d: loss %g without the kind", seed, s.Net.Loss)
		}
	}
	if !longStall || !proposerOnly || !acceptorOnly || !shortDown {
		t.Errorf("long stall %v, proposer-only %v, acceptor-only %v, short downtime %v: want all", longStall, proposerOnly, acceptorOnly, shortDown)
	}
	// A rate the caller fixed is used as given, zero included.
	fixed := Vary{Workload: true, Downtime: true, PartitionLen: true, Fixed: []string{"loss", "crash-rate", "acceptors", "proposers"}}
	for seed := uint64(1); seed <= 50; seed++ {
		s, _ := specFor(base, []string{Swarm}, fixed, seed)
		if s.Net.Loss != 0 || s.Faults.CrashRate != 0 || s.Acceptors != base.Spec.Acceptors || s.Proposers != base.Spec.Proposers {
			t.Fatalf("seed %d: fixed values drawn: loss %g crash %g cluster %d/%d", seed, s.Net.Loss, s.Faults.CrashRate, s.Acceptors, s.Proposers)
		}
	}
}

// A swarm campaign counts the seeds that drew each kind, gives the same
// result whatever the scheduling, and refuses other kinds beside it.
func TestSwarmCampaign(t *testing.T) {
	base := centralSpec()
	base.Duration = 20 * time.Second
	cs := CheckSpec{Base: base, Faults: []string{Swarm}, Seeds: 24, FirstSeed: 1, Vary: drawAll}
	a, err := Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Swarm) != len(SwarmKinds) || a.Violations != 0 {
		t.Fatalf("swarm counts %v, %d violations", a.Swarm, a.Violations)
	}
	total := 0
	for k, ks := range a.Swarm {
		if ks.Kind != SwarmKinds[k] || ks.Seeds < 0 || ks.Seeds > cs.Seeds {
			t.Errorf("count %d: %+v", k, ks)
		}
		total += ks.Seeds
	}
	if total < cs.Seeds {
		t.Errorf("%d kinds drawn in %d seeds: every seed draws one at least", total, cs.Seeds)
	}
	b, err := checkOn(1, cs)
	if err != nil {
		t.Fatal(err)
	}
	a.WallMS, b.WallMS = 0, 0
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("swarm campaign differs with GOMAXPROCS 1:\n%+v\n%+v", a, b)
	}
	for _, bad := range [][]string{{"loss", Swarm}, {Swarm, "nosuch"}, {Swarm, "pause"}} {
		cs.Faults = bad
		if _, err := Check(cs, runner.Options{}); err == nil {
			t.Errorf("faults %v: no error", bad)
		}
	}
}

// A swarm restricted to some kinds (--faults swarm,dup,reorder) gives
// each seed the whole swarm's draws of those kinds and none of the
// others: the token swarm's seeds are the swarm's, less what the
// algorithm does not claim its tokens survive.
func TestRestrictedSwarm(t *testing.T) {
	cs := liveCampaign("paxoslease", Swarm, 1, 40)
	whole := cs
	cs.Faults = []string{Swarm, "reorder", "dup"} // any order
	drew := 0
	for seed := uint64(1); seed <= 40; seed++ {
		a, err := CheckSpecFor(whole, seed)
		if err != nil {
			t.Fatal(err)
		}
		b, err := CheckSpecFor(cs, seed)
		if err != nil {
			t.Fatal(err)
		}
		if b.Net.Dup != a.Net.Dup || b.Net.Reorder != a.Net.Reorder || b.Net.Loss != 0 || b.Faults.CrashRate != 0 || b.Net.Stale != 0 {
			t.Fatalf("seed %d: dup %g reorder %g loss %g crash %g stale %g; the whole swarm's dup %g reorder %g",
				seed, b.Net.Dup, b.Net.Reorder, b.Net.Loss, b.Faults.CrashRate, b.Net.Stale, a.Net.Dup, a.Net.Reorder)
		}
		if b.Net.Dup > 0 || b.Net.Reorder > 0 {
			drew++
		}
	}
	if drew == 0 {
		t.Fatal("no seed drew dup or reorder")
	}
	r, err := Check(cs, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Seeds != 40 || r.LeasesAcquired == 0 {
		t.Fatalf("%d seeds, %d leases", r.Seeds, r.LeasesAcquired)
	}
	for _, ks := range r.Swarm {
		if ks.Seeds > 0 && ks.Kind != "dup" && ks.Kind != "reorder" {
			t.Errorf("%d seeds drew %s", ks.Seeds, ks.Kind)
		}
	}
}
