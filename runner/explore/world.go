package explore

import (
	"fmt"
	"math"
	"sort"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
	"leaselab/runner/host"
)

// never is the true deadline of a timer whose local deadline the node's
// clock never reaches (faults.Clock.TrueAt's "never").
const never = math.MaxInt64

// timer is a pending timer of a node (its key and deadline on the node's
// clock are in the node's host.Timers) or the completion of its disk's
// sync, due at true time t (never: the key is kept, nothing fires).
// Timers due at one instant fire in the order they were armed (seq), as
// in the simulator's event queue.
type timer struct {
	t    int64
	seq  uint64
	key  algorithms.TimerKey
	node algorithms.NodeID
	disk bool // the completion of node's sync, not a node timer
	// resume: the end of node's process pause (a pause's resume is due at
	// an instant fixed when it starts, ordered among the timers by the
	// pause's arming order, as the simulator schedules it).
	resume bool
}

// pmsg is a message in flight. id is the scenario's pending number (send
// order along this world's path); it is not part of the state.
type pmsg struct {
	id  int32
	msg algorithms.Message
}

// hold is the checker's view: owner believes it holds res until true time
// end (the first instant its clock reads until).
type hold struct {
	res    algorithms.ResourceID
	owner  algorithms.NodeID
	ballot algorithms.Ballot
	until  algorithms.Local
	end    int64
	// token: the fencing token of owner's latest Acquired event on res;
	// written: it has been judged against the resource's highest token
	// (Config.Tokens; tokens.go). Neither is part of the state: at rest
	// every hold is written.
	token   algorithms.Token
	written bool
}

// budgets are the faults and client inputs a path may still use.
type budgets struct {
	inputs, crashes, drops, dups, slews, pauses int16
}

// ask is a client's Acquire at node, on res, that the node has not yet
// answered (Acquired or Failed).
type ask struct {
	node algorithms.NodeID
	res  algorithms.ResourceID
}

// pausing is a node whose process is paused (pause.go): it resumes at its
// resume timer; held are the resources it held when it paused (bit per
// resource: it believes it holds them until it resumes, whatever its
// clock says meanwhile); kept are its events that came due while paused,
// in the order they came due, run when it resumes.
type pausing struct {
	node algorithms.NodeID
	held uint16
	kept []qev // never appended to in place: worlds share it
}

// world is one state of the search: everything the scenario interpreter
// keeps between two commands.
//
// Each node runs on a host.Host (runner/host, as in the simulator): the
// node of its current life (nil while down), its source, its restart
// counter, its timers by key and its disk (group commit, durable records
// kept for the next life). A host is never changed once a world holding
// it is published: a transition that changes a node's host changes a
// Clone (the node cloned, its timers and disk copied), so worlds share
// the hosts they did not touch.
type world struct {
	now     int64
	root    int32          // index of the clock assignment (Config.roots)
	clk     []faults.Clock // each node's clock now (the root's, unless slewed)
	hosts   []*host.Host
	timers  []timer // sorted by (t, seq)
	pending []pmsg  // in send order
	holds   []hold  // sorted by (res, owner)
	paused  []pausing
	// asks (Config.Liveness): the clients' Acquires not yet answered,
	// sorted by (node, res).
	asks    []ask
	budget  budgets
	seq     uint64
	pendSeq int32
	// nh: each live node's fingerprint at now (frontier worlds only).
	nh []fp
	// tops (Config.Tokens): per resource, the highest fencing token
	// written to it so far, a history variable (tokens.go); tokFail: a
	// hold's token along the path to here was not above it.
	tops    []tokTop
	tokFail bool
	// bad: two owners hold one resource at once, or (Tokens) a token
	// failed (at rest, after the transition that led here settled).
	bad bool
}

// copyFrom makes w a copy of p reusing w's buffers. Nodes and disks are
// shared (copy on write).
func (w *world) copyFrom(p *world) {
	w.now, w.root, w.budget, w.seq, w.pendSeq, w.bad, w.tokFail = p.now, p.root, p.budget, p.seq, p.pendSeq, p.bad, p.tokFail
	w.tops = append(w.tops[:0], p.tops...)
	w.clk = append(w.clk[:0], p.clk...)
	w.hosts = append(w.hosts[:0], p.hosts...)
	w.timers = append(w.timers[:0], p.timers...)
	w.pending = append(w.pending[:0], p.pending...)
	w.holds = append(w.holds[:0], p.holds...)
	w.paused = append(w.paused[:0], p.paused...)
	w.asks = append(w.asks[:0], p.asks...)
	w.nh = w.nh[:0]
}

// clone returns a copy of w with buffers of its own, sized to fit.
func (w *world) clone() *world {
	c := &world{
		clk:     make([]faults.Clock, 0, len(w.clk)),
		hosts:   make([]*host.Host, 0, len(w.hosts)),
		timers:  make([]timer, 0, len(w.timers)),
		pending: make([]pmsg, 0, len(w.pending)),
		holds:   make([]hold, 0, len(w.holds)),
	}
	c.copyFrom(w)
	return c
}

// qev is an event due at the current instant: a message to oneself, a
// client input, an fsync completion (the explorer's fsync takes no time),
// in the order scheduled (seq).
type qev struct {
	seq  uint64
	kind uint8
	node algorithms.NodeID
	in   algorithms.InputKind
	res  algorithms.ResourceID
	msg  algorithms.Message
	key  algorithms.TimerKey // qFire
}

const (
	qDeliver uint8 = iota + 1
	qInput
	qFire // a timer kept while its node was paused
	qDisk // an fsync completion kept while its node was paused
)

// exec carries out transitions on a world. Each worker has its own.
type exec struct {
	cfg     *config
	w       *world
	q       []qev
	qhead   int
	out     algorithms.Output
	touched uint64 // nodes cloned in this transition (bit per node)
	err     error
	// effects counts steps whose output did anything (the prune test for
	// client inputs).
	effects int
	// asksChanged: this transition added or ended a client request
	// (Liveness).
	asksChanged bool
	// late: in this transition a node that held a lease took a client's
	// Acquire of it and did not answer it in that step (Liveness;
	// liveness.go, "Late answers").
	late bool
	// heldAsk: in this transition a client's Acquire ran at a node that
	// held the lease (judged for a late answer; Liveness).
	heldAsk bool
	// tokFailed: the first token failure of this transition (Tokens),
	// nil if none.
	tokFailed *tokenFail
	// wrote: with keepWrites (a counterexample being rebuilt), the holds
	// whose new tokens this transition wrote (Tokens), in order: the
	// writes the counterexample replays. The search does not keep them.
	wrote      []hold
	keepWrites bool
	parent     *world // the world x.w was copied from, nil for a root
	// walk: steps change nodes in place (a single path, no branching:
	// the random walks of the tests, which need no Explorable).
	walk bool
	enc  []byte
	enc2 []byte
	mh   []fp
	// cnh: node fingerprints of x.w computed during this transition
	// (bit n of cnhSet: cnh[n] is set).
	cnh    []fp
	cnhSet uint64
	// scratch: x.w is thrown away after the transition (a successor that
	// is only fingerprinted), so the hosts it owns live in pool, one per
	// node, reused by the next transition instead of allocated.
	scratch bool
	pool    []host.Host
}

func (x *exec) fail(err error) {
	if x.err == nil {
		x.err = err
	}
}

func (x *exec) clock(n algorithms.NodeID) faults.Clock { return x.w.clk[n] }

// up reports whether node n is up in x.w.
func (w *world) up(n algorithms.NodeID) bool { return w.hosts[n].Node != nil }

// own returns node n's host, cloned first if this transition has not
// cloned it yet.
func (x *exec) own(n algorithms.NodeID) *host.Host {
	if x.touched&(1<<n) == 0 && !x.walk {
		var h *host.Host
		if x.scratch {
			if len(x.pool) < len(x.w.hosts) {
				x.pool = make([]host.Host, len(x.w.hosts))
			}
			h = &x.pool[n]
		} else {
			h = new(host.Host)
		}
		*h = x.w.hosts[n].Clone()
		x.w.hosts[n] = h
		x.touched |= 1 << n
	}
	return x.w.hosts[n]
}

func (x *exec) schedule(e qev) {
	x.w.seq++
	e.seq = x.w.seq
	x.q = append(x.q, e)
}

// step hands in to node n now and carries out its output as the
// simulator does (host.Host.Step, with x as its host.Env).
func (x *exec) step(n algorithms.NodeID, in algorithms.Input) {
	h := x.own(n)
	out := &x.out
	err := h.Step(x, x.clock(n).Local(x.w.now), &in, out)
	if len(out.Msgs)+len(out.Timers)+len(out.Events)+len(out.Persist) > 0 {
		x.effects++
	}
	if err != nil {
		x.fail(err)
	}
}

// Event keeps the checker's view of the node's holds (host.Env).
func (x *exec) Event(h *host.Host, _ algorithms.Local, ev *algorithms.Event) {
	switch ev.Kind {
	case algorithms.Acquired:
		x.acquired(h.ID, ev)
		if len(x.w.asks) > 0 {
			x.answer(h.ID, ev.Resource)
		}
	case algorithms.Lost:
		x.closeHold(ev.Resource, h.ID)
	case algorithms.Failed:
		if len(x.w.asks) > 0 {
			x.answer(h.ID, ev.Resource)
		}
	}
}

// Arm: the node set timer entry i at a step whose clock read local; it
// fires at the first true instant its clock reaches the deadline, after
// what was armed before for that instant (host.Env).
func (x *exec) Arm(h *host.Host, i int32, local algorithms.Local) {
	e := h.Timers.At(i)
	x.w.dropTimer(h.ID, e.Key())
	x.dropKeptFire(h.ID, e.Key())
	at := x.w.now
	if e.At > local {
		at = x.clock(h.ID).TrueAt(e.At)
	}
	x.w.seq++
	x.w.insertTimer(timer{t: at, seq: x.w.seq, key: e.Key(), node: h.ID})
}

// Disarm: the node cancelled timer t (host.Env).
func (x *exec) Disarm(h *host.Host, _ int32, t host.Timer) {
	x.w.dropTimer(h.ID, t.Key())
	x.dropKeptFire(h.ID, t.Key())
}

// Persist: nothing to meter (host.Env).
func (x *exec) Persist(*host.Host, *algorithms.Output) {}

// Sync: the node's disk started a sync, which completes FsyncLatency
// later (host.Env).
func (x *exec) Sync(h *host.Host) {
	x.w.seq++
	x.w.insertTimer(timer{t: x.w.now + int64(x.cfg.FsyncLatency), seq: x.w.seq, node: h.ID, disk: true})
}

// dropTimer removes node n's timer key from the firing order, if there.
func (w *world) dropTimer(n algorithms.NodeID, key algorithms.TimerKey) {
	for i := range w.timers {
		if t := &w.timers[i]; t.node == n && t.key == key && !t.disk && !t.resume {
			w.timers = append(w.timers[:i], w.timers[i+1:]...)
			return
		}
	}
}

// insertTimer adds tm, whose seq is the largest so far, keeping (t, seq)
// order.
func (w *world) insertTimer(tm timer) {
	at := tm.t
	i := len(w.timers)
	for i > 0 && w.timers[i-1].t > at {
		i--
	}
	w.timers = append(w.timers, timer{})
	copy(w.timers[i+1:], w.timers[i:])
	w.timers[i] = tm
}

// Send puts m in flight (a message to oneself is delivered now;
// host.Env).
func (x *exec) Send(m *algorithms.Message) {
	w := x.w
	if int(m.To) >= len(w.hosts) {
		x.fail(fmt.Errorf("node %d sent %v to a node that does not exist (cluster of %d)", m.From, *m, len(w.hosts)))
		return
	}
	if m.To == m.From {
		x.schedule(qev{kind: qDeliver, node: m.To, msg: *m})
		return
	}
	w.pendSeq++
	w.pending = append(w.pending, pmsg{id: w.pendSeq, msg: *m})
}

func (x *exec) deliver(m *algorithms.Message) {
	if !x.w.up(m.To) {
		return // the receiver is down: the message is lost
	}
	if x.w.pausedAt(m.To) >= 0 {
		x.keep(qev{kind: qDeliver, node: m.To, msg: *m})
		return
	}
	x.step(m.To, algorithms.Input{Kind: algorithms.Recv, Msg: *m})
}

// diskDone completes node n's sync: the messages that waited for it
// leave and the next sync starts (host.Host.Synced).
func (x *exec) diskDone(n algorithms.NodeID) {
	if !x.w.up(n) || !x.w.hosts[n].Disk.Busy() {
		return
	}
	if x.w.pausedAt(n) >= 0 {
		x.keep(qev{kind: qDisk, node: n})
		return
	}
	x.own(n).Synced(x)
}

// --- the checker's view (runner/checker) ---

func (x *exec) acquired(n algorithms.NodeID, ev *algorithms.Event) {
	w := x.w
	end := x.clock(n).TrueAt(ev.Until)
	if i := w.holdIndex(ev.Resource, n); i >= 0 {
		if end <= w.now {
			x.closeHold(ev.Resource, n)
			return
		}
		h := &w.holds[i]
		h.end, h.until = end, ev.Until
		h.ballot = ev.Ballot
		if h.token != ev.Token {
			h.token, h.written = ev.Token, false
		}
		return
	}
	if end <= w.now {
		return
	}
	h := hold{res: ev.Resource, owner: n, ballot: ev.Ballot, until: ev.Until, end: end, token: ev.Token}
	i := sort.Search(len(w.holds), func(i int) bool {
		o := &w.holds[i]
		return o.res > h.res || o.res == h.res && o.owner > h.owner
	})
	w.holds = append(w.holds, hold{})
	copy(w.holds[i+1:], w.holds[i:])
	w.holds[i] = h
}

func (x *exec) closeHold(res algorithms.ResourceID, n algorithms.NodeID) {
	w := x.w
	if i := w.holdIndex(res, n); i >= 0 {
		w.holds = append(w.holds[:i], w.holds[i+1:]...)
	}
}

// holdIndex is the position in w.holds of n's hold on res, -1 if none.
func (w *world) holdIndex(res algorithms.ResourceID, n algorithms.NodeID) int {
	for i := range w.holds {
		if w.holds[i].res == res && w.holds[i].owner == n {
			return i
		}
	}
	return -1
}

// advanceHolds ends every hold whose end is at or before t.
func (x *exec) advanceHolds(t int64) {
	w := x.w
	k := 0
	for _, h := range w.holds {
		if h.end > t {
			w.holds[k] = h
			k++
		}
	}
	w.holds = w.holds[:k]
}

// holders is the set of nodes that hold a lease in w, a bit per node (ids
// from 63 up share the last bit): what a search counts to say it reached
// leases, and leases of more than one node (Result.HeldStates, Holders).
func (w *world) holders() uint64 {
	var m uint64
	for i := range w.holds {
		m |= 1 << min(uint(w.holds[i].owner), 63)
	}
	return m
}

// overlaps counts the pairs of different owners holding one resource
// among the nodes that are running: a paused node's holds are set aside
// until it resumes, as the checker does (runner/checker: violations are
// two holders among running nodes; what a pause does is the
// double-belief meter's, doubleBelief).
func (w *world) overlaps() int {
	hs := w.holds
	n := 0
	for i := range hs {
		if w.pausedAt(hs[i].owner) >= 0 {
			continue
		}
		for j := i + 1; j < len(hs) && hs[j].res == hs[i].res; j++ {
			if w.pausedAt(hs[j].owner) < 0 {
				n++ // sorted by (res, owner): owners differ
			}
		}
	}
	return n
}

// firstOverlap returns the first two holds of different running owners
// on one resource (ok false: none).
func (w *world) firstOverlap() (a, b hold, ok bool) {
	hs := w.holds
	for i := range hs {
		if w.pausedAt(hs[i].owner) >= 0 {
			continue
		}
		for j := i + 1; j < len(hs) && hs[j].res == hs[i].res; j++ {
			if w.pausedAt(hs[j].owner) < 0 {
				return hs[i], hs[j], true
			}
		}
	}
	return hold{}, hold{}, false
}

// --- time ---

// settle runs everything due at the current instant, in the order the
// simulator would (timers due now and queued events by sequence number).
// An algorithm whose steps keep scheduling more for the same instant
// (a timer set for now on every firing, a message answered by one to
// itself forever) never lets it end: past maxInstantSteps steps settle
// fails the transition with an error naming the instant, instead of
// hanging the search (and the battery past its budget). The explorer's
// configurations hold a handful of nodes and inputs; a legitimate
// instant takes tens of steps.
func (x *exec) settle() {
	w := x.w
	for steps := 0; x.err == nil; steps++ {
		if steps == maxInstantSteps {
			x.fail(runner.Livelock(uint64(steps), "steps", w.now))
			break
		}
		ti := -1
		if len(w.timers) > 0 && w.timers[0].t <= w.now {
			ti = 0
		}
		if x.qhead < len(x.q) && (ti < 0 || x.q[x.qhead].seq < w.timers[0].seq) {
			e := x.q[x.qhead]
			x.qhead++
			switch e.kind {
			case qDeliver:
				x.deliver(&e.msg)
			case qInput:
				if !w.up(e.node) {
					break
				}
				if w.pausedAt(e.node) >= 0 {
					x.keep(e)
					break
				}
				held := e.in == algorithms.Acquire && x.cfg.Liveness && w.holding(e.node, e.res)
				x.step(e.node, algorithms.Input{Kind: e.in, Resource: e.res})
				if held {
					x.heldAsk = true
					x.late = x.late || w.asking(e.node, e.res)
				}
			case qFire:
				x.fireKept(e.node, e.key)
			case qDisk:
				x.diskDone(e.node)
			}
			continue
		}
		if ti < 0 {
			break
		}
		tm := w.timers[0]
		w.timers = append(w.timers[:0], w.timers[1:]...)
		if tm.resume {
			x.resume(tm.node)
			continue
		}
		if tm.disk {
			x.diskDone(tm.node)
			continue
		}
		if w.pausedAt(tm.node) >= 0 {
			x.keep(qev{kind: qFire, node: tm.node, key: tm.key})
			continue
		}
		h := x.own(tm.node)
		h.Timers.Take(h.Timers.Get(tm.key))
		x.step(tm.node, algorithms.Input{Kind: algorithms.Fire, Timer: tm.key})
	}
	x.q = x.q[:0]
	x.qhead = 0
}

// maxInstantSteps bounds the steps settle runs at one instant.
const maxInstantSteps = 1 << 20

// nextDeadline is the earliest finite timer deadline, or never.
func (w *world) nextDeadline() int64 {
	if len(w.timers) == 0 {
		return never
	}
	return w.timers[0].t
}

// --- node life ---

// start builds node n's next life (a restart when again, with the
// records its disk made durable) and steps it with Start
// (runner/sim/sim.go's startNode).
func (x *exec) start(n algorithms.NodeID, again bool) {
	h := x.own(n)
	var err error
	if again {
		err = h.Restart(&x.cfg.setup)
	} else {
		err = h.Boot(&x.cfg.setup, h.Disk.Recovered())
	}
	if err != nil {
		x.fail(err)
		return
	}
	if _, ok := h.Node.(algorithms.Explorable); !ok && !x.walk {
		x.fail(fmt.Errorf("algorithm %s cannot be explored: its nodes (%T) do not implement algorithms.Explorable", x.cfg.Algo, h.Node))
		return
	}
	x.step(n, algorithms.Input{Kind: algorithms.Start})
}

// crash ends node n's life: its node, timers and what its disk had not
// made durable are gone, and so are its holds.
func (x *exec) crash(n algorithms.NodeID) {
	w := x.w
	x.own(n).Crash()
	if i := w.pausedAt(n); i >= 0 {
		// A crash ends a pause: what the node kept is lost with it.
		w.paused = append(w.paused[:i:i], w.paused[i+1:]...)
	}
	k := 0
	for _, t := range w.timers {
		if t.node != n {
			w.timers[k] = t
			k++
		}
	}
	w.timers = w.timers[:k]
	k = 0
	for _, h := range w.holds {
		if h.owner != n {
			w.holds[k] = h
			k++
		}
	}
	w.holds = w.holds[:k]
	w.dropAsks(n)
}

// sameNode reports whether node n's state in x.w encodes as in parent.
func (x *exec) sameNode(parent *world, n algorithms.NodeID) bool {
	a, b := parent.hosts[n].Node, x.w.hosts[n].Node
	if a == nil || b == nil {
		return a == b
	}
	local := x.clock(n).Local(x.w.now)
	if x.walk {
		return false
	}
	if p := parent; len(p.nh) > int(n) && p.now == x.w.now && p.clk[n] == x.w.clk[n] {
		// The parent's fingerprint of the node is at hand: compare the
		// child's with it, and keep the child's for its fingerprint.
		x.enc = b.(algorithms.Explorable).AppendState(x.enc[:0], local)
		h := hashBytes(x.enc)
		x.keepNodeHash(n, h)
		return h == p.nh[n]
	}
	x.enc = a.(algorithms.Explorable).AppendState(x.enc[:0], local)
	x.enc2 = b.(algorithms.Explorable).AppendState(x.enc2[:0], local)
	return string(x.enc) == string(x.enc2)
}

// keepNodeHash remembers node n's fingerprint in x.w, computed during this
// transition, for fingerprint (until the next transition).
func (x *exec) keepNodeHash(n algorithms.NodeID, h fp) {
	if len(x.cnh) < len(x.w.hosts) {
		x.cnh = make([]fp, len(x.w.hosts))
	}
	x.cnh[n] = h
	x.cnhSet |= 1 << n
}

// --- clocks that change rate along a path ---

// slewed is c running at rate (ppb) from true time now on, reading there
// what c reads (the offset the scenario's "clock" command is given).
func slewed(c faults.Clock, now, rate int64) faults.Clock {
	local := int64(c.Local(now))
	floor := int64(faults.Clock{RatePPB: rate}.Local(now)) - now // floor(now*rate/1e9)
	return faults.Clock{Offset: local - now - floor, RatePPB: rate}
}

// rearmed returns the true deadlines node n's timers would have under
// clock c, in the order of w.timers, and whether no two of them fall on
// one instant. The simulator re-arms a node's timers in the order of its
// timer slots, which the explorer does not model; the order matters only
// between timers of the node due at one instant, so the explorer offers a
// rate change only where there are none (see the package doc).
func (w *world) rearmed(n algorithms.NodeID, c faults.Clock, ts []int64) ([]int64, bool) {
	local := c.Local(w.now)
	ts = ts[:0]
	for i := range w.timers {
		tm := &w.timers[i]
		if tm.node != n || tm.disk || tm.resume {
			continue
		}
		at := w.now
		if d := w.deadline(tm); d > local {
			at = c.TrueAt(d)
		}
		for _, o := range ts {
			if o == at && at != never {
				return ts, false
			}
		}
		ts = append(ts, at)
	}
	return ts, true
}

// slew sets node n's clock rate to rate at now, as the scenario's "clock
// NODE offset=O rate=R" does in the simulator (setClock): the checker maps
// the node's holds to true time again (closing those that end by now),
// then the node's timers are armed again from their local deadlines, each
// with a new sequence number, in their firing order.
func (x *exec) slew(n algorithms.NodeID, rate int64) {
	x.setClock(n, slewed(x.w.clk[n], x.w.now, rate))
}

// setClock replaces node n's clock from now on (runner/sim's setClock).
func (x *exec) setClock(n algorithms.NodeID, c faults.Clock) {
	w := x.w
	w.clk[n] = c
	k := 0
	for _, h := range w.holds {
		if h.owner == n {
			h.end = c.TrueAt(h.until)
			if h.end <= w.now {
				continue
			}
		}
		w.holds[k] = h
		k++
	}
	w.holds = w.holds[:k]
	if !w.up(n) {
		return
	}
	local := c.Local(w.now)
	var mine []timer
	k = 0
	for _, tm := range w.timers {
		if tm.node == n && !tm.disk && !tm.resume {
			mine = append(mine, tm)
			continue
		}
		w.timers[k] = tm
		k++
	}
	w.timers = w.timers[:k]
	for _, tm := range mine {
		tm.t = w.now
		if d := w.deadline(&tm); d > local {
			tm.t = c.TrueAt(d)
		}
		w.seq++
		tm.seq = w.seq
		w.insertTimer(tm)
	}
}

// deadline is node timer tm's deadline on its node's clock.
func (w *world) deadline(tm *timer) algorithms.Local {
	h := w.hosts[tm.node]
	return h.Timers.At(h.Timers.Get(tm.key)).At
}
