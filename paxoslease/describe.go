package paxoslease

import (
	"cmp"
	"fmt"
	"slices"

	"leaselab/algorithms"
)

var _ algorithms.Describer = (*Node)(nil)

// Describe implements algorithms.Describer: the node's life, each
// resource's acceptor record (highest promise, accepted proposal and its
// timer) and held lease, and each round in flight, in resource order.
// It looks at every slot, so it costs a scan of the table: meant for the
// small clusters of replays, not for a node of a million resources.
func (n *Node) Describe(now algorithms.Local) string {
	var d algorithms.Description
	switch {
	case !n.started:
		d.Line("life %d, not started", n.restarts)
	case n.silent:
		d.Line("life %d, in its restart quarantine: silent (no answers, no proposals) until the leases it may have promised are over", n.restarts)
	default:
		d.Line("life %d", n.restarts)
	}
	if len(n.pending) > 0 {
		d.Line("requests waiting for the quarantine to end: %v", n.pending)
	}
	idx := make([]uint32, 0, 16)
	for i := 0; i < n.res.len(); i++ {
		if s := n.res.rec(uint32(i)); s.promised != 0 || s.accepted != 0 || s.heldRound != 0 {
			idx = append(idx, uint32(i))
		}
	}
	slices.SortFunc(idx, func(i, j uint32) int { return cmp.Compare(n.res.rec(i).key, n.res.rec(j).key) })
	acceptor := n.cluster.IsAcceptor(n.id)
	for _, i := range idx {
		s := n.res.rec(i)
		if acceptor && (s.promised != 0 || s.accepted != 0) {
			d.Item("acceptor", "r%d: %s", s.key, describeAcceptor(s, now))
		}
		if s.heldRound != 0 && now < s.until {
			d.Item("holder", "r%d: holds the lease (ballot %s), ends %s", s.key, n.heldBallot(s), algorithms.Until(s.until, now))
		}
	}
	if acceptor && len(idx) == 0 {
		d.Line("acceptor: nothing promised or accepted")
	}
	keys := make([]algorithms.ResourceID, 0, len(n.rounds))
	for r := range n.rounds {
		keys = append(keys, r)
	}
	slices.Sort(keys)
	for _, r := range keys {
		d.Item("proposer", "r%d: %s", r, n.rounds[r].describe(now, n.majority))
	}
	return d.String("acceptor", "holder", "proposer")
}

func describeAcceptor(s *slot, now algorithms.Local) string {
	out := "promised " + s.promised.String()
	switch {
	case s.accepted != 0:
		out += fmt.Sprintf(", accepted %s (owner %s), its timer ends %s", s.accepted, s.accepted.Node(), algorithms.Until(s.accUntil, now))
	case s.accUntil != 0 && now < s.accUntil:
		out += ", nothing accepted; the re-sent promise is guarded " + algorithms.Until(s.accUntil, now)
	default:
		out += ", nothing accepted"
	}
	return out
}

func (rd *round) describe(now algorithms.Local, majority int) string {
	var s string
	switch rd.phase {
	case phasePrepare:
		s = fmt.Sprintf("prepare phase, ballot %s: promises from %s (open: %s), rejects from %s; %d open promises needed",
			rd.ballot, rd.promised.String(), rd.open.String(), rd.rejected.String(), majority)
	case phasePropose:
		s = fmt.Sprintf("propose phase, ballot %s: accepted by %s, rejected by %s; %d needed",
			rd.ballot, rd.accepted.String(), rd.rejected.String(), majority)
	default:
		switch {
		case rd.queued:
			s = "queued until the quarantine ends"
		case rd.parked:
			s = fmt.Sprintf("parked after prepare with ballot %s (promises from %s), waiting for another's lease to end", rd.ballot, rd.promised.String())
		case rd.busy:
			s = "waiting for another's lease to end"
		default:
			s = "backing off before the next round"
		}
	}
	if rd.deadline != 0 && rd.phase != phaseWait {
		s += ", the lease would end " + algorithms.Until(rd.deadline, now)
	}
	if rd.fails > 0 {
		s += fmt.Sprintf(" (%d failed rounds)", rd.fails)
	}
	if rd.learned != 0 {
		s += ", highest promise reported " + rd.learned.String()
	}
	return s
}
