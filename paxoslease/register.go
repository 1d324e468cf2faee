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
)

// Name is the registered name.
const Name = "paxoslease"

var ablations = []algorithms.Ablation{
	{
		Name:    AblateRestartWait,
		Rule:    "a restarted node stays silent for M(1+ρ)/(1-ρ) on its own clock before it answers or proposes",
		Exposes: "leaselab check --algo paxoslease --faults crash --ablate restart-wait: an acceptor that rejoins at once has forgotten its promise and the accepted lease, so a second proposer wins a majority while the holder still holds; scenario paxoslease/testdata/paxoslease-restart-wait.txt",
	},
	{
		Name:    AblateDriftMargin,
		Rule:    "the holder's lease ends at T(1-ρ)/(1+ρ) after its Prepare instead of T, absorbing clock rates off by up to ρ (Params.Drift)",
		Exposes: "leaselab check --algo paxoslease --faults drift --ablate drift-margin: a holder whose clock runs slow outlives acceptor timers that run fast, and the next owner, retrying at the acceptors' hinted expiry, starts before the holder's clock reaches T; scenario paxoslease/testdata/paxoslease-drift-margin.txt",
	},
	{
		Name:    AblateBackoff,
		Rule:    "a proposer waits a random time in [0, Backoff] before retrying a lost round",
		Exposes: "liveness, not safety: the contention workload with several proposers shows more preemptions (longer duelling chains) than with backoff on the same seeds",
	},
	{
		Name:    AblateBallotLearning,
		Rule:    "rejects carry the acceptor's highest promised ballot and the proposer's next ballot jumps past it",
		Exposes: "liveness, not safety: a proposer behind the acceptors' promised ballot (after a restart, or an owner renewing after competitors' failed prepares: the renewal dilemma) climbs one round per retry and fails after MaxRounds; contention and crash campaigns show more failed leases",
	},
	{
		Name:    AblateLateTimer,
		Rule:    "the proposer's lease counts from sending Prepare, not from the prepare quorum",
		Exposes: "scenario paxoslease/testdata/paxoslease-late-timer.txt (leaselab replay): two prepare quorums that include a promise an acceptor forgot in a restart are used after its quarantine, and two owners hold; the scenario sets ResponseTimeout above the quarantine, since the phase timer otherwise ends a prepare phase before the forgetful acceptor rejoins",
	},
	{
		Name:    AblateCountByMessage,
		Rule:    "votes are counted by distinct acceptor, never by message",
		Exposes: "leaselab check --algo paxoslease --faults dup --ablate count-by-message: a duplicated promise and a duplicated accept from one acceptor make a 'majority' of three; scenario paxoslease/testdata/paxoslease-count-by-message.txt",
	},
	{
		Name:    AblateOwnerOnlyRelease,
		Rule:    "a release clears an acceptor's state only for the exact (owner, ballot) it accepted",
		Exposes: "a held-back release that outlives a lease (leases short against message delays: leaselab check --algo paxoslease --ablate owner-only-release --faults reorder --lease-span 100ms --max-lease 150ms --response-timeout 50ms --backoff 10ms --rtt 20ms --jitter 10ms --hold 30ms --pause 50ms); scenario paxoslease/testdata/paxoslease-owner-only-release.txt (leaselab replay): a release delayed past the owner's next acquisition clears that newer lease, and a second proposer acquires beside it",
	},
	{
		Name:    AblateStaleOwnerOpen,
		Rule:    "a reported lease of one's own counts as open only if it is the currently active lease (same ballot, not expired)",
		Exposes: "scenario paxoslease/testdata/paxoslease-stale-owner-open.txt (leaselab replay, with abandon-release also ablated: the keep-others rule alone already stops the stale propose this rule guards against): a propose left in flight by an abandoned round overwrites the holder's lease at restarted acceptors, and the abandoning proposer reads it back as its own and acquires beside the holder",
	},
	{
		Name:    AblateAbandonRelease,
		Rule:    "keep-others: an acceptor rejects a proposal of another owner while it holds a live accepted lease, so a stale proposal (its promises undone by a restart, its prepare never seen here, or answered only by a stale copy) cannot take the holder's place and the release of the round it belonged to cannot erase the holder's lease",
		Exposes: "scenario paxoslease/testdata/paxoslease-abandon-release.txt (leaselab replay): a round abandoned during its propose phase releases its ballot; its stale Propose overwrites a later holder's lease at two acceptors (one had forgotten its promise in a restart, one never saw the prepare), the stale Release clears both, and a third proposer acquires beside the holder; also leaselab explore --algo paxoslease --ablate abandon-release and leaselab check --algo paxoslease --faults all --ablate abandon-release --seeds 2000",
	},
	{
		Name:    AblateRTTBackoff,
		Rule:    "the backoff window is one measured round trip (the moving average from Prepare to a round's first answer), doubled per lost round of the acquisition, capped at Backoff; ablated: uniform in [0, Backoff]",
		Exposes: "liveness, not safety: leaselab run --algo paxoslease --workload contention --proposers 16 --hold 100us --pause 100us --duration 5s --ablate rtt-backoff: waiters woken by a release sleep a fraction of the 100 ms Backoff instead of a round trip, and hand-offs per second fall",
	},
	{
		Name:    AblateReleasePromise,
		Rule:    "an acceptor that clears a lease (release or timer) sends a fresh promise to the proposer of the highest ballot it promised, which counts it as an upgrade of that acceptor's closed promise and proposes as soon as a majority is open (the answer a delayed copy of its Prepare would draw: no new behaviour)",
		Exposes: "liveness, not safety: the 16-proposer contention run above with --ablate release-promise: every hand-off needs a new prepare round after the release, and waiters woken together preempt one another",
	},
	{
		Name:    AblateHeadStart,
		Rule:    "a waiter woken by a release hint waits 1.5 measured round trips (capped at Backoff) before it prepares again, so the proposer the acceptors re-promised (release-promise) proposes unopposed",
		Exposes: "liveness, not safety: the 16-proposer contention run above with --ablate head-start: the woken waiters' prepares preempt the re-promised proposer's propose, and duels return",
	},
	{
		Name:    AblateFailedRelease,
		Rule:    "a proposer whose propose phase is lost (preempted, timed out, or met another's lease) releases that ballot at every acceptor, unless it holds a lease on the resource (a failed extension's ballot stands in for the held lease)",
		Exposes: "liveness, not safety: leaselab run --algo paxoslease --workload contention --proposers 16 --hold 100us --pause 100us --duration 5s --backoff 1ms --ablate failed-release: split accepts of collided rounds block every proposer until the acceptors' timers run out (a lease span), and leases per second collapse",
	},
	{
		Name:    AblatePromiseGuard,
		Rule:    "an acceptor that re-sent its promise (release-promise) rejects other proposers' prepares until it accepts a proposal, or for min(Backoff, ResponseTimeout), and the reject names the guarded proposer, so the rejected one waits for that lease instead of counting a lost round",
		Exposes: "liveness, not safety (it only ever refuses): the 16-proposer contention run above with --ablate promise-guard: a client that just released comes back at once with a higher ballot and preempts the re-promised proposer",
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
		Check:       Check,
		New: func(cfg algorithms.Config) (algorithms.Node, error) {
			n, err := New(cfg)
			if err != nil {
				return nil, err
			}
			return n, nil
		},
	}
}

func init() { algorithms.Register(Algorithm()) }
