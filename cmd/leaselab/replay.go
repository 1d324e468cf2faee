package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"leaselab/runner"
	"leaselab/runner/sim"
)

func init() {
	register(command{
		name:    "replay",
		summary: "replay a scenario file step by step and print the trace and verdict",
		usage:   "[--format table|json] [--transcript] [--trace FILE] [--timeline FILE.html] FILE",
		long: `Runs a scripted interleaving (sim.Replay): acquire, deliver / drop /
duplicate a named message, crash, restart, advance time, expect. The
scenario format is described in runner/sim/testdata. Prints the trace, then the
verdict: steps run, lease-invariant violations, and the expect lines that
did not hold, then the run's meters as ` + "`run`" + ` reports them (static_deadlocks,
static_deadlock_fraction, preemptions, leases_acquired, ...). With --format
json only the verdict object, meters included, is printed on stdout (the
trace goes to --trace FILE if given). --timeline FILE.html writes the
replay as an interactive page: holds per node, crashes, violations, and
every message (hover for kind, ballot, send and delivery times),
self-contained. --transcript prints only the replay's transcript: one
line per command, message, event and expectation, then the verdict and
meters, with no column padding (the format of the golden testdata/*.out
files beside the scenario files).

Exit status 1 when an expectation fails, or when the checker finds a
violation and the scenario has no 'expect violations N' line (a scenario
that means to show a violation says so with that line; then the
expectations alone decide); 2 for bad input, including a scenario line
that is malformed or cannot apply (e.g. it selects a message that is not
pending).`,
		setup: setupReplay,
	})
}

func setupReplay(fs *pflag.FlagSet) action {
	format := addFormatFlag(fs, "table", "json")
	trace := fs.String("trace", "", "write the trace to this file instead of stdout")
	transcript := fs.Bool("transcript", false, "print only the transcript (the golden .out format), not the trace and the table")
	timeline := fs.String("timeline", "", "write the replay as an interactive, self-contained HTML page to this .html file: one step per scenario command (arrow keys step), each node's state in words at the step selected, and what the step did")
	return func(c *ctx, args []string) error {
		if len(args) != 1 {
			return usagef("replay takes one scenario FILE, got %d arguments", len(args))
		}
		f, err := os.Open(args[0])
		if err != nil {
			return badInput(err)
		}
		defer f.Close()
		var w io.Writer = c.stdout
		if *format == "json" || *transcript {
			w = io.Discard
		}
		if *trace != "" {
			tf, err := createOutput("trace", *trace)
			if err != nil {
				return err
			}
			defer tf.Close()
			w = tf
		}
		col, err := htmlTimelineFlag(*timeline, "replay", runner.Spec{})
		if err != nil {
			return err
		}
		var opts sim.ReplayOptions
		if col != nil {
			opts.Observers = []runner.Observer{col}
		}
		if *transcript {
			if *format == "json" {
				return usagef("--transcript prints text: it does not go with --format json")
			}
			opts.Transcript = c.stdout
		}
		rr, err := sim.ReplayWith(f, w, opts)
		if err == nil && col != nil {
			title := "leaselab replay " + filepath.Base(args[0])
			in := col.Input() // the scenario's cluster names the rows' roles
			in.Acceptors, in.Proposers = rr.Params.Acceptors, rr.Params.Proposers
			if err := writeHTMLTimeline(*timeline, col, title, c.meta(), 0, rr.Violations); err != nil {
				return fmt.Errorf("--timeline: %w", err)
			}
			fmt.Fprintf(c.stderr, "timeline: %s\n", *timeline)
		}
		if err != nil {
			// The scenario is the input: a line that is malformed or
			// cannot apply (a message that is not pending) is bad input.
			return badInput(err)
		}
		// A violation nobody expected is a finding, as in run and check.
		unexpected := len(rr.Violations) > 0 && !rr.ExpectsViolations
		if *transcript {
			// The transcript ends with the verdict already.
		} else if *format == "json" {
			if rr.Violations == nil {
				rr.Violations = []runner.Violation{}
			}
			if rr.Failed == nil {
				rr.Failed = []string{}
			}
			rr.Meta = c.meta()
			if err := writeJSON(c.stdout, rr); err != nil {
				return err
			}
		} else if err := writeReplayTable(c, args[0], rr, unexpected); err != nil {
			return err
		}
		if len(rr.Failed) > 0 || unexpected {
			return exitStatus(1)
		}
		return nil
	}
}

// writeReplayTable prints the outcome of replaying scenario as tables: the
// verdict, the violations and the meters.
func writeReplayTable(c *ctx, scenario string, rr sim.ReplayResult, unexpected bool) error {
	verdict := "ok"
	switch {
	case len(rr.Failed) > 0:
		verdict = "FAILED"
	case unexpected:
		verdict = "VIOLATION (the scenario expects none: it has no 'expect violations' line)"
	}
	failed := strings.Join(rr.Failed, "; ")
	if failed == "" {
		failed = "-"
	}
	rows := [][]string{
		{"scenario", scenario},
		{"steps", strconv.Itoa(rr.Steps)},
		{"violations", strconv.Itoa(len(rr.Violations))},
		{"failed expectations", failed},
		{"verdict", verdict},
	}
	if _, err := io.WriteString(c.stdout, "\n"); err != nil {
		return err
	}
	if err := writeTable(c.stdout, []string{"replay", "value"}, rows); err != nil {
		return err
	}
	if len(rr.Violations) > 0 {
		if err := writeViolations(c.stdout, rr.Violations); err != nil {
			return err
		}
	}
	meters := rr.Result
	meters.ViolationList = nil // listed above
	return writeResult(c.stdout, "table", meters)
}
