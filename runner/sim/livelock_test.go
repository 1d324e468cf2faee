package sim

import (
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// spinner livelocks at one instant: every Acquire or firing sets its
// timer again for the same local time.
type spinner struct{}

func (spinner) Step(now algorithms.Local, in algorithms.Input, out *algorithms.Output) {
	if in.Kind == algorithms.Acquire || in.Kind == algorithms.Fire {
		out.SetTimer(algorithms.TimerKey{Resource: in.Resource}, now)
	}
}

func init() {
	algorithms.Register(algorithms.Algorithm{
		Name:    "test-spinner",
		Summary: "test only: a node that livelocks at one instant",
		Build:   func(algorithms.Config) (algorithms.Node, error) { return spinner{}, nil },
	})
}

// A run whose algorithm keeps scheduling work for the same instant fails
// with an error naming the livelock instead of never ending.
func TestLivelockAtAnInstantFails(t *testing.T) {
	defer func(n uint) { maxInstantEvents = n }(maxInstantEvents)
	maxInstantEvents = 10000
	s := runner.DefaultSpec()
	s.Algo = "test-spinner"
	s.Acceptors, s.Proposers = 1, 1
	s.Duration = time.Second
	_, err := Run(s, runner.Options{})
	if err == nil || !strings.Contains(err.Error(), "livelock: 10000 events") {
		t.Fatalf("Run returned %v, want a livelock error", err)
	}
}
