package explore

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"leaselab/algorithms"
)

// With Config.Liveness the search also judges the contract's liveness
// promise (algorithms.Failed: every Acquire is answered, Acquired or
// Failed, once the network delivers and the node runs) where a finite
// search can: at the states where nothing is left to happen on its own.
//
// A state is at rest when every node is up and running (none down, none
// paused), no message is in flight, and no timer or fsync is pending. From
// such a state nothing happens without a new client input or fault: no
// delivery, no deadline, no restart. A client request still unanswered
// there is never answered, however long the faults stay away; that state
// is a liveness failure (Result.Unanswered), and the first one found is
// rebuilt as a scenario that replays to "expect unanswered 0" failing.
//
// States at rest find a node that takes no notice of an Acquire (the
// holder asked again, the forgetful node of runner/internal/planted) and
// a round that ends without an answer and without a retry. Rounds without
// end never come to rest; the settle probe below judges those.
//
// Three changes to the search make the verdict sound (doc.go, "Liveness"):
// the requests are part of the state (two states that differ only in a
// pending request are two states: one may be stuck where the other is
// not), an Acquire the node ignores is a transition of its own when it
// leaves a request pending, and the reductions that keep a message in
// flight for ever instead of delivering it to a node that ignores it or
// is down (ignored-delivery, no-delivery-to-down-node) are off: a state
// at rest has no message in flight, and those reductions would replace
// it by its parent, which holds one.

// ask records a client's Acquire at node n on res (a request already
// pending there is the same request).
func (x *exec) ask(n algorithms.NodeID, res algorithms.ResourceID) {
	w := x.w
	i := 0
	for i < len(w.asks) && (w.asks[i].node < n || w.asks[i].node == n && w.asks[i].res < res) {
		i++
	}
	if i < len(w.asks) && w.asks[i] == (ask{n, res}) {
		return
	}
	w.asks = append(w.asks, ask{})
	copy(w.asks[i+1:], w.asks[i:])
	w.asks[i] = ask{n, res}
	x.asksChanged = true
}

// answer ends node n's request on res, if one is pending: the node
// answered it (Acquired, Failed), or the client gave it up (Relinquish:
// the contract's "any acquisition in progress").
func (x *exec) answer(n algorithms.NodeID, res algorithms.ResourceID) {
	w := x.w
	for i := range w.asks {
		if w.asks[i] == (ask{n, res}) {
			w.asks = append(w.asks[:i], w.asks[i+1:]...)
			x.asksChanged = true
			return
		}
	}
}

// input registers what a client input does to the requests (Liveness).
func (x *exec) input(n algorithms.NodeID, in algorithms.InputKind, res algorithms.ResourceID) {
	if !x.cfg.Liveness {
		return
	}
	switch in {
	case algorithms.Acquire:
		x.ask(n, res)
	case algorithms.Relinquish:
		x.answer(n, res)
	}
}

// Late answers. The contract also says when: a node that holds the lease
// answers an Acquire of it at once, Acquired with that lease
// (algorithms.Acquire). A node that takes such a request as an
// acquisition under way (an extension in flight) answers it later or, if
// the extension fails and says so, with Failed while it still holds: the
// request is answered, so no state at rest or probe sees it. So with
// Liveness the step that runs a client's Acquire at a node holding the
// lease (the checker's view, world.holds) is judged too: a request still
// pending after it is a liveness failure (Result.LateAnswers, counted in
// Unanswered), found in the transition, fresh successor or not. Not
// judged: an Acquire in a --from prefix (the search's initial states).

// holding reports whether node n holds a lease on res in w (the checker's
// view: its clock has not reached the lease's end).
func (w *world) holding(n algorithms.NodeID, res algorithms.ResourceID) bool {
	i := w.holdIndex(res, n)
	return i >= 0 && w.holds[i].end > w.now
}

// asking reports whether a client's request at node n on res is pending
// in w.
func (w *world) asking(n algorithms.NodeID, res algorithms.ResourceID) bool {
	return slices.Contains(w.asks, ask{n, res})
}

// dropAsks forgets node n's requests: its process crashed, and its
// clients' requests with it (the recorder counts them failed).
func (w *world) dropAsks(n algorithms.NodeID) {
	w.asks = slices.DeleteFunc(w.asks, func(a ask) bool { return a.node == n })
}

// atRest reports whether nothing is left to happen in w on its own: every
// node up and running, no message in flight, no timer, fsync or resume
// pending.
func (w *world) atRest() bool {
	if len(w.pending) > 0 || len(w.timers) > 0 || len(w.paused) > 0 {
		return false
	}
	for _, h := range w.hosts {
		if h.Node == nil {
			return false
		}
	}
	return true
}

// verdict judges w's liveness: whether it is at rest, and stuck there (a
// request pending: a liveness failure). Both false without Liveness.
func (c *config) verdict(w *world) (rest, stuck bool) {
	if !c.Liveness || !w.atRest() {
		return false, false
	}
	return true, len(w.asks) > 0
}

// pathRef is a path to a state: the initial state it begins at and its
// moves; root -1: no such state.
type pathRef struct {
	root int
	path []int32
}

// liveWitness sets res's liveness witness from the first state found at
// rest with a request pending (stuck) or, if none, the first a probe left
// one pending in (probed) or, if none, the first late answer's (late: the
// path ends with the transition that left it pending).
func (c *config) liveWitness(res *Result, stuck, probed, late pathRef) error {
	var sc string
	var err error
	ref := stuck
	switch {
	case stuck.root >= 0:
		sc, err = c.stuckWitness(stuck.root, stuck.path)
	case probed.root >= 0:
		ref = probed
		sc, err = c.probeWitness(probed.root, probed.path)
	case late.root >= 0:
		ref = late
		sc, err = c.lateWitness(late.root, late.path)
	default:
		return nil
	}
	if err != nil {
		return err
	}
	res.UnansweredScenario, res.UnansweredDepth = sc, len(ref.path)
	return nil
}

// stuckWitness re-executes the path (root, moves) to a state at rest with
// a request pending and writes it as a scenario that fails where it is
// replayed: time passes (nothing is due) and the request is still
// unanswered.
func (c *config) stuckWitness(root int, path []int32) (string, error) {
	var b strings.Builder
	w, err := c.rebuild(&b, root, path)
	if err != nil {
		return "", err
	}
	if _, stuck := c.verdict(w); !stuck {
		return "", fmt.Errorf("explore: internal error: the rebuilt path does not end at rest with a request pending")
	}
	fmt.Fprintf(&b, "# at rest: every node up, nothing in flight, no timer pending; unanswered:")
	for _, a := range w.asks {
		fmt.Fprintf(&b, " n%d r%d", a.node, a.res)
	}
	b.WriteString("\nadvance 1h                # nothing is due: time alone answers nothing\n")
	fmt.Fprintf(&b, "expect unanswered %d\n", len(w.asks))
	b.WriteString("# every Acquire is answered (algorithms.Failed's contract): leaselab replay exits 1 here\n")
	b.WriteString("expect unanswered 0\n")
	return b.String(), nil
}

// lateWitness re-executes the path (root, moves) whose last move ran a
// client's Acquire at a node holding the lease without an answer, and
// writes it as a scenario that fails there: the request is counted
// pending where the contract has it answered.
func (c *config) lateWitness(root int, path []int32) (string, error) {
	var b strings.Builder
	x := c.newExec()
	w, err := c.rebuildOn(x, &b, root, path)
	if err != nil {
		return "", err
	}
	if !x.late {
		return "", fmt.Errorf("explore: internal error: the rebuilt path does not end with a holder's Acquire unanswered")
	}
	b.WriteString("# the node held the lease it was asked for: the contract answers at once, Acquired with that lease (algorithms.Acquire); pending:")
	for _, a := range w.asks {
		fmt.Fprintf(&b, " n%d r%d", a.node, a.res)
	}
	b.WriteString("\n# leaselab replay exits 1 here\n")
	fmt.Fprintf(&b, "expect unanswered %d\n", len(w.asks)-1)
	return b.String(), nil
}

// --- the settle probe: requests that a synchronous network leaves
// unanswered ---
//
// A state at rest is the one place where "never answered" is a property
// of the state alone. A proposer that retries for ever never comes to
// rest, and a bounded search cuts its paths at the pending bound, the
// horizon or the depth. So with Liveness every state the search expands
// in which a request is pending and the clients have no input left (the
// input budget is spent) is also probed: from it, the faults stop and the
// network is synchronous (the campaigns' settle stretch, in one
// schedule). A node that is down restarts at once; the network moves in
// hops of probeHop of true time, each delivering, in send order, the
// messages that were in flight when it began (what they send waits for
// the next hop); a deadline that comes first is met first; with nothing
// in flight, time advances to the next deadline. No crash, loss,
// duplicate, pause or clock change. Time must pass: with deliveries that
// took none, a node that retries at once while it waits for a record to
// lapse (fairq, with the explorer's backoff of 0) would spin at one
// instant for ever, which no network does. A request still pending after
// probeFor of true time (per proposer a whole hold, extended, a restart's
// quarantine and a whole failed acquisition, as campaign.SettleFor gives
// a seed) is a liveness failure.
//
// Drifting clocks stop drifting where they are when the probe begins
// (rate 0, reading continuous: the scenario's "clock" command, a slew's
// move), as the campaigns stop free clocks at the settle stretch:
// advancing tens of seconds at their rates would carry them past the
// skew an algorithm assumes (config.reachable). A state where that cannot
// be done as the simulator would do it is not probed: a paused node
// (whose kept timers are not in the firing order), or two of a node's
// timers that would come due at one instant (world.rearmed).
//
// One schedule, not every one: a bug that only some fair schedule shows
// is not found by the probe (a state at rest on such a path still is).

// probeSteps caps the moves of one probe (a request still pending after
// that many is unanswered, whatever time is left). Time bounds a probe
// first: probeFor over probeHop is 700 hops at the explorer's defaults.
const probeSteps = 1 << 16

// probeHop is the network's hop in the probe: a fiftieth of the lease
// span (100 ms at the default 5 s), so that a round of two hops is far
// inside any timeout and the probe's witness stays short.
func (c *config) probeHop() int64 { return max(int64(c.Params.LeaseSpan)/50, 1) }

// probeFor is how much true time a probe gives the pending requests.
func (c *config) probeFor() int64 {
	p := c.Params
	each := 3*p.MaxLease + time.Duration(p.MaxRounds)*(p.ResponseTimeout+p.Backoff) + time.Second
	return int64(p.MaxLease + time.Duration(max(c.Proposers, 1))*each)
}

// probed reports whether w is to be probed: a request pending, no input
// left, not at rest (judged there already).
func (c *config) probed(w *world) bool {
	return c.Liveness && len(w.asks) > 0 && w.budget.inputs == 0 && !w.atRest()
}

// stoppable reports whether every drifting clock of w can stop where it
// is, as the simulator would stop it: no paused node, and no two of a
// node's timers due at one instant once its clock runs at rate 0.
func (w *world) stoppable() bool {
	var ts []int64
	for n, k := range w.clk {
		if k.RatePPB == 0 {
			continue
		}
		if w.pausedAt(algorithms.NodeID(n)) >= 0 {
			return false
		}
		var ok bool
		if ts, ok = w.rearmed(algorithms.NodeID(n), slewed(k, w.now, 0), ts); !ok {
			return false
		}
	}
	return true
}

// probe runs the synchronous continuation from w (left unchanged) on px,
// the worker's probe exec, and reports whether it ran (false: its clocks
// could not stop, see stoppable) and whether a request is still pending
// at its end. With desc, it writes each move as a scenario command.
func (c *config) probe(px *exec, w *world, desc *strings.Builder) (ran, stuck bool, err error) {
	if c.absTime && !w.stoppable() {
		return false, false, nil
	}
	pw := w.clone()
	for n := range pw.hosts {
		h := pw.hosts[n].Clone()
		pw.hosts[n] = &h
	}
	px.walk = true // the hosts are the probe's own: steps change them in place
	px.w = pw
	end, hop := pw.now+c.probeFor(), c.probeHop()
	do := func(m move) error {
		if desc != nil {
			desc.WriteString(c.describe(pw, m))
			desc.WriteByte('\n')
		}
		px.apply(pw, m)
		return px.err
	}
	for n, k := range pw.clk {
		if k.RatePPB != 0 {
			if err := do(move{kind: tSlew, arg: int32(n), rate: 0}); err != nil {
				return true, false, err
			}
		}
	}
	steps := 0
	for steps < probeSteps && len(pw.asks) > 0 {
		m, ok := probeMove(pw, hop)
		if !ok || pw.now+m.dur > end || m.kind == tAdvance && pw.nextDeadline() > end {
			break // at rest, or out of time
		}
		if err := do(m); err != nil {
			return true, false, err
		}
		steps++
		if m.kind != tHop {
			continue
		}
		// The hop's deliveries: what was in flight when it began.
		for k := len(pw.pending); k > 0 && len(pw.asks) > 0; k-- {
			if err := do(move{kind: tDeliver, arg: 0}); err != nil {
				return true, false, err
			}
			steps++
		}
	}
	return true, len(pw.asks) > 0, nil
}

// probeMove is the synchronous network's next move in w: restart a node
// that is down; with messages in flight, a hop of true time (or, if a
// deadline comes first, time to it); else advance to the next deadline
// (false: none, w is at rest).
func probeMove(w *world, hop int64) (move, bool) {
	for n := range w.hosts {
		if !w.up(algorithms.NodeID(n)) {
			return move{kind: tRestart, arg: int32(n)}, true
		}
	}
	t := w.nextDeadline()
	if len(w.pending) > 0 && (t == never || w.now+hop < t) {
		return move{kind: tHop, dur: hop}, true
	}
	if t != never {
		return move{kind: tAdvance}, true
	}
	return move{}, false
}

// probeWitness rebuilds the path (root, moves) to a probed state and
// writes it, with the probe's moves, as a scenario that fails where it is
// replayed.
func (c *config) probeWitness(root int, path []int32) (string, error) {
	var b strings.Builder
	w, err := c.rebuild(&b, root, path)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "# from here the faults stop and the network is synchronous (explore's settle probe: hops of %s): unanswered:", time.Duration(c.probeHop()))
	for _, a := range w.asks {
		fmt.Fprintf(&b, " n%d r%d", a.node, a.res)
	}
	b.WriteByte('\n')
	px := c.newExec()
	_, stuck, err := c.probe(px, w, &b)
	if err != nil {
		return "", err
	}
	if !stuck {
		return "", fmt.Errorf("explore: internal error: the probe of the rebuilt state answers every request")
	}
	fmt.Fprintf(&b, "# %s of true time since the probe began; the request is still pending\n", time.Duration(px.w.now-w.now))
	fmt.Fprintf(&b, "expect unanswered %d\n", len(px.w.asks))
	b.WriteString("# every Acquire is answered (algorithms.Failed's contract): leaselab replay exits 1 here\n")
	b.WriteString("expect unanswered 0\n")
	return b.String(), nil
}
