package paxoslease

import (
	"math"
	"slices"

	"leaselab/algorithms"
)

// The acceptor's timer of an accepted proposal fires at the slot's
// accUntil. A runner that would keep a copy of every such timer
// (runner/udp: key, deadline and heap position, about 40 bytes for each
// held lease) asks the node to keep them itself (algorithms.TimerKeeper).
// The other timers (a round's, the quarantine's) are few and short-lived;
// they stay in Output.Timers.
//
// A kept timer is an entry (deadline, resource, record, arming number)
// and the slot's tseq, the arming number of its pending timer (0: none).
// An entry is pending while its slot's tseq names it: setting a timer
// again or cancelling it only changes tseq, and the entry it replaced is
// dropped when it reaches the front or at the next compaction. Nothing
// is moved inside the structure on a cancel, and no slot is written on a
// move, which the timer heap of slot positions this replaces did at every
// level of a sift (two record reads and two record writes per level, each
// a likely cache miss at a million leases).
//
// Entries carry their deadline, so a slot cleared before its timer fired
// (a message found the proposal expired, or a release came) reuses
// accUntil freely: the pending timer still fires at its own deadline, as
// it would from the runner's timer set.
//
// Deadlines of one node are set at its local now plus a span, so nearly
// every new entry sorts after every pending one: those are appended to
// run, a sorted list read from its front, and only the others go to a
// binary heap. The earliest timer is the smaller of the two fronts.

var _ algorithms.TimerKeeper = (*Node)(nil)

// timerEntry is one arming of an acceptor timer: 16 bytes. Its resource
// is its slot's key, read only where two deadlines tie and when it
// fires.
type timerEntry struct {
	at  algorithms.Local
	rec uint32 // the slot's record number
	seq uint32 // the arming number; pending while the slot's tseq is seq
}

// before orders entries by (deadline, resource).
func (t *table) before(a, b *timerEntry) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return t.rec(a.rec).key < t.rec(b.rec).key
}

// timerSet is the table's kept timers.
type timerSet struct {
	run  []timerEntry // sorted by (at, res); run[head:] are the unread ones
	head int
	heap []timerEntry // binary min-heap by (at, res)
	seq  uint32       // the last arming number handed out
	live int          // pending timers
}

// compactMin: entries no longer pending are dropped all at once when
// they outnumber the pending ones by this many.
const compactMin = 4096

// maxSeq is the last arming number handed out before renumbering (a
// variable so that a test can bring the wrap near).
var maxSeq uint32 = math.MaxUint32

// KeepTimers implements algorithms.TimerKeeper: from now on the
// acceptor's timers (kind timerAccepted) stay in the node.
func (n *Node) KeepTimers() { n.keepTimers = true }

// NextTimer implements algorithms.TimerKeeper.
func (n *Node) NextTimer() (algorithms.Local, algorithms.TimerKey, bool) {
	at, r, ok := n.res.nextTimer()
	return at, algorithms.TimerKey{Resource: r, Kind: timerAccepted}, ok
}

// PopTimer implements algorithms.TimerKeeper.
func (n *Node) PopTimer() { n.res.popTimer() }

// setAccTimer makes the acceptor's timer of r fire at s.accUntil.
func (n *Node) setAccTimer(r algorithms.ResourceID, s *slot, out *algorithms.Output) {
	if !n.keepTimers {
		out.SetTimer(algorithms.TimerKey{Resource: r, Kind: timerAccepted}, s.accUntil)
		return
	}
	n.res.setTimer(r, s)
}

// cancelAccTimer forgets the acceptor's timer of r.
func (n *Node) cancelAccTimer(r algorithms.ResourceID, s *slot, out *algorithms.Output) {
	if !n.keepTimers {
		out.CancelTimer(algorithms.TimerKey{Resource: r, Kind: timerAccepted})
		return
	}
	n.res.cancelTimer(s)
}

// setTimer makes s's timer (s is k's slot) fire at s.accUntil, replacing
// any pending one.
func (t *table) setTimer(k algorithms.ResourceID, s *slot) {
	ts := &t.tm
	if ts.seq == maxSeq {
		t.renumber()
	}
	ts.seq++
	if s.tseq == 0 {
		ts.live++
	}
	r, _ := t.find(k)
	s.tseq = ts.seq
	e := timerEntry{at: s.accUntil, rec: r, seq: ts.seq}
	if ts.head >= 1024 && 2*ts.head >= len(ts.run) || ts.head == len(ts.run) {
		// The read part of run is dropped before it outgrows the rest.
		ts.run = ts.run[:copy(ts.run, ts.run[ts.head:])]
		ts.head = 0
	}
	if len(ts.run) == 0 || !t.before(&e, &ts.run[len(ts.run)-1]) {
		ts.run = append(ts.run, e)
	} else {
		ts.heap = append(ts.heap, e)
		t.up(len(ts.heap) - 1)
	}
	t.maybeCompact()
}

// cancelTimer forgets the timer of s.
func (t *table) cancelTimer(s *slot) {
	if s.tseq != 0 {
		s.tseq = 0
		t.tm.live--
		t.maybeCompact()
	}
}

// pending reports whether e is its slot's pending timer.
func (t *table) pending(e *timerEntry) bool { return t.rec(e.rec).tseq == e.seq }

// front drops the entries at both fronts that are no longer pending and
// returns the earliest pending one: in run (true) or the heap (false).
func (t *table) front() (*timerEntry, bool, bool) {
	ts := &t.tm
	for ts.head < len(ts.run) && !t.pending(&ts.run[ts.head]) {
		ts.head++
	}
	for len(ts.heap) > 0 && !t.pending(&ts.heap[0]) {
		t.popHeap()
	}
	switch {
	case ts.head < len(ts.run) && (len(ts.heap) == 0 || t.before(&ts.run[ts.head], &ts.heap[0])):
		return &ts.run[ts.head], true, true
	case len(ts.heap) > 0:
		return &ts.heap[0], false, true
	}
	return nil, false, false
}

// nextTimer returns the earliest timer: its deadline and resource; of
// timers due at the same instant, the smallest resource.
func (t *table) nextTimer() (algorithms.Local, algorithms.ResourceID, bool) {
	e, _, ok := t.front()
	if !ok {
		return 0, 0, false
	}
	return e.at, t.rec(e.rec).key, true
}

// popTimer removes the timer nextTimer returns.
func (t *table) popTimer() {
	e, inRun, ok := t.front()
	if !ok {
		return
	}
	t.rec(e.rec).tseq = 0
	t.tm.live--
	if inRun {
		t.tm.head++
	} else {
		t.popHeap()
	}
}

// timers is the number of pending timers.
func (t *table) timers() int { return t.tm.live }

// maybeCompact drops every entry that is no longer pending once they
// outnumber the pending ones by compactMin, so the entries stay within a
// constant factor of the timers.
func (t *table) maybeCompact() {
	ts := &t.tm
	if len(ts.run)-ts.head+len(ts.heap) > 2*ts.live+compactMin {
		t.compact()
	}
}

// compact drops every entry that is no longer pending.
func (t *table) compact() {
	ts := &t.tm
	stale := func(e timerEntry) bool { return !t.pending(&e) }
	// Moved to the front first, so that run keeps its whole capacity.
	ts.run = slices.DeleteFunc(ts.run[:copy(ts.run, ts.run[ts.head:])], stale)
	ts.head = 0
	ts.heap = slices.DeleteFunc(ts.heap, stale)
	for i := len(ts.heap)/2 - 1; i >= 0; i-- {
		t.down(i)
	}
}

// renumber gives the pending timers the arming numbers 1, 2, ... after
// dropping every other entry: called before the numbers wrap around, so
// that no stale entry can carry a number its slot gets again.
func (t *table) renumber() {
	t.compact()
	ts := &t.tm
	ts.seq = 0
	for _, es := range [][]timerEntry{ts.run, ts.heap} {
		for i := range es {
			ts.seq++
			es[i].seq = ts.seq
			t.rec(es[i].rec).tseq = ts.seq
		}
	}
}

func (t *table) popHeap() {
	h := t.tm.heap
	last := len(h) - 1
	h[0] = h[last]
	t.tm.heap = h[:last]
	if last > 0 {
		t.down(0)
	}
}

func (t *table) up(i int) {
	h := t.tm.heap
	e := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !t.before(&e, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (t *table) down(i int) {
	h := t.tm.heap
	n := len(h)
	e := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && t.before(&h[c+1], &h[c]) {
			c++
		}
		if !t.before(&h[c], &e) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
}
