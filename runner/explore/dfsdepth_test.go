package explore

import (
	"context"
	"testing"

	"leaselab/algorithms"
)

// TestDepthFirstSameSpace: without a depth bound, the depth-first search
// reaches exactly the states the breadth-first one does (the same
// transitions, reductions and pending bound) on spaces both exhaust; with
// one, exactly those breadth first reaches within it (a state met again
// nearer the root is expanded again).
func TestDepthFirstSameSpace(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
	}{
		{"paxoslease one input", func(c *Config) { c.Inputs = 1 }},
		{"naive-undo, one acceptor", func(c *Config) { c.Algo, c.Acceptors, c.Crashes = "naive-undo", 1, 0 }},
		{"naive one acceptor, no pending bound", func(c *Config) { c.Algo, c.Acceptors, c.Inputs, c.MaxPending = "naive", 1, 2, 0 }},
		{"paxoslease one input, depth 6", func(c *Config) { c.Inputs, c.MaxDepth = 1, 6 }},
		{"naive one acceptor, depth 9", func(c *Config) { c.Algo, c.Acceptors, c.Inputs, c.MaxDepth = "naive", 1, 2, 9 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Workers = 1
			tc.set(&c)
			bfs, err := Explore(c)
			if err != nil {
				t.Fatal(err)
			}
			c.Strategy = "dfs"
			dfs, err := Explore(c)
			if err != nil {
				t.Fatal(err)
			}
			if bfs.Violations+dfs.Violations != 0 || bfs.Stopped != dfs.Stopped {
				t.Fatalf("want both stopped alike without a violation: bfs %s %+v, dfs %s %+v", bfs.Stopped, bfs, dfs.Stopped, dfs)
			}
			if c.MaxDepth == 0 && !dfs.Exhausted {
				t.Fatalf("unbounded: dfs stopped %s", dfs.Stopped)
			}
			if bfs.States != dfs.States || bfs.Constrained == 0 != (dfs.Constrained == 0) {
				t.Fatalf("breadth first %d states (%d constrained), depth first %d (%d)", bfs.States, bfs.Constrained, dfs.States, dfs.Constrained)
			}
			t.Logf("%d states, stopped %s, depth bfs %d dfs %d", dfs.States, dfs.Stopped, bfs.MaxDepth, dfs.MaxDepth)
		})
	}
}

// TestDepthFirstFinds: within a depth bound the depth-first search finds
// what breadth first does, and its counterexample (not a shortest one)
// replays to the same violation; a bound below the shortest
// counterexample finds nothing and says the space was cut there.
func TestDepthFirstFinds(t *testing.T) {
	c := DefaultConfig()
	c.Algo, c.Ablate = "fatlease", algorithms.Ablations{"reused-ballots"}
	c.Acceptors, c.Proposers, c.Crashes, c.Inputs, c.MaxPending = 1, 2, 0, 4, 0
	bfs, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	short := bfs.CounterexampleDepth
	if bfs.Violations == 0 || short < 2 {
		t.Fatalf("breadth first: %+v", bfs)
	}
	c.Strategy, c.MaxDepth = "dfs", short
	res, err := Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Violations == 0 || res.CounterexampleDepth > c.MaxDepth || res.CounterexampleDepth < short {
		t.Fatalf("bound %d (the shortest is %d): %+v", c.MaxDepth, short, res)
	}
	sameViolation(t, res, replay(t, res.Scenario))
	c.MaxDepth = short - 1
	res, err = Explore(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Violations != 0 || res.Exhausted || res.Stopped != StopMaxDepth || res.MaxDepth != short-1 {
		t.Fatalf("below the shortest counterexample: %s %+v", res.Stopped, res)
	}
}

// TestDepthFirstStops: a cancelled context and MaxStates stop a
// depth-first search, not exhausted.
func TestDepthFirstStops(t *testing.T) {
	c := DefaultConfig()
	c.Inputs, c.Strategy = 3, "dfs"
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := ExploreContext(ctx, c)
	if err != nil || res.Stopped != StopInterrupted || res.Exhausted || res.States > 2048 {
		t.Fatalf("cancelled: %v %s %+v", err, res.Stopped, res)
	}
	c.MaxStates = 1000
	if res, err = Explore(c); err != nil || res.States != 1000 || res.Stopped != StopMaxStates {
		t.Fatalf("%v %s %+v", err, res.Stopped, res)
	}
}
