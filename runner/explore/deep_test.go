package explore

import (
	"testing"

	"leaselab/algorithms"
)

// TestDepthFirstSameSpace: without a depth bound, the depth-first search
// reaches exactly the states the breadth-first one does (the same
// transitions, reductions and --max-pending rule), on spaces both
// exhaust.
func TestDepthFirstSameSpace(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
	}{
		{"paxoslease one input", func(c *Config) { c.Inputs = 1 }},
		{"naive-undo, one acceptor", func(c *Config) { c.Algo, c.Acceptors, c.Crashes = "naive-undo", 1, 0 }},
		{"naive one acceptor", func(c *Config) { c.Algo, c.Acceptors, c.Inputs = "naive", 1, 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Workers = 1
			tc.set(&c)
			bfs, err := Explore(c)
			if err != nil {
				t.Fatal(err)
			}
			c.DepthFirst = true
			dfs, err := Explore(c)
			if err != nil {
				t.Fatal(err)
			}
			if !bfs.Exhausted || !dfs.Exhausted || bfs.Violations+dfs.Violations != 0 {
				t.Fatalf("want both exhausted without a violation: bfs %+v, dfs %+v", bfs, dfs)
			}
			if bfs.States != dfs.States || bfs.Constrained == 0 != (dfs.Constrained == 0) {
				t.Fatalf("breadth first %d states (%d constrained), depth first %d (%d)", bfs.States, bfs.Constrained, dfs.States, dfs.Constrained)
			}
			// Breadth first counts the last level, which found nothing new.
			if dfs.MaxDepth < bfs.MaxDepth-1 {
				t.Fatalf("depth first reached depth %d, breadth first %d", dfs.MaxDepth, bfs.MaxDepth)
			}
		})
	}
}

// TestDepthFirstFinds: the depth-first search finds what the
// breadth-first one does, within a depth bound, and its counterexample
// (not a shortest one) replays to the same violation; a bound below the
// counterexample's depth finds nothing and says the space was not
// exhausted.
func TestDepthFirstFinds(t *testing.T) {
	c := DefaultConfig()
	c.Algo, c.Ablate = "fatlease", algorithms.Ablations{"reused-ballots"}
	c.Acceptors, c.Proposers, c.Crashes, c.Inputs, c.MaxPending = 1, 2, 0, 4, 0
	c.DepthFirst, c.MaxDepth = true, 12
	res, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Violations == 0 {
		t.Fatalf("nothing found: %+v", res)
	}
	if res.CounterexampleDepth > c.MaxDepth || res.CounterexampleDepth < 12 {
		t.Fatalf("counterexample of depth %d, bound %d (the shortest is 12)", res.CounterexampleDepth, c.MaxDepth)
	}
	sameViolation(t, res, replay(t, res.Scenario))
	c.MaxDepth = 11
	res, err = Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Violations != 0 || res.Exhausted || res.MaxDepth != 11 {
		t.Fatalf("below the shortest counterexample: %+v", res)
	}
}

// TestDepthFirstStop: Stop is asked as the search goes, and MaxStates
// caps it.
func TestDepthFirstStop(t *testing.T) {
	c := DefaultConfig()
	c.Inputs, c.DepthFirst = 3, true
	asked := 0
	c.Stop = func(p Progress) bool { asked++; return true }
	res, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 || res.Exhausted || res.States != stopEvery {
		t.Fatalf("asked %d times, %+v", asked, res)
	}
	c.Stop, c.MaxStates = nil, 1000
	if res, err = Explore(c); err != nil || res.States != 1000 || res.Exhausted {
		t.Fatalf("%v %+v", err, res)
	}
}
