package example

import (
	"math/rand/v2"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/algorithms/explorabletest"
)

// TestExplorable runs the Explorable contract on central with every rule
// in force and with each ablation (the planted faults included: the
// runner's tests search and clone those nodes too).
func TestExplorable(t *testing.T) {
	ablations := []string{""}
	a, err := algorithms.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, ab := range a.Ablations {
		ablations = append(ablations, ab.Name)
	}
	for _, ab := range ablations {
		t.Run("ablate="+ab, func(t *testing.T) {
			var abl algorithms.Ablations
			if ab != "" {
				abl = algorithms.Ablations{ab}
			}
			p := algorithms.DefaultParams()
			p.LeaseSpan, p.MaxLease = 2*time.Second, 3*time.Second
			p.MaxRounds = 3
			p.Backoff = 50 * time.Millisecond // exercise the random source too
			explorabletest.Run(t, &explorabletest.Setup{
				Acceptors: 1, Proposers: 3, Params: p, Resources: 2, TimeTokens: true,
				TimerKinds: []uint8{timerGrantEnd, timerTimeout, timerRetry, timerHoldEnd, timerQuiet},
				New: func(id algorithms.NodeID, cl algorithms.Cluster, restarts uint16, _ []algorithms.Record, r *rand.Rand) (algorithms.Explorable, error) {
					n, err := New(algorithms.Config{ID: id, Cluster: cl, Params: p, Ablations: abl, Rand: r, Restarts: restarts})
					if err != nil {
						return nil, err
					}
					return n.(algorithms.Explorable), nil
				},
			})
		})
	}
}

// TestStateCoversFields fails when a field is added to central's state
// without a decision on how Clone copies it and AppendState encodes it.
func TestStateCoversFields(t *testing.T) {
	explorabletest.Fields(t, node{}, "cfg", "hold", "quiet", "grants", "reqs", "lastAt", "atCount")
	explorabletest.Fields(t, grant{}, "owner", "ballot", "until")
	explorabletest.Fields(t, req{}, "wanting", "holding", "round", "ballot", "held", "token", "tries", "sentAt", "until")
}
