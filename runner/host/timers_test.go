package host

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"leaselab/algorithms"
)

// TestTimers checks the timer set against a Go map over random sets,
// replacements, cancellations and firings, for key sets that are
// sequential, clustered in one block, strided and random: the live set
// must match, and timers must fall due in (deadline, resource, kind)
// order. With a keeper, the algorithm keeps the timers of even kinds
// (mapKeeper) and the set merges them with its own: the order must be
// the same, ties between the two included (deadlines are often equal).
func TestTimers(t *testing.T) {
	cases := []struct {
		name string
		key  func(r *rand.Rand, i int) algorithms.TimerKey
	}{
		{"sequential", func(r *rand.Rand, i int) algorithms.TimerKey {
			return algorithms.TimerKey{Resource: algorithms.ResourceID(i / 3), Kind: uint8(i % 3)}
		}},
		{"one block", func(r *rand.Rand, i int) algorithms.TimerKey {
			return algorithms.TimerKey{Resource: algorithms.ResourceID(r.IntN(indexBlock)), Kind: uint8(r.IntN(4))}
		}},
		{"strided", func(r *rand.Rand, i int) algorithms.TimerKey {
			return algorithms.TimerKey{Resource: algorithms.ResourceID(r.IntN(3000) * 1024), Kind: 1}
		}},
		{"random", func(r *rand.Rand, i int) algorithms.TimerKey {
			return algorithms.TimerKey{Resource: algorithms.ResourceID(r.Uint64() % 5000), Kind: uint8(r.IntN(256))}
		}},
	}
	for _, c := range cases {
		for _, keep := range []bool{false, true} {
			name := c.name
			if keep {
				name += " with keeper"
			}
			t.Run(name, func(t *testing.T) { testTimers(t, c.key, keep) })
		}
	}
}

func testTimers(t *testing.T, key func(r *rand.Rand, i int) algorithms.TimerKey, keep bool) {
	r := rand.New(rand.NewPCG(1, 2))
	var alg algorithms.Node
	var mk *mapKeeper
	if keep {
		mk = &mapKeeper{}
		alg = mk
	}
	tm := &Timers{}
	tm.Ordered()
	if keep {
		tm.KeepFor(alg)
	}
	if keep && mk.m == nil {
		t.Fatal("KeepFor did not ask the keeper to keep timers")
	}
	kept := func(k algorithms.TimerKey) bool { return keep && k.Kind%2 == 0 }
	ref := map[algorithms.TimerKey]algorithms.Local{}
	own := func() int { // timers in the set itself
		c := 0
		for k := range ref {
			if !kept(k) {
				c++
			}
		}
		return c
	}
	var keys []algorithms.TimerKey
	now := algorithms.Local(0)
	for i := 0; i < 20000; i++ {
		switch op := r.IntN(20); {
		case op < 12:
			k := key(r, i)
			at := now + algorithms.Local(r.Int64N(1e6))
			if op < 4 {
				at = now + algorithms.Local(r.Int64N(50)*1e4) // ties
			}
			if kept(k) {
				mk.m[k] = at
			} else {
				tm.Set(k, at)
			}
			ref[k] = at
			keys = append(keys, k)
		case op < 18 && len(keys) > 0:
			k := keys[r.IntN(len(keys))]
			if kept(k) {
				delete(mk.m, k)
			} else {
				tm.Cancel(k)
			}
			delete(ref, k)
		default:
			now += algorithms.Local(r.Int64N(2e4))
			fireDue(t, tm, ref, now)
		}
		if tm.Len() != own() {
			t.Fatalf("op %d: len %d, want %d", i, tm.Len(), own())
		}
	}
	for _, k := range keys {
		want, wok := ref[k]
		if kept(k) {
			continue
		}
		e := tm.Get(k)
		if (e >= 0) != wok || wok && tm.At(e).At != want {
			t.Fatalf("key %v: entry %d, want %d %v", k, e, want, wok)
		}
	}
	fireDue(t, tm, ref, 1<<62)
	if tm.Len() != 0 || tm.idx.len() != 0 || keep && len(mk.m) != 0 {
		t.Fatalf("after firing all: %d live, %d indexed", tm.Len(), tm.idx.len())
	}
	if _, ok := tm.Next(); ok {
		t.Fatal("next on an empty set says a timer is pending")
	}
}

// mapKeeper is an algorithm that keeps timers itself (a Go map, searched
// in full for the earliest), for the test to set and cancel directly.
type mapKeeper struct {
	m map[algorithms.TimerKey]algorithms.Local
}

func (k *mapKeeper) Step(algorithms.Local, algorithms.Input, *algorithms.Output) {}

func (k *mapKeeper) KeepTimers() { k.m = map[algorithms.TimerKey]algorithms.Local{} }

func (k *mapKeeper) NextTimer() (algorithms.Local, algorithms.TimerKey, bool) {
	var best algorithms.TimerKey
	var at algorithms.Local
	ok := false
	for key, a := range k.m {
		if !ok || cmp.Or(cmp.Compare(a, at), cmp.Compare(key.Resource, best.Resource), cmp.Compare(key.Kind, best.Kind)) < 0 {
			best, at, ok = key, a, true
		}
	}
	return at, best, ok
}

func (k *mapKeeper) PopTimer() {
	if _, key, ok := k.NextTimer(); ok {
		delete(k.m, key)
	}
}

// fireDue fires every timer due at now and checks the order against ref,
// removing them from it.
func fireDue(t *testing.T, tm *Timers, ref map[algorithms.TimerKey]algorithms.Local, now algorithms.Local) {
	t.Helper()
	type due struct {
		k  algorithms.TimerKey
		at algorithms.Local
	}
	var want []due
	for k, at := range ref {
		if at <= now {
			want = append(want, due{k, at})
		}
	}
	slices.SortFunc(want, func(a, b due) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.k.Resource, b.k.Resource), cmp.Compare(a.k.Kind, b.k.Kind))
	})
	for _, w := range want {
		if at, ok := tm.Next(); !ok || at != w.at {
			t.Fatalf("next = %d %v, want %d", at, ok, w.at)
		}
		k, ok := tm.Due(now)
		if !ok || k != w.k {
			t.Fatalf("due = %v %v, want %v", k, ok, w.k)
		}
		delete(ref, k)
	}
	if k, ok := tm.Due(now); ok {
		t.Fatalf("due = %v after all due timers fired", k)
	}
}

// TestOrderedArms drives an Ordered set the way a UDP proposer does: each
// key set at now plus a span (the run), set again later, then cancelled or
// left to fire, with now advancing, and a tenth of the deadlines earlier
// than the ones queued (the heap). Timers must fire as a Go map says, and
// stale arms and their entries must not pile up: the queue stays within
// its compaction bound, entries within the keys ever live at once plus
// those the queued arms hold.
func TestOrderedArms(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tm := &Timers{}
	tm.Ordered()
	ref := map[algorithms.TimerKey]algorithms.Local{}
	now := algorithms.Local(0)
	const span = 1000
	maxLive := 0
	for i := 0; i < 200000; i++ {
		k := algorithms.TimerKey{Resource: algorithms.ResourceID(r.IntN(3000)), Kind: uint8(r.IntN(2))}
		switch op := r.IntN(10); {
		case op < 6:
			at := now + span
			if op == 0 {
				at = now + algorithms.Local(r.IntN(span)) // earlier than the run's tail
			}
			tm.Set(k, at)
			ref[k] = at
		case op < 9:
			tm.Cancel(k)
			delete(ref, k)
		default:
			now += algorithms.Local(r.IntN(50))
			fireDue(t, tm, ref, now)
		}
		maxLive = max(maxLive, tm.Len())
		if q := tm.q.len(); q > tm.Len()+tm.Len()/2+compactArms {
			t.Fatalf("op %d: %d arms queued for %d live timers", i, q, tm.Len())
		}
		if tm.Len() != len(ref) {
			t.Fatalf("op %d: len %d, want %d", i, tm.Len(), len(ref))
		}
	}
	if n := len(tm.ents); n > maxLive+2*maxLive+compactArms {
		t.Fatalf("%d entries allocated for at most %d live timers", n, maxLive)
	}
	fireDue(t, tm, ref, 1<<62)
	if tm.Len() != 0 || tm.q.len() != 0 {
		t.Fatalf("after firing all: %d live, %d arms queued", tm.Len(), tm.q.len())
	}
}

// TestOrderedRunReused: a set whose queue never empties (a timer set at
// now plus a span each tick, the earliest firing) reuses the front of its
// run instead of growing it for every arm it ever queued.
func TestOrderedRunReused(t *testing.T) {
	tm := &Timers{}
	tm.Ordered()
	for now := algorithms.Local(0); now < 100000; now++ {
		tm.Set(algorithms.TimerKey{Resource: algorithms.ResourceID(now)}, now+100)
		for _, ok := tm.Due(now); ok; _, ok = tm.Due(now) {
		}
	}
	if tm.Len() != 100 || cap(tm.q.run) > 1024 {
		t.Fatalf("%d live timers, run capacity %d", tm.Len(), cap(tm.q.run))
	}
}

// TestIndexChurn: keys set and cancelled in a sliding window (a UDP
// proposer's round timers) leave tombstones in the index; rebuilding must
// clear them rather than grow the table, and every live key must stay
// found.
func TestIndexChurn(t *testing.T) {
	tm := &Timers{}
	tm.Ordered()
	const window = 1000
	key := func(r int) algorithms.TimerKey {
		return algorithms.TimerKey{Resource: algorithms.ResourceID(r), Kind: 1}
	}
	for r := 0; r < 200000; r++ {
		tm.Set(key(r), algorithms.Local(r+1e6))
		if r >= window {
			if _, ok := tm.Cancel(key(r - window)); !ok {
				t.Fatalf("resource %d: not found to cancel", r-window)
			}
		}
		if r%9973 == 0 {
			for q := max(0, r-window+1); q <= r; q++ {
				if tm.Get(key(q)) < 0 {
					t.Fatalf("after %d: live resource %d not found", r, q)
				}
			}
		}
	}
	if n := len(tm.idx.slots); n > 8*window {
		t.Fatalf("index of %d slots for %d live keys", n, window)
	}
	if tm.idx.n != window || tm.idx.dead < 0 {
		t.Fatalf("index counts %d live, %d tombstones; want %d live", tm.idx.n, tm.idx.dead, window)
	}
}
