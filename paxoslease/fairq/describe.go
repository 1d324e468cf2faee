package fairq

import (
	"fmt"
	"slices"
	"strings"

	"leaselab/algorithms"
)

var _ algorithms.Describer = (*Node)(nil)

// Describe implements algorithms.Describer: the node's life, each record
// with its queue (acceptor) and each proposal (proposer), in resource
// order, every time relative to now.
func (n *Node) Describe(now algorithms.Local) string {
	c := n.rules
	var d algorithms.Description
	if n.quarantined {
		d.Line("life %d, silent after its restart: it forgot its records, so it answers and asks nothing until M(1+ρ)/(1-ρ) has passed", c.restarts)
	} else {
		d.Line("life %d", c.restarts)
	}
	if len(n.deferred) > 0 {
		d.Line("acquisitions deferred until the silence ends: %v", n.deferred)
	}
	for _, r := range keys(n.recs) {
		a := n.recs[r]
		s := fmt.Sprintf("free, lease number %d", a.seq)
		if a.ballot != 0 {
			s = fmt.Sprintf("granted to %s (ballot %s, lease number %d), lapses %s", a.ballot.Node(), a.ballot, a.seq, algorithms.Until(a.until, now))
		}
		if len(a.queue) > 0 {
			q := make([]string, len(a.queue))
			for i, b := range a.queue {
				q[i] = fmt.Sprintf("%s (%s)", b.Node(), b)
			}
			s += "; queued: " + strings.Join(q, ", ")
		}
		d.Item("acceptor", "r%d: %s", r, s)
	}
	if len(n.recs) == 0 && c.cluster.IsAcceptor(c.id) {
		d.Line("acceptor: no records")
	}
	for _, r := range keys(n.props) {
		d.Item("proposer", "r%d: %s", r, n.props[r].describe(now, c.cluster.Majority()))
	}
	return d.String("acceptor", "proposer")
}

func (p *proposal) describe(now algorithms.Local, majority int) string {
	what := "acquiring"
	if p.extend {
		what = "extending"
	}
	req := fmt.Sprintf("ballot %s sent %s, granted by %s", p.cur, algorithms.Ago(p.curAt, now), p.curVotes.String())
	if p.prev != 0 {
		req += fmt.Sprintf("; earlier %s sent %s, granted by %s", p.prev, algorithms.Ago(p.prevAt, now), p.prevVotes.String())
	}
	var s string
	switch p.phase {
	case idle:
		s = "nothing in flight"
	case collecting:
		s = fmt.Sprintf("%s, answers due (%d grants needed): %s", what, majority, req)
	case parked:
		s = fmt.Sprintf("queued behind another's lease, waiting to be handed it: %s", req)
	case waiting:
		s = fmt.Sprintf("%s, asks again soon (%d failed rounds): %s", what, p.fails, req)
	}
	if p.holding {
		s += fmt.Sprintf("; holds the lease (ballot %s, token %s), ends %s", p.holdBallot, p.token, algorithms.Until(p.holdUntil, now))
	}
	if p.succ != 0 {
		s += fmt.Sprintf("; next waiter %s (%s)", p.succ.Node(), p.succ)
	}
	return s
}

func keys[V any](m map[algorithms.ResourceID]V) []algorithms.ResourceID {
	ks := make([]algorithms.ResourceID, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
