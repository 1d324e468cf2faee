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

// BenchmarkMachineMemory is a yardstick for BenchmarkSimDeliver, not a
// measure of leaselab: the cost of one random read and one random write
// of a cache line in an array of a batch's size (reads=12MB: about what
// a 10,000-lease batch keeps in flight), of a size that fits a core's
// share of the last-level cache (reads=3MB), and of the loop alone
// (compute). Run beside the batch in one stretch,
//
//	go test -run X -bench 'BenchmarkSimDeliver$|BenchmarkMachineMemory' ./runner/sim/
//
// it tells a slow minute of the machine from a slower simulator: on the
// shared virtual machine this was written on, compute and reads=3MB
// stayed within a few percent from minute to minute while reads=12MB
// moved by up to a factor of two, and the batch's rate by up to a third
// (DESIGN.md, "Performance").
func BenchmarkMachineMemory(b *testing.B) {
	b.Run("compute", func(b *testing.B) { benchMemory(b, 0) })
	for _, mb := range []int{3, 12} {
		b.Run(fmt.Sprintf("reads=%dMB", mb), func(b *testing.B) { benchMemory(b, mb<<20) })
	}
}

// benchMemory reads and writes a word of a random cache line of a
// size-byte array per op (the loop and its generator only, if size is
// 0). The addresses come from a linear congruential generator, so
// consecutive ops do not wait for each other's loads.
func benchMemory(b *testing.B, size int) {
	const line = 8 // words of a cache line
	lines := uint64(max(size/64, 1))
	a := make([]uint64, lines*line)
	for i := range a {
		a[i] = uint64(i) // touch every page before the clock starts
	}
	x, sum := uint64(1), uint64(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		if size == 0 {
			sum += x >> 40
			continue
		}
		a[(x>>33)%lines*line] += uint64(i)
		sum += a[(x>>13)%lines*line]
	}
	b.StopTimer()
	if sum == 42 {
		b.Log("") // keeps sum, and so the loads, alive
	}
}
