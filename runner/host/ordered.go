package host

import (
	"cmp"
	"slices"

	"leaselab/algorithms"
)

// An Ordered set fires its timers in (deadline, resource, kind) order
// from a queue of arms: an arm is one setting of a timer, the deadline it
// was set to and its entry. Setting a timer again or cancelling it does
// not touch the queue: the arm it replaced is stale (its entry is no
// longer live with that deadline) and is dropped when it reaches the
// front, or all at once when they outnumber half the live timers by
// compactArms. A heap of entries, sifted at every replacement and every
// cancellation, cost a fifth of the UDP node's time in the million-lease
// batch (a proposer's round timer is set, set again and cancelled for
// each lease).
//
// A node's deadlines are nearly all its local now plus a span, so nearly
// every arm is due no earlier than every queued one: those are appended
// to run, a list in deadline order read from its front; only the others
// go to a binary heap. The earliest arm is the smaller of the two fronts.
// A UDP node steps a group of inputs at one clock reading, so arms of
// equal deadlines come in runs of hundreds, in no particular key order;
// the run orders such a tie by key only when it reaches the front (sorted).
//
// An entry stays allocated while an arm names it (Timer.Ref counts them
// in an Ordered set), live or not, so an arm's key (read from its entry,
// for ties) never changes while it is queued, and the entry's deadline
// tells whether the arm is pending.

// arm is one setting of entry ent to deadline at.
type arm struct {
	at  algorithms.Local
	ent int32
}

// armQueue is an Ordered set's arms.
type armQueue struct {
	// run[head:] are queued, in deadline order; run[head:sorted] are in
	// (deadline, key) order too, and every arm after them is due later
	// than they are, or at sorted == head, nothing is known.
	run          []arm
	head, sorted int
	heap         []arm // binary min-heap by (at, key)
}

// compactArms: stale arms are dropped all at once when the queue holds
// this many more arms than one and a half times the live timers (each
// stale arm may hold a dead entry too: 40 bytes).
const compactArms = 4096

func (q *armQueue) len() int { return len(q.run) - q.head + len(q.heap) }

// pending reports whether a is its entry's current setting.
func (t *Timers) pending(a arm) bool {
	e := &t.ents[a.ent]
	return e.Live && e.At == a.at
}

// armBefore orders arms by deadline, then by their entries' keys.
func (t *Timers) armBefore(a, b arm) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	// The entries' deadlines may have moved on (stale arms): keys only.
	x, y := &t.ents[a.ent], &t.ents[b.ent]
	if x.Res != y.Res {
		return x.Res < y.Res
	}
	return x.Kind < y.Kind
}

// push queues the current setting of live entry i.
func (t *Timers) push(i int32) {
	e := &t.ents[i]
	e.Ref++
	a := arm{at: e.At, ent: i}
	q := &t.q
	if q.head == len(q.run) || a.at >= q.run[len(q.run)-1].at {
		if q.sorted > q.head && a.at == q.run[q.sorted-1].at {
			q.sorted = q.head // a tie the sorted front must take in
		}
		if len(q.run) == cap(q.run) && 2*q.head >= len(q.run) {
			// Reuse the read prefix rather than grow.
			q.run = q.run[:copy(q.run, q.run[q.head:])]
			q.sorted -= q.head
			q.head = 0
		}
		q.run = append(q.run, a)
	} else {
		q.heap = append(q.heap, a)
		t.siftUp(len(q.heap) - 1)
	}
	if q.len() > t.live+t.live/2+compactArms {
		t.compact()
	}
}

// release forgets one arm of entry i; the entry is freed with its last
// arm once it is no longer live.
func (t *Timers) release(i int32) {
	e := &t.ents[i]
	e.Ref--
	if e.Ref == 0 && !e.Live {
		t.free1(i)
	}
}

// front drops stale arms from both fronts and returns the earliest
// pending arm.
func (t *Timers) front() (arm, bool) {
	q := &t.q
	for q.head < len(q.run) {
		if q.head == q.sorted {
			t.sortTies()
		}
		if t.pending(q.run[q.head]) {
			break
		}
		t.release(q.run[q.head].ent)
		q.head++
	}
	for len(q.heap) > 0 && !t.pending(q.heap[0]) {
		t.release(q.heap[0].ent)
		t.popHeap()
	}
	switch {
	case q.head < len(q.run) && (len(q.heap) == 0 || t.armBefore(q.run[q.head], q.heap[0])):
		return q.run[q.head], true
	case len(q.heap) > 0:
		return q.heap[0], true
	}
	return arm{}, false
}

// popFront removes the arm front returned (which is pending) and fires
// its entry: the timer is taken out of the set.
func (t *Timers) popFront(a arm) algorithms.TimerKey {
	q := &t.q
	if q.head < len(q.run) && q.run[q.head] == a {
		q.head++
		q.sorted = max(q.sorted, q.head)
	} else {
		t.popHeap()
	}
	key := t.ents[a.ent].Key()
	t.drop(a.ent)
	t.release(a.ent)
	return key
}

// sortTies puts the arms due at the front's deadline, which come first in
// the run, in key order.
func (t *Timers) sortTies() {
	q := &t.q
	at := q.run[q.head].at
	j := q.head + 1
	for j < len(q.run) && q.run[j].at == at {
		j++
	}
	if j-q.head > 1 {
		slices.SortFunc(q.run[q.head:j], func(a, b arm) int {
			x, y := &t.ents[a.ent], &t.ents[b.ent]
			return cmp.Or(cmp.Compare(x.Res, y.Res), cmp.Compare(x.Kind, y.Kind))
		})
	}
	q.sorted = j
}

// compact drops every stale arm: the run keeps its order (a subsequence
// of a sorted front is sorted), the heap is rebuilt.
func (t *Timers) compact() {
	q := &t.q
	run := q.run[:0]
	sorted := 0
	for i, a := range q.run[q.head:] {
		if t.pending(a) {
			run = append(run, a)
			if q.head+i < q.sorted {
				sorted = len(run)
			}
		} else {
			t.release(a.ent)
		}
	}
	q.run, q.head, q.sorted = run, 0, sorted
	h := q.heap[:0]
	for _, a := range q.heap {
		if t.pending(a) {
			h = append(h, a)
		} else {
			t.release(a.ent)
		}
	}
	q.heap = h
	for i := len(h)/2 - 1; i >= 0; i-- {
		t.siftDown(i)
	}
}

func (t *Timers) siftUp(i int) {
	h := t.q.heap
	a := h[i]
	for i > 0 {
		up := (i - 1) / 2
		if !t.armBefore(a, h[up]) {
			break
		}
		h[i] = h[up]
		i = up
	}
	h[i] = a
}

func (t *Timers) siftDown(i int) {
	h := t.q.heap
	a := h[i]
	for {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if r := c + 1; r < len(h) && t.armBefore(h[r], h[c]) {
			c = r
		}
		if !t.armBefore(h[c], a) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = a
}

func (t *Timers) popHeap() {
	h := t.q.heap
	last := len(h) - 1
	h[0] = h[last]
	t.q.heap = h[:last]
	if last > 0 {
		t.siftDown(0)
	}
}
