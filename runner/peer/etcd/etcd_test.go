//go:build etcd

package etcd

import (
	"context"
	"testing"
	"time"
)

// TestWorkloads runs every workload, small, on one embedded 3-member
// cluster (as an existing cluster given by Endpoints), then a batch on an
// embedded cluster of Run's own: go test -tags etcd ./runner/peer/etcd/
func TestWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd clusters")
	}
	cl, err := startCluster(t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.close()
	cases := []struct {
		name string
		edit func(*Config)
		min  int // acquisitions at least
	}{
		{"batch, own cluster", func(c *Config) { c.Workload, c.Leases, c.Endpoints = "batch", 300, nil }, 300},
		{"batch", func(c *Config) { c.Workload, c.Leases = "batch", 300 }, 300},
		{"single", func(c *Config) { c.Workload, c.Reps = "single", 30 }, 30},
		{"contention", func(c *Config) { c.Workload, c.Proposers, c.Duration = "contention", 4, 2*time.Second }, 4},
		{"failover", func(c *Config) { c.Workload, c.Proposers, c.Duration = "failover", 3, 10*time.Second }, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Dir = t.TempDir()
			c.Endpoints = cl.clients
			tc.edit(&c)
			r, err := Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if r.LeasesAcquired < tc.min || r.LeasesFailed != 0 || r.Violations != 0 {
				t.Fatalf("acquired %d (want >= %d), failed %d, violations %d", r.LeasesAcquired, tc.min, r.LeasesFailed, r.Violations)
			}
			if r.LatencyMS.N != r.LeasesAcquired || r.LatencyMS.P50 <= 0 {
				t.Errorf("latency %+v for %d leases", r.LatencyMS, r.LeasesAcquired)
			}
			switch c.Workload {
			case "contention":
				if r.OwnerChanges == 0 || r.HandoffsPerSec <= 0 {
					t.Errorf("4 clients on one lock, no hand-off: %d owner changes", r.OwnerChanges)
				}
			case "failover":
				// The successor waits for the holder's lease to expire:
				// at least most of a TTL.
				if !r.FailoverGapMS.Valid() || r.FailoverGapMS < 1000 {
					t.Errorf("failover gap %v ms with a %d s TTL", r.FailoverGapMS, c.TTL)
				}
			}
		})
	}
}
