// Package host runs one node of a cluster for an environment: the
// algorithm's node of the current life, its restart counter, the timers
// the runner keeps for it, its stable storage, and how a step's Output is
// carried out. It is leaselab's counterpart of etcd raft's RawNode: the
// environment (the simulator, a UDP node, the explorer's world) owns time,
// the network and the disk's latency; the host owns what every
// environment must do alike.
//
// A Host is a value. The simulator keeps one per node in a slice, a UDP
// node (one life of one node) embeds one, and the explorer copies one
// with Clone (the node cloned, drawing from a copy of its source; timers
// and disk copied; a few small slices).
//
// # Lives
//
// Boot builds a life from a Setup (the algorithm and what every node
// shares) with Restarts earlier starts and the records recovered from
// stable storage, drawing from faults.NodeSource(seed, id, restarts);
// Restart counts one more start and recovers what the disk made durable;
// Crash drops the node, its timers and whatever the disk had not made
// durable. Life counts the lives, so that what an earlier life left
// scheduled (a timer, a sync) can tell it is stale. Run installs a node
// built elsewhere (UDP nodes, explorabletest's worlds).
//
// # Carrying out an Output
//
// Step steps the node and carries out its Output in one order, which the simulator,
// the explorer and the scenario interpreter share and trace hashes depend
// on: the timers (set, replace, cancel); then, if every message is the
// node's own, the disk write that holds the messages back, or the
// messages; then the events, until one of them crashes or restarts the
// node. It asks the environment (Env) for what only the environment can
// do: schedule a timer's firing (Arm, Disarm), send, meter a write
// (Persist), time a sync (Sync, completed by Synced), hand on an event.
// The UDP node steps groups of inputs under its environment's lock and
// applies their Outputs afterwards, so it uses Timers and Disk directly
// in the same order rather than Step.
//
// # Timers
//
// Timers holds at most one deadline per key (Set replaces, Cancel
// forgets), as entries that keep their number while they live. The
// simulator schedules each arming as an event of its own queue, so timers
// due at the same true instant fire in the order they were armed; the
// explorer orders them the same way in its world. A UDP node fires them
// itself from an Ordered set: a queue of settings in (deadline, key)
// order, where a replaced or cancelled setting is skipped rather than
// removed (ordered.go), merged with the timers its node keeps itself (algorithms.TimerKeeper: PaxosLease's
// acceptor timers, so that a million held leases do not store each
// deadline twice).
//
// # Disk
//
// Disk is the one implementation of group commit and of etcd raft's
// MustSync rule: what a sync takes (everything queued, or one Output's
// records without group commit), which messages wait for which records,
// what a crash loses, and the durable records a restart recovers. The
// environment decides how long a sync takes and where the records go:
// the simulator draws a latency, the explorer takes a fixed one, UDP
// writes them to its log (runner/udp/wal) on a writer goroutine and
// completes the sync when the writer is done.
package host
