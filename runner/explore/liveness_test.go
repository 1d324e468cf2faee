package explore

import (
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner/internal/planted"
	"leaselab/runner/sim"
)

// livenessConfig is a small space: one acceptor, one proposer, acquires
// only.
func livenessConfig(algo string, inputs int) Config {
	c := DefaultConfig()
	c.Algo, c.Liveness = algo, true
	c.Acceptors, c.Proposers, c.Inputs, c.Crashes = 1, 1, inputs, 0
	c.InputKinds = []algorithms.InputKind{algorithms.Acquire}
	c.Workers = 2
	return c
}

// livenessSearch explores livenessConfig(algo, inputs) with strategy
// (random: 200 walks), and returns the configuration with the result.
func livenessSearch(t *testing.T, algo string, inputs int, strategy string) (Config, Result) {
	t.Helper()
	c := livenessConfig(algo, inputs)
	c.Strategy, c.Walks = strategy, 200
	res, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, res
}

// replayFailsLastLine replays a liveness witness: its last line ("expect
// unanswered 0") fails, and the one before, with the explorer's count of
// requests pending, holds.
func replayFailsLastLine(t *testing.T, sc string) {
	t.Helper()
	replayFailsOnly(t, sc, "expect unanswered 0")
}

// replayFailsOnly replays sc and requires exactly one expectation to
// fail, the line want.
func replayFailsOnly(t *testing.T, sc, want string) {
	t.Helper()
	var out strings.Builder
	rr, err := sim.Replay(strings.NewReader(sc), &out)
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, sc)
	}
	if len(rr.Failed) != 1 || !strings.Contains(rr.Failed[0], want) {
		t.Fatalf("replay: failed %q, want only %q\n%s\ntrace:\n%s", rr.Failed, want, sc, out.String())
	}
}

// firstRoot prepares c and builds its first initial state, with the
// exec that built it.
func firstRoot(t *testing.T, c Config) (*config, *exec, *world) {
	t.Helper()
	cf, err := prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	x := cf.newExec()
	w, err := cf.root(x, 0)
	if err != nil {
		t.Fatal(err)
	}
	return cf, x, w
}

// cleanPaxosLease explores c with PaxosLease itself, which answers every
// request: the same space as a planted bug's, with no failure.
func cleanPaxosLease(t *testing.T, c Config) Result {
	t.Helper()
	c.Algo = "paxoslease"
	r, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Unanswered != 0 {
		t.Fatalf("paxoslease: %d unanswered:\n%s", r.Unanswered, r.UnansweredScenario)
	}
	return r
}

// TestLivenessFindsPlantedBugs: each strategy finds a planted request
// that is never answered, and the witness replays to the same: the
// request still pending after an hour with nothing due, so that replay
// fails. The same space of PaxosLease itself has states at rest and none
// stuck: the verdict can fail, and does only where the bug is.
func TestLivenessFindsPlantedBugs(t *testing.T) {
	for _, tc := range []struct {
		algo     string
		inputs   int
		strategy string
	}{
		{planted.DeafHolder, 2, "bfs"},
		{planted.DeafHolder, 2, "dfs"},
		{planted.DeafHolder, 2, "random"},
		{planted.Forgetful, 4, "bfs"},
	} {
		t.Run(tc.algo+"/"+tc.strategy, func(t *testing.T) {
			c, res := livenessSearch(t, tc.algo, tc.inputs, tc.strategy)
			if res.Violations != 0 {
				t.Fatalf("a safety violation in a bug that only does less:\n%s", res.Scenario)
			}
			if res.Unanswered == 0 || res.UnansweredScenario == "" || !res.Liveness {
				t.Fatalf("the planted bug was not found: %d states, %d at rest, %d unanswered", res.States, res.RestStates, res.Unanswered)
			}
			replayFailsLastLine(t, res.UnansweredScenario)
			t.Logf("%s: %d states, %d at rest, %d unanswered, first at depth %d", tc.strategy, res.States, res.RestStates, res.Unanswered, res.UnansweredDepth)

			if clean := cleanPaxosLease(t, c); clean.RestStates == 0 {
				t.Fatalf("paxoslease: no state at rest: it judged nothing")
			}
		})
	}
}

// TestLivenessOffJudgesNothing: without Liveness no state is judged, and
// the search is the one it always was (the same states).
func TestLivenessOffJudgesNothing(t *testing.T) {
	c := livenessConfig(planted.DeafHolder, 2)
	c.Liveness = false
	res, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Liveness || res.RestStates != 0 || res.Unanswered != 0 || res.UnansweredScenario != "" {
		t.Fatalf("judged without Liveness: %+v", res)
	}
}

// TestLivenessKeepsIgnoredAcquire: the ignored-input reduction skips an
// input the node ignores, which is exactly the deaf holder's bug; with
// Liveness an input that leaves a request pending is a transition. So
// does a release that withdraws a request (no answer is due after it).
func TestLivenessKeepsIgnoredAcquire(t *testing.T) {
	c := livenessConfig(planted.DeafHolder, 3)
	c.InputKinds = []algorithms.InputKind{algorithms.Acquire, algorithms.Relinquish}
	cf, x, w := firstRoot(t, c)
	acq := move{kind: tInput, in: algorithms.Acquire, arg: 0, res: 0}
	rel := move{kind: tInput, in: algorithms.Relinquish, arg: 0, res: 0}
	// Acquire, then deliver and settle until the node holds.
	step := func(p *world, m move) *world {
		t.Helper()
		next := p.clone()
		x.w = next
		if !x.apply(p, m) {
			t.Fatalf("move %+v skipped", m)
		}
		if x.err != nil {
			t.Fatal(x.err)
		}
		return next
	}
	w = step(w, acq)
	for len(w.pending) > 0 {
		w = step(w, move{kind: tDeliver, arg: 0})
	}
	if len(w.holds) != 1 || len(w.asks) != 0 {
		t.Fatalf("after one round: holds %v, asks %v", w.holds, w.asks)
	}
	deaf := step(w, acq) // ignored by the node: kept, with a request pending
	if len(deaf.asks) != 1 {
		t.Fatalf("asks after the ignored acquire: %v", deaf.asks)
	}
	withdrawn := step(deaf, rel)
	if len(withdrawn.asks) != 0 {
		t.Fatalf("asks after the release: %v", withdrawn.asks)
	}
	// Without Liveness the same acquire is the parent again: skipped.
	cf.Liveness = false
	x2 := cf.newExec()
	c2 := w.clone()
	c2.asks = nil
	x2.w = c2
	if x2.apply(w, acq) {
		t.Fatal("without Liveness the ignored acquire was not skipped")
	}
}

// TestLivenessProbeFindsWorkWithoutEnd: a node that works on a request
// for ever (planted.Restless: a timer set again and again, as rounds that
// never end) is never at rest, so only the settle probe finds it; the
// witness ends with the probe's moves (with drifting clocks, first the
// clocks stopping) and replays to the last line failing. PaxosLease (with a proposer-only node beside): every probe
// answers.
func TestLivenessProbeFindsWorkWithoutEnd(t *testing.T) {
	for _, tc := range []struct{ strategy, clocks string }{{"bfs", "exact"}, {"dfs", "exact"}, {"random", "exact"}, {"bfs", "drift"}} {
		t.Run(tc.strategy+"/"+tc.clocks, func(t *testing.T) {
			c := livenessConfig(planted.Restless, 2)
			c.Strategy, c.Clocks, c.Walks = tc.strategy, tc.clocks, 300
			if tc.clocks == "drift" {
				// With drifting clocks true time is state: the node that
				// spins makes the space infinite without a horizon.
				c.Crashes, c.Horizon = 1, 12*time.Second // a node down when its clock stops, too
			}
			res, err := Explore(c)
			if err != nil {
				t.Fatal(err)
			}
			if res.Unanswered == 0 || res.ProbedStates == 0 || res.UnansweredScenario == "" {
				t.Fatalf("not found: %d states, %d at rest, %d probed, %d unanswered", res.States, res.RestStates, res.ProbedStates, res.Unanswered)
			}
			if !strings.Contains(res.UnansweredScenario, "settle probe") {
				t.Fatalf("the witness is not the probe's:\n%s", res.UnansweredScenario)
			}
			if tc.clocks == "drift" && !strings.Contains(res.UnansweredScenario, " rate=0\n") {
				t.Fatalf("drifting clocks, and the probe stopped none:\n%s", res.UnansweredScenario)
			}
			replayFailsLastLine(t, res.UnansweredScenario)
			t.Logf("%d states, %d probed, %d unanswered, first at depth %d", res.States, res.ProbedStates, res.Unanswered, res.UnansweredDepth)

			// Two proposers, so that requests wait on messages in flight
			// (a lone node's own messages arrive at once).
			c.Proposers = 2
			if clean := cleanPaxosLease(t, c); clean.ProbedStates == 0 {
				t.Fatalf("paxoslease: no state probed: it judged nothing")
			}
		})
	}
}

// TestProbeIsSynchronous: the probe restarts a node that is down, moves
// the network in hops that deliver what was in flight in send order, and
// leaves the state it starts from unchanged.
func TestProbeIsSynchronous(t *testing.T) {
	c := DefaultConfig()
	c.Algo, c.Liveness, c.Inputs = "paxoslease", true, 1
	cf, x, w := firstRoot(t, c)
	next := w.clone()
	x.w = next
	x.apply(w, move{kind: tInput, in: algorithms.Acquire, arg: 1, res: 0})
	next2 := next.clone()
	x.w = next2
	x.apply(next, move{kind: tCrash, arg: 2}) // an acceptor down
	if x.err != nil {
		t.Fatal(x.err)
	}
	fingerprint := func(w *world) fp {
		x.w, x.parent, x.cnhSet = w, nil, 0
		return x.fingerprint()
	}
	before := fingerprint(next2)
	var desc strings.Builder
	ran, stuck, err := cf.probe(cf.newExec(), next2, &desc)
	if err != nil || !ran || stuck {
		t.Fatalf("probe: stuck %v, %v\n%s", stuck, err, desc.String())
	}
	if fingerprint(next2) != before {
		t.Fatal("the probe changed the state it started from")
	}
	// The down node restarts first; then a hop delivers what was in
	// flight when it began, in send order; what that sends waits for the
	// next hop.
	lines := strings.Split(strings.TrimSpace(desc.String()), "\n")
	want := []string{"restart n2", "advance 100ms", "deliver 1 ", "deliver 2 ", "advance 100ms", "deliver 3 "}
	for i, w := range want {
		if i >= len(lines) || !strings.HasPrefix(lines[i], w) {
			t.Fatalf("move %d: want %q; moves:\n%s", i, w, desc.String())
		}
	}
}

// TestLivenessFromPrefix: the requests a --from prefix makes are the
// search's too: with no input left to the search, the deaf holder's
// second acquire, made in the prefix, is found unanswered.
func TestLivenessFromPrefix(t *testing.T) {
	c := livenessConfig(planted.DeafHolder, 0)
	c.From = "algo " + planted.DeafHolder + "\ncluster acceptors=1 proposers=1\nstart\nacquire n0 r0\nacquire n0 r0\n"
	c.FromName = "prefix"
	res, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Unanswered == 0 {
		t.Fatalf("the prefix's request was not judged: %d states, %d at rest", res.States, res.RestStates)
	}
	replayFailsLastLine(t, res.UnansweredScenario)
}

// TestLivenessFindsLateAnswers: a holder that answers an Acquire of its
// lease only when a round ends (planted test-late-holder) answers every
// request, so no state at rest and no probe fails; the late-answer
// judgement finds it with each strategy, in a transition, and the witness
// replays to a request pending right after that Acquire (its last line
// fails, nothing before it). PaxosLease in the same space has none, and
// without Liveness nothing is judged.
func TestLivenessFindsLateAnswers(t *testing.T) {
	for _, strategy := range []string{"bfs", "dfs", "random"} {
		t.Run(strategy, func(t *testing.T) {
			c, res := livenessSearch(t, planted.LateHolder, 2, strategy)
			if res.Violations != 0 {
				t.Fatalf("a safety violation in a bug that only answers late:\n%s", res.Scenario)
			}
			if res.LateAnswers == 0 || res.Unanswered != res.LateAnswers || res.HolderAsks < res.LateAnswers {
				t.Fatalf("want late answers only: %d unanswered, %d late (%d states, %d at rest, %d probed)",
					res.Unanswered, res.LateAnswers, res.States, res.RestStates, res.ProbedStates)
			}
			sc := res.UnansweredScenario
			lines := strings.Split(strings.TrimSpace(sc), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "expect unanswered ") {
				t.Fatalf("witness ends %q\n%s", last, sc)
			}
			replayFailsOnly(t, sc, last)
			t.Logf("%s: %d states, %d late answers, first at depth %d", strategy, res.States, res.LateAnswers, res.UnansweredDepth)

			if clean := cleanPaxosLease(t, c); clean.LateAnswers != 0 || clean.HolderAsks == 0 {
				t.Fatalf("paxoslease: %d late answers of %d acquires at a holder: want 0 of some", clean.LateAnswers, clean.HolderAsks)
			}
			c.Liveness = false
			if off, err := Explore(c); err != nil || off.LateAnswers != 0 || off.Unanswered != 0 {
				t.Fatalf("judged without Liveness: %+v, %v", off, err)
			}
		})
	}
}
