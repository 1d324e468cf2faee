package runner

import (
	"testing"
	"time"
)

func toySpec(algo string) Spec {
	s := DefaultSpec()
	s.Algo = algo
	s.Acceptors = 1
	s.Proposers = 3
	s.Duration = 60 * time.Second
	s.Params.LeaseSpan = 2 * time.Second
	s.Params.MaxLease = 3 * time.Second
	s.Hold = 500 * time.Millisecond
	s.Pause = 300 * time.Millisecond
	return s
}

func TestRunToy(t *testing.T) {
	res, err := Run(toySpec("test-lock"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if res.LeasesAcquired == 0 || res.Violations != 0 {
		t.Fatalf("acquired %d, violations %d", res.LeasesAcquired, res.Violations)
	}
}
