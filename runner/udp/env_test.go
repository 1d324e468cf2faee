package udp

import (
	"bufio"
	"bytes"
	"encoding/json"
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

// shortSpec is udpSpec scaled for two-second tests: three proposers,
// leases of 300 ms (M = 400 ms), phases of 50 ms, clients holding 50 ms
// and pausing 20 ms, on an emulated 1 ms round trip.
func shortSpec(algo, workload string) runner.Spec {
	s := udpSpec(algo, workload)
	s.Proposers = 3
	s.Duration = 2 * time.Second
	s.Params.LeaseSpan = 300 * time.Millisecond
	s.Params.MaxLease = 400 * time.Millisecond
	s.Params.DMax = 50 * time.Millisecond
	s.Params.ResponseTimeout = 50 * time.Millisecond
	s.Params.Backoff = 10 * time.Millisecond
	s.Hold, s.Pause = 50*time.Millisecond, 20*time.Millisecond
	s.Net.RTT = time.Millisecond
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
	r, ex, err := RunSpec(s, runner.Options{}, EnvOptions{Window: 256})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("acquired %d failed %d timeouts %d %.0f leases/s, p50 %.3f ms, msgs/lease %.1f wall %.0f ms",
		r.LeasesAcquired, r.LeasesFailed, r.Timeouts, r.LeasesPerSec, r.LatencyMS.P50, r.MessagesPerLease, r.WallMS)
	if r.Env != "udp" || r.LeasesAcquired != 20000 || r.LeasesFailed != 0 || r.Violations != 0 {
		t.Fatalf("env %s acquired %d failed %d violations %d", r.Env, r.LeasesAcquired, r.LeasesFailed, r.Violations)
	}
	// Datagrams the kernel refused (SendErrors) are loss, which the
	// protocol retries; they are logged, not failed on. Undecodable
	// datagrams and unencodable messages are bugs.
	if m := ex.Meters; m.SendErrors > 0 {
		t.Logf("%d datagrams lost to send errors (first: %s)", m.SendErrors, m.FirstSendError)
	}
	if m := ex.Meters; m.BadDatagrams != 0 || m.EncodeErrors != 0 {
		t.Fatalf("bad datagrams %d, encode errors %d", m.BadDatagrams, m.EncodeErrors)
	}
}

// The single workload acquires one lease at proposer 0, and its latency is
// measured from the request to the Acquired event.
func TestRunSingleThroughRunner(t *testing.T) {
	s := udpSpec("naive", "single")
	s.Proposers = 1
	r, _, err := RunSpec(s, runner.Options{}, EnvOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("single naive lease %.3f ms", r.LatencyMS.P50)
	if r.LeasesAcquired != 1 || r.LeasesFailed != 0 || r.LatencyMS.N != 1 || r.LatencyMS.P50 <= 0 {
		t.Fatalf("acquired %d failed %d latency %+v", r.LeasesAcquired, r.LeasesFailed, r.LatencyMS)
	}
}

// TestRunContentionThroughRunner runs three proposers duelling for one
// resource through the runner. What must hold whatever the machine's load:
// no two owners at once, and every request ends (acquired or failed within
// MaxRounds: nobody hangs). How many leases are acquired is a matter of
// scheduling for naive: every node's own acceptor grants its own request
// first (self-delivery is instant, the others are 0.5 ms away), so rounds
// that start together deadlock statically and only a proposer that gets a
// head start wins; the count is logged, not asserted. PaxosLease resolves
// duels with ballots and backoff, so for it progress is asserted, with a
// wide margin (it acquires dozens of leases in 2 s on an idle machine),
// under -tags wallclock only: on a loaded machine any count can fall short.
func TestRunContentionThroughRunner(t *testing.T) {
	for _, c := range []struct {
		algo    string
		atLeast int // acquisitions
	}{
		{algo: "naive", atLeast: 0},
		{algo: "paxoslease", atLeast: 5},
	} {
		t.Run(c.algo, func(t *testing.T) {
			t.Parallel() // wall time, not CPU: the runs mostly wait
			s := shortSpec(c.algo, "contention")
			s.Params.LeaseSpan = 200 * time.Millisecond
			s.Params.MaxLease = 300 * time.Millisecond
			r, err := runner.Run(s, runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("acquired %d failed %d timeouts %d owner changes %d static deadlocks %d violations %d blocked %.2f",
				r.LeasesAcquired, r.LeasesFailed, r.Timeouts, r.OwnerChanges, r.StaticDeadlocks, r.Violations, r.BlockedFraction)
			if r.Violations != 0 {
				t.Fatalf("%d violations: %v", r.Violations, r.ViolationList)
			}
			if r.LeasesAcquired+r.LeasesFailed == 0 {
				t.Fatal("no request ended in 2 s (acquired or failed)")
			}
			if wallclock && r.LeasesAcquired < c.atLeast {
				t.Fatalf("acquired %d leases, want at least %d", r.LeasesAcquired, c.atLeast)
			}
		})
	}
}

// TestRunFailoverThroughRunner crashes the holder (node 0) through the
// runner and restarts it after Downtime. Safety must hold for both
// algorithms. A takeover is asserted only for PaxosLease: with node 0 down
// the two survivors each get their own acceptor's grant first and naive
// deadlocks statically until the grants expire, round after round, so
// whether one of them wins within the run is luck (on a loaded machine it
// sometimes does not). PaxosLease must take over once the holder's lease
// has expired at the acceptors (T = 300 ms after its last round): within
// T plus a generous margin for retries (under -tags wallclock only: a
// loaded machine can delay it past any margin). Classic Paxos
// takes over the same way, and its node 0 restarts from its log (the udp
// environment's crash-and-recover path for durable nodes).
func TestRunFailoverThroughRunner(t *testing.T) {
	for _, c := range []struct {
		algo     string
		takeover bool
	}{
		{algo: "naive"},
		{algo: "paxoslease", takeover: true},
		// Durable acceptors: node 0 comes back from its log at once.
		{algo: "classicpaxos", takeover: true},
	} {
		t.Run(c.algo, func(t *testing.T) {
			t.Parallel() // wall time, not CPU: the runs mostly wait
			// shortSpec's d_max of 50 ms is below v, as classic Paxos needs.
			s := shortSpec(c.algo, "failover")
			s.RenewBefore = 100 * time.Millisecond
			s.Faults.Downtime = 500 * time.Millisecond
			r, ex, err := RunSpec(s, runner.Options{}, EnvOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("acquired %d crashes %d restarts %d failover gap %.1f ms violations %d", r.LeasesAcquired, r.Crashes, ex.Restarts, r.FailoverGapMS, r.Violations)
			// The crash comes at or after Duration/4 and the restart
			// Downtime later, well inside the run.
			if r.Crashes != 1 || ex.Restarts != 1 || r.Violations != 0 {
				t.Fatalf("crashes %d, restarts %d, violations %d: %v", r.Crashes, ex.Restarts, r.Violations, r.ViolationList)
			}
			if wallclock && c.takeover && (r.FailoverGapMS < 0 || r.FailoverGapMS > 1000) {
				t.Fatalf("failover gap %.1f ms, want a takeover within 1 s (T = 300 ms)", r.FailoverGapMS)
			}
		})
	}
}

// Every event reaches the driver and the checker stamped with the clock
// reading its node stepped with, and in true-time order. With clocks that
// read true time (no skew, no drift) an event's stamp must equal its local
// time: a hold is dated from the instant the node read its clock for the
// input that made it believe, never later (when nodes only reported under
// the lock, a node that waited for it had its events dated at the
// environment's later time). Three proposers keep three nodes stepping at
// once, so the lock is contended throughout.
func TestEventsStampedWithStepClock(t *testing.T) {
	s := udpSpec("paxoslease", "batch")
	s.Proposers = 3
	s.Leases = 6000
	s.Duration = 15 * time.Second
	var tr bytes.Buffer
	r, _, err := RunSpec(s, runner.Options{Trace: &tr}, EnvOptions{Window: 256})
	if err != nil {
		t.Fatal(err)
	}
	if r.LeasesAcquired != s.Leases || r.Violations != 0 {
		t.Fatalf("acquired %d of %d, violations %d", r.LeasesAcquired, s.Leases, r.Violations)
	}
	var last int64
	events, holds := 0, 0
	sc := bufio.NewScanner(&tr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			T     int64  `json:"t_ns"`
			Local int64  `json:"local_ns"`
			What  string `json:"what"`
			Event string `json:"event"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("trace line %q: %v", sc.Text(), err)
		}
		if l.T < last {
			t.Fatalf("trace goes back in time, %d after %d: %s", l.T, last, sc.Text())
		}
		last = l.T
		switch l.What {
		case "event":
			events++
			if l.T != l.Local {
				t.Fatalf("event stamped %d, but its node stepped at %d (%+d ns): %s", l.T, l.Local, l.T-l.Local, sc.Text())
			}
		case "hold_start":
			holds++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if holds != s.Leases || events < s.Leases {
		t.Fatalf("trace has %d hold starts and %d events for %d leases", holds, events, s.Leases)
	}
	t.Logf("%d events, %d hold starts, all stamped with their step's clock reading, in order", events, holds)
}
