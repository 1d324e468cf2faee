package host

import (
	"math/rand/v2"
	"testing"

	"leaselab/algorithms"
)

// TestUnorderedTimers checks a set that is not Ordered (the simulator's,
// the explorer's) against a Go map over random sets, replacements,
// cancellations, firings by entry, resets and clones: scanned while
// small, then indexed densely, and in the hash index for resources past
// denseMax. Entries must keep their number while live, and a new entry's
// Ref must be NoRef.
func TestUnorderedTimers(t *testing.T) {
	cases := []struct {
		name string
		keys int // distinct resources drawn from
		base algorithms.ResourceID
	}{
		{"small", 3, 0},
		{"dense", 3000, 0},
		{"past denseMax", 3000, denseMax - 1500},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 9))
			var tm Timers
			ref := map[algorithms.TimerKey]algorithms.Local{}
			entry := map[algorithms.TimerKey]int32{}
			key := func() algorithms.TimerKey {
				return algorithms.TimerKey{Resource: c.base + algorithms.ResourceID(r.IntN(c.keys)), Kind: uint8(r.IntN(3))}
			}
			for op := range 20000 {
				switch x := r.IntN(20); {
				case x < 10:
					k, at := key(), algorithms.Local(r.Int64N(1e6))
					i := tm.Set(k, at)
					if e, ok := entry[k]; ok && e != i {
						t.Fatalf("op %d: %v moved from entry %d to %d", op, k, e, i)
					}
					if _, ok := entry[k]; !ok && tm.At(i).Ref != NoRef {
						t.Fatalf("op %d: new entry %d has Ref %d", op, i, tm.At(i).Ref)
					}
					tm.At(i).Ref = uint32(op) // the environment's
					ref[k], entry[k] = at, i
				case x < 15:
					k := key()
					old, ok := tm.Cancel(k)
					if _, want := ref[k]; ok != want || ok && (old.At != ref[k] || old.Key() != k) {
						t.Fatalf("op %d: Cancel(%v) = %+v %v, want %v %v", op, k, old, ok, ref[k], want)
					}
					delete(ref, k)
					delete(entry, k)
				case x < 19:
					k := key()
					if i, ok := entry[k]; ok {
						if got := tm.Take(i); got != k {
							t.Fatalf("op %d: Take(%d) = %v, want %v", op, i, got, k)
						}
						delete(ref, k)
						delete(entry, k)
					}
				case op%500 == 0:
					c := tm.Clone()
					c.Set(key(), 1) // must not reach tm
					c.Reset()
				default:
					tm.Reset()
					clear(ref)
					clear(entry)
				}
				checkSet(t, op, &tm, ref)
			}
		})
	}
}

func checkSet(t *testing.T, op int, tm *Timers, ref map[algorithms.TimerKey]algorithms.Local) {
	t.Helper()
	if tm.Len() != len(ref) {
		t.Fatalf("op %d: Len %d, want %d", op, tm.Len(), len(ref))
	}
	n := 0
	for i, e := range tm.All() {
		n++
		if at, ok := ref[e.Key()]; !ok || at != e.At || tm.Get(e.Key()) != i {
			t.Fatalf("op %d: entry %d %+v: want deadline %d %v, Get %d", op, i, *e, at, ok, tm.Get(e.Key()))
		}
	}
	if n != len(ref) {
		t.Fatalf("op %d: All yields %d timers, want %d", op, n, len(ref))
	}
}

// TestOrderedReset: an Ordered set stays Ordered and forgets its keeper
// on Reset (a new life), and a cleared set fires nothing.
func TestOrderedReset(t *testing.T) {
	var tm Timers
	tm.Ordered()
	mk := &mapKeeper{}
	tm.KeepFor(mk)
	mk.m[algorithms.TimerKey{Kind: 2}] = 5
	for i := range 20 {
		tm.Set(algorithms.TimerKey{Resource: algorithms.ResourceID(i), Kind: 1}, algorithms.Local(100-i))
	}
	tm.Reset()
	if _, ok := tm.Next(); ok {
		t.Fatal("a reset set (and its forgotten keeper) still has a timer")
	}
	tm.Set(algorithms.TimerKey{Resource: 1, Kind: 1}, 50)
	tm.Set(algorithms.TimerKey{Resource: 0, Kind: 1}, 50)
	for _, want := range []algorithms.ResourceID{0, 1} {
		if k, ok := tm.Due(60); !ok || k.Resource != want {
			t.Fatalf("Due = %v %v, want resource %d: a reset set must stay ordered", k, ok, want)
		}
	}
}

// TestTimersResetForgets: after Reset, a set that is indexed and not
// Ordered finds none of its old keys and hands out entries from 0 again,
// whether Reset cleared the dense tables whole (most of them live) or
// entry by entry (few live in large tables), and for keys past denseMax
// (the hash index) as well.
func TestTimersResetForgets(t *testing.T) {
	cases := []struct {
		name       string
		keys, live int // keys set, of which live remain at Reset
		base       algorithms.ResourceID
	}{
		{"dense, all live", 5000, 5000, 0},
		{"dense, few live", 5000, 3, 0},
		{"past denseMax", 500, 500, denseMax},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tm Timers
			key := func(i int) algorithms.TimerKey {
				return algorithms.TimerKey{Resource: c.base + algorithms.ResourceID(i), Kind: uint8(i % 2)}
			}
			for i := range c.keys {
				tm.Set(key(i), algorithms.Local(i))
			}
			for i := c.live; i < c.keys; i++ {
				tm.Cancel(key(i))
			}
			tm.Reset()
			for i := range c.keys {
				if e := tm.Get(key(i)); e >= 0 {
					t.Fatalf("after Reset, Get(%v) = %d, want -1", key(i), e)
				}
			}
			for i := range 2 * smallSet {
				if e := tm.Set(key(i), 7); e != int32(i) {
					t.Fatalf("after Reset, Set(%v) = entry %d, want %d", key(i), e, i)
				}
			}
			checkSet(t, 0, &tm, func() map[algorithms.TimerKey]algorithms.Local {
				m := map[algorithms.TimerKey]algorithms.Local{}
				for i := range 2 * smallSet {
					m[key(i)] = 7
				}
				return m
			}())
		})
	}
}
