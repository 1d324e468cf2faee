package host

import (
	"iter"
	"slices"

	"leaselab/algorithms"
)

// Timers is one node's timers by key: at most one live deadline per key.
// Setting a key replaces its deadline; cancelling forgets it. Each live
// timer is one entry (Timer); entry numbers stay put while the timer
// lives, so an environment may name a timer by its entry (the simulator
// schedules each arming as an event naming the entry's Ref).
//
// Lookups by key scan the entries while there are at most smallSet of
// them (a node of a contention run, every node the explorer keeps). Past
// that, keys are indexed: an Ordered set, whose memory per timer counts
// at a million leases, in a hash index (index.go, four bytes a slot);
// any other in dense tables per kind indexed by resource (one load, where
// hashing and probing cost the simulator a tenth of its time), with the
// hash index for resources past denseMax.
//
// A set made Ordered also keeps its timers in (deadline, resource, kind)
// order, for an environment that fires timers itself rather than through
// a queue of its own (UDP): Next and Due read a queue of arms, one per
// setting, where a replaced or cancelled setting is left behind and
// skipped (ordered.go). An ordered set may merge
// the timers its node keeps itself (algorithms.TimerKeeper, KeepFor) in
// the same order, so the node fires the same timers at the same instants
// either way; PaxosLease keeps its acceptor timers, one per held lease,
// and the set is then left with the few timers of acquisitions in flight.
//
// An entry is 24 bytes; with the index slot and its arm (16 bytes) a
// timer of an Ordered set costs about 50 bytes at a million (runner/udp
// BenchmarkMemoryPerResourceNode).
type Timers struct {
	ents    []Timer
	free    int32 // 1 + the first free entry, chained through Ref; 0: none
	live    int
	indexed bool      // len(ents) > smallSet once
	idx     index     // the hash index
	dense   [][]int32 // [kind][resource]: 1 + entry, 0: none (not Ordered)
	q       armQueue  // Ordered sets
	ordered bool
	keeper  algorithms.TimerKeeper // nil: the node keeps none
}

// Timer is a live timer: its key, the deadline on the node's clock, and
// Ref, which in an Ordered set counts the queued arms that name the entry
// and otherwise belongs to the environment (NoRef when the entry is new).
type Timer struct {
	Res  algorithms.ResourceID
	At   algorithms.Local
	Ref  uint32
	Kind uint8
	Live bool
}

// NoRef is the Ref of a new entry of a set that is not Ordered.
const NoRef = ^uint32(0)

// smallSet: sets of at most this many entries are scanned, not indexed.
const smallSet = 8

// denseMax bounds the resources indexed densely: workloads number their
// resources 0..N-1.
const denseMax = 1 << 24

// Key is the timer's key.
func (e *Timer) Key() algorithms.TimerKey {
	return algorithms.TimerKey{Resource: e.Res, Kind: e.Kind}
}

// Ordered makes t keep its timers in deadline order (Next, Due). Call it
// on an empty set.
func (t *Timers) Ordered() { t.ordered = true }

// KeepFor asks n, which is about to take its first step, to keep the
// timers it can (algorithms.TimerKeeper); Next and Due then merge them
// with the set's own. Only an Ordered set can: the others hand each timer
// to a queue that the node's own timers never reach.
func (t *Timers) KeepFor(n algorithms.Node) {
	if k, ok := n.(algorithms.TimerKeeper); ok && t.ordered {
		k.KeepTimers()
		t.keeper = k
	}
}

// Len is the number of live timers in the set (not counting the node's).
func (t *Timers) Len() int { return t.live }

// At returns entry i, which must be live.
func (t *Timers) At(i int32) *Timer { return &t.ents[i] }

// Get returns key's entry, or -1.
func (t *Timers) Get(key algorithms.TimerKey) int32 {
	if t.indexed {
		if !t.ordered && key.Resource < denseMax {
			if int(key.Kind) < len(t.dense) {
				if d := t.dense[key.Kind]; key.Resource < algorithms.ResourceID(len(d)) {
					return d[key.Resource] - 1
				}
			}
			return -1
		}
		return t.idx.find(key, t.ents)
	}
	for i := range t.ents {
		if e := &t.ents[i]; e.Live && e.Res == key.Resource && e.Kind == key.Kind {
			return int32(i)
		}
	}
	return -1
}

// Set makes key fire at the node's local time at, replacing any pending
// deadline, and returns its entry. A key the dense tables index (the set
// is indexed and not Ordered) takes one look at its slot, which finds its
// entry or says where the new one goes; that path is Set's own body, not
// a call of its own, because every timer of a simulated batch takes it.
func (t *Timers) Set(key algorithms.TimerKey, at algorithms.Local) int32 {
	if !t.indexed || t.ordered || key.Resource >= denseMax {
		return t.setGeneral(key, at)
	}
	slot := t.denseSlot(key.Kind, key.Resource)
	if *slot != 0 {
		i := *slot - 1
		t.ents[i].At = at
		return i
	}
	i := t.alloc()
	t.ents[i] = Timer{Res: key.Resource, At: at, Kind: key.Kind, Live: true, Ref: NoRef}
	t.live++
	*slot = i + 1
	return i
}

// setGeneral is Set for a set that is small, Ordered, or a key past
// denseMax.
func (t *Timers) setGeneral(key algorithms.TimerKey, at algorithms.Local) int32 {
	if i := t.Get(key); i >= 0 {
		e := &t.ents[i]
		if e.At != at {
			e.At = at
			if t.ordered {
				t.push(i)
			}
		}
		return i
	}
	i := t.alloc()
	t.ents[i] = Timer{Res: key.Resource, At: at, Kind: key.Kind, Live: true, Ref: NoRef}
	t.live++
	if t.ordered {
		t.ents[i].Ref = 0
		t.push(i)
	}
	switch {
	case t.indexed:
		t.index(i)
	case len(t.ents) > smallSet:
		t.indexed = true
		for j := range t.ents {
			if t.ents[j].Live {
				t.index(int32(j))
			}
		}
	}
	return i
}

// denseSlot returns the dense index slot of (kind, res), growing the
// tables to hold it.
func (t *Timers) denseSlot(kind uint8, res algorithms.ResourceID) *int32 {
	for int(kind) >= len(t.dense) {
		t.dense = append(t.dense, nil)
	}
	d := t.dense[kind]
	if res >= algorithms.ResourceID(len(d)) {
		n := max(2*len(d), 64)
		for algorithms.ResourceID(n) <= res {
			n *= 2
		}
		grown := make([]int32, n)
		copy(grown, d)
		d = grown
		t.dense[kind] = d
	}
	return &d[res]
}

// index adds live entry i to the index.
func (t *Timers) index(i int32) {
	e := &t.ents[i]
	if t.ordered || e.Res >= denseMax {
		t.idx.insert(e.Key(), i, t.ents)
		return
	}
	*t.denseSlot(e.Kind, e.Res) = i + 1
}

// unindex takes live entry i out of the index.
func (t *Timers) unindex(i int32) {
	e := &t.ents[i]
	if t.ordered || e.Res >= denseMax {
		t.idx.remove(e.Key(), t.ents)
		return
	}
	t.dense[e.Kind][e.Res] = 0
}

// Cancel forgets key and returns the timer it had, if any.
func (t *Timers) Cancel(key algorithms.TimerKey) (Timer, bool) {
	i := t.Get(key)
	if i < 0 {
		return Timer{}, false
	}
	old := t.ents[i]
	t.drop(i)
	return old, true
}

// Take removes entry i, which must be live (it fires), and returns its
// key.
func (t *Timers) Take(i int32) algorithms.TimerKey {
	key := t.ents[i].Key()
	t.drop(i)
	return key
}

// All yields every live entry, in entry order.
func (t *Timers) All() iter.Seq2[int32, *Timer] {
	return func(yield func(int32, *Timer) bool) {
		for i := range t.ents {
			if t.ents[i].Live && !yield(int32(i), &t.ents[i]) {
				return
			}
		}
	}
}

// Reset forgets every timer (and the node that kept some), keeping the
// memory for the next life. An Ordered set stays Ordered.
func (t *Timers) Reset() {
	if t.indexed && !t.ordered {
		t.resetDense()
	}
	t.ents = t.ents[:0]
	t.free = 0
	t.live = 0
	t.idx.reset()
	t.q = armQueue{run: t.q.run[:0], heap: t.q.heap[:0]}
	t.keeper = nil
}

// resetDense empties the dense tables of a set that is indexed and not
// Ordered. When the live entries are a good part of the tables (the end
// of a batch, where every lease still has its timers), clearing the
// tables whole writes them in order and reads no entry, where unindexing
// reads every entry, long out of the caches, and writes its slot (for
// BenchmarkSimDeliver's teardown, 200 instructions a lease less); with
// few entries in large tables, unindexing them is less work.
func (t *Timers) resetDense() {
	size := 0
	for _, d := range t.dense {
		size += len(d)
	}
	if size > 16*t.live {
		for i := range t.ents {
			if t.ents[i].Live {
				t.unindex(int32(i))
			}
		}
		return
	}
	for _, d := range t.dense {
		clear(d)
	}
}

// Grow makes room for n more timers.
func (t *Timers) Grow(n int) { t.ents = slices.Grow(t.ents, n) }

// Clone returns an independent copy of t. A node that keeps timers is not
// copied with it (Host.Clone points the copy at the cloned node).
func (t *Timers) Clone() Timers {
	c := *t
	c.ents = slices.Clone(t.ents)
	c.idx.slots = slices.Clone(t.idx.slots)
	c.dense = make([][]int32, len(t.dense))
	for k, d := range t.dense {
		c.dense[k] = slices.Clone(d)
	}
	c.q.run = slices.Clone(t.q.run)
	c.q.heap = slices.Clone(t.q.heap)
	return c
}

// Next returns the earliest deadline (Ordered sets).
func (t *Timers) Next() (algorithms.Local, bool) {
	a, ok := t.front()
	at := a.at
	if t.keeper != nil {
		if kat, _, kok := t.keeper.NextTimer(); kok && (!ok || kat < at) {
			at, ok = kat, true
		}
	}
	return at, ok
}

// Due removes and returns one timer whose deadline is at or before now,
// if any; of timers due at the same instant, the smallest key first
// (Ordered sets).
func (t *Timers) Due(now algorithms.Local) (algorithms.TimerKey, bool) {
	a, ok := t.front()
	if t.keeper != nil {
		if at, key, kok := t.keeper.NextTimer(); kok && at <= now && (!ok || before(at, key, &t.ents[a.ent])) {
			t.keeper.PopTimer()
			return key, true
		}
	}
	if !ok || a.at > now {
		return algorithms.TimerKey{}, false
	}
	return t.popFront(a), true
}

func (t *Timers) alloc() int32 {
	if t.free != 0 {
		i := t.free - 1
		t.free = int32(t.ents[i].Ref)
		return i
	}
	t.ents = append(t.ents, Timer{})
	return int32(len(t.ents) - 1)
}

// drop takes live entry i out of the index and frees it; in an Ordered
// set an entry that queued arms still name is freed with the last of them
// (release).
func (t *Timers) drop(i int32) {
	if t.indexed {
		t.unindex(i)
	}
	t.live--
	if t.ordered {
		t.ents[i].Live = false
		if t.ents[i].Ref == 0 {
			t.free1(i)
		}
		return
	}
	t.free1(i)
}

// free1 puts entry i on the free list.
func (t *Timers) free1(i int32) {
	t.ents[i] = Timer{Ref: uint32(t.free)}
	t.free = i + 1
}

// before reports whether a timer of key due at at comes before entry e:
// by deadline, then by key, so that timers due at the same instant fire
// in a fixed order.
func before(at algorithms.Local, key algorithms.TimerKey, e *Timer) bool {
	if at != e.At {
		return at < e.At
	}
	if key.Resource != e.Res {
		return key.Resource < e.Res
	}
	return key.Kind < e.Kind
}
