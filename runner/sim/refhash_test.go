package sim_test

import (
	"testing"
	"time"

	_ "leaselab/algorithms/example" // central
	_ "leaselab/classicpaxos"
	_ "leaselab/fatlease"
	_ "leaselab/naive"
	_ "leaselab/paxoslease"
	_ "leaselab/paxoslease/fairq"
	"leaselab/runner"
	"leaselab/runner/sim"
)

// The reference runs: every algorithm, every workload and the main fault
// kinds, each with the trace hash it gives. A change that gives one of
// them another trace (an algorithm's behaviour, the simulator's order of
// events, a fault's draws) or another hash function fails this test, and
// its commit says why each changed hash changed; a change that should
// not touch behaviour (a meter, a judgement, a refactor) must leave all
// thirteen as they are. The hashes are amd64's: runs with drifting clocks
// compute in floating point, which an architecture that fuses multiply
// and add (arm64) may round otherwise.
func TestReferenceTraceHashes(t *testing.T) {
	base := func(algo string) runner.Spec {
		s := runner.DefaultSpec()
		s.Algo, s.Duration, s.Seed = algo, 30*time.Second, 7
		if algo == "central" {
			s.Acceptors = 1
		}
		return s
	}
	with := func(algo string, f func(*runner.Spec)) runner.Spec { s := base(algo); f(&s); return s }
	for _, c := range []struct {
		name string
		spec runner.Spec
		hash string
	}{
		{"naive", base("naive"), "d5defcdb0765560d"},
		{"naive-undo", base("naive-undo"), "bdd1b74f3f6e39af"},
		{"paxoslease", base("paxoslease"), "655b4c7a5ba314ab"},
		{"fatlease", base("fatlease"), "568385eb7bb5f731"},
		{"classicpaxos", base("classicpaxos"), "e89bb01f67b34b31"},
		{"central", base("central"), "f2f5aa72c58d7015"},
		{"fairq", base("fairq"), "dc3eebca75d9fae2"},
		{"naive/batch", with("naive", func(s *runner.Spec) { s.Workload, s.Leases = "batch", 2000 }), "10da35c35576b5c0"},
		{"paxoslease/single", with("paxoslease", func(s *runner.Spec) { s.Workload = "single" }), "53a326d1fc42b6f8"},
		{"fatlease/failover", with("fatlease", func(s *runner.Spec) { s.Workload = "failover" }), "0acd4e08ae029be5"},
		{"classicpaxos/batch-fsync", with("classicpaxos", func(s *runner.Spec) {
			s.Workload, s.Leases, s.Disk.FsyncLatency = "batch", 1000, 2*time.Millisecond
		}), "e6e243665d25629c"},
		{"paxoslease/faults", with("paxoslease", func(s *runner.Spec) {
			s.Proposers, s.Net.Loss, s.Net.Dup, s.Faults.CrashRate, s.Clocks.Drift, s.Clocks.Skew = 5, 0.05, 0.02, 1, 0.001, 100*time.Millisecond
		}), "b0dfea13ac2c9ef0"},
		{"fairq/pause-fenced", with("fairq", func(s *runner.Spec) {
			s.Proposers, s.Faults.PauseRate, s.Writes, s.Store = 5, 2, 50*time.Millisecond, "fenced"
		}), "0259912cab22bfff"},
	} {
		res, err := sim.Run(c.spec, runner.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.LeasesAcquired == 0 {
			t.Errorf("%s: no lease acquired", c.name)
		}
		if res.TraceHash != c.hash {
			t.Errorf("%s: trace hash %s, want %s", c.name, res.TraceHash, c.hash)
		}
	}
}
