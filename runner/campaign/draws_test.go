package campaign

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"leaselab/runner"
)

// drawDigest is a digest of what seeds 1..300 of a campaign draw: the
// fields the kinds and Vary set.
func drawDigest(t *testing.T, algo string, fk []string, vary Vary) string {
	t.Helper()
	base := runner.DefaultSpec()
	base.Algo = algo
	h := sha256.New()
	for seed := uint64(1); seed <= 300; seed++ {
		s, err := CheckSpecFor(CheckSpec{Base: base, Faults: fk, Vary: vary}, seed)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(h, s.Net.Loss, s.Net.Dup, s.Net.Reorder, s.Net.Stale, s.Net.StaleSpans, s.Net.Late, s.Net.RTT, s.Net.Jitter,
			s.Faults.Partitions, s.Faults.PartitionLen, s.Faults.CrashRate, s.Faults.Downtime, s.Faults.PauseRate,
			s.Clocks.Drift, s.Clocks.Skew, s.Clocks.Free, s.Clocks.Edges, s.Clocks.Jumps, s.Clocks.Strobe,
			s.Giveup, s.Extend, s.Resources, s.Acceptors, s.Proposers, s.Params.ResponseTimeout, s.Release, s.Hold, s.Pause)
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:8])
}

// The kinds' draws, now in the fault-kind table, are the ones campaigns
// made before it (the digests were taken from the campaign's own draws
// and checked equal over 216 configurations when the table took them
// over): a seed of a campaign keeps its spec.
func TestDrawsUnchanged(t *testing.T) {
	all := Vary{Workload: true, Downtime: true, PartitionLen: true}
	fixed := Vary{Fixed: []string{"loss", "drift", "stale-max", "acceptors"}}
	for _, tc := range []struct {
		algo string
		fk   []string
		vary Vary
		want string
	}{
		{"paxoslease", []string{"all"}, Vary{}, "07eae441b7e24d76"},
		{"paxoslease", []string{"all"}, all, "6d18771b7b440139"},
		{"fatlease", []string{"all"}, fixed, "34a55cd4e8ac55e4"},
		{"paxoslease", []string{"swarm"}, Vary{}, "7baa2b5742bb8a2a"},
		{"fatlease", []string{"swarm"}, all, "f95bda87edd23137"},
		{"paxoslease", []string{"swarm"}, fixed, "4392fb1419fc9325"},
		{"naive", []string{"drift", "freeclock"}, all, "1b9fac54f527a5ad"},
	} {
		if got := drawDigest(t, tc.algo, tc.fk, tc.vary); got != tc.want {
			t.Errorf("%s %v %+v: draws digest %s, want %s", tc.algo, tc.fk, tc.vary, got, tc.want)
		}
	}
}
