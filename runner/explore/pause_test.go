package explore

import (
	"strings"
	"testing"

	"leaselab/runner/faults"
	"leaselab/runner/sim"
)

// TestPauseDoubleBelief: with a pause, the explorer reaches a state that
// no search without pauses has: a holder paused past its lease believes
// it still holds while another node holds (the double-belief meter's
// situation), with no violation (two holders among running nodes); the
// path to it replays in the simulator to double_belief_ms > 0 and no
// violation. Without pauses the same space has none.
func TestPauseDoubleBelief(t *testing.T) {
	c := DefaultConfig()
	c.Acceptors, c.Proposers, c.Inputs, c.Crashes, c.MaxPending = 1, 2, 2, 0, 0
	c.Pauses = 1
	res, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exhausted || res.Violations != 0 {
		t.Fatalf("want exhausted without violations: %+v\n%s", res, res.Scenario)
	}
	if res.DoubleBelief == 0 || res.BeliefScenario == "" {
		t.Fatalf("no double belief found with a pause: %+v", res)
	}
	if !strings.Contains(res.BeliefScenario, "\npause n") {
		t.Fatalf("the witness has no pause:\n%s", res.BeliefScenario)
	}
	var out strings.Builder
	rr, err := sim.Replay(strings.NewReader(res.BeliefScenario), &out)
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, res.BeliefScenario)
	}
	if len(rr.Violations) != 0 || len(rr.Failed) != 0 || rr.DoubleBeliefMS <= 0 || rr.Pauses != 1 {
		t.Fatalf("replay: violations %v, failed %v, double belief %g ms, pauses %d\n%s",
			rr.Violations, rr.Failed, rr.DoubleBeliefMS, rr.Pauses, res.BeliefScenario+"\ntrace:\n"+out.String())
	}
	t.Logf("%d states, %d of double belief, the first at depth %d:\n%s", res.States, res.DoubleBelief, res.BeliefDepth, res.BeliefScenario)
	c.Pauses = 0
	none, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if none.DoubleBelief != 0 || none.Violations != 0 {
		t.Fatalf("without pauses: %+v", none)
	}
}

// TestFaultBudgetsFromTable: the explorer has a budget for every fault
// kind the fault-kind table gives one (faults.Kind.Budget), and no other.
func TestFaultBudgetsFromTable(t *testing.T) {
	var c Config
	have := c.FaultBudgets()
	for _, k := range faults.Kinds() {
		if k.Budget == "" {
			continue
		}
		if have[k.Budget] == nil {
			t.Errorf("fault kind %s: the explorer has no budget %q", k.Name, k.Budget)
		}
		delete(have, k.Budget)
	}
	for b := range have {
		t.Errorf("explorer budget %q belongs to no fault kind", b)
	}
}

// TestPauseStrategiesAgree: with pauses, a search resumed from a
// checkpoint and one with another number of workers count the same
// states and double-belief states and rebuild the same witness as one in
// go; depth first exhausts the same space, with a witness that replays.
func TestPauseStrategiesAgree(t *testing.T) {
	c := DefaultConfig()
	c.Acceptors, c.Proposers, c.Inputs, c.Crashes, c.MaxPending = 1, 2, 2, 0, 0
	c.Pauses, c.Workers = 1, 2
	whole, err := Explore(c)
	if err != nil || whole.DoubleBelief == 0 {
		t.Fatalf("%v %+v", err, whole)
	}
	part := c
	part.Workers = 1
	part.Checkpoint = t.TempDir()
	part.MaxStates = whole.States / 2
	if res, err := Explore(part); err != nil || res.Stopped != StopMaxStates {
		t.Fatalf("%v %+v", err, res)
	}
	part.MaxStates = 0
	res, err := Explore(part)
	if err != nil {
		t.Fatal(err)
	}
	if res.States != whole.States || res.DoubleBelief != whole.DoubleBelief || res.BeliefScenario != whole.BeliefScenario {
		t.Fatalf("resumed with 1 worker: %d states, %d double belief; in one go with 2: %d, %d (or the witnesses differ)",
			res.States, res.DoubleBelief, whole.States, whole.DoubleBelief)
	}
	c.Strategy = "dfs"
	d, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if d.States != whole.States || d.DoubleBelief != whole.DoubleBelief || !d.Exhausted {
		t.Fatalf("dfs: %d states, %d double belief; bfs: %d, %d", d.States, d.DoubleBelief, whole.States, whole.DoubleBelief)
	}
	var out strings.Builder
	if rr, err := sim.Replay(strings.NewReader(d.BeliefScenario), &out); err != nil || len(rr.Failed) > 0 || rr.DoubleBeliefMS <= 0 {
		t.Fatalf("dfs witness: %v %+v\n%s", err, rr, d.BeliefScenario)
	}
}
