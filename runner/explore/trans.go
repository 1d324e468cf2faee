package explore

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"leaselab/algorithms"
)

// Transition kinds, in the order they are enumerated from a state.
const (
	tDeliver uint8 = iota + 1
	tDrop
	tDup
	tInput
	tCrash
	tRestart
	tAdvance
	tWait  // true time passes by Config.TimeStep, short of the next deadline
	tSlew  // node arg's clock changes rate to rate
	tPause // node arg's process pauses for dur
	tHop   // true time passes by dur, short of the next deadline (the settle probe's network)
)

// move is one transition out of a state. arg is the pending index
// (deliver, drop, dup) or the node (input, crash, restart, slew).
type move struct {
	kind uint8
	in   algorithms.InputKind
	arg  int32
	res  algorithms.ResourceID
	rate int64 // ppb (slew)
	dur  int64 // ns (pause)
}

var inputKinds = [...]algorithms.InputKind{algorithms.Acquire, algorithms.Extend, algorithms.Relinquish}

// moves appends the transitions enabled in w, in a fixed order: for each
// message in flight (send order) deliver, drop, duplicate; client inputs
// per proposer, resource and kind; crash or restart per node; clock rate
// changes per node and rate (--slews); process pauses per node and length
// (--pauses); a step of time short of the next deadline (--time-step);
// advance time to the next timer deadline.
func (c *config) moves(w *world, ms []move) []move {
	for i := range w.pending {
		if !w.up(w.pending[i].msg.To) && c.prune {
			// Delivering to a node that is down loses the message; leaving
			// it in flight for ever has the same futures and more (without
			// a pending bound: see the package doc).
			continue
		}
		ms = append(ms, move{kind: tDeliver, arg: int32(i)})
		if w.budget.drops > 0 {
			ms = append(ms, move{kind: tDrop, arg: int32(i)})
		}
		if w.budget.dups > 0 {
			ms = append(ms, move{kind: tDup, arg: int32(i)})
		}
	}
	if w.budget.inputs > 0 {
		for p := 0; p < c.cluster.Proposers; p++ {
			if !w.up(algorithms.NodeID(p)) {
				continue
			}
			for r := 0; r < c.Resources; r++ {
				for _, k := range c.inputs {
					ms = append(ms, move{kind: tInput, in: k, arg: int32(p), res: algorithms.ResourceID(r)})
				}
			}
		}
	}
	for n := range w.hosts {
		if w.up(algorithms.NodeID(n)) {
			if w.budget.crashes > 0 {
				ms = append(ms, move{kind: tCrash, arg: int32(n)})
			}
		} else {
			ms = append(ms, move{kind: tRestart, arg: int32(n)})
		}
	}
	if w.budget.slews > 0 {
		var ts []int64
		for n := range w.hosts {
			if !w.up(algorithms.NodeID(n)) || w.pausedAt(algorithms.NodeID(n)) >= 0 {
				// A paused node's kept timers are not in the firing
				// order to be armed again: no slew while paused.
				continue
			}
			for _, r := range c.rates {
				if r == w.clk[n].RatePPB {
					continue
				}
				var ok bool
				if ts, ok = w.rearmed(algorithms.NodeID(n), slewed(w.clk[n], w.now, r), ts); ok {
					ms = append(ms, move{kind: tSlew, arg: int32(n), rate: r})
				}
			}
		}
	}
	if w.budget.pauses > 0 {
		var ds []int64
		for n := range w.hosts {
			id := algorithms.NodeID(n)
			if !w.up(id) || w.pausedAt(id) >= 0 {
				continue
			}
			if ds == nil {
				ds = c.pauseLengths(w, make([]int64, 0, 16))
			}
			for _, d := range ds {
				ms = append(ms, move{kind: tPause, arg: int32(n), dur: d})
			}
		}
	}
	t := w.nextDeadline()
	if d := int64(c.TimeStep); d > 0 && t != never && w.now+d < t && c.reachable(w, w.now+d) && c.lockstep(w, w.now+d) {
		ms = append(ms, move{kind: tWait})
	}
	if t != never && c.reachable(w, t) && c.lockstep(w, t) {
		ms = append(ms, move{kind: tAdvance})
	}
	return ms
}

// lockstep says whether Config.Sync lets true time pass to t from w: no
// message to a live node in flight, and no hold ending by t.
func (c *config) lockstep(w *world, t int64) bool {
	if !c.Sync {
		return true
	}
	for i := range w.pending {
		if w.up(w.pending[i].msg.To) {
			return false
		}
	}
	for i := range w.holds {
		if w.holds[i].end <= t {
			return false
		}
	}
	return true
}

// reachable says whether true time may advance to t from w: within the
// horizon, and, for an algorithm that assumes clocks within d_max, with
// every two clocks still within skewLimit at t. Drifting clocks that
// start at opposite edges of d_max leave that assumption within seconds
// (2ρ per second), and a violation found beyond it is the environment
// breaking the algorithm's premise, not a bug; the campaigns keep the
// premise the same way (they slew clocks back, or cut rates and offsets
// for free-running ones), and the frontier experiment measures what
// happens beyond it.
func (c *config) reachable(w *world, t int64) bool {
	if c.Horizon > 0 && t > int64(c.Horizon) {
		return false
	}
	if c.skewLimit == 0 || !c.absTime {
		return true
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, k := range w.clk {
		l := int64(k.Local(t))
		lo, hi = min(lo, l), max(hi, l)
	}
	return hi-lo <= c.skewLimit
}

// apply carries out m on x.w (a copy of the parent) and settles. It
// returns false when the move changed nothing but a budget (a client
// input the node ignored that leaves no new request pending) or, without
// a pending bound, nothing but the message delivered (the node ignored
// it): such a state is the parent with fewer options, so the search
// skips it.
func (x *exec) apply(parent *world, m move) bool {
	x.tokFailed, x.wrote = nil, x.wrote[:0]
	if !x.transition(parent, m) {
		return false
	}
	if x.cfg.Tokens {
		x.writeTokens()
	}
	return true
}

// transition is apply without the writes of new tokens.
func (x *exec) transition(parent *world, m move) bool {
	w := x.w
	x.parent = parent
	x.touched = 0
	x.cnhSet = 0
	x.effects = 0
	x.asksChanged = false
	x.late, x.heldAsk = false, false
	switch m.kind {
	case tDeliver, tDrop, tDup:
		p := w.pending[m.arg]
		if m.kind != tDup {
			w.pending = append(w.pending[:m.arg], w.pending[m.arg+1:]...)
		}
		switch m.kind {
		case tDrop:
			w.budget.drops--
		case tDup:
			w.budget.dups--
		}
		if m.kind != tDrop {
			paused := w.pausedAt(p.msg.To) >= 0 // the message is kept, not ignored
			x.deliver(&p.msg)
			x.settle()
			if x.err == nil && !paused && x.effects == 0 && x.sameNode(parent, p.msg.To) && (x.cfg.prune || m.kind == tDup) {
				// The receiver ignored it: the state is the parent's
				// without the message (or with one budget less), and the
				// parent, which may still deliver it or never, has every
				// future this one has. Under a pending bound the message
				// leaves instead (the parent may be beyond the bound
				// where this state is not): see the package doc.
				return false
			}
			return true
		}
	case tInput:
		w.budget.inputs--
		n := algorithms.NodeID(m.arg)
		paused := w.pausedAt(n) >= 0 // the input is kept, not ignored
		x.input(n, m.in, m.res)
		x.schedule(qev{kind: qInput, node: n, in: m.in, res: m.res})
		x.settle()
		if x.err == nil && !paused && !x.asksChanged && x.effects == 0 && x.sameNode(parent, n) {
			return false
		}
		return true
	case tCrash:
		w.budget.crashes--
		x.crash(algorithms.NodeID(m.arg))
	case tRestart:
		x.start(algorithms.NodeID(m.arg), true)
	case tAdvance:
		t := w.nextDeadline()
		w.now = t
		x.advanceHolds(t)
	case tWait:
		w.now += int64(x.cfg.TimeStep)
		x.advanceHolds(w.now)
	case tSlew:
		w.budget.slews--
		x.slew(algorithms.NodeID(m.arg), m.rate)
	case tPause:
		w.budget.pauses--
		x.pause(algorithms.NodeID(m.arg), m.dur)
	case tHop:
		w.now += m.dur
		x.advanceHolds(w.now)
	}
	x.settle()
	return true
}

// describe writes m as a scenario command (and a comment) for world w
// before the move.
func (c *config) describe(w *world, m move) string {
	switch m.kind {
	case tDeliver, tDrop, tDup:
		p := w.pending[m.arg]
		verb := map[uint8]string{tDeliver: "deliver", tDrop: "drop", tDup: "dup"}[m.kind]
		down := ""
		if !w.up(p.msg.To) {
			down = " (receiver down)"
		}
		return fmt.Sprintf("%-24s # %s%s", fmt.Sprintf("%s %d", verb, p.id), p.msg, down)
	case tInput:
		verb := map[algorithms.InputKind]string{algorithms.Acquire: "acquire", algorithms.Extend: "extend", algorithms.Relinquish: "release"}[m.in]
		return fmt.Sprintf("%s n%d r%d", verb, m.arg, m.res)
	case tCrash:
		return fmt.Sprintf("crash n%d", m.arg)
	case tRestart:
		return fmt.Sprintf("restart n%d", m.arg)
	case tAdvance:
		d := time.Duration(w.nextDeadline() - w.now)
		return fmt.Sprintf("%-24s # to t=%s", "advance "+d.String(), time.Duration(w.nextDeadline()))
	case tWait:
		d := c.TimeStep
		return fmt.Sprintf("%-24s # to t=%s, before the next deadline", "advance "+d.String(), time.Duration(w.now+int64(d)))
	case tSlew:
		ck := slewed(w.clk[m.arg], w.now, m.rate)
		return fmt.Sprintf("clock n%d offset=%s rate=%s", m.arg, time.Duration(ck.Offset), strconv.FormatFloat(float64(ck.RatePPB)/1e9, 'g', -1, 64))
	case tPause:
		return fmt.Sprintf("%-24s # resumes at t=%s", fmt.Sprintf("pause n%d %s", m.arg, time.Duration(m.dur)), time.Duration(w.now+m.dur))
	case tHop:
		return fmt.Sprintf("%-24s # to t=%s: the messages in flight arrive", "advance "+time.Duration(m.dur).String(), time.Duration(w.now+m.dur))
	}
	return "?"
}
