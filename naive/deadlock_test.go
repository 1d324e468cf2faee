package naive_test

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
