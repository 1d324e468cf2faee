package explore

import (
	"context"
	"strings"
	"testing"

	"leaselab/algorithms/example"
)

// TestCheckpointResume: a search stopped by max-states, by its context and
// by the memory cap, each saved and resumed (the last with the cap lifted),
// ends exactly as the same search run in one go.
func TestCheckpointResume(t *testing.T) {
	c := centralConfig()
	whole, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if !whole.Exhausted {
		t.Fatalf("%+v", whole)
	}
	dir := t.TempDir()
	stops := 0
	// Stop three ways, resuming after each.
	part := c
	part.Checkpoint = dir
	part.MaxStates = whole.States / 3
	res, err := Explore(part)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != StopMaxStates || res.Checkpoint != dir {
		t.Fatalf("want a max-states stop saved in %s, got %+v", dir, res)
	}
	stops++
	part.MaxStates = 0
	ctx, cancel := context.WithCancel(context.Background())
	levels := 0
	part.Progress = func(Progress) {
		if levels++; levels == 3 {
			cancel()
		}
	}
	res, err = ExploreContext(ctx, part)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != StopInterrupted || !res.Resumed {
		t.Fatalf("want an interrupted resumed search, got %+v", res)
	}
	stops++
	part.Progress = nil
	part.MaxMemory = 1 // below anything: stops at its first check
	res, err = Explore(part)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != StopMaxMemory {
		t.Fatalf("want a max-memory stop, got %+v", res)
	}
	stops++
	part.MaxMemory = 0
	res, err = Explore(part)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Resumed || res.Stopped != StopExhausted || res.States != whole.States || res.Transitions != whole.Transitions ||
		res.MaxDepth != whole.MaxDepth || res.Constrained != whole.Constrained {
		t.Fatalf("after %d stops: %+v\nin one go: %+v", stops, res, whole)
	}
	// A finished checkpoint is not searched again.
	if _, err := Explore(part); err == nil || !strings.Contains(err.Error(), "finished") {
		t.Fatalf("resuming a finished search: %v", err)
	}
	// Nor is one of another configuration.
	other := centralConfig()
	other.Inputs++
	other.Checkpoint = t.TempDir()
	other.MaxStates = 50
	if _, err := Explore(other); err != nil {
		t.Fatal(err)
	}
	other.Inputs--
	if _, err := Explore(other); err == nil || !strings.Contains(err.Error(), "another configuration") {
		t.Fatalf("resuming another configuration: %v", err)
	}
}

// TestCheckpointResumeFindsSameViolation: a search stopped before its
// violation and resumed reports the counterexample the search in one go
// reports.
func TestCheckpointResumeFindsSameViolation(t *testing.T) {
	c := centralConfig(example.AblateRestartWait)
	whole, err := Explore(c)
	if err != nil || whole.Violations == 0 {
		t.Fatalf("%v %+v", err, whole)
	}
	c.Checkpoint = t.TempDir()
	c.MaxStates = 100 // levels before the violation's
	if res, err := Explore(c); err != nil || res.Stopped != StopMaxStates {
		t.Fatalf("%v %+v", err, res)
	}
	c.MaxStates = 0
	res, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Scenario != whole.Scenario || res.States != whole.States || res.Violations != whole.Violations {
		t.Fatalf("resumed: %d states, %d violations; in one go: %d, %d (or the scenarios differ)", res.States, res.Violations, whole.States, whole.Violations)
	}
}

// TestStrategiesFindPlantedBugs: depth first and random walks find the
// planted faults too, and their counterexamples replay. Random walks give
// the same counterexample for any number of workers.
func TestStrategiesFindPlantedBugs(t *testing.T) {
	for _, strategy := range []string{"dfs", "random"} {
		for _, ablate := range []string{example.AblateGrantOnce, example.AblateRestartWait} {
			t.Run(strategy+"/"+ablate, func(t *testing.T) {
				c := centralConfig(ablate)
				c.Strategy = strategy
				c.Walks, c.MaxDepth = 20000, 60
				res, err := Explore(c)
				if err != nil {
					t.Fatal(err)
				}
				if res.Violations == 0 || res.Stopped != StopViolation || res.Strategy != strategy {
					t.Fatalf("no violation found: %+v", res)
				}
				t.Logf("depth %d after %d states (%d walks)", res.CounterexampleDepth, res.States, res.Walks)
				sameViolation(t, res, replay(t, res.Scenario))
				if strategy == "random" {
					c.Workers = 1
					one, err := Explore(c)
					if err != nil {
						t.Fatal(err)
					}
					if one.Scenario != res.Scenario {
						t.Fatalf("1 worker and 2 give different counterexamples:\n%s\n%s", one.Scenario, res.Scenario)
					}
				}
			})
		}
	}
}

// TestStrategiesExhaustAlike: depth first visits the states breadth first
// does, when no bound on depth cuts it.
func TestStrategiesExhaustAlike(t *testing.T) {
	c := centralConfig()
	bfs, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	c.Strategy = "dfs"
	dfs, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if dfs.Stopped != StopExhausted || dfs.States != bfs.States {
		t.Fatalf("dfs: %s, %d states; bfs: %d states", dfs.Stopped, dfs.States, bfs.States)
	}
	c.MaxDepth = 3
	if cut, err := Explore(c); err != nil || cut.Stopped != StopMaxDepth || cut.Exhausted {
		t.Fatalf("dfs cut at depth 3: %v %+v", err, cut)
	}
}

// TestFrom: a search from the end of a scenario prefix starts there (its
// budgets untouched by the prefix) and writes the prefix into its
// counterexample, which replays.
func TestFrom(t *testing.T) {
	prefix := strings.Join([]string{
		"algo central",
		"cluster acceptors=1 proposers=3",
		"ablate restart-wait",
		"params response-timeout=10s max-rounds=1 backoff=0s",
		"disk fsync-latency=0s",
		"acquire n1 r0",
		"deliver 1",
		"deliver 2 # the grant",
		"expect holder r0 n1",
	}, "\n")
	c := DefaultConfig()
	c.From, c.FromName = prefix, "prefix.txt"
	c.Inputs, c.Crashes = 1, 1
	c.Workers = 2
	res, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Violations == 0 || res.Algo != example.Name || len(res.Ablate) != 1 || res.Ablate[0] != example.AblateRestartWait || res.Acceptors != 1 || res.Proposers != 3 {
		t.Fatalf("%+v", res)
	}
	if !strings.Contains(res.Scenario, "acquire n1 r0\ndeliver 1\ndeliver 2\n") || strings.Contains(res.Scenario, "expect holder") {
		t.Fatalf("the prefix is not in the counterexample as its commands:\n%s", res.Scenario)
	}
	t.Logf("%d more moves:\n%s", res.CounterexampleDepth, res.Scenario)
	sameViolation(t, res, replay(t, res.Scenario))

	for _, bad := range []string{"repeat 2 advance 1s", "deliver prepare n0->n1", "frobnicate", "acquire n9 r0", "algo central\nacquire n1 r0\nalgo naive"} {
		c.From = bad
		if _, err := Explore(c); err == nil {
			t.Errorf("--from %q: no error", bad)
		}
	}
}
