package fatlease

import (
	"time"

	"leaselab/algorithms"
)

const (
	phPrepare uint8 = iota + 1
	phPropose
)

const (
	reqNone uint8 = iota
	reqAcquire
	reqExtend
)

// round is one run of INITIATE_CONSENSUS in one instance.
type round struct {
	active    bool
	phase     uint8
	learnPrev bool // consulting the previous instance (Sec. 4.3), not deciding
	inst      uint64
	ballot    algorithms.Ballot
	// own is this proposer's lease (self, now+v), fixed when Prepare is
	// sent: whatever quorum answers later, the lease cannot outlive v from
	// a moment before every answer.
	own      lease
	value    lease // the lease proposed in the accept phase
	adoptBal algorithms.Ballot
	adopt    lease
	// blockUntil: the latest local time at which a lease that blocked this
	// round (Fig. 4 reject, stale value) is certainly over.
	blockUntil algorithms.Local
}

// prop is a proposer's state for one resource; it exists only while a
// client wants the lease or the node holds it.
type prop struct {
	req          uint8
	fails        int
	extendFrom   algorithms.Local // an Extend is done when the hold ends later than this
	maxBal       algorithms.Ballot
	triedPrev    uint64           // instance whose previous instance could not be learned
	blockedUntil algorithms.Local // wait for a blocking lease before the next round
	rd           round
	votes, neg   algorithms.NodeSet // distinct acceptors: answers for / against the phase
	hold         struct {
		on       bool
		inst     uint64
		t, until algorithms.Local
		ballot   algorithms.Ballot
	}
}

func (e *Node) newProp() *prop {
	return &prop{}
}

func (e *Node) holdEnd(t algorithms.Local) algorithms.Local {
	return t - algorithms.Local(e.holdMargin)
}

// request handles Acquire and Extend from a client (GET_LEASE; renew).
func (e *Node) request(now algorithms.Local, id algorithms.ResourceID, k algorithms.InputKind, out *algorithms.Output) {
	if !e.isProp {
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: id, Owner: e.id})
		return
	}
	p := e.props[id]
	if p == nil {
		p = e.newProp()
		e.props[id] = p
	}
	if p.hold.on && now >= p.hold.until {
		// The hold is over on our clock and its timer has not fired yet
		// (a process pause kept the timer behind this input, or they
		// fell on one instant): end it as the timer would. Left on,
		// decide would take the Acquire as served by the hold and drop
		// it unanswered.
		p.hold.on = false
		out.CancelTimer(algorithms.TimerKey{Resource: id, Kind: timerHold})
	}
	holding := p.hold.on && now < p.hold.until
	switch {
	case k == algorithms.Acquire && holding,
		// An extension asked for at the instant its lease began (or later
		// than that instant, in a renewal already running) could end no
		// later than the lease it has: it is done. Proposing it anyway
		// would never finish, since an extension is done only when its
		// lease ends later, and with one acceptor, answered in-process,
		// it would recurse without end.
		k == algorithms.Extend && holding && p.hold.t >= now.Add(e.p.LeaseSpan):
		out.Emit(algorithms.Event{Kind: algorithms.Acquired, Resource: id, Owner: e.id, Ballot: p.hold.ballot, Until: p.hold.until,
			Token: algorithms.BallotToken(p.hold.inst, p.hold.ballot)})
		return
	case k == algorithms.Extend && holding:
		p.req, p.extendFrom = reqExtend, p.hold.t
	case p.req == reqNone:
		p.req = reqAcquire // Extend without a lease acquires one
	}
	p.fails = 0
	if e.joining {
		e.pending = append(e.pending, id)
		return
	}
	e.decide(now, id, e.state(id), p, out)
}

// relinquish handles a client's release: INVALIDATE (Sec. 4.3). The holder
// stops believing first (Lost), then tells every host to move on.
func (e *Node) relinquish(now algorithms.Local, id algorithms.ResourceID, out *algorithms.Output) {
	p := e.props[id]
	if p == nil {
		return
	}
	r := e.state(id)
	end := p.hold.t
	if p.rd.active {
		if p.rd.own.t > end {
			end = p.rd.own.t // a renewal in flight is given up too
		}
		e.endRound(id, p, out)
	}
	p.req = reqNone
	if p.hold.on {
		p.hold.on = false
		out.CancelTimer(algorithms.TimerKey{Resource: id, Kind: timerHold})
		out.Emit(algorithms.Event{Kind: algorithms.Lost, Resource: id, Owner: e.id, Ballot: p.hold.ballot})
		inv := algorithms.Message{Kind: algorithms.Invalidate, From: e.id, Owner: e.id,
			Resource: id, Instance: p.hold.inst, Ballot: p.hold.ballot, Expiry: end}
		e.toAll(inv, out)
		e.invalidated(now, id, r, p.hold.inst, e.id, end, out)
	}
	e.gc(id, p)
}

func (e *Node) gc(id algorithms.ResourceID, p *prop) {
	if p.req == reqNone && !p.hold.on && !p.rd.active {
		delete(e.props, id)
	}
}

// changed is called when a node's knowledge of a resource changed
// (learn, invalidation, catch-up): a waiting proposer re-decides, a round
// whose instance got decided stops.
func (e *Node) changed(now algorithms.Local, id algorithms.ResourceID, r *rstate, out *algorithms.Output) {
	if e.joining {
		return
	}
	p := e.props[id]
	if p == nil {
		if e.isProp {
			e.unwanted(now, id, r, out)
		}
		return
	}
	if p.rd.active {
		rec := r.record(p.rd.inst)
		switch {
		case rec != nil && rec.lrn.none() && !rec.over:
			return // still open
		case rec == nil && p.rd.inst > r.cur.n:
			return // proposing ahead of what this node knows (renew / next instance)
		}
		e.endRound(id, p, out)
	}
	e.decide(now, id, r, p, out)
}

// unwanted invalidates a lease of this node that got chosen after its
// client stopped wanting it (a round given up mid-way, then completed by
// another proposer): the owner never held it, so it may release it, and
// others need not wait for it to run out.
func (e *Node) unwanted(now algorithms.Local, id algorithms.ResourceID, r *rstate, out *algorithms.Output) {
	l := r.cur.lrn
	if l.owner != e.id || r.lrnVoid(&r.cur) || e.over(l, now) || l.t <= e.ownFloor {
		return
	}
	inv := algorithms.Message{Kind: algorithms.Invalidate, From: e.id, Owner: e.id,
		Resource: id, Instance: r.cur.n, Ballot: r.cur.lrnBal, Expiry: l.t}
	e.toAll(inv, out)
	e.invalidated(now, id, r, r.cur.n, e.id, l.t, out)
}

// refreshHold turns a chosen lease of this node into a hold (Acquired), or
// extends the hold (Acquired again, later Until).
func (e *Node) refreshHold(now algorithms.Local, id algorithms.ResourceID, r *rstate, p *prop, out *algorithms.Output) {
	best, bi, bb := noLease, uint64(0), algorithms.Ballot(0)
	for _, rec := range [2]*instance{&r.prev, &r.cur} {
		if rec.n == 0 || (rec == &r.prev && r.prev.n+1 != r.cur.n) {
			continue
		}
		l := rec.lrn
		if l.owner == e.id && !r.lrnVoid(rec) && l.t > e.ownFloor && now < e.holdEnd(l.t) && (best.none() || l.t > best.t) {
			best, bi, bb = l, rec.n, rec.lrnBal
		}
	}
	if best.none() {
		return
	}
	if p.hold.on && best.t <= p.hold.t {
		return
	}
	if !p.hold.on && p.req == reqNone {
		return
	}
	p.hold.on, p.hold.inst, p.hold.t, p.hold.until, p.hold.ballot = true, bi, best.t, e.holdEnd(best.t), bb
	p.fails = 0
	out.Emit(algorithms.Event{Kind: algorithms.Acquired, Resource: id, Owner: e.id, Ballot: bb, Until: p.hold.until,
		Token: algorithms.BallotToken(bi, bb)})
	out.SetTimer(algorithms.TimerKey{Resource: id, Kind: timerHold}, p.hold.until)
}

// decide is GET_LEASE: with the lease wanted and no round in flight, hold
// a lease of ours, wait, or start a round in the right instance.
func (e *Node) decide(now algorithms.Local, id algorithms.ResourceID, r *rstate, p *prop, out *algorithms.Output) {
	if e.joining || p.rd.active {
		return
	}
	e.refreshHold(now, id, r, p, out)
	switch {
	case p.req == reqNone,
		p.req == reqAcquire && p.hold.on,
		p.req == reqExtend && p.hold.on && p.hold.t > p.extendFrom:
		p.req = reqNone
		e.gc(id, p)
		return
	}
	if now < p.blockedUntil {
		out.SetTimer(algorithms.TimerKey{Resource: id, Kind: timerRetry}, p.blockedUntil)
		return
	}
	inst, learnPrev, wait := e.where(now, r, p)
	if inst > r.cur.n {
		// Never propose where this node itself could not follow: its
		// own knowledge of a live lease it would have to forget comes
		// first (and a refused move must not turn into a busy loop).
		if ok, until := e.dropBlock(r, inst, lease{owner: e.id, t: now.Add(e.p.LeaseSpan)}, now); !ok {
			inst, wait = 0, until
		}
	}
	if inst == 0 {
		// Someone else's lease is valid or in its safety period: wait
		// until it is certainly over. Not a failed round.
		out.SetTimer(algorithms.TimerKey{Resource: id, Kind: timerRetry}, wait)
		return
	}
	e.startRound(now, id, r, p, inst, learnPrev, out)
}

// where is CHECK_LOCAL_STATE extended with renew instances (Sec. 4.3): the
// instance to propose in, or (inst 0) the local time to wait for.
func (e *Node) where(now algorithms.Local, r *rstate, p *prop) (inst uint64, learnPrev bool, wait algorithms.Local) {
	c := &r.cur
	if c.n == 0 {
		return 1, false, 0 // nothing known: the first instance
	}
	if !c.lrn.none() || c.over {
		l := c.lrn
		// Outdated, given up, or our own (the holder may open the renew
		// instance before its lease ends): the next instance.
		if c.over || r.lrnVoid(c) || e.over(l, now) || l.owner == e.id {
			return c.n + 1, false, 0
		}
		return 0, false, e.overAt(l) // valid or safety period
	}
	// The current instance is incomplete. A non-owner may propose in it
	// only once the previous instance's lease is certainly over: else it
	// might win the holder's renew instance while that lease is valid.
	if c.n == 1 {
		return 1, false, 0
	}
	pv := &r.prev
	if pv.n+1 == c.n && (!pv.lrn.none() || pv.over) {
		l := pv.lrn
		if pv.over || r.lrnVoid(pv) || e.over(l, now) || l.owner == e.id {
			return c.n, false, 0
		}
		return 0, false, e.overAt(l)
	}
	// The previous instance was missed. Its lease was proposed before
	// this node first heard of the current instance (an instance is only
	// opened once its predecessor is decided), so it is over by since + v
	// (drift-adjusted). Until then, consult the previous instance: its
	// acceptors report its lease, which we re-propose and so learn.
	if now >= c.since.Add(e.missedFor) {
		return c.n, false, 0
	}
	if p.triedPrev != c.n {
		return c.n - 1, true, 0
	}
	return 0, false, c.since.Add(e.missedFor)
}

// startRound sends PREPARE(b, i) with a fresh ballot.
func (e *Node) startRound(now algorithms.Local, id algorithms.ResourceID, r *rstate, p *prop, inst uint64, learnPrev bool, out *algorithms.Output) {
	base := p.maxBal
	if p.rd.ballot > base {
		base = p.rd.ballot
	}
	if rec := r.record(inst); rec != nil && rec.promised > base {
		base = rec.promised
	}
	if !e.reuseBallots && e.lastBallot > base {
		base = e.lastBallot
	}
	b := algorithms.Next(base, e.restarts, e.id)
	if b <= base {
		// The run counter is exhausted (2^32 rounds in one life): no
		// ballot above base is left to this node.
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: id, Owner: e.id})
		p.req = reqNone
		e.gc(id, p)
		return
	}
	e.lastBallot = b
	own := lease{owner: e.id, t: now.Add(e.p.LeaseSpan)}
	if r.mine.owner == e.id && own.t <= r.mine.t {
		// A lease proposed in the same instant as a give-up must end
		// after it, or the give-up would void it (at most 1 ns more).
		own.t = r.mine.t + 1
	}
	if own.t <= e.ownFloor {
		own.t = e.ownFloor + 1 // likewise at the instant of a restart
	}
	p.rd = round{
		active: true, phase: phPrepare, learnPrev: learnPrev, inst: inst, ballot: b,
		own: own, value: noLease, adopt: noLease,
	}
	p.votes.Reset()
	p.neg.Reset()
	out.Emit(algorithms.Event{Kind: algorithms.Round, Resource: id, Owner: e.id, Ballot: b})
	out.SetTimer(algorithms.TimerKey{Resource: id, Kind: timerPhase}, now.Add(e.p.ResponseTimeout))
	m := algorithms.Message{Kind: algorithms.Prepare, From: e.id, Owner: e.id, Resource: id, Ballot: b, Instance: inst}
	if p.hold.on {
		m.Flags |= FlagRenew
	}
	e.toAcceptors(now, m, out)
}

func (e *Node) endRound(id algorithms.ResourceID, p *prop, out *algorithms.Output) {
	if !p.rd.active {
		return
	}
	p.rd.active = false
	out.CancelTimer(algorithms.TimerKey{Resource: id, Kind: timerPhase})
}

// failRound ends a round that timed out or was pre-empted; after MaxRounds
// such rounds the acquisition is abandoned.
func (e *Node) failRound(now algorithms.Local, id algorithms.ResourceID, p *prop, out *algorithms.Output) {
	e.endRound(id, p, out)
	e.countFailure(now, id, p, out)
}

// countFailure counts a failed round of an ended round and backs off
// before the next, or abandons the acquisition after MaxRounds.
func (e *Node) countFailure(now algorithms.Local, id algorithms.ResourceID, p *prop, out *algorithms.Output) {
	p.fails++
	if p.fails >= e.p.MaxRounds {
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: id, Owner: e.id})
		p.req, p.fails = reqNone, 0
		e.gc(id, p)
		return
	}
	e.backoff(now, id, out)
}

// backoff waits a random time in [0, Backoff] before the next round, so
// duelling proposers fall out of step.
func (e *Node) backoff(now algorithms.Local, id algorithms.ResourceID, out *algorithms.Output) {
	var d time.Duration
	if e.p.Backoff > 0 {
		d = time.Duration(e.rand.Int64N(int64(e.p.Backoff) + 1))
	}
	out.SetTimer(algorithms.TimerKey{Resource: id, Kind: timerRetry}, now.Add(d))
}

// learnFromReply takes in the chosen value a Promise or Outdated carries
// (FlagChosen), whichever round it answers: what an instance chose is
// true for every proposer, even one whose round is over.
func (e *Node) learnFromReply(now algorithms.Local, r *rstate, m algorithms.Message, out *algorithms.Output) {
	if m.Flags&FlagChosen == 0 || (m.Kind != algorithms.Promise && m.Kind != algorithms.Outdated) {
		return
	}
	id := m.Resource
	l := lease{owner: m.Owner, t: m.Expiry}
	if m.Flags&FlagVoid != 0 {
		e.noteInvalid(r, l.owner, l.t)
	}
	if e.learn(now, id, r, m.Instance, l, m.Accepted, out) {
		e.changed(now, id, r, out)
	}
}

// reply handles an acceptor's answer.
func (e *Node) reply(now algorithms.Local, m algorithms.Message, out *algorithms.Output) {
	id := m.Resource
	r := e.state(id)
	e.learnFromReply(now, r, m, out)
	p := e.props[id]
	if p == nil || !p.rd.active || m.Ballot != p.rd.ballot {
		return
	}
	a := m.From
	switch m.Kind {
	case algorithms.Promise:
		if p.rd.phase != phPrepare || m.Instance != p.rd.inst {
			return
		}
		if m.Flags&FlagChosen != 0 {
			// Decided already (and learned above, unless this node could
			// not take it in): nothing to negotiate here.
			e.endRound(id, p, out)
			e.decide(now, id, r, p, out)
			return
		}
		if !p.votes.Add(a) {
			return // votes are counted by distinct acceptor
		}
		if m.Accepted != 0 && m.Owner != algorithms.NoNode && m.Accepted > p.rd.adoptBal {
			p.rd.adoptBal, p.rd.adopt = m.Accepted, lease{owner: m.Owner, t: m.Expiry}
		}
		if p.votes.Len() >= e.cl.Majority() {
			e.acceptPhase(now, id, r, p, out)
		}
	case algorithms.Accepted:
		if p.rd.phase != phPropose || m.Instance != p.rd.inst || !p.votes.Add(a) {
			return
		}
		if p.votes.Len() >= e.cl.Majority() {
			e.chosen(now, id, r, p, out)
		}
	case algorithms.PrepareReject, algorithms.ProposeReject:
		if (m.Kind == algorithms.PrepareReject) != (p.rd.phase == phPrepare) {
			return
		}
		if m.Promised > p.maxBal {
			p.maxBal = m.Promised
		}
		in := algorithms.NoNode // the node in the way made the ballot the acceptor promised
		if m.Promised != 0 {
			in = m.Promised.Node()
		}
		out.Emit(algorithms.Event{Kind: algorithms.Preempted, Resource: id, Owner: in, Ballot: m.Promised})
		e.failRound(now, id, p, out)
	case algorithms.Outdated:
		switch {
		case m.Flags&FlagLower != 0:
			// Fig. 4: an acceptor knows a lower instance whose lease may
			// still be valid. Wait for it if a majority says so.
			if u := e.overAt(lease{owner: m.Owner, t: m.Expiry}); u > p.rd.blockUntil {
				p.rd.blockUntil = u
			}
			e.negative(now, id, r, p, a, out)
		case m.Flags&FlagStale != 0:
			if u := e.overAt(p.rd.value); u > p.rd.blockUntil {
				p.rd.blockUntil = u
			}
			e.negative(now, id, r, p, a, out)
		case m.Instance > p.rd.inst && m.Instance > r.cur.n:
			// This proposer is behind: catch up (INITIATE_CONSENSUS lines
			// 7-9) and decide again. Not a failed round.
			if ok, until := e.catchUp(now, id, r, m.Instance, out); !ok && until > now {
				p.blockedUntil = until
			}
			e.endRound(id, p, out)
			e.decide(now, id, r, p, out)
		default:
			e.negative(now, id, r, p, a, out)
		}
	}
}

// negative counts an answer that is neither a vote nor a NACK; once a
// majority can no longer be reached, the round ends.
func (e *Node) negative(now algorithms.Local, id algorithms.ResourceID, r *rstate, p *prop, a algorithms.NodeID, out *algorithms.Output) {
	if !p.neg.Add(a) || p.neg.Len() <= e.cl.Acceptors-e.cl.Majority() {
		return
	}
	rd := p.rd
	e.endRound(id, p, out)
	switch {
	case rd.blockUntil > now:
		p.blockedUntil = rd.blockUntil // a valid lease is in the way: wait, not a failure
		e.decide(now, id, r, p, out)
	case rd.learnPrev:
		p.triedPrev = r.cur.n
		e.decide(now, id, r, p, out)
	default:
		e.countFailure(now, id, p, out)
	}
}

// acceptPhase: a majority promised. Propose the accepted lease with the
// highest ballot if any (Paxos), else our own.
func (e *Node) acceptPhase(now algorithms.Local, id algorithms.ResourceID, r *rstate, p *prop, out *algorithms.Output) {
	v := p.rd.own
	if !p.rd.adopt.none() {
		v = p.rd.adopt
	}
	if p.rd.learnPrev && p.rd.adopt.none() {
		// Nothing to learn about the previous instance from this quorum.
		e.endRound(id, p, out)
		p.triedPrev = r.cur.n
		e.decide(now, id, r, p, out)
		return
	}
	if v != p.rd.own && (r.void(v) || e.over(v, now)) {
		// Whatever may have been chosen in this instance is the adopted
		// lease, and it is over: the instance is done with.
		rec := r.record(p.rd.inst)
		if rec == nil {
			// This node has no record of the instance (a proposer-only
			// node follows instances by learns alone; a restarted one
			// lost them): take it up, as an Outdated answer would make
			// it, or the next round is in this instance again, and
			// again, never failing and never acquiring.
			if ok, until := e.catchUp(now, id, r, p.rd.inst, out); ok {
				rec = r.record(p.rd.inst)
			} else if until > now {
				p.blockedUntil = until
			}
		}
		if rec != nil {
			rec.over = true
		}
		e.endRound(id, p, out)
		e.decide(now, id, r, p, out)
		return
	}
	p.rd.phase, p.rd.value = phPropose, v
	p.votes.Reset()
	p.neg.Reset()
	out.SetTimer(algorithms.TimerKey{Resource: id, Kind: timerPhase}, now.Add(e.p.ResponseTimeout))
	e.toAcceptors(now, algorithms.Message{Kind: algorithms.Propose, From: e.id, Owner: v.owner,
		Resource: id, Ballot: p.rd.ballot, Instance: p.rd.inst, Expiry: v.t}, out)
}

// chosen: a majority accepted. LEARN goes to every host.
func (e *Node) chosen(now algorithms.Local, id algorithms.ResourceID, r *rstate, p *prop, out *algorithms.Output) {
	v, inst, b := p.rd.value, p.rd.inst, p.rd.ballot
	e.endRound(id, p, out)
	e.toAll(algorithms.Message{Kind: algorithms.Learn, From: e.id, Owner: v.owner,
		Resource: id, Ballot: b, Instance: inst, Expiry: v.t}, out)
	e.learn(now, id, r, inst, v, b, out)
	if v.owner == e.id && now >= e.holdEnd(v.t) {
		// Our lease was over before the round finished: a failed round.
		p.fails++
		if p.fails >= e.p.MaxRounds {
			out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: id, Owner: e.id})
			p.req, p.fails = reqNone, 0
		}
	}
	e.decide(now, id, r, p, out)
}
