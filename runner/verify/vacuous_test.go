package verify

import (
	"math/rand/v2"
	"testing"
	"time"

	"leaselab/algorithms"
)

// mute is a node that never sends, sets no timer and grants nothing: an
// algorithm that can never violate the lease invariant because it never
// hands out a lease (what a mutant that drops every message becomes).
type mute struct{}

func (mute) Step(algorithms.Local, algorithms.Input, *algorithms.Output) {}
func (mute) Clone(*rand.Rand) algorithms.Node                            { return mute{} }
func (mute) AppendState(b []byte, _ algorithms.Local) []byte             { return b }

const muteName = "test-mute"

func init() {
	algorithms.Register(algorithms.Algorithm{
		Name:    muteName,
		Summary: "test only: a node that does nothing",
		Build:   func(algorithms.Config) (algorithms.Node, error) { return mute{}, nil },
	})
}

// Vacuous counts the configurations that ran to their end and never saw
// a lease, or (a search) never saw leases of two nodes; those not run,
// interrupted or stopped at a violation do not count.
func TestVacuous(t *testing.T) {
	for _, tc := range []struct {
		kind    string
		stopped string
		leases  int64
		holders int
		want    int
	}{
		{KindExplore, StopExhausted, 0, 0, 1},
		{KindExplore, StopDepth, 0, 0, 1},
		{KindExplore, StopTime, 0, 0, 1},
		{KindExplore, StopMemory, 0, 0, 1},
		{KindExplore, StopStates, 0, 0, 1},
		{KindCheck, StopSeeds, 0, 0, 1},
		{KindExplore, StopExhausted, 3, 1, 1}, // one node's leases only
		{KindExplore, StopExhausted, 3, 2, 0},
		{KindCheck, StopSeeds, 1, 0, 0}, // a campaign counts leases, not holders
		{KindExplore, StopViolation, 0, 0, 0},
		{KindExplore, StopBudget, 0, 0, 0},
		{KindExplore, StopSkipped, 0, 0, 0},
		{KindExplore, StopInvalid, 0, 0, 0},
		{KindCheck, StopInterrupted, 0, 0, 0},
		{KindCheck, StopUnanswered, 0, 0, 1}, // a liveness failure judges no safety either
	} {
		r := Result{Configurations: []ConfigResult{
			{ID: "E1", Kind: KindExplore, Stopped: StopExhausted, Leases: 7, Holders: 2},
			{ID: "E2", Kind: tc.kind, Stopped: tc.stopped, Leases: tc.leases, Holders: tc.holders},
		}}
		n, first := r.Vacuous()
		if n != tc.want || (n > 0 && first.ID != "E2") {
			t.Errorf("%s stopped %s, %d leases, %d holders: Vacuous %d (first %q), want %d", tc.kind, tc.stopped, tc.leases, tc.holders, n, first.ID, tc.want)
		}
	}
}

// A battery over an algorithm that never hands out a lease finds no
// violation, and says so: every configuration it ran saw no lease, a
// search's and a campaign's alike. With the algorithms' rules on, the
// same configurations see leases (TestRulesOnShort).
func TestMuteAlgorithmIsVacuous(t *testing.T) {
	r, err := Run(Config{Algo: muteName, Only: []string{"E1", "E3", "C1"}, Budget: 3 * time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Violations != 0 || r.Ran != 3 {
		t.Fatalf("%d violations, %d configurations ran; want 0 and 3", r.Violations, r.Ran)
	}
	if n, _ := r.Vacuous(); n != 3 {
		t.Errorf("Vacuous: %d, want 3 (%+v)", n, r.Configurations)
	}
	for _, c := range r.Configurations {
		if c.States == 0 && c.Seeds == 0 {
			t.Errorf("%s searched nothing: %+v", c.ID, c)
		}
	}
}
