// Package naive is the naive majority vote for leases of the PaxosLease
// paper, Sec. 1, as a pure state machine (algorithms.Node).
//
// # The protocol
//
// A proposer that wants the lease on a resource starts a local timer for T
// (Params.LeaseSpan) at the moment it sends a Request with Span T to every
// acceptor. An acceptor whose state for the resource is empty grants: it
// remembers (owner, round ballot), starts its own timer for T and answers
// Grant; when that timer fires it clears its state. An acceptor whose state
// is not empty answers Deny and names the owner of its grant; its grant
// stays. A proposer that collects grants from a majority of *distinct*
// acceptors (the network duplicates; votes are never counted by message)
// holds the lease until its own timer, started at the send, fires — minus a
// drift margin, below.
//
// As in the paper, an acceptor denies even the proposer it already granted
// to, when that proposer asks again in a plain acquisition round: its state
// is not empty. Only an extension round (flag FlagExtend) renews a grant of
// the requester's own. That keeps the paper's blocking behaviour intact:
// with three proposers and three acceptors that each granted a different
// proposer nobody has a majority, every retry is denied, and all wait until
// the acceptors' timers fire (the static deadlock of Sec. 1).
//
// # Why the hold is safe, and the drift margin
//
// Every clock runs at a rate in [1-ρ, 1+ρ] of true time, ρ = Params.Drift.
// An acceptor's grant starts when it receives the request, which is after
// the proposer sent it, and lasts T on the acceptor's clock: at least
// T/(1+ρ) ≥ T(1-ρ) of true time. The proposer's hold, H on its own clock
// from the send, lasts at most H/(1-ρ) of true time. The hold must end
// before any grant behind it can lapse:
//
//	H/(1-ρ) ≤ T/(1+ρ)   ⇔   H = T·(1-ρ)/(1+ρ)   (≈ T(1-2ρ))
//
// HoldSpan computes it (rounded down to the nanosecond). While that
// majority's grants live, no acceptor of it grants anyone else, and any two
// majorities share an acceptor, so no other proposer can collect a majority
// before the hold ends. The ablation "drift-margin" holds for the full T.
//
// # Extension, release, restart
//
// Extension (Input Extend, holder only) is a new request round with
// FlagExtend. An acceptor that holds a grant of that same owner with a lower
// round renews it (new round, timer restarted at receipt); an empty one
// grants; one that holds another owner's grant denies. Renewing is safe
// because an acceptor only ever re-grants to the owner it already grants:
// at no moment does any acceptor hold grants for two owners, and the new
// hold is measured from the new round's send, after which every counted
// grant was (re)started. A renewed grant is only ever longer, never
// transferred.
//
// "That same owner" is a proposer, a node in one life: an acceptor renews
// (and releases) only for algorithms.SameProposer, (node, restart
// counter), never for the node alone (ablation cross-life-ballots). A
// restarted node's run counter starts again at 1, so its new rounds are
// below its earlier life's; an extension request of the earlier life,
// delayed past the crash and the silence, would otherwise rename the new
// life's grant to its old, higher round, and the earlier life's delayed
// Release of that round would clear it while the new life holds
// (testdata/naive-cross-life-ballots.txt). So a stale message of an
// earlier life or round is harmless: a request of another proposer is
// denied while a grant stands, a release matches only the exact (owner,
// round) granted, and a proposer counts only answers that echo its
// current round's ballot, which it never uses twice (one run counter per
// node and life, over every resource).
//
// A duplicate of the request an acceptor granted (same owner, same round)
// is answered with Grant again, its timer untouched: the grant started after
// that round's send, which is all the proposer's hold relies on.
//
// Release (Input Relinquish): the holder stops believing first (Lost), then
// sends Release with the round ballot of its hold. An acceptor clears only a
// grant of exactly that owner and round, so a late or duplicated release of
// an earlier round cannot clear the grant behind a later hold (ablation
// "owner-only-release" clears any grant of the owner).
//
// Acceptors keep nothing on disk. A restarted node (Config.Restarts > 0)
// has forgotten its grants, so it stays silent — answers nothing, proposes
// nothing — for M (Params.MaxLease) and then emits Joined. Every grant it
// forgot was for a span ≤ M and started before the crash, so every hold
// that counted it has ended by then; this needs T < M (Validate).
// Acquisitions asked for during the silence start when it ends. The
// ablation "restart-wait" rejoins at once.
//
// # Rounds, failure, retry
//
// A round fails when so many distinct acceptors denied that a majority can
// no longer be reached (event Preempted, Owner = the owner the last deny
// named; naive has no ballots to be pre-empted by, so Ballot is 0) or when
// no majority answered within Params.ResponseTimeout (event Timeout). Every
// round start emits Round. After a failed round the proposer waits a random
// time in [0, Params.Backoff] drawn from Config.Rand and tries again; after
// Params.MaxRounds failed rounds it gives up (Failed).
//
// # Undo: a separate registered algorithm
//
// Footnote 1 of the paper suggests letting the system block but adding an
// "undo": a proposer that failed to get a majority gives back the grants it
// did get, so another proposer can complete one. Undo is not a safety rule
// that can be switched off (the only switch the contract has, ablations,
// removes rules), and the deadlock experiment must show "naive" and "naive
// with undo" side by side as two lines of every chart, with their own names
// in results and CSV rows. So it is registered as a second algorithm,
// "naive-undo", built from the same code with Options.Undo; `--algo
// naive-undo` switches it on anywhere an algorithm name is accepted, with
// the same ablations. With undo, a failed round sends Release for its round
// to every acceptor that did not deny (a grant may still be in flight), and
// a grant that arrives for a round the proposer no longer uses — neither the
// round it is collecting nor the one behind its hold — is released at once.
// One exception keeps undo safe: while the proposer holds, it never undoes
// a round above its hold's (a failed extension), because that round may
// have renewed, and so renamed, the very grants its hold stands on.
package naive
