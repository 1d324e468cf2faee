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
					return owned{newNode(algorithms.Config{ID: id, Cluster: cl, Params: p, Rand: r, Restarts: restarts, Recovered: rec}, tc.fault)}, nil
				},
			})
		})
	}
}

// owned fills in the Owner of the events the toy leaves it out of (its
// requester events name no owner, and the golden transcripts of
// runner/sim/testdata/toy-*.out record them so), so that the contract kit
// checks what the explorer relies on: Clone and AppendState.
type owned struct{ *toyNode }

func (o owned) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	from := len(out.Events)
	o.toyNode.Step(now, in, out)
	for i := from; i < len(out.Events); i++ {
		e := &out.Events[i]
		switch e.Kind {
		case algorithms.Acquired, algorithms.Lost, algorithms.Round, algorithms.Timeout, algorithms.Failed:
			e.Owner = o.cfg.ID
		case algorithms.Preempted:
			e.Owner = e.Ballot.Node()
		}
	}
}

func (o owned) Clone(r *rand.Rand) algorithms.Node { return owned{o.toyNode.Clone(r).(*toyNode)} }

// TestStateCoversFields fails when a field is added to the toy's state
// without a decision on how Clone copies it and AppendState encodes it.
func TestStateCoversFields(t *testing.T) {
	explorabletest.Fields(t, toyNode{}, "quietUntil", "cfg", "fault", "grants", "reqs")
	explorabletest.Fields(t, toyGrant{}, "owner", "ballot", "until")
	explorabletest.Fields(t, toyReq{}, "wanting", "holding", "ballot", "held", "round", "tries", "sentAt", "until")
}
