package explore

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"leaselab/algorithms"
)

// Test-only algorithms that implement algorithms.Explorable. "xtoy-lock"
// is a correct toy lock: node 0 (the one acceptor) grants a lease of span T
// on a resource to one requester at a time, forgets it T later on its own
// clock, and after a restart stays silent for M; a requester holds from
// the moment it SENT its request for T minus a drift margin and gives the
// lease back with Release. Planted faults:
//
//	xtoy-double-grant: the server grants every request, held or not;
//	xtoy-amnesia:      a restarted server does not wait M (it forgot its
//	                   grant and grants again at once).

const (
	xtServer  = 1 // server: the grant on Resource ends
	xtTimeout = 2 // requester: no answer within ResponseTimeout
	xtExpire  = 3 // requester: the lease ended
)

const maxRes = 4

type xtoyGrant struct {
	on     bool
	owner  algorithms.NodeID
	ballot algorithms.Ballot
	until  algorithms.Local
}

type xtoyReq struct {
	wanting, holding bool
	ballot           algorithms.Ballot
	round            uint32
	sentAt           algorithms.Local
	until            algorithms.Local
}

type xtoyNode struct {
	cfg        algorithms.Config
	double     bool
	amnesia    bool
	quietUntil algorithms.Local
	grants     [maxRes]xtoyGrant
	reqs       [maxRes]xtoyReq
}

func init() {
	for _, a := range []struct {
		name            string
		double, amnesia bool
	}{{"xtoy-lock", false, false}, {"xtoy-double-grant", true, false}, {"xtoy-amnesia", false, true}} {
		a := a
		algorithms.Register(algorithms.Algorithm{
			Name:    a.name,
			Summary: "test-only explorable lock toy",
			Validate: func(p algorithms.Params, c algorithms.Cluster) error {
				if p.LeaseSpan >= p.MaxLease {
					return fmt.Errorf("lease span %v must be below max lease %v", p.LeaseSpan, p.MaxLease)
				}
				return nil
			},
			Build: func(cfg algorithms.Config) (algorithms.Node, error) {
				return &xtoyNode{cfg: cfg, double: a.double, amnesia: a.amnesia}, nil
			},
		})
	}
}

func (n *xtoyNode) Clone(r *rand.Rand) algorithms.Node {
	c := *n
	c.cfg.Rand = r
	return &c
}

func (n *xtoyNode) AppendState(b []byte, now algorithms.Local) []byte {
	rel := func(t algorithms.Local) uint64 {
		if t == 0 {
			return 1 << 63
		}
		return uint64(t - now)
	}
	q := n.quietUntil
	if q != 0 && q <= now {
		q = 0 // a quarantine that has ended is no quarantine
	}
	b = binary.LittleEndian.AppendUint64(b, rel(q))
	for i := range n.grants {
		g := &n.grants[i]
		if !g.on {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint16(b, uint16(g.owner))
		b = binary.LittleEndian.AppendUint64(b, uint64(g.ballot))
		b = binary.LittleEndian.AppendUint64(b, rel(g.until))
	}
	for i := range n.reqs {
		r := &n.reqs[i]
		var f byte
		if r.wanting {
			f |= 1
		}
		if r.holding {
			f |= 2
		}
		b = append(b, f)
		b = binary.LittleEndian.AppendUint64(b, uint64(r.ballot))
		b = binary.LittleEndian.AppendUint32(b, r.round)
		b = binary.LittleEndian.AppendUint64(b, rel(r.sentAt))
		b = binary.LittleEndian.AppendUint64(b, rel(r.until))
	}
	return b
}

func (n *xtoyNode) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	p := n.cfg.Params
	res := in.Resource
	if in.Kind == algorithms.Recv {
		res = in.Msg.Resource
	} else if in.Kind == algorithms.Fire {
		res = in.Timer.Resource
	}
	if res >= maxRes {
		return
	}
	g, q := &n.grants[res], &n.reqs[res]
	switch in.Kind {
	case algorithms.Start:
		if n.cfg.Restarts > 0 && !n.amnesia {
			n.quietUntil = now.Add(p.MaxLease)
		}
	case algorithms.Acquire:
		if q.wanting || q.holding {
			return
		}
		q.wanting = true
		q.round++
		q.ballot = algorithms.MakeBallot(q.round, n.cfg.Restarts, n.cfg.ID)
		q.sentAt = now
		out.Send(algorithms.Message{Kind: algorithms.Request, From: n.cfg.ID, To: 0, Resource: res, Ballot: q.ballot, Span: int64(p.LeaseSpan)})
		out.SetTimer(algorithms.TimerKey{Resource: res, Kind: xtTimeout}, now.Add(p.ResponseTimeout))
	case algorithms.Relinquish:
		if q.holding {
			q.holding = false
			out.Emit(algorithms.Event{Kind: algorithms.Lost, Resource: res, Ballot: q.ballot})
			out.CancelTimer(algorithms.TimerKey{Resource: res, Kind: xtExpire})
			out.Send(algorithms.Message{Kind: algorithms.Release, From: n.cfg.ID, To: 0, Owner: n.cfg.ID, Resource: res, Ballot: q.ballot})
		}
	case algorithms.Fire:
		switch in.Timer.Kind {
		case xtServer:
			*g = xtoyGrant{}
		case xtTimeout:
			if q.wanting {
				q.wanting = false
				out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: res, Ballot: q.ballot})
			}
		case xtExpire:
			q.holding = false
		}
	case algorithms.Recv:
		m := in.Msg
		switch m.Kind {
		case algorithms.Request:
			if now < n.quietUntil {
				return
			}
			if !g.on || g.owner == m.From || n.double {
				*g = xtoyGrant{on: true, owner: m.From, ballot: m.Ballot, until: now.Add(p.LeaseSpan)}
				out.SetTimer(algorithms.TimerKey{Resource: res, Kind: xtServer}, g.until)
				out.Send(algorithms.Message{Kind: algorithms.Grant, From: n.cfg.ID, To: m.From, Owner: m.From, Resource: res, Ballot: m.Ballot})
			} else {
				out.Send(algorithms.Message{Kind: algorithms.Deny, From: n.cfg.ID, To: m.From, Owner: g.owner, Resource: res, Ballot: m.Ballot})
			}
		case algorithms.Release:
			if g.on && g.owner == m.From && g.ballot == m.Ballot {
				*g = xtoyGrant{}
				out.CancelTimer(algorithms.TimerKey{Resource: res, Kind: xtServer})
			}
		case algorithms.Grant:
			if !q.wanting || m.Ballot != q.ballot {
				return
			}
			q.wanting = false
			out.CancelTimer(algorithms.TimerKey{Resource: res, Kind: xtTimeout})
			until := q.sentAt.Add(p.LeaseSpan - p.LeaseSpan*3/1000)
			if until <= now {
				return
			}
			q.holding = true
			q.until = until
			out.SetTimer(algorithms.TimerKey{Resource: res, Kind: xtExpire}, until)
			out.Emit(algorithms.Event{Kind: algorithms.Acquired, Resource: res, Owner: n.cfg.ID, Ballot: q.ballot, Until: until})
		case algorithms.Deny:
			if q.wanting && m.Ballot == q.ballot {
				q.wanting = false
				out.CancelTimer(algorithms.TimerKey{Resource: res, Kind: xtTimeout})
				out.Emit(algorithms.Event{Kind: algorithms.Failed, Resource: res, Ballot: q.ballot})
			}
		}
	}
}
