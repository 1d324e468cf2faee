package sim

import "leaselab/runner"

// ReplayResult is what a scenario file produced.
type ReplayResult struct {
	Meta       *runner.Meta       `json:"meta"` // filled by the command (null from sim.Replay)
	Steps      int                `json:"steps"`
	Violations []runner.Violation `json:"violations"`
	// Failed lists "expect" lines that did not hold.
	Failed []string `json:"failed_expectations"`
	// ExpectsViolations: the scenario has an "expect violations N" line,
	// so its expectations, not the bare count of violations, say whether
	// the outcome is the intended one.
	ExpectsViolations bool `json:"expects_violations"`
	// Result: the run's meters, as `run` reports them (static_deadlocks,
	// preemptions, leases_acquired, ...), their keys at the top level of
	// the JSON; its own violation count and list give way to Violations
	// above.
	runner.Result
}
