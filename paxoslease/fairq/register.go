package fairq

import (
	"fmt"
	"math"
	"time"

	"leaselab/algorithms"
)

// Name is the registered name.
const Name = "fairq"

// The algorithm's own message kinds. Their numbers travel on the wire, so
// they are fixed here, a block of its own above the example's (64..67).
const (
	KindRequest algorithms.Kind = 72 + iota // proposer -> acceptor: Ballot (fresh), Promised = the sender's floor (its ballots up to it are released), Flags (FlagExtend)
	KindGrant                               // acceptor -> grantee: Ballot granted, Accepted = the acceptor's next waiter (0: none)
	KindQueued                              // acceptor -> requester: Ballot echoed, Accepted = the live record's ballot, Span = its time left
	KindNext                                // acceptor -> holder: Ballot = its record's, Accepted = the first waiter queued behind it
	KindRelease                             // proposer -> acceptor: Ballot released (and every lower one of the sender), Accepted = the named successor (0: none)
)

// FlagExtend marks the request of an extension: the acceptor does not
// queue a holder whose extension meets another proposer's record.
const FlagExtend uint8 = 1

// Ablation names (leaselab --ablate).
const (
	AblateRestartWait      = "restart-wait"
	AblateDriftMargin      = "drift-margin"
	AblateLateTimer        = "late-timer"
	AblateCountByMessage   = "count-by-message"
	AblateOwnerOnlyRelease = "owner-only-release"
	AblateCrossLife        = "cross-life-ballots"
	AblateKeepOthers       = "keep-others"
	AblateDeadBallots      = "dead-ballots"
	AblateHoldGuard        = "hold-guard"
	AblateNamedSuccessor   = "named-successor"
)

var ablations = []algorithms.Ablation{
	{
		Name:   AblateRestartWait,
		Rule:   "a restarted acceptor stays silent for M(1+ρ)/(1-ρ) on its own clock before it answers or asks",
		Breaks: "an acceptor that rejoins at once has forgotten the record behind a live hold and grants the lease to another proposer",
	},
	{
		Name:   AblateDriftMargin,
		Rule:   "the holder's lease ends at T(1-ρ)/(1+ρ) after its request left, not T, absorbing clock rates off by up to ρ",
		Breaks: "a holder whose clock runs slow outlives records whose acceptors' clocks run fast, and the next waiter is granted the lease while it still holds",
	},
	{
		Name:   AblateLateTimer,
		Rule:   "a lease counts from the moment the proposer sent the request whose ballot the grants echo, never from the grants' arrival",
		Breaks: "grants delayed in the network, or handed on long after the request, start the holder's lease after the acceptors' timers started, and the records lapse while it holds",
	},
	{
		Name:   AblateCountByMessage,
		Rule:   "grants are counted by distinct acceptor, never by message",
		Breaks: "one acceptor's duplicated grant counts twice and makes a false majority",
	},
	{
		Name:   AblateOwnerOnlyRelease,
		Rule:   "a release clears a record of its sender only when the record's ballot is at or below the released one",
		Breaks: "a release held back past its sender's next acquisition clears the record behind that newer lease, and another proposer is granted the lease beside it",
	},
	{
		Name:   AblateCrossLife,
		Rule:   "an acceptor compares owners as proposers, (node, restart counter) (algorithms.SameProposer), never as nodes: a restarted node is a new proposer",
		Breaks: "a restarted node's run counter starts again at 1, so its new ballots are below its earlier life's; a release of the earlier life, delayed past the crash, is 'at or above' the new life's record and clears it, and another proposer is granted the lease beside the holder",
	},
	{
		Name:   AblateKeepOthers,
		Rule:   "keep-others: an acceptor hands its record to a release's named successor only when the release cleared it or it was empty, never over another proposer's live record",
		Breaks: "a release that arrives late, after the releaser's record lapsed and the acceptor granted its next waiter, overwrites that waiter's live record with the successor the release named, and the two hold at once",
	},
	{
		Name:   AblateDeadBallots,
		Rule:   "a proposer never counts a grant of a ballot at or below one it released (passed on, declined or withdrew): the release may already have cleared the record the grant reports",
		Breaks: "a waiter that passed its grants on to the winner of a split still counts them for its earlier request, collects one more grant and holds beside the winner",
	},
	{
		Name:   AblateHoldGuard,
		Rule:   "a holder sends no release while it holds: its failed extension's ballot stands, at the acceptors that granted it, in place of the record its hold relies on",
		Breaks: "a holder whose extension round fails releases the extension's ballot, which clears every record of its own at or below it, the held lease's too, and another proposer is granted the lease while it holds",
	},
	{
		Name:   AblateNamedSuccessor,
		Rule:   "a holder's release names its successor (the first waiter an acceptor reported to it), and every acceptor hands its record to that one waiter",
		Breaks: "liveness and fairness, not safety: each acceptor hands its record to the head of its own queue, the queues differ in order where requests crossed, and split grants wait for a round timer",
	},
}

// Algorithm returns the registry entry.
func Algorithm() algorithms.Algorithm {
	return algorithms.Algorithm{
		Name:      Name,
		Summary:   "PaxosLease with a fair queue: free acceptors grant at once, busy ones queue the asker, and a release hands the lease to the successor it names (one round trip, about 4 messages per acceptor)",
		Ablations: append([]algorithms.Ablation(nil), ablations...),
		// A record makes the acceptor queue every other proposer until it
		// lapses or its owner releases it.
		GrantBlocks: true,
		Fencing:     fencing,
		TokenBreaks: algorithms.BreaksOnRestart | algorithms.BreaksOnLapse,
		Validate:    Validate,
		Build: func(cfg algorithms.Config) (algorithms.Node, error) {
			return New(cfg), nil
		},
	}
}

func init() {
	algorithms.RegisterKinds(Name, KindRequest, "fq-request", "fq-grant", "fq-queued", "fq-next", "fq-release")
	algorithms.Register(Algorithm())
}

// fencing is what fairq's fencing token is (the package doc has the
// argument at length).
const fencing = "(lease number, ballot): the lease number is the highest its counted grants report. Each acceptor numbers its grants on a " +
	"resource upward and takes up the numbers requests and releases carry (a release carries the releaser's token, a request the highest " +
	"number its sender saw), so a lease handed on by a release is numbered above the releaser's token, and the acceptor a later holder's " +
	"majority shares with an earlier one's granted it after the earlier grant. Breaks when an earlier holder's records lapse unreleased " +
	"(its release lost, its holder paused past its lease, or it crashed) at acceptors whose numbers lag the one its token came from, and when acceptors restart: a restarted " +
	"acceptor forgot its numbers and relearns them only from the requests and releases it hears during its silence"

// HoldSpan is how long a lease holds on the holder's own clock, counted
// from the moment it sent the request: T(1-ρ)/(1+ρ), rounded down (the
// derivation is PaxosLease's, paxoslease.HoldSpan; the package doc says
// why it applies here unchanged).
func HoldSpan(p algorithms.Params) time.Duration {
	return time.Duration(math.Floor(float64(p.LeaseSpan) * (1 - p.Drift) / (1 + p.Drift)))
}

// Quarantine is how long a restarted acceptor stays silent, on its own
// clock: M(1+ρ)/(1-ρ), rounded up (as paxoslease.Quarantine).
func Quarantine(p algorithms.Params) time.Duration {
	return time.Duration(math.Ceil(float64(p.MaxLease) * (1 + p.Drift) / (1 - p.Drift)))
}

// Validate checks what fairq needs beyond algorithms.Params.Validate.
func Validate(p algorithms.Params, c algorithms.Cluster) error {
	switch {
	case p.LeaseSpan >= p.MaxLease:
		return fmt.Errorf("lease span T (%v) must be shorter than the max lease M (%v): a restarted acceptor's quarantine of M must outlast every record it forgot", p.LeaseSpan, p.MaxLease)
	case p.MaxLease > time.Duration(math.MaxInt64/4):
		return fmt.Errorf("max lease M %v is too long to be timed", p.MaxLease)
	case HoldSpan(p) <= 0:
		return fmt.Errorf("lease span T (%v) leaves no hold after the drift margin", p.LeaseSpan)
	}
	return nil
}
