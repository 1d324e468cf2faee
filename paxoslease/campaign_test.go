package paxoslease_test

import (
	"testing"

	"leaselab/algorithms"
	"leaselab/paxoslease"
	"leaselab/runner"
)

// TestCampaigns runs short seeded fault campaigns through the runner's
// simulator and checker: with every rule in force no violation; with a
// safety rule switched off, the fault mix its Exposes text names finds one.
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
	}{
		{"", []string{"all"}, false, 200, false},
		{"", []string{"all"}, true, 200, false},
		{paxoslease.AblateCountByMessage, []string{"dup"}, false, 200, true},
		{paxoslease.AblateRestartWait, []string{"crash"}, true, 200, true},
		{paxoslease.AblateDriftMargin, []string{"drift"}, true, 300, true},
	} {
		base := runner.DefaultSpec()
		base.Algo = paxoslease.Name
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
		t.Logf("ablate %q faults %v expire=%v: %d seeds, %d leases, %d violations (seeds %v)",
			tc.ablate, tc.faults, tc.expire, res.Seeds, res.LeasesAcquired, res.Violations, res.ViolatingSeeds)
		if res.LeasesAcquired == 0 {
			t.Errorf("ablate %q: nothing acquired", tc.ablate)
		}
		if got := res.Violations > 0; got != tc.violate {
			t.Errorf("ablate %q faults %v: %d violations, want violations=%v", tc.ablate, tc.faults, res.Violations, tc.violate)
		}
	}
}
