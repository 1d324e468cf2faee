package fatlease

import (
	"fmt"
	"slices"

	"leaselab/algorithms"
)

var _ algorithms.Describer = (*Node)(nil)

// Describe implements algorithms.Describer: the node's life, each
// resource's current Multipaxos instance as this node knows it (its
// acceptor's promise and accepted lease, the lease it learned), and each
// proposer's request, round and hold, in resource order. A lease (owner,
// t) ends when its owner's clock reads t; it is shown relative to this
// node's clock, which is within d_max of the owner's.
func (e *Node) Describe(now algorithms.Local) string {
	var d algorithms.Description
	if e.joining {
		d.Line("life %d, in its restart wait: it takes part in no instance until every lease it may have helped choose is over", e.restarts)
	} else {
		d.Line("life %d", e.restarts)
	}
	if len(e.pending) > 0 {
		d.Line("requests waiting for the restart wait to end: %v", e.pending)
	}
	for _, r := range sortedKeys(e.res) {
		rs := e.res[r]
		if *rs == freshRstate {
			continue
		}
		d.Item("instance", "r%d: %s", r, e.describeInstance(rs, now))
	}
	for _, r := range sortedKeys(e.props) {
		d.Item("proposer", "r%d: %s", r, e.props[r].describe(now))
	}
	return d.String("instance", "proposer")
}

func sortedKeys[V any](m map[algorithms.ResourceID]V) []algorithms.ResourceID {
	ks := make([]algorithms.ResourceID, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func describeLease(l lease, now algorithms.Local) string {
	if l.none() {
		return "none"
	}
	return fmt.Sprintf("%s, ends %s", l.owner, algorithms.Until(l.t, now))
}

func (e *Node) describeInstance(rs *rstate, now algorithms.Local) string {
	in := &rs.cur
	s := fmt.Sprintf("instance %d", in.n)
	if e.isAcceptor {
		s += fmt.Sprintf(": promised %s, accepted %s", in.promised, in.accBal)
		if in.accBal != 0 {
			s += " (" + describeLease(in.acc, now) + ")"
		}
		if in.accVoid {
			s += " invalidated"
		}
	}
	if in.lrnBal != 0 || !in.lrn.none() {
		s += "; learned " + describeLease(in.lrn, now)
		if in.lrnVoid {
			s += " invalidated"
		}
	}
	if in.over {
		s += "; its lease is over"
	}
	if !rs.inv.none() {
		s += fmt.Sprintf("; %s gave up its leases up to %s", rs.inv.owner, algorithms.Until(rs.inv.t, now))
	}
	return s
}

func (p *prop) describe(now algorithms.Local) string {
	s := "no request"
	switch p.req {
	case reqAcquire:
		s = "acquiring"
	case reqExtend:
		s = "extending"
	}
	rd := &p.rd
	if rd.active {
		what := "prepare"
		if rd.phase == phPropose {
			what = "accept"
		}
		if rd.learnPrev {
			what = "learning the previous instance, " + what
		}
		s += fmt.Sprintf("; %s phase of instance %d, ballot %s: for %s, against %s", what, rd.inst, rd.ballot, p.votes.String(), p.neg.String())
		if rd.phase == phPropose {
			s += "; proposes " + describeLease(rd.value, now)
		}
	} else if p.blockedUntil > now {
		s += "; waiting for a blocking lease to end " + algorithms.Until(p.blockedUntil, now)
	}
	if p.fails > 0 {
		s += fmt.Sprintf(" (%d failed rounds)", p.fails)
	}
	if p.hold.on {
		s += fmt.Sprintf("; holds the lease of instance %d (ballot %s), ends %s", p.hold.inst, p.hold.ballot, algorithms.Until(p.hold.until, now))
	}
	return s
}
