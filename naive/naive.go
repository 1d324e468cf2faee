package naive

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"leaselab/algorithms"
)

// FlagExtend marks a Request of an extension round: an acceptor that holds
// a grant of the requester with a lower round renews it instead of denying.
const FlagExtend uint8 = 1 << 0

// Names of the ablations (rules a run may switch off).
const (
	AblRestartWait      = "restart-wait"
	AblDriftMargin      = "drift-margin"
	AblCountByMessage   = "count-by-message"
	AblOwnerOnlyRelease = "owner-only-release"
	AblCrossLife        = "cross-life-ballots"
)

// Timer kinds. One proposer timer per resource serves both the response
// timeout of a collecting round and the backoff wait before the next round:
// a proposal is in one of those phases at a time, and sharing the key keeps
// the runner's heap at one entry per resource and role.
const (
	timerProposer   uint8 = 1 // response timeout (collecting) or end of backoff (waiting)
	timerHold       uint8 = 2 // the proposer's hold ends (state cleanup only)
	timerGrant      uint8 = 3 // the acceptor's grant lapses
	timerQuarantine uint8 = 4 // a restarted node's silence ends (Resource 0)
)

// ablations are the rules of both variants.
var ablations = []algorithms.Ablation{
	{
		Name:   AblRestartWait,
		Rule:   "a restarted node stays silent for M before it answers or proposes (it forgot its grants)",
		Breaks: "a restarted acceptor grants again at once while the holder it forgot still holds",
	},
	{
		Name:   AblDriftMargin,
		Rule:   "the holder ends its hold at T(1-ρ)/(1+ρ) after its send instead of T, ρ = --drift-bound",
		Breaks: "a slow holder clock outlives fast acceptor timers",
	},
	{
		Name:   AblCountByMessage,
		Rule:   "grants are counted by distinct acceptor, never by message",
		Breaks: "one acceptor's duplicated grant counts twice and makes a false majority",
	},
	{
		Name:   AblOwnerOnlyRelease,
		Rule:   "release clears only the grant of that exact owner and round",
		Breaks: "with quick re-acquisition and late messages, a late or duplicated release of the owner's previous round clears the grant behind its next hold",
	},
	{
		Name:   AblCrossLife,
		Rule:   "an acceptor renews or releases a grant only for the proposer that holds it, (node, restart counter), never for the node alone: a restarted node is a new proposer (algorithms.SameProposer)",
		Breaks: "a restarted node's run counter starts again at 1, so its new ballots are below its earlier life's; an extension request of the earlier life, delayed past the crash and the silence, renews the new life's grant as the owner's own and renames it to the old ballot, the earlier life's delayed Release of that ballot clears it, and another proposer wins a majority beside the holder",
	},
}

func init() {
	algorithms.Register(algorithms.Algorithm{
		Name:      "naive",
		Summary:   "naive majority vote (PaxosLease paper Sec. 1): grant if empty, else deny; blocks under contention",
		Ablations: ablations,
		// A grant makes the acceptor deny every request, its owner's too.
		GrantBlocks: true,
		Fencing:     naiveFencing,
		TokenBreaks: naiveTokenBreaks,
		Validate:    Validate,
		Build: func(c algorithms.Config) (algorithms.Node, error) {
			return New(c, Options{}), nil
		},
	})
	algorithms.Register(algorithms.Algorithm{
		Name:      "naive-undo",
		Summary:   "naive majority vote with undo (paper footnote 1): a failed round gives back the grants it got",
		Ablations: ablations,
		// The same acceptors as naive: a grant denies every request until
		// it lapses or its owner gives it back.
		GrantBlocks: true,
		Fencing:     naiveFencing,
		TokenBreaks: naiveTokenBreaks,
		Validate:    Validate,
		Build: func(c algorithms.Config) (algorithms.Node, error) {
			return New(c, Options{Undo: true}), nil
		},
	})
}

// naiveFencing is what the naive vote's fencing token is. Its acceptors
// grant whoever asks first and never compare ballots, so the ballot (each
// proposer's own counter) is no token.
// naiveTokenBreaks: a token read off the holder's clock, ordered only by
// when rounds began, which clocks that disagree and slow or late
// messages reorder.
const naiveTokenBreaks = algorithms.BreaksOnClocks | algorithms.BreaksOnLate | algorithms.BreaksOnDelay

const naiveFencing = "the end of the lease on the holder's clock (algorithms.TimeToken; the ballots are each proposer's own counter, which acceptors never compare): " +
	"a later holder's round was granted by an acceptor the earlier holder's majority shares, after that grant lapsed or was released, and a round " +
	"counts only if its majority answers within the response timeout, so it began later and its lease ends later. Breaks when clocks disagree by " +
	"more than that gap, when a grant reaches its proposer later than the previous lease lasted, or when message delays are not small against the gap " +
	"between one holder's release and the next holder's ask (a slow network), so that a round that began earlier is granted after one that began later"

// Options select the variant.
type Options struct {
	// Undo: a proposer that failed to get a majority releases the grants
	// it did get (footnote 1 of the paper). Registered as "naive-undo".
	Undo bool
}

// HoldSpan is how long, on its own clock from the send of a round, a
// proposer holds the lease it won in that round: T·(1-ρ)/(1+ρ), rounded
// down, or T itself when margin is false (the "drift-margin" ablation).
// See the package documentation for why.
func HoldSpan(p algorithms.Params, margin bool) time.Duration {
	if !margin || p.Drift == 0 {
		return p.LeaseSpan
	}
	return time.Duration(math.Floor(float64(p.LeaseSpan) * (1 - p.Drift) / (1 + p.Drift)))
}

// Validate checks what naive needs beyond Params.Validate: T < M, so the
// restart silence of M outlasts every grant a restarted acceptor forgot,
// and a hold that is not empty after the drift margin.
func Validate(p algorithms.Params, c algorithms.Cluster) error {
	if p.LeaseSpan >= p.MaxLease {
		return fmt.Errorf("lease span %v must be shorter than max lease %v (T < M: a restarted acceptor's silence of M must outlast the grants it forgot)", p.LeaseSpan, p.MaxLease)
	}
	if h := HoldSpan(p, true); h <= 0 {
		return fmt.Errorf("lease span %v leaves no hold after the drift margin for drift bound %g", p.LeaseSpan, p.Drift)
	}
	return nil
}

// Node is one naive node: an acceptor if its id is below
// Cluster.Acceptors, a proposer if below Cluster.Proposers, possibly both.
type Node struct {
	*rules // fixed for the node's life, shared by its clones
	rnd    *rand.Rand

	quarantined bool
	deferred    []algorithms.ResourceID // acquisitions asked for during the silence, in order

	counter uint32 // run counter of this node's round ballots (all resources)
	tab     table  // grants and proposals by resource
}

// rules is a node's configuration: set once by New, never written after,
// so Clone shares it and AppendState leaves it out (the explorer compares
// nodes of one configuration only) except for the id and the restart
// counter, which name the node's life.
type rules struct {
	id       algorithms.NodeID
	cluster  algorithms.Cluster
	params   algorithms.Params
	restarts uint16
	undo     bool

	// Rules, true unless ablated.
	restartWait, distinct, exactRelease bool
	lifeIdentity                        bool          // owners are proposers (node, restart), not nodes
	hold                                time.Duration // HoldSpan
}

// grant is an acceptor's state for one resource; absent (slot.hasGrant
// false) means empty.
type grant struct {
	owner  algorithms.NodeID
	ballot algorithms.Ballot
	until  algorithms.Local
}

type phase uint8

const (
	idle       phase = iota
	collecting       // a round's requests are out; counting answers
	waiting          // backing off before the next round
)

// proposal is a proposer's state for one resource. It is dropped when the
// proposer neither holds nor tries, so idle resources cost nothing.
//
// The small fields come first, so the struct is 88 bytes and a table slot
// 128 (see slot).
type proposal struct {
	phase    phase
	extend   bool              // the acquisition in progress is an extension (FlagExtend)
	holding  bool              // holds the lease of holdBallot until holdUntil
	lastDeny algorithms.NodeID // owner named by the last deny

	ballot    algorithms.Ballot // round being collected (or the last one, while waiting)
	sent      algorithms.Local  // when that round's requests went out: the hold counts from here
	failed    int               // failed rounds of the acquisition in progress
	granted   algorithms.NodeSet
	denied    algorithms.NodeSet
	grantMsgs int // grants counted by message (count-by-message ablation)

	holdBallot algorithms.Ballot // round whose majority backs the hold
	holdUntil  algorithms.Local
}

// New builds a node of the chosen variant from a configuration the
// registry has validated (algorithms.Algorithm.New): build nodes through
// the registry unless c is known to be good.
func New(c algorithms.Config, opt Options) *Node {
	return &Node{rnd: c.Rand, rules: &rules{
		id:           c.ID,
		cluster:      c.Cluster,
		params:       c.Params,
		restarts:     c.Restarts,
		undo:         opt.Undo,
		restartWait:  !c.Ablations.Has(AblRestartWait),
		distinct:     !c.Ablations.Has(AblCountByMessage),
		exactRelease: !c.Ablations.Has(AblOwnerOnlyRelease),
		lifeIdentity: !c.Ablations.Has(AblCrossLife),
		hold:         HoldSpan(c.Params, !c.Ablations.Has(AblDriftMargin)),
	}}
}

// Release implements algorithms.Releaser: the node's table chunks go to
// the next nodes of the process.
func (n *Node) Release() { n.tab.release() }

// Step implements algorithms.Node.
func (n *Node) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	switch in.Kind {
	case algorithms.Start:
		n.start(now, out)
	case algorithms.Recv:
		if !n.quarantined {
			n.recv(now, &in.Msg, out)
		}
	case algorithms.Fire:
		n.fire(now, in.Timer, out)
	case algorithms.Acquire:
		n.acquire(now, in.Resource, out)
	case algorithms.Extend:
		n.extendLease(now, in.Resource, out)
	case algorithms.Relinquish:
		n.relinquish(now, in.Resource, out)
	}
}

// start begins the node's life. A restarted node forgot every grant it
// made, so it keeps silent for M unless the rule is ablated.
func (n *Node) start(now algorithms.Local, out *algorithms.Output) {
	if n.restarts == 0 {
		return
	}
	if !n.restartWait {
		out.Emit(algorithms.Event{Kind: algorithms.Joined, Owner: algorithms.NoNode})
		return
	}
	n.quarantined = true
	out.SetTimer(algorithms.TimerKey{Kind: timerQuarantine}, now.Add(n.params.MaxLease))
}

func (n *Node) fire(now algorithms.Local, k algorithms.TimerKey, out *algorithms.Output) {
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
	case timerGrant:
		g, ok := n.grantOf(k.Resource)
		if !ok {
			return
		}
		n.dropGrant(k.Resource)
		out.Emit(algorithms.Event{Kind: algorithms.Cleared, Resource: k.Resource, Owner: g.owner, Ballot: g.ballot})
	case timerHold:
		p := n.prop(k.Resource)
		if p == nil || !p.holding {
			return
		}
		// The hold ended on our clock; the runner saw Until and needs no
		// event. Forget it so an Extend now is refused and memory is freed.
		p.holding = false
		p.holdBallot = 0
		n.tidy(k.Resource, p)
	case timerProposer:
		p := n.prop(k.Resource)
		if p == nil {
			return
		}
		switch p.phase {
		case collecting:
			out.Emit(algorithms.Event{Kind: algorithms.Timeout, Resource: k.Resource, Owner: n.id, Ballot: p.ballot})
			n.fail(now, k.Resource, p, out)
		case waiting:
			n.startRound(now, k.Resource, p, out)
		}
	}
}

func (n *Node) acquire(now algorithms.Local, r algorithms.ResourceID, out *algorithms.Output) {
	if !n.cluster.IsProposer(n.id) {
		// Not a proposer: the request cannot be served; say so rather
		// than ignore it.
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: r, Owner: n.id})
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
	p := n.prop(r)
	if p != nil && p.holds(now) {
		// Already the holder: the answer is the lease it holds (a
		// client that lost track of it, or asks again, still gets one),
		// at once, whether or not an extension is under way
		// (algorithms.Acquire): the hold stands until holdUntil whatever
		// the extension's outcome.
		out.Emit(algorithms.Event{Kind: algorithms.Acquired, Resource: r, Owner: n.id, Ballot: p.holdBallot, Until: p.holdUntil,
			Token: algorithms.TimeToken(p.holdUntil)})
		return
	}
	if p != nil && p.phase != idle {
		return // already trying: one acquisition at a time
	}
	if p != nil && p.holding {
		// The hold ended on our clock and its timer has not fired yet.
		p.holding, p.holdBallot = false, 0
	}
	if p == nil {
		p = n.newProp(r)
	}
	p.extend = false
	p.failed = 0
	n.startRound(now, r, p, out)
}

// extendLease starts an extension round for a holder. A node that does not
// hold r cannot extend: it is told so with Failed (an acquisition is the
// client's business); a round already in progress is left alone.
func (n *Node) extendLease(now algorithms.Local, r algorithms.ResourceID, out *algorithms.Output) {
	if n.quarantined {
		return // a restarted node holds nothing to extend
	}
	p := n.prop(r)
	if p != nil && p.phase != idle {
		return
	}
	if p == nil || !p.holds(now) {
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: r, Owner: n.id})
		return
	}
	p.extend = true
	p.failed = 0
	n.startRound(now, r, p, out)
}

// relinquish releases: the holder stops believing first (Lost, which takes
// effect before any message leaves), then tells the acceptors which exact
// round to clear. An acquisition in progress is abandoned and its round
// released too.
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
	p := n.prop(r)
	if p == nil {
		return
	}
	if p.holding {
		// Past holdUntil the runner already ended the hold; the release
		// still frees the acceptors early.
		if p.holds(now) {
			out.Emit(algorithms.Event{Kind: algorithms.Lost, Resource: r, Owner: n.id, Ballot: p.holdBallot})
		}
		n.release(r, p.holdBallot, nil, out)
		out.CancelTimer(algorithms.TimerKey{Resource: r, Kind: timerHold})
	}
	if p.phase == collecting && p.ballot != p.holdBallot {
		n.release(r, p.ballot, nil, out)
	}
	if p.phase != idle {
		out.CancelTimer(algorithms.TimerKey{Resource: r, Kind: timerProposer})
	}
	n.dropProp(r)
}

// release sends Release of round b to every acceptor not in skip.
func (n *Node) release(r algorithms.ResourceID, b algorithms.Ballot, skip *algorithms.NodeSet, out *algorithms.Output) {
	for a := 0; a < n.cluster.Acceptors; a++ {
		if skip != nil && skip.Has(algorithms.NodeID(a)) {
			continue
		}
		out.Send(algorithms.Message{Kind: algorithms.Release, From: n.id, To: algorithms.NodeID(a), Owner: n.id, Resource: r, Ballot: b})
	}
}

func (n *Node) startRound(now algorithms.Local, r algorithms.ResourceID, p *proposal, out *algorithms.Output) {
	n.counter++
	p.ballot = algorithms.MakeBallot(n.counter, n.restarts, n.id)
	p.sent = now
	p.phase = collecting
	p.granted.Reset()
	p.denied.Reset()
	p.grantMsgs = 0
	p.lastDeny = algorithms.NoNode
	var flags uint8
	if p.extend {
		flags = FlagExtend
	}
	out.Emit(algorithms.Event{Kind: algorithms.Round, Resource: r, Owner: n.id, Ballot: p.ballot})
	for a := 0; a < n.cluster.Acceptors; a++ {
		out.Send(algorithms.Message{
			Kind: algorithms.Request, Flags: flags, From: n.id, To: algorithms.NodeID(a),
			Owner: n.id, Resource: r, Ballot: p.ballot, Span: int64(n.params.LeaseSpan),
		})
	}
	out.SetTimer(algorithms.TimerKey{Resource: r, Kind: timerProposer}, now.Add(n.params.ResponseTimeout))
}

// fail ends the collecting round without a majority (the caller emitted
// Preempted or Timeout) and retries after a random backoff, or gives up.
func (n *Node) fail(now algorithms.Local, r algorithms.ResourceID, p *proposal, out *algorithms.Output) {
	if n.undo && n.mayUndo(p, p.ballot) {
		// Acceptors that denied hold someone else's grant; every other
		// one may hold ours, answered or not.
		n.release(r, p.ballot, &p.denied, out)
	}
	p.failed++
	key := algorithms.TimerKey{Resource: r, Kind: timerProposer}
	if p.failed >= n.params.MaxRounds {
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: r, Owner: n.id, Ballot: p.ballot})
		out.CancelTimer(key)
		p.phase = idle
		n.tidy(r, p)
		return
	}
	var wait time.Duration
	if n.params.Backoff > 0 {
		wait = time.Duration(n.rnd.Int64N(int64(n.params.Backoff) + 1))
	}
	if wait == 0 {
		n.startRound(now, r, p, out)
		return
	}
	p.phase = waiting
	out.SetTimer(key, now.Add(wait))
}

// mayUndo reports whether releasing round b cannot take a grant from under
// our own hold. The hold is backed by grants of holdBallot, and an
// extension round (ballot above holdBallot) may have renewed exactly those
// grants to its own ballot: releasing it would clear them while we still
// hold. Rounds below holdBallot back nothing: an acceptor that still has
// such a grant did not grant holdBallot.
func (n *Node) mayUndo(p *proposal, b algorithms.Ballot) bool {
	return !p.holding || b < p.holdBallot
}

// holds reports whether p holds the lease at local time now.
func (p *proposal) holds(now algorithms.Local) bool { return p.holding && now < p.holdUntil }

// tidy forgets a proposal that neither holds nor tries.
func (n *Node) tidy(r algorithms.ResourceID, p *proposal) {
	if p.phase == idle && !p.holding {
		n.dropProp(r)
	}
}

func (n *Node) recv(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	if m.To != n.id {
		return
	}
	switch m.Kind {
	case algorithms.Request:
		if n.cluster.IsAcceptor(n.id) {
			n.onRequest(now, m, out)
		}
	case algorithms.Release:
		if n.cluster.IsAcceptor(n.id) {
			n.onRelease(m, out)
		}
	case algorithms.Grant, algorithms.Deny:
		if n.cluster.IsProposer(n.id) && n.cluster.IsAcceptor(m.From) && m.Owner != algorithms.NoNode {
			n.onAnswer(now, m, out)
		}
	}
}

// onRequest is the acceptor's rule: grant if empty, else deny and name the
// owner. The two exceptions never give a grant to a second owner: a
// duplicate of the granted request is answered again, and an extension by
// the owner itself renews.
func (n *Node) onRequest(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	// Malformed requests are dropped: the owner must be the sender and a
	// proposer, and the span within M (the restart silence covers only
	// grants up to M).
	if m.Owner != m.From || !n.cluster.IsProposer(m.From) || m.Ballot == 0 || m.Ballot.Node() != m.From ||
		m.Span <= 0 || time.Duration(m.Span) > n.params.MaxLease {
		return
	}
	answer := algorithms.Message{From: n.id, To: m.From, Owner: m.Owner, Resource: m.Resource, Ballot: m.Ballot, Span: m.Span}
	g, held := n.grantOf(m.Resource)
	switch {
	case !held:
		n.grant(now, m, g, false, out)
		return
	case g.owner == m.Owner && g.ballot == m.Ballot:
		answer.Kind = algorithms.Grant // duplicate request: same grant, timer untouched
	case n.sameOwner(g.ballot, m.Ballot) && m.Flags&FlagExtend != 0 && m.Ballot > g.ballot:
		// The owner renews: the same proposer, node and life. An earlier
		// life of the node is another proposer whose ballots may be above
		// the new life's (the run counter starts again at a restart):
		// renewing for it would rename the new life's grant to a ballot
		// that the earlier life's delayed Release then clears
		// (cross-life-ballots ablation).
		n.grant(now, m, g, true, out)
		return
	default:
		answer.Kind = algorithms.Deny
		answer.Owner = g.owner
	}
	out.Send(answer)
}

func (n *Node) grant(now algorithms.Local, m *algorithms.Message, old grant, renew bool, out *algorithms.Output) {
	g := grant{owner: m.Owner, ballot: m.Ballot, until: now.Add(time.Duration(m.Span))}
	if renew && old.until > g.until {
		g.until = old.until // a renewal never shortens a grant
	}
	n.setGrant(m.Resource, g)
	out.SetTimer(algorithms.TimerKey{Resource: m.Resource, Kind: timerGrant}, g.until)
	out.Emit(algorithms.Event{Kind: algorithms.Granted, Resource: m.Resource, Owner: g.owner, Ballot: g.ballot, Until: g.until})
	out.Send(algorithms.Message{Kind: algorithms.Grant, From: n.id, To: m.From, Owner: m.Owner, Resource: m.Resource, Ballot: m.Ballot, Span: m.Span})
}

func (n *Node) onRelease(m *algorithms.Message, out *algorithms.Output) {
	g, held := n.grantOf(m.Resource)
	if !held || m.Owner != m.From || !n.sameOwner(g.ballot, m.Ballot) {
		return
	}
	if n.exactRelease && g.ballot != m.Ballot {
		return // a release of another round of this owner: not this grant
	}
	n.dropGrant(m.Resource)
	out.CancelTimer(algorithms.TimerKey{Resource: m.Resource, Kind: timerGrant})
	out.Emit(algorithms.Event{Kind: algorithms.Cleared, Resource: m.Resource, Owner: g.owner, Ballot: g.ballot})
}

// sameOwner reports whether ballots a and b belong to the same owner: the
// same proposer (node and life), or with cross-life-ballots ablated the
// same node.
func (n *Node) sameOwner(a, b algorithms.Ballot) bool {
	if n.lifeIdentity {
		return algorithms.SameProposer(a, b)
	}
	return a.Node() == b.Node()
}

// onAnswer counts a Grant or Deny for the round being collected.
func (n *Node) onAnswer(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	if m.Kind == algorithms.Grant && m.Owner != n.id {
		return // a grant is always for its requester
	}
	p := n.prop(m.Resource)
	if p == nil || p.phase != collecting || m.Ballot != p.ballot {
		// An answer to a round we no longer collect. With undo, give
		// back a grant unless it is the one behind our hold.
		if n.undo && m.Kind == algorithms.Grant && (p == nil || n.mayUndo(p, m.Ballot)) {
			out.Send(algorithms.Message{Kind: algorithms.Release, From: n.id, To: m.From, Owner: n.id, Resource: m.Resource, Ballot: m.Ballot})
		}
		return
	}
	a := m.From
	if m.Kind == algorithms.Deny {
		if p.granted.Has(a) || p.denied.Has(a) {
			return
		}
		p.denied.Add(a)
		p.lastDeny = m.Owner
		if p.denied.Len() > n.cluster.Acceptors-n.cluster.Majority() {
			out.Emit(algorithms.Event{Kind: algorithms.Preempted, Resource: m.Resource, Owner: p.lastDeny})
			n.fail(now, m.Resource, p, out)
		}
		return
	}
	var votes int
	if n.distinct {
		if !p.granted.Has(a) {
			// A grant after a deny from the same acceptor is real (its
			// other grant lapsed and a duplicate request reached it); it
			// started after our send all the same.
			p.denied.Remove(a)
			p.granted.Add(a)
		}
		votes = p.granted.Len()
	} else {
		p.grantMsgs++
		votes = p.grantMsgs
	}
	if votes < n.cluster.Majority() {
		return
	}
	until := p.sent.Add(n.hold)
	if until <= now {
		// The majority came too late to hold anything: the grants behind
		// it may already be lapsing. Count it as a timed-out round.
		out.Emit(algorithms.Event{Kind: algorithms.Timeout, Resource: m.Resource, Owner: n.id, Ballot: p.ballot})
		n.fail(now, m.Resource, p, out)
		return
	}
	p.phase = idle
	p.holding = true
	p.holdBallot = p.ballot
	p.holdUntil = until
	p.failed = 0
	out.CancelTimer(algorithms.TimerKey{Resource: m.Resource, Kind: timerProposer})
	out.SetTimer(algorithms.TimerKey{Resource: m.Resource, Kind: timerHold}, until)
	out.Emit(algorithms.Event{Kind: algorithms.Acquired, Resource: m.Resource, Owner: n.id, Ballot: p.ballot, Until: until,
		Token: algorithms.TimeToken(until)})
}
