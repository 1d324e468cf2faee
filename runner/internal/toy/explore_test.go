package toy

import (
	"math/rand/v2"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/algorithms/explorabletest"
)

// TestExplorable runs the Explorable contract on every variant of the toy.
func TestExplorable(t *testing.T) {
	for _, tc := range variants {
		t.Run(tc.name, func(t *testing.T) {
			p := Spec(tc.name).Params
			p.MaxRounds = 3
			p.Backoff = 50 * time.Millisecond // exercise the random source too
			explorabletest.Run(t, &explorabletest.Setup{
				Acceptors: 1, Proposers: 3, Params: p, Resources: 2,
				TimerKinds: []uint8{toyTimerServer, toyTimerTimeout, toyTimerRetry, toyTimerExpire},
				New: func(id algorithms.NodeID, cl algorithms.Cluster, restarts uint16, rec []algorithms.Record, r *rand.Rand) (algorithms.Explorable, error) {
					return newNode(algorithms.Config{ID: id, Cluster: cl, Params: p, Rand: r, Restarts: restarts, Recovered: rec}, tc.fault), nil
				},
			})
		})
	}
}

// TestStateCoversFields fails when a field is added to the toy's state
// without a decision on how Clone copies it and AppendState encodes it.
func TestStateCoversFields(t *testing.T) {
	explorabletest.Fields(t, toyNode{}, "quietUntil", "cfg", "fault", "grants", "reqs")
	explorabletest.Fields(t, toyGrant{}, "owner", "ballot", "until")
	explorabletest.Fields(t, toyReq{}, "wanting", "holding", "ballot", "held", "round", "tries", "sentAt", "until")
}
