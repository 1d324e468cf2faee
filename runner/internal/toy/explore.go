package toy

import (
	"encoding/binary"
	"math/rand/v2"

	"leaselab/algorithms"
)

// The toy is explorable (algorithms.Explorable), so runner/explore's tests
// search it as they search the real algorithms.

func (n *toyNode) Clone(r *rand.Rand) algorithms.Node {
	c := *n
	c.cfg.Rand = r
	c.grants = algorithms.CloneValues(n.grants, nil)
	c.reqs = algorithms.CloneValues(n.reqs, nil)
	return &c
}

// AppendState writes what can change a future output: the node and its
// restart count, the quiet period
// while it lasts, the grants, and of each request what its phase uses
// (the attempt while wanting, the grant while holding). A request's
// until is written for the meters only and is left out.
func (n *toyNode) AppendState(b []byte, now algorithms.Local) []byte {
	b = binary.AppendUvarint(b, uint64(n.cfg.ID))
	b = binary.AppendUvarint(b, uint64(n.cfg.Restarts)) // in every ballot
	quiet := n.quietUntil > now
	b = appendBool(b, quiet)
	if quiet {
		b = binary.AppendVarint(b, int64(n.quietUntil-now))
	}
	b = algorithms.AppendMap(b, n.grants, nil, func(b []byte, g *toyGrant) []byte {
		b = binary.AppendUvarint(b, uint64(g.owner))
		b = binary.AppendUvarint(b, uint64(g.ballot))
		return binary.AppendVarint(b, int64(g.until-now))
	})
	keep := func(q *toyReq) bool { return q.wanting || q.holding || q.round != 0 }
	return algorithms.AppendMap(b, n.reqs, keep, func(b []byte, q *toyReq) []byte {
		b = appendBool(b, q.wanting)
		b = appendBool(b, q.holding)
		b = binary.AppendUvarint(b, uint64(q.round))
		if q.wanting {
			b = binary.AppendUvarint(b, uint64(q.ballot))
			b = binary.AppendUvarint(b, uint64(q.tries))
			b = binary.AppendVarint(b, int64(q.sentAt-now))
		}
		if q.holding {
			b = binary.AppendUvarint(b, uint64(q.held))
		}
		return b
	})
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}
