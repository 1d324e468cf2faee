package paxoslease

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"leaselab/algorithms"
)

// Timer kinds (algorithms.TimerKey.Kind).
const (
	// timerRound: the proposer's phase timeout, or the end of its wait
	// before the next round; one per resource, the round's phase says which.
	timerRound uint8 = 1
	// timerAccepted: the acceptor's own timer for its accepted proposal.
	timerAccepted uint8 = 2
	// timerQuarantine: end of the restart quarantine (Resource 0).
	timerQuarantine uint8 = 3
)

type phase uint8

const (
	phaseWait    phase = iota // between rounds; timerRound starts the next one
	phasePrepare              // Prepare sent, counting promises
	phasePropose              // Propose sent, counting accepts
)

// round is a proposer's acquisition (or extension) in flight on one
// resource: from the client's request until it holds the lease, gives up,
// or fails after MaxRounds. It is transient state; held leases keep only
// slot.heldRound and slot.until.
type round struct {
	ballot   algorithms.Ballot // this round's ballot
	deadline algorithms.Local  // end of the lease this round would give; 0 = not yet known (late-timer)
	// Distinct acceptors. The counters below and fails are 32 bits, which
	// keeps a round at 128 bytes with five sets of 16.
	promised algorithms.NodeSet // prepare phase: answered with a promise
	open     algorithms.NodeSet // ...whose promise was open (empty, or our active lease); a subset of promised
	accepted algorithms.NodeSet // propose phase: accepted
	rejected algorithms.NodeSet // this phase: rejected
	leased   algorithms.NodeSet // ...and reported a lease (not ours) in the reject
	// Votes counted per message: used only with the count-by-message ablation.
	nOpen, nAccepted int32
	learned          algorithms.Ballot // highest promised ballot reported by rejects
	hint             time.Duration     // longest remaining span of a lease reported by a promise
	fails            int32             // failed rounds of this acquisition (at most MaxRounds, which Validate keeps in 32 bits)
	phase            phase
	busy             bool // waiting (phaseWait) for someone's lease to end
	// parked: busy after a prepare phase, keeping its ballot and votes: a
	// fresh open promise for this ballot (release-promise) upgrades the
	// acceptor's vote, and an open majority proposes at once.
	parked bool
	queued bool // requested during the quarantine; starts at Joined
}

// Node is one PaxosLease node: a proposer, an acceptor or both (the
// cluster's numbering decides), for any number of resources. It implements
// algorithms.Node and is a pure state machine: one Step at a time, no
// clock reads, randomness only from Config.Rand.
type Node struct {
	*rules
	rand *rand.Rand

	silent    bool   // restarted and still in quarantine
	started   bool   // Start was seen
	lastRound uint32 // highest run counter this node used (any resource)
	// rtt: moving average of the time from sending Prepare to answers
	// from a majority; 0 until measured. Measured and used only when
	// Params.Backoff > 0 (every wait it scales is capped at Backoff), and
	// not with late-timer ablated (see prepareSent).
	rtt time.Duration

	res        table
	keepTimers bool // the acceptor's timers stay in res (KeepTimers), not in Output.Timers
	rounds     map[algorithms.ResourceID]*round
	roundsPeak int
	free       []*round
	pending    []algorithms.ResourceID // requests that arrived during the quarantine, in order
}

var _ algorithms.Node = (*Node)(nil)

// rules is what a node is configured with: fixed for its life and shared
// by every clone the explorer makes of it, so neither Clone nor
// AppendState looks at it (but for the id and restart counter, which
// AppendState writes).
type rules struct {
	id       algorithms.NodeID
	cluster  algorithms.Cluster
	params   algorithms.Params
	restarts uint16
	majority int

	// Rules; true means the strict rule is on (an ablation turns it off).
	restartWait    bool // stay silent for the quarantine after a restart
	driftMargin    bool // hold a margin less than T, for clock rate drift
	backoff        bool // random wait before a retry
	ballotLearning bool // rejects carry the highest promised; proposers jump past it
	earlyTimer     bool // the hold is counted from sending Prepare
	distinctVotes  bool // votes counted by distinct acceptor
	exactRelease   bool // release clears only the exact (owner, ballot)
	activeOnly     bool // an own reported lease is open only if it is the active one
	keepOthers     bool // another owner's live accepted lease is never overwritten
	rttBackoff     bool // the backoff window scales with the measured round trip
	releasePromise bool // an acceptor that clears a lease re-sends its promise to its highest ballot
	headStart      bool // a waiter woken by a release hint first gives the head of the queue time to propose
	failedRelease  bool // a lost propose phase releases its ballot at the acceptors
	promiseGuard   bool // a re-sent promise is kept from other proposers' prepares for a while
	queueBehind    bool // a waiter behind a lease nobody queued for prepares above it at once
	splitRetry     bool // a parked round with some re-sent promises but no majority retries after two round trips
	releaseHints   bool // a release goes to the other proposers too, as a hint (Sec. 7)
	lifeIdentity   bool // owners are compared as proposers (node, restart), not as nodes

	hold       time.Duration // how long a lease lasts on the holder's clock, from its Prepare
	quarantine time.Duration // silence after a restart, on this node's clock
}

// HoldSpan is how long a lease holds on the holder's own clock, counted
// from the moment it sent Prepare: T(1-ρ)/(1+ρ), rounded down. See the
// package documentation for the derivation.
func HoldSpan(p algorithms.Params) time.Duration {
	return time.Duration(math.Floor(float64(p.LeaseSpan) * (1 - p.Drift) / (1 + p.Drift)))
}

// Quarantine is how long a restarted node stays silent, on its own clock:
// M(1+ρ)/(1-ρ), rounded up. See the package documentation.
func Quarantine(p algorithms.Params) time.Duration {
	return time.Duration(math.Ceil(float64(p.MaxLease) * (1 + p.Drift) / (1 - p.Drift)))
}

// Validate checks what PaxosLease needs beyond algorithms.Params.Validate.
func Validate(p algorithms.Params, c algorithms.Cluster) error {
	switch {
	case p.LeaseSpan >= p.MaxLease:
		return fmt.Errorf("lease span T (%v) must be shorter than the max lease M (%v): a restarted node's quarantine of M must outlast every lease", p.LeaseSpan, p.MaxLease)
	case p.MaxRounds > math.MaxInt32:
		return fmt.Errorf("max rounds %d is more than a round counts (%d)", p.MaxRounds, math.MaxInt32)
	case p.MaxLease > time.Duration(math.MaxInt64/4):
		return fmt.Errorf("max lease M %v is too long to be timed", p.MaxLease)
	case HoldSpan(p) <= 0:
		return fmt.Errorf("lease span T (%v) leaves no hold after the drift margin", p.LeaseSpan)
	}
	return nil
}

// New builds a node from a configuration the registry has validated
// (algorithms.Algorithm.New): build nodes through the registry unless cfg
// is known to be good.
func New(cfg algorithms.Config) *Node {
	ab := cfg.Ablations
	r := &rules{
		id:             cfg.ID,
		cluster:        cfg.Cluster,
		params:         cfg.Params,
		restarts:       cfg.Restarts,
		majority:       cfg.Cluster.Majority(),
		restartWait:    !ab.Has(AblateRestartWait),
		driftMargin:    !ab.Has(AblateDriftMargin),
		backoff:        !ab.Has(AblateBackoff),
		ballotLearning: !ab.Has(AblateBallotLearning),
		earlyTimer:     !ab.Has(AblateLateTimer),
		distinctVotes:  !ab.Has(AblateCountByMessage),
		exactRelease:   !ab.Has(AblateOwnerOnlyRelease),
		activeOnly:     !ab.Has(AblateStaleOwnerOpen),
		keepOthers:     !ab.Has(AblateAbandonRelease),
		rttBackoff:     !ab.Has(AblateRTTBackoff),
		releasePromise: !ab.Has(AblateReleasePromise),
		headStart:      !ab.Has(AblateHeadStart),
		failedRelease:  !ab.Has(AblateFailedRelease),
		promiseGuard:   !ab.Has(AblatePromiseGuard),
		queueBehind:    !ab.Has(AblateQueueBehind),
		splitRetry:     !ab.Has(AblateSplitRetry),
		releaseHints:   !ab.Has(AblateReleaseHints),
		lifeIdentity:   !ab.Has(AblateCrossLife),
		hold:           HoldSpan(cfg.Params),
		quarantine:     Quarantine(cfg.Params),
	}
	if !r.driftMargin {
		r.hold = cfg.Params.LeaseSpan
	}
	n := &Node{
		rules:  r,
		rand:   cfg.Rand,
		rounds: make(map[algorithms.ResourceID]*round),
		// A restarted node is silent from the start; Start arms the end of
		// its quarantine.
		silent: cfg.Restarts > 0,
	}
	return n
}

// Step handles one input at local time now.
func (n *Node) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	switch in.Kind {
	case algorithms.Start:
		n.start(now, out)
	case algorithms.Recv:
		if !n.silent {
			n.recv(now, in.Msg, out)
		}
	case algorithms.Fire:
		n.fire(now, in.Timer, out)
	case algorithms.Acquire:
		n.request(now, in.Resource, false, out)
	case algorithms.Extend:
		n.request(now, in.Resource, true, out)
	case algorithms.Relinquish:
		n.relinquish(now, in.Resource, out)
	}
}

func (n *Node) start(now algorithms.Local, out *algorithms.Output) {
	if n.started {
		return
	}
	n.started = true
	if n.restarts == 0 {
		n.silent = false // first boot: nobody can hold a lease that relies on us
		return
	}
	if !n.restartWait {
		n.join(now, out)
		return
	}
	out.SetTimer(algorithms.TimerKey{Kind: timerQuarantine}, now.Add(n.quarantine))
}

// join ends the quarantine and starts the requests that waited for it.
func (n *Node) join(now algorithms.Local, out *algorithms.Output) {
	n.silent = false
	out.Emit(algorithms.Event{Kind: algorithms.Joined, Owner: algorithms.NoNode})
	pending := n.pending
	n.pending = nil
	for _, r := range pending {
		if rd := n.rounds[r]; rd != nil && rd.queued {
			rd.queued = false
			n.startRound(now, r, rd, out)
		}
	}
}

func (n *Node) fire(now algorithms.Local, key algorithms.TimerKey, out *algorithms.Output) {
	switch key.Kind {
	case timerQuarantine:
		if n.silent && n.started {
			n.join(now, out)
		}
	case timerAccepted:
		if s := n.res.get(key.Resource); s != nil {
			n.expire(now, key.Resource, s, out)
		}
	case timerRound:
		rd := n.rounds[key.Resource]
		if rd == nil || rd.queued {
			return
		}
		switch rd.phase {
		case phasePrepare, phasePropose:
			out.Emit(algorithms.Event{Kind: algorithms.Timeout, Owner: n.id, Resource: key.Resource, Ballot: rd.ballot})
			n.failRound(now, key.Resource, rd, 0, out)
		case phaseWait:
			n.startRound(now, key.Resource, rd, out)
		}
	}
}

func (n *Node) recv(now algorithms.Local, m algorithms.Message, out *algorithms.Output) {
	// Malformed or misdelivered input is dropped, never trusted.
	if m.To != n.id || int(m.From) >= n.cluster.Nodes {
		return
	}
	switch m.Kind {
	case algorithms.Prepare, algorithms.Propose, algorithms.Release:
		if !n.cluster.IsProposer(m.From) || m.Ballot == 0 || m.Ballot.Node() != m.From {
			return
		}
		if m.Kind == algorithms.Release && m.Span == declineSpan {
			if n.cluster.IsAcceptor(n.id) {
				n.onDecline(m)
			}
			return
		}
		if m.Kind == algorithms.Release && n.releaseHints && n.cluster.IsProposer(n.id) && m.From != n.id {
			n.onReleaseHint(now, m, out)
		}
		if !n.cluster.IsAcceptor(n.id) {
			return
		}
		switch m.Kind {
		case algorithms.Prepare:
			n.onPrepare(now, m, out)
		case algorithms.Propose:
			n.onPropose(now, m, out)
		default:
			n.onRelease(now, m, out)
		}
	case algorithms.Promise, algorithms.PrepareReject, algorithms.Accepted, algorithms.ProposeReject:
		if !n.cluster.IsAcceptor(m.From) {
			return
		}
		rd := n.rounds[m.Resource]
		if rd == nil || rd.queued || m.Ballot != rd.ballot {
			if m.Kind == algorithms.Promise && m.Owner == algorithms.NoNode && m.Ballot.Node() == n.id && n.guardSpan() > 0 {
				// A re-sent promise for a ballot we no longer use:
				// decline it, so its guard stops turning others away.
				out.Send(n.decline(m.From, m.Resource, m.Ballot))
			}
			return // an answer to some other round
		}
		if rd.phase == phasePrepare && n.earlyTimer && n.params.Backoff > 0 && m.Kind != algorithms.Accepted && m.Kind != algorithms.ProposeReject {
			// The round trip to a quorum (a node that is also an acceptor
			// answers itself at once): sampled when the answers of the
			// round's prepare first reach a majority, never from its own
			// answer. A node's answer to itself is no round trip: with one
			// acceptor that is also the proposer, every sample would be
			// about 0, and the waits it scales (a guarded promise's two
			// round trips) would retry every few nanoseconds until the
			// guard ends, millions of rounds in a tenth of a second.
			if a := m.From; a != n.id && !rd.promised.Has(a) && !rd.rejected.Has(a) && rd.answered() == n.majority-1 {
				n.sampleRTT(now.Sub(n.prepareSent(rd)))
			}
		}
		switch m.Kind {
		case algorithms.Promise:
			n.onPromise(now, m, rd, out)
		case algorithms.Accepted:
			n.onAccepted(now, m, rd, out)
		default:
			n.onReject(now, m, rd, out)
		}
	}
}

// ---- acceptor (Sec. 3, steps 2 and 4; Sec. 7) ----

// expire clears the accepted proposal if the acceptor's timer has run out.
// The timer fires at accUntil anyway; checking here as well keeps the
// answer right when a message and the timer fall on the same instant.
func (n *Node) expire(now algorithms.Local, r algorithms.ResourceID, s *slot, out *algorithms.Output) {
	if s.accepted != 0 && now >= s.accUntil {
		n.clear(now, r, s, out)
	}
}

func (n *Node) clear(now algorithms.Local, r algorithms.ResourceID, s *slot, out *algorithms.Output) {
	out.Emit(algorithms.Event{Kind: algorithms.Cleared, Resource: r, Owner: s.accepted.Node(), Ballot: s.accepted})
	// A kept timer pending for this proposal keeps its own deadline
	// (timers.go): accUntil may change.
	gone := s.accepted
	s.accepted, s.accUntil = 0, 0
	if n.releasePromise && s.promised > gone && n.cluster.IsProposer(s.promised.Node()) {
		// Release-promise: the proposer of the highest ballot we promised
		// was told the lease was taken; tell it that we are empty now.
		// This is the very answer a copy of its Prepare arriving now
		// would draw (the network may duplicate and delay any message),
		// so it adds no behaviour the protocol does not already allow;
		// it saves that proposer a round trip and lets it move first.
		p := algorithms.Message{Kind: algorithms.Promise, From: n.id, To: s.promised.Node(), Resource: r, Ballot: s.promised, Owner: algorithms.NoNode}
		out.Send(p)
		if g := n.guardSpan(); g > 0 {
			// Promise-guard: for a while, only that proposer may prepare
			// here, so a newcomer's higher ballot does not preempt the
			// proposal it is about to send. accUntil is free while
			// nothing is accepted; it holds the guard's end, and 0 means
			// no guard (local clocks may read below zero, so "now <
			// accUntil" alone would guard an empty slot).
			s.accUntil = now.Add(g)
			if s.accUntil == 0 {
				s.accUntil = 1
			}
		}
	}
}

// guardSpan is how long a re-sent promise is guarded: Backoff (the
// longest a rejected newcomer would have waited anyway), at most
// ResponseTimeout; 0 when the rule is off. The guard ends sooner when
// the acceptor accepts a proposal. Rejecting is always safe; the guard
// costs liveness only if the re-promised proposer is gone, and then
// Backoff at most.
func (n *Node) guardSpan() time.Duration {
	if !n.promiseGuard || !n.releasePromise {
		return 0
	}
	return min(n.params.Backoff, n.params.ResponseTimeout)
}

// guardOn reports whether s guards a re-sent promise at now.
func guardOn(s *slot, now algorithms.Local) bool {
	return s.accepted == 0 && s.accUntil != 0 && now < s.accUntil
}

// guarded reports whether a prepare of from must be refused: a guarded
// re-sent promise to another proposer is still in force.
func guarded(s *slot, now algorithms.Local, from algorithms.NodeID) bool {
	return guardOn(s, now) && s.promised.Node() != from
}

func (n *Node) reply(m algorithms.Message, kind algorithms.Kind) algorithms.Message {
	return algorithms.Message{Kind: kind, From: n.id, To: m.From, Resource: m.Resource, Ballot: m.Ballot, Owner: algorithms.NoNode}
}

// rejectWith carries the acceptor's highest promised ballot, so that the
// proposer can jump past it (ballot learning), and, like a promise, the
// lease it has accepted, if any: a proposer behind the ballots of a live
// lease then knows to wait for it instead of counting a failed round.
// With ballot learning ablated a reject carries nothing.
func (n *Node) rejectWith(now algorithms.Local, m algorithms.Message, kind algorithms.Kind, s *slot, out *algorithms.Output) {
	rej := n.reply(m, kind)
	if n.ballotLearning {
		rej.Promised = s.promised
		s.report(&rej, now)
		if guardOn(s, now) {
			// A guarded promise: its proposer is about to propose. No
			// accepted ballot; Owner and Span say who and for how long.
			rej.Owner = s.promised.Node()
			rej.Span = int64(s.accUntil.Sub(now))
		}
	}
	out.Send(rej)
}

// report puts the accepted proposal, if any, into an answer: its ballot,
// its owner and the time left on this acceptor's timer. The proposer may
// use that time as a hint for when to retry; nothing relies on it for
// safety.
func (s *slot) report(m *algorithms.Message, now algorithms.Local) {
	if s.accepted != 0 {
		m.Accepted = s.accepted
		m.Owner = s.accepted.Node()
		m.Span = int64(s.accUntil.Sub(now))
	}
}

func (n *Node) onPrepare(now algorithms.Local, m algorithms.Message, out *algorithms.Output) {
	s := n.res.get(m.Resource)
	if s != nil {
		n.expire(now, m.Resource, s, out)
		if m.Ballot < s.promised || guarded(s, now, m.From) {
			n.rejectWith(now, m, algorithms.PrepareReject, s, out)
			return
		}
	} else {
		s = n.res.put(m.Resource)
	}
	if s.accepted == 0 {
		s.accUntil = 0 // a guard ends with the next promise
	}
	s.promised = m.Ballot
	p := n.reply(m, algorithms.Promise)
	s.report(&p, now)
	out.Send(p)
}

func (n *Node) onPropose(now algorithms.Local, m algorithms.Message, out *algorithms.Output) {
	// A proposer proposes itself, for at most M: anything else is
	// malformed (the quarantine only covers spans up to M).
	if m.Owner != m.From || m.Span <= 0 || m.Span > int64(n.params.MaxLease) {
		return
	}
	s := n.res.get(m.Resource)
	if s != nil {
		n.expire(now, m.Resource, s, out)
		if m.Ballot < s.promised {
			n.rejectWith(now, m, algorithms.ProposeReject, s, out)
			return
		}
		// A live lease of another owner stays. A proposer with a valid
		// majority of open promises never needs to overwrite one: the
		// acceptors it counted were empty (or held its own lease), and a
		// lease accepted there after its prepare carries a higher ballot,
		// which makes its proposal fail anyway. So a proposal that meets
		// another owner's live lease is stale: sent on a promise majority
		// that a restart has since undone, to an acceptor that never saw
		// its prepare, or after a stale copy of its prepare (a promise
		// its proposer never counted). Accepting it would put its owner's
		// (owner, ballot) where the holder's lease was, and that owner's
		// release, sent for the round it gave up or the lease it ended,
		// would then erase the holder's lease here (abandon-release
		// ablation).
		//
		// "Another owner" means another proposer: a node in an earlier
		// life is one (algorithms.SameProposer). Its ballots may be above
		// its new life's (the run counter starts again at a restart), so
		// a Propose of the earlier life, delayed past the crash, would
		// otherwise replace the new life's live lease here as "its own",
		// and the earlier life's Release of that ballot would erase it
		// (cross-life-ballots ablation).
		if n.keepOthers && s.accepted != 0 && !n.sameOwner(s.accepted, m.Ballot) {
			n.rejectWith(now, m, algorithms.ProposeReject, s, out)
			return
		}
	} else {
		s = n.res.put(m.Resource)
	}
	// Accept: the timer starts now, after the proposer started its own
	// (it counts from its Prepare), which is what makes the lease safe.
	s.promised = m.Ballot
	s.accepted = m.Ballot
	s.accUntil = now.Add(time.Duration(m.Span))
	n.setAccTimer(m.Resource, s, out)
	out.Emit(algorithms.Event{Kind: algorithms.Granted, Resource: m.Resource, Owner: m.Owner, Ballot: m.Ballot, Until: s.accUntil})
	a := n.reply(m, algorithms.Accepted)
	a.Owner = m.Owner
	out.Send(a)
}

func (n *Node) onRelease(now algorithms.Local, m algorithms.Message, out *algorithms.Output) {
	s := n.res.get(m.Resource)
	if s != nil && s.accepted == 0 && s.promised == m.Ballot && m.Owner == m.From {
		s.accUntil = 0 // its proposer gave up: no guard for it
		return
	}
	if s == nil || s.accepted == 0 || m.Owner != m.From {
		return
	}
	n.expire(now, m.Resource, s, out)
	if s.accepted == 0 || !n.sameOwner(s.accepted, m.Ballot) {
		return
	}
	// Only the exact lease released: a release delayed past the owner's
	// next acquisition must not clear that one.
	if n.exactRelease && s.accepted != m.Ballot {
		return
	}
	n.clear(now, m.Resource, s, out)
	n.cancelAccTimer(m.Resource, s, out)
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

// onDecline ends the guard of a promise whose proposer will not use it.
// It touches nothing else: not the promise, not an accepted proposal.
func (n *Node) onDecline(m algorithms.Message) {
	if s := n.res.get(m.Resource); s != nil && s.accepted == 0 && s.promised == m.Ballot && m.Owner == m.From {
		s.accUntil = 0
	}
}

// ---- proposer (Sec. 3 steps 1, 3, 5; Sec. 6; Sec. 7) ----

// holding reports the lease this node holds on r, if any, at now.
func (n *Node) holding(now algorithms.Local, r algorithms.ResourceID) (*slot, bool) {
	s := n.res.get(r)
	return s, s != nil && s.heldRound != 0 && now < s.until
}

// heldBallot is the ballot of the lease s holds (or held), 0 if none.
func (n *Node) heldBallot(s *slot) algorithms.Ballot {
	if s.heldRound == 0 {
		return 0
	}
	return algorithms.MakeBallot(s.heldRound, n.restarts, n.id)
}

func (n *Node) request(now algorithms.Local, r algorithms.ResourceID, extend bool, out *algorithms.Output) {
	if !n.cluster.IsProposer(n.id) {
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Owner: n.id, Resource: r})
		return
	}
	if s, held := n.holding(now, r); held && !extend {
		// Already the holder: the answer is the lease it holds (a
		// client that lost track of it, or asks again, still gets
		// one), at once, whether or not an extension is under way
		// (algorithms.Acquire): the hold stands until s.until whatever
		// the extension's outcome. Extend renews.
		b := n.heldBallot(s)
		out.Emit(algorithms.Event{Kind: algorithms.Acquired, Owner: n.id, Resource: r, Ballot: b, Until: s.until,
			Token: algorithms.BallotToken(0, b)})
		return
	}
	if n.rounds[r] != nil {
		return // already trying
	}
	rd := n.newRound(r)
	if n.silent {
		rd.queued = true
		n.pending = append(n.pending, r)
		return
	}
	n.startRound(now, r, rd, out)
}

func (n *Node) newRound(r algorithms.ResourceID) *round {
	var rd *round
	if k := len(n.free); k > 0 {
		rd = n.free[k-1]
		n.free = n.free[:k-1]
	} else {
		rd = new(round)
	}
	n.rounds[r] = rd
	if len(n.rounds) > n.roundsPeak {
		n.roundsPeak = len(n.rounds)
	}
	return rd
}

// endRound forgets the acquisition on r.
func (n *Node) endRound(r algorithms.ResourceID, rd *round) {
	delete(n.rounds, r)
	*rd = round{}
	if len(n.free) < 1024 {
		n.free = append(n.free, rd)
	}
	// A Go map never shrinks; after a large batch, start a fresh one so
	// the buckets of a million finished rounds do not stay allocated.
	if len(n.rounds) == 0 && n.roundsPeak > 4096 {
		n.rounds = make(map[algorithms.ResourceID]*round)
		n.roundsPeak = 0
	}
}

// nextBallot returns a ballot of this node above every ballot it used
// and above learned, or 0 if the run counter is exhausted. Its run counter
// is at least 1, being above MakeBallot(0, n.restarts, n.id) (a held
// lease's slot.heldRound relies on it).
func (n *Node) nextBallot(learned algorithms.Ballot) algorithms.Ballot {
	above := algorithms.MakeBallot(n.lastRound, n.restarts, n.id)
	if learned > above {
		above = learned
	}
	b := algorithms.Next(above, n.restarts, n.id)
	if b <= above {
		return 0
	}
	n.lastRound = b.Round()
	return b
}

func (n *Node) startRound(now algorithms.Local, r algorithms.ResourceID, rd *round, out *algorithms.Output) {
	b := n.nextBallot(rd.learned)
	if b == 0 {
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Owner: n.id, Resource: r})
		n.endRound(r, rd)
		return
	}
	rd.ballot, rd.phase = b, phasePrepare
	rd.promised.Reset()
	rd.open.Reset()
	rd.accepted.Reset()
	rd.rejected.Reset()
	rd.leased.Reset()
	rd.nOpen, rd.nAccepted, rd.hint, rd.busy, rd.parked = 0, 0, 0, false, false
	rd.deadline = 0
	if n.earlyTimer {
		// The strict rule: the lease counts from this moment, before any
		// acceptor has seen the ballot, so every acceptor timer started
		// for it starts later.
		rd.deadline = now.Add(n.hold)
	}
	out.Emit(algorithms.Event{Kind: algorithms.Round, Owner: n.id, Resource: r, Ballot: b})
	for a := 0; a < n.cluster.Acceptors; a++ {
		out.Send(algorithms.Message{Kind: algorithms.Prepare, From: n.id, To: algorithms.NodeID(a), Resource: r, Ballot: b, Owner: algorithms.NoNode})
	}
	n.armPhase(now, r, rd, out)
}

// armPhase sets the phase timeout: ResponseTimeout, but never past the
// end of the lease the round would give (a later majority is worthless).
func (n *Node) armPhase(now algorithms.Local, r algorithms.ResourceID, rd *round, out *algorithms.Output) {
	at := now.Add(n.params.ResponseTimeout)
	if rd.deadline != 0 && rd.deadline < at {
		at = rd.deadline
	}
	out.SetTimer(algorithms.TimerKey{Resource: r, Kind: timerRound}, at)
}

func (n *Node) onPromise(now algorithms.Local, m algorithms.Message, rd *round, out *algorithms.Output) {
	parked := rd.phase == phaseWait && rd.parked
	if rd.phase != phasePrepare && !parked {
		return
	}
	a := m.From
	open := m.Owner == algorithms.NoNode
	if !open && m.Owner == n.id {
		if n.activeOnly {
			// Our own lease counts as open only if it is the one we hold
			// now: same ballot, not expired. An older proposal of ours may
			// be a leftover that overwrote someone else's lease.
			s, held := n.holding(now, m.Resource)
			open = held && m.Accepted == n.heldBallot(s)
		} else {
			open = true
		}
	}
	// A second promise from one acceptor counts only as an upgrade: it
	// promised this ballot while it held a lease, and has since become
	// empty (release-promise, or a copy of the Prepare answered later).
	// That is sound: it still promises this ballot, so it accepted
	// nothing since, and the lease this round would give counts from its
	// Prepare, before either answer. A parked round still records late
	// promises, so that a later upgrade of theirs counts.
	upgrade := n.releasePromise && open && rd.promised.Has(a) && !rd.open.Has(a)
	if n.distinctVotes && (rd.promised.Has(a) || rd.rejected.Has(a)) && !upgrade {
		return // a duplicate: one acceptor, one vote
	}
	rd.promised.Add(a)
	if open {
		rd.open.Add(a)
		rd.nOpen++
	} else {
		n.noteLease(rd, m)
	}
	votes := rd.open.Len()
	if !n.distinctVotes {
		votes = int(rd.nOpen)
	}
	if votes >= n.majority {
		n.propose(now, m.Resource, rd, out)
		return
	}
	if parked {
		n.declineIfHopeless(m.Resource, rd, out)
		if upgrade && rd.phase == phaseWait && rd.parked {
			n.awaitSplit(now, m.Resource, rd, out)
		}
		return
	}
	n.checkPrepare(now, m.Resource, rd, out)
}

// awaitSplit bounds the wait of a parked round that has a re-sent open
// promise but no majority (split-retry). Waiters that queued behind the
// same lease at different acceptors are each re-promised by some of them
// and guarded there, and none may ever reach a majority: without a bound
// all of them wait out the guards (Backoff) and then their round timers
// (testdata/handoff-split-retry-no-split-retry.txt). Two round trips after an
// upgrade the rest of a majority has had time to answer; if not, the
// round prepares again, which also replaces its guards.
func (n *Node) awaitSplit(now algorithms.Local, r algorithms.ResourceID, rd *round, out *algorithms.Output) {
	if !n.splitRetry || n.rtt <= 0 {
		return
	}
	out.SetTimer(algorithms.TimerKey{Resource: r, Kind: timerRound}, now.Add(min(n.params.Backoff, 2*n.rtt)))
}

// noteLease records a lease an acceptor reported (in a promise or a
// reject): how long it may still run, and its ballot, which our next
// ballot should pass (the holder's acceptors have promised at least that).
func (n *Node) noteLease(rd *round, m algorithms.Message) {
	if d := time.Duration(m.Span); d > rd.hint {
		rd.hint = d
	}
	if n.ballotLearning && m.Accepted > rd.learned {
		rd.learned = m.Accepted
	}
}

// declineIfHopeless: once rejects leave too few acceptors for a majority
// of promises, this ballot can never propose; acceptors that re-sent it
// their promise (release-promise) may still guard it against everyone
// else (three acceptors guarding three different proposers block all
// three), so decline those promises with a Release of the ballot. It
// clears a guard only (nothing was accepted under this ballot).
func (n *Node) declineIfHopeless(r algorithms.ResourceID, rd *round, out *algorithms.Output) {
	if rd.open.Len() == 0 || n.guardSpan() == 0 || n.cluster.Acceptors-rd.rejected.Len() >= n.majority {
		return
	}
	for a := 0; a < n.cluster.Acceptors; a++ {
		if rd.open.Has(algorithms.NodeID(a)) {
			out.Send(n.decline(algorithms.NodeID(a), r, rd.ballot))
		}
	}
	rd.open.Reset()
	rd.nOpen = 0
}

// declineSpan marks a Release that only declines a guarded promise. It
// must never clear an accepted proposal: the ballot it names may be one
// this node holds a lease under (a copy of a promise can arrive after
// the round ended in an acquisition).
const declineSpan = -1

func (n *Node) decline(to algorithms.NodeID, r algorithms.ResourceID, b algorithms.Ballot) algorithms.Message {
	return algorithms.Message{Kind: algorithms.Release, From: n.id, To: to, Resource: r, Ballot: b, Owner: n.id, Span: declineSpan}
}

// answered counts the distinct acceptors that answered the prepare
// phase, by promise or by reject.
func (rd *round) answered() int {
	return algorithms.CountOf(&rd.promised, &rd.rejected, &rd.rejected, func(promised, rejected, _ uint64) uint64 {
		return promised | rejected
	})
}

// prepareSent is when rd's Prepare went out, during its prepare phase:
// the strict early timer set the deadline then, one hold ahead. The round
// keeps no time of its own for it (a round stays at 128 bytes); with
// late-timer ablated the deadline is unknown until the propose phase, and
// the round trip is not measured.
func (n *Node) prepareSent(rd *round) algorithms.Local {
	return rd.deadline.Add(-n.hold)
}

// busyVotes counts the distinct acceptors that reported someone's lease
// in the prepare phase, by promise or by reject.
func (rd *round) busyVotes() int {
	return algorithms.CountOf(&rd.promised, &rd.open, &rd.leased, func(promised, open, leased uint64) uint64 {
		return promised&^open | leased
	})
}

// checkPrepare ends a prepare phase that can no longer reach an open
// majority.
func (n *Node) checkPrepare(now algorithms.Local, r algorithms.ResourceID, rd *round, out *algorithms.Output) {
	n.declineIfHopeless(r, rd, out)
	notOpen := rd.promised.Len() - rd.open.Len()
	rejected := rd.rejected.Len()
	switch {
	case rd.busyVotes() >= n.majority:
		// A majority reports someone's lease: it is validly held. Wait
		// for it to end; this is not a failed round.
		n.waitBusy(now, r, rd, out)
		rd.parked = rd.busy && n.releasePromise
	case n.cluster.Acceptors-notOpen-rejected >= n.majority:
		// Still reachable: wait for more answers.
	case rejected > 0:
		n.preempted(now, r, rd, out)
	default:
		// Leftover leases at some acceptors block a majority but hold no
		// majority themselves (an even number of acceptors): a failed
		// round; retry once they have run out.
		n.failRound(now, r, rd, rd.hint, out)
	}
}

func (n *Node) propose(now algorithms.Local, r algorithms.ResourceID, rd *round, out *algorithms.Output) {
	if !n.earlyTimer {
		// late-timer ablation: the pseudo-code's step 3 starts the
		// proposer's timer only now.
		rd.deadline = now.Add(n.hold)
	}
	if now >= rd.deadline {
		return // too late for any lease; the phase timer (due now) fails the round
	}
	rd.phase, rd.busy, rd.parked = phasePropose, false, false
	rd.accepted.Reset()
	rd.rejected.Reset()
	rd.leased.Reset()
	rd.nAccepted = 0
	for a := 0; a < n.cluster.Acceptors; a++ {
		out.Send(algorithms.Message{Kind: algorithms.Propose, From: n.id, To: algorithms.NodeID(a), Resource: r, Ballot: rd.ballot, Owner: n.id, Span: int64(n.params.LeaseSpan)})
	}
	n.armPhase(now, r, rd, out)
}

func (n *Node) onAccepted(now algorithms.Local, m algorithms.Message, rd *round, out *algorithms.Output) {
	if rd.phase != phasePropose {
		return
	}
	a := m.From
	if n.distinctVotes && (rd.accepted.Has(a) || rd.rejected.Has(a)) {
		return
	}
	rd.accepted.Add(a)
	rd.nAccepted++
	votes := rd.accepted.Len()
	if !n.distinctVotes {
		votes = int(rd.nAccepted)
	}
	if votes < n.majority || now >= rd.deadline {
		return // (past the deadline the phase timer, due now, fails the round)
	}
	s := n.res.put(m.Resource)
	// rd.ballot is this node's, of its restart counter (nextBallot), so
	// its run counter names it (heldBallot).
	s.heldRound, s.until = rd.ballot.Round(), rd.deadline
	out.CancelTimer(algorithms.TimerKey{Resource: m.Resource, Kind: timerRound})
	out.Emit(algorithms.Event{Kind: algorithms.Acquired, Owner: n.id, Resource: m.Resource, Ballot: rd.ballot, Until: rd.deadline,
		Token: algorithms.BallotToken(0, rd.ballot)})
	n.endRound(m.Resource, rd)
}

func (n *Node) onReject(now algorithms.Local, m algorithms.Message, rd *round, out *algorithms.Output) {
	a := m.From
	switch {
	case m.Kind == algorithms.PrepareReject && rd.phase == phasePrepare:
		if rd.promised.Has(a) {
			return
		}
	case m.Kind == algorithms.ProposeReject && rd.phase == phasePropose:
		if rd.accepted.Has(a) {
			return
		}
	default:
		return
	}
	if !rd.rejected.Add(a) {
		return
	}
	if n.ballotLearning && m.Promised > rd.learned {
		rd.learned = m.Promised
	}
	switch {
	case m.Owner != algorithms.NoNode && m.Accepted != 0:
		if s, held := n.holding(now, m.Resource); !(held && m.Owner == n.id && m.Accepted == n.heldBallot(s)) {
			rd.leased.Add(a)
			n.noteLease(rd, m)
		}
	case m.Owner != algorithms.NoNode && m.Owner != n.id && m.Span > 0 && m.Span <= int64(n.params.MaxLease):
		// A guarded promise (promise-guard): another proposer is about
		// to take the lease. Wait for it like for a held lease; its
		// release hint wakes us. Its Span is the guard's end, which
		// says nothing of when that lease ends: come back after two
		// round trips (capped at it) if no hint came.
		rd.leased.Add(a)
		g := time.Duration(m.Span)
		if n.rtt > 0 {
			g = min(g, 2*n.rtt)
		}
		if g > rd.hint {
			rd.hint = g
		}
	}
	if rd.phase == phasePrepare {
		n.checkPrepare(now, m.Resource, rd, out)
		if n.queueFree(m, rd) {
			// Queue-behind: the acceptors will promise a ballot above
			// the lease (a promise reports the lease, so we park) and
			// re-send that promise at the release; without it nobody
			// holds a promise then, and the releasing holder, asking
			// again after its pause, mostly wins the lease back. This
			// only chooses when to start a round and with which ballot,
			// which any proposer may do at any time.
			n.startRound(now, m.Resource, rd, out)
		}
		return
	}
	switch {
	case rd.leased.Len() >= n.majority:
		// Someone with a higher ballot got in and holds: wait for it.
		n.waitBusy(now, m.Resource, rd, out)
	case n.cluster.Acceptors-rd.rejected.Len() < n.majority:
		n.preempted(now, m.Resource, rd, out)
	}
}

// queueFree reports whether the reject m, which ended rd's prepare phase
// in a wait for someone's lease, shows that nobody queues behind that
// lease: its acceptor's highest promise is the lease's own ballot. It
// needs release-promise (which re-sends the promise it would win) and
// ballot learning (rejects carry the promised ballot); it is judged on
// the deciding reject alone, so that a round keeps no more state.
func (n *Node) queueFree(m algorithms.Message, rd *round) bool {
	if !n.queueBehind || !n.releasePromise || !n.ballotLearning {
		return false
	}
	if rd.phase != phaseWait || !rd.busy || m.Accepted == 0 || m.Owner == n.id {
		return false
	}
	return m.Promised == m.Accepted
}

func (n *Node) preempted(now algorithms.Local, r algorithms.ResourceID, rd *round, out *algorithms.Output) {
	// The node in the way made the highest ballot we learned, if any.
	in := algorithms.NoNode
	if rd.learned != 0 {
		in = rd.learned.Node()
	}
	out.Emit(algorithms.Event{Kind: algorithms.Preempted, Owner: in, Resource: r, Ballot: rd.learned})
	n.failRound(now, r, rd, 0, out)
}

// failRound counts a lost round and schedules the next one, at least
// minWait from now.
func (n *Node) failRound(now algorithms.Local, r algorithms.ResourceID, rd *round, minWait time.Duration, out *algorithms.Output) {
	n.abandonPropose(now, r, rd, out)
	rd.fails++
	if int(rd.fails) >= n.params.MaxRounds {
		out.CancelTimer(algorithms.TimerKey{Resource: r, Kind: timerRound})
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Owner: n.id, Resource: r})
		n.endRound(r, rd)
		return
	}
	if _, held := n.holding(now, r); held {
		// The renewal dilemma: competitors' failed prepares pushed the
		// acceptors' promised ballot past ours while we held the lease.
		// The reject told us how far (ballot learning); go again at once,
		// past it, before the lease runs out. Competitors that see our
		// lease wait for it instead of pushing further.
		n.startRound(now, r, rd, out)
		return
	}
	n.wait(now, r, rd, minWait+n.jitter(int(rd.fails)), out)
}

// abandonPropose: a round that loses its propose phase will never use its
// ballot, so acceptors that accepted it hold a leftover that blocks every
// other proposer (keep-others) until their timers run out. Failed-release
// clears it at once with a Release of that exact ballot, as a client's
// giveup during the propose phase does. Not while this node holds a lease
// on r: a failed extension's ballot replaced the held lease at the
// acceptors that accepted it, and releasing it would erase the record of
// a lease still in use.
func (n *Node) abandonPropose(now algorithms.Local, r algorithms.ResourceID, rd *round, out *algorithms.Output) {
	if !n.failedRelease || rd.phase != phasePropose {
		return
	}
	if _, held := n.holding(now, r); held {
		return
	}
	for a := 0; a < n.cluster.Acceptors; a++ {
		out.Send(algorithms.Message{Kind: algorithms.Release, From: n.id, To: algorithms.NodeID(a), Resource: r, Ballot: rd.ballot, Owner: n.id})
	}
}

// waitBusy waits for a validly held lease to end: the longest remaining
// time the acceptors reported, plus jitter so that waiters do not all
// come back at once.
func (n *Node) waitBusy(now algorithms.Local, r algorithms.ResourceID, rd *round, out *algorithms.Output) {
	n.abandonPropose(now, r, rd, out)
	d := rd.hint
	if d <= 0 || d > n.params.MaxLease {
		d = n.params.LeaseSpan
	}
	n.wait(now, r, rd, d+n.jitter(int(rd.fails)), out)
	rd.busy = rd.phase == phaseWait
}

// onReleaseHint: a holder released r (Sec. 7: releases go to proposers
// too, as hints). A proposer waiting for a held lease to end tries again
// after a random backoff instead of sleeping out the lease's full span.
func (n *Node) onReleaseHint(now algorithms.Local, m algorithms.Message, out *algorithms.Output) {
	rd := n.rounds[m.Resource]
	if rd == nil || rd.queued || rd.phase != phaseWait || !rd.busy {
		return
	}
	if n.ballotLearning && m.Ballot > rd.learned {
		rd.learned = m.Ballot
	}
	parked := rd.parked
	d := n.jitter(int(rd.fails))
	if n.headStart && n.rtt > 0 {
		// Head-start: the acceptors learn of the release when we do, and
		// re-promise to the highest ballot they promised (release-promise),
		// whose proposer needs one more round trip to propose. A prepare
		// of ours within that time would only preempt it; one sent later
		// finds its lease and waits. So wait 1.5 round trips first
		// (capped, like every backoff, at Params.Backoff).
		d += min(n.params.Backoff, n.rtt*3/2)
	}
	n.wait(now, m.Resource, rd, d, out)
	if parked && rd.phase == phaseWait {
		// Still waiting: we may be that head ourselves.
		rd.parked = true
	}
}

func (n *Node) wait(now algorithms.Local, r algorithms.ResourceID, rd *round, d time.Duration, out *algorithms.Output) {
	if d <= 0 {
		n.startRound(now, r, rd, out)
		return
	}
	rd.phase, rd.busy, rd.parked = phaseWait, false, false
	out.SetTimer(algorithms.TimerKey{Resource: r, Kind: timerRound}, now.Add(d))
}

// jitter is the random backoff before a retry, after fails lost rounds of
// this acquisition: uniform in [0, Backoff], or, with rtt-backoff and a
// measured round trip, in [0, 4·rtt·2^fails] capped at Backoff. A round
// needs about one round trip after its prepare to claim the acceptors
// before a rival's prepare preempts it; a window of a few round trips,
// doubling with each lost round, spreads a duel's proposers out until
// one round trip separates the first from the next, instead of sleeping
// a fixed Backoff sized for the slowest network.
func (n *Node) jitter(fails int) time.Duration {
	if !n.backoff || n.params.Backoff <= 0 {
		return 0
	}
	w := n.params.Backoff
	if n.rttBackoff && n.rtt > 0 {
		w = min(w, n.rtt<<min(fails+2, 20))
	}
	return time.Duration(n.rand.Int64N(int64(w) + 1))
}

// sampleRTT folds one measured round trip into the moving average
// (weight 1/8, as TCP's smoothed RTT).
func (n *Node) sampleRTT(d time.Duration) {
	if d <= 0 {
		d = 1
	}
	if n.rtt == 0 {
		n.rtt = d
		return
	}
	n.rtt += (d - n.rtt) / 8
}

func (n *Node) relinquish(now algorithms.Local, r algorithms.ResourceID, out *algorithms.Output) {
	s, held := n.holding(now, r)
	// To every acceptor, and to every other proposer as a hint that the
	// lease is free (Sec. 7).
	release := func(b algorithms.Ballot) {
		for i := 0; i < n.cluster.Nodes; i++ {
			to := algorithms.NodeID(i)
			if to == n.id && !n.cluster.IsAcceptor(to) || !n.cluster.IsAcceptor(to) && (!n.cluster.IsProposer(to) || !n.releaseHints) {
				continue
			}
			out.Send(algorithms.Message{Kind: algorithms.Release, From: n.id, To: to, Resource: r, Ballot: b, Owner: n.id})
		}
	}
	if s != nil && s.heldRound != 0 {
		b := n.heldBallot(s)
		s.heldRound, s.until = 0, 0
		if held {
			// Sec. 7: stop believing first, then tell the acceptors.
			out.Emit(algorithms.Event{Kind: algorithms.Lost, Owner: n.id, Resource: r, Ballot: b})
		}
		// Even an expired lease may still sit at acceptors whose timers
		// run later: releasing it lets the next owner in sooner.
		release(b)
	}
	rd := n.rounds[r]
	if rd == nil {
		return
	}
	if rd.phase == phasePropose {
		// Our proposal may be accepted after all; we will never use it.
		release(rd.ballot)
	}
	if !rd.queued {
		out.CancelTimer(algorithms.TimerKey{Resource: r, Kind: timerRound})
	}
	n.endRound(r, rd)
}
