package runner

import (
	"strconv"

	"leaselab/algorithms"
)

// A run's trace is a sequence of TraceRec values, one per happening, in
// true-time order: what the environment did (sends, deliveries, drops,
// timers, crashes, restarts, partitions, disk writes, clock settings) and
// what the runner saw (client inputs, events, hold intervals, violations).
// The environments hash every record (Result.TraceHash) and hand it to
// Options.Observers as it happens; the JSON lines of Options.Trace, the
// CSV of Options.Holds and the window of Options.ViolationTrace are
// written by observers too (runner/record).

// Observer sees every record of a run's trace as it is added, in true-time
// order, on the run's one logical thread. r is valid only during the
// call: an observer copies what it keeps, and neither changes r nor adds
// records of its own.
type Observer interface {
	Observe(r *TraceRec)
}

// StepObserver is an Observer of a scripted run (a scenario replayed one
// command at a time, runner/sim) that also wants to know where each
// command ends and what each node then believes: the HTML view's step
// axis. Step is called after the records the command caused.
type StepObserver interface {
	Observer
	Step(s *ScriptStep)
}

// ScriptStep is one command of a scenario, done. s and its slices are
// valid only during the call.
type ScriptStep struct {
	Line    int    // the scenario's line number
	Command string // as written, without comment and extra blanks
	T       int64  // true time after the command
	// Nodes: each node's state in words after the command: its
	// algorithms.Describer text, "down" for a crashed node, "" if the
	// algorithm does not describe its nodes.
	Nodes []string
}

// TraceKind says what a trace record is.
type TraceKind uint8

const (
	TraceSend      TraceKind = iota + 1 // node handed Msg to the network
	TraceDeliver                        // Msg was stepped into node
	TraceDrop                           // Msg was dropped; Sub is the DropReason
	TraceDup                            // the network duplicated Msg
	TraceFire                           // timer (Res, Sub=kind) fired at node
	TraceInput                          // a client input (Sub=InputKind) on Res at node
	TraceEvent                          // node emitted an Event (Sub=EventKind; Res, Owner, Ballot, X=Until)
	TraceCrash                          // node crashed
	TraceRestart                        // node restarted; X = its restart count
	TracePartition                      // a partition began; X = bit mask of side A (nodes 0..63)
	TraceHeal                           // the partition healed
	TraceHoldStart                      // hold interval began: Res, Owner=node, Ballot, X=true end as known now
	TraceHoldEnd                        // hold interval ended: Res, Owner=node, Ballot, X=start
	TracePersist                        // node wrote X records (Y=1: NoSync)
	TraceSync                           // node's fsync finished: X = latency ns, Y = records
	TraceClock                          // node's clock was set: X = offset ns, Y = rate ppb
	TraceViolation                      // an overlap began: Res, Owner=first owner, X=second owner
	TracePause                          // node's process paused: X = for how long (ns)
	TraceResume                         // node's process resumed: X = how long it was paused (ns)
	TraceWrite                          // node's write reached the protected store: Res, Sub=WriteOutcome, Ballot=token's Minor, X=token's Major, Y=start of the lease it was made under (true ns)
	traceKindCount
)

var traceNames = [...]string{"", "send", "deliver", "drop", "dup", "fire", "input", "event", "crash", "restart",
	"partition", "heal", "hold_start", "hold_end", "persist", "sync", "clock", "violation", "pause", "resume", "write"}

func (k TraceKind) String() string {
	if k < traceKindCount {
		return traceNames[k]
	}
	return "trace(" + strconv.Itoa(int(k)) + ")"
}

// HasMsg reports whether records of kind k carry a message (send,
// deliver, drop, dup).
func (k TraceKind) HasMsg() bool { return k >= TraceSend && k <= TraceDup }

// What the protected store did with a write (a TraceWrite record's Sub).
const (
	WriteAccepted = 1 // accepted
	WriteStale    = 2 // accepted, from a lease that had ended, after a write of a later lease
	WriteRejected = 3 // rejected by the fenced store: its token is below the highest accepted
)

var writeNames = [...]string{"", "accepted", "stale", "rejected"}

// WriteOutcome names a TraceWrite record's Sub; "" if unknown.
func WriteOutcome(sub uint8) string {
	if int(sub) < len(writeNames) {
		return writeNames[sub]
	}
	return ""
}

// Why a message was dropped (a TraceDrop record's Sub).
const (
	DropLoss      = 1 // random loss
	DropPartition = 2 // sender and receiver on different sides of a partition
	DropDown      = 3 // receiver is down
	DropScript    = 4 // a scenario's "drop"
)

var dropNames = [...]string{"", "loss", "partition", "down", "script"}

// DropReason names why a TraceDrop record's message was dropped (its
// Sub); "" if unknown.
func DropReason(sub uint8) string {
	if int(sub) < len(dropNames) {
		return dropNames[sub]
	}
	return ""
}

// TraceRec is one record of a run's trace: a value with no pointers, so
// that records cost no garbage on their way to the observers.
type TraceRec struct {
	T      int64            // true time, ns
	Local  algorithms.Local // the node's clock at T
	Kind   TraceKind
	Sub    uint8
	Node   algorithms.NodeID
	Msg    algorithms.Message // send, deliver, drop, dup
	Res    algorithms.ResourceID
	Owner  algorithms.NodeID
	Ballot algorithms.Ballot
	X, Y   int64
}
