package fatlease_test

import (
	"testing"
	"time"

	"leaselab/algorithms"
	_ "leaselab/classicpaxos"
	_ "leaselab/fatlease"
	"leaselab/runner"
	"leaselab/runner/campaign"
)

// Short fault campaigns through the runner: the rules hold under every
// fault kind, and switching a rule off is caught by the checker. The full
// campaigns (500 / 300 seeds) are the commands in the package docs.
func TestCampaigns(t *testing.T) {
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
