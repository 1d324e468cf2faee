package explore

import (
	"slices"

	"leaselab/algorithms"
)

// Process pauses (Config.Pauses; the fault-kind table's "pause" kind, its
// budget "pauses"): the scenario command "pause NODE D" and the
// simulator's semantics (runner/sim/pause.go). A paused node does
// nothing: its timers that come due, the messages delivered to it, its
// client's inputs and its fsync completions are kept, in the order they
// came due, and run when it resumes, at the resume instant, after what
// was already due then; its clock runs on, so its timers fire late and it
// reads the time that passed. The resume is due at an instant fixed when
// the pause starts, ordered among the timers by the pause's arming order,
// as the simulator schedules it. A crash ends a pause and loses what was
// kept. The checker sets a paused node's holds aside (violations are two
// holders among running nodes); a paused node that held a resource when
// it paused believes it holds it until it resumes, which doubleBelief
// counts.

// pausedAt returns the index of node n in w.paused, or -1.
func (w *world) pausedAt(n algorithms.NodeID) int {
	for i := range w.paused {
		if w.paused[i].node == n {
			return i
		}
	}
	return -1
}

// keep files e, an event of a paused node, for its resume.
func (x *exec) keep(e qev) {
	w := x.w
	i := w.pausedAt(e.node)
	p := &w.paused[i]
	// The slice may be shared with other worlds: append to a copy.
	p.kept = append(slices.Clip(p.kept), e)
}

// pause pauses node n now for d ns of true time.
func (x *exec) pause(n algorithms.NodeID, d int64) {
	w := x.w
	var held uint16
	for _, h := range w.holds {
		if h.owner == n {
			held |= 1 << h.res
		}
	}
	w.paused = append(w.paused, pausing{node: n, held: held})
	w.seq++
	w.insertTimer(timer{t: w.now + d, seq: w.seq, node: n, resume: true})
}

// resume ends node n's pause: what it kept runs now, in order, after what
// is already due.
func (x *exec) resume(n algorithms.NodeID) {
	w := x.w
	i := w.pausedAt(n)
	if i < 0 {
		return
	}
	kept := w.paused[i].kept
	w.paused = append(w.paused[:i:i], w.paused[i+1:]...)
	for _, e := range kept {
		x.schedule(e)
	}
}

// fireKept fires node n's timer key, which came due while n was paused
// (unless n crashed, or armed or cancelled it again since: dropKeptFire).
func (x *exec) fireKept(n algorithms.NodeID, key algorithms.TimerKey) {
	if !x.w.up(n) {
		return
	}
	h := x.own(n)
	i := h.Timers.Get(key)
	if i < 0 {
		return
	}
	h.Timers.Take(i)
	x.step(n, algorithms.Input{Kind: algorithms.Fire, Timer: key})
}

// dropKeptFire: node n armed or cancelled timer key, so a fire of it kept
// during a pause and not yet run is void (the simulator's timer
// generation).
func (x *exec) dropKeptFire(n algorithms.NodeID, key algorithms.TimerKey) {
	for i := x.qhead; i < len(x.q); i++ {
		if e := &x.q[i]; e.kind == qFire && e.node == n && e.key == key {
			x.q = append(x.q[:i], x.q[i+1:]...)
			i--
		}
	}
}

// pauseLengths appends the pause lengths worth trying for a node paused
// in w: for every distinct instant t > now at which a timer (or another
// pause's resume) is due, a resume at t (after what was armed before the
// pause and is due at t, before what is armed later) and one just after
// t (t + 1 ns: after everything that happens at t, messages and inputs
// included). Between two deadlines nothing happens on its own, so under
// the deadlines time model any other resume instant between t and the
// next deadline is like the resume just after t; a resume before the
// first deadline only delays deliveries the search makes anyway. What is
// not tried: a resume fixed relative to a deadline that is armed during
// the pause (by another node): it is reached only where it coincides with
// one of these.
func (c *config) pauseLengths(w *world, ds []int64) []int64 {
	last := int64(-1)
	for i := range w.timers {
		t := w.timers[i].t
		if t == never || t <= w.now || t == last {
			continue
		}
		last = t
		for _, at := range [2]int64{t, t + 1} {
			if c.Horizon > 0 && at > int64(c.Horizon) {
				continue
			}
			ds = append(ds, at-w.now)
		}
	}
	return ds
}

// doubleBelief reports whether two nodes believe they hold one resource:
// running holders plus paused nodes that held it when they paused (the
// runner's double-belief meter, record.beliefMeter). Without pauses that
// is a violation.
func (w *world) doubleBelief() bool {
	if len(w.paused) == 0 {
		return w.overlaps() > 0
	}
	var seen, twice uint16
	for _, p := range w.paused {
		twice |= seen & p.held
		seen |= p.held
	}
	for _, h := range w.holds {
		if w.pausedAt(h.owner) >= 0 {
			continue // counted by held
		}
		bit := uint16(1) << h.res
		twice |= seen & bit
		seen |= bit
	}
	return twice != 0
}
