package naive

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"

	"leaselab/algorithms"
)

var _ algorithms.Explorable = (*Node)(nil)

// Clone implements algorithms.Explorable: a deep copy drawing from r.
func (n *Node) Clone(r *rand.Rand) algorithms.Node {
	c := *n
	c.rnd = r
	c.deferred = slices.Clone(n.deferred)
	c.props = make(map[algorithms.ResourceID]*proposal, len(n.props))
	for k, p := range n.props {
		cp := *p
		cp.granted.more = slices.Clone(p.granted.more)
		cp.denied.more = slices.Clone(p.denied.more)
		c.props[k] = &cp
	}
	c.grants = make(map[algorithms.ResourceID]grant, len(n.grants))
	for k, g := range n.grants {
		c.grants[k] = g
	}
	return &c
}

func appendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

func appendSet(b []byte, s *acceptorSet) []byte {
	b = appendU64(b, s.w0)
	b = appendU64(b, uint64(len(s.more)))
	for _, w := range s.more {
		b = appendU64(b, w)
	}
	return b
}

// AppendState implements algorithms.Explorable: the node's state in key
// order, every local time relative to now.
func (n *Node) AppendState(b []byte, now algorithms.Local) []byte {
	rel := func(t algorithms.Local) uint64 { return uint64(t - now) }
	var f byte
	if n.quarantined {
		f |= 1
	}
	b = append(b, f)
	b = binary.LittleEndian.AppendUint16(b, n.restarts)
	b = binary.LittleEndian.AppendUint32(b, n.counter)
	b = appendU64(b, uint64(len(n.deferred)))
	for _, r := range n.deferred {
		b = appendU64(b, uint64(r))
	}
	pk := make([]algorithms.ResourceID, 0, len(n.props))
	for k := range n.props {
		pk = append(pk, k)
	}
	slices.Sort(pk)
	b = appendU64(b, uint64(len(pk)))
	for _, k := range pk {
		p := n.props[k]
		b = appendU64(b, uint64(k))
		var g byte
		if p.extend {
			g |= 1
		}
		if p.holding {
			g |= 2
		}
		b = append(b, byte(p.phase), g)
		b = appendU64(b, uint64(p.ballot))
		b = appendU64(b, rel(p.sent))
		b = appendU64(b, uint64(p.failed))
		b = appendSet(b, &p.granted)
		b = appendSet(b, &p.denied)
		b = appendU64(b, uint64(p.grantMsgs))
		b = binary.LittleEndian.AppendUint16(b, uint16(p.lastDeny))
		b = appendU64(b, uint64(p.holdBallot))
		if p.holding {
			b = appendU64(b, rel(p.holdUntil))
		}
	}
	gk := make([]algorithms.ResourceID, 0, len(n.grants))
	for k := range n.grants {
		gk = append(gk, k)
	}
	slices.Sort(gk)
	b = appendU64(b, uint64(len(gk)))
	for _, k := range gk {
		g := n.grants[k]
		b = appendU64(b, uint64(k))
		b = binary.LittleEndian.AppendUint16(b, uint16(g.owner))
		b = appendU64(b, uint64(g.ballot))
		b = appendU64(b, rel(g.until))
	}
	return b
}
