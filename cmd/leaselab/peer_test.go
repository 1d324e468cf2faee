package main

import (
	"strings"
	"testing"

	"leaselab/runner/peer/etcd"
)

// bench --peer: bad input is refused before any cluster starts; a binary
// without -tags etcd says how to build one that has it.
func TestBenchPeerInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench", "--peer", "zk"}, 2, `--peer "zk": known peers are etcd`},
		{[]string{"bench", "--peer", "etcd", "--workload", "failover", "--proposers", "1"}, 2, "failover needs at least 2 proposers"},
		{[]string{"bench", "--peer", "etcd", "--workload", "burst"}, 2, `workload "burst"`},
		{[]string{"bench", "--peer", "etcd", "--etcd-ttl", "0"}, 2, "TTL must be at least 1 s"},
		{[]string{"bench", "--peer", "etcd", "--workload", "contention", "--compare"}, 2, "--compare runs --algo over UDP for batch and single only"},
	} {
		code, stdout, stderr := leaselab(tc.args...)
		if code != tc.code || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}
	if etcd.Available() {
		return
	}
	code, _, stderr := leaselab("bench", "--peer", "etcd", "--leases", "10")
	if code != 2 || !strings.Contains(stderr, "go build -tags etcd ./cmd/leaselab") {
		t.Errorf("bench --peer etcd without the tag: exit %d, stderr %q; want exit 2 (the request, not a failure) and how to build", code, stderr)
	}
}
