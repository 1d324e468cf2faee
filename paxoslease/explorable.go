package paxoslease

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
	c.rand = r
	c.res = table{slots: slices.Clone(n.res.slots), dist: slices.Clone(n.res.dist), n: n.res.n}
	c.rounds = make(map[algorithms.ResourceID]*round, len(n.rounds))
	for k, rd := range n.rounds {
		cp := *rd
		c.rounds[k] = &cp
	}
	c.free = nil
	c.roundsPeak = 0
	c.pending = slices.Clone(n.pending)
	return &c
}

func appendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// AppendState implements algorithms.Explorable: the node's state in key
// order, every local time relative to now. Left out: the free list, the
// peak count, the random source and the configuration (fixed for a node).
func (n *Node) AppendState(b []byte, now algorithms.Local) []byte {
	rel := func(t algorithms.Local) uint64 { return uint64(t - now) }
	var f byte
	if n.silent {
		f |= 1
	}
	if n.started {
		f |= 2
	}
	b = append(b, f)
	b = binary.LittleEndian.AppendUint16(b, n.restarts)
	b = binary.LittleEndian.AppendUint32(b, n.lastRound)
	// The resource table, by key.
	keys := make([]algorithms.ResourceID, 0, n.res.n)
	for i := range n.res.slots {
		if n.res.dist[i] != 0 {
			keys = append(keys, n.res.slots[i].key)
		}
	}
	slices.Sort(keys)
	b = appendU64(b, uint64(len(keys)))
	for _, k := range keys {
		s := n.res.get(k)
		b = appendU64(b, uint64(k))
		b = appendU64(b, uint64(s.promised))
		b = appendU64(b, uint64(s.accepted))
		if s.accepted != 0 {
			b = appendU64(b, rel(s.accUntil))
		}
		b = appendU64(b, uint64(s.held))
		if s.held != 0 {
			b = appendU64(b, rel(s.until))
		}
	}
	// Rounds in flight, by key.
	rk := make([]algorithms.ResourceID, 0, len(n.rounds))
	for k := range n.rounds {
		rk = append(rk, k)
	}
	slices.Sort(rk)
	b = appendU64(b, uint64(len(rk)))
	for _, k := range rk {
		rd := n.rounds[k]
		b = appendU64(b, uint64(k))
		b = appendU64(b, uint64(rd.ballot))
		b = appendU64(b, rel(rd.start))
		if rd.deadline == 0 {
			b = append(b, 0)
		} else {
			b = append(b, 1)
			b = appendU64(b, rel(rd.deadline))
		}
		b = appendU64(b, rd.promised)
		b = appendU64(b, rd.open)
		b = appendU64(b, rd.accepted)
		b = appendU64(b, rd.rejected)
		b = appendU64(b, rd.leased)
		b = appendU64(b, uint64(rd.nOpen))
		b = appendU64(b, uint64(rd.nAccepted))
		b = appendU64(b, uint64(rd.learned))
		b = appendU64(b, uint64(rd.hint))
		b = appendU64(b, uint64(rd.fails))
		var g byte
		if rd.busy {
			g |= 1
		}
		if rd.queued {
			g |= 2
		}
		b = append(b, byte(rd.phase), g)
	}
	b = appendU64(b, uint64(len(n.pending)))
	for _, r := range n.pending {
		b = appendU64(b, uint64(r))
	}
	return b
}
