package explore

import (
	"math/rand/v2"
	"strings"
	"testing"

	"leaselab/algorithms"
)

// spinner is a node that livelocks at one instant: from its first
// Acquire on, every firing of its timer sets the timer again for the
// same local time.
type spinner struct{ fired int }

func (s *spinner) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	switch in.Kind {
	case algorithms.Acquire, algorithms.Fire:
		s.fired++
		out.SetTimer(algorithms.TimerKey{Resource: in.Resource}, now)
	}
}

func (s *spinner) Clone(*rand.Rand) algorithms.Node { c := *s; return &c }

func (s *spinner) AppendState(b []byte, _ algorithms.Local) []byte { return b }

const spinnerName = "test-spinner"

func init() {
	algorithms.Register(algorithms.Algorithm{
		Name:    spinnerName,
		Summary: "test only: a node that livelocks at one instant",
		Build:   func(algorithms.Config) (algorithms.Node, error) { return &spinner{}, nil },
	})
}

// A node that keeps scheduling work for the same instant makes the search
// fail with an error naming the livelock, instead of never returning
// (before the bound, a mutant of FaTLease that did this held the battery
// for as long as it was left running).
func TestLivelockAtAnInstantFails(t *testing.T) {
	c := DefaultConfig()
	c.Algo = spinnerName
	c.Acceptors, c.Proposers = 1, 1
	c.Inputs, c.Crashes, c.Drops, c.Dups = 1, 0, 0, 0
	c.Workers = 1
	_, err := Explore(c)
	if err == nil || !strings.Contains(err.Error(), "livelock") {
		t.Fatalf("Explore returned %v, want a livelock error", err)
	}
}
