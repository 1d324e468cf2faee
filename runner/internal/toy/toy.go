// Package toy registers test-only algorithms (a lock-server toy, correct
// and with planted faults) for the runner's tests. Import it for its side
// effect, or for Spec.
package toy

import (
	"fmt"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// Test-only algorithms. "test-lock" is a correct toy: the last acceptor
// (node 0 in a cluster with one acceptor) is a lock server that grants a lease of span T to one requester at a time and
// forgets it T later on its own clock; a requester holds from the moment
// it SENT its request for T minus a drift margin. The planted faults are
// the same toy with one rule broken:
//
//	test-double-grant: the server grants every request, held or not;
//	test-no-deadline:  the requester believes it holds for 3T.
//	test-no-margin:    the requester keeps the full T (no drift margin),
//	                   so a fast server clock or slow requester clock breaks it;
//	test-amnesia:      a restarted server does not stay silent (it forgot
//	                   its grants and grants again at once).
//	test-early-free:   the server takes a grant for ended T/16 before its
//	                   end when another request comes (its own timer still
//	                   clears it at the end), so a request delivered in
//	                   that last sixteenth is granted while the holder
//	                   holds. No timer of the toy falls in that interval:
//	                   an explorer that delivers only at timer deadlines
//	                   never sees it (runner/explore's time-step test).
//
// Messages: Request (Ballot = the requester's attempt number, Span = T),
// Grant/Deny echo the ballot, Release carries the ballot of the grant.

const (
	toyTimerServer  = 1 // server: the grant on Resource ends
	toyTimerTimeout = 2 // requester: no answer within ResponseTimeout
	toyTimerRetry   = 3 // requester: backoff over, try again
	toyTimerExpire  = 4 // requester: the lease ended
)

type toyFault int

const (
	toyCorrect toyFault = iota
	toyDoubleGrant
	toyNoDeadline
	toyNoMargin
	toyDisk
	toyAmnesia
	toyEarlyFree
)

// variants are the toy's registered names.
var variants = []struct {
	name  string
	fault toyFault
}{
	{"test-lock", toyCorrect},
	{"test-double-grant", toyDoubleGrant},
	{"test-no-deadline", toyNoDeadline},
	{"test-no-margin", toyNoMargin},
	{"test-disk", toyDisk},
	{"test-amnesia", toyAmnesia},
	{"test-early-free", toyEarlyFree},
}

func init() {
	for _, a := range variants {
		fault := a.fault
		algorithms.Register(algorithms.Algorithm{
			Name:    a.name,
			Summary: "test-only lock server toy",
			Ablations: []algorithms.Ablation{
				{Name: "noop", Rule: "nothing", Breaks: "nothing"},
				{Name: "fsync", Rule: "test-disk: the server syncs its grants before answering", Breaks: "crashes"},
			},
			Durable: fault == toyDisk,
			Fencing: "the end of the lease on the holder's clock, as central's",
			Validate: func(p algorithms.Params, c algorithms.Cluster) error {
				if p.LeaseSpan >= p.MaxLease {
					return fmt.Errorf("lease span %v must be below max lease %v", p.LeaseSpan, p.MaxLease)
				}
				return nil
			},
			Build: func(cfg algorithms.Config) (algorithms.Node, error) { return newNode(cfg, fault), nil },
		})
	}
}

func newNode(cfg algorithms.Config, fault toyFault) *toyNode {
	return &toyNode{cfg: cfg, fault: fault, grants: map[algorithms.ResourceID]*toyGrant{}, reqs: map[algorithms.ResourceID]*toyReq{}}
}

type toyGrant struct {
	owner  algorithms.NodeID
	ballot algorithms.Ballot
	until  algorithms.Local
}

type toyReq struct {
	wanting bool
	holding bool
	ballot  algorithms.Ballot // of the latest request
	held    algorithms.Ballot // of the grant held
	round   uint32
	tries   int
	sentAt  algorithms.Local
	until   algorithms.Local
}

// Spec is a small contention spec for the toy algorithm algo.
func Spec(algo string) runner.Spec {
	s := runner.DefaultSpec()
	s.Algo = algo
	s.Acceptors = 1
	s.Proposers = 3
	s.Duration = 60 * time.Second
	s.Params.LeaseSpan = 2 * time.Second
	s.Params.MaxLease = 3 * time.Second
	s.Hold = 500 * time.Millisecond
	s.Pause = 300 * time.Millisecond
	return s
}

// durationFrac returns d*f.
func durationFrac(d time.Duration, f float64) time.Duration { return time.Duration(float64(d) * f) }

type toyNode struct {
	quietUntil algorithms.Local
	cfg        algorithms.Config
	fault      toyFault
	grants     map[algorithms.ResourceID]*toyGrant
	reqs       map[algorithms.ResourceID]*toyReq
}

// server is the lock server: the last acceptor (node 0 when there is one
// acceptor; with more acceptors than proposers, a node that never requests).
func (n *toyNode) server() algorithms.NodeID { return algorithms.NodeID(n.cfg.Cluster.Acceptors - 1) }

func (n *toyNode) req(r algorithms.ResourceID) *toyReq {
	q := n.reqs[r]
	if q == nil {
		q = &toyReq{}
		n.reqs[r] = q
	}
	return q
}

func (n *toyNode) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	switch in.Kind {
	case algorithms.Start:
		n.start(now, out)
	case algorithms.Acquire, algorithms.Extend:
		q := n.req(in.Resource)
		if q.wanting || in.Kind == algorithms.Extend && !q.holding {
			return
		}
		q.wanting = true
		q.tries = 0
		n.send(now, in.Resource, q, out)
	case algorithms.Relinquish:
		n.giveup(in.Resource, out)
	case algorithms.Fire:
		n.fire(now, in.Timer, out)
	case algorithms.Recv:
		switch m := &in.Msg; m.Kind {
		case algorithms.Request:
			n.request(now, m, out)
		case algorithms.Release:
			if g := n.grants[m.Resource]; g != nil && g.owner == m.From && g.ballot == m.Ballot {
				delete(n.grants, m.Resource)
				out.CancelTimer(algorithms.TimerKey{Resource: m.Resource, Kind: toyTimerServer})
				out.Emit(algorithms.Event{Kind: algorithms.Cleared, Resource: m.Resource, Owner: g.owner, Ballot: g.ballot})
			}
		case algorithms.Grant:
			n.granted(now, m, out)
		case algorithms.Deny:
			q := n.req(m.Resource)
			if !q.wanting || m.Ballot != q.ballot {
				return
			}
			out.CancelTimer(algorithms.TimerKey{Resource: m.Resource, Kind: toyTimerTimeout})
			// The deny names the holder in the way but not its ballot.
			out.Emit(algorithms.Event{Kind: algorithms.Preempted, Resource: m.Resource, Owner: m.Owner})
			n.retry(now, m.Resource, q, out)
		}
	}
}

// start: a restarted server forgot its grants and stays silent until
// every grant it may have made has ended; the durable one (test-disk)
// recovers them instead, the last record per resource winning.
func (n *toyNode) start(now algorithms.Local, out *algorithms.Output) {
	if n.fault != toyDisk {
		if n.cfg.Restarts > 0 && n.fault != toyAmnesia {
			n.quietUntil = now.Add(n.cfg.Params.MaxLease)
		}
		return
	}
	for _, r := range n.cfg.Recovered {
		if r.Owner == algorithms.NoNode {
			delete(n.grants, r.Resource)
			continue
		}
		n.grants[r.Resource] = &toyGrant{owner: r.Owner, ballot: r.Accepted, until: r.Expiry}
		out.SetTimer(algorithms.TimerKey{Resource: r.Resource, Kind: toyTimerServer}, r.Expiry)
	}
}

// giveup abandons a pending request (a grant for it that comes later is
// ignored and lapses at the server) and releases the grant held; the
// release names the grant held, never a request still in flight.
func (n *toyNode) giveup(res algorithms.ResourceID, out *algorithms.Output) {
	q := n.req(res)
	if q.wanting {
		q.wanting = false
		out.CancelTimer(algorithms.TimerKey{Resource: res, Kind: toyTimerTimeout})
		out.CancelTimer(algorithms.TimerKey{Resource: res, Kind: toyTimerRetry})
	}
	if q.holding {
		q.holding = false
		out.Emit(algorithms.Event{Kind: algorithms.Lost, Resource: res, Owner: n.cfg.ID, Ballot: q.held})
		out.CancelTimer(algorithms.TimerKey{Resource: res, Kind: toyTimerExpire})
		out.Send(algorithms.Message{Kind: algorithms.Release, From: n.cfg.ID, To: n.server(), Owner: n.cfg.ID, Resource: res, Ballot: q.held})
	}
}

func (n *toyNode) fire(now algorithms.Local, t algorithms.TimerKey, out *algorithms.Output) {
	r := t.Resource
	switch t.Kind {
	case toyTimerServer:
		if g := n.grants[r]; g != nil {
			delete(n.grants, r)
			out.Emit(algorithms.Event{Kind: algorithms.Cleared, Resource: r, Owner: g.owner, Ballot: g.ballot})
		}
	case toyTimerTimeout:
		if q := n.req(r); q.wanting {
			out.Emit(algorithms.Event{Kind: algorithms.Timeout, Resource: r, Owner: n.cfg.ID, Ballot: q.ballot})
			n.retry(now, r, q, out)
		}
	case toyTimerRetry:
		if q := n.req(r); q.wanting {
			n.send(now, r, q, out)
		}
	case toyTimerExpire:
		n.req(r).holding = false
	}
}

// request is the server's answer: a grant if the resource is free (or
// held by the requester, or always with test-double-grant), else a deny.
func (n *toyNode) request(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	if now < n.quietUntil {
		return
	}
	g := n.grants[m.Resource]
	end := g != nil && now >= g.until
	if g != nil && n.fault == toyEarlyFree {
		end = now >= g.until-algorithms.Local(n.cfg.Params.LeaseSpan/16)
	}
	if end {
		g = nil
	}
	if g != nil && g.owner != m.From && n.fault != toyDoubleGrant {
		out.Send(algorithms.Message{Kind: algorithms.Deny, From: n.cfg.ID, To: m.From, Owner: g.owner, Resource: m.Resource, Ballot: m.Ballot})
		return
	}
	g = &toyGrant{owner: m.From, ballot: m.Ballot, until: now.Add(n.cfg.Params.LeaseSpan)}
	n.grants[m.Resource] = g
	out.SetTimer(algorithms.TimerKey{Resource: m.Resource, Kind: toyTimerServer}, g.until)
	out.Emit(algorithms.Event{Kind: algorithms.Granted, Resource: m.Resource, Owner: m.From, Ballot: m.Ballot, Until: g.until})
	if n.fault == toyDisk {
		out.Persist = append(out.Persist, algorithms.Record{Resource: m.Resource, Owner: m.From, Accepted: m.Ballot, Expiry: g.until})
		out.NoSync = n.cfg.Ablations.Has("fsync")
	}
	out.Send(algorithms.Message{Kind: algorithms.Grant, From: n.cfg.ID, To: m.From, Owner: m.From, Resource: m.Resource, Ballot: m.Ballot})
}

// granted: the requester holds from the moment it sent the request, for
// T less the drift margin (the planted faults change the span).
func (n *toyNode) granted(now algorithms.Local, m *algorithms.Message, out *algorithms.Output) {
	p := n.cfg.Params
	q := n.req(m.Resource)
	if !q.wanting || m.Ballot != q.ballot {
		return
	}
	q.wanting = false
	out.CancelTimer(algorithms.TimerKey{Resource: m.Resource, Kind: toyTimerTimeout})
	span := p.LeaseSpan
	switch n.fault {
	case toyNoDeadline:
		span *= 3
	case toyNoMargin:
	default:
		// Margin against rate drift: the server's T may pass up to
		// 2*Drift*T sooner in true time than the requester's.
		span -= durationFrac(p.LeaseSpan, 3*p.Drift)
	}
	until := q.sentAt.Add(span)
	if until <= now {
		n.retry(now, m.Resource, q, out)
		q.wanting = true
		return
	}
	q.holding = true
	q.held = q.ballot
	q.until = until
	out.SetTimer(algorithms.TimerKey{Resource: m.Resource, Kind: toyTimerExpire}, until)
	out.Emit(algorithms.Event{Kind: algorithms.Acquired, Resource: m.Resource, Owner: n.cfg.ID, Ballot: q.ballot, Until: until,
		Token: algorithms.TimeToken(until)})
}

func (n *toyNode) send(now algorithms.Local, r algorithms.ResourceID, q *toyReq, out *algorithms.Output) {
	q.round++
	q.tries++
	q.ballot = algorithms.MakeBallot(q.round, n.cfg.Restarts, n.cfg.ID)
	q.sentAt = now
	out.Emit(algorithms.Event{Kind: algorithms.Round, Resource: r, Owner: n.cfg.ID, Ballot: q.ballot})
	out.Send(algorithms.Message{Kind: algorithms.Request, From: n.cfg.ID, To: n.server(), Resource: r, Ballot: q.ballot, Span: int64(n.cfg.Params.LeaseSpan)})
	out.SetTimer(algorithms.TimerKey{Resource: r, Kind: toyTimerTimeout}, now.Add(n.cfg.Params.ResponseTimeout))
}

func (n *toyNode) retry(now algorithms.Local, r algorithms.ResourceID, q *toyReq, out *algorithms.Output) {
	if q.tries >= n.cfg.Params.MaxRounds {
		q.wanting = false
		out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: r, Owner: n.cfg.ID, Ballot: q.ballot})
		return
	}
	wait := int64(0)
	if b := int64(n.cfg.Params.Backoff); b > 0 {
		wait = n.cfg.Rand.Int64N(b + 1)
	}
	out.SetTimer(algorithms.TimerKey{Resource: r, Kind: toyTimerRetry}, now+algorithms.Local(wait))
}
