package fairq

import (
	"encoding/binary"
	"maps"
	"math/rand/v2"
	"slices"

	"leaselab/algorithms"
)

var _ algorithms.Explorable = (*Node)(nil)

// Clone implements algorithms.Explorable: a deep copy (records with their
// queues, proposals with their vote sets and reports) that draws its
// backoff from r. The configuration is shared: nothing writes it.
func (n *Node) Clone(r *rand.Rand) algorithms.Node {
	c := *n
	c.rnd = r
	c.deferred = slices.Clone(n.deferred)
	c.seen = maps.Clone(n.seen)
	c.recs = algorithms.CloneValues(n.recs, func(cp, orig *record) { cp.queue = slices.Clone(orig.queue) })
	c.props = algorithms.CloneValues(n.props, func(cp, orig *proposal) {
		cp.curVotes = orig.curVotes.Clone()
		cp.prevVotes = orig.prevVotes.Clone()
		cp.reports = slices.Clone(orig.reports)
	})
	return &c
}

// Markers of a time in the encoding: only tAt is followed by the time,
// relative to now.
const (
	tUnset byte = 0
	tPast  byte = 1 // at or before now: every later input sees it as over
	tAt    byte = 2
)

func appendTime(b []byte, t, now algorithms.Local) []byte {
	if t <= now {
		return append(b, tPast)
	}
	return binary.AppendVarint(append(b, tAt), int64(t-now))
}

// AppendState implements algorithms.Explorable.
//
// Written: the node's id and restart counter (a restart makes a new
// node object with the same id), the quarantine flag, the deferred acquisitions in order, the
// run counter, every record (lease number, ballot, lapse time, whether
// the owner was told a waiter, the queue in order) and every proposal
// (with the lease numbers it counted, and its hold's token), both in
// resource order, and the lease numbers the proposer saw.
//
// Times are written relative to now, and as one "past" marker once they
// are at or before now where only a comparison with now reads them: a
// record's until (lapse ends a record at or past it before anything
// reads it) and a hold's end. A request's send time is written exactly
// while the ballot can still be counted: the hold it gives is computed
// from it.
//
// Left out, because no future output depends on them:
//   - the rest of the configuration (cluster, params, rules, spans):
//     fixed for a run, and the explorer compares nodes of one run;
//   - the random source (the contract);
//   - of a proposal that is idle (it holds, nothing in flight): the
//     state of its last request (send times, votes, reports, span,
//     fails, prev), which the next request resets before it reads any;
//     cur, dead and succ stay, since the release and the declines read
//     them;
//   - the reports and span of a proposal that is not collecting: only
//     resolve reads them, only while collecting, and the request that
//     starts collecting again resets them.
func (n *Node) AppendState(b []byte, now algorithms.Local) []byte {
	b = binary.AppendUvarint(b, uint64(n.id))
	b = binary.AppendUvarint(b, uint64(n.restarts))
	var flags byte
	if n.quarantined {
		flags |= 1
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(len(n.deferred)))
	for _, r := range n.deferred {
		b = binary.AppendUvarint(b, uint64(r))
	}
	b = binary.AppendUvarint(b, uint64(n.counter))
	b = algorithms.AppendMap(b, n.recs, nil, func(b []byte, a *record) []byte {
		b = binary.AppendUvarint(b, a.seq)
		b = binary.AppendUvarint(b, uint64(a.ballot))
		if a.ballot != 0 {
			b = appendTime(b, a.until, now)
			if a.told {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
		b = binary.AppendUvarint(b, uint64(len(a.queue)))
		for _, e := range a.queue {
			b = binary.AppendUvarint(b, uint64(e))
		}
		return b
	})
	b = algorithms.AppendMap(b, n.props, nil, func(b []byte, p *proposal) []byte { return p.appendState(b, now) })
	return algorithms.AppendMap(b, n.seen, nil, func(b []byte, x uint64) []byte { return binary.AppendUvarint(b, x) })
}

func (p *proposal) appendState(b []byte, now algorithms.Local) []byte {
	var flags byte
	if p.extend {
		flags |= 1
	}
	if p.holding {
		flags |= 2
	}
	b = append(b, byte(p.phase), flags)
	b = binary.AppendUvarint(b, uint64(p.cur))
	b = binary.AppendUvarint(b, uint64(p.dead))
	b = binary.AppendUvarint(b, uint64(p.succ))
	if p.holding {
		b = binary.AppendUvarint(b, uint64(p.holdBallot))
		b = appendTime(b, p.holdUntil, now)
		b = binary.AppendUvarint(b, p.token.Major)
		b = binary.AppendUvarint(b, p.token.Minor)
	}
	if p.phase == idle {
		return b
	}
	b = binary.AppendUvarint(b, uint64(p.fails))
	b = binary.AppendVarint(b, int64(p.curAt-now))
	b = p.curVotes.AppendState(b)
	b = binary.AppendUvarint(b, uint64(p.curMsgs))
	b = binary.AppendUvarint(b, p.curNum)
	b = binary.AppendUvarint(b, uint64(p.prev))
	if p.prev != 0 {
		b = binary.AppendVarint(b, int64(p.prevAt-now))
		b = p.prevVotes.AppendState(b)
		b = binary.AppendUvarint(b, uint64(p.prevMsgs))
		b = binary.AppendUvarint(b, p.prevNum)
	}
	if p.phase == collecting {
		for _, rb := range p.reports {
			b = binary.AppendUvarint(b, uint64(rb))
		}
		b = binary.AppendVarint(b, int64(p.span))
	}
	return b
}
