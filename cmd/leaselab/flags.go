package main

// Shared flag helpers. Every flag that sets a parameter of a run is
// declared from runner's parameter table (runner.Params: name, type, help),
// so the same flag means the same thing in every command, in scenario
// files and in experiments.
//
// The helpers bind flags directly to the fields of the Spec they are
// given; its current contents are the defaults shown in --help, so start
// from runner.DefaultSpec() (or change fields first to give a command other
// defaults). Flags are declared, not validated: after parsing, call
// validateSpec, which defers to runner.Spec.Validate (and through it to the
// algorithm's own Check), so the rules live in one place.
//
//	addSpecFlags(fs, &spec)                  every parameter, in table order
//	addGroupFlags(fs, &spec, groups...)      the parameters of some groups
//	                                         (runner.GroupProtocol, ...)
//	addNamedFlags(fs, &spec, names...)       the named parameters
//
// A command that needs a flag of the same name with another meaning (bench's
// list of batch sizes, say) declares groups or names and leaves that one out.

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/campaign"
)

// addSpecFlags declares every flag that fills s.
func addSpecFlags(fs *pflag.FlagSet, s *runner.Spec) {
	addParamFlags(fs, s, runner.Params())
}

// addParamFlags declares the flag of every parameter in ps (see
// runner.Params: the name, help and type come from the table), bound to
// its field in s, whose current value is the default shown in --help.
func addParamFlags(fs *pflag.FlagSet, s *runner.Spec, ps []runner.Param) {
	for _, p := range ps {
		name, help := p.Name, p.Usage()
		switch v := p.Field(s).(type) {
		case *string:
			fs.StringVar(v, name, *v, help)
		case *algorithms.Ablations:
			fs.StringSliceVar((*[]string)(v), name, []string(*v), help)
		case *int:
			fs.IntVar(v, name, *v, help)
		case *int64:
			fs.Int64Var(v, name, *v, help)
		case *uint64:
			fs.Uint64Var(v, name, *v, help)
		case *float64:
			fs.Float64Var(v, name, *v, help)
		case *bool:
			fs.BoolVar(v, name, *v, help)
		case *time.Duration:
			fs.DurationVar(v, name, *v, help)
		default:
			panic("flags: parameter " + name + " of type " + p.Type())
		}
	}
}

// addGroupFlags declares the flags of the parameters in the given groups.
func addGroupFlags(fs *pflag.FlagSet, s *runner.Spec, groups ...runner.Group) {
	addParamFlags(fs, s, runner.ParamsOf(groups...))
}

// addNamedFlags declares the flags of the named parameters, in that
// order; a name not in the table is a programming error.
func addNamedFlags(fs *pflag.FlagSet, s *runner.Spec, names ...string) {
	for _, n := range names {
		p, err := runner.LookupParam(n, nil)
		if err != nil {
			panic(err)
		}
		addParamFlags(fs, s, []runner.Param{p})
	}
}

// networkDefaults sets what follows the network unless its flag was given:
// the response timeout (runner.DefaultResponseTimeout: 1 s, or twice the
// worst round trip on a slow network). Call it after parsing, before
// validateSpec.
func networkDefaults(fs *pflag.FlagSet, s *runner.Spec) {
	if f := fs.Lookup("response-timeout"); f != nil && !f.Changed {
		s.Params.ResponseTimeout = runner.DefaultResponseTimeout(s.Net)
	}
}

// validateSpec checks s with runner.Spec.Validate and marks a failure as
// bad input (exit status 2).
func validateSpec(s runner.Spec) error {
	return badInput(s.Validate())
}

// parseFaults checks a --faults list: "all", or names from
// runner.FaultKinds; or "swarm", alone or followed by swarm kinds
// (campaign.SwarmKinds) it may draw.
func parseFaults(list []string) ([]string, error) {
	valid := "all, swarm, " + strings.Join(campaign.FaultKinds, ", ")
	if len(list) == 0 {
		return nil, usagef("--faults needs at least one of: %s", valid)
	}
	if slices.Contains(list, campaign.Swarm) {
		if list[0] != campaign.Swarm {
			return nil, usagef("--faults swarm draws every seed's kinds itself: give it alone, or first and then the swarm kinds it may draw (%s)", strings.Join(campaign.SwarmKinds, ", "))
		}
		for _, k := range list[1:] {
			if !slices.Contains(campaign.SwarmKinds, k) {
				return nil, usagef("unknown swarm kind %q after swarm (valid: %s)", k, strings.Join(campaign.SwarmKinds, ", "))
			}
		}
		return list, nil
	}
	for _, f := range list {
		ok := f == "all" || f == campaign.Swarm
		for _, k := range campaign.FaultKinds {
			ok = ok || f == k
		}
		if !ok {
			return nil, usagef("unknown fault kind %q (valid: %s)", f, valid)
		}
	}
	return list, nil
}

// runCommand is the `leaselab run` command that reproduces s.
func runCommand(s runner.Spec) string { return "leaselab run " + strings.Join(specArgs(s), " ") }

// specArgs returns the `leaselab run` flags that reproduce s: every spec
// flag whose value differs from runner.DefaultSpec(), plus --algo,
// --workload and --seed always, in declaration order. Values print exactly
// (floats round-trip), so the command re-runs the same simulation.
func specArgs(s runner.Spec) []string {
	def := runner.DefaultSpec()
	dfs := pflag.NewFlagSet("default", pflag.ContinueOnError)
	addSpecFlags(dfs, &def)
	sfs := pflag.NewFlagSet("spec", pflag.ContinueOnError)
	addSpecFlags(sfs, &s)
	sfs.SortFlags = false
	var args []string
	sfs.VisitAll(func(f *pflag.Flag) {
		v := f.Value.String()
		always := f.Name == "algo" || f.Name == "workload" || f.Name == "seed"
		if !always && v == dfs.Lookup(f.Name).Value.String() {
			return
		}
		if f.Value.Type() == "stringSlice" {
			v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
		}
		args = append(args, "--"+f.Name+"="+v)
	})
	return args
}

// formatFlag is a --format value: it rejects anything but its choices at
// parse time, so a typo is a one-line usage error.
type formatFlag struct {
	value   string
	choices []string
}

func (f *formatFlag) String() string { return f.value }
func (f *formatFlag) Type() string   { return "format" }
func (f *formatFlag) Set(s string) error {
	for _, c := range f.choices {
		if s == c {
			f.value = s
			return nil
		}
	}
	return fmt.Errorf("format must be one of %s", strings.Join(f.choices, ", "))
}

// addFormatFlag declares --format with the given choices (default: the
// first; with none, table, json and csv) and returns where the value lands.
func addFormatFlag(fs *pflag.FlagSet, choices ...string) *string {
	if len(choices) == 0 {
		choices = []string{"table", "json", "csv"}
	}
	f := &formatFlag{value: choices[0], choices: choices}
	fs.Var(f, "format", "output format: "+strings.Join(choices, ", "))
	return &f.value
}

// addQuietFlag declares --quiet: no progress display. Progress is shown
// only on a terminal anyway (see newProgress).
func addQuietFlag(fs *pflag.FlagSet) *bool {
	return fs.Bool("quiet", false, "no progress display on stderr (it is shown only when stderr is a terminal)")
}
