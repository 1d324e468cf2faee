package fatlease

import "leaselab/algorithms"

// lease is λ = (owner, t): owner holds the resource until its own clock
// reads t. owner == NoNode is ⊥.
type lease struct {
	owner algorithms.NodeID
	t     algorithms.Local
}

var noLease = lease{owner: algorithms.NoNode}

func (l lease) none() bool { return l.owner == algorithms.NoNode }

// instance is what a node knows of one Multipaxos instance of a resource:
// the acceptor's promise and accepted proposal, the learned (chosen)
// lease, and since, the local time at which this node first knew that the
// instance exists (the missed-instance bound counts from it).
type instance struct {
	n        uint64 // 0: no instance
	since    algorithms.Local
	promised algorithms.Ballot
	accBal   algorithms.Ballot
	acc      lease
	lrnBal   algorithms.Ballot
	lrn      lease
	// over: a proposer found that whatever may have been chosen here is
	// already over (it adopted an expired value), so the next instance may
	// start. Never reported as chosen.
	over bool
	// accVoid, lrnVoid: that lease was invalidated by its owner. Sticky:
	// the per-resource watermark below may be replaced later.
	accVoid, lrnVoid bool
}

func newInstance(n uint64, since algorithms.Local) instance {
	return instance{n: n, since: since, acc: noLease, lrn: noLease}
}

// rstate is a node's state of one resource: the current and the previous
// instance (the renew-instance rule needs both, Sec. 4.3), the latest
// invalidation it heard of, and the grant it last reported.
type rstate struct {
	cur, prev instance
	// inv: every lease of inv.owner that ends no later than inv.t was
	// given up by its owner (Invalidate). One watermark per resource: a
	// newer invalidation by another owner replaces it, which only makes
	// the node more careful (the older owner's leases count again).
	inv lease
	// mine: the same for this node's own leases. Kept apart from inv, so
	// that no invalidation by another owner can ever make this node
	// believe again in a lease it gave up.
	mine    lease
	granted lease // last Granted event (acceptor), noLease if none/cleared
}

func newRstate() *rstate {
	return &rstate{cur: newInstance(0, 0), prev: newInstance(0, 0), inv: noLease, mine: noLease, granted: noLease}
}

// record returns the kept record of instance i, or nil.
func (r *rstate) record(i uint64) *instance {
	switch {
	case i == 0:
		return nil
	case i == r.cur.n:
		return &r.cur
	case i == r.prev.n && r.prev.n+1 == r.cur.n:
		return &r.prev
	}
	return nil
}

// void reports whether l was invalidated by its owner.
func (r *rstate) void(l lease) bool {
	if l.none() {
		return false
	}
	return (l.owner == r.inv.owner && l.t <= r.inv.t) || (l.owner == r.mine.owner && l.t <= r.mine.t)
}

// noteInvalid records that owner o gave up its leases ending by t, and
// marks the leases the node knows that this voids.
func (e *Node) noteInvalid(r *rstate, o algorithms.NodeID, t algorithms.Local) {
	w := &r.inv
	if o == e.id {
		w = &r.mine
	}
	if w.owner != o || t > w.t {
		*w = lease{owner: o, t: t}
	}
	for _, rec := range [2]*instance{&r.prev, &r.cur} {
		rec.accVoid = rec.accVoid || r.void(rec.acc)
		rec.lrnVoid = rec.lrnVoid || r.void(rec.lrn)
	}
}

// slot is a lease a record holds, with whether it is void.
type slot struct {
	l    lease
	void bool
}

// slots are a record's accepted and learned leases.
func (r *rstate) slots(rec *instance) [2]slot {
	return [2]slot{
		{rec.acc, rec.accVoid || r.void(rec.acc)},
		{rec.lrn, rec.lrnVoid || r.void(rec.lrn)},
	}
}

// lrnVoid reports whether rec's learned lease was given up.
func (r *rstate) lrnVoid(rec *instance) bool { return rec.lrnVoid || r.void(rec.lrn) }

func (e *Node) liveSlot(s slot, now algorithms.Local) bool {
	return !s.void && !s.l.none() && !e.over(s.l, now)
}

// advance moves the node to instance i > cur.n. The current instance
// becomes the previous one if it is i-1; everything older is dropped
// (callers check with mayDrop / guard first).
func (r *rstate) advance(i uint64, now algorithms.Local) {
	if r.cur.n+1 == i {
		r.prev = r.cur
	} else {
		r.prev = newInstance(i-1, now)
	}
	r.cur = newInstance(i, now)
}

// over reports whether lease l is certainly over as this node sees it at
// now (CHECK_LOCAL_STATE's "outdated"). The owner reads its own clock; any
// other node allows for the clock difference d_max (the safety period
// [t-d_max, t+d_max]), unless the safety-period ablation is on.
func (e *Node) over(l lease, now algorithms.Local) bool {
	if l.owner == e.id {
		return now >= l.t
	}
	return now >= e.overAt(l)
}

// overAt is the first local time at which another node's lease l is
// certainly over: t + d_max + 1 (the paper's c - d_max > t).
func (e *Node) overAt(l lease) algorithms.Local {
	if l.owner == e.id {
		return l.t
	}
	if e.noSafety {
		return l.t + 1
	}
	return l.t + algorithms.Local(e.dmax) + 1
}

// keptAfter reports whether record rec is still known once the node
// handles instance i: everything is if i is not beyond the current
// instance; on a move to i, only a current instance i-1 stays (as the
// previous one).
func keptAfter(r *rstate, rec *instance, i uint64) bool {
	if i <= r.cur.n {
		return true
	}
	return rec == &r.cur && rec.n+1 == i
}

// guard is the Fig. 4 augmentation (previous-instance check), done by an
// acceptor before it promises or accepts in instance i for owner o: every
// lease it knows in a lower instance must be over, invalidated, or o's
// own. A lease of o in a record the move to i would drop must moreover be
// covered by a later lease of o that stays. It returns the blocking lease
// and its instance, or ok.
//
// This is what keeps a majority that discarded its state (and negotiated
// afresh in a low instance) from being overruled by a minority proposing in
// instance n+1, and what keeps a non-owner from winning the renew instance
// while the previous lease may be valid.
func (e *Node) guard(r *rstate, i uint64, o algorithms.NodeID, now algorithms.Local) (ok bool, blkInst uint64, blk lease) {
	if e.noPrevCheck {
		return true, 0, noLease
	}
	for _, rec := range [2]*instance{&r.prev, &r.cur} {
		if rec.n == 0 || rec.n >= i {
			continue
		}
		if rec == &r.prev && r.prev.n+1 != r.cur.n {
			continue // not a kept record
		}
		for _, s := range r.slots(rec) {
			l := s.l
			if !e.liveSlot(s, now) {
				continue
			}
			if l.owner != o {
				return false, rec.n, l
			}
			if !keptAfter(r, rec, i) && !e.coveredAfter(r, l, i, now) {
				return false, rec.n, l
			}
		}
	}
	return true, 0, noLease
}

// coveredAfter reports whether a live lease of l.owner, ending no earlier
// than l, stays known after a move to instance i.
func (e *Node) coveredAfter(r *rstate, l lease, i uint64, now algorithms.Local) bool {
	if r.cur.n+1 != i {
		return false
	}
	for _, s := range r.slots(&r.cur) {
		if s.l.owner == l.owner && s.l.t >= l.t && e.liveSlot(s, now) {
			return true
		}
	}
	return false
}

// mayDrop reports whether a move to instance i (for a learned lease keep,
// or a catch-up / invalidation with keep = noLease) forgets nothing that
// may still be valid. A node never forgets a live lease of a lower instance
// unless the owner's later lease replaces it: that is the same rule as the
// guard, applied to learning.
func (e *Node) mayDrop(r *rstate, i uint64, keep lease, now algorithms.Local) bool {
	ok, _ := e.dropBlock(r, i, keep, now)
	return ok
}

// dropBlock is mayDrop that also says until when (local time) the leases
// in the way may be valid.
func (e *Node) dropBlock(r *rstate, i uint64, keep lease, now algorithms.Local) (ok bool, until algorithms.Local) {
	if e.noPrevCheck {
		return true, 0
	}
	ok = true
	for _, rec := range [2]*instance{&r.prev, &r.cur} {
		if rec.n == 0 || keptAfter(r, rec, i) {
			continue
		}
		for _, s := range r.slots(rec) {
			l := s.l
			if !e.liveSlot(s, now) {
				continue
			}
			if keep.owner == l.owner && keep.t >= l.t {
				continue
			}
			if e.coveredAfter(r, l, i, now) {
				continue
			}
			ok = false
			if u := e.overAt(l); u > until {
				until = u
			}
		}
	}
	return ok, until
}

// acceptorReply builds the skeleton of an answer to m.
func (e *Node) acceptorReply(m algorithms.Message, k algorithms.Kind) algorithms.Message {
	return algorithms.Message{
		Kind: k, From: e.id, To: m.From, Owner: algorithms.NoNode,
		Resource: m.Resource, Ballot: m.Ballot, Instance: m.Instance,
	}
}

// outdated answers a message for an instance this acceptor no longer
// keeps: Instance is its current instance, with the chosen lease if known
// so the proposer can learn it at once.
func (e *Node) outdated(r *rstate, m algorithms.Message) algorithms.Message {
	rep := e.acceptorReply(m, algorithms.Outdated)
	rep.Instance = r.cur.n
	if !r.cur.lrn.none() {
		rep.Flags |= FlagChosen
		rep.Owner, rep.Expiry, rep.Accepted = r.cur.lrn.owner, r.cur.lrn.t, r.cur.lrnBal
		if r.lrnVoid(&r.cur) {
			rep.Flags |= FlagVoid
		}
	}
	return rep
}

// lowerReject answers a proposal blocked by the guard: Instance is the
// lower instance whose lease may still be valid, Owner/Expiry that lease.
func (e *Node) lowerReject(m algorithms.Message, inst uint64, l lease) algorithms.Message {
	rep := e.acceptorReply(m, algorithms.Outdated)
	rep.Flags |= FlagLower
	rep.Instance = inst
	rep.Owner, rep.Expiry = l.owner, l.t
	return rep
}

// persist records the durable part of rec (classic Paxos only): every
// Promise and Accepted carries the record of the state it reports.
func (e *Node) persist(id algorithms.ResourceID, rec *instance, out *algorithms.Output) {
	if !e.durable {
		return
	}
	out.Persist = append(out.Persist, algorithms.Record{
		Resource: id, Instance: rec.n, Promised: rec.promised,
		Accepted: rec.accBal, Owner: rec.acc.owner, Expiry: rec.acc.t,
	})
	if e.noSync {
		out.NoSync = true
	}
}

// onPrepare is the acceptor's UPON PREPARE(b, i).
func (e *Node) onPrepare(now algorithms.Local, r *rstate, m algorithms.Message, out *algorithms.Output) algorithms.Message {
	i := m.Instance
	rec := r.record(i)
	if rec == nil && i < r.cur.n {
		return e.outdated(r, m) // the proposer missed instances
	}
	if ok, bi, bl := e.guard(r, i, m.Ballot.Node(), now); !ok {
		return e.lowerReject(m, bi, bl)
	}
	if rec == nil { // i > cur.n: this acceptor missed instances
		r.advance(i, now)
		e.grantChanged(now, m.Resource, r, out)
		rec = &r.cur
	}
	if m.Ballot < rec.promised {
		rep := e.acceptorReply(m, algorithms.PrepareReject)
		rep.Promised = rec.promised
		return rep
	}
	rec.promised = m.Ballot
	e.persist(m.Resource, rec, out)
	rep := e.acceptorReply(m, algorithms.Promise)
	if !rec.lrn.none() {
		// The outcome is known: say so, the proposer need not go on.
		rep.Flags |= FlagChosen
		rep.Owner, rep.Expiry, rep.Accepted = rec.lrn.owner, rec.lrn.t, rec.lrnBal
		if r.lrnVoid(rec) {
			rep.Flags |= FlagVoid
		}
		return rep
	}
	if !rec.acc.none() {
		rep.Accepted, rep.Owner, rep.Expiry = rec.accBal, rec.acc.owner, rec.acc.t
	}
	return rep
}

// onPropose is the acceptor's UPON ACCEPT(λ, i, b).
func (e *Node) onPropose(now algorithms.Local, r *rstate, m algorithms.Message, out *algorithms.Output) algorithms.Message {
	i := m.Instance
	val := lease{owner: m.Owner, t: m.Expiry}
	rec := r.record(i)
	if rec == nil && i < r.cur.n {
		return e.outdated(r, m)
	}
	if rec == &r.prev && rec.acc != val && rec.lrn != val {
		// The previous instance is kept to be consulted, not to decide
		// anew: no new value is accepted in it.
		return e.outdated(r, m)
	}
	if e.over(val, now) {
		// A proposal whose lease is already over (a message from long
		// ago, or an adopted stale value) can only do harm: it could
		// overwrite a live accepted lease that the guard relies on.
		rep := e.outdated(r, m)
		rep.Flags |= FlagStale
		rep.Instance = i
		return rep
	}
	if ok, bi, bl := e.guard(r, i, val.owner, now); !ok {
		return e.lowerReject(m, bi, bl)
	}
	if rec == nil {
		r.advance(i, now)
		rec = &r.cur
	}
	if m.Ballot < rec.promised {
		rep := e.acceptorReply(m, algorithms.ProposeReject)
		rep.Promised = rec.promised
		e.grantChanged(now, m.Resource, r, out)
		return rep
	}
	rec.promised, rec.accBal, rec.acc, rec.accVoid = m.Ballot, m.Ballot, val, r.void(val)
	e.persist(m.Resource, rec, out)
	e.grantChanged(now, m.Resource, r, out)
	return e.acceptorReply(m, algorithms.Accepted)
}

// grantChanged emits Granted / Cleared when the lease this acceptor has
// accepted (the live one ending last) changes. Until is when this acceptor
// stops counting it as possibly valid (t + d_max for another's lease).
func (e *Node) grantChanged(now algorithms.Local, id algorithms.ResourceID, r *rstate, out *algorithms.Output) {
	if !e.isAcceptor {
		return
	}
	g := noLease
	for _, rec := range [2]*instance{&r.prev, &r.cur} {
		if rec.n == 0 || (rec == &r.prev && r.prev.n+1 != r.cur.n) {
			continue
		}
		if s := r.slots(rec)[0]; e.liveSlot(s, now) && (g.none() || rec.acc.t > g.t) {
			g = rec.acc
		}
	}
	if g == r.granted {
		return
	}
	old := r.granted
	r.granted = g
	if g.none() {
		out.Emit(algorithms.Event{Kind: algorithms.Cleared, Resource: id, Owner: old.owner})
		return
	}
	out.Emit(algorithms.Event{Kind: algorithms.Granted, Resource: id, Owner: g.owner, Until: e.overAt(g)})
}

// learn records that lease l was chosen in instance i (LEARN, or a reply
// that reports a chosen lease). It reports whether the node's knowledge
// changed.
func (e *Node) learn(now algorithms.Local, id algorithms.ResourceID, r *rstate, i uint64, l lease, b algorithms.Ballot, out *algorithms.Output) bool {
	if i == 0 || l.none() {
		return false
	}
	rec := r.record(i)
	if rec == nil {
		if i < r.cur.n || !e.mayDrop(r, i, l, now) {
			return false
		}
		r.advance(i, now)
		e.grantChanged(now, id, r, out)
		rec = &r.cur
	}
	if rec.lrn == l {
		return false
	}
	rec.lrn, rec.lrnBal, rec.lrnVoid = l, b, r.void(l)
	return true
}

// catchUp moves to instance i reported by an Outdated answer, if nothing
// live would be forgotten; else it says until when to wait.
func (e *Node) catchUp(now algorithms.Local, id algorithms.ResourceID, r *rstate, i uint64, out *algorithms.Output) (bool, algorithms.Local) {
	if i <= r.cur.n {
		return false, 0
	}
	if ok, until := e.dropBlock(r, i, noLease, now); !ok {
		return false, until
	}
	r.advance(i, now)
	e.grantChanged(now, id, r, out)
	return true, 0
}

// invalidated applies INV: owner o gave up every lease of its ending no
// later than t; i is the instance of its lease. Receivers move on to
// instance i+1, so the next proposal needs one negotiation only.
func (e *Node) invalidated(now algorithms.Local, id algorithms.ResourceID, r *rstate, i uint64, o algorithms.NodeID, t algorithms.Local, out *algorithms.Output) {
	e.noteInvalid(r, o, t)
	if i >= r.cur.n && i > 0 && e.mayDrop(r, i+1, noLease, now) {
		r.advance(i+1, now)
		if r.prev.lrn.none() {
			// Instance i's chosen lease was o's (only a holder
			// invalidates), and it is void now.
			r.prev.lrn, r.prev.lrnVoid = lease{owner: o, t: t}, true
		}
	}
	e.grantChanged(now, id, r, out)
}
