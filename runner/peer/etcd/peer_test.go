package etcd

import (
	"strings"
	"testing"
	"time"
)

// obsAt builds an observer from observations, as the clients would have
// recorded them (requests are appended when made, with the time read
// before: possibly after later observations).
func obsAt(obs ...obs) *observer { return &observer{obs: obs} }

func req(ms int64, owner, res int32) obs {
	return obs{t: ms * 1e6, kind: requested, owner: owner, res: res}
}

func at(ms int64, kind uint8, owner, res int32) obs {
	return obs{t: ms * 1e6, kind: kind, owner: owner, res: res}
}

// The clients' observations go through leaselab's Recorder: its meters
// and its checker.
func TestResultMeters(t *testing.T) {
	ms := time.Millisecond.Nanoseconds()
	cases := []struct {
		name       string
		workload   string
		o          *observer
		end        int64
		violations int
		changes    int
		failed     int
		gapMS      float64 // -1: none
		perSec     float64
		p50MS      float64
	}{
		{
			name: "handoffs", workload: "contention", end: 1000 * ms, gapMS: -1,
			o: obsAt(req(9, 1, 0), at(10, acquired, 1, 0), at(20, released, 1, 0),
				req(19, 2, 0), at(20, acquired, 2, 0), at(30, released, 2, 0),
				req(39, 2, 0), at(40, acquired, 2, 0)),
			changes: 1, perSec: 3, p50MS: 1,
		},
		{
			name: "overlap", workload: "contention", end: 100 * ms, gapMS: -1,
			o: obsAt(req(9, 1, 0), at(10, acquired, 1, 0),
				req(14, 2, 0), at(15, acquired, 2, 0), at(20, released, 1, 0)),
			violations: 1, changes: 1, perSec: 20, p50MS: 1,
		},
		{
			name: "session expired ends the hold", workload: "contention", end: 100 * ms, gapMS: -1,
			o: obsAt(req(9, 1, 0), at(10, acquired, 1, 0), at(12, expired, 1, -1),
				req(14, 2, 0), at(15, acquired, 2, 0)),
			changes: 1, perSec: 20, p50MS: 1,
		},
		{
			name: "failover gap", workload: "failover", end: 3000 * ms, gapMS: 2000,
			o: obsAt(req(0, 0, 0), at(1, acquired, 0, 0), at(1000, crashed, 0, -1),
				req(1000, 2, 0), req(1000, 1, 0), at(3000, acquired, 2, 0)),
			changes: 1, perSec: 2.0 / 3, p50MS: 1,
		},
		{
			name: "batch rate from first request to last acquisition", workload: "batch", end: 900 * ms, gapMS: -1,
			o: obsAt(req(0, 0, 0), at(100, acquired, 0, 0), req(0, 0, 1), at(500, acquired, 0, 1),
				req(0, 0, 2), at(600, failed, 0, 2)),
			failed: 1, perSec: 4, p50MS: 100,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Workload = tc.workload
			r := tc.o.result(c, tc.end)
			if r.Violations != tc.violations {
				t.Errorf("violations %d, want %d (%+v)", r.Violations, tc.violations, r.ViolationList)
			}
			if r.OwnerChanges != tc.changes {
				t.Errorf("owner changes %d, want %d", r.OwnerChanges, tc.changes)
			}
			if r.LeasesFailed != tc.failed {
				t.Errorf("failed %d, want %d", r.LeasesFailed, tc.failed)
			}
			if got := float64(r.FailoverGapMS); (tc.gapMS < 0 && r.FailoverGapMS.Valid()) || (tc.gapMS >= 0 && got != tc.gapMS) {
				t.Errorf("failover gap %v ms, want %v", got, tc.gapMS)
			}
			if d := r.LeasesPerSec - tc.perSec; d > 1e-9 || d < -1e-9 {
				t.Errorf("leases/s %v, want %v", r.LeasesPerSec, tc.perSec)
			}
			if r.LatencyMS.P50 != tc.p50MS {
				t.Errorf("latency p50 %v ms, want %v", r.LatencyMS.P50, tc.p50MS)
			}
			if r.Algo != "etcd" || r.Env != "etcd" || r.SimulatedNS != tc.end || r.WallMS != float64(tc.end)/1e6 {
				t.Errorf("algo %q env %q simulated %d wall %v", r.Algo, r.Env, r.SimulatedNS, r.WallMS)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want string // "" = valid
	}{
		{"default", func(*Config) {}, ""},
		{"workload", func(c *Config) { c.Workload = "burst" }, "workload"},
		{"failover alone", func(c *Config) { c.Workload, c.Proposers = "failover", 1 }, "at least 2 proposers"},
		{"ttl", func(c *Config) { c.TTL = 0 }, "TTL"},
		{"batch size", func(c *Config) { c.Leases = 0 }, "--leases"},
		{"external cluster needs no members", func(c *Config) { c.Members, c.Endpoints = 0, []string{"127.0.0.1:2379"} }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}
