package paxoslease_test

import (
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/paxoslease"
	"leaselab/runner"
)

// TestCampaigns runs short seeded fault campaigns through the runner's
// simulator and checker: with every rule in force no violation; with a
// safety rule switched off, the fault mix runner/exp names for it (exp.Exposes) finds one.
// restart-wait and drift-margin need leases that run out instead of being
// released (the default contention hold of 1 s is over before a crashed
// acceptor, down 1-2 s, is back, and a released lease is never handed over
// at expiry).
func TestCampaigns(t *testing.T) {
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
		res, err := runner.Check(runner.CheckSpec{Base: base, Faults: tc.faults, Seeds: tc.seeds, FirstSeed: 1}, runner.Options{})
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
