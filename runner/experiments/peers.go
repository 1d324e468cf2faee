package experiments

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"leaselab/runner"
	"leaselab/runner/peer/etcd"
	"leaselab/runner/udp"
)

// Peers are the lease services an experiment's variant may run against
// instead of a leaselab algorithm (Variant.Peer).
var Peers = []string{"etcd"}

// peerAvailable reports whether this binary can run peer: etcd needs a
// build with -tags etcd.
func peerAvailable(peer string) bool { return peer == "etcd" && etcd.Available() }

// peerAbsentNote is the report's note for a peer series left out.
func peerAbsentNote(peer string) string {
	return peer + " absent: this binary was built without -tags " + peer + " (go build -tags " + peer + " ./cmd/leaselab), so the " + peer + " series is not drawn."
}

// peerUnmeasured are the meters a peer's run does not measure (NaN in the
// tables and charts, not zero): etcd's clients see their own holds, not
// who is waiting while nobody holds, and etcd reports neither its
// messages, its timeouts nor its fsyncs to the client.
var peerUnmeasured = map[string]bool{"blocked_fraction": true, "availability": true, "preemptions": true, "preemptions_per_lease": true,
	"static_deadlocks": true, "static_deadlock_fraction": true, "messages_per_lease": true,
	"timeouts": true, "messages": true, "bytes_per_lease": true, "net_bytes_per_sec": true,
	"fsyncs": true, "fsyncs_per_lease": true, "fsyncs_per_sec": true, "disk_bytes": true, "disk_bytes_per_sec": true}

// peerMeasures reports whether a peer's run measures meter key (its
// fsync latency percentiles, fsync_latency_ms.*, neither).
func peerMeasures(key string) bool {
	return !peerUnmeasured[key] && !strings.HasPrefix(key, "fsync_latency_ms")
}

// etcdConfig is the etcd run that stands for spec: an embedded cluster of
// spec.Acceptors members, spec.Proposers clients, the same hold, pause,
// duration and seed; a batch locks spec.Leases resources through one
// session with as many Lock calls in flight as leaselab's udp proposer
// has requests (udp.DefaultWindow). etcd's session TTL is in whole seconds: the lease
// span rounded up, and at least 2 s (etcd's own minimum with its default
// election timeout).
func etcdConfig(s runner.Spec) etcd.Config {
	c := etcd.DefaultConfig()
	c.Workload = s.Workload
	c.Members = s.Acceptors
	c.Dir = s.Disk.Dir
	c.Proposers = s.Proposers
	c.Resources = max(1, s.Resources)
	c.Leases = s.Leases
	c.Window = udp.DefaultWindow
	c.Hold, c.Pause = s.Hold, s.Pause
	c.TTL = max(2, int(math.Ceil(s.Params.LeaseSpan.Seconds())))
	c.Duration = s.Duration
	c.Seed = s.Seed
	return c
}

func validatePeer(peer string, s runner.Spec) error {
	if peer != "etcd" {
		return fmt.Errorf("unknown peer %q", peer)
	}
	if s.Workload == "contention" && !s.Release {
		return fmt.Errorf("etcd's clients always unlock after the hold: the etcd series needs release on")
	}
	return etcdConfig(s).Validate()
}

// runPeer runs spec against peer; the result's Algo names the peer.
func runPeer(peer string, s runner.Spec) (runner.Result, error) {
	if err := validatePeer(peer, s); err != nil {
		return runner.Result{}, err
	}
	// The embedded cluster's start-up is not part of the run's meters,
	// but it needs a bound: a run that never starts must not hang.
	ctx, cancel := context.WithTimeout(context.Background(), s.Duration+2*time.Minute)
	defer cancel()
	res, err := etcd.Run(ctx, etcdConfig(s))
	if err != nil {
		return runner.Result{}, err
	}
	res.Algo, res.Params = peer, s
	return res, nil
}
