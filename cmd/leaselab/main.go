// Command leaselab runs and compares distributed lease algorithms (naive
// majority vote, PaxosLease, FaTLease, classic Paxos) under one runner, in a
// deterministic simulator or over real UDP.
//
//	leaselab algos                       registered algorithms and ablations
//	leaselab run --algo naive ...        one experiment, its meters
//	leaselab check --algo naive ...      a seeded fault campaign against the lease invariant
//	leaselab replay FILE                 a scripted interleaving, step by step
//
// `leaselab help` lists every subcommand; `leaselab CMD --help` explains
// each flag of CMD.
//
// # Adding a subcommand
//
// Each subcommand lives in its own file and registers itself from init():
//
//	func init() {
//		register(command{
//			name:    "bench",
//			summary: "batch throughput over UDP",
//			usage:   "[flags]",
//			long:    "Runs ...",
//			setup: func(fs *pflag.FlagSet) action {
//				spec := runner.DefaultSpec()
//				addSpecFlags(fs, &spec)       // flags.go
//				format := addFormatFlag(fs)   // output.go
//				return func(c *ctx, args []string) error {
//					if err := validateSpec(spec); err != nil { // bad input: exit 2
//						return err
//					}
//					...
//					return writeResult(c.stdout, *format, res)
//				}
//			},
//		})
//	}
//
// An action returns nil (exit 0), a usage error from usagef or badInput
// (message on stderr, exit 2), exitStatus(n) (exit n, nothing printed:
// the action already reported, e.g. violations found), or any other error
// (message on stderr, exit 1). Flag parsing, --help and unknown flags are
// handled here for every command.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"leaselab/runner"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// ctx is what an action writes to.
type ctx struct {
	stdout, stderr io.Writer
	name           string    // the subcommand, for messages
	started        time.Time // when the command started (meta.started_at)
}

// meta is the provenance every result of the command carries.
func (c *ctx) meta() *runner.Meta {
	m := runner.NewMeta(c.started)
	return &m
}

// action runs a subcommand after its flags were parsed; args are the
// positional arguments left.
type action func(c *ctx, args []string) error

// command is one subcommand.
type command struct {
	name    string
	summary string // one line for `leaselab help`
	usage   string // what follows "leaselab NAME " in the usage line, e.g. "[flags] FILE"
	long    string // paragraphs printed by --help before the flags
	// setup declares the command's flags on fs (binding them to variables
	// it owns) and returns the action that runs once fs is parsed. It is
	// called afresh for every invocation, so flags never leak between runs
	// (the tests call run many times in one process).
	setup func(fs *pflag.FlagSet) action
}

var commands = map[string]command{}

// register adds a subcommand; files call it from init. A duplicate name is
// a programming error.
func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("leaselab: duplicate command " + c.name)
	}
	commands[c.name] = c
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// usageError is bad input: wrong flags, arguments or parameters. The
// command prints it and exits with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef makes a usage error.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// badInput marks err (e.g. from runner.Spec.Validate) as bad input.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// exitStatus ends a command with that status and no further message.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// run is the whole command, callable in-process: it parses args, runs the
// subcommand and returns the exit status (0 ok, 1 runtime failure or a
// finding such as a violation, 2 bad input).
func run(args []string, stdout, stderr io.Writer) int {
	started := time.Now()
	if len(args) == 0 {
		topUsage(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "--help", "-help":
		if len(args) > 1 && name == "help" {
			c, ok := commands[args[1]]
			if !ok {
				fmt.Fprintf(stderr, "leaselab: unknown command %q (valid: %s)\n", args[1], strings.Join(commandNames(), ", "))
				return 2
			}
			fs := newFlagSet(c)
			c.setup(fs)
			addProfileFlag(fs)
			commandUsage(stdout, c, fs)
			return 0
		}
		topUsage(stdout)
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "leaselab: unknown command %q (valid: %s)\n", name, strings.Join(commandNames(), ", "))
		return 2
	}
	fs := newFlagSet(c)
	act := c.setup(fs)
	profile := addProfileFlag(fs)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			commandUsage(stdout, c, fs)
			return 0
		}
		fmt.Fprintf(stderr, "leaselab %s: %v (see leaselab %s --help)\n", name, err, name)
		return 2
	}
	if *profile != "" {
		stop, err := startProfile(*profile)
		if err != nil {
			fmt.Fprintf(stderr, "leaselab %s: %v\n", name, oneLine(err))
			return 1
		}
		defer func() {
			if err := stop(); err != nil {
				fmt.Fprintf(stderr, "leaselab %s: %v\n", name, oneLine(err))
			}
		}()
	}
	err := act(&ctx{stdout: stdout, stderr: stderr, name: name, started: started}, fs.Args())
	var st exitStatus
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &st):
		return int(st)
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "leaselab %s: %v\n", name, oneLine(err))
		return 2
	default:
		fmt.Fprintf(stderr, "leaselab %s: %v\n", name, oneLine(err))
		return 1
	}
}

// addProfileFlag gives every command --cpuprofile: where a campaign's, a
// search's or a battery's time goes (go tool pprof), without a test
// harness around it; also what go build -pgo reads.
func addProfileFlag(fs *pflag.FlagSet) *string {
	return fs.String("cpuprofile", "", "write a CPU profile of the whole command to `FILE` (pprof format, for go tool pprof or go build -pgo)")
}

// startProfile starts the CPU profile into a new file at path; stop ends
// it and closes the file.
func startProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		return nil
	}, nil
}

func newFlagSet(c command) *pflag.FlagSet {
	fs := pflag.NewFlagSet("leaselab "+c.name, pflag.ContinueOnError)
	// Errors are printed by run, in one line; help by commandUsage.
	fs.SetOutput(io.Discard)
	fs.SortFlags = false // declaration order groups related flags
	return fs
}

// oneLine keeps an error message on one line, as the command promises.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

func topUsage(w io.Writer) {
	fmt.Fprint(w, `leaselab compares distributed lease algorithms under one runner,
in a deterministic fault-injecting simulator or over real UDP.

Usage:
  leaselab COMMAND [flags]

Commands:
`)
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `
Run 'leaselab COMMAND --help' for the flags of a command.
Exit status: 0 ok; 1 runtime failure or a finding (e.g. a violation); 2 bad input.
`)
}

func commandUsage(w io.Writer, c command, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "Usage: leaselab %s %s\n\n%s\n", c.name, c.usage, c.summary)
	if c.long != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.long, "\n"))
	}
	if fs.HasAvailableFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", fs.FlagUsagesWrapped(100))
	}
}
