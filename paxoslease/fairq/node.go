package fairq

import (
	"math/rand/v2"
	"time"

	"leaselab/algorithms"
)

// Timer kinds. One proposer timer per resource serves the phases of an
// acquisition (answers due, woken from the queue, backoff over): a
// proposal is in one of them at a time.
const (
	timerRecord     uint8 = 1 // acceptor: the record on Resource lapses
	timerProposer   uint8 = 2 // proposer: see phase
	timerHold       uint8 = 3 // proposer: its hold ends
	timerQuarantine uint8 = 4 // a restarted acceptor's silence ends (Resource 0)
)

// phase is where a proposal's acquisition (or extension) stands.
type phase uint8

const (
	idle       phase = iota // no request in flight (it may hold)
	collecting              // a request is out: answers are counted; the timer is ResponseTimeout
	parked                  // queued behind another proposer's lease; the timer wakes it to ask again
	waiting                 // backing off before the next request
)

// rules is what a node is configured with: set by New, fixed for its
// life and shared by every clone the explorer makes of it, so neither
// Clone nor AppendState looks at it (but for the id and restart counter,
// which AppendState writes).
type rules struct {
	id       algorithms.NodeID
	cluster  algorithms.Cluster
	params   algorithms.Params
	restarts uint16

	// Rules, true unless ablated.
	restartWait  bool // a restarted acceptor keeps silent for the quarantine
	earlyTimer   bool // a lease counts from its request's send (late-timer)
	distinct     bool // grants counted by acceptor (count-by-message)
	ballotBound  bool // a release clears only records at or below its ballot (owner-only-release)
	lifeIdentity bool // owners are proposers (node, restart), not nodes (cross-life-ballots)
	keepOthers   bool // a named successor never overwrites another's live record
	deadBallots  bool // a released ballot's grants are never counted
	holdGuard    bool // a holder sends no release
	named        bool // a release names the successor (named-successor, liveness)

	hold       time.Duration // HoldSpan, or T with drift-margin ablated
	quarantine time.Duration // Quarantine
}

// Node is one fairq node: an acceptor if its id is below
// Cluster.Acceptors, a proposer if below Cluster.Proposers, possibly both.
type Node struct {
	*rules
	rnd *rand.Rand

	quarantined bool
	deferred    []algorithms.ResourceID // acquisitions asked for during the quarantine, in order

	counter uint32                              // run counter of this node's ballots, over every resource
	recs    map[algorithms.ResourceID]*record   // acceptor state
	props   map[algorithms.ResourceID]*proposal // proposer state
	// seen: per resource, the highest lease number an acceptor reported
	// to this proposer in its life; its requests and releases carry it,
	// so that the acceptors' numbers keep in step (and a restarted
	// acceptor's catch up) across acquisitions.
	seen map[algorithms.ResourceID]uint64
}

var _ algorithms.Node = (*Node)(nil)

// record is an acceptor's state for one resource: the lease it granted
// (ballot 0: none) and the proposers queued behind it, in the order
// their requests arrived, one entry per node. It is dropped when both
// are empty and it has granted nothing (seq 0).
type record struct {
	// seq: the highest lease number this acceptor has granted or heard of
	// on the resource (kept while the record is empty, forgotten at a
	// restart); each grant takes the next one, and its proposer's fencing
	// token is the highest its counted grants report.
	seq    uint64
	ballot algorithms.Ballot // the record's ballot; its owner is ballot.Node()
	until  algorithms.Local  // when the record lapses, on this acceptor's clock
	told   bool              // the owner has been told a waiter (in its grant or by KindNext)
	queue  []algorithms.Ballot
}

// proposal is a proposer's state for one resource: an acquisition or an
// extension under way, and the hold. It is dropped when the proposer
// neither holds nor tries.
type proposal struct {
	phase   phase
	extend  bool // the request in flight is an extension
	holding bool // holds holdBallot's lease until holdUntil (checked against now)

	// The latest request (cur) and the one before it in the same
	// acquisition (prev), with when each left and the acceptors that
	// granted it: a grant handed on from the queue may echo either.
	cur, prev           algorithms.Ballot
	curAt, prevAt       algorithms.Local
	curVotes, prevVotes algorithms.NodeSet
	curMsgs, prevMsgs   int    // grants counted by message (count-by-message ablation)
	curNum, prevNum     uint64 // the highest lease number among the grants counted for each

	token algorithms.Token // the fencing token of the hold

	// reports[a] is the record acceptor a reported for cur (its own
	// ballot when a granted it), 0 when a has not answered cur; span is
	// the longest time left that a queued answer reported.
	reports []algorithms.Ballot
	span    time.Duration

	dead  algorithms.Ballot // this proposal released every ballot up to dead: none of them counts again
	fails int               // failed rounds of the acquisition

	holdBallot algorithms.Ballot
	holdUntil  algorithms.Local
	succ       algorithms.Ballot // the waiter to name at the release (latest an acceptor reported)
}

// New builds a node from a configuration the registry has validated
// (algorithms.Algorithm.New).
func New(c algorithms.Config) *Node {
	ru := &rules{
		id:           c.ID,
		cluster:      c.Cluster,
		params:       c.Params,
		restarts:     c.Restarts,
		restartWait:  !c.Ablations.Has(AblateRestartWait),
		earlyTimer:   !c.Ablations.Has(AblateLateTimer),
		distinct:     !c.Ablations.Has(AblateCountByMessage),
		ballotBound:  !c.Ablations.Has(AblateOwnerOnlyRelease),
		lifeIdentity: !c.Ablations.Has(AblateCrossLife),
		keepOthers:   !c.Ablations.Has(AblateKeepOthers),
		deadBallots:  !c.Ablations.Has(AblateDeadBallots),
		holdGuard:    !c.Ablations.Has(AblateHoldGuard),
		named:        !c.Ablations.Has(AblateNamedSuccessor),
		hold:         HoldSpan(c.Params),
		quarantine:   Quarantine(c.Params),
	}
	if c.Ablations.Has(AblateDriftMargin) {
		ru.hold = c.Params.LeaseSpan
	}
	return &Node{
		rules: ru,
		rnd:   c.Rand,
		// A restarted acceptor is silent from the start; Start arms the
		// end of its quarantine.
		quarantined: ru.waits(),
		recs:        map[algorithms.ResourceID]*record{},
		props:       map[algorithms.ResourceID]*proposal{},
		seen:        map[algorithms.ResourceID]uint64{},
	}
}

// waits reports whether the node must keep silent after its start: a
// restarted acceptor forgot records that holds may still rely on. A node
// that is only a proposer forgot nothing another node relies on (its
// ballots of the new life are new, and a record of its earlier life is
// another proposer's), so it takes part at once.
func (c *rules) waits() bool {
	return c.restarts > 0 && c.restartWait && c.cluster.IsAcceptor(c.id)
}

// Step implements algorithms.Node.
func (n *Node) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	switch in.Kind {
	case algorithms.Start:
		n.start(now, out)
	case algorithms.Recv:
		switch {
		case in.Msg.To != n.id:
		case !n.quarantined:
			n.recv(now, &in.Msg, out)
		case in.Msg.Instance != 0 && (in.Msg.Kind == KindRequest || in.Msg.Kind == KindRelease) && n.cluster.IsAcceptor(n.id):
			// A silent acceptor answers nothing, but learns the lease
			// numbers that requests and releases carry, so that its
			// grants after the silence are numbered above the leases it
			// forgot.
			a := n.rec(in.Msg.Resource)
			a.seq = max(a.seq, in.Msg.Instance)
		}
	case algorithms.Fire:
		n.fire(now, in.Timer, out)
	case algorithms.Acquire:
		n.acquire(now, in.Resource, out)
	case algorithms.Extend:
		n.extend(now, in.Resource, out)
	case algorithms.Relinquish:
		n.relinquish(now, in.Resource, out)
	}
}

func (n *Node) start(now algorithms.Local, out *algorithms.Output) {
	switch {
	case n.restarts == 0:
	case n.quarantined:
		out.SetTimer(algorithms.TimerKey{Kind: timerQuarantine}, now.Add(n.quarantine))
	default:
		out.Emit(algorithms.Event{Kind: algorithms.Joined, Owner: algorithms.NoNode})
	}
}

func (n *Node) fire(now algorithms.Local, k algorithms.TimerKey, out *algorithms.Output) {
	r := k.Resource
	switch k.Kind {
	case timerQuarantine:
		if !n.quarantined {
			return
		}
		n.quarantined = false
		out.Emit(algorithms.Event{Kind: algorithms.Joined, Owner: algorithms.NoNode})
		d := n.deferred
		n.deferred = nil
		for _, r := range d {
			n.acquire(now, r, out)
		}
	case timerRecord:
		if a := n.recs[r]; a != nil {
			n.lapse(now, r, a, out)
			n.tidyRecord(r, a)
		}
	case timerHold:
		if p := n.props[r]; p != nil && p.holding && now >= p.holdUntil {
			n.endHold(r, p, out)
		}
	case timerProposer:
		p := n.props[r]
		if p == nil {
			return
		}
		switch p.phase {
		case collecting:
			out.Emit(algorithms.Event{Kind: algorithms.Timeout, Resource: r, Owner: n.id, Ballot: p.cur})
			if !n.resolve(now, r, p, true, out) {
				n.failRound(now, r, p, out)
			}
		case parked, waiting:
			n.request(now, r, p, true, out)
		}
	}
}

func (n *Node) recv(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	c := n.rules
	switch m.Kind {
	case KindRequest:
		if c.cluster.IsAcceptor(c.id) {
			n.onRequest(now, m, out)
		}
	case KindRelease:
		if c.cluster.IsAcceptor(c.id) {
			n.onRelease(now, m, out)
		}
	case KindGrant:
		if c.cluster.IsProposer(c.id) && c.cluster.IsAcceptor(m.From) {
			n.onGrant(now, m, out)
		}
	case KindQueued:
		if c.cluster.IsProposer(c.id) && c.cluster.IsAcceptor(m.From) {
			n.onQueued(now, m, out)
		}
	case KindNext:
		if c.cluster.IsProposer(c.id) && c.cluster.IsAcceptor(m.From) {
			n.onNext(m)
		}
	}
}

// sameOwner reports whether ballots a and b are the same owner's: the
// same proposer (node and life), or with cross-life-ballots ablated the
// same node.
func (c *rules) sameOwner(a, b algorithms.Ballot) bool {
	if c.lifeIdentity {
		return algorithms.SameProposer(a, b)
	}
	return a != 0 && b != 0 && a.Node() == b.Node()
}

// mine reports whether b is a ballot of this node in this life.
func (c *rules) mine(b algorithms.Ballot) bool {
	return b != 0 && b.Node() == c.id && b.Restart() == c.restarts
}
