// Package explore is leaselab's explicit-state model checker: a
// breadth-first search over every interleaving a small cluster can go
// through, running the algorithms' own state machines (the algorithms.Node
// code the simulator and the UDP hosts run; there is no second model of
// any protocol). A node takes part through algorithms.Explorable: Clone to
// branch, AppendState to recognise a state reached along two paths.
//
// # The world
//
// A state is everything the scenario interpreter (runner/sim/scenario.go)
// keeps between two commands: the nodes (nil while down), their restart
// counters, their pending timers (kept outside the nodes, as the runner
// keeps them, each with its true deadline and arming order), the durable
// and not yet synced records of Durable algorithms, the messages in flight
// (each with its scenario number), the checker's view (who holds which
// resource until which true instant), the budgets left and true time. Each
// node's clock model is fixed for the whole path.
//
// # Transitions
//
// From every state, in this order: for each message in flight (send
// order) deliver it, drop it (--drops), deliver a copy and keep it
// (--dups); a client input (acquire, extend, release) at every proposer
// that is up, for every resource (--inputs); crash a node that is up
// (--crashes) or restart one that is down; let true time pass to the next
// timer deadline. A message may stay in flight for ever: delivering it
// later is another path. After every transition everything due at the
// current instant runs, in the simulator's order (a node's messages to
// itself as their own steps, client inputs, fsync completions and timers
// due now, by the order they were scheduled), exactly as after a scenario
// command, so a path IS a scenario: deliver N, drop N, dup N, acquire /
// extend / release NODE RES, crash / restart NODE, advance D.
//
// Time moves only to timer deadlines. Between two deadlines no node does
// anything on its own, but where in that interval a message is delivered
// can matter (an acceptor stamps its lease with its local now); the
// search delivers at the deadlines only (and at 0), so the state space is
// a discretisation of time at the instants something is due. It is not a
// proof over dense time: an interleaving that needs a delivery strictly
// between two deadlines is not explored.
//
// Reductions, each of which keeps every reachable violation: a delivery
// or client input the node ignores (no output, same encoding) is skipped,
// since its state is the parent's without the message or with less
// budget, and the parent, which may still deliver the message or never,
// has every future the child has; a delivery to a node that is down is
// skipped (it loses the message; leaving it in flight has the same futures
// and more); drops are off by default for the same reason (a message
// never delivered is a lost one). No symmetry reduction: ballots carry
// node ids, so nodes are not interchangeable.
//
// Bounds: the budgets; MaxPending (a state with more messages in flight is
// judged by the checker but not expanded, like the network bound of a TLC
// configuration); Horizon (time never advances past it); MaxDepth;
// MaxStates.
//
// # Clocks
//
// --clocks chooses each node's clock once, at the start (one initial state
// per assignment): exact (true time), drift (rate error -F or +F, F =
// --drift, by default the algorithm's allowance --drift-bound), skew
// (offset -d_max/2 or +d_max/2: two clocks d_max apart, FaTLease's bound)
// or extremes (both). Only the extremes are tried. The argument (not a
// proof): every duration a node measures (a lease span, a quarantine, a
// timeout) shrinks or grows monotonically with its clock's rate, and a
// comparison of two clocks' readings moves monotonically with their
// offsets, so an overlap that some rates within the bound produce is at
// least as long with the extreme rates of the same signs. Clocks run at a
// constant rate along a path (no slewing).
//
// # Randomness
//
// Nodes draw from Config.Rand only for the random wait before a retry
// (Backoff). The explorer's default is Backoff 0, so every draw is 0 and
// the random state never matters; each node's source is nonetheless
// seeded as the simulator seeds it (faults.NodeSource) and copied with
// the node, so a path replays with the same draws whatever --backoff is.
// With Backoff > 0 the search covers the draws the seed makes, not every
// possible wait.
//
// # Deduplication
//
// A state's fingerprint is a 128-bit hash (two independent 64-bit
// multiply-fold lanes, fixed keys) of its canonical encoding: the clock
// assignment; every node's up/down, restart counter and AppendState
// relative to its local now (hashed once per node and reused by the
// children a move does not touch); durable and unsynced records;
// the timers in firing order with deadlines relative to now; the messages
// in flight as a sorted multiset (numbers left out); the holds with their
// ends relative to now; the budgets. With clocks that drift, true time is
// part of the state too (two clocks' difference changes with time);
// otherwise states that differ only by a shift in time are one state. If
// the hash behaves like a random function, the chance that any two of n
// distinct states collide is at most n²/2^129: below 10^-24 for n = 10^7.
//
// # Search
//
// Breadth first, level by level, so the first counterexample is a
// shortest one. Each level runs in three phases: workers expand chunks of
// the frontier and fingerprint every successor (keeping only fingerprint,
// parent and move); the visited set, sharded by fingerprint over the
// workers, keeps the first occurrence of every new fingerprint in the
// frontier's order; workers rebuild the new states from their parents
// (one more execution of the move each, instead of holding every
// successor in memory). Everything that decides the result (which
// successor is kept, the order of the next frontier, the first
// violation) follows the frontier's order, so states, transitions and the
// counterexample are the same for any number of workers. Per state the
// search keeps 16 bytes of fingerprint and 8 of parent and move; the
// frontier keeps its states (nodes shared with their parents where
// unchanged).
//
// The checker judges every state: two different owners holding one
// resource at once (in true time, by the runner checker's rules) is a
// violation. The search finishes the level of the first violation and
// stops; Result.Violations is the number of violating states in that
// level and the counterexample is the first of them, rebuilt from the
// parent pointers and written as a scenario file ending with "advance
// 1ns" (so the overlap has a length) and with no "expect violations"
// line, so that leaselab replay exits 1 on it. The tests replay every
// counterexample they find with sim.Replay.
//
// Exhausted means every state within the budgets, MaxPending and Horizon
// was expanded: MaxDepth and MaxStates cut nothing and no violation
// stopped the search.
//
// Depth first (Config.DepthFirst, --depth-first; deep.go): one goroutine
// follows moves in the same order, keeping only the current path (a
// scratch state per depth) and a map from each fingerprint seen to the
// least depth it was reached at; a state reached again at a lower depth
// is expanded again, so a MaxDepth bound leaves nothing within it out.
// About 40 bytes a state (a breadth-first frontier state is about 1.4 KB
// on one acceptor), so it reaches paths a frontier cannot hold: PaxosLease's
// cross-life-ballots counterexample on one acceptor is 18 moves, found
// after 7.6 million states in 760 MB, where breadth first passes 3 GiB at
// depth 15. Its counterexample is the first violating path in move order,
// not a shortest one; without a depth bound it reaches the same states
// as breadth first (deep_test.go checks that). Stop is asked every
// 4,096 new states.
//
// # Disk
//
// Classic Paxos's disk is the scenario interpreter's with group commit
// and every fsync taking exactly FsyncLatency (the scenario's "disk
// fsync-latency=D"): records queue for the next fsync, whose completion is a
// deadline like a timer's; the messages of an Output wait for it unless
// the Output says NoSync (the fsync ablation), and a crash before it
// completes loses the records. The default latency is 0: the fsync
// completes at the instant of the write (after what was already due), so
// no crash falls inside one; that keeps the space small, and the fsync
// ablation needs a latency above 0 to show (FsyncLatency 1 ms adds a
// deadline per fsync and multiplies the states by tens).
package explore
