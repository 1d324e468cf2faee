// Package paxoslease implements PaxosLease (Trencseni, Gazsó, Reinhardt:
// "PaxosLease: Diskless Paxos for Leases") as a pure state machine behind
// algorithms.Node, registered as "paxoslease".
//
// # Protocol (Sec. 3)
//
// A proposer that wants the lease on a resource picks a ballot above every
// ballot it used, notes the time, and sends Prepare to every acceptor. An
// acceptor promises a ballot at least its highest promised one and answers
// with its accepted proposal (Promise: Accepted, Owner, Span = the time left
// on its timer) or, for a lower ballot, PrepareReject carrying its highest
// promised ballot. With open promises from a majority of distinct acceptors
// the proposer sends Propose (itself as owner, span T); an acceptor that has
// not promised higher accepts it, starts its own timer of T and answers
// Accepted (else ProposeReject). With a majority of Accepted the proposer
// holds the lease until its deadline. Acceptors keep no disk state; the
// accepted proposal is cleared when the acceptor's timer fires. Only the
// holder knows that it holds the lease.
//
// Every message and every piece of state is tagged with the resource
// (Sec. 8). The long-lived state of a resource is one 48-byte slot
// (acceptor: promised, accepted ballot and timer; proposer: the held
// ballot and its end), a record found through an open-addressing index of
// 5 bytes a slot; a round in flight adds a transient record. A runner may
// ask the node to keep the acceptor timers itself (KeepTimers), as
// 16-byte entries in deadline order (a sorted run, as deadlines mostly
// arrive, and a heap for the rest; cancelled ones are dropped lazily),
// instead of getting them in Output.Timers.
// BenchmarkMemoryPerResource measures bytes per resource.
//
// # The strict rules
//
// Where the paper's pseudo-code is looser, the package follows the strict
// rule (a 2026 TLA+ audit found a two-owner trace for each loose reading);
// each loose reading is kept as an ablation:
//
//   - The lease deadline counts from sending Prepare (ablation late-timer:
//     from the prepare quorum). A quorum's promises may come from acceptors
//     that restarted since; only a deadline fixed before any of them answered
//     is covered by their quarantine.
//   - Votes are counted by distinct acceptor (ablation count-by-message):
//     the network duplicates.
//   - A release clears an acceptor's state only if both owner and ballot
//     match its accepted proposal (ablation owner-only-release).
//   - A promise reporting the proposer's own lease counts as open only if
//     that lease is the proposer's active one: same ballot, not expired
//     (ablation stale-owner-open). An older proposal of its own may be one
//     it abandoned, whose in-flight Propose overwrote someone else's lease.
//   - Keep-others: an acceptor rejects a Propose of another owner while it
//     holds a live accepted lease (ablation abandon-release; the TLA+ audit
//     proposes the same guard). The paper's acceptor accepts any ballot at
//     or above its promise, and without disk that is not enough: a restart
//     undoes promises, a Propose may reach an acceptor that never saw its
//     Prepare, and a stale copy of a Prepare draws a promise its proposer
//     never counts. Such a stale Propose, arriving seconds late, takes the
//     place of a later holder's lease (the holder's ballot may be lower),
//     and the Release its proposer sent when the client gave up during the
//     propose phase, or when it ended that lease, then clears it: a third
//     proposer finds a majority empty and acquires beside the holder
//     (testdata/paxoslease-abandon-release.txt, with every other rule on).
//   - "Another owner" is another proposer, a node in one life: acceptors
//     compare owners with algorithms.SameProposer, (node, restart counter),
//     never by node alone (ablation cross-life-ballots). A restarted
//     node's run counter starts again at 1, so its new ballots are below
//     its earlier life's. A Propose and a Release of the earlier life,
//     delayed past the crash and the quarantine, are then an other
//     proposer's stale messages: keep-others refuses the Propose while the
//     new life's lease is accepted, and the Release matches no (owner,
//     ballot) it holds. Compared by node, the Propose passed as "the
//     owner's own", replaced the new lease at one acceptor, and the
//     Release cleared it (testdata/paxoslease-cross-life-ballots.txt).
//
// Why a stale message of an earlier life or round is harmless, message by
// message: answers (Promise, Accepted, the rejects) count only for the
// round whose exact ballot they echo, and a ballot is never used twice
// (one run counter per node and life, over every resource; the restart
// counter sets lives apart); a Prepare only raises a promise, which any
// proposer may do; a Propose replaces nothing live of another proposer
// (keep-others), and the earlier life is another proposer; a Release
// clears only its exact (owner, ballot), and a decline only a guard of
// its exact ballot. The holder's side keeps nothing a stale message
// could extend: it holds only what its current round's answers gave it.
//
// Why keep-others is sound: with it, an acceptor's record of a live lease
// ends only by its timer, by its owner's exact release, or by a crash
// (whose quarantine outlasts the lease). Two owners holding at once would
// need two majorities of live records, which share an acceptor, and that
// acceptor keeps one record. The rule only ever refuses, so it cannot make
// anything else unsafe. A round that counted a majority of open promises
// never needs an overwrite: the acceptors it counted were empty, or held
// its own lease, when they promised.
//
// What it costs: overwrites of leftovers at acceptors a round did not
// count were what let a later round clear a split accept and survive a
// lost Accepted. Without them, on the 8-proposer, 5%-loss contention
// workload, PaxosLease acquires fewer leases and spends longer blocked
// (README, "The stale-propose bug", has the measured figures). A laxer
// guard that let the ballot an acceptor promised overwrite another owner's
// lease kept the liveness but is unsafe: a stale copy of a Prepare makes
// the acceptor promise a ballot whose proposer will never learn of the
// lease it reported (check --algo paxoslease --faults all found two such
// runs in 2,000 seeds).
//
// # Clock drift: the holder's margin
//
// Clocks need not agree, but their rates are off by at most ρ
// (Params.Drift): a local interval L spans between L/(1+ρ) and L/(1-ρ) of
// true time. The proposer sends Prepare at true t0 and holds for H on its
// clock, so its lease ends by t0 + H/(1-ρ). Every acceptor that accepted
// the proposal received the Propose after t0 and runs T on its clock, so its
// timer fires no earlier than t0 + T/(1+ρ). The paper's proof needs the
// holder's lease to end before the acceptors' timers, hence
//
//	H/(1-ρ) <= T/(1+ρ)  =>  H = T·(1-ρ)/(1+ρ),  margin = T - H = 2ρT/(1+ρ).
//
// The rule: a holder believes it holds the lease until its clock reads
// (time it sent Prepare) + T(1-ρ)/(1+ρ) (HoldSpan; 9.99 ms less than T for
// T = 5 s, ρ = 0.001). Ablation drift-margin holds for the full T.
//
// # Restart quarantine
//
// A restarted node has forgotten its promises and accepted proposals, so it
// stays silent (drops messages, answers nothing, proposes nothing; client
// requests wait) until no proposer can still hold or win a lease that relied
// on what it forgot, then emits Joined. Any such proposer sent its Prepare
// before the crash (true time tc) and holds at most H on its own clock from
// that Prepare, so its lease ends by tc + H/(1-ρ) in true time. A quarantine
// of Q on the restarted node's clock lasts at least Q/(1+ρ). Safety needs
// Q/(1+ρ) >= H/(1-ρ), that is Q >= H(1+ρ)/(1-ρ). With the margin H is below T
// and Q = T would do, but the rule must not lean on the margin or on T: the
// paper's bound is M, the longest lease any proposer may hold, so the
// package waits
//
//	Q = M·(1+ρ)/(1-ρ)   (Quarantine; 7.014 s for M = 7 s, ρ = 0.001)
//
// which covers any hold up to M counted from its Prepare, on a slow clock,
// measured by a fast one. Counting from Prepare matters: with late-timer a
// quorum may be used arbitrarily long after the promises were given, and no
// finite quarantine is enough. (Here the phase timer still bounds a
// quorum's age by ResponseTimeout; the known two-owner trace for late-timer,
// paxoslease/testdata/paxoslease-late-timer.txt, needs a prepare phase that
// outlasts the quarantine, so it sets ResponseTimeout above Q.)
// The first boot (Config.Restarts == 0) does not wait: nobody can hold a
// lease that relied on a node that never answered. Ablation restart-wait
// rejoins at once.
//
// # Practical additions
//
//   - Phase timer: each phase times out after Params.ResponseTimeout (never
//     later than the lease the round would give), emits Timeout and retries:
//     a lost answer cannot stall a proposer.
//   - Ballot learning: rejects carry the acceptor's highest promised ballot
//     and the next ballot jumps past it (ablation ballot-learning: rejects
//     carry nothing and a proposer climbs one round per retry). Ballots are
//     [run counter][restart counter][node]; the run counter is per node and
//     life, shared by all resources, so a ballot is never reused.
//   - Backoff: a retry after a lost round waits a random time in
//     [0, Params.Backoff] drawn from Config.Rand (ablation backoff: at once).
//   - Busy: promises, and rejects, report the acceptor's accepted lease with
//     the time left on its timer. If a majority reports someone's lease, it
//     is validly held: the proposer waits for the longest remaining time
//     reported (plus jitter) and tries again, without counting a failed round.
//     Otherwise, after Params.MaxRounds failed rounds (timeouts, preemptions)
//     it emits Failed and gives up.
//   - Release hints (Sec. 7): Release goes to every acceptor and, as a hint,
//     to every other proposer; a proposer waiting for a held lease then tries
//     again within its backoff instead of sleeping out the lease. Under
//     contention the hints and the rounds they start are most of the
//     messages, and they are what makes the hand-off fair (ablation
//     release-hints: Release to the acceptors only; the waiters sleep out
//     the reported span and one contender takes nearly every lease).
//   - Contended hand-off (all liveness rules; each only changes when a
//     proposer retries or what an acceptor refuses, so none weakens
//     safety). failed-release: a proposer whose propose phase is lost
//     releases that exact ballot at every acceptor (not while it holds a
//     lease on the resource: a failed extension's ballot stands in for
//     the held lease there), so split accepts clear at once instead of
//     after a lease span. release-promise: an acceptor that clears a
//     lease sends the proposer of the highest ballot it promised a fresh
//     promise, the answer a copy of its Prepare would draw now; that
//     proposer, parked while it waited, counts it as an upgrade of the
//     same acceptor's closed promise and proposes at once. promise-guard:
//     such an acceptor turns other proposers' prepares away until it
//     accepts, for min(Backoff, ResponseTimeout) at most, or until the
//     proposer declines (a Release with Span -1, which clears only the
//     guard: the ballot may be one it holds a lease under). head-start:
//     a waiter woken by a release hint first waits 1.5 round trips.
//     rtt-backoff: retry windows scale with the measured round trip
//     (4·rtt·2^lost rounds), capped at Backoff. queue-behind: a proposer
//     refused by a live lease that nobody queues behind (the acceptor's
//     highest promise is the lease's own ballot) prepares again at once
//     above it, so the acceptors promise it during the lease and re-send
//     that promise at the release; without it the releasing holder,
//     asking again after its pause, mostly wins the lease back.
//     split-retry: a parked round with a re-sent open promise but no
//     majority prepares again two measured round trips later, since
//     waiters queued at different acceptors may each hold a guarded
//     minority. With Backoff 0 the guard,
//     the head start and the measurement are off; with late-timer
//     ablated the measurement is (a round's Prepare time is read from
//     its deadline). testdata/handoff-*.txt show the rules at work, and
//     handoff-*-no-RULE.txt the same interleavings without one.
//   - Renewal dilemma: while an owner holds the lease, competitors' prepares
//     push the acceptors' promised ballot past the owner's, so its extension
//     is rejected. Fix used here: ballot learning plus an immediate retry by
//     the holder (no backoff while it still holds), and competitors that see
//     the held lease wait for it to end instead of pushing further. An
//     extension then costs at most one extra round trip.
//
// A new owner after a crash waits for the acceptors' timers of the last
// accepted proposal (at most T after the holder's last extension reached
// them, not M: M only bounds the quarantine), then acquires in two round
// trips.
//
// # Client inputs and events
//
// Acquire tries to become owner (a no-op while holding or trying). Extend
// re-proposes the holder (Sec. 6: a promise reporting its active lease
// counts as open), emitting Acquired again with the later Until and no gap;
// when not holding it acts as Acquire. Relinquish releases (Sec. 7): Lost is
// emitted before Release is sent with the lease's ballot.
//
// Events: Round at each round start; Preempted when a round is lost to a
// higher ballot (Ballot: the highest promised ballot learned); Timeout;
// Acquired{Until, Ballot}; Lost; Failed; at acceptors Granted{Owner, Ballot,
// Until = the acceptor's own timer} and Cleared; Joined after a quarantine.
package paxoslease
