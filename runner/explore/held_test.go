package explore

import (
	"testing"

	"leaselab/algorithms"
)

// Every strategy counts the states in which a lease is held and the nodes
// that held one: a search that hands out leases of two nodes says so, and
// one whose clients only release holds none (verify fails such a search:
// its "no violation" judged nothing).
func TestHeldStatesAndHolders(t *testing.T) {
	for _, tc := range []struct {
		strategy string
		kinds    []algorithms.InputKind
		holders  int
	}{
		{"bfs", nil, 2},
		{"dfs", nil, 2},
		{"random", nil, 2},
		{"bfs", []algorithms.InputKind{algorithms.Relinquish}, 0},
		{"random", []algorithms.InputKind{algorithms.Relinquish}, 0},
	} {
		c := DefaultConfig()
		c.Algo = "paxoslease"
		c.Acceptors, c.Proposers, c.Inputs, c.Crashes = 1, 2, 3, 0
		c.Strategy, c.InputKinds, c.Workers = tc.strategy, tc.kinds, 2
		c.MaxStates, c.Walks = 20000, 2000
		if tc.strategy == "dfs" {
			c.MaxDepth = 12
		}
		r, err := Explore(c)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.strategy, tc.kinds, err)
		}
		if r.Holders != tc.holders || (r.HeldStates > 0) != (tc.holders > 0) || r.HeldStates > r.States {
			t.Errorf("%s %v: %d of %d states held, by %d nodes; want %d nodes", tc.strategy, tc.kinds, r.HeldStates, r.States, r.Holders, tc.holders)
		}
	}
}
