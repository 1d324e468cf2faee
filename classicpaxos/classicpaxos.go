// Package classicpaxos is the paper's "regular Paxos" baseline (FaTLease
// Sec. 3 and 5): the same lease logic as FaTLease — the engine of package
// fatlease, instances, learn/outdated, renew instances, invalidation — on
// acceptors whose promise and accepted lease are on stable storage.
//
// Every acceptor state change that a reply implies (a promise, an
// accepted lease) comes out of Step as an algorithms.Record in
// Output.Persist, in the same Output as the Promise or Accepted it backs,
// so the runner makes it durable before the message leaves (etcd raft's
// MustSync rule). Package runner/udp/wal is the real log for the UDP environment:
// checksummed fixed-size records, torn-tail recovery, compaction and group
// commit.
//
// A restarted node rebuilds promise and accepted state from
// Config.Recovered and rejoins at once: the trade against FaTLease's
// restart wait of v + d_max is disk cost for recovery time. What a restart
// still needs for safety with durable acceptors:
//
//   - The proposer's state is volatile: a node that held a lease before the
//     crash does not believe it holds it after (it holds only what a new
//     round gets chosen for it, as any proposer).
//   - Ballots carry the restart counter, so a restarted proposer never
//     reuses a ballot, and answers to its previous life's rounds are
//     ignored (they carry an old ballot). Within a life the run counter
//     belongs to the node, not to the per-resource proposer record
//     (ablation reused-ballots, testdata/reused-ballots.txt): durable
//     acceptors do not stop a proposer that reuses a ballot from counting
//     an earlier round's delayed answers.
//   - Learned leases and invalidations are volatile: after a restart the
//     node treats every recovered accepted lease as possibly valid until
//     it is over (t + d_max), which is only more careful.
//   - A recovered instance counts as first heard of at the restart (the
//     missed-instance bound starts again), again only more careful.
//   - Leases are still absolute times on the owner's clock, so every
//     decision that a lease is over still allows for d_max: durable state
//     does not make the clock assumption go away.
//
// Ablation fsync sends an answer without waiting for its records' fsync
// (Output.NoSync; the records are still synced behind it): a crash inside
// that fsync loses what the answer promised, and the checker finds two
// owners.
package classicpaxos

import (
	"leaselab/algorithms"
	"leaselab/fatlease"
)

// Ablations of classic Paxos.
var Ablations = []algorithms.Ablation{
	{
		Name:   fatlease.AblateFsync,
		Rule:   "an acceptor's promise and accepted lease are synced to stable storage before its answer is sent",
		Breaks: "an acceptor answers before its fsync completes, a crash inside that fsync loses the promise or accepted lease it answered with, the restarted acceptor trusts its log and rejoins at once, and a second proposer wins while the holder still holds. Unlike fatlease without restart-wait, which forgets everything, it forgets only the last fsync's worth, so it needs a crash inside an fsync (a slow disk widens the window)",
	},
	// The proposer is FaTLease's: durable acceptors do not keep a
	// proposer from reusing a ballot.
	fatlease.ReusedBallots,
}

// Algorithm is classic Paxos's registry entry: FaTLease's, but for the
// name, the ablations and acceptors that keep their state on disk. Its
// proposers adopt accepted state, which does not block (scenario
// classicpaxos/testdata/deadlock-split-accept.txt), and its leases rely on
// clocks within d_max, as FaTLease's do.
func Algorithm() algorithms.Algorithm {
	a := fatlease.Algorithm()
	a.Name = "classicpaxos"
	a.Summary = "regular Paxos baseline (FaTLease Sec. 5): FaTLease's lease logic on acceptors that fsync promise and accepted lease before replying; group commit; no restart wait"
	a.Ablations = Ablations
	a.Durable = true
	a.Fencing = "(instance, ballot) of the lease the holder learned, as FaTLease's: each new lease is chosen in a higher instance, and the acceptors " +
		"keep their instances on disk, so restarts do not break the order (with the fsync rule ablated, a crash inside an fsync can)"
	a.TokenBreaks = 0
	a.Build = func(cfg algorithms.Config) (algorithms.Node, error) {
		return fatlease.New(cfg, fatlease.Options{Durable: true}), nil
	}
	return a
}

func init() { algorithms.Register(Algorithm()) }
