package main

import (
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/algorithms/example"
	"leaselab/paxoslease"
	"leaselab/runner"
	"leaselab/runner/campaign"
)

// Simulator runs and fault campaigns of single algorithms, through the
// runner. They live here, where every algorithm is registered, so that the
// algorithm packages do not import the runner.

// TestPaxosLeaseCampaigns runs short seeded fault campaigns through the runner's
// simulator and checker: with every rule in force no violation; with a
// safety rule switched off, the fault mix its Exposes text names finds one.
// restart-wait and drift-margin need leases that run out instead of being
// released (the default contention hold of 1 s is over before a crashed
// acceptor, down 1-2 s, is back, and a released lease is never handed over
// at expiry).
func TestPaxosLeaseCampaigns(t *testing.T) {
	if testing.Short() {
		t.Skip("fault campaigns: skipped with -short")
	}
	for _, tc := range []struct {
		ablate  string
		faults  []string
		expire  bool // contention clients let leases expire
		seeds   int
		violate bool
		short   bool // leases short against message delays
	}{
		{"", []string{"all"}, false, 200, false, false},
		{"", []string{"all"}, true, 200, false, false},
		{"", []string{"all"}, false, 100, false, true},
		// Five proposers: with three, the keep-others rule stops the
		// duplicated-vote interleavings that random search meets first.
		{paxoslease.AblateCountByMessage, []string{"dup"}, false, 300, true, false},
		{paxoslease.AblateRestartWait, []string{"crash"}, true, 200, true, false},
		{paxoslease.AblateDriftMargin, []string{"drift"}, true, 300, true, false},
		{paxoslease.AblateOwnerOnlyRelease, []string{"reorder"}, false, 50, true, true},
	} {
		base := runner.DefaultSpec()
		if tc.short {
			// A held-back release can outlive a lease.
			base.Params.LeaseSpan, base.Params.MaxLease = 100*time.Millisecond, 150*time.Millisecond
			base.Params.ResponseTimeout, base.Params.Backoff = 50*time.Millisecond, 10*time.Millisecond
			base.Net.RTT, base.Net.Jitter = 20*time.Millisecond, 10*time.Millisecond
			base.Hold, base.Pause = 30*time.Millisecond, 50*time.Millisecond
		}
		base.Algo = paxoslease.Name
		if tc.ablate == paxoslease.AblateCountByMessage {
			base.Proposers = 5
		}
		base.Release = !tc.expire
		if tc.expire {
			base.Hold = 0
		}
		if tc.ablate != "" {
			base.Ablate = algorithms.Ablations{tc.ablate}
		}
		res, err := campaign.Check(campaign.CheckSpec{Base: base, Faults: tc.faults, Seeds: tc.seeds, FirstSeed: 1}, runner.Options{})
		if err != nil {
			t.Fatalf("ablate %q: %v", tc.ablate, err)
		}
		t.Logf("ablate %q faults %v expire=%v short=%v: %d seeds, %d leases, %d violations (seeds %v)",
			tc.ablate, tc.faults, tc.expire, tc.short, res.Seeds, res.LeasesAcquired, res.Violations, res.ViolatingSeeds)
		if res.LeasesAcquired == 0 {
			t.Errorf("ablate %q: nothing acquired", tc.ablate)
		}
		if got := res.Violations > 0; got != tc.violate {
			t.Errorf("ablate %q faults %v: %d violations, want violations=%v", tc.ablate, tc.faults, res.Violations, tc.violate)
		}
	}
}

// Short fault campaigns through the runner: the rules hold under every
// fault kind, and switching a rule off is caught by the checker. The full
// campaigns (500 / 300 seeds) are the commands in the package docs.
func TestFaTLeaseCampaigns(t *testing.T) {
	if testing.Short() {
		t.Skip("campaigns run the simulator many times")
	}
	harsh := func(s *runner.Spec) {
		s.Faults.CrashRate, s.Faults.Downtime = 20, 10*time.Millisecond
	}
	for _, tc := range []struct {
		algo   string
		ablate string
		faults []string
		mod    func(*runner.Spec)
		seeds  int
		want   bool // violations expected
	}{
		{"fatlease", "", []string{"all"}, nil, 40, false},
		{"classicpaxos", "", []string{"all"}, nil, 30, false},
		{"fatlease", "", []string{"crash"}, harsh, 40, false},
		{"classicpaxos", "", []string{"crash"}, harsh, 40, false},
		{"fatlease", "restart-wait", []string{"crash"}, harsh, 40, true},
		// Without the fsync wait only a crash inside an fsync loses an
		// answered promise: a slow disk widens that window.
		{"classicpaxos", "fsync", []string{"crash"}, func(s *runner.Spec) {
			harsh(s)
			s.Disk.FsyncLatency, s.Proposers, s.Duration = 500*time.Millisecond, 5, 10*time.Minute
		}, 40, true},
		{"fatlease", "safety-period", []string{"drift"}, func(s *runner.Spec) { s.Hold, s.Release = 0, false }, 20, true},
	} {
		base := runner.DefaultSpec()
		base.Algo = tc.algo
		if tc.ablate != "" {
			base.Ablate = algorithms.Ablations{tc.ablate}
		}
		if tc.mod != nil {
			tc.mod(&base)
		}
		res, err := campaign.Check(campaign.CheckSpec{Base: base, Faults: tc.faults, Seeds: tc.seeds, FirstSeed: 1}, runner.Options{})
		if err != nil {
			t.Fatalf("%s %s: %v", tc.algo, tc.ablate, err)
		}
		if got := res.Violations > 0; got != tc.want {
			t.Errorf("%s ablate=%q faults=%v: %d violations in %d seeds (seeds %v), want violations: %v",
				tc.algo, tc.ablate, tc.faults, res.Violations, tc.seeds, res.ViolatingSeeds, tc.want)
		}
		if res.LeasesAcquired == 0 {
			t.Errorf("%s %s: no lease acquired", tc.algo, tc.ablate)
		}
	}
}

func centralSpec() runner.Spec {
	s := runner.DefaultSpec()
	s.Algo = example.Name
	s.Acceptors = 1
	s.Proposers = 3
	return s
}

// Under contention in the simulator the lease changes hands, nobody holds
// it twice, and the same seed gives the same trace.
func TestCentralContention(t *testing.T) {
	s := centralSpec()
	res, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.LeasesAcquired < 10 || res.OwnerChanges < 5 || res.Violations != 0 {
		t.Fatalf("acquired %d, owner changes %d, violations %d", res.LeasesAcquired, res.OwnerChanges, res.Violations)
	}
	again, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.TraceHash != res.TraceHash {
		t.Fatalf("same seed, traces %s and %s", res.TraceHash, again.TraceHash)
	}
}

// A fault campaign with every fault kind finds no violation, and one
// with a rule switched off finds some (the checker can fail).
func TestCentralCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("fault campaign")
	}
	vary := campaign.Vary{Workload: true, Downtime: true, PartitionLen: true}
	cases := []struct {
		ablate string
		faults string
		want   bool // violations expected
	}{
		{"", "all", false},
		{example.AblateRestartWait, "crash", true},
		{example.AblateDriftMargin, "drift", true},
	}
	for _, c := range cases {
		s := centralSpec()
		s.Proposers = 5
		s.Duration = 10 * time.Minute
		if c.ablate != "" {
			s.Ablate = algorithms.Ablations{c.ablate}
		}
		res, err := campaign.Check(campaign.CheckSpec{Base: s, Faults: []string{c.faults}, Seeds: 100, FirstSeed: 1, Vary: vary}, runner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.LeasesAcquired == 0 || (res.Violations > 0) != c.want {
			t.Errorf("ablate %q, faults %s: %d leases, %d violations", c.ablate, c.faults, res.LeasesAcquired, res.Violations)
		}
	}
}

// roundCounter counts the Round events of a run.
type roundCounter struct{ n int }

func (c *roundCounter) Observe(r *runner.TraceRec) {
	if r.Kind == runner.TraceEvent && algorithms.EventKind(r.Sub) == algorithms.Round {
		c.n++
	}
}

// A node's answer to itself is no round trip: with one acceptor that is
// also a proposer, a round-trip estimate from its own answers was about
// 1 ns, and a waiter turned away by a guarded promise retried every few
// nanoseconds until the guard ended (over 6 million rounds in a 60 s
// contention run). It now waits for the guard as a remote proposer does.
func TestPaxosLeaseOneAcceptorDoesNotSpin(t *testing.T) {
	spec := runner.DefaultSpec()
	spec.Algo, spec.Acceptors, spec.Proposers, spec.Duration = "paxoslease", 1, 3, 60*time.Second
	var c roundCounter
	res, err := runner.Run(spec, runner.Options{Observers: []runner.Observer{&c}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violations != 0 || res.LeasesAcquired < 50 || c.n > 20*res.LeasesAcquired {
		t.Fatalf("%d rounds for %d leases (%d violations): proposers spin", c.n, res.LeasesAcquired, res.Violations)
	}
}
