package fatlease

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"

	"leaselab/algorithms"
)

var _ algorithms.Explorable = (*Node)(nil)

// Clone implements algorithms.Explorable: the rules are shared (they never
// change); a deep copy of the state (resource states,
// proposers with their vote sets, pending requests, recovered records)
// that draws its backoff from r. Resource states and proposers are each
// copied into one backing array; vote sets of up to 64 acceptors live in
// the proposer and cost nothing more.
func (e *Node) Clone(r *rand.Rand) algorithms.Node {
	c := *e
	c.rand = r
	c.recovered = slices.Clone(e.recovered)
	c.pending = slices.Clone(e.pending)
	c.res = algorithms.CloneValues(e.res, nil)
	c.props = algorithms.CloneValues(e.props, func(q, p *prop) {
		q.votes = p.votes.Clone()
		q.neg = p.neg.Clone()
	})
	return &c
}

// Markers of a time in the encoding: only tAt is followed by the time,
// relative to now.
const (
	tPast byte = 0 // at or before now (or 0 = none): acts as over for every later input
	tAt   byte = 1
)

// appendDeadline writes a time that is only ever compared with the
// current time ("has it come yet?"): every value at or before now acts
// alike, and so does 0 (none).
func appendDeadline(b []byte, t, now algorithms.Local) []byte {
	if t <= now {
		return append(b, tPast)
	}
	return binary.AppendVarint(append(b, tAt), int64(t-now))
}

// appendLease writes λ = (owner, t), t relative to now; ⊥ has no time.
func appendLease(b []byte, l lease, now algorithms.Local) []byte {
	b = binary.AppendUvarint(b, uint64(l.owner))
	if l.none() {
		return b
	}
	return binary.AppendVarint(b, int64(l.t-now))
}

// freshRstate is a resource state that knows nothing: a node that has one
// acts as a node that has none (state creates it on first use).
var freshRstate = *newRstate()

// AppendState implements algorithms.Explorable.
//
// Written: id, restart counter, the highest ballot of this life (with
// reused-ballots ablated it is never read, and 0 is written), the
// restart wait, ownFloor, the pending
// requests in order (duplicates included: each is decided again), the
// recovered records not yet applied, every resource's state and every
// proposer's state in resource order. Lease expiries are written exactly,
// relative to now, even when long over: they travel in messages
// (Outdated, Invalidate) and are compared with other leases' expiries.
//
// Written as "past" once at or before now, because they are only compared
// with the current time: ownFloor (at or before now, every lease it would
// exclude is over for its owner anyway), the current instance's since
// plus the missed-instance bound, a proposer's blockedUntil and a round's
// blockUntil.
//
// Left out, because no future output depends on them:
//   - the rules (cluster, params, rule switches, drift margins,
//     durability) but the id and restart counter: fixed for a run, the
//     explorer compares nodes of one configuration only;
//   - the random source (the contract);
//   - resource states that know nothing (as a missing one);
//   - the previous instance's since (only the current one's is read);
//   - of a proposer with no round in flight, everything of the round but
//     its ballot (startRound starts from it; the rest is reset first);
//   - of a proposer that holds nothing, the hold's instance, expiry and
//     ballot; of one that is not extending, extendFrom.
func (e *Node) AppendState(b []byte, now algorithms.Local) []byte {
	b = binary.AppendUvarint(b, uint64(e.id))
	b = binary.AppendUvarint(b, uint64(e.restarts))
	if e.reuseBallots {
		b = binary.AppendUvarint(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(e.lastBallot))
	}
	b = appendBool(b, e.joining)
	b = appendDeadline(b, e.ownFloor, now)
	b = binary.AppendUvarint(b, uint64(len(e.pending)))
	for _, id := range e.pending {
		b = binary.AppendUvarint(b, uint64(id))
	}
	b = binary.AppendUvarint(b, uint64(len(e.recovered)))
	for i := range e.recovered {
		rc := &e.recovered[i]
		b = binary.AppendUvarint(b, uint64(rc.Resource))
		b = binary.AppendUvarint(b, rc.Instance)
		b = binary.AppendUvarint(b, uint64(rc.Promised))
		b = binary.AppendUvarint(b, uint64(rc.Accepted))
		b = binary.AppendUvarint(b, uint64(rc.Owner))
		if rc.Accepted != 0 && rc.Owner != algorithms.NoNode {
			b = binary.AppendVarint(b, int64(rc.Expiry-now))
		}
	}

	known := func(r *rstate) bool { return *r != freshRstate }
	b = algorithms.AppendMap(b, e.res, known, func(b []byte, r *rstate) []byte {
		b = e.appendInstance(b, &r.cur, true, now)
		b = e.appendInstance(b, &r.prev, false, now)
		b = appendLease(b, r.inv, now)
		b = appendLease(b, r.mine, now)
		return appendLease(b, r.granted, now)
	})
	return algorithms.AppendMap(b, e.props, nil, func(b []byte, p *prop) []byte { return p.appendState(b, now) })
}

func (e *Node) appendInstance(b []byte, in *instance, cur bool, now algorithms.Local) []byte {
	b = binary.AppendUvarint(b, in.n)
	if cur && in.n != 0 {
		b = appendDeadline(b, in.since.Add(e.missedFor), now)
	}
	b = binary.AppendUvarint(b, uint64(in.promised))
	b = binary.AppendUvarint(b, uint64(in.accBal))
	b = appendLease(b, in.acc, now)
	b = binary.AppendUvarint(b, uint64(in.lrnBal))
	b = appendLease(b, in.lrn, now)
	var flags byte
	if in.over {
		flags |= 1
	}
	if in.accVoid {
		flags |= 2
	}
	if in.lrnVoid {
		flags |= 4
	}
	return append(b, flags)
}

func (p *prop) appendState(b []byte, now algorithms.Local) []byte {
	b = append(b, p.req)
	b = binary.AppendUvarint(b, uint64(p.fails))
	if p.req == reqExtend {
		b = binary.AppendVarint(b, int64(p.extendFrom-now))
	}
	b = binary.AppendUvarint(b, uint64(p.maxBal))
	b = binary.AppendUvarint(b, p.triedPrev)
	b = appendDeadline(b, p.blockedUntil, now)

	rd := &p.rd
	b = binary.AppendUvarint(b, uint64(rd.ballot))
	b = appendBool(b, rd.active)
	if rd.active {
		b = append(b, rd.phase)
		b = appendBool(b, rd.learnPrev)
		b = binary.AppendUvarint(b, rd.inst)
		b = appendLease(b, rd.own, now)
		b = appendLease(b, rd.value, now)
		b = binary.AppendUvarint(b, uint64(rd.adoptBal))
		b = appendLease(b, rd.adopt, now)
		b = appendDeadline(b, rd.blockUntil, now)
		b = p.votes.AppendState(b)
		b = p.neg.AppendState(b)
	}

	b = appendBool(b, p.hold.on)
	if p.hold.on {
		b = binary.AppendUvarint(b, p.hold.inst)
		b = binary.AppendVarint(b, int64(p.hold.t-now))
		b = binary.AppendVarint(b, int64(p.hold.until-now))
		b = binary.AppendUvarint(b, uint64(p.hold.ballot))
	}
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}
