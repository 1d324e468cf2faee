package paxoslease

import (
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"

	"leaselab/algorithms"
)

var _ algorithms.Explorable = (*Node)(nil)

// Clone implements algorithms.Explorable: a deep copy (table, rounds,
// pending requests) that draws its backoff from r. Rounds are copied into
// one backing array; the free list starts empty and the peak counter at
// the number of rounds.
func (n *Node) Clone(r *rand.Rand) algorithms.Node {
	c := *n
	c.rand = r
	c.res = n.res.clone()
	c.pending = slices.Clone(n.pending)
	c.free = nil
	c.rounds = algorithms.CloneValues(n.rounds, func(cp, orig *round) {
		cp.promised = orig.promised.Clone()
		cp.open = orig.open.Clone()
		cp.accepted = orig.accepted.Clone()
		cp.rejected = orig.rejected.Clone()
		cp.leased = orig.leased.Clone()
	})
	c.roundsPeak = len(n.rounds)
	return &c
}

// Markers of a time in the encoding: only tAt is followed by the time,
// relative to now.
const (
	tUnset byte = 0 // 0 = not known (a round's deadline under late-timer)
	tPast  byte = 1 // at or before now: every later input sees it as over
	tAt    byte = 2
)

func appendTime(b []byte, t, now algorithms.Local) []byte {
	switch {
	case t == 0:
		return append(b, tUnset)
	case t <= now:
		return append(b, tPast)
	}
	return binary.AppendVarint(append(b, tAt), int64(t-now))
}

// AppendState implements algorithms.Explorable.
//
// Written: id, restart counter, started and silent (quarantine), the run
// counter of ballots, the pending requests in order (join starts them in
// that order, duplicates and stale entries included), every resource's
// slot with any state, and every round, both in resource order.
//
// Times are written relative to now, and as one "past" marker once they
// are at or before now: an acceptor's accUntil and a holder's until are
// only ever compared with the current time (expire clears the accepted
// proposal before any answer reads accUntil), so every past value acts
// alike. A round's deadline likewise (propose and onAccepted stop at it).
//
// Left out, because no future output depends on them:
//   - the rules (cluster, params, rule switches, hold and quarantine
//     spans) but the id and restart counter: fixed for a run and shared
//     by clones, the explorer compares nodes of one configuration only;
//   - the random source (the contract), the free list of rounds and the
//     peak count of rounds (memory only);
//   - the acceptor timers a runner asked the node to keep (KeepTimers):
//     the explorer never asks, so they are all in Output.Timers;
//   - slots with no state at all (nothing promised, accepted or held): a
//     lookup that finds one acts as one that finds none;
//   - the measured round trip and when a prepare phase's Prepare went
//     out (its deadline less the hold), when Params.Backoff is 0 (or,
//     for the latter, with late-timer ablated, when it is unknown): they
//     only scale random waits, which are capped at Backoff (the
//     explorer's default);
//   - of a round between phases (phaseWait) that is not parked: deadline,
//     vote sets, vote counts and hint (startRound resets them before
//     they are read).
func (n *Node) AppendState(b []byte, now algorithms.Local) []byte {
	b = binary.AppendUvarint(b, uint64(n.id))
	b = binary.AppendUvarint(b, uint64(n.restarts))
	var flags byte
	if n.started {
		flags |= 1
	}
	if n.silent {
		flags |= 2
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(n.lastRound))
	if n.params.Backoff > 0 {
		b = binary.AppendVarint(b, int64(n.rtt))
	}
	b = binary.AppendUvarint(b, uint64(len(n.pending)))
	for _, r := range n.pending {
		b = binary.AppendUvarint(b, uint64(r))
	}

	var sbuf [16]uint32
	idx := sbuf[:0]
	for i := 0; i < n.res.len(); i++ {
		if s := n.res.rec(uint32(i)); s.promised != 0 || s.accepted != 0 || s.heldRound != 0 {
			idx = append(idx, uint32(i))
		}
	}
	slices.SortFunc(idx, func(i, j uint32) int { return cmp.Compare(n.res.rec(i).key, n.res.rec(j).key) })
	b = binary.AppendUvarint(b, uint64(len(idx)))
	for _, i := range idx {
		s := n.res.rec(i)
		b = binary.AppendUvarint(b, uint64(s.key))
		b = binary.AppendUvarint(b, uint64(s.promised))
		b = binary.AppendUvarint(b, uint64(s.accepted))
		if s.accepted != 0 || s.accUntil != 0 {
			// accUntil is the accepted proposal's timer, or, with
			// nothing accepted, the end of a promise guard.
			b = appendTime(b, s.accUntil, now)
		}
		b = binary.AppendUvarint(b, uint64(n.heldBallot(s)))
		if s.heldRound != 0 {
			b = appendTime(b, s.until, now)
		}
	}

	withRTT := n.params.Backoff > 0 && n.earlyTimer // see prepareSent
	return algorithms.AppendMap(b, n.rounds, nil, func(b []byte, rd *round) []byte { return rd.appendState(b, now, withRTT) })
}

func (rd *round) appendState(b []byte, now algorithms.Local, withRTT bool) []byte {
	var flags byte
	if rd.busy {
		flags |= 1
	}
	if rd.queued {
		flags |= 2
	}
	if rd.parked {
		flags |= 4
	}
	b = append(b, byte(rd.phase), flags)
	b = binary.AppendUvarint(b, uint64(rd.ballot))
	b = binary.AppendUvarint(b, uint64(rd.learned))
	b = binary.AppendUvarint(b, uint64(rd.fails))
	if rd.phase == phaseWait && !rd.parked {
		return b
	}
	if withRTT && rd.phase == phasePrepare {
		// The round trip is measured from the deadline (prepareSent), so
		// its exact distance counts, not only whether it is past.
		b = binary.AppendVarint(b, int64(rd.deadline-now))
	}
	b = appendTime(b, rd.deadline, now)
	for _, set := range [...]*algorithms.NodeSet{&rd.promised, &rd.open, &rd.accepted, &rd.rejected, &rd.leased} {
		b = set.AppendState(b)
	}
	b = binary.AppendUvarint(b, uint64(rd.nOpen))
	b = binary.AppendUvarint(b, uint64(rd.nAccepted))
	return binary.AppendVarint(b, int64(rd.hint))
}
