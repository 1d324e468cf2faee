package paxoslease

import "leaselab/algorithms"

// Ablation names (leaselab --ablate).
const (
	AblateRestartWait      = "restart-wait"
	AblateDriftMargin      = "drift-margin"
	AblateBackoff          = "backoff"
	AblateBallotLearning   = "ballot-learning"
	AblateLateTimer        = "late-timer"
	AblateCountByMessage   = "count-by-message"
	AblateOwnerOnlyRelease = "owner-only-release"
	AblateStaleOwnerOpen   = "stale-owner-open"
	AblateAbandonRelease   = "abandon-release"
	AblateRTTBackoff       = "rtt-backoff"
	AblateReleasePromise   = "release-promise"
	AblateHeadStart        = "head-start"
	AblateFailedRelease    = "failed-release"
	AblatePromiseGuard     = "promise-guard"
	AblateQueueBehind      = "queue-behind"
	AblateSplitRetry       = "split-retry"
	AblateReleaseHints     = "release-hints"
	AblateCrossLife        = "cross-life-ballots"
)

// Name is the registered name.
const Name = "paxoslease"

var ablations = []algorithms.Ablation{
	{
		Name:   AblateRestartWait,
		Rule:   "a restarted node stays silent for M(1+ρ)/(1-ρ) on its own clock before it answers or proposes",
		Breaks: "an acceptor that rejoins at once has forgotten its promise and the accepted lease, so a second proposer wins a majority while the holder still holds",
	},
	{
		Name:   AblateDriftMargin,
		Rule:   "the holder's lease ends at T(1-ρ)/(1+ρ) after its Prepare instead of T, absorbing clock rates off by up to ρ (Params.Drift)",
		Breaks: "a holder whose clock runs slow outlives acceptor timers that run fast, and the next owner, retrying at the acceptors' hinted expiry, starts before the holder's clock reaches T",
	},
	{
		Name:   AblateBackoff,
		Rule:   "a proposer waits a random time in [0, Backoff] before retrying a lost round",
		Breaks: "liveness, not safety: with several proposers, more preemptions (longer duelling chains) than with backoff",
	},
	{
		Name:   AblateBallotLearning,
		Rule:   "rejects carry the acceptor's highest promised ballot and the proposer's next ballot jumps past it",
		Breaks: "liveness, not safety: a proposer behind the acceptors' promised ballot (after a restart, or an owner renewing after competitors' failed prepares: the renewal dilemma) climbs one round per retry and fails after MaxRounds",
	},
	{
		Name:   AblateLateTimer,
		Rule:   "the proposer's lease counts from sending Prepare, not from the prepare quorum",
		Breaks: "two prepare quorums that include a promise an acceptor forgot in a restart are used after its quarantine, and two owners hold",
	},
	{
		Name:   AblateCountByMessage,
		Rule:   "votes are counted by distinct acceptor, never by message",
		Breaks: "a duplicated promise and a duplicated accept from one acceptor make a 'majority' of three",
	},
	{
		Name:   AblateOwnerOnlyRelease,
		Rule:   "a release clears an acceptor's state only for the exact (owner, ballot) it accepted",
		Breaks: "a release held back past the owner's next acquisition clears that newer lease, and a second proposer acquires beside it",
	},
	{
		Name:   AblateStaleOwnerOpen,
		Rule:   "a reported lease of one's own counts as open only if it is the currently active lease (same ballot, not expired)",
		Breaks: "a propose left in flight by an abandoned round overwrites the holder's lease at restarted acceptors, and the abandoning proposer reads it back as its own and acquires beside the holder (only with abandon-release also ablated: the keep-others rule alone already stops that stale propose)",
	},
	{
		Name:   AblateAbandonRelease,
		Rule:   "keep-others: an acceptor rejects a proposal of another owner while it holds a live accepted lease, so a stale proposal (its promises undone by a restart, its prepare never seen here, or answered only by a stale copy) cannot take the holder's place and the release of the round it belonged to cannot erase the holder's lease",
		Breaks: "a round abandoned during its propose phase releases its ballot; its stale Propose overwrites a later holder's lease at two acceptors (one had forgotten its promise in a restart, one never saw the prepare), the stale Release clears both, and a third proposer acquires beside the holder",
	},
	{
		Name:   AblateCrossLife,
		Rule:   "an acceptor compares owners as proposers, (node, restart counter), never as nodes: a restarted node is a new proposer, so keep-others refuses a proposal of the node's earlier life while its new life's lease is accepted (algorithms.SameProposer)",
		Breaks: "a restarted node's run counter starts again at 1, so its new ballots are below its earlier life's; a Propose of the earlier life, delayed past the crash and the quarantine, passes keep-others as the same owner's and overwrites the new life's lease at one acceptor, the earlier life's delayed Release of that ballot clears it, and another proposer finds a majority open and acquires beside the holder",
	},
	{
		Name:   AblateRTTBackoff,
		Rule:   "the backoff window is 4 measured round trips (the moving average from Prepare to answers from a majority), doubled per lost round of the acquisition, capped at Backoff; ablated: uniform in [0, Backoff]",
		Breaks: "liveness, not safety: proposers that lost a round sleep a fraction of Backoff, sized for the slowest network, instead of a few round trips, and hand-offs per second under contention fall",
	},
	{
		Name:   AblateReleasePromise,
		Rule:   "an acceptor that clears a lease (release or timer) sends a fresh promise to the proposer of the highest ballot it promised, which counts it as an upgrade of that acceptor's closed promise and proposes as soon as a majority is open (the answer a delayed copy of its Prepare would draw: no new behaviour)",
		Breaks: "liveness, not safety: every hand-off needs a new prepare round after the release, and waiters woken together preempt one another",
	},
	{
		Name:   AblateHeadStart,
		Rule:   "a waiter woken by a release hint waits 1.5 measured round trips (capped at Backoff) before it prepares again, so the proposer the acceptors re-promised (release-promise) proposes unopposed",
		Breaks: "liveness, not safety: the woken waiters' prepares preempt the re-promised proposer's propose, and duels return",
	},
	{
		Name:   AblateFailedRelease,
		Rule:   "a proposer whose propose phase is lost (preempted, timed out, or met another's lease) releases that ballot at every acceptor, unless it holds a lease on the resource (a failed extension's ballot stands in for the held lease)",
		Breaks: "liveness, not safety: split accepts of collided rounds block every proposer until the acceptors' timers run out (a lease span), and leases per second collapse",
	},
	{
		Name:   AblatePromiseGuard,
		Rule:   "an acceptor that re-sent its promise (release-promise) rejects other proposers' prepares until it accepts a proposal, or for min(Backoff, ResponseTimeout), and the reject names the guarded proposer, so the rejected one waits for that lease instead of counting a lost round",
		Breaks: "liveness, not safety (the guard only ever refuses): a client that just released comes back at once with a higher ballot and preempts the re-promised proposer",
	},
	{
		Name:   AblateQueueBehind,
		Rule:   "a proposer whose prepare is refused by a live lease with nobody promised behind it (the acceptor's highest promise is the lease's own ballot) prepares again at once above that ballot, so the acceptors promise it while the lease runs and re-send that promise when it is released (release-promise); ablated: it waits for the release hint or the lease's end",
		Breaks: "liveness, not safety: at a release no waiter holds a promise, the woken waiters first wait out the head start, and the releasing holder, asking again after its pause, mostly wins the lease back: many acquisitions, few changes of owner",
	},
	{
		Name:   AblateSplitRetry,
		Rule:   "a parked round that got a re-sent open promise (release-promise) but no majority of them prepares again two measured round trips later; ablated: it waits for its round timer",
		Breaks: "liveness, not safety: waiters queued behind one lease at different acceptors are each re-promised and guarded by some of them, none reaches a majority, and the free resource waits for the guards to end (Backoff) and then for a waiter's round timer, which may run for the span the lease reported",
	},
	{
		Name:   AblateReleaseHints,
		Rule:   "Sec. 7: a holder sends its Release to every other proposer too, and a proposer waiting for a held lease tries again soon after such a hint instead of sleeping out the span the acceptors reported; ablated: the Release goes to the acceptors only",
		Breaks: "liveness and fairness, not safety: waiters sleep out the span their rejects reported, so the contender that asks again soonest (the releasing holder, after its pause) wins nearly every lease while the others starve; messages per lease fall about fourfold, hand-offs far more",
	},
}

// Algorithm returns the registry entry.
func Algorithm() algorithms.Algorithm {
	return algorithms.Algorithm{
		Name:      Name,
		Summary:   "PaxosLease: diskless Paxos leases (prepare/propose, extension, release, many resources, restart quarantine)",
		Ablations: append([]algorithms.Ablation(nil), ablations...),
		// An accepted proposal makes the acceptor's promise closed to every
		// proposer but the active holder extending its own lease, until the
		// acceptor's timer clears it: a round needs a majority of empty
		// promises (scenario paxoslease/testdata/deadlock-split-accept.txt).
		GrantBlocks: true,
		Fencing: "the ballot of the round that won the lease (an extension's is its own round's, higher): a later holder needs promises from a majority, " +
			"one of which accepted the earlier holder's ballot and so promises none lower. Breaks when acceptors restart: a restarted acceptor forgets its " +
			"promises (it only stays silent for M), so after a majority of them restarted a proposer that never saw the earlier ballot can win with a lower one",
		TokenBreaks: algorithms.BreaksOnRestart,
		Validate:    Validate,
		Build: func(cfg algorithms.Config) (algorithms.Node, error) {
			return New(cfg), nil
		},
	}
}

func init() { algorithms.Register(Algorithm()) }
