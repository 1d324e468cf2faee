package naive

import (
	"fmt"

	"leaselab/algorithms"
)

var _ algorithms.Describer = (*Node)(nil)

// Describe implements algorithms.Describer: the node's life, each grant
// (acceptor) and each proposal (proposer), in resource order.
func (n *Node) Describe(now algorithms.Local) string {
	var d algorithms.Description
	if n.quarantined {
		d.Line("life %d, silent after its restart: it forgot its grants, so it answers and proposes nothing until M has passed", n.restarts)
	} else {
		d.Line("life %d", n.restarts)
	}
	if len(n.deferred) > 0 {
		d.Line("acquisitions deferred until the silence ends: %v", n.deferred)
	}
	var buf [16]algorithms.ResourceID
	grants := n.tab.keys(buf[:0], true)
	for _, r := range grants {
		g := n.tab.get(r).g
		d.Item("acceptor", "r%d: granted to %s (ballot %s), lapses %s; denies requests while it lasts (its owner may renew it)", r, g.owner, g.ballot, algorithms.Until(g.until, now))
	}
	if len(grants) == 0 && n.cluster.IsAcceptor(n.id) {
		d.Line("acceptor: no grants")
	}
	for _, r := range n.tab.keys(buf[:0], false) {
		d.Item("proposer", "r%d: %s", r, n.tab.get(r).p.describe(now, n.cluster.Majority()))
	}
	return d.String("acceptor", "proposer")
}

func (p *proposal) describe(now algorithms.Local, majority int) string {
	s := "idle"
	switch p.phase {
	case collecting:
		what := "acquiring"
		if p.extend {
			what = "extending"
		}
		s = fmt.Sprintf("%s with ballot %s, sent %s: granted by %s, denied by %s (%d grants needed)",
			what, p.ballot, algorithms.Ago(p.sent, now), p.granted.String(), p.denied.String(), majority)
	case waiting:
		s = fmt.Sprintf("backing off before the next round (%d failed)", p.failed)
	}
	if p.holding {
		s += fmt.Sprintf("; holds the lease (ballot %s), ends %s", p.holdBallot, algorithms.Until(p.holdUntil, now))
	}
	return s
}
