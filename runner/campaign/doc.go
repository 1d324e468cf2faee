// Package campaign runs seeded fault campaigns in the simulator (the
// `leaselab check` command): many seeds of one base spec, each with its own
// fault mix drawn from the seed (CheckSpecFor), summed in seed order into a
// CheckResult, and shrinks what they find to scenario files.
//
// # Mixes
//
// A fixed mix (Faults: some of FaultKinds, or "all") gives every seed
// the same kinds, each with a rate drawn from the seed (campaign.go). The
// swarm (Faults: "swarm", see Swarm in swarm.go) lets every seed draw its
// kinds too, each in with even odds, with wider intensities, and adds
// kinds no fixed mix has: the cluster's shape (nodes that only propose or
// only accept), a slow network, and late messages that outlast M and a
// downtime and are overtaken on their link. A fault that is always on can
// mask another one (loss keeps the very rounds a crash would catch from
// happening), so a swarm of N seeds and a fixed mix of N seeds find
// different things; CheckResult.Swarm counts the seeds that drew each
// kind, and Exercised what the faults did (crashes of holders, stalls past
// M and the downtime, seeds with proposer-only nodes, ...). Same CheckSpec,
// same result, whatever GOMAXPROCS is.
//
// testdata/detection.md is every safety ablation's detection rate under
// both at 1k and 10k seeds, written by
//
//	go test ./runner/campaign/ -run TestDetectionTable -detection
//
// (tens of minutes: -detection-seeds and -detection-duration set the
// size).
//
// # Liveness
//
// With Vary.Settle (the command sets it unless --settle is given) each
// seed of a contention campaign ends with a settle stretch of SettleFor
// its draws (runner.Spec.Settle): no fault starts, no message is lost or
// held, clients ask for nothing new, and a request still unanswered at
// its end is counted (CheckResult.Unanswered, UnansweredSeeds,
// UnansweredSpecs, FirstUnanswered): a correct algorithm answers every
// request once the faults stop. The seeds of a campaign are judged for
// liveness as well as safety; shrinking is for violations only.
//
// # Shrinking
//
// Shrink (and ShrinkCampaign, which picks a violating seed of a result)
// turns a violating run into a small scenario file that `leaselab replay`
// exits 1 on. It works in three steps (record.go, shrink.go):
//
//  1. Record: the run is simulated again with an observer that takes its
//     trace apart into what a scenario must say (the clocks at the start;
//     client inputs, crashes, restarts and clock slews at their true
//     times) and every message between two nodes with its fate: sent at
//     t, its copies delivered after these delays (none: lost; two:
//     duplicated). Timers, a node's messages to itself and fsyncs happen
//     in a scenario by themselves.
//  2. Play: a candidate (the recording with parts left out) is run as a
//     scenario (sim.Script) whose network is the player: each message
//     that becomes pending is matched to the recorded message of the same
//     kind, sender, receiver and resource sent at the same instant (or,
//     failing that, the nearest within a lease span) and delivered after
//     its recorded delays; an unmatched one after RTT/2. Things due at one
//     instant go in the run's trace order. Played whole, a recording gives
//     the run's first violation exactly (resource, owners, ballots,
//     start): the tests check it for violating and clean seeds. Where it
//     cannot: the simulator runs every event queued for an instant before
//     the self-messages they cause, while a scenario settles each command
//     before the next (a stall's batch of messages released at once, each
//     answered by the receiver to itself), and a scenario's fsync takes
//     exactly the mean latency (classic Paxos). ShrinkResult.Faithful says
//     which; an unfaithful recording that still violates shrinks all the
//     same.
//  3. Shrink: delta debugging (Zeller and Hildebrandt's ddmin, leaving out
//     chunks from the end, then single parts to a fixed point) while a
//     violation persists: the other resources' inputs; all but the last
//     1, 2, 4, ... lease spans; each client's inputs; each node's crashes;
//     then chunks and single external actions, message faults (a lost,
//     duplicated or late message made ordinary), deliveries (made drops)
//     and the clocks' offsets and rates. Any violation keeps a candidate.
//     The budget (--shrink-time) bounds it; ShrinkResult.Minimal says
//     whether the fixed point was reached.
//
// The file has the setup, the clocks, `start`, and one command per line
// (advances between two commands merged), each delivery commented with
// its message; it has no `expect violations` line, so replay exits 1.
package campaign
