package explore

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"leaselab/algorithms"
	"leaselab/runner/faults"
	"leaselab/runner/workload"
)

// never is the true deadline of a timer whose local deadline the node's
// clock never reaches (faults.Clock.TrueAt's "never").
const never = math.MaxInt64

// snap is a node between two steps. A snap is never changed once a world
// holding it is published: a transition that steps the node steps a
// Clone, so worlds share the nodes they did not touch.
type snap struct {
	node algorithms.Node // an algorithms.Explorable whenever the search branches
	src  *rand.PCG       // the source behind the node's Config.Rand
}

func (s *snap) clone() *snap {
	src := new(rand.PCG)
	*src = *s.src
	return &snap{node: s.node.(algorithms.Explorable).Clone(rand.New(src)), src: src}
}

// timer is a pending timer of a node, as the runner keeps it outside the
// node: due at true time t (never: the key is kept, nothing fires).
// Timers due at one instant fire in the order they were armed (seq), as
// in the simulator's event heap.
type timer struct {
	t    int64
	seq  uint64
	at   algorithms.Local // the deadline the node set, on its clock (node timers)
	key  algorithms.TimerKey
	node algorithms.NodeID
	disk bool // the completion of node's fsync, not a node timer
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
}

// diskState is a node's stable storage (Durable algorithms,
// runner/disk.go with group commit): the durable records (returned on
// restart), the fsync in progress (its records, the messages waiting for
// it) and the outputs queued for the next one. Shared between worlds,
// copied before a change.
type diskState struct {
	durable []algorithms.Record
	busy    bool
	curRecs []algorithms.Record
	curMsgs []algorithms.Message
	qRecs   []algorithms.Record
	qMsgs   []algorithms.Message
}

// budgets are the faults and client inputs a path may still use.
type budgets struct {
	inputs, crashes, drops, dups, slews int16
}

// world is one state of the search: everything the scenario interpreter
// keeps between two commands.
type world struct {
	now      int64
	root     int32          // index of the clock assignment (Config.roots)
	clk      []faults.Clock // each node's clock now (the root's, unless slewed)
	nodes    []*snap
	restarts []uint16
	timers   []timer // sorted by (t, seq)
	pending  []pmsg  // in send order
	disks    []*diskState
	holds    []hold // sorted by (res, owner)
	budget   budgets
	seq      uint64
	pendSeq  int32
	// nh: each live node's fingerprint at now (frontier worlds only).
	nh []fp
	// bad: two owners hold one resource at once (at rest, after the
	// transition that led here settled).
	bad bool
}

// copyFrom makes w a copy of p reusing w's buffers. Nodes and disks are
// shared (copy on write).
func (w *world) copyFrom(p *world) {
	w.now, w.root, w.budget, w.seq, w.pendSeq, w.bad = p.now, p.root, p.budget, p.seq, p.pendSeq, p.bad
	w.clk = append(w.clk[:0], p.clk...)
	w.nodes = append(w.nodes[:0], p.nodes...)
	w.restarts = append(w.restarts[:0], p.restarts...)
	w.timers = append(w.timers[:0], p.timers...)
	w.pending = append(w.pending[:0], p.pending...)
	w.disks = append(w.disks[:0], p.disks...)
	w.holds = append(w.holds[:0], p.holds...)
	w.nh = w.nh[:0]
}

// clone returns a copy of w with buffers of its own, sized to fit.
func (w *world) clone() *world {
	c := &world{
		clk:      make([]faults.Clock, 0, len(w.clk)),
		nodes:    make([]*snap, 0, len(w.nodes)),
		restarts: make([]uint16, 0, len(w.restarts)),
		timers:   make([]timer, 0, len(w.timers)),
		pending:  make([]pmsg, 0, len(w.pending)),
		disks:    make([]*diskState, 0, len(w.disks)),
		holds:    make([]hold, 0, len(w.holds)),
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
}

const (
	qDeliver uint8 = iota + 1
	qInput
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
	parent  *world // the world x.w was copied from, nil for a root
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
}

func (x *exec) fail(err error) {
	if x.err == nil {
		x.err = err
	}
}

func (x *exec) clock(n algorithms.NodeID) faults.Clock { return x.w.clk[n] }

// own returns node n's snap, cloned first if this transition has not
// cloned it yet.
func (x *exec) own(n algorithms.NodeID) *snap {
	if x.touched&(1<<n) == 0 && !x.walk {
		x.w.nodes[n] = x.w.nodes[n].clone()
		x.touched |= 1 << n
	}
	return x.w.nodes[n]
}

func (x *exec) schedule(e qev) {
	x.w.seq++
	e.seq = x.w.seq
	x.q = append(x.q, e)
}

// step hands in to node n now and carries out its output as the
// simulator does (workload.Carry).
func (x *exec) step(n algorithms.NodeID, in algorithms.Input) {
	sn := x.own(n)
	local := x.clock(n).Local(x.w.now)
	x.out.Reset()
	sn.node.Step(local, in, &x.out)
	out := &x.out
	if len(out.Msgs)+len(out.Timers)+len(out.Events)+len(out.Persist) > 0 {
		x.effects++
	}
	if err := workload.Carry(x, n, local, out); err != nil {
		x.fail(err)
	}
}

// Event keeps the checker's view of node n's holds.
func (x *exec) Event(n algorithms.NodeID, _ algorithms.Local, ev *algorithms.Event) bool {
	switch ev.Kind {
	case algorithms.Acquired:
		x.acquired(n, ev)
	case algorithms.Lost:
		x.closeHold(ev.Resource, n)
	}
	return true
}

// SetTimer sets or cancels timer t of node n, whose clock reads local.
func (x *exec) SetTimer(n algorithms.NodeID, local algorithms.Local, t *algorithms.Timer) {
	w := x.w
	for i := range w.timers {
		if w.timers[i].node == n && w.timers[i].key == t.Key && !w.timers[i].disk {
			w.timers = append(w.timers[:i], w.timers[i+1:]...)
			break
		}
	}
	if t.Cancel {
		return
	}
	at := w.now
	if t.At > local {
		at = x.clock(n).TrueAt(t.At)
	}
	w.seq++
	w.insertTimer(timer{t: at, seq: w.seq, at: t.At, key: t.Key, node: n})
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

// Send puts m in flight (a message to oneself is delivered now).
func (x *exec) Send(m *algorithms.Message) {
	w := x.w
	if int(m.To) >= len(w.nodes) {
		x.fail(fmt.Errorf("node %d sent %v to a node that does not exist (cluster of %d)", m.From, *m, len(w.nodes)))
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
	if x.w.nodes[m.To] == nil {
		return // the receiver is down: the message is lost
	}
	x.step(m.To, algorithms.Input{Kind: algorithms.Recv, Msg: *m})
}

// --- the disk (runner/disk.go, group commit, fsync latency fixed) ---

func (x *exec) ownDisk(n algorithms.NodeID) *diskState {
	d := x.w.disks[n]
	c := &diskState{}
	if d != nil {
		c.durable = append([]algorithms.Record(nil), d.durable...)
		c.busy = d.busy
		c.curRecs = append([]algorithms.Record(nil), d.curRecs...)
		c.curMsgs = append([]algorithms.Message(nil), d.curMsgs...)
		c.qRecs = append([]algorithms.Record(nil), d.qRecs...)
		c.qMsgs = append([]algorithms.Message(nil), d.qMsgs...)
	}
	x.w.disks[n] = c
	return c
}

// Persist: the records join the fsync queue; the messages wait for the
// fsync, unless the Output says NoSync (then they leave at once).
func (x *exec) Persist(n algorithms.NodeID, out *algorithms.Output) {
	d := x.ownDisk(n)
	if out.NoSync {
		for i := range out.Msgs {
			x.Send(&out.Msgs[i])
		}
	} else {
		d.qMsgs = append(d.qMsgs, out.Msgs...)
	}
	d.qRecs = append(d.qRecs, out.Persist...)
	if !d.busy {
		x.startSync(n, d)
	}
}

// startSync begins an fsync of everything queued (group commit); it
// completes FsyncLatency later.
func (x *exec) startSync(n algorithms.NodeID, d *diskState) {
	if len(d.qRecs) == 0 && len(d.qMsgs) == 0 {
		return
	}
	d.curRecs = append(d.curRecs[:0], d.qRecs...)
	d.curMsgs = append(d.curMsgs[:0], d.qMsgs...)
	d.qRecs = d.qRecs[:0]
	d.qMsgs = d.qMsgs[:0]
	d.busy = true
	x.w.seq++
	x.w.insertTimer(timer{t: x.w.now + int64(x.cfg.FsyncLatency), seq: x.w.seq, node: n, disk: true})
}

func (x *exec) diskDone(n algorithms.NodeID) {
	if x.w.nodes[n] == nil || x.w.disks[n] == nil || !x.w.disks[n].busy {
		return
	}
	d := x.ownDisk(n)
	d.durable = append(d.durable, d.curRecs...)
	d.busy = false
	msgs := d.curMsgs
	d.curMsgs = nil
	d.curRecs = d.curRecs[:0]
	for i := range msgs {
		x.Send(&msgs[i])
	}
	x.startSync(n, d)
}

// --- the checker's view (runner/checker) ---

func (x *exec) acquired(n algorithms.NodeID, ev *algorithms.Event) {
	w := x.w
	end := x.clock(n).TrueAt(ev.Until)
	for i := range w.holds {
		h := &w.holds[i]
		if h.res == ev.Resource && h.owner == n {
			if end <= w.now {
				x.closeHold(ev.Resource, n)
				return
			}
			h.end, h.until = end, ev.Until
			h.ballot = ev.Ballot
			return
		}
	}
	if end <= w.now {
		return
	}
	h := hold{res: ev.Resource, owner: n, ballot: ev.Ballot, until: ev.Until, end: end}
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
	for i := range w.holds {
		if w.holds[i].res == res && w.holds[i].owner == n {
			w.holds = append(w.holds[:i], w.holds[i+1:]...)
			return
		}
	}
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

// overlaps counts the pairs of different owners holding one resource.
func overlaps(hs []hold) int {
	n := 0
	for i := range hs {
		for j := i + 1; j < len(hs) && hs[j].res == hs[i].res; j++ {
			n++ // sorted by (res, owner): owners differ
		}
	}
	return n
}

// --- time ---

// settle runs everything due at the current instant, in the order the
// simulator would (timers due now and queued events by sequence number).
func (x *exec) settle() {
	w := x.w
	for x.err == nil {
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
				if w.nodes[e.node] != nil {
					x.step(e.node, algorithms.Input{Kind: e.in, Resource: e.res})
				}
			}
			continue
		}
		if ti < 0 {
			break
		}
		tm := w.timers[0]
		w.timers = append(w.timers[:0], w.timers[1:]...)
		if tm.disk {
			x.diskDone(tm.node)
			continue
		}
		x.step(tm.node, algorithms.Input{Kind: algorithms.Fire, Timer: tm.key})
	}
	x.q = x.q[:0]
	x.qhead = 0
}

// nextDeadline is the earliest finite timer deadline, or never.
func (w *world) nextDeadline() int64 {
	if len(w.timers) == 0 {
		return never
	}
	return w.timers[0].t
}

// --- node life ---

// start builds node n (a restart when again) and steps it with Start
// (runner/sim/sim.go's startNode).
func (x *exec) start(n algorithms.NodeID, again bool) {
	w := x.w
	if again {
		w.restarts[n]++
	}
	src := faults.NodeSource(x.cfg.Seed, n, w.restarts[n])
	c := algorithms.Config{
		ID:        n,
		Cluster:   x.cfg.cluster,
		Params:    x.cfg.Params,
		Ablations: x.cfg.Ablate,
		Rand:      rand.New(src),
		Restarts:  w.restarts[n],
	}
	if d := w.disks[n]; d != nil && len(d.durable) > 0 {
		c.Recovered = append([]algorithms.Record(nil), d.durable...)
	}
	nd, err := x.cfg.algo.New(c)
	if err != nil {
		x.fail(fmt.Errorf("building node %d: %w", n, err))
		return
	}
	if _, ok := nd.(algorithms.Explorable); !ok && !x.walk {
		x.fail(fmt.Errorf("algorithm %s cannot be explored: its nodes (%T) do not implement algorithms.Explorable", x.cfg.Algo, nd))
		return
	}
	w.nodes[n] = &snap{node: nd, src: src}
	x.touched |= 1 << n
	x.step(n, algorithms.Input{Kind: algorithms.Start})
}

func (x *exec) crash(n algorithms.NodeID) {
	w := x.w
	w.nodes[n] = nil
	k := 0
	for _, t := range w.timers {
		if t.node != n {
			w.timers[k] = t
			k++
		}
	}
	w.timers = w.timers[:k]
	if d := w.disks[n]; d != nil && (d.busy || len(d.qRecs) > 0 || len(d.qMsgs) > 0) {
		c := x.ownDisk(n)
		c.busy = false
		c.curRecs, c.curMsgs, c.qRecs, c.qMsgs = nil, nil, nil, nil
	}
	k = 0
	for _, h := range w.holds {
		if h.owner != n {
			w.holds[k] = h
			k++
		}
	}
	w.holds = w.holds[:k]
}

// sameNode reports whether node n's state in x.w encodes as in parent.
func (x *exec) sameNode(parent *world, n algorithms.NodeID) bool {
	a, b := parent.nodes[n], x.w.nodes[n]
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
		x.enc = b.node.(algorithms.Explorable).AppendState(x.enc[:0], local)
		h := hashBytes(x.enc)
		x.keepNodeHash(n, h)
		return h == p.nh[n]
	}
	x.enc = a.node.(algorithms.Explorable).AppendState(x.enc[:0], local)
	x.enc2 = b.node.(algorithms.Explorable).AppendState(x.enc2[:0], local)
	return string(x.enc) == string(x.enc2)
}

// keepNodeHash remembers node n's fingerprint in x.w, computed during this
// transition, for fingerprint (until the next transition).
func (x *exec) keepNodeHash(n algorithms.NodeID, h fp) {
	if len(x.cnh) < len(x.w.nodes) {
		x.cnh = make([]fp, len(x.w.nodes))
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
		if tm.node != n || tm.disk {
			continue
		}
		at := w.now
		if tm.at > local {
			at = c.TrueAt(tm.at)
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
	if w.nodes[n] == nil {
		return
	}
	local := c.Local(w.now)
	var mine []timer
	k = 0
	for _, tm := range w.timers {
		if tm.node == n && !tm.disk {
			mine = append(mine, tm)
			continue
		}
		w.timers[k] = tm
		k++
	}
	w.timers = w.timers[:k]
	for _, tm := range mine {
		tm.t = w.now
		if tm.at > local {
			tm.t = c.TrueAt(tm.at)
		}
		w.seq++
		tm.seq = w.seq
		w.insertTimer(tm)
	}
}
