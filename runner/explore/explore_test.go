package explore

import (
	"strings"
	"testing"

	"leaselab/algorithms"
	"leaselab/runner"
	_ "leaselab/runner/internal/toy" // test-lock and its planted faults
	"leaselab/runner/sim"
)

func toyConfig(algo string) Config {
	c := DefaultConfig()
	c.Algo = algo
	c.Acceptors, c.Proposers = 1, 3
	c.Inputs, c.Crashes, c.Drops, c.Dups = 2, 1, 1, 1
	c.Workers = 2
	return c
}

// replay runs a counterexample through the scenario interpreter, fails
// on a failed expectation, and returns the violations it reports.
func replay(t *testing.T, sc string) []runner.Violation {
	t.Helper()
	var out strings.Builder
	rr, err := sim.Replay(strings.NewReader(sc), &out)
	if err != nil {
		t.Fatalf("replay: %v\nscenario:\n%s", err, sc)
	}
	if len(rr.Failed) > 0 {
		t.Fatalf("replay: failed expectations %v\nscenario:\n%s\ntrace:\n%s", rr.Failed, sc, out.String())
	}
	return rr.Violations
}

// sameViolation checks that the replay found the explorer's violation:
// the same resource and the same two owners.
func sameViolation(t *testing.T, res Result, vs []runner.Violation) {
	t.Helper()
	if len(vs) == 0 {
		t.Fatalf("the counterexample replays without a violation:\n%s", res.Scenario)
	}
	f := res.First
	for _, v := range vs {
		if v.Resource == f.Resource && (v.Owners == f.Owners || v.Owners == [2]algorithms.NodeID{f.Owners[1], f.Owners[0]}) {
			return
		}
	}
	t.Fatalf("replay found %+v, the explorer %+v\n%s", vs, *f, res.Scenario)
}

func TestExhaustsCorrectToy(t *testing.T) {
	res, err := Explore(toyConfig("test-lock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if !res.Exhausted || res.Violations != 0 || res.States < 100 {
		t.Fatalf("want an exhausted search of more than 100 states without violations, got %+v", res)
	}
}

func TestFindsPlantedBugs(t *testing.T) {
	for _, algo := range []string{"test-double-grant", "test-amnesia"} {
		t.Run(algo, func(t *testing.T) {
			res, err := Explore(toyConfig(algo))
			if err != nil {
				t.Fatal(err)
			}
			if res.Violations == 0 || res.Scenario == "" {
				t.Fatalf("no violation found: %+v", res)
			}
			t.Logf("depth %d, %d states\n%s", res.CounterexampleDepth, res.States, res.Scenario)
			sameViolation(t, res, replay(t, res.Scenario))
		})
	}
}

func TestWorkerCountIndependence(t *testing.T) {
	for _, algo := range []string{"test-lock", "test-amnesia"} {
		var first Result
		for i, w := range []int{1, 2, 5} {
			c := toyConfig(algo)
			c.Workers = w
			res, err := Explore(c)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = res
				continue
			}
			if res.States != first.States || res.Transitions != first.Transitions || res.Scenario != first.Scenario || res.Violations != first.Violations {
				t.Fatalf("%s: %d workers: states %d transitions %d violations %d; 1 worker: %d %d %d (or the scenario differs)",
					algo, w, res.States, res.Transitions, res.Violations, first.States, first.Transitions, first.Violations)
			}
		}
	}
}

// BenchmarkExploreToy measures states per second on the toy lock (the real
// algorithms' figures are in the README, from 'leaselab explore').
func BenchmarkExploreToy(b *testing.B) {
	c := toyConfig("test-lock")
	c.Workers = 1
	c.Inputs = 3
	var states int64
	for b.Loop() {
		res, err := Explore(c)
		if err != nil {
			b.Fatal(err)
		}
		states += res.States
	}
	b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
}

// TestTimeStepFindsBetweenDeadlines: test-early-free misbehaves only for
// a request delivered in the last sixteenth of a grant, where no timer of
// the toy is due. Time that moves only to deadlines never delivers there
// (the search exhausts without a violation); a time step short of the
// next deadline does, and the counterexample replays.
func TestTimeStepFindsBetweenDeadlines(t *testing.T) {
	c := toyConfig("test-early-free")
	c.Crashes, c.Drops, c.Dups = 0, 0, 0
	old, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if !old.Exhausted || old.Violations != 0 || old.TimeModel.Instants != "deadlines" {
		t.Fatalf("deadlines only: want exhausted without a violation, got %+v", old)
	}
	c.TimeStep = c.Params.LeaseSpan / 20
	res, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Violations == 0 || res.TimeModel.Instants != "deadlines+step" {
		t.Fatalf("with a time step: no violation found: %+v", res)
	}
	t.Logf("deadlines only: %d states; with --time-step %v: violation at depth %d after %d states\n%s", old.States, c.TimeStep, res.CounterexampleDepth, res.States, res.Scenario)
	sameViolation(t, res, replay(t, res.Scenario))
}
