package algorithms

import "fmt"

// Kind says what a Message is. The kinds below are leaselab's own; each
// algorithm uses the ones its paper defines and ignores the rest. An
// algorithm that needs others registers them with RegisterKinds (see
// kinds.go): a kind is valid, on the wire and in scenario files, only
// when it is registered.
type Kind uint8

const (
	KindInvalid Kind = iota

	// Naive majority vote (PaxosLease paper, Sec. 1).
	Request // proposer asks an acceptor for a grant of Span
	Grant   // acceptor granted: its state was empty, it started its own timer
	Deny    // acceptor's state was not empty; Owner says who holds its grant

	// Paxos family (PaxosLease Sec. 3, FaTLease Sec. 4.2).
	Prepare       // Ballot [, Instance]
	Promise       // prepare ACK: Ballot; the accepted proposal (Accepted, Owner, Span/Expiry) or Owner == NoNode for empty
	PrepareReject // prepare NACK: Ballot of the request; Promised carries the acceptor's highest promised ballot
	Propose       // accept request: Ballot, Owner, Span (relative) or Expiry (absolute) [, Instance]
	Accepted      // accept ACK: Ballot
	ProposeReject // accept NACK: Ballot of the request; Promised carries the acceptor's highest promised ballot
	Outdated      // FaTLease: the proposer is behind; Instance is the acceptor's current instance
	Learn         // FaTLease: consensus reached on (Owner, Expiry) in Instance
	Release       // naive / PaxosLease: Owner gives up the lease accepted with Ballot
	Invalidate    // FaTLease: the owner ends its lease in Instance early
)

// builtinKindNames are the names of leaselab's own kinds, by number. The
// numbers are part of the wire format: they never change.
var builtinKindNames = []string{
	Request:       "request",
	Grant:         "grant",
	Deny:          "deny",
	Prepare:       "prepare",
	Promise:       "promise",
	PrepareReject: "prepare-reject",
	Propose:       "propose",
	Accepted:      "accepted",
	ProposeReject: "propose-reject",
	Outdated:      "outdated",
	Learn:         "learn",
	Release:       "release",
	Invalidate:    "invalidate",
}

// Message is the one message type of every algorithm. It is a small value
// with no pointers, so the simulator moves millions of them without garbage
// and the wire codec is a fixed binary layout. Fields an algorithm does not
// use stay zero.
type Message struct {
	Kind     Kind
	Flags    uint8 // algorithm-defined bits (e.g. "this prepare is an extension")
	From     NodeID
	To       NodeID
	Owner    NodeID     // lease owner of the proposal carried, NoNode if none
	Resource ResourceID // every message is about one resource
	Ballot   Ballot     // ballot of the request, echoed by the response
	Accepted Ballot     // ballot of the accepted proposal reported (Promise, Outdated)
	Promised Ballot     // acceptor's highest promised ballot (rejects: lets proposers jump past it)
	Instance uint64     // Multipaxos instance (FaTLease, classic Paxos)
	Span     int64      // lease span in ns, relative (naive, PaxosLease)
	Expiry   Local      // absolute lease expiry on the owner's clock (FaTLease)
}

func (m Message) String() string {
	s := fmt.Sprintf("%s %s->%s r%d b=%s", m.Kind, m.From, m.To, m.Resource, m.Ballot)
	if m.Owner != NoNode && m.Owner != 0 || m.Kind == Propose || m.Kind == Promise || m.Kind == Learn {
		s += fmt.Sprintf(" owner=%s", m.Owner)
	}
	if m.Accepted != 0 {
		s += fmt.Sprintf(" acc=%s", m.Accepted)
	}
	if m.Promised != 0 {
		s += fmt.Sprintf(" prom=%s", m.Promised)
	}
	if m.Instance != 0 {
		s += fmt.Sprintf(" i=%d", m.Instance)
	}
	if m.Span != 0 {
		s += fmt.Sprintf(" span=%dns", m.Span)
	}
	if m.Expiry != 0 {
		s += fmt.Sprintf(" exp=%d", m.Expiry)
	}
	if m.Flags != 0 {
		s += fmt.Sprintf(" flags=%#x", m.Flags)
	}
	return s
}
