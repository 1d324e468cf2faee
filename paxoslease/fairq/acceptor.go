package fairq

import (
	"time"

	"leaselab/algorithms"
)

// rec returns the acceptor's record of r, making an empty one.
func (n *Node) rec(r algorithms.ResourceID) *record {
	a := n.recs[r]
	if a == nil {
		a = &record{}
		n.recs[r] = a
	}
	return a
}

// tidyRecord forgets a record with neither a lease nor a queue.
func (n *Node) tidyRecord(r algorithms.ResourceID, a *record) {
	if a.ballot == 0 && len(a.queue) == 0 && a.seq == 0 {
		delete(n.recs, r)
	}
}

// onRequest is the acceptor's answer to a request: a free acceptor
// grants, the owner of the record is granted again (a later ballot of
// the same proposer renews it), anyone else is queued and told whose
// record is in the way.
func (n *Node) onRequest(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	c := n.rules
	b := m.Ballot
	if b == 0 || b.Node() != m.From || !c.cluster.IsProposer(m.From) {
		return // malformed: a request names a ballot of its sender
	}
	r := m.Resource
	a := n.rec(r)
	a.seq = max(a.seq, m.Instance)
	n.lapse(now, r, a, out)
	switch {
	case a.ballot == 0:
		n.grant(now, r, a, b, out)
	case c.sameOwner(a.ballot, b) && b == a.ballot:
		n.sendGrant(r, a, out) // a duplicate: the same grant again, its timer untouched
	case c.sameOwner(a.ballot, b) && b < a.ballot:
		// A request the owner has moved past.
	case c.sameOwner(a.ballot, b) && a.ballot > m.Promised:
		// The owner extends, or asks again in the same acquisition
		// (above its floor: it released nothing up to the record's
		// ballot): renewed from now.
		n.grant(now, r, a, b, out)
	default:
		// Another proposer, or the owner asking anew after releasing this
		// record (at or below its floor): the release may still be on its
		// way, and a request that overtook it must not win the record
		// back past the successor the release names. It waits in the
		// queue.
		if m.Flags&FlagExtend == 0 {
			a.enqueue(b)
		}
		out.Send(algorithms.Message{Kind: KindQueued, From: c.id, To: m.From, Owner: a.ballot.Node(), Resource: r,
			Ballot: b, Accepted: a.ballot, Span: int64(a.timeLeft(now)), Instance: a.seq})
		if !a.told && len(a.queue) > 0 {
			a.told = true
			out.Send(algorithms.Message{Kind: KindNext, From: c.id, To: a.ballot.Node(), Owner: a.ballot.Node(), Resource: r,
				Ballot: a.ballot, Accepted: a.queue[0]})
		}
	}
}

// onRelease clears the sender's record if the release covers it, takes
// the sender out of the queue, and hands a free record on: to the
// successor the release names, else to the head of the queue.
func (n *Node) onRelease(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	c := n.rules
	b := m.Ballot
	if b == 0 || b.Node() != m.From || !c.cluster.IsProposer(m.From) {
		return
	}
	r := m.Resource
	a := n.recs[r]
	if a == nil {
		if m.Accepted == 0 && m.Instance == 0 {
			return // nothing to clear, nobody to hand on to, no number to learn
		}
		a = n.rec(r)
	}
	// The releaser's token: every grant from now on is numbered above it.
	a.seq = max(a.seq, m.Instance)
	n.lapse(now, r, a, out)
	a.withdraw(b)
	switch {
	case a.ballot != 0 && c.sameOwner(a.ballot, b) && (a.ballot <= b || !c.ballotBound):
		n.clear(r, a, out)
		n.handOn(now, r, a, m.Accepted, out)
	case a.ballot == 0:
		n.handOn(now, r, a, m.Accepted, out)
	case !c.keepOthers && m.Accepted != 0:
		// Ablated keep-others: the named successor takes the record
		// whoever holds it.
		n.handOn(now, r, a, m.Accepted, out)
	}
	n.tidyRecord(r, a)
}

// handOn gives a free record to next (a release's named successor), or,
// with none named, to the first proposer in the queue.
func (n *Node) handOn(now algorithms.Local, r algorithms.ResourceID, a *record, next algorithms.Ballot, out *algorithms.Output) {
	if next != 0 && n.named && n.cluster.IsProposer(next.Node()) {
		// The successor may have asked again since the releaser heard of
		// it: its latest request here gives it the longer hold.
		for _, e := range a.queue {
			if algorithms.SameProposer(e, next) && e > next {
				next = e
			}
		}
		n.grant(now, r, a, next, out)
		return
	}
	if len(a.queue) > 0 {
		n.grant(now, r, a, a.queue[0], out)
	}
}

// grant makes b's proposer the record's owner for T from now on this
// acceptor's clock and tells it so. The caller has checked keep-others:
// the record was free or already b's proposer's.
func (n *Node) grant(now algorithms.Local, r algorithms.ResourceID, a *record, b algorithms.Ballot, out *algorithms.Output) {
	a.seq++
	a.ballot = b
	a.until = now.Add(n.params.LeaseSpan)
	a.remove(b.Node())
	out.SetTimer(algorithms.TimerKey{Resource: r, Kind: timerRecord}, a.until)
	out.Emit(algorithms.Event{Kind: algorithms.Granted, Resource: r, Owner: b.Node(), Ballot: b, Until: a.until})
	n.sendGrant(r, a, out)
}

// sendGrant tells the record's owner it has it, naming the first waiter
// behind it (the successor its release should name).
func (n *Node) sendGrant(r algorithms.ResourceID, a *record, out *algorithms.Output) {
	var head algorithms.Ballot
	if len(a.queue) > 0 {
		head = a.queue[0]
		a.told = true
	} else {
		a.told = false
	}
	out.Send(algorithms.Message{Kind: KindGrant, From: n.id, To: a.ballot.Node(), Owner: a.ballot.Node(), Resource: r,
		Ballot: a.ballot, Accepted: head, Span: int64(n.params.LeaseSpan), Instance: a.seq})
}

// clear ends the record's lease (the timer is cancelled).
func (n *Node) clear(r algorithms.ResourceID, a *record, out *algorithms.Output) {
	out.Emit(algorithms.Event{Kind: algorithms.Cleared, Resource: r, Owner: a.ballot.Node(), Ballot: a.ballot})
	out.CancelTimer(algorithms.TimerKey{Resource: r, Kind: timerRecord})
	a.ballot, a.until, a.told = 0, 0, false
}

// lapse ends a record whose time is up (its timer may not have fired
// yet at this instant) and hands it on to the head of the queue.
func (n *Node) lapse(now algorithms.Local, r algorithms.ResourceID, a *record, out *algorithms.Output) {
	if a.ballot == 0 || now < a.until {
		return
	}
	n.clear(r, a, out)
	n.handOn(now, r, a, 0, out)
}

// enqueue puts b's node at the back of the queue, or, when the node is
// queued already, keeps its place with the later of the two ballots (a
// later life, or a later request of the same life).
func (a *record) enqueue(b algorithms.Ballot) {
	for i, e := range a.queue {
		if e.Node() == b.Node() {
			if later(b, e) {
				a.queue[i] = b
			}
			return
		}
	}
	a.queue = append(a.queue, b)
}

// later reports whether b was made after e by the same node: in a later
// life, or later in the same one.
func later(b, e algorithms.Ballot) bool {
	if b.Restart() != e.Restart() {
		return b.Restart() > e.Restart()
	}
	return b > e
}

// remove takes node out of the queue.
func (a *record) remove(node algorithms.NodeID) {
	for i, e := range a.queue {
		if e.Node() == node {
			a.queue = append(a.queue[:i], a.queue[i+1:]...)
			return
		}
	}
}

// withdraw takes the queue entry of b's proposer out if it is not later
// than b: its proposer released b and everything before it.
func (a *record) withdraw(b algorithms.Ballot) {
	for i, e := range a.queue {
		if algorithms.SameProposer(e, b) && e <= b {
			a.queue = append(a.queue[:i], a.queue[i+1:]...)
			return
		}
	}
}

// timeLeft is what a queued answer reports: the record's time left.
func (a *record) timeLeft(now algorithms.Local) time.Duration { return a.until.Sub(now) }
