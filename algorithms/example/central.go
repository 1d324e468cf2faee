// Package example is the worked example of the extension guide (README,
// "Adding an algorithm"; DESIGN.md, "How to add an algorithm"): a complete
// lease algorithm outside leaselab's own four, written only against the
// algorithms contract. It registers itself and its message kinds from
// init, so importing it (one line in cmd/leaselab/algorithms.go) is all it
// takes for run, check, replay, node, cluster and bench to know it.
//
// The algorithm, "central", is the simplest correct lease: one lease
// server. Node 0, the only acceptor, keeps per resource at most one grant
// (owner, ballot, end on its own clock); every node may ask for leases.
//
//   - A client asks (central-ask, Ballot = a number fresh for this
//     attempt, Span = T) and remembers when it sent the ask.
//   - The server grants when it has no live grant on the resource, or when
//     the live grant is the asker's own and the ask's ballot is not older
//     than the grant's (an extension; an old duplicate is ignored). It
//     starts the grant's timer T on its own clock at receipt and answers
//     central-granted, echoing the ballot; otherwise it answers
//     central-busy naming the owner.
//   - A client that gets central-granted for its current attempt holds
//     from the instant it SENT the ask for T(1-ρ)/(1+ρ) on its clock (ρ =
//     Params.Drift): in real time that ends no later than the server's
//     grant, which started later and lasts at least T/(1+ρ). Answers to
//     older attempts are ignored.
//   - The fencing token is the server's, not the client's: central-granted
//     carries the grant's end on the server's clock (Expiry) and its place
//     among the grants the server made at that same instant (Instance).
//     The server grants in the order asks arrive, each after the grant
//     before it ended or was released, so tokens grow in grant order
//     whatever the network does; a restarted server answers only after
//     M, later than every grant of its earlier life. A token read off the
//     client's clock (its lease end, from when it sent the ask) would not
//     grow: a client on the server's host extends and releases while
//     another client's ask, sent before the extension, is still in
//     flight, and that ask is granted next with the lower token. The
//     battery's quick hand-off campaign finds that on the default network
//     (runner/internal/planted, test-central-client-token).
//   - Release (central-free) carries the client's latest ballot and clears
//     the owner's grant only if the grant's ballot is not higher: a delayed
//     release never clears a grant its sender got later.
//   - "The owner" is a proposer, a client in one life: the server compares
//     with algorithms.SameProposer, (node, restart counter). A restarted
//     client's rounds start again at 1, below its earlier life's, so an
//     ask or a release of the earlier life, delayed past the crash, is
//     another proposer's: answered busy, or ignored (ablation
//     cross-life-ballots: compared by node, such a release clears the new
//     life's grant).
//   - A restarted server has forgotten its grants, so it stays silent for
//     M (Params.MaxLease > T) before it answers: every grant it made in its
//     earlier life has ended by then.
//
// Three ablations are planted faults rather than rules worth measuring:
// grant-once (the server grants every ask), deadline (a holder keeps its
// lease 3T) and full-grant (the server frees a grant T/16 early). The
// runner's tests switch them on to show the checker, the campaigns and the
// explorer catching a broken rule.
//
// What it does not do: survive the server. While node 0 is down nobody
// gets a lease; that is the price of one acceptor, and what the Paxos
// family's majorities avoid.
package example

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"leaselab/algorithms"
)

// Name is the algorithm's registered name.
const Name = "central"

// The algorithm's own message kinds. Their numbers travel on the wire,
// so they are fixed here (a free block from algorithms.FirstExtensionKind),
// not handed out at start-up.
const (
	KindAsk     algorithms.Kind = algorithms.FirstExtensionKind + iota // client -> server: Ballot, Span
	KindGranted                                                        // server -> client: Ballot echoed, Owner = the client, Expiry and Instance = the token
	KindBusy                                                           // server -> client: Ballot echoed, Owner = the holder of the grant
	KindFree                                                           // client -> server: the owner's latest Ballot
)

// Ablations: the rules a run may switch off to see what they buy.
const (
	AblateRestartWait = "restart-wait"
	AblateDriftMargin = "drift-margin"
	AblateCrossLife   = "cross-life-ballots"
	// The planted faults: each breaks safety outright, so that tests can
	// show the checker, the campaigns and the explorer catching a broken
	// rule (runner/sim, runner/campaign and runner/explore use them).
	AblateGrantOnce = "grant-once"
	AblateDeadline  = "deadline"
	AblateFullGrant = "full-grant"
)

// Server is the lease server's node id.
const Server algorithms.NodeID = 0

// Timer kinds.
const (
	timerGrantEnd = 1 // server: the grant on Resource ends
	timerTimeout  = 2 // client: no answer to the ask within ResponseTimeout
	timerRetry    = 3 // client: backoff over, ask again
	timerHoldEnd  = 4 // client: its hold on Resource ends
	timerQuiet    = 5 // server: the restart wait is over
)

func init() {
	algorithms.RegisterKinds(Name, KindAsk, "central-ask", "central-granted", "central-busy", "central-free")
	algorithms.Register(algorithms.Algorithm{
		Name:    Name,
		Summary: "one lease server (node 0, the only acceptor) grants leases; the worked example of the extension guide",
		Ablations: []algorithms.Ablation{
			{Name: AblateRestartWait, Rule: "a restarted server stays silent for M before it answers (it forgot its grants)",
				Breaks: "a restarted server grants again at once while the holder it forgot still holds"},
			{Name: AblateDriftMargin, Rule: "the holder's lease ends at T(1-ρ)/(1+ρ) after its ask instead of T",
				Breaks: "a slow holder clock outlives a fast server's grant"},
			{Name: AblateCrossLife, Rule: "the server treats an ask or a release as the owner's own only from the same proposer, (node, restart counter) (algorithms.SameProposer), never from the node alone",
				Breaks: "a restarted client's attempts start again at round 1, below its earlier life's; a release of the earlier life, delayed past the crash, is 'not older' than the new life's grant and clears it, and another client is granted while the new life holds"},
			{Name: AblateGrantOnce, Rule: "the server grants an ask only when no other owner's grant on the resource is live, and answers central-busy otherwise",
				Breaks: "the server grants every ask, held or not: two clients hold at once as soon as two ask"},
			{Name: AblateDeadline, Rule: "a holder's lease ends at its deadline, T(1-ρ)/(1+ρ) after its ask (T with drift-margin ablated)",
				Breaks: "the holder keeps the lease for 3T after its ask, long past the server's grant, and holds beside the next client the server grants"},
			{Name: AblateFullGrant, Rule: "the server counts a grant live until its end, T after the ask arrived",
				Breaks: "the server takes a grant for ended T/16 before its end when another client asks (its timer still clears it at the end): an ask that arrives in that last sixteenth is granted while the holder holds"},
		},
		Fencing: "the end of the server's grant on the server's clock, then the grant's place among those the server made at that instant " +
			"(carried by central-granted; the ballot is each client's own counter): the server grants in the order asks arrive, each after the grant " +
			"before it ended or was released, and a restarted server answers only after M, so a later grant's end is later on the one clock that " +
			"reads them all, whatever the network, the clients' clocks or a crash do",
		TokenBreaks: 0,
		Validate:    validate,
		Build:       New,
	})
}

func validate(p algorithms.Params, c algorithms.Cluster) error {
	if c.Acceptors != 1 {
		return fmt.Errorf("needs exactly 1 acceptor (node 0 is the lease server), got %d: give --acceptors 1", c.Acceptors)
	}
	if p.LeaseSpan >= p.MaxLease {
		return fmt.Errorf("lease span %v must be below max lease M %v (a restarted server waits M)", p.LeaseSpan, p.MaxLease)
	}
	return nil
}

// New builds a node. The registry's Algorithm.New has validated cfg
// (validate above, and what every algorithm needs) before it calls New.
func New(cfg algorithms.Config) (algorithms.Node, error) {
	hold := cfg.Params.LeaseSpan
	switch {
	case cfg.Ablations.Has(AblateDeadline):
		hold = 3 * cfg.Params.LeaseSpan
	case !cfg.Ablations.Has(AblateDriftMargin):
		d := cfg.Params.Drift
		hold = time.Duration(math.Floor(float64(hold) * (1 - d) / (1 + d)))
	}
	return &node{cfg: cfg, hold: hold, grants: map[algorithms.ResourceID]*grant{}, reqs: map[algorithms.ResourceID]*req{}}, nil
}

// grant is the server's state for one resource.
type grant struct {
	owner  algorithms.NodeID
	ballot algorithms.Ballot
	until  algorithms.Local // on the server's clock
}

// req is a client's state for one resource.
type req struct {
	wanting bool              // an attempt is under way
	holding bool              // the client believes it holds the lease
	round   uint32            // attempts made so far; goes into the ballot
	ballot  algorithms.Ballot // of the current (or last) attempt
	held    algorithms.Ballot // of the attempt that won the lease held (while holding)
	token   algorithms.Token  // of the lease held (while holding): the server's
	tries   int               // asks of the current attempt
	sentAt  algorithms.Local  // when the current ask left
	until   algorithms.Local  // end of the hold
}

type node struct {
	cfg    algorithms.Config
	hold   time.Duration // how long a client holds after its ask
	quiet  algorithms.Local
	grants map[algorithms.ResourceID]*grant
	reqs   map[algorithms.ResourceID]*req
	// The server's grants at instant lastAt so far: the token's Minor
	// orders grants made at one instant, which end at one instant.
	lastAt  algorithms.Local
	atCount uint64
}

func (n *node) req(r algorithms.ResourceID) *req {
	q := n.reqs[r]
	if q == nil {
		q = &req{}
		n.reqs[r] = q
	}
	return q
}

// Step implements algorithms.Node.
func (n *node) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	switch in.Kind {
	case algorithms.Start:
		if n.cfg.ID == Server && n.cfg.Restarts > 0 && !n.cfg.Ablations.Has(AblateRestartWait) {
			n.quiet = now.Add(n.cfg.Params.MaxLease)
			out.SetTimer(algorithms.TimerKey{Kind: timerQuiet}, n.quiet)
		}
	case algorithms.Acquire:
		q := n.req(in.Resource)
		switch {
		case q.holding && now < q.until:
			// Already the holder: the answer is the lease it holds (a
			// client that lost track of it, or asks again, still gets
			// one), at once, whether or not an extension is under way
			// (algorithms.Acquire): the hold stands until q.until
			// whatever the extension's outcome.
			out.Emit(algorithms.Event{Kind: algorithms.Acquired, Resource: in.Resource, Owner: n.cfg.ID, Ballot: q.held, Until: q.until,
				Token: q.token})
		case !q.wanting:
			q.holding = false // a hold that ended on our clock, its timer not yet fired
			n.begin(now, in.Resource, q, out)
		}
	case algorithms.Extend:
		q := n.req(in.Resource)
		if !q.wanting && q.holding {
			n.begin(now, in.Resource, q, out)
		}
	case algorithms.Relinquish:
		n.giveUp(in.Resource, out)
	case algorithms.Fire:
		n.fire(now, in.Timer, out)
	case algorithms.Recv:
		m := &in.Msg
		switch m.Kind {
		case KindAsk:
			n.serveAsk(now, m, out)
		case KindFree:
			n.serveFree(m, out)
		case KindGranted:
			n.granted(now, m, out)
		case KindBusy:
			n.busy(now, m, out)
		}
	}
}

// begin starts an attempt (acquisition or extension).
func (n *node) begin(now algorithms.Local, r algorithms.ResourceID, q *req, out *algorithms.Output) {
	q.wanting = true
	q.tries = 0
	n.ask(now, r, q, out)
}

// ask sends one ask with a fresh ballot.
func (n *node) ask(now algorithms.Local, r algorithms.ResourceID, q *req, out *algorithms.Output) {
	q.round++
	q.tries++
	q.ballot = algorithms.MakeBallot(q.round, n.cfg.Restarts, n.cfg.ID)
	q.sentAt = now
	out.Emit(algorithms.Event{Kind: algorithms.Round, Resource: r, Owner: n.cfg.ID, Ballot: q.ballot})
	out.Send(algorithms.Message{Kind: KindAsk, From: n.cfg.ID, To: Server, Owner: n.cfg.ID, Resource: r,
		Ballot: q.ballot, Span: int64(n.cfg.Params.LeaseSpan)})
	out.SetTimer(algorithms.TimerKey{Resource: r, Kind: timerTimeout}, now.Add(n.cfg.Params.ResponseTimeout))
}

// retry waits a random backoff and asks again, or gives the attempt up
// after MaxRounds asks.
func (n *node) retry(now algorithms.Local, r algorithms.ResourceID, q *req, out *algorithms.Output) {
	out.CancelTimer(algorithms.TimerKey{Resource: r, Kind: timerTimeout})
	if q.tries >= n.cfg.Params.MaxRounds {
		q.wanting = false
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: r, Owner: n.cfg.ID, Ballot: q.ballot})
		return
	}
	wait := time.Duration(n.cfg.Rand.Int64N(int64(n.cfg.Params.Backoff) + 1))
	out.SetTimer(algorithms.TimerKey{Resource: r, Kind: timerRetry}, now.Add(wait))
}

func (n *node) giveUp(r algorithms.ResourceID, out *algorithms.Output) {
	q := n.reqs[r]
	if q == nil || !q.wanting && !q.holding {
		return
	}
	if q.holding {
		q.holding = false
		out.Emit(algorithms.Event{Kind: algorithms.Lost, Resource: r, Owner: n.cfg.ID, Ballot: q.held})
	}
	q.wanting = false
	for _, k := range []uint8{timerHoldEnd, timerTimeout, timerRetry} {
		out.CancelTimer(algorithms.TimerKey{Resource: r, Kind: k})
	}
	// The latest ballot, not the one the hold was granted with: it also
	// clears a grant made for an ask whose answer is still on its way.
	out.Send(algorithms.Message{Kind: KindFree, From: n.cfg.ID, To: Server, Owner: n.cfg.ID, Resource: r, Ballot: q.ballot})
}

func (n *node) fire(now algorithms.Local, k algorithms.TimerKey, out *algorithms.Output) {
	r := k.Resource
	switch k.Kind {
	case timerQuiet:
		out.Emit(algorithms.Event{Kind: algorithms.Joined, Owner: algorithms.NoNode})
	case timerGrantEnd:
		if g := n.grants[r]; g != nil {
			delete(n.grants, r)
			out.Emit(algorithms.Event{Kind: algorithms.Cleared, Resource: r, Owner: g.owner, Ballot: g.ballot})
		}
	case timerTimeout:
		if q := n.reqs[r]; q != nil && q.wanting {
			out.Emit(algorithms.Event{Kind: algorithms.Timeout, Resource: r, Owner: n.cfg.ID, Ballot: q.ballot})
			n.retry(now, r, q, out)
		}
	case timerRetry:
		if q := n.reqs[r]; q != nil && q.wanting {
			n.ask(now, r, q, out)
		}
	case timerHoldEnd:
		if q := n.reqs[r]; q != nil {
			q.holding = false // expiry at Until needs no event
		}
	}
}

// serveAsk is the server's answer to an ask.
func (n *node) serveAsk(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	if n.cfg.ID != Server || now < n.quiet || !madeBySender(m) {
		return // not the server, a restarted server still waiting M, or malformed
	}
	g := n.grants[m.Resource]
	end := g != nil && now >= g.until
	if g != nil && n.cfg.Ablations.Has(AblateFullGrant) {
		end = now >= g.until-algorithms.Local(n.cfg.Params.LeaseSpan/16)
	}
	if end {
		g = nil // ended; its timer has not fired yet
	}
	own := g != nil && n.sameOwner(g.ballot, m.Ballot)
	if own && m.Ballot < g.ballot {
		return // a duplicate or late ask of an attempt the owner has moved past
	}
	if g != nil && !own && !n.cfg.Ablations.Has(AblateGrantOnce) {
		out.Send(algorithms.Message{Kind: KindBusy, From: n.cfg.ID, To: m.From, Owner: g.owner, Resource: m.Resource, Ballot: m.Ballot})
		return
	}
	g = &grant{owner: m.From, ballot: m.Ballot, until: now.Add(n.cfg.Params.LeaseSpan)}
	n.grants[m.Resource] = g
	if now != n.lastAt {
		n.lastAt, n.atCount = now, 0
	}
	n.atCount++
	out.SetTimer(algorithms.TimerKey{Resource: m.Resource, Kind: timerGrantEnd}, g.until)
	out.Emit(algorithms.Event{Kind: algorithms.Granted, Resource: m.Resource, Owner: g.owner, Ballot: g.ballot, Until: g.until})
	out.Send(algorithms.Message{Kind: KindGranted, From: n.cfg.ID, To: m.From, Owner: m.From, Resource: m.Resource, Ballot: m.Ballot,
		Expiry: g.until, Instance: n.atCount})
}

// grantToken is the fencing token central-granted m carries: the grant's
// end on the server's clock, then its place among the grants of its
// instant.
func grantToken(m *algorithms.Message) algorithms.Token {
	return algorithms.Token{Major: algorithms.TimeToken(m.Expiry).Major, Minor: m.Instance}
}

// serveFree clears the sender's grant if the release is not older than it.
func (n *node) serveFree(m *algorithms.Message, out *algorithms.Output) {
	g := n.grants[m.Resource]
	if n.cfg.ID != Server || !madeBySender(m) || g == nil || !n.sameOwner(g.ballot, m.Ballot) || g.ballot > m.Ballot {
		return
	}
	delete(n.grants, m.Resource)
	out.CancelTimer(algorithms.TimerKey{Resource: m.Resource, Kind: timerGrantEnd})
	out.Emit(algorithms.Event{Kind: algorithms.Cleared, Resource: m.Resource, Owner: g.owner, Ballot: g.ballot})
}

// madeBySender: an ask or release names a ballot of its sender's (the
// owner is who made the ballot); anything else is malformed and dropped.
func madeBySender(m *algorithms.Message) bool {
	return m.Ballot != 0 && m.Ballot.Node() == m.From
}

// sameOwner reports whether ballots a and b are the same owner's: the same
// proposer (node and life), or with cross-life-ballots ablated the same
// node.
func (n *node) sameOwner(a, b algorithms.Ballot) bool {
	if n.cfg.Ablations.Has(AblateCrossLife) {
		return a.Node() == b.Node()
	}
	return algorithms.SameProposer(a, b)
}

// granted: the server granted the ask with m.Ballot.
func (n *node) granted(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	q := n.reqs[m.Resource]
	if q == nil || !q.wanting || m.Ballot != q.ballot {
		return // an answer to an earlier attempt
	}
	until := q.sentAt.Add(n.hold)
	if until <= now {
		// The answer took longer than the whole hold: nothing is left of
		// the lease, so ask again.
		n.retry(now, m.Resource, q, out)
		return
	}
	q.wanting = false
	q.holding = true
	q.held = q.ballot
	q.until = until
	q.token = grantToken(m)
	out.CancelTimer(algorithms.TimerKey{Resource: m.Resource, Kind: timerTimeout})
	out.SetTimer(algorithms.TimerKey{Resource: m.Resource, Kind: timerHoldEnd}, until)
	out.Emit(algorithms.Event{Kind: algorithms.Acquired, Resource: m.Resource, Owner: n.cfg.ID, Ballot: q.ballot, Until: until,
		Token: q.token})
}

// busy: someone else holds the grant; back off and ask again.
func (n *node) busy(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	q := n.reqs[m.Resource]
	if q == nil || !q.wanting || m.Ballot != q.ballot {
		return
	}
	// The holder in the way; its ballot is not in the answer.
	out.Emit(algorithms.Event{Kind: algorithms.Preempted, Resource: m.Resource, Owner: m.Owner})
	n.retry(now, m.Resource, q, out)
}

// Clone implements algorithms.Explorable.
func (n *node) Clone(r *rand.Rand) algorithms.Node {
	c := *n
	c.cfg.Rand = r
	c.grants = make(map[algorithms.ResourceID]*grant, len(n.grants))
	for k, g := range n.grants {
		gc := *g
		c.grants[k] = &gc
	}
	c.reqs = make(map[algorithms.ResourceID]*req, len(n.reqs))
	for k, q := range n.reqs {
		qc := *q
		c.reqs[k] = &qc
	}
	return &c
}

// AppendState implements algorithms.Explorable: the node and its restart
// counter (in every ballot it makes), the quiet period, the grants made at
// this instant, then the grants and the clients' requests (a holder's
// token included) in resource order, every time relative to now. A quiet
// period that has passed, or grants of an earlier instant, are written as
// none: they can no longer change an answer or a token.
func (n *node) AppendState(b []byte, now algorithms.Local) []byte {
	rel := func(b []byte, t algorithms.Local) []byte { return binary.AppendVarint(b, int64(t-now)) }
	b = binary.AppendUvarint(b, uint64(n.cfg.ID))
	b = binary.AppendUvarint(b, uint64(n.cfg.Restarts))
	if n.quiet > now {
		b = rel(append(b, 1), n.quiet)
	} else {
		b = append(b, 0)
	}
	// Grants made at this instant decide the next grant's token; those
	// of an earlier instant no longer do.
	if n.lastAt == now {
		b = binary.AppendUvarint(b, n.atCount)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(n.grants)))
	for _, r := range sortedKeys(n.grants) {
		g := n.grants[r]
		b = binary.AppendUvarint(b, uint64(r))
		b = binary.AppendUvarint(b, uint64(g.owner))
		b = binary.AppendUvarint(b, uint64(g.ballot))
		b = rel(b, g.until)
	}
	// A request that neither wants nor holds matters only through its
	// round counter (the next ballot); it is written like any other.
	b = binary.AppendUvarint(b, uint64(len(n.reqs)))
	for _, r := range sortedKeys(n.reqs) {
		q := n.reqs[r]
		var flags byte
		if q.wanting {
			flags |= 1
		}
		if q.holding {
			flags |= 2
		}
		b = binary.AppendUvarint(b, uint64(r))
		b = append(b, flags)
		b = binary.AppendUvarint(b, uint64(q.round))
		b = binary.AppendUvarint(b, uint64(q.ballot))
		b = binary.AppendUvarint(b, uint64(q.tries))
		if q.wanting {
			b = rel(b, q.sentAt) // sentAt matters only while an ask is out
		}
		if q.holding {
			b = rel(b, q.until)
			b = binary.AppendUvarint(b, uint64(q.held))
			b = rel(b, q.token.Time()) // the server's grant end
			b = binary.AppendUvarint(b, q.token.Minor)
		}
	}
	return b
}

// Describe implements algorithms.Describer (optional): what the node
// believes, in words, for the HTML view of a replay (`leaselab replay FILE
// --timeline x.html` shows it at the step selected). Read-only, and every
// time relative to now.
func (n *node) Describe(now algorithms.Local) string {
	var d algorithms.Description
	if n.quiet > now {
		d.Line("restarted server: grants nothing until its quiet period ends %s", algorithms.Until(n.quiet, now))
	} else {
		d.Line("life %d", n.cfg.Restarts)
	}
	for _, r := range sortedKeys(n.grants) {
		g := n.grants[r]
		d.Item("server", "r%d: granted to %s (ballot %s), lapses %s", r, g.owner, g.ballot, algorithms.Until(g.until, now))
	}
	for _, r := range sortedKeys(n.reqs) {
		q := n.reqs[r]
		switch {
		case q.holding:
			d.Item("client", "r%d: holds the lease (ballot %s), ends %s", r, q.held, algorithms.Until(q.until, now))
		case q.wanting:
			d.Item("client", "r%d: asked with ballot %s %s (ask %d)", r, q.ballot, algorithms.Ago(q.sentAt, now), q.tries)
		}
	}
	return d.String("server", "client")
}

func sortedKeys[V any](m map[algorithms.ResourceID]V) []algorithms.ResourceID {
	keys := make([]algorithms.ResourceID, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var _ algorithms.Explorable = (*node)(nil)
