package sim

import (
	"fmt"
	"testing"
	"time"

	"leaselab/runner"
)

// BenchmarkSimDeliver runs the batch workload of the naive majority vote
// (3 acceptors, 10,000 leases per iteration) and reports delivered
// messages per second of wall time.
func BenchmarkSimDeliver(b *testing.B) { benchDeliver(b, 10000) }

// BenchmarkSimBatchSizes is BenchmarkSimDeliver at other batch sizes
// (named so that -bench BenchmarkSimDeliver does not run it). Every size
// runs about the same instructions per lease; what changes is the memory
// a batch keeps in flight, about 1.2 KB a lease, against the caches:
// where it fits the machine's share of the last-level cache the rate per
// lease is the highest (DESIGN.md, "Performance").
func BenchmarkSimBatchSizes(b *testing.B) {
	for _, n := range []int{1000, 3000, 10000, 30000} {
		b.Run(fmt.Sprintf("leases=%d", n), func(b *testing.B) { benchDeliver(b, n) })
	}
}

func benchDeliver(b *testing.B, leases int) {
	s := runner.DefaultSpec()
	s.Algo = "naive"
	s.Workload = "batch"
	s.Acceptors, s.Proposers = 3, 1
	s.Leases = leases
	s.Duration = time.Minute
	var delivered int64
	start := time.Now()
	for i := 0; i < b.N; i++ {
		s.Seed = uint64(i + 1)
		res, sm, err := runDetail(plan(b, s), runner.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res.LeasesAcquired != s.Leases {
			b.Fatalf("acquired %d of %d", res.LeasesAcquired, s.Leases)
		}
		delivered += sm.delivered
	}
	b.ReportMetric(float64(delivered)/time.Since(start).Seconds(), "msgs/s")
	b.ReportMetric(float64(delivered)/float64(b.N), "msgs/op")
}

// BenchmarkSimContention runs 60 s of the contention workload (5
// proposers, 3 acceptors) of the naive majority vote.
func BenchmarkSimContention(b *testing.B) {
	s := runner.DefaultSpec()
	s.Algo = "naive"
	s.Proposers = 5
	var delivered int64
	start := time.Now()
	for i := 0; i < b.N; i++ {
		s.Seed = uint64(i + 1)
		_, sm, err := runDetail(plan(b, s), runner.Options{})
		if err != nil {
			b.Fatal(err)
		}
		delivered += sm.delivered
	}
	b.ReportMetric(float64(delivered)/time.Since(start).Seconds(), "msgs/s")
}

func plan(t testing.TB, s runner.Spec) runner.Plan {
	t.Helper()
	p, err := runner.Resolve(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
