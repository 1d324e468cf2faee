package runner

import (
	"errors"
	"fmt"
	"io"
)

// The entry points of the runner. The command (cmd/leaselab), the UDP
// environment and the experiments all go through these.

// Options are the optional outputs of a run.
type Options struct {
	// Observers see every record of the run's trace as a typed value
	// (TraceRec), as it happens: in-process views of a run (a timeline,
	// a page) observe it rather than read back what Trace and Holds write.
	Observers []Observer
	// Holds, if set, receives a CSV of every hold interval:
	// resource,owner,ballot,start_ns,end_ns (true time).
	Holds io.Writer
	// Trace, if set, receives one JSON object per line for every trace
	// record (send, deliver, drop, duplicate, timer, crash, restart,
	// partition, hold start/end, ...) with true time and the node's local
	// time.
	Trace io.Writer
	// Progress, if set, is called now and then with the fraction done.
	Progress func(done float64)
	// Stop, when closed, ends the run early at the current true time, as
	// if its duration had passed there (an interrupted command still
	// prints what the run measured so far); the Result says Interrupted.
	// The simulator looks at it every few thousand events, the UDP
	// environment at least every 200 ms.
	Stop <-chan struct{}
	// ViolationTrace, if set, receives (simulator) the last
	// ViolationContext trace records before the first lease violation
	// began, as JSON lines, followed by the violation record itself. For
	// the full trace, re-run the same spec and seed with Trace set.
	ViolationTrace io.Writer
}

// ViolationContext is how many trace records before a violation
// Options.ViolationTrace receives.
const ViolationContext = 2000

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
	p, err := Resolve(spec)
	if err != nil {
		return Result{}, err
	}
	return p.Run(opt)
}

// Run runs the plan in its environment, unless it would need more memory
// than the machine has available (CheckMemory; asked only of runs that
// need more than a GiB).
func (p Plan) Run(opt Options) (Result, error) {
	if err := p.GuardMemory(); err != nil {
		return Result{}, err
	}
	return p.Env.Run(p, opt)
}

// Closed reports whether a stop channel (Options.Stop and its kin) has
// been closed; a nil channel never is.
func Closed(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// Livelock is the error of an environment that ran n steps (or events,
// what names them) at true time t without time moving on: the algorithm
// keeps scheduling work for the same instant, and the run or search would
// otherwise never end (the simulator and the explorer each bound it).
func Livelock(n uint64, what string, t int64) error {
	return fmt.Errorf("livelock: %d %s at true time %d ns without time moving on (the algorithm keeps scheduling work for the same instant)", n, what, t)
}
