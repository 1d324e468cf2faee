package paxoslease

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"leaselab/algorithms"
)

func TestSlotSize(t *testing.T) {
	if got := unsafe.Sizeof(slot{}); got != 48 {
		t.Fatalf("slot is %d bytes, want 48 (the memory budget per resource depends on it)", got)
	}
}

func TestRoundSize(t *testing.T) {
	if got := unsafe.Sizeof(round{}); got != 128 {
		t.Fatalf("round is %d bytes, want 128 (two cache lines per acquisition in flight)", got)
	}
}

func TestTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys func(i int) algorithms.ResourceID
	}{
		{"sequential", func(i int) algorithms.ResourceID { return algorithms.ResourceID(i) }},
		{"strided", func(i int) algorithms.ResourceID { return algorithms.ResourceID(i) << 32 }},
		{"random", func() func(int) algorithms.ResourceID {
			r := rand.New(rand.NewPCG(1, 2))
			ks := make([]algorithms.ResourceID, 50000)
			for i := range ks {
				ks[i] = algorithms.ResourceID(r.Uint64())
			}
			return func(i int) algorithms.ResourceID { return ks[i] }
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tb table
			const n = 50000
			for i := 0; i < n; i++ {
				k := tc.keys(i)
				if tb.get(k) != nil {
					t.Fatalf("key %d present before put", k)
				}
				s := tb.put(k)
				s.promised = algorithms.Ballot(i + 1)
				if tb.put(k) != s {
					t.Fatalf("put of a present key moved it")
				}
			}
			if tb.len() != n {
				t.Fatalf("len %d, want %d", tb.len(), n)
			}
			for i := 0; i < n; i++ {
				s := tb.get(tc.keys(i))
				if s == nil || s.key != tc.keys(i) || s.promised != algorithms.Ballot(i+1) {
					t.Fatalf("key %d lost or corrupted after growth: %+v", tc.keys(i), s)
				}
			}
			if load := float64(tb.n) / float64(tb.size()); load > 0.9 || load < 0.5 {
				t.Errorf("load %.2f outside [0.5, 0.9]", load)
			}
		})
	}
}

// BenchmarkMemoryPerResource drives one node (acceptor and proposer of a
// one-acceptor cluster) through a full acquisition on each of 700,000,
// 1,000,000 and 1,300,000 resources (Prepare, Promise, Propose, Accepted,
// Acquired) and reports the live heap it keeps per resource while it
// holds all those leases. Its timers are in Output.Timers (no KeepTimers):
// runner/udp's BenchmarkMemoryPerResourceNode counts them too. The
// paper's figure is about 100 bytes (Keyspace: 104).
func BenchmarkMemoryPerResource(b *testing.B) {
	for _, resources := range []int{700_000, 1_000_000, 1_300_000} {
		b.Run(fmt.Sprint(resources), func(b *testing.B) { benchMemoryPerResource(b, resources) })
	}
}

func benchMemoryPerResource(b *testing.B, resources int) {
	p := algorithms.DefaultParams()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n := New(algorithms.Config{ID: 0, Cluster: algorithms.NewCluster(1, 1), Params: p, Rand: rand.New(rand.NewPCG(1, 1))})
		var out algorithms.Output
		var inbox []algorithms.Message
		now := algorithms.Local(0)
		held := 0
		for r := 0; r < resources; r++ {
			now++
			out.Reset()
			n.Step(now, algorithms.Input{Kind: algorithms.Acquire, Resource: algorithms.ResourceID(r)}, &out)
			for len(out.Msgs) > 0 {
				inbox = append(inbox[:0], out.Msgs...)
				out.Reset()
				for _, m := range inbox {
					n.Step(now, algorithms.Input{Kind: algorithms.Recv, Msg: m}, &out)
				}
				for _, e := range out.Events {
					if e.Kind == algorithms.Acquired {
						held++
					}
				}
			}
		}
		if held != resources {
			b.Fatalf("held %d leases, want %d", held, resources)
		}
		out, inbox = algorithms.Output{}, nil
		runtime.GC()
		runtime.ReadMemStats(&after)
		perRes := float64(after.HeapAlloc-before.HeapAlloc) / float64(resources)
		runtime.KeepAlive(n)
		b.ReportMetric(perRes, "B/resource")
		b.ReportMetric(float64(n.res.n)/float64(n.res.size()), "load")
	}
}

// TestRadixSortHigh: the index rebuild's sort orders by the high 32 bits
// (their low width bits), stably, for widths of one to three digits.
func TestRadixSortHigh(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, width := range []int{1, 11, 12, 22, 32} {
		a := make([]uint64, 5000)
		for i := range a {
			a[i] = r.Uint64N(1<<width)<<32 | uint64(i)
		}
		want := slices.Clone(a)
		slices.SortStableFunc(want, func(x, y uint64) int { return cmp.Compare(x>>32, y>>32) })
		if got := radixSortHigh(a, width); !slices.Equal(got, want) {
			t.Errorf("width %d: not sorted stably", width)
		}
	}
}
