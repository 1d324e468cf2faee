package fatlease_test

import (
	"testing"

	"leaselab/runner/replaytest"
)

// TestDeadlockScenarios replays testdata/deadlock-*.txt, scripted
// interleavings that pin the runner's static-deadlock meter for this
// algorithm: each states how many episodes it must count and how long
// they last, and every expectation must hold.
func TestDeadlockScenarios(t *testing.T) {
	replaytest.Files(t, "testdata/deadlock-*.txt", "expect static-deadlocks")
}

// TestOneAcceptorExtend replays testdata/one-acceptor-extend.txt: an
// Extend at the instant the lease began is done at once, and a later one
// extends, with a single in-process acceptor.
func TestOneAcceptorExtend(t *testing.T) {
	replaytest.Files(t, "testdata/one-acceptor-extend.txt", "expect holder")
}
