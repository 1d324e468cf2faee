// Package fatlease implements FaTLease (Hupfeld et al., HPDC'08) as a pure
// state machine behind algorithms.Node, registered as "fatlease". The same
// engine with Options.Durable is the classic Paxos baseline (package
// classicpaxos): the paper compared both on "the same code base", and so
// does this toolkit — the only difference is how acceptors keep their
// state.
//
// # Model
//
// A lease is λ = (owner, t): the owner holds the resource until its own
// clock reads t, with t = (the owner's clock when it sends Prepare) + v,
// v = Params.LeaseSpan. Clocks differ by at most d_max = Params.DMax, and
// v > d_max (Validate). Every host is learner; hosts 0..A-1 are acceptors,
// 0..P-1 proposers. Every message carries its resource; each resource has
// its own Multipaxos instances.
//
// # Consensus per instance (Sec. 4.2)
//
// INITIATE_CONSENSUS: Prepare(b, i) to the acceptors; with promises from a
// majority of distinct acceptors, Propose the accepted lease with the
// highest ballot if any (adoption), else our own; with a majority of
// Accepted, the lease is chosen and Learn goes to every host. Acceptors
// answer a lower ballot with PrepareReject / ProposeReject (the NACK,
// carrying the promised ballot: the proposer emits Preempted and jumps past
// it after a random backoff), and a message for an instance they no longer
// keep with Outdated carrying their current instance (and its chosen lease
// if known, so the proposer learns it at once); a proposer that is behind
// catches up. A phase without a majority by ResponseTimeout emits Timeout
// and is retried; after MaxRounds failed rounds the acquisition emits
// Failed. Waiting for another owner's lease to run out is not a failed
// round.
//
// Acceptors keep the current and the previous instance. In the previous
// one they answer prepares (so a host that missed it can learn its lease
// by re-proposing it) but accept no new value.
//
// # GET_LEASE / CHECK_LOCAL_STATE (Sec. 4.3)
//
// From what it learned, a host decides locally: its own lease is valid
// until its clock reads t; another's is valid while now + d_max <= t,
// outdated once now - d_max > t, and in the safety period in between, when
// the host waits (a timer at t + d_max + 1). Local returns the state.
//
// # Renew instances (Sec. 4.3, left out of the paper's pseudo-code)
//
// The holder of the lease of instance n-1 may open instance n before its
// lease ends (Extend); when n is chosen its hold is extended (Acquired
// again, later Until) without a gap. A host that finds instance n
// incomplete may propose in it only if it knows n-1's lease is over (or
// void, or its own). If it knows n-1's lease may be valid, it waits for
// it. If it missed n-1, it proposes in n-1 instead: acceptors report the
// accepted lease, it re-proposes that lease and so learns it. If nobody
// reports one, it waits until since + v(1+ρ)/(1-ρ) + d_max, where since is
// when it first heard of instance n: an instance is only opened once its
// predecessor was decided, so that lease was proposed before since.
//
// # Invalidation (Sec. 4.3)
//
// Relinquish: the holder emits Lost first, then sends Invalidate(instance,
// owner, t) to every host; t covers a renewal it had in flight. Receivers
// mark every lease of that owner ending by t void and move to the next
// instance, so the next proposer gets the lease in one negotiation. A
// chosen lease of this node that it no longer wants (a round given up
// mid-way and completed by someone else) is invalidated the same way.
//
// # Crash recovery without persistent state (Sec. 4.4)
//
// A restarted node (Config.Restarts > 0) drops every message and request
// for (v + d_max)(1+ρ)/(1-ρ): every lease it may have promised or accepted
// was proposed before its crash and is over everywhere by then. Then it
// emits Joined and serves the requests made meanwhile. A restarted node
// never holds a lease it proposed in an earlier life.
//
// The Fig. 4 augmentation: an acceptor that knows a lower instance whose
// lease may still be valid (not over, not void) rejects a Prepare or
// Propose in a higher instance, reporting that instance and lease
// (Outdated with FlagLower), unless the proposal is by the same owner in
// the very next instance (a renew instance). A proposer that a majority
// rejects so waits until that lease is over. The same rule keeps a host
// from forgetting such a lease when a Learn, Outdated or Invalidate would
// move it past it. With this check a majority that discarded its state
// and negotiated afresh in instance 1 cannot be overruled by a minority
// that still knows instance n and proposes n+1.
//
// Beyond the paper, for robustness against arbitrarily old messages (the
// Flease practice of dropping messages older than the message timeout,
// done here by content): acceptors refuse a Propose whose lease is already
// over as they see it, so a stale proposal can never overwrite a live
// accepted lease; a proposer that adopts a lease that is over treats the
// instance as done with.
//
// # Ballots are never reused; stale answers are harmless
//
// A proposer's run counter belongs to the node: the highest ballot it used
// in this life, over every resource and instance (Node.lastBallot), and
// every new round starts above it. The per-resource proposer record is
// deleted when a request ends (a client's give-up, Failed), and a node
// that is not an acceptor has no acceptor record to push its next ballot
// up; with the counter there, it started again at 0.0.id in the same
// instance, and delayed Promise and Accepted answers of the earlier round,
// which carry the same (instance, ballot), counted for the new round: the
// proposer "acquired" a lease no acceptor had accepted for it (ablation
// reused-ballots, testdata/reused-ballots.txt). So now an answer counts
// only for the one round that used its ballot, and the restart counter in
// every ballot keeps an earlier life's answers from matching a new life's
// rounds. Identities by owner elsewhere are harmless across lives: a
// lease is (owner, t) on the owner's clock, a restarted node waits until
// every lease of its earlier life is over, and never holds a lease ending
// before its restart time + v (ownFloor), so an Invalidate or a lease of
// an earlier life can only void or report leases that are over.
//
// # Clock drift: what this package assumes and absorbs
//
// The paper bounds clock skew (d_max) only. Rates drift too, by at most ρ =
// Params.Drift. Two kinds of decisions are affected:
//
//   - Comparisons of an absolute expiry with one's own clock (t + d_max):
//     their bound is d_max. The package takes d_max as the bound on the
//     clocks' difference when a lease is proposed; while the lease lives
//     (v, plus up to 2·d_max until others act on it) the rates can pull two
//     clocks apart by up to 2ρ per unit of time. The holder absorbs this:
//     it ends its hold 2ρ(v + 2·d_max)/(1-ρ) before t (12 ms for v = 5 s,
//     d_max = 0.5 s, ρ = 0.001). A clock model whose clocks drift apart
//     without bound over a run (no resynchronisation) eventually exceeds
//     any d_max; that is outside FaTLease's assumption, and the checker
//     shows it.
//   - Durations measured on one clock (the restart wait, the missed-
//     instance bound) stand for a span on another: they are stretched by
//     (1+ρ)/(1-ρ).
//
// # Ablations
//
// restart-wait (rejoin at once), safety-period (treat a lease as over as
// soon as the clock passes t), previous-instance-check (the Fig. 4
// augmentation, and the matching rule for learning), drift-margin (the
// holder keeps its lease until t, without the margin above), reused-ballots
// (the run counter lives in the per-resource record), and, with durable
// acceptors only, fsync. See Ablations for what breaks without each.
//
// # Durable acceptors (classic Paxos)
//
// With Options.Durable every Promise and Accepted goes out in the same
// Output as the Record of the state it reports (Output.Persist; with the
// fsync ablation also Output.NoSync), and a restarted node rebuilds its
// acceptor state from Config.Recovered and rejoins at once. See package
// classicpaxos for what else a restart needs.
package fatlease
