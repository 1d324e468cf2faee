package fatlease

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"

	"leaselab/algorithms"
)

var _ algorithms.Explorable = (*Node)(nil)

// Clone implements algorithms.Explorable: a deep copy drawing from r.
func (e *Node) Clone(r *rand.Rand) algorithms.Node {
	c := *e
	c.rand = r
	c.recovered = slices.Clone(e.recovered)
	c.pending = slices.Clone(e.pending)
	c.res = make(map[algorithms.ResourceID]*rstate, len(e.res))
	for k, s := range e.res {
		cp := *s
		c.res[k] = &cp
	}
	c.props = make(map[algorithms.ResourceID]*prop, len(e.props))
	for k, p := range e.props {
		cp := *p
		cp.votes = slices.Clone(p.votes)
		cp.neg = slices.Clone(p.neg)
		c.props[k] = &cp
	}
	return &c
}

type enc struct {
	b   []byte
	now algorithms.Local
}

func (x *enc) u64(v uint64)            { x.b = binary.LittleEndian.AppendUint64(x.b, v) }
func (x *enc) t(l algorithms.Local)    { x.u64(uint64(l - x.now)) }
func (x *enc) bal(b algorithms.Ballot) { x.u64(uint64(b)) }
func (x *enc) flag(v bool) {
	if v {
		x.b = append(x.b, 1)
	} else {
		x.b = append(x.b, 0)
	}
}

// lease writes (owner, t); the time only for a real lease (owner ≠ ⊥).
func (x *enc) lease(l lease) {
	x.b = binary.LittleEndian.AppendUint16(x.b, uint16(l.owner))
	if !l.none() {
		x.t(l.t)
	}
}

func (x *enc) inst(i *instance) {
	x.u64(i.n)
	if i.n != 0 {
		x.t(i.since)
	}
	x.bal(i.promised)
	x.bal(i.accBal)
	x.lease(i.acc)
	x.bal(i.lrnBal)
	x.lease(i.lrn)
	x.flag(i.over)
	x.flag(i.accVoid)
	x.flag(i.lrnVoid)
}

// AppendState implements algorithms.Explorable: the node's state in key
// order, every local time relative to now.
func (e *Node) AppendState(b []byte, now algorithms.Local) []byte {
	x := &enc{b: b, now: now}
	x.b = binary.LittleEndian.AppendUint16(x.b, e.restarts)
	x.flag(e.joining)
	x.t(e.ownFloor)
	x.u64(uint64(len(e.recovered)))
	for _, r := range e.recovered {
		x.u64(uint64(r.Resource))
		x.u64(r.Instance)
		x.bal(r.Promised)
		x.bal(r.Accepted)
		x.b = binary.LittleEndian.AppendUint16(x.b, uint16(r.Owner))
		x.t(r.Expiry)
	}
	x.u64(uint64(len(e.pending)))
	for _, r := range e.pending {
		x.u64(uint64(r))
	}
	rk := make([]algorithms.ResourceID, 0, len(e.res))
	for k := range e.res {
		rk = append(rk, k)
	}
	slices.Sort(rk)
	x.u64(uint64(len(rk)))
	for _, k := range rk {
		s := e.res[k]
		x.u64(uint64(k))
		x.inst(&s.cur)
		x.inst(&s.prev)
		x.lease(s.inv)
		x.lease(s.mine)
		x.lease(s.granted)
	}
	pk := make([]algorithms.ResourceID, 0, len(e.props))
	for k := range e.props {
		pk = append(pk, k)
	}
	slices.Sort(pk)
	x.u64(uint64(len(pk)))
	for _, k := range pk {
		p := e.props[k]
		x.u64(uint64(k))
		x.b = append(x.b, p.req)
		x.u64(uint64(p.fails))
		x.t(p.extendFrom)
		x.bal(p.maxBal)
		x.u64(p.triedPrev)
		x.t(p.blockedUntil)
		rd := &p.rd
		x.flag(rd.active)
		x.b = append(x.b, rd.phase)
		x.flag(rd.learnPrev)
		x.u64(rd.inst)
		x.bal(rd.ballot)
		x.lease(rd.own)
		x.lease(rd.value)
		x.bal(rd.adoptBal)
		x.lease(rd.adopt)
		x.t(rd.blockUntil)
		for _, w := range p.votes {
			x.u64(w)
		}
		for _, w := range p.neg {
			x.u64(w)
		}
		x.flag(p.hold.on)
		if p.hold.on {
			x.u64(p.hold.inst)
			x.t(p.hold.t)
			x.t(p.hold.until)
			x.bal(p.hold.ballot)
		}
	}
	return x.b
}
