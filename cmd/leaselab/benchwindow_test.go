package main

import (
	"testing"

	"leaselab/runner/udp"
)

// TestBenchWindowFor: bench's window is the flag's when given, else 512,
// or the environment's 4,096 for an algorithm whose acceptors write to
// disk (group commit wants many records queued).
func TestBenchWindowFor(t *testing.T) {
	for _, tc := range []struct {
		algo  string
		flag  int
		given bool
		want  int
	}{
		{"paxoslease", benchWindow, false, 512},
		{"fatlease", benchWindow, false, 512},
		{"classicpaxos", benchWindow, false, udp.DefaultWindow},
		{"classicpaxos", 64, true, 64},
		{"paxoslease", -1, true, -1},
		{"paxoslease", benchWindow, true, benchWindow},
	} {
		if got := benchWindowFor(tc.algo, tc.flag, tc.given); got != tc.want {
			t.Errorf("%s, flag %d given %v: window %d, want %d", tc.algo, tc.flag, tc.given, got, tc.want)
		}
	}
}
