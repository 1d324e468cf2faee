package fatlease

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"leaselab/algorithms"
)

// Message flags (algorithms.Message.Flags) of this engine.
const (
	// FlagChosen: Owner/Expiry (ballot in Accepted) is the chosen lease of
	// Instance (Promise, Outdated): the proposer can learn it at once.
	FlagChosen uint8 = 1 << iota
	// FlagVoid: that lease was invalidated by its owner.
	FlagVoid
	// FlagLower: the Fig. 4 reject. Instance is a lower instance whose
	// lease (Owner, Expiry) may still be valid (Outdated).
	FlagLower
	// FlagStale: the proposed lease is already over as the acceptor sees
	// it (Outdated; Instance is the request's).
	FlagStale
	// FlagRenew: the Prepare opens a renew instance (informational).
	FlagRenew
)

// Timer kinds.
const (
	timerPhase uint8 = iota + 1 // ResponseTimeout of the phase in flight
	timerRetry                  // backoff, or a wait for a lease to run out
	timerHold                   // end of this node's hold
	timerJoin                   // end of the restart wait (resource 0)
)

// Ablation names.
const (
	AblateRestartWait   = "restart-wait"
	AblateSafetyPeriod  = "safety-period"
	AblatePrevInstCheck = "previous-instance-check"
	AblateDriftMargin   = "drift-margin"
	AblateFsync         = "fsync"
	AblateReusedBallots = "reused-ballots"
)

// Options says how acceptors keep their state: the one difference
// between FaTLease and the classic Paxos baseline, so both run on this
// code (the paper's "same code base for both algorithms").
type Options struct {
	// Durable: every acceptor state change a reply implies goes to
	// Output.Persist in the same Output as the reply; a restarted node
	// rebuilds its acceptor state from Config.Recovered and rejoins at
	// once. Without it (FaTLease) a restarted node waits out every lease
	// it may have taken part in (v + d_max) instead.
	Durable bool
}

// Node is one host of the cluster: Multipaxos acceptor (if it is one),
// learner, and proposer (if it is one), for any number of resources. Its
// fixed configuration (rules) is shared by its clones; the rest is state.
type Node struct {
	*rules
	rand *rand.Rand

	recovered []algorithms.Record
	// ownFloor: leases of this node ending no later than this were
	// proposed in an earlier life (restart time + v). The node never
	// holds them: it lost what it knew of them (it may even have given
	// them up), and a durable acceptor can hand them back through Paxos.
	ownFloor algorithms.Local
	joining  bool                    // in the restart wait
	pending  []algorithms.ResourceID // requests that arrived while joining
	// lastBallot is the highest ballot this node's proposer used in this
	// life, over every resource and instance; the next one is above it.
	// A ballot is never used twice: a proposer's per-resource state
	// (prop) is deleted when its request ends, and a node that is not an
	// acceptor has no acceptor record to push its next ballot up, so
	// without it the next request would start again at 0.0.id in the same
	// instance, and delayed answers to the earlier round, with the same
	// (instance, ballot), would count for the new one (reused-ballots
	// ablation).
	lastBallot algorithms.Ballot

	res   map[algorithms.ResourceID]*rstate
	props map[algorithms.ResourceID]*prop
}

// rules is what a node is configured with: fixed for its life, and the
// same for every clone the explorer makes of it, so neither Clone nor
// AppendState looks at it.
type rules struct {
	id                 algorithms.NodeID
	cl                 algorithms.Cluster
	p                  algorithms.Params
	restarts           uint16
	isAcceptor, isProp bool
	durable, noSync    bool
	noRestartWait      bool
	noSafety           bool
	noPrevCheck        bool
	reuseBallots       bool // ablation reused-ballots: no node-level run counter

	dmax       time.Duration
	holdMargin time.Duration // the holder ends its hold this much before t
	restartFor time.Duration // restart wait, drift-adjusted
	missedFor  time.Duration // bound on a missed previous instance
}

// driftScale is (1+ρ)/(1-ρ): a span measured on one clock, as the longest
// it can be on another.
func driftScale(rho float64) float64 { return (1 + rho) / (1 - rho) }

func scaled(d time.Duration, f float64) time.Duration {
	return time.Duration(math.Ceil(float64(d) * f))
}

// margins computes the drift allowances (see doc.go, "Clock drift").
func margins(p algorithms.Params) (hold, restart, missed time.Duration) {
	rho := p.Drift
	hold = scaled(p.LeaseSpan+2*p.DMax, 2*rho/(1-rho))
	restart = scaled(p.LeaseSpan+p.DMax, driftScale(rho)) + 1
	missed = scaled(p.LeaseSpan, driftScale(rho)) + p.DMax + 1
	return
}

// Validate checks what the engine needs beyond Params.Validate.
func Validate(p algorithms.Params, c algorithms.Cluster) error {
	if p.LeaseSpan <= p.DMax {
		return fmt.Errorf("lease span v must exceed the clock bound d_max (v > d_max, Sec. 4.1), got v=%v d_max=%v", p.LeaseSpan, p.DMax)
	}
	hold, _, _ := margins(p)
	if hold >= p.LeaseSpan {
		return fmt.Errorf("drift bound %g leaves no lease: the holder's margin 2ρ(v+2·d_max)/(1-ρ) = %v is not below v = %v", p.Drift, hold, p.LeaseSpan)
	}
	return nil
}

// New builds a node from a configuration the registry has validated
// (algorithms.Algorithm.New: fatlease's ablations, or classic Paxos's
// fsync): build nodes through the registry unless cfg is known to be good.
func New(cfg algorithms.Config, opt Options) *Node {
	hold, restart, missed := margins(cfg.Params)
	if cfg.Ablations.Has(AblateDriftMargin) {
		hold = 0 // the holder keeps its lease until its clock reads t
	}
	n := &Node{
		rules: &rules{
			id:            cfg.ID,
			cl:            cfg.Cluster,
			p:             cfg.Params,
			restarts:      cfg.Restarts,
			isAcceptor:    cfg.Cluster.IsAcceptor(cfg.ID),
			isProp:        cfg.Cluster.IsProposer(cfg.ID),
			durable:       opt.Durable,
			noSync:        cfg.Ablations.Has(AblateFsync),
			noRestartWait: cfg.Ablations.Has(AblateRestartWait),
			noSafety:      cfg.Ablations.Has(AblateSafetyPeriod),
			noPrevCheck:   cfg.Ablations.Has(AblatePrevInstCheck),
			reuseBallots:  cfg.Ablations.Has(AblateReusedBallots),
			dmax:          cfg.Params.DMax,
			holdMargin:    hold,
			restartFor:    restart,
			missedFor:     missed,
		},
		rand:      cfg.Rand,
		recovered: cfg.Recovered,
		res:       map[algorithms.ResourceID]*rstate{},
		props:     map[algorithms.ResourceID]*prop{},
	}
	return n
}

// Step implements algorithms.Node.
func (e *Node) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	switch in.Kind {
	case algorithms.Start:
		e.start(now, out)
	case algorithms.Recv:
		if e.joining || !e.valid(in.Msg) {
			return // the restart wait: drop everything
		}
		e.recv(now, in.Msg, out)
	case algorithms.Fire:
		e.fire(now, in.Timer, out)
	case algorithms.Acquire, algorithms.Extend:
		e.request(now, in.Resource, in.Kind, out)
	case algorithms.Relinquish:
		e.relinquish(now, in.Resource, out)
	}
}

// valid rejects malformed messages (they are dropped: Step has no error
// path and must never panic on network input).
func (e *Node) valid(m algorithms.Message) bool {
	if !m.Kind.Valid() || m.To != e.id || int(m.From) >= e.cl.Nodes {
		return false
	}
	switch m.Kind {
	case algorithms.Promise, algorithms.PrepareReject, algorithms.Accepted,
		algorithms.ProposeReject, algorithms.Outdated:
		return e.cl.IsAcceptor(m.From) // only acceptors' answers count
	case algorithms.Propose, algorithms.Learn:
		return m.Owner != algorithms.NoNode && int(m.Owner) < e.cl.Nodes
	}
	return true
}

func (e *Node) state(id algorithms.ResourceID) *rstate {
	r := e.res[id]
	if r == nil {
		r = newRstate()
		e.res[id] = r
	}
	return r
}

// start handles Input Start: a first start, or a restart after a crash.
func (e *Node) start(now algorithms.Local, out *algorithms.Output) {
	if e.durable {
		e.recover(now, out)
	}
	if e.restarts == 0 {
		return
	}
	e.ownFloor = now.Add(e.p.LeaseSpan)
	if e.durable || e.noRestartWait {
		out.Emit(algorithms.Event{Kind: algorithms.Joined, Owner: algorithms.NoNode})
		return
	}
	// Sec. 4.4: every lease this node may have promised or accepted before
	// the crash was proposed before the crash, so it is over everywhere
	// once v + d_max (drift-adjusted) have passed here. Until then the
	// node says and believes nothing.
	e.joining = true
	out.SetTimer(algorithms.TimerKey{Kind: timerJoin}, now.Add(e.restartFor))
}

// recover rebuilds the acceptor state from the durable records, oldest
// first: the last record of an instance is its state; a resource keeps
// its two highest instances.
func (e *Node) recover(now algorithms.Local, out *algorithms.Output) {
	for _, rc := range e.recovered {
		if rc.Instance == 0 {
			continue
		}
		r := e.state(rc.Resource)
		rec := r.record(rc.Instance)
		if rec == nil {
			if rc.Instance < r.cur.n {
				continue
			}
			r.advance(rc.Instance, now)
			rec = &r.cur
		}
		rec.promised, rec.accBal = rc.Promised, rc.Accepted
		rec.acc = noLease
		if rc.Accepted != 0 && rc.Owner != algorithms.NoNode {
			rec.acc = lease{owner: rc.Owner, t: rc.Expiry}
		}
	}
	e.recovered = nil
}

func (e *Node) fire(now algorithms.Local, k algorithms.TimerKey, out *algorithms.Output) {
	if k.Kind == timerJoin {
		if !e.joining {
			return
		}
		e.joining = false
		out.Emit(algorithms.Event{Kind: algorithms.Joined, Owner: algorithms.NoNode})
		pend := e.pending
		e.pending = nil
		for _, id := range pend {
			if p := e.props[id]; p != nil && !p.rd.active {
				e.decide(now, id, e.state(id), p, out)
			}
		}
		return
	}
	if e.joining {
		return
	}
	p := e.props[k.Resource]
	if p == nil {
		return
	}
	r := e.state(k.Resource)
	switch k.Kind {
	case timerPhase:
		if !p.rd.active {
			return
		}
		out.Emit(algorithms.Event{Kind: algorithms.Timeout, Resource: k.Resource, Owner: e.id, Ballot: p.rd.ballot})
		e.failRound(now, k.Resource, p, out)
	case timerRetry:
		if !p.rd.active {
			e.decide(now, k.Resource, r, p, out)
		}
	case timerHold:
		if p.hold.on && now >= p.hold.until {
			p.hold.on = false
			e.decide(now, k.Resource, r, p, out)
		}
	}
}

// answer is the acceptor's answer to a Prepare or Propose.
func (e *Node) answer(now algorithms.Local, m algorithms.Message, out *algorithms.Output) algorithms.Message {
	r := e.state(m.Resource)
	if m.Kind == algorithms.Prepare {
		return e.onPrepare(now, r, m, out)
	}
	return e.onPropose(now, r, m, out)
}

// recv dispatches a message.
func (e *Node) recv(now algorithms.Local, m algorithms.Message, out *algorithms.Output) {
	switch m.Kind {
	case algorithms.Prepare, algorithms.Propose:
		if !e.isAcceptor {
			return
		}
		out.Send(e.answer(now, m, out))
	case algorithms.Promise, algorithms.PrepareReject, algorithms.Accepted,
		algorithms.ProposeReject, algorithms.Outdated:
		e.reply(now, m, out)
	case algorithms.Learn:
		r := e.state(m.Resource)
		if e.learn(now, m.Resource, r, m.Instance, lease{owner: m.Owner, t: m.Expiry}, m.Ballot, out) {
			e.changed(now, m.Resource, r, out)
		}
	case algorithms.Invalidate:
		if m.Owner != m.From {
			return // only a holder invalidates its own lease
		}
		r := e.state(m.Resource)
		e.invalidated(now, m.Resource, r, m.Instance, m.Owner, m.Expiry, out)
		e.changed(now, m.Resource, r, out)
	}
}

// toAcceptors sends m to every acceptor. A diskless node feeds its local
// acceptor's answer straight back (no message to self). A durable node may
// not: its acceptor's answer must wait until the state it implies is on
// disk like every other acceptor's, so it goes out as a message to self in
// an Output whose Persist records the runner syncs first.
func (e *Node) toAcceptors(now algorithms.Local, m algorithms.Message, out *algorithms.Output) {
	for a := 0; a < e.cl.Acceptors; a++ {
		if algorithms.NodeID(a) == e.id && !e.durable {
			continue
		}
		m.To = algorithms.NodeID(a)
		out.Send(m)
	}
	if !e.isAcceptor || e.durable {
		return
	}
	m.To = e.id
	e.reply(now, e.answer(now, m, out), out)
}

// toAll sends m to every other node (LEARN, INV go to all hosts).
func (e *Node) toAll(m algorithms.Message, out *algorithms.Output) {
	for n := 0; n < e.cl.Nodes; n++ {
		if algorithms.NodeID(n) == e.id {
			continue
		}
		m.To = algorithms.NodeID(n)
		out.Send(m)
	}
}

// LocalState is CHECK_LOCAL_STATE for resource id at local time now, as
// this node's learner sees it (used by tests and tools; the proposer uses
// the same rules).
type LocalState uint8

const (
	Unknown  LocalState = iota // no lease learned in the latest known instance
	Valid                      // a lease is certainly valid
	Safety                     // in the safety period [t-d_max, t+d_max]: wait
	Outdated                   // the last known lease is over: next instance
)

func (s LocalState) String() string {
	return [...]string{"unknown", "valid", "safety", "outdated"}[s]
}

// Local reports CHECK_LOCAL_STATE for id and the lease it is about.
func (e *Node) Local(id algorithms.ResourceID, now algorithms.Local) (LocalState, algorithms.NodeID, algorithms.Local, uint64) {
	r := e.res[id]
	if r == nil || r.cur.lrn.none() {
		if r == nil {
			return Unknown, algorithms.NoNode, 0, 0
		}
		return Unknown, algorithms.NoNode, 0, r.cur.n
	}
	l := r.cur.lrn
	switch {
	case r.lrnVoid(&r.cur) || e.over(l, now):
		return Outdated, l.owner, l.t, r.cur.n
	case l.owner == e.id || e.noSafety || now.Add(e.dmax) <= l.t:
		return Valid, l.owner, l.t, r.cur.n
	}
	return Safety, l.owner, l.t, r.cur.n
}

// Instance returns the current and previous instance numbers of id.
func (e *Node) Instance(id algorithms.ResourceID) (cur, prev uint64) {
	if r := e.res[id]; r != nil {
		return r.cur.n, r.prev.n
	}
	return 0, 0
}
