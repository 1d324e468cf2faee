package sim

import (
	"fmt"
	"strconv"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// The scenario commands of process pauses and the protected store (the
// clock jump is a key of "clock"):
//
//	store plain|fenced       setup: what the protected store checks [plain]
//	pause NODE D             NODE's process pauses now for D of true time
//	write NODE RES           NODE's client writes to the store under its lease on RES
//	expect writes N / expect stale-writes N / expect fenced-rejects N / expect token-ties N
//
// A scenario has no workload driver, so its writes are the script's: a
// write checks the lease NODE's latest Acquired event on RES gave it (it
// must still run on NODE's clock, at the pause's start if NODE is paused)
// and goes out at once, or, if NODE is paused, when it resumes: the
// check was made before the pause, which then falls between the check and
// the write.

// scriptLease is what a node's latest Acquired event on a resource told
// it, in a scenario (sim.leases).
type scriptLease struct {
	token algorithms.Token
	until algorithms.Local
	start int64 // its hold interval's start
}

type leaseKey struct {
	n   algorithms.NodeID
	res algorithms.ResourceID
}

// scriptWrite is a write a paused node makes when it resumes.
type scriptWrite struct {
	res   algorithms.ResourceID
	token algorithms.Token
	start int64
}

// noteLease keeps what event ev of node n says of its leases (scenarios).
func (s *sim) noteLease(n algorithms.NodeID, ev *algorithms.Event) {
	k := leaseKey{n, ev.Resource}
	switch ev.Kind {
	case algorithms.Acquired:
		start, ok := s.rec.Since(s.now, n, ev.Resource)
		if !ok {
			delete(s.leases, k)
			return
		}
		if s.leases == nil {
			s.leases = map[leaseKey]scriptLease{}
		}
		s.leases[k] = scriptLease{token: ev.Token, until: ev.Until, start: start}
	case algorithms.Lost:
		delete(s.leases, k)
	}
}

// flushWrites makes the writes node n checked before its pause.
func (s *sim) flushWrites(n algorithms.NodeID) {
	for _, w := range s.nodes[n].pause.writes {
		s.rec.Write(s.now, n, w.res, w.token, w.start)
	}
	s.nodes[n].pause.writes = s.nodes[n].pause.writes[:0]
}

// pauseCmd: pause NODE D.
func (rp *replayer) pauseCmd(args []string) error {
	if err := wantArgs(args, 2, "pause NODE DURATION"); err != nil {
		return err
	}
	n, err := rp.node(args[0])
	if err != nil {
		return err
	}
	d, err := time.ParseDuration(args[1])
	if err != nil || d <= 0 {
		return fmt.Errorf("pause: bad duration %q (want a positive one, e.g. 8s)", args[1])
	}
	s := rp.s
	switch {
	case !s.Up(n):
		return rp.fail("pause %s: node is down", args[0])
	case s.Paused(n):
		return rp.fail("pause %s: already paused", args[0])
	}
	s.Pause(n, int64(d))
	s.settle(s.now)
	return nil
}

// writeCmd: write NODE RES.
func (rp *replayer) writeCmd(args []string) error {
	if err := wantArgs(args, 2, "write NODE RES"); err != nil {
		return err
	}
	n, err := rp.node(args[0])
	if err != nil {
		return err
	}
	res, err := parseRes(args[1])
	if err != nil {
		return err
	}
	s := rp.s
	l, ok := s.leases[leaseKey{n, res}]
	at := s.now
	if s.Paused(n) {
		at = s.nodes[n].pause.since
	}
	if !ok || !s.Up(n) || s.clock[n].Local(at) >= l.until {
		return rp.fail("write %s r%d: %s holds no lease on r%d to write under", n, res, n, res)
	}
	if s.Paused(n) {
		ps := &s.nodes[n].pause
		ps.writes = append(ps.writes, scriptWrite{res: res, token: l.token, start: l.start})
		return nil
	}
	s.rec.Write(s.now, n, res, l.token, l.start)
	s.settle(s.now)
	return nil
}

// storeCmd: store plain|fenced (setup).
func (rp *replayer) storeCmd(args []string) error {
	if err := wantArgs(args, 1, "store plain|fenced"); err != nil {
		return err
	}
	p, err := runner.LookupParam("store", nil)
	if err != nil {
		return err
	}
	if err := p.Set(&rp.spec, args[0]); err != nil {
		return err
	}
	return nil
}

// expectStore: expect writes|stale-writes|fenced-rejects|token-ties N
// (token-ties: writes that carried the highest token another lease's
// write had set, record's Result.TokenTies); ok is false
// for another check.
func (rp *replayer) expectStore(args []string) (bool, error) {
	var got int64
	w, stale, rej, ties := rp.s.rec.StoreCounts()
	switch args[0] {
	case "writes":
		got = w
	case "stale-writes":
		got = stale
	case "fenced-rejects":
		got = rej
	case "token-ties":
		got = ties
	default:
		return false, nil
	}
	if err := wantArgs(args, 2, "expect "+args[0]+" N"); err != nil {
		return true, err
	}
	want, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil {
		return true, fmt.Errorf("expect %s: bad number %q", args[0], args[1])
	}
	if got != want {
		return true, rp.fail("expect %s %d: got %d", args[0], want, got)
	}
	rp.ok()
	return true, nil
}
