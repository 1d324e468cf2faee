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
// a lease; those not run, interrupted or stopped at a violation do not
// count.
func TestVacuous(t *testing.T) {
	for _, tc := range []struct {
		stopped string
		leases  int64
		want    int
	}{
		{StopExhausted, 0, 1},
		{StopDepth, 0, 1},
		{StopTime, 0, 1},
		{StopMemory, 0, 1},
		{StopStates, 0, 1},
		{StopSeeds, 0, 1},
		{StopExhausted, 3, 0},
		{StopSeeds, 1, 0},
		{StopViolation, 0, 0},
		{StopBudget, 0, 0},
		{StopSkipped, 0, 0},
		{StopInvalid, 0, 0},
		{StopInterrupted, 0, 0},
	} {
		r := Result{Configurations: []ConfigResult{
			{ID: "E1", Stopped: StopExhausted, Leases: 7},
			{ID: "E2", Stopped: tc.stopped, Leases: tc.leases},
		}}
		n, first := r.Vacuous()
		if n != tc.want || (n > 0 && first.ID != "E2") {
			t.Errorf("stopped %s, %d leases: Vacuous %d (first %q), want %d", tc.stopped, tc.leases, n, first.ID, tc.want)
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
