package toy

import (
	"slices"

	"leaselab/algorithms"
)

var _ algorithms.Describer = (*toyNode)(nil)

// Describe implements algorithms.Describer: the server's grants and the
// requesters' attempts and holds, in resource order.
func (n *toyNode) Describe(now algorithms.Local) string {
	var d algorithms.Description
	if n.quietUntil > now {
		d.Line("life %d, silent until %s", n.cfg.Restarts, algorithms.Until(n.quietUntil, now))
	} else {
		d.Line("life %d", n.cfg.Restarts)
	}
	for _, r := range keysOf(n.grants) {
		g := n.grants[r]
		d.Item("server", "r%d: granted to %s (ballot %s), lapses %s", r, g.owner, g.ballot, algorithms.Until(g.until, now))
	}
	for _, r := range keysOf(n.reqs) {
		q := n.reqs[r]
		switch {
		case q.holding:
			d.Item("requester", "r%d: holds the lease (ballot %s), ends %s", r, q.held, algorithms.Until(q.until, now))
		case q.wanting:
			d.Item("requester", "r%d: asked with ballot %s %s (try %d)", r, q.ballot, algorithms.Ago(q.sentAt, now), q.tries)
		}
	}
	return d.String("server", "requester")
}

func keysOf[V any](m map[algorithms.ResourceID]V) []algorithms.ResourceID {
	ks := make([]algorithms.ResourceID, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
