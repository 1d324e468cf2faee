package paxoslease

import (
	"cmp"
	"container/heap"
	"slices"

	"leaselab/algorithms"
)

// The acceptor's timer of an accepted proposal fires at the slot's
// accUntil, which the slot stores anyway. A runner that would keep a copy
// of every such timer (runner/udp: key, deadline and heap position, about
// 40 bytes for each held lease) asks the node to keep them itself
// (algorithms.TimerKeeper): the table then orders them in a binary
// min-heap of record numbers, 4 bytes a timer plus the slot's tpos, with
// deadlines read from the slots. The other timers (a round's, the
// quarantine's) are few and short-lived; they stay in Output.Timers.
//
// A slot holds its timer's deadline for as long as it holds the accepted
// proposal: accUntil changes only when a proposal is accepted (and the
// timer set again) or the proposal is cleared. Clearing before the timer
// fired (a message found the proposal expired, or a release came) puts
// the timer, if it is still pending, in table.late with its deadline, so
// that it fires as it would have from the runner's timer set; a cleared
// slot reuses accUntil for the promise guard. Late timers are already due
// when they get there, so the runner fires them after the current step
// and the list stays short.

var _ algorithms.TimerKeeper = (*Node)(nil)

// lateTimer is an acceptor timer whose slot no longer holds its deadline.
type lateTimer struct {
	at  algorithms.Local
	res algorithms.ResourceID
}

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
	n.res.cancelTimer(r, s)
}

// setTimer makes s's timer (s is k's slot) fire at s.accUntil, replacing
// any pending one.
func (t *table) setTimer(k algorithms.ResourceID, s *slot) {
	t.dropLate(k)
	if s.tpos != 0 {
		t.fix(int(s.tpos - 1))
		return
	}
	r, _ := t.find(k)
	s.tpos = uint32(len(t.heap)) + 1
	t.heap = append(t.heap, r)
	t.fix(len(t.heap) - 1)
}

// cancelTimer forgets the timer of k, whose slot is s.
func (t *table) cancelTimer(k algorithms.ResourceID, s *slot) {
	if s.tpos != 0 {
		t.remove(int(s.tpos - 1))
	}
	t.dropLate(k)
}

// detach moves s's pending timer, if any, to the late list before s's
// accUntil changes.
func (t *table) detach(s *slot) {
	if s.tpos == 0 {
		return
	}
	lt := lateTimer{at: s.accUntil, res: s.key}
	t.remove(int(s.tpos - 1))
	i, _ := slices.BinarySearchFunc(t.late, lt, compareLate)
	t.late = slices.Insert(t.late, i, lt)
}

func compareLate(a, b lateTimer) int {
	return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.res, b.res))
}

func (t *table) dropLate(k algorithms.ResourceID) {
	for i := range t.late {
		if t.late[i].res == k {
			t.late = slices.Delete(t.late, i, i+1)
			return
		}
	}
}

// nextTimer returns the earliest timer: its deadline and resource; of
// timers due at the same instant, the smallest resource.
func (t *table) nextTimer() (algorithms.Local, algorithms.ResourceID, bool) {
	if len(t.heap) == 0 {
		if len(t.late) == 0 {
			return 0, 0, false
		}
		return t.late[0].at, t.late[0].res, true
	}
	s := t.rec(t.heap[0])
	if len(t.late) > 0 && compareLate(t.late[0], lateTimer{s.accUntil, s.key}) < 0 {
		return t.late[0].at, t.late[0].res, true
	}
	return s.accUntil, s.key, true
}

// popTimer removes the timer nextTimer returns.
func (t *table) popTimer() {
	if len(t.heap) == 0 {
		if len(t.late) > 0 {
			t.late = slices.Delete(t.late, 0, 1)
		}
		return
	}
	s := t.rec(t.heap[0])
	if len(t.late) > 0 && compareLate(t.late[0], lateTimer{s.accUntil, s.key}) < 0 {
		t.late = slices.Delete(t.late, 0, 1)
		return
	}
	t.remove(0)
}

// timers is the number of pending timers.
func (t *table) timers() int { return len(t.heap) + len(t.late) }

// remove takes heap position p out.
func (t *table) remove(p int) {
	t.rec(t.heap[p]).tpos = 0
	last := len(t.heap) - 1
	if p != last {
		t.heap[p] = t.heap[last]
		t.rec(t.heap[p]).tpos = uint32(p) + 1
	}
	t.heap = t.heap[:last]
	if p < last {
		t.fix(p)
	}
}

// fix restores the heap order around position p after its deadline
// changed (or it was appended).
func (t *table) fix(p int) { heap.Fix((*timerHeap)(t), p) }

func (t *table) swap(i, j int) {
	h := t.heap
	h[i], h[j] = h[j], h[i]
	t.rec(h[i]).tpos = uint32(i) + 1
	t.rec(h[j]).tpos = uint32(j) + 1
}

// timerHeap is the table seen as container/heap's heap of its timers.
// Only heap.Fix is used, which calls Len, Less and Swap; Push and Pop,
// which heap.Interface requires too, append and drop the last position
// and set no slot's tpos, so heap.Push, heap.Pop and heap.Remove must not
// be used on it.
type timerHeap table

func (h *timerHeap) Len() int           { return len(h.heap) }
func (h *timerHeap) Less(i, j int) bool { return (*table)(h).less(i, j) }
func (h *timerHeap) Swap(i, j int)      { (*table)(h).swap(i, j) }
func (h *timerHeap) Push(x any)         { h.heap = append(h.heap, x.(uint32)) }
func (h *timerHeap) Pop() any {
	last := h.heap[len(h.heap)-1]
	h.heap = h.heap[:len(h.heap)-1]
	return last
}

// less orders heap positions by deadline, then by resource, so that
// timers due at the same instant fire in the runner's order (smallest
// key first; every timer here has the same kind).
func (t *table) less(i, j int) bool {
	a, b := t.rec(t.heap[i]), t.rec(t.heap[j])
	if a.accUntil != b.accUntil {
		return a.accUntil < b.accUntil
	}
	return a.key < b.key
}
