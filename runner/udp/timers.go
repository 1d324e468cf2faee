package udp

import (
	"container/heap"

	"leaselab/algorithms"
)

// timers is one node's timer set: at most one live deadline per key. Each
// live timer is one entry (key, deadline, heap position); an index maps
// keys to entries and an indexed binary min-heap of entry numbers orders
// them by deadline. Replacing or cancelling a timer moves or removes its
// heap slot in place, so the heap never holds stale entries and memory
// stays at about 40 bytes per live timer.
//
// An algorithm that keeps timers itself (algorithms.TimerKeeper; PaxosLease
// keeps its acceptor timers, one per held lease, whose deadlines its slots
// hold anyway) is asked to at newTimers; next and due then merge its
// earliest timer with the set's own, in the same (deadline, key) order, so
// the node fires the same timers at the same instants either way. The set
// itself is then left with the few timers of acquisitions in flight.
type timers struct {
	ents   []timerEnt
	free   int32 // 1 + the first free entry, chained through pos; 0: none
	index  timerTable
	heap   []int32                // entry numbers
	keeper algorithms.TimerKeeper // nil: the algorithm keeps none
}

type timerEnt struct {
	res  algorithms.ResourceID
	at   algorithms.Local
	pos  int32 // heap position; for a free entry, 1 + the next free one
	kind uint8
}

// newTimers returns the timer set of a node running alg, asking alg to keep
// the timers it can (algorithms.TimerKeeper). Call it before alg's first
// Step.
func newTimers(alg algorithms.Node) *timers {
	t := &timers{}
	if k, ok := alg.(algorithms.TimerKeeper); ok {
		k.KeepTimers()
		t.keeper = k
	}
	return t
}

func (e *timerEnt) key() algorithms.TimerKey {
	return algorithms.TimerKey{Resource: e.res, Kind: e.kind}
}

// set makes key fire at local time at, replacing any pending deadline.
func (t *timers) set(key algorithms.TimerKey, at algorithms.Local) {
	if i := t.index.find(key, t.ents); i >= 0 {
		e := &t.ents[i]
		if e.at == at {
			return
		}
		e.at = at
		heap.Fix((*timerHeap)(t), int(e.pos))
		return
	}
	i := t.alloc()
	t.ents[i] = timerEnt{res: key.Resource, at: at, kind: key.Kind, pos: int32(len(t.heap))}
	t.heap = append(t.heap, i)
	heap.Fix((*timerHeap)(t), len(t.heap)-1)
	t.index.insert(key, i, t.ents)
}

// cancel forgets key.
func (t *timers) cancel(key algorithms.TimerKey) {
	if i := t.index.remove(key, t.ents); i >= 0 {
		t.drop(i)
	}
}

// len is the number of live timers in the set (not counting the
// algorithm's).
func (t *timers) len() int { return len(t.heap) }

// next returns the earliest deadline.
func (t *timers) next() (algorithms.Local, bool) {
	at, ok := algorithms.Local(0), len(t.heap) > 0
	if ok {
		at = t.ents[t.heap[0]].at
	}
	if t.keeper != nil {
		if kat, _, kok := t.keeper.NextTimer(); kok && (!ok || kat < at) {
			at, ok = kat, true
		}
	}
	return at, ok
}

// due removes and returns one live timer whose deadline is at or before
// now, if any; of timers due at the same instant, the smallest key first.
func (t *timers) due(now algorithms.Local) (algorithms.TimerKey, bool) {
	if t.keeper != nil {
		if at, key, ok := t.keeper.NextTimer(); ok && at <= now && (len(t.heap) == 0 || before(at, key, &t.ents[t.heap[0]])) {
			t.keeper.PopTimer()
			return key, true
		}
	}
	if len(t.heap) == 0 || t.ents[t.heap[0]].at > now {
		return algorithms.TimerKey{}, false
	}
	i := t.heap[0]
	key := t.ents[i].key()
	t.index.remove(key, t.ents)
	t.drop(i)
	return key, true
}

func (t *timers) alloc() int32 {
	if t.free != 0 {
		i := t.free - 1
		t.free = t.ents[i].pos
		return i
	}
	t.ents = append(t.ents, timerEnt{})
	return int32(len(t.ents) - 1)
}

// drop takes entry i out of the heap and frees it.
func (t *timers) drop(i int32) {
	p := int(t.ents[i].pos)
	last := len(t.heap) - 1
	if p != last {
		t.swap(p, last)
	}
	t.heap = t.heap[:last]
	if p < last {
		heap.Fix((*timerHeap)(t), p)
	}
	t.ents[i] = timerEnt{pos: t.free}
	t.free = i + 1
}

func (t *timers) swap(i, j int) {
	h := t.heap
	h[i], h[j] = h[j], h[i]
	t.ents[h[i]].pos = int32(i)
	t.ents[h[j]].pos = int32(j)
}

// timerHeap is the set seen as container/heap's heap of its live timers.
// Only heap.Fix is used, which calls Len, Less and Swap; Push and Pop,
// which heap.Interface requires too, append and drop the last slot and
// keep no positions, so heap.Push, heap.Pop and heap.Remove must not be
// used on it.
type timerHeap timers

func (h *timerHeap) Len() int           { return len(h.heap) }
func (h *timerHeap) Less(i, j int) bool { return (*timers)(h).less(i, j) }
func (h *timerHeap) Swap(i, j int)      { (*timers)(h).swap(i, j) }
func (h *timerHeap) Push(x any)         { h.heap = append(h.heap, x.(int32)) }
func (h *timerHeap) Pop() any {
	last := h.heap[len(h.heap)-1]
	h.heap = h.heap[:len(h.heap)-1]
	return last
}

// less orders heap slots by deadline, then by key so that timers due at
// the same instant fire in a fixed order.
func (t *timers) less(i, j int) bool {
	a, b := &t.ents[t.heap[i]], &t.ents[t.heap[j]]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.res != b.res {
		return a.res < b.res
	}
	return a.kind < b.kind
}

// before reports whether a timer of key due at at comes before entry e,
// in less's order.
func before(at algorithms.Local, key algorithms.TimerKey, e *timerEnt) bool {
	if at != e.at {
		return at < e.at
	}
	if key.Resource != e.res {
		return key.Resource < e.res
	}
	return key.Kind < e.kind
}
