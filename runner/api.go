package runner

import (
	"errors"
	"io"

	"leaselab/algorithms"
)

// The entry points of the runner. The command (cmd/leaselab), the UDP
// environment and the experiments all go through these.

// Options are the optional outputs of a run.
type Options struct {
	// Holds, if set, receives a CSV of every hold interval:
	// resource,owner,ballot,start_ns,end_ns (true time).
	Holds io.Writer
	// Trace, if set, receives one JSON object per line for every event
	// (send, deliver, drop, duplicate, timer, crash, restart, partition,
	// hold start/end) with true time and the node's local time.
	Trace io.Writer
	// Progress, if set, is called now and then with the fraction done.
	Progress func(done float64)
}

// Run runs one experiment. Spec.Validate errors come back unchanged.
func Run(spec Spec, opt Options) (Result, error) {
	return Result{}, errors.New("runner.Run: not implemented yet")
}

// CheckSpec describes a fault campaign: Seeds runs with seeds FirstSeed,
// FirstSeed+1, ..., each with a fault schedule drawn from the seed, using
// the fault kinds in Faults ("loss", "dup", "reorder", "partition", "crash",
// "drift"; "all" means every one).
type CheckSpec struct {
	Base      Spec
	Faults    []string
	Seeds     int
	FirstSeed uint64
}

// CheckResult sums a campaign.
type CheckResult struct {
	Algo           string               `json:"algo"`
	Ablate         algorithms.Ablations `json:"ablate"`
	Faults         []string             `json:"faults"`
	Seeds          int                  `json:"seeds"`
	LeasesAcquired int                  `json:"leases_acquired"`
	Violations     int                  `json:"violations"`
	ViolatingSeeds []uint64             `json:"violating_seeds"`
	First          []Violation          `json:"first_violations,omitempty"`
	WallMS         float64              `json:"wall_ms"`
}

// Check runs a fault campaign.
func Check(cs CheckSpec, opt Options) (CheckResult, error) {
	return CheckResult{}, errors.New("runner.Check: not implemented yet")
}

// ReplayResult is what a scenario file produced.
type ReplayResult struct {
	Steps      int         `json:"steps"`
	Violations []Violation `json:"violations"`
	// Failed lists "expect" lines that did not hold.
	Failed []string `json:"failed_expectations"`
}

// Replay runs a scenario file (see runner/testdata) step by step and writes
// the trace to w.
func Replay(scenario io.Reader, w io.Writer) (ReplayResult, error) {
	return ReplayResult{}, errors.New("runner.Replay: not implemented yet")
}
