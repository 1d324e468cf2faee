package udp

import (
	"testing"
	"time"

	"leaselab/runner"
)

func udpSpec(algo, workload string) runner.Spec {
	s := runner.DefaultSpec()
	s.Algo = algo
	s.Env = "udp"
	s.Workload = workload
	s.Net = runner.NetSpec{}
	return s
}

func TestRunBatchThroughRunner(t *testing.T) {
	s := udpSpec("naive", "batch")
	s.Proposers = 1
	s.Leases = 20000
	s.Duration = 15 * time.Second
	// A small window keeps the test safe on a loaded machine (or under
	// -race): a window that takes longer than the response timeout to
	// work through makes the proposer retry what is only queued.
	r, _, err := RunSpec(s, runner.Options{}, EnvOptions{Window: 256})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("acquired %d failed %d timeouts %d %.0f leases/s, p50 %.3f ms, msgs/lease %.1f wall %.0f ms",
		r.LeasesAcquired, r.LeasesFailed, r.Timeouts, r.LeasesPerSec, r.LatencyMS.P50, r.MessagesPerLease, r.WallMS)
	if r.Env != "udp" || r.LeasesAcquired != 20000 || r.LeasesFailed != 0 || r.Violations != 0 {
		t.Fatalf("env %s acquired %d failed %d violations %d", r.Env, r.LeasesAcquired, r.LeasesFailed, r.Violations)
	}
}

func TestRunContentionThroughRunner(t *testing.T) {
	s := udpSpec("naive", "contention")
	s.Proposers = 3
	s.Duration = 2 * time.Second
	s.Params.LeaseSpan = 200 * time.Millisecond
	s.Params.MaxLease = 300 * time.Millisecond
	s.Params.ResponseTimeout = 50 * time.Millisecond
	s.Params.Backoff = 10 * time.Millisecond
	s.Hold = 50 * time.Millisecond
	s.Pause = 20 * time.Millisecond
	s.Net.RTT = time.Millisecond
	r, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("acquired %d failed %d owner changes %d violations %d blocked %.2f", r.LeasesAcquired, r.LeasesFailed, r.OwnerChanges, r.Violations, r.BlockedFraction)
	if r.LeasesAcquired < 5 || r.Violations != 0 {
		t.Fatalf("acquired %d, violations %d", r.LeasesAcquired, r.Violations)
	}
}

func TestRunFailoverThroughRunner(t *testing.T) {
	s := udpSpec("naive", "failover")
	s.Proposers = 3
	s.Duration = 2 * time.Second
	s.Params.LeaseSpan = 300 * time.Millisecond
	s.Params.MaxLease = 400 * time.Millisecond
	s.Params.ResponseTimeout = 50 * time.Millisecond
	s.Params.Backoff = 10 * time.Millisecond
	s.RenewBefore = 100 * time.Millisecond
	s.Faults.Downtime = 500 * time.Millisecond
	r, err := runner.Run(s, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("acquired %d crashes %d failover gap %.1f ms violations %d", r.LeasesAcquired, r.Crashes, r.FailoverGapMS, r.Violations)
	if r.Crashes != 1 || r.FailoverGapMS < 0 || r.Violations != 0 {
		t.Fatalf("crashes %d, gap %.1f ms, violations %d", r.Crashes, r.FailoverGapMS, r.Violations)
	}
}
