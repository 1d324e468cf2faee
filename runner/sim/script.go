package sim

import (
	"io"

	"leaselab/algorithms"
	"leaselab/runner"
)

// Script runs a scenario one line at a time, for programs that write a
// scenario as they go: runner/campaign turns a simulated run into a
// scenario and shrinks it, and before it writes the line that delivers a
// message it has to know the number the message got in the pending list.
// Lines are those of a scenario file (testdata/README.md); nothing is
// printed.
type Script struct{ rp *replayer }

// NewScript returns a scenario with no line run yet.
func NewScript() *Script {
	return &Script{rp: &replayer{w: io.Discard, spec: scenarioSpec(), quiet: true}}
}

// Exec runs one line, as Replay runs a line of a file: a malformed line
// is an error; an expectation that does not hold, or a step that cannot
// be done (a message not pending, an input to a node that is down), is
// recorded in the result's Failed list.
func (sc *Script) Exec(line string) error { return sc.rp.execLine(line) }

// Do runs one command given as its fields ("deliver", "3"), as Exec runs
// the line they make, without the parsing.
func (sc *Script) Do(fields ...string) error {
	sc.rp.line++
	return sc.rp.execFields(fields)
}

// OnPending makes f see every message that becomes pending, with its
// number (call it before the first action).
func (sc *Script) OnPending(f func(id int, m algorithms.Message)) { sc.rp.pendingHook = f }

// Started reports whether the nodes have booted (the first action boots
// them).
func (sc *Script) Started() bool { return sc.rp.s != nil }

// PendingMsg returns pending message id.
func (sc *Script) PendingMsg(id int) (algorithms.Message, bool) {
	if sc.rp.s == nil {
		return algorithms.Message{}, false
	}
	for _, p := range sc.rp.s.pending {
		if p.id == id {
			return p.msg, true
		}
	}
	return algorithms.Message{}, false
}

// Now is the true time the scenario has reached.
func (sc *Script) Now() int64 {
	if sc.rp.s == nil {
		return 0
	}
	return sc.rp.s.now
}

// NextEvent is the true time of the earliest event the scenario has
// scheduled by itself (a timer, a message to the node itself, an fsync),
// if any: a program that delivers messages on its own schedule advances
// to it, and no further, before it decides again.
func (sc *Script) NextEvent() (int64, bool) {
	s := sc.rp.s
	switch {
	case s == nil:
		return 0, false
	case s.q.waitingNow():
		return s.now, true
	case s.q.Len() > 0:
		return s.q.peek(), true
	}
	return 0, false
}

// Up reports whether node n is up (false before the start).
func (sc *Script) Up(n algorithms.NodeID) bool { return sc.rp.s != nil && sc.rp.s.Up(n) }

// Paused reports whether node n's process is paused.
func (sc *Script) Paused(n algorithms.NodeID) bool { return sc.rp.s != nil && sc.rp.s.Paused(n) }

// Violations is the number of lease violations so far, counting overlaps
// still open (what `expect violations N` compares).
func (sc *Script) Violations() int {
	if sc.rp.s == nil {
		return 0
	}
	chk := sc.rp.s.rec.Checker()
	chk.Advance(sc.rp.s.now)
	_, n := chk.Violations()
	return n + chk.OpenViolations()
}

// ViolationList returns the violations so far: those that ended, then
// the overlaps still open (each with its overlap up to now).
func (sc *Script) ViolationList() []runner.Violation {
	if sc.rp.s == nil {
		return nil
	}
	chk := sc.rp.s.rec.Checker()
	chk.Advance(sc.rp.s.now)
	vs, _ := chk.Violations()
	return append(append([]runner.Violation(nil), vs...), chk.OpenList()...)
}

// Failed is the number of expectations (and steps) that failed so far.
func (sc *Script) Failed() int { return len(sc.rp.res.Failed) }

// Finish boots the nodes if no action did and returns the verdict, as
// Replay does at the end of a file.
func (sc *Script) Finish() (ReplayResult, error) { return sc.rp.finish() }
