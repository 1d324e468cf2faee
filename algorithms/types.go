package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// NodeID names a node of the cluster. Nodes are numbered 0..n-1.
type NodeID uint16

// NoNode marks "no owner" / "empty" wherever a NodeID is optional.
const NoNode NodeID = 0xFFFF

func (n NodeID) String() string {
	if n == NoNode {
		return "-"
	}
	return fmt.Sprintf("n%d", uint16(n))
}

// ResourceID names the resource a lease is for. Every message and every
// piece of per-resource state carries one (PaxosLease paper, Sec. 8).
type ResourceID uint64

// Local is a reading of a node's own clock in nanoseconds. Only the runner
// knows true time; algorithms see nothing but Local values and compare them
// only with readings of the same node's clock.
type Local int64

// Add returns l advanced by d.
func (l Local) Add(d time.Duration) Local { return l + Local(d) }

// Sub returns the duration l-m.
func (l Local) Sub(m Local) time.Duration { return time.Duration(l - m) }

// Ballot is a globally unique, totally ordered proposal number laid out, from
// most to least significant, as [round:32][restart:16][node:16] (PaxosLease
// paper, Sec. 2): the run counter dominates, the restart counter keeps a
// restarted proposer from reusing ballots of its previous life, and the node
// id makes ballots of different proposers distinct. Zero is "no ballot" and
// is lower than every real ballot.
//
// Two rules make ballots safe to compare, and every algorithm keeps both:
//
//   - A ballot names a proposer: a node in one of its lives, the pair
//     (node, restart) (Proposer). A restarted node is a new proposer. An
//     algorithm that treats the sender of a ballot as "the same owner"
//     (renewing its grant, letting its proposal replace its own lease)
//     compares proposers with SameProposer, never nodes alone: a
//     diskless node's new life starts its run counter again at 1, so its
//     ballots are below those of its earlier life, and a delayed message of
//     that earlier life would otherwise act on the new life's lease
//     (ablation cross-life-ballots).
//   - A proposer never uses a ballot twice: its run counter belongs to the
//     node (one per life, over every resource), not to a per-resource
//     record that is deleted when a request ends. A ballot reused in one
//     instance lets delayed answers of the earlier round count for the new
//     one (ablation reused-ballots).
//
// Why not order the restart counter above the round, so that a node's
// ballots grow across its lives? A proposer must be able to outbid any
// ballot it meets (PaxosLease acceptors keep their highest promise until
// they restart); with the restart counter on top, a node that never
// restarted could never outbid one that did, and letting it borrow the
// other's restart counter gives back the very ordering the layout was
// meant to prevent. Identity by (node, restart) needs no order at all:
// it makes a restarted node the new proposer the papers' proofs assume.
type Ballot uint64

// MakeBallot packs a ballot.
func MakeBallot(round uint32, restart uint16, node NodeID) Ballot {
	return Ballot(uint64(round)<<32 | uint64(restart)<<16 | uint64(node))
}

// Round is the run counter, the most significant part.
func (b Ballot) Round() uint32 { return uint32(b >> 32) }

// Restart is the proposer's restart counter when it made the ballot.
func (b Ballot) Restart() uint16 { return uint16(b >> 16) }

// Node is the proposer that made the ballot.
func (b Ballot) Node() NodeID { return NodeID(uint16(b)) }

// Proposer is who made the ballot: its node and that node's restart
// counter, one number (the ballot's low 32 bits). Zero for ballot zero.
func (b Ballot) Proposer() uint32 { return uint32(b) }

// SameProposer reports whether a and b were made by the same node in the
// same life. Ballot zero is nobody's.
func SameProposer(a, b Ballot) bool {
	return a != 0 && b != 0 && a.Proposer() == b.Proposer()
}

func (b Ballot) String() string {
	if b == 0 {
		return "0"
	}
	return fmt.Sprintf("%d.%d.%d", b.Round(), b.Restart(), uint16(b.Node()))
}

// ParseBallot reads a ballot as String writes it ("round.restart.node",
// or "0").
func ParseBallot(s string) (Ballot, error) {
	if s == "0" {
		return 0, nil
	}
	var round uint32
	var restart, node uint16
	var rest string
	if n, _ := fmt.Sscanf(s, "%d.%d.%d%s", &round, &restart, &node, &rest); n != 3 || s != MakeBallot(round, restart, NodeID(node)).String() {
		return 0, fmt.Errorf("ballot %q: want round.restart.node, e.g. 12.2.3", s)
	}
	return MakeBallot(round, restart, NodeID(node)), nil
}

// MarshalJSON writes the ballot as String does, "round.restart.node" in
// quotes: one notation in tables, traces, CSV and JSON.
func (b Ballot) MarshalJSON() ([]byte, error) { return []byte(`"` + b.String() + `"`), nil }

// UnmarshalJSON reads what MarshalJSON writes, or the ballot's number
// (JSON written before ballots were strings).
func (b *Ballot) UnmarshalJSON(data []byte) error {
	s := string(data)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		x, err := ParseBallot(s[1 : len(s)-1])
		*b = x
		return err
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("ballot %s: want a string round.restart.node", s)
	}
	*b = Ballot(n)
	return nil
}

// Next returns the smallest ballot of node (with restart counter restart)
// that is strictly greater than above.
func Next(above Ballot, restart uint16, node NodeID) Ballot {
	b := MakeBallot(above.Round(), restart, node)
	if b > above {
		return b
	}
	return MakeBallot(above.Round()+1, restart, node)
}
