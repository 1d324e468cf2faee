package udp

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"leaselab/algorithms"
	_ "leaselab/paxoslease"
	"leaselab/runner/host"
)

// BenchmarkMemoryPerResourceNode counts every byte a UDP node keeps per
// held lease: the algorithm's acceptor and proposer state with the timers
// it keeps itself (PaxosLease keeps its acceptor timers, one per held
// lease: algorithms.TimerKeeper), plus the node's own timer set (entries,
// index and heap), which the algorithm package cannot see. One node
// (acceptor and proposer of a one-acceptor cluster) acquires each of
// 700,000, 1,000,000 and 1,300,000 resources (the tables grow in steps,
// so one count alone could land at a lucky or unlucky point of a growth
// cycle); its Outputs' timers are applied the way Node.apply applies them.
// The admission window's in-flight set is empty once every acquisition is
// done, so it keeps nothing per held lease.
func BenchmarkMemoryPerResourceNode(b *testing.B) {
	for _, resources := range []int{700_000, 1_000_000, 1_300_000} {
		b.Run(fmt.Sprint(resources), func(b *testing.B) { benchMemoryPerResourceNode(b, resources) })
	}
}

func benchMemoryPerResourceNode(b *testing.B, resources int) {
	a, err := algorithms.Lookup("paxoslease")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		runtime.GC()
		var before, mid, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n, err := a.New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(1, 1), Params: algorithms.DefaultParams(), Rand: rand.New(rand.NewPCG(1, 1))})
		if err != nil {
			b.Fatal(err)
		}
		tm := &host.Timers{}
		tm.Ordered()
		tm.KeepFor(n)
		var out algorithms.Output
		var inbox []algorithms.Message
		now := algorithms.Local(0)
		held := 0
		apply := func() {
			for _, t := range out.Timers {
				if t.Cancel {
					tm.Cancel(t.Key)
				} else {
					tm.Set(t.Key, t.At)
				}
			}
			for _, e := range out.Events {
				if e.Kind == algorithms.Acquired {
					held++
				}
			}
		}
		for r := 0; r < resources; r++ {
			now++
			out.Reset()
			n.Step(now, algorithms.Input{Kind: algorithms.Acquire, Resource: algorithms.ResourceID(r)}, &out)
			apply()
			for len(out.Msgs) > 0 {
				inbox = append(inbox[:0], out.Msgs...)
				out.Reset()
				for _, m := range inbox {
					n.Step(now, algorithms.Input{Kind: algorithms.Recv, Msg: m}, &out)
				}
				apply()
			}
		}
		if held != resources {
			b.Fatalf("held %d leases, want %d", held, resources)
		}
		out, inbox = algorithms.Output{}, nil
		runtime.GC()
		runtime.ReadMemStats(&mid)
		live := tm.Len()
		*tm = host.Timers{} // drop the node's timer set only: what is freed is its
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(n)
		if k, ok := n.(algorithms.TimerKeeper); ok {
			// Count the kept timers too: every held lease has its timer.
			for _, _, ok := k.NextTimer(); ok; _, _, ok = k.NextTimer() {
				k.PopTimer()
				live++
			}
		}
		total := float64(mid.HeapAlloc-before.HeapAlloc) / float64(resources)
		setBytes := float64(mid.HeapAlloc-after.HeapAlloc) / float64(resources)
		b.ReportMetric(total, "B/resource")
		b.ReportMetric(setBytes, "node-set-B/resource")
		b.ReportMetric(float64(live)/float64(resources), "timers/resource")
	}
}
