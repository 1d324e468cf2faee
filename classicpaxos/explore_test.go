package classicpaxos

import (
	"math/rand/v2"
	"testing"

	"leaselab/algorithms"
	"leaselab/algorithms/explorabletest"
)

// TestExplorable runs the contract checks on classic Paxos as registered:
// durable acceptors, restarts that recover their records, and the fsync
// ablation (records not synced before the answer).
func TestExplorable(t *testing.T) {
	for _, ablate := range []algorithms.Ablations{nil, {"fsync"}} {
		a := Algorithm()
		p := algorithms.DefaultParams()
		s := &explorabletest.Setup{
			Acceptors: 3, Proposers: 3, Params: p, Resources: 2,
			// The engine's timer kinds (phase, retry, hold, join) are 1..4.
			TimerKinds: []uint8{1, 2, 3, 4},
			New: func(id algorithms.NodeID, cl algorithms.Cluster, restarts uint16, rec []algorithms.Record, r *rand.Rand) (algorithms.Explorable, error) {
				n, err := a.New(algorithms.Config{ID: id, Cluster: cl, Params: p, Ablations: ablate, Rand: r, Restarts: restarts, Recovered: rec})
				if err != nil {
					return nil, err
				}
				e, ok := n.(algorithms.Explorable)
				if !ok {
					t.Fatalf("classicpaxos node %T is not algorithms.Explorable", n)
				}
				return e, nil
			},
		}
		name := "classicpaxos"
		if len(ablate) > 0 {
			name = ablate[0]
		}
		t.Run(name, func(t *testing.T) { explorabletest.Run(t, s) })
	}
}
