package naive

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"

	"leaselab/algorithms"
)

var _ algorithms.Explorable = (*Node)(nil)

// Clone implements algorithms.Explorable: a deep copy that draws its
// backoff from r. The table is a few slices, so a copy costs a few
// allocations whatever the number of resources.
func (n *Node) Clone(r *rand.Rand) algorithms.Node {
	c := *n
	c.rnd = r
	c.deferred = slices.Clone(n.deferred)
	c.tab = n.tab.clone()
	return &c
}

// AppendState implements algorithms.Explorable.
//
// Written: id, restart counter, quarantine and the deferred acquisitions
// (in order: join starts them in that order), the ballot run counter, every
// grant (owner, ballot, expiry) and every proposal in resource order.
//
// Left out, because no future output depends on them:
//   - the rules (cluster, params, rule switches, variant) but the id and
//     restart counter: fixed for a run and shared by clones, the explorer
//     compares nodes of one configuration only;
//   - the random source (the contract);
//   - proposal.lastDeny: written just before the only read (the Preempted
//     event of the same step);
//   - of a proposal that is not collecting: ballot, sent, the answer sets
//     and grantMsgs (startRound resets them before they are read again;
//     relinquish, fail and onAnswer read them only while collecting);
//   - of an idle proposal: extend and failed (set again by acquire or
//     extendLease before the next round);
//   - of a proposal that does not hold: holdBallot and holdUntil.
func (n *Node) AppendState(b []byte, now algorithms.Local) []byte {
	b = binary.AppendUvarint(b, uint64(n.id))
	b = binary.AppendUvarint(b, uint64(n.restarts))
	b = appendBool(b, n.quarantined)
	b = binary.AppendUvarint(b, uint64(len(n.deferred)))
	for _, r := range n.deferred {
		b = binary.AppendUvarint(b, uint64(r))
	}
	b = binary.AppendUvarint(b, uint64(n.counter))

	// Every grant, then every proposal, each as a count and then key and
	// value in ascending key order (algorithms.AppendMap's encoding).
	var buf [16]algorithms.ResourceID // no allocation up to 16 keys
	ks := n.tab.keys(buf[:0], true)
	b = binary.AppendUvarint(b, uint64(len(ks)))
	for _, r := range ks {
		g := n.tab.get(r).g
		b = binary.AppendUvarint(b, uint64(r))
		b = binary.AppendUvarint(b, uint64(g.owner))
		b = binary.AppendUvarint(b, uint64(g.ballot))
		b = binary.AppendVarint(b, int64(g.until-now))
	}
	ks = n.tab.keys(buf[:0], false)
	b = binary.AppendUvarint(b, uint64(len(ks)))
	for _, r := range ks {
		b = binary.AppendUvarint(b, uint64(r))
		b = n.tab.get(r).p.appendState(b, now)
	}
	return b
}

func (p *proposal) appendState(b []byte, now algorithms.Local) []byte {
	var flags byte
	if p.holding {
		flags |= 1
	}
	if p.phase != idle && p.extend {
		flags |= 2
	}
	b = append(b, byte(p.phase), flags)
	if p.phase != idle {
		b = binary.AppendUvarint(b, uint64(p.failed))
	}
	if p.phase == collecting {
		b = binary.AppendUvarint(b, uint64(p.ballot))
		b = binary.AppendVarint(b, int64(p.sent-now))
		b = p.granted.AppendState(b)
		b = p.denied.AppendState(b)
		b = binary.AppendUvarint(b, uint64(p.grantMsgs))
	}
	if p.holding {
		b = binary.AppendUvarint(b, uint64(p.holdBallot))
		b = binary.AppendVarint(b, int64(p.holdUntil-now))
	}
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}
