// Package verify is leaselab's safety battery (`leaselab verify`): a fixed
// matrix of explicit-state searches (runner/explore) and seeded fault
// campaigns (runner/campaign) that runs one algorithm, with every rule on
// or with some ablated, within a time budget, and stops at the first
// violation of the lease invariant. "0 violations" from one search is as
// wide as the configuration searched, and configurations chosen by hand
// miss bugs (abandon-release, cross-life and reused ballots were each
// missed by every configuration run before them); the battery makes the
// width a fixed, listed, tested set, the same for every algorithm and
// every ablation, with nothing chosen per ablation.
//
// # The matrix
//
// `leaselab verify --algo A --list` prints it; Matrix builds it. Searches
// (E1, E2, ...) use the explorer's defaults where a flag is not given: 3
// acceptors, 2 proposers, one resource, 2 client inputs (acquire, extend
// and release), one crash, no duplicates,
// exact clocks, --response-timeout 10s (above the 7.014 s quarantine, so
// a round can outlive a restarted node's wait), --max-rounds 1, --backoff
// 0; a search that sets no bound on messages in flight gets
// --max-pending 4 (the explorer's default was 4 when the matrix was made;
// it now depends on the cluster, 2 on one acceptor, and with 2 E22 misses
// PaxosLease's cross-life-ballots). Across the searches the matrix covers:
//
//   - 1, 2, 3 and 5 acceptors; proposer-only nodes (proposers above
//     acceptors: 1+1, 1+2, 2+1, 3+1);
//   - 2, 3, 4 and 5 client inputs, with extend offered everywhere but in
//     one search (acquire and release only, to reach deeper);
//   - 0, 1 and 2 crashes (a crashed node may restart at any later point);
//   - at most 4 or 8 messages in flight, and no bound (--max-pending 0);
//   - a duplicated message (--dups 1) on one and on three acceptors;
//   - exact, drifting (rate ±ρ), skewed (offsets ±d_max/2) and extreme
//     (both) clocks;
//   - two resources; a retry (--max-rounds 2, 3); the run's response
//     timeout (1 s, below the quarantine); a backoff of 1 ms (which turns
//     on PaxosLease's hand-off rules in the explorer);
//   - for durable algorithms (classic Paxos), an fsync of 1 ms, so a
//     crash can fall inside one;
//   - two depth-first searches (explore --strategy dfs: only the path and
//     each state's fingerprint are kept, so they go deeper than a
//     breadth-first frontier fits in memory) on one acceptor and a
//     proposer-only node, to 16 moves (five inputs, extend too, no bound
//     on the network) and to 18 moves and 13 s of true time (two crashes,
//     a retry, acquire and release only): a proposer's earlier life whose messages act after
//     its crash on its new life's lease. Naive's cross-life-ballots needs
//     15 moves, PaxosLease's 18 (its acceptor must crash too, to forget
//     the earlier life's promise); breadth first, with its frontier in
//     memory as it was when the matrix was made, both were beyond the
//     memory cap (depth 14 was 1.6 million states of about 1.4 KB each;
//     not measured again since the frontier went to disk);
//   - a restart wait tight against the lease (E23: M 4 µs above T,
//     drifting clocks, one acceptor, 6 s of true time). At the default M
//     of 7 s every wait of M or more outlasts any lease whatever its
//     drift factor; with M just above T a wait's drift factor decides:
//     a node restarted just after an accept, on a fast clock, against a
//     holder on a slow one (PaxosLease's quarantine computed as
//     M(1+ρ)(1-ρ) is found at depth 9; the matrix test requires a search
//     where M(1-ρ²) < T). FaTLease's state space there is not finite
//     within 6 s (deeper than 2,000 moves), so it runs to its share;
//   - five searches that also judge liveness (explore --liveness, E24-E28:
//     one acceptor with three inputs and no bound on the network; the
//     default cluster with two inputs; one acceptor with a lost message,
//     two rounds and a 1 s timeout; one acceptor with a process pause;
//     one acceptor with a crash, two resources, acquire and release, so
//     that a restarted node's deferred requests are judged; classic
//     Paxos's are E25-E29 and central's E22-E26, as the matrix numbers
//     them): a state at rest
//     with a client's acquire unanswered, or one from which the settle
//     probe's synchronous network leaves it unanswered, fails the battery
//     like a campaign's unanswered request, with the search's command and
//     the path as a scenario (--out). A liveness search that neither came
//     to rest nor probed a state judged nothing, and is vacuous. E26 found
//     fairq's holder that answered nothing while extending, E27's
//     configuration FaTLease's and classic Paxos's request dropped at the
//     end of a hold after a pause (README, "Liveness after the faults
//     stop"); E28 fails a restarted node's release that gives up another
//     resource's acquisition, which no other search reaches
//     (TestBatterySearchReachesDeferredRequests).
//
// Campaigns (C1, ...) run `leaselab check` seeds (its base: ten simulated
// minutes of contention among five proposers, 3 acceptors): stale links
// with give-ups, extensions and crashes; every fault kind; frequent short
// crashes (and, for classic Paxos, slow fsyncs); slewed and free-running
// clocks; quick re-acquisition under duplicates and reordering; leases
// short against message delays. Central (one lease server) runs each
// configuration with one acceptor; duplicates that creates are dropped.
//
// The last campaign (C8; classic Paxos's C9) judges fencing tokens, the
// lease's effect on the resource it protects rather than the holders'
// beliefs: a holder writes to a fenced store every 50 ms, under the fixed
// mix of every fault kind under which the algorithm claims a later
// holder's token is higher. Each algorithm names, as data, the conditions
// under which it does not (algorithms.Algorithm.TokenBreaks: restart,
// clocks, late, lapse, delay), each fault kind the conditions it causes
// (runner/faults Kind.Causes), and the campaign runs the kinds that
// cause none of the algorithm's (faults.TokenKinds; pauses included,
// clock jumps never): the naive votes all but reorder, drift, freeclock
// and stale; PaxosLease and FaTLease all but crash; classic Paxos and
// central every kind; fairq dup, reorder, drift, freeclock, giveup,
// extend and resources. A write of a current lease that the store
// rejects, or a stale write it accepts, in a judged seed
// (campaign.TokensJudged) is a token failure: it ends the campaign
// (ConfigResult.TokenFailures, Stopped "tokens") and the battery exits
// 1 with the seed's `leaselab run` command; a token campaign that
// judged no seed is vacuous. The quick re-acquisition campaign (C6:
// duplicates and reordering, 1 ms pauses, 10 ms holds) writes to a
// fenced store every 2 ms for the five algorithms whose tokens reordering
// cannot break (PaxosLease, FaTLease, classic Paxos, central, fairq),
// judging every seed's tokens across about 5,000 hand-offs a seed; for
// the naive votes, which name delay (reordering holds a message back: a
// waiter's ask granted after a later extension), it runs without a store
// (unfenced), as a fenced fixed mix that judges no seed would be vacuous,
// and the same campaign with duplicates alone runs fenced after the
// base matrix (C10, unfenced). The last campaign of every matrix
// (lastMatrix) is the quick hand-off: eight clients, 1 ms holds, a 2 ms
// backoff, duplicates and extensions on the default network, a write
// every 250 µs to a fenced store. There a client on an acceptor's host
// extends and releases while another client's ask, sent earlier, is in
// flight: central with its token read off the client's clock
// (runner/internal/planted, test-central-client-token) fails it in its
// first seed, where no other campaign met it in 20,000 seeds. TestFencedCampaignsJudgeEverySeed checks that
// every fenced fixed mix and token swarm in every matrix runs only kinds
// that cause none of its algorithm's conditions. The swarm campaign (C2) writes to
// a fenced store too, and judges the tokens of every seed whose draws
// cause none of the algorithm's conditions: one harsh fault at a time,
// which the fixed mixes never have (about half of PaxosLease's seeds, a
// thirty-second of the naive votes', a thirtieth of fairq's; all of
// classic Paxos's and central's). The swarm found the delay condition
// by itself: central's former tokens, read off when a client sent its
// ask, failed in a seed with a slow network (DESIGN.md, "Fencing
// tokens").
// The token swarm (the last campaign, for every algorithm that names a
// condition: tokenSwarmEntry) is the swarm restricted to the swarm kinds
// that cause none of them (`--faults swarm,K,...`, faults.TokenSwarmKinds):
// each seed makes the whole swarm's draws and keeps only those kinds, so
// every seed is judged, one harsh fault at a time included, where the
// whole swarm judges a thirtieth of the naive votes' and fairq's seeds.
// TestBatteryJudgesTokens shows all five failing a planted
// PaxosLease whose nodes give a lease their previous lease's token
// (holders stay apart, so no other campaign can).
//
// The token searches (explore --tokens, after the liveness searches) judge
// tokens over every interleaving of a small cluster: each lease with a
// new token writes to a fenced store at the end of its transition, and a
// token below the highest written, or equal to another node's, fails
// (runner/explore, "Fencing tokens"). A search always brings about late
// messages, delays and lapses, so the matrix holds them only for
// algorithms that name none of those: PaxosLease and FaTLease get the
// six without a crash (one acceptor with two or three proposers, three
// acceptors, a pause and a duplicate, depth first to 16 moves, clocks at
// their edges), classic Paxos those and one with a crash; the others
// none (tokenSearches). A failure ends the search (Stopped "tokens"), the
// battery exits 1 with the search's command, and --out writes its path
// as a scenario on which replay exits 1. TestBatteryTokenSearches shows
// each one-acceptor token search finding the same planted PaxosLease on
// its own.
//
// # Budget
//
// Run splits the budget (default 10 minutes) in two passes. The quick
// pass gives every configuration a slice of a quarter of the budget (at
// most 500,000 states or 500 seeds), so what any configuration shows
// early is found early whatever its place. The deep pass splits what is
// left among the configurations still open, in order, each taking the
// time left times its weight over the weights still to run (a campaign
// weighs three searches: it needs little memory, and campaigns found
// abandon-release where the searches could not reach it; the 16-move
// depth-first search weighs six, the 18-move one twenty: PaxosLease's
// cross-life-ballots takes it 7.7 million states, 68 s on the shared
// machine after the merge of the disk-frontier explorer),
// so time that one leaves unused goes to the next. Each configuration's
// share is a deadline: a search runs under a context that ends at it
// (explore.ExploreContext stops within a chunk of a breadth-first level,
// or within 1,024 states depth first: "time"), and before the process's
// resident memory would pass the memory cap (explore.Config.MaxMemory,
// default 3 GiB: "memory"), at its state cap ("states"), or, depth first,
// when it has searched its depth bound ("depth"); in the deep pass it
// starts again from the beginning. A campaign runs in growing chunks of
// seeds and continues where it stopped; at its deadline the seeds in
// flight are cut short (runner.Options.Stop) and those that finished
// count. Shrinking a campaign's violation takes at most what is left of
// the budget. So the battery ends within its budget and a few seconds
// (TestRulesOnShort: 6 s for a budget of 6 s). Every configuration's line
// in the result says how it ended and gives the command that reproduces
// what ran (--max-states for a search cut short: both strategies visit
// states in a fixed order; --seeds for a campaign).
//
// A search's counterexample is written with --out as a scenario file that
// `leaselab replay` replays to the violation (exit 1). When a campaign
// finds the violation first, the result gives the `leaselab run` command
// of its seed, and with --out the rest of the budget goes to the
// searches still open, for a scenario.
//
// # Vacuity
//
// "No violation" means something only where leases of two nodes were
// handed out. Each configuration's line counts what it saw of them
// (ConfigResult.Leases: the distinct states a search reached in which some
// node held a lease, explore's held_states, and Holders, how many nodes
// held one; the leases a campaign's runs acquired), and a configuration
// that ran and saw no lease, or a search that saw one node's only, is
// vacuous (Result.Vacuous):
// `leaselab verify` exits 1 on one, as on a configuration the algorithm
// rejected. A node that drops every message passes every safety check
// (TestMuteAlgorithmIsVacuous), and so did a configuration whose
// pending bound was smaller than one round to its acceptors: five
// acceptors under the bound of 4, for PaxosLease, FaTLease and classic
// Paxos (now random walks; TestMatrixCoverage checks every bound against
// explore.DefaultMaxPending).
//
// # Sharding
//
// `leaselab verify --shard i/n` runs part i of n: the contiguous range
// [i·T/n, (i+1)·T/n) of the T configurations (Select; Config.From, To),
// as a battery of its own with the whole budget, so each configuration's
// share of a pass is at least the unsharded battery's with the same
// budget. `leaselab merge` combines the parts (Merge: the configurations
// in order, every part's finding in Findings, the one a single process
// meets first reported, the configurations after a quick-pass finding
// skipped). What a time share lets a configuration reach depends on the
// machine, so a merged battery equals the unsharded one only in what does
// not: the configurations, the figures of those that exhausted or met a
// state or seed cap, and a violation found in the quick pass.
//
// # What the matrix does not cover
//
// A battery that finds nothing says nothing about what it does not run:
//
//   - Interleavings deeper than a search reached. Most searches stop at a
//     time or memory cap before exhausting their bounds (the result says
//     which); beyond that depth only the campaigns' random sampling
//     looks. The depth-first searches reach 16 and 18 moves, but only on
//     one acceptor: the same bug on three acceptors (PaxosLease's
//     cross-life ballots there take about 30 moves) is beyond every
//     search, and no campaign found it in 10,000 seeds
//     (runner/campaign/testdata/detection.md).
//   - Dense time: the explorer delivers only at timer deadlines (and at
//     0), never strictly between two of them.
//   - Clock models other than constant rates at ±ρ and offsets at
//     ±d_max/2 (no slewing in a search; the campaigns slew), and
//     parameters other than the defaults (lease span 5 s, M 7 s, d_max
//     500 ms, ρ 0.001), except one campaign with 100 ms leases and E23's
//     M of 5.000004 s.
//   - Many resources: at most 2 along a search's path (the campaigns
//     draw up to a few), so an algorithm's per-resource index never sees
//     a collision; PaxosLease's (Robin Hood probing, paxoslease/table.go)
//     is owned by its unit tests (TestTableCollisions, TestTableInsert),
//     as are the acceptor timers it keeps for the UDP runner
//     (TestKeptTimers), which no search or campaign uses.
//   - Clusters above 5 acceptors or 4 proposers, more than 5 client
//     inputs, 2 crashes, 1 duplicate or 2 resources along one path; lost
//     messages as such (a message may stay in flight for ever, which is
//     the same to every node); partitions in a search (a partition is
//     messages held, again covered by "in flight for ever").
//   - Random waits: searches use backoff 0 or 1 ms with one seed's draws.
//   - Anything outside the simulator's semantics: real UDP scheduling,
//     forged or replayed datagrams (--key-file), corrupted disks.
//   - Liveness beyond "answered after the faults": the campaigns' seeds
//     end with a settle stretch (campaign.Vary.Settle) and a request
//     left unanswered there ends the campaign (ConfigResult.Unanswered,
//     Stopped "unanswered"; the battery goes on and exits 1) and five
//     searches judge states at rest and the settle probe's continuations
//     (E24-E28), but nothing judges how long answers take within the
//     probe's bound, and the ablations whose rules guard only liveness
//     (they slow hand-offs and still answer) are not run.
//   - Fencing tokens under the faults an algorithm names in TokenBreaks
//     (PaxosLease's and FaTLease's under restarts, fairq's under lapses
//     and restarts, the naive votes' under clock error, late messages and
//     delays): they break there as documented, and nothing is
//     judged; tokens in a search for the naive votes (a search always
//     brings about delays, which they name), for fairq outside lockstep
//     (three searches with --sync judge it, where no message is late and
//     no lease lapses), and for PaxosLease and FaTLease with crashes;
//     and combinations of the kinds an algorithm's tokens survive other
//     than the fixed mixes' and the swarm's draws.
//
// # The ablation table
//
// `leaselab verify --all-ablations --algo all --format markdown` runs the
// battery once for every safety ablation (SafetyAblations: every ablation
// whose exposure in runner/experiments does not start with "liveness")
// and once with every rule on (--rules-on-budget), and prints the table
// committed as ablations.md beside this file: ablation, the configuration
// that found it, its states or seeds, depth and seconds; `verify
// --table-from FILE...` prints the same table from saved `verify --format
// json` results of batteries run separately. The committed table is one
// `verify --algo A --ablate X --format json --quiet --out ce.txt` per row
// with the default budget (10 minutes) and the matrix of 30
// configurations, and --table-from, made on 2026-11-26 on 2 cores with
// other work on the second (a load average of 1 to 2; PaxosLease's seven
// rows two at a time), so its seconds are wall seconds under that load;
// every counterexample replays to exit 1. With parallel workers the
// states a search has counted when it meets its first violation vary a
// little from run to run (fairq's keep-others: 270,323 and 320,284 in two
// runs). The every-rule-on verdicts are the runs of `leaselab verify
// --algo A` that the closing notes give. Three rows are found by
// campaigns: PaxosLease's count-by-message (C2) and abandon-release (C1,
// whose 378 seeds end before E22 gets its turn; `--only E22` finds it
// too, 569,396 states at depth 18 in 7.6 s), and fairq's dead-ballots
// (C1, its first seed,
// shrunk to a 38-command scenario; no search of the matrix finds it).
// Two PaxosLease ablations cannot cause a violation alone
// (Companions): late-timer and stale-owner-open are each a second line
// of defence behind keep-others (ablation abandon-release). Both
// counterexamples need a stale Propose to overwrite another owner's live
// lease at an acceptor: late-timer's, where two prepare quorums share a
// promise forgotten in a restart (the two proposals meet at an acceptor
// that accepted one of them, and the acceptor's timer, started at its
// accept, outlasts the holder's lease whichever rule counts it);
// stale-owner-open's, where an abandoned round's Propose replaces the
// holder's lease and its proposer reads it back as its own. Keep-others
// refuses both overwrites. The table runs each alone (not found: every
// configuration, those exhausted included) and with abandon-release (found).
//
// The tests (go test ./runner/verify) check that the matrix covers every
// dimension listed above for every algorithm, that a short battery with
// every rule on finds nothing, that every safety ablation has a row, and
// that the configuration ablations.md names as its finder finds it again
// and its counterexample replays to a violation in the simulator; a new
// safety ablation without a row fails them. By default only the finders
// that are searches and took at most 0.5 s in the table run (a few
// seconds in all); the campaigns and the slower searches (the
// depth-first ones take minutes) run with
// `go test ./runner/verify -finders`; -short runs no finder.
package verify
