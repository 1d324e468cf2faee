package main

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"leaselab/runner"
)

// The release hints (PaxosLease Sec. 7) cost most of PaxosLease's messages
// under contention, and they are what makes its hand-off fair: without
// them the waiters sleep out the span their rejects reported, and one
// contender takes nearly every lease (experiments.Exposes,
// paxoslease/release-hints).
func TestReleaseHintsFairness(t *testing.T) {
	contend := func(ablate string) runner.Result {
		args := []string{"run", "--algo", "paxoslease", "--workload", "contention", "--proposers", "16",
			"--hold", "100us", "--pause", "100us", "--duration", "1s", "--rtt", "50us", "--jitter", "10us", "--format", "json"}
		if ablate != "" {
			args = append(args, "--ablate", ablate)
		}
		var out bytes.Buffer
		if code := run(args, &out, io.Discard); code != 0 {
			t.Fatalf("leaselab %v: exit %d", args, code)
		}
		var r runner.Result
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Violations != 0 {
			t.Fatalf("leaselab %v: %d violations", args, r.Violations)
		}
		return r
	}
	on, off := contend(""), contend("release-hints")
	if on.Fairness < 0.9 || off.Fairness > 0.2 {
		t.Errorf("fairness %.3f with release hints, %.3f without; want above 0.9 and below 0.2", on.Fairness, off.Fairness)
	}
	if off.MessagesPerLease > on.MessagesPerLease/2 {
		t.Errorf("messages per lease %.1f with release hints, %.1f without; want the hints to cost more than half", on.MessagesPerLease, off.MessagesPerLease)
	}
	if off.HandoffsPerSec > on.HandoffsPerSec/10 {
		t.Errorf("hand-offs per second %.1f with release hints, %.1f without; want a tenth or less without", on.HandoffsPerSec, off.HandoffsPerSec)
	}
}

// fairq's queued hand-off is one round trip plus the hold: at a 50 µs
// round trip and a 100 µs hold its bound is 1/(150 µs) = 6,667 hand-offs
// a second. The releasing holder names the next waiter, so every
// acquisition is a hand-off and the sixteen clients take turns, at about
// 11 messages a lease. Without the named successor the acceptors, whose
// queues differ in order, split the lease between waiters
// (experiments.Exposes, fairq/named-successor).
func TestFairQueueHandoff(t *testing.T) {
	contend := func(ablate string) runner.Result {
		args := []string{"run", "--algo", "fairq", "--workload", "contention", "--proposers", "16",
			"--hold", "100us", "--pause", "100us", "--duration", "1s", "--rtt", "50us", "--jitter", "10us", "--format", "json"}
		if ablate != "" {
			args = append(args, "--ablate", ablate)
		}
		var out bytes.Buffer
		if code := run(args, &out, io.Discard); code != 0 {
			t.Fatalf("leaselab %v: exit %d", args, code)
		}
		var r runner.Result
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Violations != 0 {
			t.Fatalf("leaselab %v: %d violations", args, r.Violations)
		}
		return r
	}
	on, off := contend(""), contend("named-successor")
	if on.HandoffsPerSec < 6000 || on.Fairness < 0.99 || on.MessagesPerLease > 13 {
		t.Errorf("fairq: %.1f hand-offs/s, fairness %.3f, %.1f messages per lease; want at least 6,000 (the bound is 6,667), 0.99 and at most 13",
			on.HandoffsPerSec, on.Fairness, on.MessagesPerLease)
	}
	if off.HandoffsPerSec > on.HandoffsPerSec/10 {
		t.Errorf("hand-offs per second %.1f with the named successor, %.1f without; want a tenth or less without", on.HandoffsPerSec, off.HandoffsPerSec)
	}
}
