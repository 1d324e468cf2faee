package etcd

import (
	"strings"
	"testing"
	"time"
)

// obsAt builds an observer from observations at given times, as the
// clients would have recorded them.
func obsAt(first int64, lat []int64, obs ...obs) *observer {
	return &observer{first: first, obs: obs, latency: lat}
}

func TestResultMeters(t *testing.T) {
	ms := time.Millisecond.Nanoseconds()
	cases := []struct {
		name       string
		workload   string
		o          *observer
		end        int64
		crashAt    int64
		violations int
		changes    int
		gapMS      float64 // -1: none
		perSec     float64
	}{
		{
			name: "handoffs", workload: "contention", end: 1000 * ms, crashAt: -1, gapMS: -1,
			o: obsAt(0, []int64{ms, ms, ms},
				obs{t: 10 * ms, kind: acquired, owner: 1}, obs{t: 20 * ms, kind: released, owner: 1},
				obs{t: 20 * ms, kind: acquired, owner: 2}, obs{t: 30 * ms, kind: released, owner: 2},
				obs{t: 40 * ms, kind: acquired, owner: 2}),
			changes: 1, perSec: 3,
		},
		{
			name: "overlap", workload: "contention", end: 100 * ms, crashAt: -1, gapMS: -1,
			o: obsAt(0, []int64{ms, ms},
				obs{t: 10 * ms, kind: acquired, owner: 1},
				obs{t: 15 * ms, kind: acquired, owner: 2}, obs{t: 20 * ms, kind: released, owner: 1}),
			violations: 1, changes: 1, perSec: 20,
		},
		{
			name: "session expired ends the hold", workload: "contention", end: 100 * ms, crashAt: -1, gapMS: -1,
			o: obsAt(0, []int64{ms, ms},
				obs{t: 10 * ms, kind: acquired, owner: 1}, obs{t: 12 * ms, kind: expired, owner: 1, res: -1},
				obs{t: 15 * ms, kind: acquired, owner: 2}),
			changes: 1, perSec: 20,
		},
		{
			name: "failover gap", workload: "failover", end: 3000 * ms, crashAt: 1000 * ms, gapMS: 2000,
			o: obsAt(0, []int64{ms, 2000 * ms},
				obs{t: 1 * ms, kind: acquired, owner: 0}, obs{t: 1000 * ms, kind: crashed, owner: 0, res: -1},
				obs{t: 3000 * ms, kind: acquired, owner: 2}),
			changes: 1, perSec: 2.0 / 3,
		},
		{
			name: "batch rate from first request to last acquisition", workload: "batch", end: 900 * ms, crashAt: -1, gapMS: -1,
			o: obsAt(0, []int64{100 * ms, 500 * ms},
				obs{t: 100 * ms, kind: acquired, owner: 0, res: 0}, obs{t: 500 * ms, kind: acquired, owner: 0, res: 1}),
			perSec: 4,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Workload = tc.workload
			r := tc.o.result(c, tc.end, tc.crashAt, 0)
			if r.Violations != tc.violations {
				t.Errorf("violations %d, want %d (%+v)", r.Violations, tc.violations, r.ViolationList)
			}
			if r.OwnerChanges != tc.changes {
				t.Errorf("owner changes %d, want %d", r.OwnerChanges, tc.changes)
			}
			if got := float64(r.FailoverGapMS); (tc.gapMS < 0 && r.FailoverGapMS.Valid()) || (tc.gapMS >= 0 && got != tc.gapMS) {
				t.Errorf("failover gap %v ms, want %v", got, tc.gapMS)
			}
			if d := r.LeasesPerSec - tc.perSec; d > 1e-9 || d < -1e-9 {
				t.Errorf("leases/s %v, want %v", r.LeasesPerSec, tc.perSec)
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
