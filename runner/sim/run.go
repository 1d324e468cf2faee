package sim

import (
	"fmt"
	"time"

	"leaselab/runner"
	"leaselab/runner/faults"
	"leaselab/runner/record"
	"leaselab/runner/workload"
)

func init() {
	runner.RegisterEnv(runner.Env{Name: "sim", Run: RunPlan,
		Check: func(s runner.Spec) error { return faults.Unsupported("sim", &s) }})
}

// Run resolves spec (runner.Resolve) and runs it in the simulator.
func Run(spec runner.Spec, opt runner.Options) (runner.Result, error) {
	p, err := runner.Resolve(spec)
	if err != nil {
		return runner.Result{}, err
	}
	return RunPlan(p, opt)
}

// RunPlan runs a resolved plan in the simulator (runner.Run resolves,
// then calls it for Env "sim").
func RunPlan(p runner.Plan, opt runner.Options) (runner.Result, error) {
	res, _, err := runDetail(p, opt)
	return res, err
}

// runDetail is RunPlan that also returns the simulator (for its
// counters, in tests and benchmarks: after a run without error it has
// released its tables to the next run).
func runDetail(p runner.Plan, opt runner.Options) (runner.Result, *sim, error) {
	spec := p.Spec
	start := time.Now()
	tr := record.NewRunTracer(opt)
	s := newSim(p, tr, false)
	if spec.Workload == "batch" {
		// A batch puts every request in flight at once: size the tables
		// for it up front instead of doubling them along the way.
		n := spec.Leases
		s.rec.Reserve(n)
		s.msgs.Grow(n * spec.Acceptors)
		s.trefs.Grow(n * (spec.Acceptors + 1))
		for i := range s.nodes {
			s.nodes[i].Timers.Grow(n)
		}
	}
	drv, err := workload.NewDriver(p, s, s.rec)
	if err != nil {
		return runner.Result{}, nil, err
	}
	s.drv = drv
	if err := s.boot(); err != nil {
		return runner.Result{}, nil, err
	}
	s.scheduleFaults()
	s.scheduleNewFaults()
	drv.Start()
	interrupted := s.run(opt.Progress, opt.Stop)
	if s.err != nil {
		return runner.Result{}, s, fmt.Errorf("seed %d: %w", spec.Seed, s.err)
	}
	res := drv.Finish()
	res.Interrupted = interrupted
	res.StaleDelivered = s.staleDelivered
	res.ClockJumps = s.clockJumps
	res.Env = "sim"
	res.TraceHash = tr.Hash()
	res.WallMS = float64(time.Since(start).Microseconds()) / 1e3
	if err := tr.Flush(); err != nil {
		return res, s, err
	}
	s.release()
	return res, s, nil
}
