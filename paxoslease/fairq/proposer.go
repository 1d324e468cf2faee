package fairq

import (
	"time"

	"leaselab/algorithms"
)

// holds reports whether p holds its lease at local time now.
func (p *proposal) holds(now algorithms.Local) bool { return p.holding && now < p.holdUntil }

// live reports whether a grant of b may still be counted: b was not
// released (dead-ballots).
func (n *Node) live(p *proposal, b algorithms.Ballot) bool {
	return b != 0 && (b > p.dead || !n.deadBallots)
}

func (n *Node) acquire(now algorithms.Local, r algorithms.ResourceID, out *algorithms.Output) {
	c := n.rules
	if !c.cluster.IsProposer(c.id) {
		// Not a proposer: the request cannot be served; say so rather
		// than ignore it.
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: r, Owner: c.id})
		return
	}
	if n.quarantined {
		for _, d := range n.deferred {
			if d == r {
				return
			}
		}
		n.deferred = append(n.deferred, r)
		return
	}
	p := n.props[r]
	if p != nil && p.holds(now) {
		// Already the holder, an extension in flight or not: the answer
		// is the lease it holds (a client that lost track of it, or asks
		// again, still gets one).
		out.Emit(algorithms.Event{Kind: algorithms.Acquired, Resource: r, Owner: n.id, Ballot: p.holdBallot, Until: p.holdUntil, Token: p.token})
		return
	}
	if p != nil && p.phase != idle {
		// Already trying, one acquisition at a time: its Acquired or
		// Failed answers this request too. A hold that ended on our
		// clock, its timer not yet fired, ends here as the timer would
		// end it: an extension that then fails is a failed acquisition
		// (Failed), not a failed extension of a hold that stands (no
		// event).
		if p.holding {
			n.endHold(r, p, out)
		}
		return
	}
	if p != nil {
		// A hold that ended on our clock, its timer not yet fired.
		n.endHold(r, p, out)
	}
	// Every ballot this node made before is released (or another
	// resource's): this acquisition counts none of them, and its
	// requests ask the acceptors to renew none of their records.
	p = &proposal{dead: n.lastBallot()}
	n.props[r] = p
	n.request(now, r, p, false, out)
}

// lastBallot is the last ballot this node made (0: none yet).
func (n *Node) lastBallot() algorithms.Ballot {
	if n.counter == 0 {
		return 0
	}
	return algorithms.MakeBallot(n.counter, n.restarts, n.id)
}

// extend starts an extension: a request of the holder, which the
// acceptors that keep its record renew.
func (n *Node) extend(now algorithms.Local, r algorithms.ResourceID, out *algorithms.Output) {
	if n.quarantined {
		return // a restarted node holds nothing to extend
	}
	p := n.props[r]
	if p != nil && p.phase != idle {
		return
	}
	if p == nil || !p.holds(now) {
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: r, Owner: n.id})
		return
	}
	p.extend = true
	p.fails = 0
	n.request(now, r, p, false, out)
}

// relinquish releases: the holder stops believing first (Lost, which
// takes effect before any message leaves), then the release clears its
// records at every acceptor and names its successor. An acquisition in
// progress is withdrawn the same way.
func (n *Node) relinquish(now algorithms.Local, r algorithms.ResourceID, out *algorithms.Output) {
	if n.quarantined {
		for i, d := range n.deferred {
			if d == r {
				n.deferred = append(n.deferred[:i], n.deferred[i+1:]...)
				break
			}
		}
		return
	}
	p := n.props[r]
	if p == nil {
		return
	}
	if p.holds(now) {
		out.Emit(algorithms.Event{Kind: algorithms.Lost, Resource: r, Owner: n.id, Ballot: p.holdBallot})
	}
	if p.holding || p.phase != idle {
		n.releaseAll(r, p, out)
	}
	out.CancelTimer(algorithms.TimerKey{Resource: r, Kind: timerProposer})
	out.CancelTimer(algorithms.TimerKey{Resource: r, Kind: timerHold})
	delete(n.props, r)
}

// endHold: the hold is over on our clock (the runner saw Until, no event
// is due). With no request in flight the proposer releases at once,
// naming its successor, so the lease moves on now rather than when the
// records lapse; an extension in flight may still win, so then it waits.
func (n *Node) endHold(r algorithms.ResourceID, p *proposal, out *algorithms.Output) {
	p.holding = false
	out.CancelTimer(algorithms.TimerKey{Resource: r, Kind: timerHold})
	if p.phase != idle {
		return
	}
	n.releaseAll(r, p, out)
	delete(n.props, r)
}

// releaseAll sends the release of the latest ballot (which covers every
// earlier one of this life) to every acceptor, naming the successor.
func (n *Node) releaseAll(r algorithms.ResourceID, p *proposal, out *algorithms.Output) {
	for a := 0; a < n.cluster.Acceptors; a++ {
		n.release(r, p, algorithms.NodeID(a), p.cur, p.succ, out)
	}
}

// release sends one release of b, naming next; from then on no ballot up
// to b counts (dead-ballots).
func (n *Node) release(r algorithms.ResourceID, p *proposal, to algorithms.NodeID, b, next algorithms.Ballot, out *algorithms.Output) {
	if b == 0 {
		return
	}
	if p != nil {
		p.dead = max(p.dead, b)
	}
	out.Send(algorithms.Message{Kind: KindRelease, From: n.id, To: to, Owner: n.id, Resource: r, Ballot: b, Accepted: next, Instance: n.seen[r]})
}

// request sends a fresh request to every acceptor. carry keeps the
// request it replaces (unless released) as prev, so that a grant handed
// on for it still counts: the acquisition goes on under a new ballot.
func (n *Node) request(now algorithms.Local, r algorithms.ResourceID, p *proposal, carry bool, out *algorithms.Output) {
	c := n.rules
	var flags uint8
	if p.extend {
		flags = FlagExtend
	}
	if carry && n.live(p, p.cur) {
		p.prev, p.prevAt, p.prevMsgs, p.prevNum = p.cur, p.curAt, p.curMsgs, p.curNum
		p.prevVotes, p.curVotes = p.curVotes, p.prevVotes
	} else {
		p.prev, p.prevAt, p.prevMsgs, p.prevNum = 0, 0, 0, 0
		p.prevVotes.Reset()
	}
	// Waiters reported before this request may have been served since:
	// the successor is learned afresh from the answers to it.
	p.succ = 0
	n.counter++
	p.cur = algorithms.MakeBallot(n.counter, c.restarts, c.id)
	p.curAt = now
	p.curVotes.Reset()
	p.curMsgs, p.curNum = 0, 0
	if p.reports == nil {
		p.reports = make([]algorithms.Ballot, c.cluster.Acceptors)
	}
	clear(p.reports)
	p.span = 0
	p.phase = collecting
	out.Emit(algorithms.Event{Kind: algorithms.Round, Resource: r, Owner: c.id, Ballot: p.cur})
	for a := 0; a < c.cluster.Acceptors; a++ {
		out.Send(algorithms.Message{Kind: KindRequest, Flags: flags, From: c.id, To: algorithms.NodeID(a), Owner: c.id,
			Resource: r, Ballot: p.cur, Promised: p.dead, Span: int64(c.params.LeaseSpan), Instance: n.seen[r]})
	}
	out.SetTimer(algorithms.TimerKey{Resource: r, Kind: timerProposer}, now.Add(c.params.ResponseTimeout))
}

// onGrant counts a grant of the current or the previous request; any
// other grant is given back (declined), except by a holder.
func (n *Node) onGrant(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	c := n.rules
	b := m.Ballot
	if m.Owner != c.id || b == 0 || b.Node() != c.id {
		return // a grant names a ballot of its addressee
	}
	r := m.Resource
	p := n.props[r]
	n.learn(r, m.Instance)
	if p != nil && c.mine(b) && p.phase != idle && n.live(p, b) && (b == p.cur || b == p.prev) {
		if m.Accepted != 0 && m.Accepted.Node() != c.id {
			p.succ = m.Accepted
		}
		n.count(now, r, p, m.From, b == p.prev, m.Instance, out)
		return
	}
	if p != nil && p.holding && c.holdGuard {
		return // a holder releases nothing: the grant's record is its own and ends with its release
	}
	// A grant nobody will use (an earlier request, an earlier life, an
	// acquisition given up): give it back, naming nobody, so the acceptor
	// hands it to its next waiter.
	n.release(r, p, m.From, b, 0, out)
}

// count counts acceptor a's grant of cur (or prev) and holds once the
// acceptors that granted either make a majority. Both are this
// proposer's requests, and every grant started its record after its own
// request left, so the hold counts from the earlier of the two requests
// whose grants it uses. num is the lease number the grant reports.
func (n *Node) count(now algorithms.Local, r algorithms.ResourceID, p *proposal, a algorithms.NodeID, prev bool, num uint64, out *algorithms.Output) {
	c := n.rules
	if prev {
		p.prevVotes.Add(a)
		p.prevMsgs++
		p.prevNum = max(p.prevNum, num)
		p.reports[a] = p.prev
	} else {
		p.curVotes.Add(a)
		p.curMsgs++
		p.curNum = max(p.curNum, num)
		p.reports[a] = p.cur
	}
	b, at, got, top := p.cur, p.curAt, p.curVotes.Len(), p.curNum
	if !c.distinct {
		got = p.curMsgs
	}
	if got < c.cluster.Majority() && n.live(p, p.prev) && p.prevMsgs > 0 {
		b, at, top = p.prev, p.prevAt, max(p.curNum, p.prevNum)
		got = algorithms.CountOf(&p.curVotes, &p.prevVotes, &p.prevVotes, func(x, y, _ uint64) uint64 { return x | y })
		if !c.distinct {
			got = p.curMsgs + p.prevMsgs
		}
	}
	if got >= c.cluster.Majority() {
		if !c.earlyTimer {
			at = now // ablated late-timer: from the majority's arrival
		}
		if until := at.Add(c.hold); until > now {
			n.acquired(r, p, b, until, top, out)
			return
		}
		// The hold these grants give is over already (a request older
		// than the hold, handed on late): wait for a later one.
	}
	switch p.phase {
	case collecting:
		n.resolve(now, r, p, false, out)
	case parked:
		// Part of a hand-off has come: the rest should follow within a
		// round trip. If it does not (lost, or the acceptors' records
		// went different ways), ask again after ResponseTimeout for a
		// fresh view rather than sleep until the park ends.
		p.phase = waiting
		out.SetTimer(algorithms.TimerKey{Resource: r, Kind: timerProposer}, now.Add(c.params.ResponseTimeout))
	}
}

// acquired: p holds b's lease until until. Its fencing token is the
// highest lease number its counted grants report (top), and an
// extension's is never below the hold's before it.
func (n *Node) acquired(r algorithms.ResourceID, p *proposal, b algorithms.Ballot, until algorithms.Local, top uint64, out *algorithms.Output) {
	tok := algorithms.Token{Major: top, Minor: uint64(b)}
	if p.holding && tok.Less(p.token) {
		tok = p.token
	}
	p.token = tok
	p.holding = true
	p.holdBallot = b
	p.holdUntil = until
	p.phase = idle
	p.extend = false
	p.fails = 0
	out.CancelTimer(algorithms.TimerKey{Resource: r, Kind: timerProposer})
	out.SetTimer(algorithms.TimerKey{Resource: r, Kind: timerHold}, until)
	out.Emit(algorithms.Event{Kind: algorithms.Acquired, Resource: r, Owner: n.id, Ballot: b, Until: until, Token: tok})
}

// onQueued notes whose record an acceptor reported for the current
// request.
func (n *Node) onQueued(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	r := m.Resource
	p := n.props[r]
	if p == nil || p.phase == idle || m.Ballot != p.cur || m.Accepted == 0 {
		return
	}
	n.learn(r, m.Instance)
	if b := m.Accepted; n.mine(b) && n.live(p, b) && (b == p.prev || b == p.cur) {
		// The record in the way is our own earlier request's grant (its
		// answer was lost): it counts as that grant.
		n.count(now, r, p, m.From, b == p.prev, m.Instance, out)
		return
	}
	p.reports[m.From] = m.Accepted
	if d := time.Duration(m.Span); d > p.span {
		p.span = d
	}
	if p.phase == collecting {
		n.resolve(now, r, p, false, out)
	}
}

// onNext: an acceptor names the first waiter behind our record.
func (n *Node) onNext(m *algorithms.Message) {
	if p := n.props[m.Resource]; p != nil && n.mine(m.Ballot) && m.Accepted != 0 && m.Accepted.Node() != n.id {
		p.succ = m.Accepted
	}
}

// resolve reads the acceptors' answers to the current request (not of an
// extension). When another proposer's records make a majority, the
// proposer parks: it is queued and waits for the lease to be handed to
// it. When every acceptor answered (or the round timed out, final) and
// nobody can make a majority, the grants are split: the lowest ballot
// reported wins, and every other proposer that holds some of the grants
// passes them on to it and asks again. It reports whether the proposal
// left the collecting phase.
func (n *Node) resolve(now algorithms.Local, r algorithms.ResourceID, p *proposal, final bool, out *algorithms.Output) bool {
	c := n.rules
	if p.holding || p.extend {
		return false
	}
	maj := c.cluster.Majority()
	answered, own := 0, 0
	var low algorithms.Ballot
	for i, rb := range p.reports {
		if rb == 0 {
			continue
		}
		answered++
		switch {
		case algorithms.SameProposer(rb, p.cur) && rb <= p.dead:
			// A record of ours that we released (our request overtook
			// the release): it goes to the successor the release names,
			// nobody we know.
			continue
		case algorithms.SameProposer(rb, p.cur):
			own++
		case n.tally(p, i) >= maj:
			n.park(now, r, p, out)
			return true
		}
		if low == 0 || rb < low {
			low = rb
		}
	}
	if answered < c.cluster.Acceptors && !final {
		return false
	}
	switch {
	case own == 0 && answered > 0:
		n.park(now, r, p, out)
		return true
	case own == 0, low == 0, algorithms.SameProposer(low, p.cur):
		return false // no answers, or the others pass to us: wait
	}
	// Split, and another proposer has the lowest ballot: pass our
	// grants on to it and ask again, to wait in the queue.
	out.Emit(algorithms.Event{Kind: algorithms.Preempted, Resource: r, Owner: low.Node(), Ballot: low})
	b := p.cur
	for i := 0; i < c.cluster.Acceptors; i++ {
		a := algorithms.NodeID(i)
		if p.curVotes.Has(a) || p.prevVotes.Has(a) {
			n.release(r, p, a, b, low, out)
		}
	}
	n.request(now, r, p, true, out)
	return true
}

// tally counts the acceptors whose report names the proposer of
// reports[i].
func (n *Node) tally(p *proposal, i int) int {
	k := 0
	for _, rb := range p.reports {
		if algorithms.SameProposer(rb, p.reports[i]) {
			k++
		}
	}
	return k
}

// park: the proposer is queued behind a lease, which is no lost round
// (no Preempted: the lease is validly held, and it will be handed on to
// the queue). It wakes to ask
// again (a new ballot, keeping its place in the queues) a response time
// after the longest time left reported runs out, or, if sooner, halfway through the hold
// its current request could give, so that a hand-off always finds a
// request young enough to hold on.
func (n *Node) park(now algorithms.Local, r algorithms.ResourceID, p *proposal, out *algorithms.Output) {
	c := n.rules
	p.phase = parked
	// Past the reported end, the lapse has had a response time to hand
	// the record on to us.
	wake := now.Add(max(p.span, 0) + c.params.ResponseTimeout)
	if refresh := p.curAt.Add(c.hold / 2); refresh < wake {
		wake = refresh
	}
	if wake <= now {
		wake = now.Add(c.params.ResponseTimeout)
	}
	out.SetTimer(algorithms.TimerKey{Resource: r, Kind: timerProposer}, wake)
}

// failRound ends a request that got no majority within ResponseTimeout:
// another after a random backoff, or, after MaxRounds, the acquisition
// is given up (Failed) and withdrawn. An extension that fails leaves the
// hold as it is.
func (n *Node) failRound(now algorithms.Local, r algorithms.ResourceID, p *proposal, out *algorithms.Output) {
	c := n.rules
	p.fails++
	key := algorithms.TimerKey{Resource: r, Kind: timerProposer}
	if p.holding && !c.holdGuard {
		// Ablated hold-guard: the failed extension is given back like
		// any failed round.
		n.releaseAll(r, p, out)
	}
	if p.fails >= c.params.MaxRounds {
		out.CancelTimer(key)
		p.phase = idle
		p.extend = false
		if p.holding {
			return // the extension is over; the hold stands
		}
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: r, Owner: c.id, Ballot: p.cur})
		n.releaseAll(r, p, out)
		delete(n.props, r)
		return
	}
	var wait time.Duration
	if c.params.Backoff > 0 {
		wait = time.Duration(n.rnd.Int64N(int64(c.params.Backoff) + 1))
	}
	if wait == 0 {
		n.request(now, r, p, true, out)
		return
	}
	p.phase = waiting
	out.SetTimer(key, now.Add(wait))
}

// learn notes a lease number an acceptor reported.
func (n *Node) learn(r algorithms.ResourceID, num uint64) {
	if num > n.seen[r] {
		n.seen[r] = num
	}
}
