// Package explore is leaselab's explicit-state model checker: a search
// over every interleaving a small cluster can go through, running the
// algorithms' own state machines (the algorithms.Node code the simulator
// and the UDP hosts run; there is no second model of any protocol). A
// node takes part through algorithms.Explorable: Clone to branch,
// AppendState to recognise a state reached along two paths.
//
// # The world
//
// A state is everything the scenario interpreter (runner/sim/scenario.go)
// keeps between two commands: each node's host (runner/host, as in the
// simulator: the node of the current life or none while down, its
// restart counter, its timers by key with their deadlines on its clock,
// its disk with group commit: durable, syncing and queued records and the
// messages waiting for them), the nodes' clocks, the firing order of the
// timers and syncs (each with its true deadline and arming order), the
// messages in flight (each with its scenario number), the checker's view
// (who holds which resource until which instant of its clock, and so of
// true time), the budgets left and true time. Worlds share the hosts a
// move did not touch; a move that touches one changes a host.Host.Clone
// (the node cloned, its timers and disk copied).
//
// # Transitions
//
// From every state, in this order: for each message in flight (send
// order) deliver it, drop it (--drops), deliver a copy and keep it
// (--dups); a client input (acquire, extend, release) at every proposer
// that is up, for every resource (--inputs); crash a node that is up
// (--crashes) or restart one that is down; change a node's clock rate
// (--slews); pause a running node's process (--pauses); let true time
// pass by --time-step while that stays short of the next timer deadline;
// let true time pass to the next timer deadline.
// A message may stay in flight for ever: delivering it later is another
// path. After every transition everything due at the current instant
// runs, in the simulator's order (a node's messages to itself as their
// own steps, client inputs, fsync completions and timers due now, by the
// order they were scheduled), exactly as after a scenario command, so a
// path IS a scenario: deliver N, drop N, dup N, acquire / extend /
// release NODE RES, crash / restart NODE, clock NODE offset=O rate=R,
// pause NODE D, advance D.
//
// # Pauses
//
// --pauses N lets up to N process pauses happen along a path (the
// fault-kind table's pause kind, runner/faults; its budget "pauses", like
// crashes, drops and dups, which the command's flags are made from). A
// paused node does nothing: its timers that come due, the messages
// delivered to it, its client's inputs and its fsync completions are
// kept, in the order they came due, and run when it resumes, at the
// resume instant after what was already due then; its clock runs on, so
// it resumes reading the time that passed and its timers fire late. This
// is the simulator's "pause NODE D" (runner/sim/pause.go), which the walk
// test checks move by move. The lengths tried are the ones that matter
// under the deadlines time model: for every distinct instant t at which a
// timer (or another pause's resume) is pending when the pause starts, a
// resume at t (after what was armed before the pause and is due at t)
// and one at t + 1 ns (after everything that happens at t, messages and
// inputs included). Between two deadlines nothing happens on its own, so
// a resume anywhere else between t and the next deadline is like the
// one just after t. Not tried: a resume fixed relative to a deadline
// armed during the pause by another node, reached only where it
// coincides with one of these. A crash ends a pause (what was kept is
// lost); a paused node changes no clock rate (--slews).
//
// Violations keep their meaning: two holders among running nodes (the
// checker sets a paused node's holds aside until it resumes). What a
// pause does shows as double belief: a paused node that held a resource
// when it paused believes it holds it until it resumes, whatever its
// lease says, while another may hold it (the double-belief meter's
// situation, runner/record; the stale write of issue 23 happens there
// when the paused holder writes on resuming). double_belief_states counts
// such states; the first one found is rebuilt as a scenario that
// replays to double_belief_ms > 0 without a violation. Measured,
// paxoslease with every rule on, --max-pending 0: 1 acceptor, 2
// proposers, 2 inputs, 1 pause: 10,142 states, exhausted, 0 violations, 1
// double-belief state at depth 8 (n1 acquires, pauses until just after
// its lease ends, n0 acquires meanwhile; without the pause the space has
// none); with 3 inputs and 1 crash: 13,691,419 states (79,285 without
// the pause), depth 34, exhausted, 0 violations, 466 double-belief
// states, 397 s and 518 MB on the shared 2-core machine. Pauses multiply
// the space by the number of pending deadlines at every state, so
// budgets that fit without them may not fit with them.
//
// # Liveness
//
// --liveness (Config.Liveness) also judges the contract's promise that
// every Acquire is answered, Acquired or Failed, once the network
// delivers and the nodes run (algorithms.Failed), at the states where a
// finite search can: those at rest, where every node is up and running,
// no message is in flight and no timer, fsync or resume is pending.
// Nothing happens there without a new input or fault, so a request still
// pending is never answered, however long the faults stay away: such a
// state is a liveness failure (unanswered_states), and the first found
// is written as a scenario that ends "advance 1h", "expect unanswered N"
// and "expect unanswered 0", on which replay exits 1. rest_states counts
// the states judged; 0 says the verdict judged nothing (a configuration
// whose nodes always have a timer pending never comes to rest).
//
// The clients' pending requests become part of the state: an Acquire adds
// one (a second at the same node and resource is the same request), the
// node's Acquired or Failed for that resource ends it, a Release of the
// resource at that node withdraws it (the contract's "any acquisition in
// progress"), and a crash of the node drops its requests (the
// recorder's failed requests; a scenario's crash does the same). So an
// Acquire the node ignores is a transition when it leaves a request
// pending (without --liveness the ignored-input reduction skips it, and
// that is exactly the input a node that does not answer ignores), and
// the two reductions that keep a message in flight for ever
// (ignored-delivery, no-delivery-to-down-node) are off: a state at rest
// has nothing in flight, and they would keep its parent, which has, in
// its place. The same bounds then give more states (paxoslease, the
// default cluster with 2 inputs and 1 crash: 3,937,180 states without,
// 4,909,297 with).
//
// A state at rest is the one place where "never answered" is a property
// of the state alone: a proposer that retries for ever never comes to
// rest, and a bounded search cuts its paths at the pending bound, the
// horizon or the depth. So every state the search expands in which a
// request is pending and no client input is left is also probed
// (liveness.go): from it the faults stop and the network is synchronous,
// as in the campaigns' settle stretch but in one schedule: a node that is
// down restarts at once, and the network moves in hops of a fiftieth of
// the lease span (100 ms by default), each delivering in send order what
// was in flight when it began; a deadline that comes first is met first,
// and with nothing in flight time advances to the next deadline. Time
// must pass in the probe: with deliveries that took none, fairq's node
// that retries at once (the explorer's backoff is 0) while a stale record
// lapses would spin at one instant for ever, which no network does. A
// request still pending after a bound of true time (per proposer a whole
// hold, extended, a restart's quarantine and a whole failed acquisition,
// as campaign.SettleFor gives a seed: 71 s at the explorer's defaults with
// two proposers) counts in unanswered_states as well, and the witness is
// the path to the state followed by the probe's moves. probed_states
// counts the probes.
//
// What it finds: a request the node drops (the holder asked again that
// took no notice, fixed in naive, PaxosLease, fairq and central: the
// builds before the fix have 2 stuck states among 26 to 35 with one
// acceptor, one proposer and two acquires); a round that ends without an
// answer and sets no timer to retry; rounds without end (FaTLease's
// proposer that restarted the same instance again and again, the build
// before 8f48b16: with one acceptor, two proposers and three inputs the
// first probe that fails is at depth 7, 11,953 states and 0.15 s into
// the search, where the settle stretch had needed a swarm seed of a
// five-node cluster).
//
// The contract also says when a holder answers: a node that holds the
// lease answers an Acquire of it at once, with that lease
// (algorithms.Acquire). So the step that runs a client's Acquire at a
// node holding the lease (the checker's view) is judged as well: a
// request still pending after it is a late answer, a liveness failure
// counted in unanswered_states and, alone, in late_answers, whether the
// state it leads to is new or not; holder_asks counts the Acquires so
// judged (0: the judgement judged nothing). Its witness is the path ending with
// that Acquire and "expect unanswered N", N the requests that should be
// pending. naive, PaxosLease and central took such an Acquire, with an
// extension in flight, as an acquisition under way and answered it when
// the extension ended (the builds before the fix: the battery's first
// liveness search, one acceptor, two proposers and three inputs, finds 12
// late answers among naive's 10,192 states, 24 among PaxosLease's 442,200
// and 12 among central's 7,695; the witness is five moves). No state at
// rest or probe sees it: the request is answered, later.
//
// What it cannot find: a request that only some other fair schedule
// leaves unanswered (the probe tries one; a state at rest on such a path
// is still judged), a late answer to an Acquire at a node that did not
// hold the lease (within the bound, any answer passes), a late answer in
// a --from prefix (the search's initial states are not judged), or
// starvation. A random walk is probed once, from its first state with a
// request pending and no input left (a walk's states are known fresh
// only once it is recorded), so with --strategy random probed_states and
// the probes' share of unanswered_states count walks, not distinct
// states, and late_answers counts the walks' transitions, repeats
// included. Drifting clocks
// stop drifting where they are when a probe begins (tens of seconds of
// drift would carry them past the skew an algorithm assumes,
// config.reachable; the campaigns stop free clocks at the settle stretch
// too); a state where the simulator could not do that the same way (a
// paused node, two of a node's timers then due at one instant) is not
// probed.
//
// # Fencing tokens
//
// --tokens (Config.Tokens; tokens.go) also judges the lease's fencing
// tokens by their effect on the protected resource: at the end of every
// transition, each lease whose token is new (a lease that began, or an
// Acquired event that changed its token) writes once to a fenced store,
// and its token must be above the highest written to its resource
// before, and not equal to one another node wrote. Below it, the store
// rejects a current lease's write; equal to another node's, the store
// cannot order the two holders (record's token ties). Either is a token
// failure, which stops the search as a violation does; the first is
// written as a scenario with "store fenced" and a "write" line after
// every move that wrote, ending "expect fenced-rejects 0" or "expect
// token-ties 0", on which replay exits 1. The highest token per resource
// (and the node that wrote it) is a history variable in the state: the
// same bounds give a few more states (one acceptor, two proposers, four
// inputs, no crash: PaxosLease 253,689 against 253,384, FaTLease 787,383
// against 785,941, classic Paxos 1,140,672 against 1,138,814).
//
// The judgement is the algorithm's own claim (algorithms.TokenBreaks),
// so it is made only where the search brings about none of the
// conditions the algorithm names (Config.TokenCauses), and asking for it
// elsewhere is a bad configuration. A search may hold any message for as
// long as it likes and leave a lease to lapse, so late, delay and lapse
// are brought about; crashes add restart, clocks other than exact or
// slews add clocks. In lockstep (--sync, Config.Sync) true time passes
// only when no message to a live node is in flight and no hold would
// end by then: no message is late, and without drops, pauses or crashes
// no lease lapses; delay remains (within one instant a release and the
// next ask are no time apart, and an ask made earlier may arrive after
// one made later). So PaxosLease and FaTLease are judged in searches
// without crashes, classic Paxos and central (whose tokens are read off
// its server's clock) in every search, fairq in lockstep without drops,
// pauses and crashes, and naive and naive-undo in none. Lockstep is a
// part of the search without it (PaxosLease, one acceptor, two
// proposers, three inputs: 186 states against 7,995), and every lease
// must end by a release input: the planted PaxosLease below takes five
// inputs there (depth 10, 1,655 states). fairq in lockstep, one acceptor:
// two proposers and four inputs exhausted at 1,417 states, three
// proposers and six inputs at 1,179,441, two proposers, six inputs and a
// duplicate at 928,912, 0 token failures. Measured where the algorithms say their
// tokens may fail (tokens_test.go, judging anyway): PaxosLease and
// FaTLease with one crash fail at depth 6 and 5 (a restarted acceptor's
// forgotten ballot, 787 and 605 states); naive and naive-undo at depth 5
// (two leases granted at one instant end at one instant, and their
// tokens are lease ends), as does central with its token read off the
// client's clock (runner/internal/planted, test-central-client-token;
// 271 states). fairq, one acceptor, two proposers, three
// inputs, no crash: exhausted at 2,941,874 states without a token
// failure, though its leases may lapse there.
//
// What it finds: a planted PaxosLease whose nodes give a lease their
// previous lease's token (runner/internal/planted, test-stale-token),
// the lease invariant intact: breadth first at depth 9 after 3,425 states
// on one acceptor with four inputs; on three acceptors with three
// inputs, at depth 23 after 2,996,184 states. What it does not judge: a
// hold that begins and ends within one transition (it writes nothing,
// as the simulator's writer could not see it either), a node's own two
// leases with one token (its writes leave in its order), and what a
// search with a named condition does to tokens.
//
// # Reductions and the pending bound
//
// MaxPending bounds the messages in flight: a state with more is judged
// by the checker but not expanded, like the network bound of a TLC
// configuration. Without it (--max-pending 0) three reductions apply, each
// of which keeps every reachable violation:
//
//   - ignored-input: a client input the node ignores (no output, same
//     encoding) is skipped: its state is the parent's with one input less,
//     and the parent has every future it has;
//   - ignored-delivery: so is a delivery the node ignores (the parent's
//     state without the message: the parent may still deliver it, or
//     never, so it has every future the child has), and likewise a
//     duplicate the node ignores;
//   - no-delivery-to-down-node: a message to a node that is down is not
//     delivered (the delivery would lose it; leaving it in flight has the
//     same futures and more: it may still arrive after a restart).
//
// Under a pending bound the second and third would lose paths: the
// parent keeps the message, so it counts against the bound where the
// child, without it, is below; a path from the child that the bound
// allows may be cut from the parent. So under a bound these moves are
// real transitions: the message leaves (the node ignores it, or it is
// lost at a node that is down), and the search keeps the state without
// it. ignored-input applies under any bound (the input leaves nothing in
// flight). The bounds object of the result lists the reductions applied.
// A message never delivered stays in flight and counts against the bound;
// drops (off by default, since without a bound a message never delivered
// is a lost one) can free a place, so under a bound a violation that
// needs one message lost and another sent could need --drops 1.
//
// The default bound, DefaultMaxPending, lets a two-phase round to every
// acceptor complete: 2A - (A/2+1) for A acceptors (4 for 3, 7 for 5), or
// the proposers' number if larger; below that, the result warns. States
// grow fast with the bound: paxoslease, 3 acceptors, 2 proposers, 2
// inputs, 1 crash: 245 thousand at 3, 3.9 million at 4, more than 30
// million at 5. --max-pending 0 (no bound, every reduction) is the
// cleanest verdict where it fits.
//
// # Symmetry
//
// The search identifies states up to two symmetries that are sound by
// construction: the messages in flight are a multiset (their send order
// and numbers are not state: any of them may be delivered next), and
// with clocks that do not drift a state and the same state shifted in
// time are one (every time is written relative to now, and AppendState's
// contract requires the same of the nodes). It does not identify nodes
// or resources: ballots carry node ids and break ties by them, so two
// proposers are not interchangeable, and the algorithms keep state shared
// by all resources of a node (naive's ballot run counter, paxoslease's
// and fatlease's node-level round counters), so which resource a timer
// or input concerns first changes the ballots the others get. A
// permutation of resources maps a behaviour to a behaviour only when
// nothing is shared across them, which the Explorable contract does not
// promise. Nodes that are acceptors and not proposers (ids P and up) are
// interchangeable as far as an algorithm looks at an acceptor's id only
// to tell answers apart (no tie broken by it; not checked algorithm by
// algorithm). Where that holds, identifying states up to a permutation
// of them is sound, but it needs each node's state
// with the acceptor ids renamed (a proposer's set of answers, an
// acceptor's peers), an operation the Explorable contract does not have
// (AppendState writes ids as they are), and it would gain at most
// (A-P)!: nothing for the configurations measured here (3 acceptors with
// 2 or 3 proposers, 1 acceptor with 3 proposers), 6 for 5 acceptors with
// 2 proposers. So it is not used.
//
// # Time
//
// By default time moves only to timer deadlines: between two deadlines no
// node does anything on its own, and every delivery and input happens at
// a deadline (or at 0). Where in that interval a message is delivered can
// matter (a node stamps what it receives with its local now), so this is
// a discretisation of time at the instants something is due, not a proof
// over dense time. --time-step D adds a move that lets D of true time
// pass while that stays short of the next deadline, so events also happen
// at every multiple of D after a deadline. What it covers: with exact
// clocks, every decision the algorithms make compares a clock reading
// with a stored reading plus a constant (a stamp plus a lease span, a
// timeout). When the constants are multiples of D, every deadline falls
// on the grid of D, and a run whose events fall on the grid reaches every
// ordering of those comparisons that a run at arbitrary instants
// reaches, as far as the comparisons are non-strict (the digitization
// result of Henzinger, Manna and Pnueli, "What good are digital clocks?",
// 1992); a strict comparison (a lease that ends at until, not after it)
// can need two events closer than D, which a finer D reaches. With
// drifting clocks a local duration is no multiple of D in true time, and
// the grid is a sample. So a smaller D covers more; the test with
// central's planted fault (--ablate full-grant, a grant taken for free
// T/16 before its end) shows a violation that only a delivery between
// deadlines reaches: found with --time-step T/20, exhausted without a
// violation at deadlines only. The result's
// time_model says which model a verdict covers.
//
// # Clocks
//
// --clocks chooses each node's clock once, at the start (one initial
// state per assignment): exact (true time), drift (rate error at
// --clock-levels values evenly spaced in [-F, +F], F = --drift, by
// default the algorithm's allowance --drift-bound), skew (offset at
// --clock-levels values in [-d_max/2, +d_max/2]: two clocks up to d_max
// apart, FaTLease's bound) or extremes (both). With the default 2 levels
// only the extremes are tried. The argument for the extremes (not a
// proof): every duration a node measures (a lease span, a quarantine, a
// timeout) shrinks or grows monotonically with its clock's rate, and a
// comparison of two clocks' readings moves monotonically with their
// offsets, so an overlap that some rates within the bound produce is at
// least as long with the extreme rates of the same signs. More levels
// test that argument, not assume it.
//
// Drifting clocks that start d_max apart drift further apart, 2F per
// second: for an algorithm whose safety assumes clocks within d_max
// (FaTLease, classic Paxos: Algorithm.SkewBound) they leave that premise
// within seconds (at the defaults, d_max 500 ms and F 0.001, the holder's
// drift margin of 12 ms is used up after 6 s). Time then does not advance
// to an instant at which two clocks are further apart than d_max plus
// that margin (config.reachable; `skew_limit_ns` in bounds): a state
// constraint, like the simulator slewing clocks back and the campaigns
// cutting free-running rates, that keeps every verdict inside the
// algorithm's premise. Without it, `explore --algo fatlease --acceptors 1
// --proposers 2 --inputs 3 --clocks extremes --max-pending 4` "finds" two
// holders at 15.2 s with clocks 530 ms apart; with it, 0 in 58 million
// states, while the drift-margin ablation is still found (108,258
// states). What happens beyond the premise is the frontier experiment's
// question, not the explorer's.
//
// --slews N lets clocks change rate along a path: at any state, a node
// that is up may change its rate error to another of the levels (--slews
// needs F above 0; with exact clocks the rates start at 0), its reading
// continuous, up to N times per path: rates that change along a path
// within the allowance. The change is the scenario command "clock NODE
// offset=O rate=R" with the offset that keeps the reading, and it does
// what the simulator's setClock does: the checker maps the node's holds to
// true time again (closing those already over), and the node's timers are
// armed again from their deadlines on its clock. The simulator arms them
// again in the order of its timer slots, which the explorer does not
// model; that order matters only between two of the node's timers due at
// one instant afterwards, so no change is offered where that would happen
// (a restriction of the model, which the walk test checks against the
// simulator).
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
// assignment (and, with --slews, the clocks); every node's up/down,
// restart counter and AppendState relative to its local now (hashed once
// per node and reused by the children a move does not touch); durable
// and unsynced records; the timers in firing order with deadlines
// relative to now; the messages in flight as a sorted multiset (numbers
// left out); the holds with their ends relative to now; with --tokens,
// the highest token written per resource; the budgets. With
// clocks that drift, true time is part of the state too. If the hash
// behaves like a random function, the chance that any two of n distinct
// states collide is at most n²/2^129: below 10^-22 for n = 10^8.
//
// The visited set keeps the fingerprints only (fpSet): 256 open-addressing
// tables outside the Go heap, each doubled when three quarters full, so a
// state costs between 21 and 43 bytes (about 36 measured at 30 million
// states), and nothing else of a state stays in memory.
//
// # Search
//
// --strategy bfs (the default) searches breadth first, level by level, so
// the first counterexample is a shortest one. The frontier is on disk: a
// file per level, 8 bytes per state (its parent's position in the level
// before and the index of the move from it; levels.go). A state is never
// stored (a state is live algorithm objects, and nothing decodes an
// encoding back into a node): it is rebuilt by executing its move again
// on its parent, which is rebuilt the same way; since each level is
// written in the order of its parents, its states are in the order of
// their paths, and a worker rebuilding a run of consecutive states keeps
// the ancestors of the last one (a cursor, one world per level) and
// executes each ancestor once per level. That is the price of keeping no
// state: the tree of first discoveries is thin (paxoslease, 3 acceptors,
// 2 proposers, 2 inputs, 1 crash, --max-pending 4: 1.6 new children per
// parent that has any), so a level costs 2.7 executions per state to
// rebuild (its own and 1.7 of ancestors), 40% of all executions; kept, a
// state would cost about a kilobyte. Per level, workers take chunks of the
// level in order, rebuild and expand their states and fingerprint every
// successor; the chunks are committed in order on one goroutine (the
// visited set tested and filled, the new states appended to the next
// level, the violating ones noted), with a bounded window of chunks in
// flight. Everything that decides the result (which successor is kept,
// the order of the next level, the first violation) follows the chunk
// order, so states, transitions and the counterexample are the same for
// any number of workers. The one serial step, the commit, costs a table
// probe per transition against the few microseconds of a transition's
// execution, so the workers scale until about twenty.
//
// The checker judges every state: two different owners holding one
// resource at once (in true time, by the runner checker's rules) is a
// violation. The search finishes the level of the first violation and
// stops; Result.Violations is the number of violating states in that
// level and the counterexample is the first of them, rebuilt from the
// level files and written as a scenario file ending with "advance 1ns"
// (so the overlap has a length) and with no "expect violations" line, so
// that leaselab replay exits 1 on it. The tests replay every
// counterexample they find with sim.Replay.
//
// --strategy dfs searches depth first on one goroutine, with the same
// visited set and the current path as live worlds; it stops at the first
// violation (not a shortest one). With MaxDepth it also keeps each
// visited state's least depth (a map in the Go heap, about 40 bytes a
// state) and expands a state again when it meets it nearer the root, so
// a depth-bounded search reaches exactly the states breadth first reaches
// within the bound (dfsdepth_test.go), in far less memory than a
// frontier: PaxosLease's cross-life-ballots counterexample on one
// acceptor is 18 moves deep, found after 7,716,534 states with
// --max-depth 18 --horizon 13s --max-pending 4 (leaselab verify's E22;
// 68 s on the shared machine). --strategy random takes Walks seeded random walks
// of MaxDepth moves (500 by default; TLC's simulation mode, Stateright's
// simulation checker): each move drawn uniformly among those enabled,
// from a source seeded with (Seed, walk number), so walk i is the same
// whatever the workers; the counterexample is the lowest-numbered
// violating walk. A walk ends early where no move is left (budgets spent,
// no timer pending); its length bounds it, so by default no pending bound
// applies. Walks change their world in place (no Clone), several hundred
// thousand moves a second a core. The visited set counts the distinct
// states the walks saw. Config.From starts any strategy at the end of a scenario file:
// its setup lines set the cluster, parameters, seed, disk and clocks,
// its commands run on the initial state before any budget is spent, and
// every counterexample begins with them.
//
// # Stopping
//
// Result.Stopped says why a search ended: exhausted (every state within
// the budgets, the pending bound and the horizon was expanded),
// max-states, max-depth (states at MaxDepth had moves left), max-memory,
// interrupted (the context, SIGINT in the command), violation, or (random)
// walks. The memory cap (MaxMemory, by default three quarters of the
// memory available at the start) holds for the resident size of the whole
// process: the visited set asks before a table grows, the collector's
// soft limit is what the cap leaves beside the tables, and the resident
// size is read after each chunk; a search that would pass the cap stops
// cleanly and reports what it found. With a checkpoint directory a
// breadth-first search runs its level files there, and a stop (other
// than exhausted or violation) saves the visited set and where to go on
// (checkpoint.go); the same configuration resumes it, with other caps or
// workers if wanted, and ends exactly as a search in one go would.
//
// # Scale (measured)
//
// On the shared 2-core, 23 GB machine (2 workers; other sessions kept
// the load at 15-20, so the wall times are several times what an idle
// machine gives: CPU seconds are the comparable figure), every rule on,
// exact clocks:
//
//   - paxoslease --acceptors 1 --proposers 3 --inputs 4 --max-pending 0
//     (the configuration that found abandon-release; 1 crash):
//     exhausted, 104,399,418 states, 195,612,502 transitions, depth 49,
//     0 violations; 1,175 s of CPU (88,845 states per CPU second), 65 min
//     wall at that load; peak RSS 3.30 GB, 32 B per state (visited set
//     3.31 GB at the end). On the same two cores idle (load 0.6): 10 min
//     15 s wall, 1,193 s of CPU, 3.29 GB peak RSS, the same 104,399,418
//     states and depth.
//   - paxoslease --acceptors 3 --proposers 3 --crashes 1 --inputs 3
//     --max-pending 0 --max-memory 1GiB: stopped max-memory after
//     32,423,207 states at depth 12, 0 violations, peak RSS 0.98 GiB,
//     227 s of CPU.
//   - naive --acceptors 3 --proposers 2 --crashes 1 (default bound 4):
//     350,679 states, exhausted, peak RSS 68 MB, 2.5 s of CPU.
//
// --acceptors 3 --proposers 3 --crashes 1 --inputs 3, the default pending
// bound (4), --max-memory 1GiB, each stopped (interrupted) after 6 min of
// wall time at that load; none exhausted and none found a violation, so
// this configuration does not fit in the time this session had. Each
// verdict covers every state within the depth given (every state
// reachable in that many moves was reached and judged):
//
//	algorithm     states      depth  CPU s  peak RSS
//	naive         18,223,729  15     97     580 MB
//	naive-undo    19,788,299  15     97     625 MB
//	paxoslease    18,076,053  17     111    580 MB
//	fatlease      19,871,079  16     128    647 MB
//	classicpaxos  13,595,018  14     103    458 MB
//
// (central needs exactly one acceptor, so it has no row.) How large these
// spaces are was not measured. At 130,000-190,000 states per CPU second
// and 32 B per state, the memory this machine leaves a search (about 17
// GB) holds about 500 million states, about an hour of CPU.
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
