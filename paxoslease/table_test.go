package paxoslease

import (
	"cmp"
	"encoding/binary"
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

// bandKeys returns n resource ids, whole blocks of homeBlock, whose
// blocks hash into the lowest (low) or highest 2^-bits of the hash space.
// Lemire's reduction keeps the order of hashes, so at every index size
// their homes crowd into a few slots at the start of the index, or at its
// end, where their runs wrap round to slot 0.
func bandKeys(n, bits int, low bool) []algorithms.ResourceID {
	var ks []algorithms.ResourceID
	top := uint64(0)
	if !low {
		top = 1<<bits - 1
	}
	for b := algorithms.ResourceID(0); len(ks) < n; b++ {
		if hash(b)>>(64-bits) != top {
			continue
		}
		for j := algorithms.ResourceID(0); j < homeBlock && len(ks) < n; j++ {
			ks = append(ks, b*homeBlock+j)
		}
	}
	return ks
}

// checkIndex checks the index against its records: each record once,
// every entry at its distance from its key's home, no distance past
// tableMaxDist, the Robin Hood order (a run's distances rise by at most
// one a slot; a displaced entry follows an occupied slot), load at most
// 8/10. It returns the largest distance.
func checkIndex(t *testing.T, tb *table) int {
	t.Helper()
	size, seen, maxd := tb.size(), make([]bool, tb.n), 0
	if tb.n*tableLoadDen > size*tableLoadNum {
		t.Fatalf("%d records in %d slots: load above 8/10", tb.n, size)
	}
	for i := 0; i < size; i++ {
		dist, r := tb.entry(i)
		prev, _ := tb.entry((i + size - 1) % size)
		switch {
		case dist == 0:
			continue
		case int(r) >= tb.n || seen[r]:
			t.Fatalf("slot %d: record %d unknown or indexed twice", i, r)
		case int(dist)-1 > tableMaxDist:
			t.Fatalf("slot %d: distance %d past %d", i, dist-1, tableMaxDist)
		case (homeOf(tb.rec(r).key, size)+int(dist)-1)%size != i:
			t.Fatalf("slot %d: key %d (home %d) at distance %d", i, tb.rec(r).key, homeOf(tb.rec(r).key, size), dist-1)
		case dist > 1 && dist > prev+1:
			t.Fatalf("slot %d: distance %d after %d: not Robin Hood order", i, dist-1, int(prev)-1)
		}
		seen[r] = true
		maxd = max(maxd, int(dist)-1)
	}
	if n := len(slices.DeleteFunc(seen, func(b bool) bool { return b })); n != 0 {
		t.Fatalf("%d records missing from the index", n)
	}
	return maxd
}

// refInsert is Robin Hood insertion written plainly, for comparison:
// record r with home h goes in a copy of ix; false (and ix as it was) if
// some entry would land past tableMaxDist or no slot is free.
func refInsert(ix []byte, h int, r uint32) ([]byte, bool) {
	out, size := slices.Clone(ix), len(ix)/entrySize
	i, d := h, 0
	for range size {
		e := out[i*entrySize : (i+1)*entrySize]
		di, ri := int(e[0])-1, binary.LittleEndian.Uint32(e[1:])
		if di < d {
			if d > tableMaxDist {
				return ix, false
			}
			e[0] = uint8(d + 1)
			binary.LittleEndian.PutUint32(e[1:], r)
			if di < 0 {
				return out, true
			}
			r, d = ri, di
		}
		d++
		i = (i + 1) % size
	}
	return ix, false
}

// TestTableCollisions: keys whose homes crowd together at every index
// size, at its start and at its end (runs that wrap round), against a
// map. Every put keeps the index whole (checkIndex), the index grows only
// when it must (the load bound, or an insert that refInsert refuses too),
// and lookups of absent keys from the same crowd find nothing.
func TestTableCollisions(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []algorithms.ResourceID
	}{
		{"one crowd", bandKeys(600, 8, true)},
		{"crowd at the end", bandKeys(600, 8, false)},
		{"two crowds", append(bandKeys(400, 6, true), bandKeys(400, 6, false)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tb table
			want := map[algorithms.ResourceID]algorithms.Ballot{}
			absent := tc.keys[len(tc.keys)*3/4:]
			maxd := 0
			for i, k := range tc.keys[:len(tc.keys)*3/4] {
				old, size := slices.Clone(tb.ix), tb.size()
				tb.put(k).promised = algorithms.Ballot(i + 1)
				want[k] = algorithms.Ballot(i + 1)
				if tb.size() != size && tb.n*tableLoadDen <= size*tableLoadNum {
					if _, ok := refInsert(old, homeOf(k, size), uint32(tb.n-1)); ok {
						t.Fatalf("put %d: the index grew from %d slots, but the key fits", i, size)
					}
				}
				maxd = max(maxd, checkIndex(t, &tb))
			}
			t.Logf("%d keys in %d slots, longest displacement %d", tb.n, tb.size(), maxd)
			for k, b := range want {
				if s := tb.get(k); s == nil || s.key != k || s.promised != b {
					t.Fatalf("key %d: got %+v, want promised %d", k, s, b)
				}
			}
			for _, k := range absent {
				if tb.get(k) != nil {
					t.Fatalf("absent key %d found", k)
				}
			}
			if maxd < tableMaxDist/2 {
				t.Errorf("longest displacement %d: the crowd no longer forces long runs", maxd)
			}
		})
	}
}

// TestTableInsert: insert against refInsert on a fixed index of 400
// slots that refInsert fills with keys: the same verdict, the same index,
// and an index left as it was on a refusal. In "crowd at the end" the
// keys' homes are within a few slots of the end, so runs wrap round and
// reach tableMaxDist; in "full", homes are spread and the index fills up
// (put never lets it: it grows at 8/10), so the last insert finds no
// free slot.
func TestTableInsert(t *testing.T) {
	const size = 400
	for _, tc := range []struct {
		name string
		keep func(home int) bool
		n    int // keys tried
	}{
		{"crowd at the end", func(h int) bool { return h >= size-6 || h < 2 }, 300},
		{"full", func(int) bool { return true }, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := table{ix: make([]byte, size*entrySize)}
			refused, placed := 0, 0
			for k := algorithms.ResourceID(0); tb.n < tc.n; k++ {
				if !tc.keep(homeOf(k, size)) {
					continue
				}
				r := tb.add(k)
				want, ok := refInsert(tb.ix, homeOf(k, size), r)
				before := slices.Clone(tb.ix)
				if got := tb.insert(k, r); got != ok || !slices.Equal(tb.ix, want) {
					t.Fatalf("insert of key %d (home %d, %d records): %v, want %v; index equal: %v, unchanged: %v",
						k, homeOf(k, size), tb.n, got, ok, slices.Equal(tb.ix, want), slices.Equal(tb.ix, before))
				}
				if !ok {
					refused++
				} else {
					placed++
				}
			}
			if refused == 0 || tc.name == "full" && placed != size {
				t.Fatalf("%d placed, %d refused: the case no longer reaches what it tests", placed, refused)
			}
		})
	}
}
