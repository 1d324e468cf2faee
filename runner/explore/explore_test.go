package explore

import (
	"encoding/json"
	"strings"
	"testing"

	"leaselab/algorithms"
	"leaselab/algorithms/example"
	"leaselab/runner"
	"leaselab/runner/sim"
)

// centralConfig is a small search of the example lease server, "central"
// (node 0 serves three clients), with the ablations given: its planted
// faults (example.AblateGrantOnce, ...) show the explorer catching a
// broken rule.
func centralConfig(ablate ...string) Config {
	c := DefaultConfig()
	c.Algo = example.Name
	c.Ablate = algorithms.Ablations(ablate)
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

func TestExhaustsCentral(t *testing.T) {
	res, err := Explore(centralConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if !res.Exhausted || res.Violations != 0 || res.States < 100 {
		t.Fatalf("want an exhausted search of more than 100 states without violations, got %+v", res)
	}
	checkEveryKey(t, res)
}

// checkEveryKey checks the project's one-schema rule on a search that
// found nothing and took no walks: the keys that are empty in it are
// still in its JSON, as zero, "", null or [].
func checkEveryKey(t *testing.T, res Result) {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"walks": 0.0, "resumed": false, "checkpoint": "", "first_violation": nil,
		"double_belief_states": 0.0, "double_belief_depth": 0.0, "counterexample": ""}
	for k, v := range want {
		got, ok := m[k]
		if !ok || got != v {
			t.Errorf("key %q: got %v (present %v), want %v", k, got, ok, v)
		}
	}
	if w, ok := m["warnings"].([]any); !ok || len(w) != 0 {
		t.Errorf("warnings: got %#v, want []", m["warnings"])
	}
	if tm, ok := m["time_model"].(map[string]any); !ok || tm["time_step_ns"] != 0.0 {
		t.Errorf("time_model.time_step_ns missing: %v", m["time_model"])
	}
}

// The double grant and the server that forgets its grants across a
// restart (the restart-wait ablation) are found, and replay.
func TestFindsPlantedBugs(t *testing.T) {
	for _, ablate := range []string{example.AblateGrantOnce, example.AblateRestartWait} {
		t.Run(ablate, func(t *testing.T) {
			res, err := Explore(centralConfig(ablate))
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
	for _, ablate := range []string{"", example.AblateRestartWait} {
		var first Result
		for i, w := range []int{1, 2, 5} {
			c := centralConfig()
			if ablate != "" {
				c.Ablate = algorithms.Ablations{ablate}
			}
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
				t.Fatalf("central %s: %d workers: states %d transitions %d violations %d; 1 worker: %d %d %d (or the scenario differs)",
					ablate, w, res.States, res.Transitions, res.Violations, first.States, first.Transitions, first.Violations)
			}
		}
	}
}

// BenchmarkExploreCentral measures states per second on central (the
// other algorithms' figures are in DESIGN.md, from 'leaselab explore').
func BenchmarkExploreCentral(b *testing.B) {
	c := centralConfig()
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

// TestTimeStepFindsBetweenDeadlines: central with full-grant ablated
// misbehaves only for an ask delivered in the last sixteenth of a grant,
// where no timer of central is due. Time that moves only to deadlines never delivers there
// (the search exhausts without a violation); a time step short of the
// next deadline does, and the counterexample replays.
func TestTimeStepFindsBetweenDeadlines(t *testing.T) {
	c := centralConfig(example.AblateFullGrant)
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
