package sim

import (
	"io"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
)

// pauseWatch checks, as the trace goes by, that a paused node does
// nothing: it sends, receives, fires, emits and writes nothing between
// its pause and its resume; and counts what waited for the resume.
type pauseWatch struct {
	t        *testing.T
	paused   map[algorithms.NodeID]bool
	resumeAt map[algorithms.NodeID]int64
	pauses   int
	// late: deliveries, timers and writes of a node at its resume instant.
	late int
}

func (w *pauseWatch) Observe(r *runner.TraceRec) {
	switch r.Kind {
	case runner.TracePause:
		w.paused[r.Node] = true
		w.pauses++
		return
	case runner.TraceResume:
		w.paused[r.Node] = false
		w.resumeAt[r.Node] = r.T
		return
	case runner.TraceCrash:
		w.paused[r.Node] = false
		return
	case runner.TraceSend, runner.TraceDeliver, runner.TraceFire, runner.TraceEvent, runner.TraceWrite:
	default:
		return
	}
	if w.paused[r.Node] {
		w.t.Fatalf("paused node %s: %s at %v", r.Node, r.Kind, time.Duration(r.T))
	}
	if at, ok := w.resumeAt[r.Node]; ok && at == r.T && r.Kind != runner.TraceSend && r.Kind != runner.TraceEvent {
		w.late++
	}
}

func pauseSpec() runner.Spec {
	s := centralSpec()
	s.Proposers = 4
	s.Faults.PauseRate = 6
	s.Faults.PauseMax = 3 * time.Second
	s.Writes = 50 * time.Millisecond
	return s
}

// A paused node does nothing until it resumes; what came due meanwhile
// runs at the resume. The run is reproducible and has no violation (the
// checker judges running nodes' beliefs; pauses only delay).
func TestPausedNodeDoesNothing(t *testing.T) {
	w := &pauseWatch{t: t, paused: map[algorithms.NodeID]bool{}, resumeAt: map[algorithms.NodeID]int64{}}
	res, err := runner.Run(pauseSpec(), runner.Options{Observers: []runner.Observer{w}})
	if err != nil {
		t.Fatal(err)
	}
	if w.pauses == 0 || res.Pauses != w.pauses || w.late == 0 {
		t.Fatalf("pauses: %d traced, %d counted, %d late happenings at resumes", w.pauses, res.Pauses, w.late)
	}
	if res.Violations != 0 || res.Writes == 0 {
		t.Fatalf("violations %d, writes %d", res.Violations, res.Writes)
	}
	again, err := runner.Run(pauseSpec(), runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.TraceHash != res.TraceHash {
		t.Fatalf("same spec, hashes %s and %s", res.TraceHash, again.TraceHash)
	}
}

// The new faults draw from streams of their own: a spec that does not
// ask for them runs as it did, whatever their other parameters say, and
// asking for pauses moves no crash.
func TestNewFaultsLeaveOtherDrawsAlone(t *testing.T) {
	base := centralSpec()
	base.Faults.CrashRate = 2
	ref, err := runner.Run(base, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	quiet := base
	quiet.Faults.PauseMax = 7 * time.Second
	quiet.Clocks.JumpMax, quiet.Clocks.JumpLen, quiet.Clocks.Strobe = 3*time.Second, time.Second, time.Millisecond
	quiet.Store, quiet.LockDelay = "fenced", 0
	got, err := runner.Run(quiet, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.TraceHash != ref.TraceHash {
		t.Errorf("unused pause and jump parameters changed the run: %s, was %s", got.TraceHash, ref.TraceHash)
	}
	crashes := func(s runner.Spec) []int64 {
		var at []int64
		obs := observerFunc(func(r *runner.TraceRec) {
			if r.Kind == runner.TraceCrash {
				at = append(at, r.T)
			}
		})
		if _, err := runner.Run(s, runner.Options{Observers: []runner.Observer{obs}}); err != nil {
			t.Fatal(err)
		}
		return at
	}
	paused := base
	paused.Faults.PauseRate = 3
	a, b := crashes(base), crashes(paused)
	if len(a) == 0 || len(a) != len(b) || a[0] != b[0] {
		t.Errorf("crashes at %v without pauses, %v with", a, b)
	}
}

type observerFunc func(r *runner.TraceRec)

func (f observerFunc) Observe(r *runner.TraceRec) { f(r) }

// A clock-jump episode steps a clock by at most clock-jump-max and steps
// it back at its end: a bump once, a strobe every period.
func TestClockJumpShapes(t *testing.T) {
	for _, strobe := range []time.Duration{0, 100 * time.Millisecond} {
		s := centralSpec()
		s.Clocks.Jumps = 4
		s.Clocks.JumpMax = 500 * time.Millisecond
		s.Clocks.JumpLen = time.Second
		s.Clocks.Strobe = strobe
		var offs = map[algorithms.NodeID][]int64{}
		var times = map[algorithms.NodeID][]int64{}
		obs := observerFunc(func(r *runner.TraceRec) {
			if r.Kind == runner.TraceClock {
				offs[r.Node] = append(offs[r.Node], r.X)
				times[r.Node] = append(times[r.Node], r.T)
			}
		})
		res, err := runner.Run(s, runner.Options{Observers: []runner.Observer{obs}})
		if err != nil {
			t.Fatal(err)
		}
		if res.ClockJumps == 0 {
			t.Fatalf("strobe %v: no clock jumps", strobe)
		}
		steps := 0
		for n, o := range offs {
			for i := 1; i < len(o); i++ {
				d := o[i] - o[i-1]
				if d == 0 || d > int64(s.Clocks.JumpMax) || -d > int64(s.Clocks.JumpMax) {
					t.Errorf("strobe %v: node %s steps by %v", strobe, n, time.Duration(d))
				}
				if o[i] != 0 && o[i-1] != 0 {
					t.Errorf("strobe %v: node %s stepped from one jump to another without coming back", strobe, n)
				}
				if strobe > 0 && o[i] == 0 && times[n][i]-times[n][i-1] > int64(strobe) {
					t.Errorf("strobe %v: node %s stayed off for %v", strobe, n, time.Duration(times[n][i]-times[n][i-1]))
				}
				steps++
			}
		}
		if strobe > 0 && steps < 4*res.ClockJumps {
			t.Errorf("strobe: %d steps in %d episodes", steps, res.ClockJumps)
		}
	}
}

// Every scenario command the fault-kind table names is one the scenario
// language has.
func TestScenarioHasEveryFaultCommand(t *testing.T) {
	for cmd, kind := range faults.ScenarioKinds() {
		rp := &replayer{w: io.Discard, spec: scenarioSpec()}
		if err := rp.boot(); err != nil {
			t.Fatal(err)
		}
		if err := rp.exec([]string{cmd}); err != nil && strings.Contains(err.Error(), "unknown command") {
			t.Errorf("kind %s: %v", kind, err)
		}
	}
}
