package runner

import (
	"errors"
	"fmt"
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
	// ViolationTrace, if set, receives (simulator) the last
	// ViolationContext trace records before the first lease violation
	// began, as JSON lines, followed by the violation record itself. For
	// the full trace, re-run the same spec and seed with Trace set.
	ViolationTrace io.Writer
}

// ViolationContext is how many trace records before a violation
// Options.ViolationTrace receives.
const ViolationContext = 2000

// EnvFunc runs one experiment in an environment other than the simulator.
type EnvFunc func(Spec, Options) (Result, error)

var envs = map[string]EnvFunc{}

// RegisterEnv makes Run hand specs with Env == name to f. The udp
// environment registers itself from runner/udp (which imports runner, so
// runner cannot import it): a command that offers --env udp imports
// runner/udp for its side effect. It panics on a duplicate name or "sim".
func RegisterEnv(name string, f EnvFunc) {
	if _, dup := envs[name]; dup || name == "sim" {
		panic("runner: duplicate environment " + name)
	}
	envs[name] = f
}

// Run runs one experiment. Spec.Validate errors come back unchanged.
// ErrBadSpec marks an error that says a Spec cannot run as given: the
// environment does not support part of it. Commands treat it as bad input
// (exit status 2), not as a failed run. Wrap with BadSpec.
var ErrBadSpec = errors.New("spec not supported")

// BadSpec marks err as ErrBadSpec; its text stays err's.
func BadSpec(err error) error { return badSpec{err} }

type badSpec struct{ error }

func (badSpec) Is(target error) bool { return target == ErrBadSpec }
func (b badSpec) Unwrap() error      { return b.error }

func Run(spec Spec, opt Options) (Result, error) {
	if err := spec.Validate(); err != nil {
		return Result{}, err
	}
	if spec.Env == "sim" {
		return runSim(spec, opt)
	}
	f, ok := envs[spec.Env]
	if !ok {
		return Result{}, fmt.Errorf("environment %q is not linked into this program (import leaselab/runner/%s)", spec.Env, spec.Env)
	}
	return f(spec, opt)
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
	// Vary: parts of the experiment each seed draws afresh (see check.go).
	Vary Vary
	// StopAtFirst ends the campaign at the lowest violating seed: every
	// seed up to it runs, none after (CheckResult.Seeds says how many).
	StopAtFirst bool
}

// Vary says which parts of the base experiment a campaign draws per seed
// instead of taking them from the base spec. The command sets each one the
// user did not fix with a flag.
type Vary struct {
	Workload     bool // contention: release or expire, hold, pause
	Downtime     bool // how long a crashed node stays down
	PartitionLen bool // how long a partition lasts
}

// CheckResult sums a campaign.
type CheckResult struct {
	Meta           *Meta                `json:"meta,omitempty"` // filled by the command
	Algo           string               `json:"algo"`
	Ablate         algorithms.Ablations `json:"ablate"`
	Faults         []string             `json:"faults"`
	Seeds          int                  `json:"seeds"`
	LeasesAcquired int                  `json:"leases_acquired"`
	Violations     int                  `json:"violations"`
	ViolatingSeeds []uint64             `json:"violating_seeds"`
	// First: the first violation of each violating seed (at most 20), and
	// ViolatingSpecs the full spec of those runs (fault rates drawn for the
	// seed included), so `run` can reproduce each one.
	First          []Violation `json:"first_violations,omitempty"`
	ViolatingSpecs []Spec      `json:"violating_specs,omitempty"`
	WallMS         float64     `json:"wall_ms"`
}

// ReplayResult is what a scenario file produced.
type ReplayResult struct {
	Meta       *Meta       `json:"meta,omitempty"` // filled by the command
	Steps      int         `json:"steps"`
	Violations []Violation `json:"violations"`
	// Failed lists "expect" lines that did not hold.
	Failed []string `json:"failed_expectations"`
	// Result: the run's meters, as `run` reports them (static_deadlocks,
	// preemptions, leases_acquired, ...), their keys at the top level of
	// the JSON; its own violation count and list give way to Violations
	// above.
	Result
}
