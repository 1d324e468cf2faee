package main

import (
	"errors"

	"github.com/spf13/pflag"

	"leaselab/runner"
)

func init() {
	register(command{
		name:    "run",
		summary: "run one experiment and print its meters",
		usage:   "--algo NAME --workload W [flags]",
		long: `Runs one experiment (runner.Run): an algorithm, a workload, a cluster, a
network, clocks and faults, in the simulator (--env sim, reproducible from
--seed: same flags and seed, same trace_hash) or over real UDP (--env udp).

Output: a metric/value table by default; --format json prints the result
object (keys such as meta: where the result came from, algo, seed,
trace_hash, leases_acquired, latency_ms, static_deadlocks,
static_deadlock_fraction, violations, and params: every effective
parameter, so the run can be repeated); --format csv prints a "# meta ..."
comment line (the provenance), a header and one row.

--holds FILE writes every hold interval as CSV
(resource,owner,ballot,start_ns,end_ns, true time) after a "# meta ..."
comment line; --trace FILE writes one
JSON object per line for every event, with true time and the node's local
time.

Note the two drifts: --drift is how wrong the simulated clocks actually run;
--drift-bound is what the algorithms assume and absorb with a margin.
--rate R makes the batch workload an open-loop load: its requests arrive
as a Poisson process of R per second, whatever the answers (latency counts
from the arrival); --latency-chart FILE.png draws the latency percentiles,
the HDR histogram and the throughput over time that every JSON result
carries (latency_ms.p999, latency_histogram, throughput). A batch that
would need more memory than the machine has is refused before it starts,
with the figure.

Interrupted (Ctrl-C), it prints the result so far (interrupted: true) and
exits 130. Exit status 1 if the run fails, the lease-invariant checker
finds a violation, or (with --settle) a request is still unanswered at the
end of the settle stretch (the result is printed first), 2 for bad input.`,
		setup: setupRun,
	})
}

// runExtension lets another file add flags to `leaselab run` and act on
// the run without editing this file (e.g. --timeline FILE.png). Register
// it from init with registerRunExtension; extensions run in registration
// order.
type runExtension struct {
	// flags declares the extension's flags.
	flags func(fs *pflag.FlagSet)
	// before runs after the spec was validated and before the run. It may
	// add observers to opt (append to opt.Observers), never replace what
	// is there. An error stops the command (return a usagef error for bad
	// input).
	before func(c *ctx, spec runner.Spec, opt *runner.Options) error
	// after runs once the result was printed.
	after func(c *ctx, res runner.Result) error
}

var runExtensions []runExtension

func registerRunExtension(e runExtension) { runExtensions = append(runExtensions, e) }

func setupRun(fs *pflag.FlagSet) action {
	spec := runner.DefaultSpec()
	addSpecFlags(fs, &spec)
	format := addFormatFlag(fs)
	holds := fs.String("holds", "", "write every hold interval to this CSV file (resource,owner,ballot,start_ns,end_ns)")
	trace := fs.String("trace", "", "write every event to this file, one JSON object per line")
	quiet := addQuietFlag(fs)
	for _, e := range runExtensions {
		if e.flags != nil {
			e.flags(fs)
		}
	}
	return func(c *ctx, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q", args[0])
		}
		opt, out := runner.Options{}, &outFiles{}
		defer out.abort()
		if err := out.openRun(c, fs, &spec, *trace, *holds, &opt); err != nil {
			return err
		}
		for _, e := range runExtensions {
			if e.before != nil {
				if err := e.before(c, spec, &opt); err != nil {
					return err
				}
			}
		}
		progress, done := newProgress(c, *quiet, "run "+spec.Algo+" "+spec.Workload)
		opt.Progress = progress
		stop, release := interruptible(c)
		defer release()
		opt.Stop = stop
		res, err := runner.Run(spec, opt)
		done()
		release()
		if errors.Is(err, runner.ErrBadSpec) {
			return badInput(err)
		}
		if err != nil {
			return err
		}
		if err := out.finish(); err != nil {
			return err
		}
		res.Meta = c.meta()
		if err := writeResult(c.stdout, *format, res); err != nil {
			return err
		}
		for _, e := range runExtensions {
			if e.after != nil {
				if err := e.after(c, res); err != nil {
					return err
				}
			}
		}
		switch {
		case res.Interrupted:
			return exitStatus(130)
		case res.Violations > 0 || res.Unanswered > 0:
			return exitStatus(1)
		}
		return nil
	}
}
