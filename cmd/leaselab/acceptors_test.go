package main

import (
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner"
)

// TestManyAcceptors: every registered algorithm that accepts a cluster of
// 100 acceptors (past the 64 ids of a vote set's inline word) acquires
// leases in a contention run and the checker finds no violation.
func TestManyAcceptors(t *testing.T) {
	for _, name := range algorithms.Names() {
		a, err := algorithms.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if a.Validate != nil && a.Validate(algorithms.DefaultParams(), algorithms.NewCluster(100, 3)) != nil {
			continue // a shape of its own (the example "central": one server)
		}
		t.Run(name, func(t *testing.T) {
			s := runner.DefaultSpec()
			s.Algo, s.Acceptors, s.Proposers, s.Duration = name, 100, 3, 10*time.Second
			res, err := runner.Run(s, runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.LeasesAcquired == 0 || res.Violations != 0 {
				t.Fatalf("%d leases, %d violations", res.LeasesAcquired, res.Violations)
			}
		})
	}
}
