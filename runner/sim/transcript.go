package sim

import (
	"fmt"
	"io"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/record"
)

// A transcript is the complete, deterministic text of a replayed scenario:
// every command as "> command", then one line per happening it caused
// (time, node, what), the outcome of every expectation, and at the end the
// verdict with every violation and the run's meters. Unlike the trace
// Replay prints, nothing in it is padded to a column width, so a change to
// one record changes one line; golden tests compare transcripts whole
// (runner/replaytest.Golden).
//
// Times are true times written as Go durations ("0s", "1.5s"); a node's
// local clock readings are written the same way. A message sent to another
// node ends in "-> #N", its pending number; inputs, events, message kinds
// and drop reasons are printed by their String methods.

// ReplayOptions are Replay's optional outputs.
type ReplayOptions struct {
	// Observers see every trace record (as runner.Options.Observers do),
	// e.g. an HTML timeline.
	Observers []runner.Observer
	// Transcript receives the replay's transcript.
	Transcript io.Writer
}

// ReplayWith is Replay with optional outputs; w gets what Replay writes
// (io.Discard: nothing).
func ReplayWith(scenario io.Reader, w io.Writer, o ReplayOptions) (ReplayResult, error) {
	var tx *transcript
	if o.Transcript != nil {
		tx = &transcript{w: o.Transcript}
	}
	res, err := replay(scenario, w, o.Observers, tx)
	if tx != nil && tx.err != nil && err == nil {
		err = tx.err
	}
	return res, err
}

// transcript writes a transcript; a nil *transcript writes nothing, so the
// replayer calls it unconditionally.
type transcript struct {
	w   io.Writer
	err error
	// send is a send line waiting for its pending number (the simulator
	// reports the number after the send record).
	send string
}

func (t *transcript) line(format string, a ...any) {
	if t == nil || t.err != nil {
		return
	}
	t.flush()
	_, t.err = fmt.Fprintf(t.w, format+"\n", a...)
}

// flush writes a send line held back for a pending number that did not
// come (a message to itself, or to a node that is down).
func (t *transcript) flush() {
	if t.send == "" || t.err != nil {
		return
	}
	s := t.send
	t.send = ""
	_, t.err = fmt.Fprintln(t.w, s)
}

func (t *transcript) command(text string) { t.line("> %s", text) }

func (t *transcript) pending(id int) {
	if t == nil || t.send == "" {
		return
	}
	t.send += fmt.Sprintf(" -> #%d", id)
	t.flush()
}

func (t *transcript) record(r *record.TraceRec) {
	if t == nil {
		return
	}
	s := transcriptLine(r)
	if r.Kind == record.TraceSend {
		t.flush()
		t.send = s
		return
	}
	t.line("%s", s)
}

func dur(ns int64) string { return time.Duration(ns).String() }

// transcriptLine is one trace record, two spaces in: "TIME NODE WHAT ...".
func transcriptLine(r *record.TraceRec) string {
	head := fmt.Sprintf("  %s %s %s", dur(r.T), r.Node, r.Kind)
	switch r.Kind {
	case record.TraceSend, record.TraceDeliver, record.TraceDup:
		return fmt.Sprintf("%s %s", head, r.Msg)
	case record.TraceDrop:
		reason := record.DropReason(r.Sub)
		if reason == "" {
			reason = "?"
		}
		return fmt.Sprintf("%s %s (%s)", head, r.Msg, reason)
	case record.TraceFire:
		return fmt.Sprintf("%s timer r%d kind=%d local=%s", head, r.Res, r.Sub, dur(int64(r.Local)))
	case record.TraceInput:
		return fmt.Sprintf("%s %s r%d", head, algorithms.InputKind(r.Sub), r.Res)
	case record.TraceEvent:
		// Every event's owner: what it names is the algorithm's (whom a
		// grant is for, whose deny preempted a round, ...).
		s := fmt.Sprintf("%s %s r%d b=%s owner=%s", head, algorithms.EventKind(r.Sub), r.Res, r.Ballot, r.Owner)
		switch algorithms.EventKind(r.Sub) {
		case algorithms.Acquired, algorithms.Granted:
			s += fmt.Sprintf(" until=%s local=%s", dur(r.X), dur(int64(r.Local)))
		}
		return s
	case record.TraceRestart:
		return fmt.Sprintf("%s restarts=%d", head, r.X)
	case record.TracePartition:
		return fmt.Sprintf("%s side_a=%b", head, uint64(r.X))
	case record.TraceHoldStart:
		return fmt.Sprintf("%s r%d owner=%s b=%s until=%s", head, r.Res, r.Owner, r.Ballot, dur(r.X))
	case record.TraceHoldEnd:
		return fmt.Sprintf("%s r%d owner=%s b=%s since=%s", head, r.Res, r.Owner, r.Ballot, dur(r.X))
	case record.TracePersist:
		return fmt.Sprintf("%s records=%d nosync=%v", head, r.X, r.Y != 0)
	case record.TraceSync:
		return fmt.Sprintf("%s records=%d latency=%s", head, r.Y, dur(r.X))
	case record.TraceClock:
		return fmt.Sprintf("%s offset=%s rate=%dppb", head, dur(r.X), r.Y)
	case record.TraceViolation:
		return fmt.Sprintf("%s r%d owners %s and %s", head, r.Res, r.Owner, algorithms.NodeID(r.X))
	case record.TracePause:
		return fmt.Sprintf("%s for=%s", head, dur(r.X))
	case record.TraceResume:
		return fmt.Sprintf("%s after=%s", head, dur(r.X))
	case record.TraceWrite:
		return fmt.Sprintf("%s r%d %s token=%d:%d lease_start=%s", head, r.Res, runner.WriteOutcome(r.Sub), r.X, uint64(r.Ballot), dur(r.Y))
	}
	return head
}

// verdict ends the transcript: the violations, the failed expectations
// and the meters a scenario can move.
func (t *transcript) verdict(res *ReplayResult) {
	if t == nil {
		return
	}
	t.line("verdict: %d violation(s), %d failed expectation(s)", len(res.Violations), len(res.Failed))
	for _, v := range res.Violations {
		t.line("  violation r%d owners %s (b=%s) and %s (b=%s) from %s overlap %s",
			v.Resource, v.Owners[0], v.Ballots[0], v.Owners[1], v.Ballots[1], dur(v.StartNS), dur(v.OverlapNS))
	}
	for _, f := range res.Failed {
		t.line("  failed %s", f)
	}
	m := &res.Result
	t.line("meters: acquired=%d failed=%d timeouts=%d preemptions=%d messages=%d owner_changes=%d",
		m.LeasesAcquired, m.LeasesFailed, m.Timeouts, m.Preemptions, m.Messages, m.OwnerChanges)
	t.line("meters: static_deadlocks=%d static_deadlock=%s fsyncs=%d disk_bytes=%d",
		m.StaticDeadlocks, time.Duration(m.StaticDeadlockMS*1e6).Round(time.Microsecond), m.Fsyncs, m.DiskBytes)
	if m.Pauses > 0 || m.ClockJumps > 0 || m.Writes > 0 {
		// Only scenarios with pauses, jumps or writes have these, so the
		// transcripts of the others stay as they were.
		t.line("meters: pauses=%d clock_jumps=%d writes=%d stale_writes=%d fenced_rejects=%d double_belief=%s",
			m.Pauses, m.ClockJumps, m.Writes, m.StaleWrites, m.FencedRejects, time.Duration(m.DoubleBeliefMS*1e6).Round(time.Microsecond))
	}
}

// ok reports an expectation that holds.
func (rp *replayer) ok() {
	fmt.Fprintf(rp.w, "  ok\n")
	rp.tx.line("  ok")
}
