package runner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"leaselab/algorithms"
)

// Plan is a Spec resolved once, where it enters the program (a command
// line, a scenario file, an experiment's variant, a campaign's base): the
// algorithm and the environment it names, and its workload. Environments,
// the recorder and the workload driver take a Plan and never look a name
// up again; nothing below it names an algorithm.
type Plan struct {
	Spec     Spec
	Algo     algorithms.Algorithm
	Env      Env
	Workload Workload
}

// Env is a registered environment.
type Env struct {
	Name string
	// Run runs a resolved plan; Plan.Env is this environment.
	Run func(Plan, Options) (Result, error)
	// Check, if set, says what of a valid Spec the environment cannot run
	// (simulator-only faults, say); its error is marked ErrBadSpec.
	Check func(Spec) error
}

// Workload is one of the workloads the runner's driver plays
// (runner/workload).
type Workload struct {
	Name string
	// Crashes: the workload itself crashes a node and restarts it
	// (failover), so an environment keeps durable records for it.
	Crashes bool
}

// workloads are the runner's workloads, in the order the command line
// lists them.
var workloads = []Workload{{Name: "contention"}, {Name: "batch"}, {Name: "single"}, {Name: "failover", Crashes: true}}

// Workloads lists the names of the runner's workloads.
var Workloads = func() []string {
	var names []string
	for _, w := range workloads {
		names = append(names, w.Name)
	}
	return names
}()

// Stores are the protected store's kinds (Spec.Store).
var Stores = []string{"plain", "fenced"}

var envs = map[string]Env{}

// RegisterEnv makes Resolve hand specs with Env == e.Name to e.
// Environments register themselves (runner/sim as "sim", runner/udp as
// "udp"); they import runner, so runner cannot import them: a program
// imports each environment it offers for its side effect. It panics on a
// duplicate name.
func RegisterEnv(e Env) {
	if _, dup := envs[e.Name]; dup {
		panic("runner: duplicate environment " + e.Name)
	}
	envs[e.Name] = e
}

// Envs lists the environments linked into this program, sorted.
func Envs() []string {
	names := make([]string, 0, len(envs))
	for n := range envs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Resolve validates s and resolves the names in it: the one place a
// Spec's algorithm, environment and workload are looked up. Errors of an
// environment's own Check are ErrBadSpec.
func Resolve(s Spec) (Plan, error) {
	a, err := algorithms.Lookup(s.Algo)
	if err != nil {
		return Plan{}, err
	}
	return Plan{Algo: a}.With(s)
}

// With validates s, which names the plan's algorithm, and returns the
// plan for it (a campaign's seeds, an experiment's points: specs that
// differ in parameters, resolved once).
func (p Plan) With(s Spec) (Plan, error) {
	if s.Algo != p.Algo.Name {
		return Plan{}, fmt.Errorf("spec names algorithm %q, plan has %q", s.Algo, p.Algo.Name)
	}
	i := slices.IndexFunc(workloads, func(w Workload) bool { return w.Name == s.Workload })
	if i < 0 {
		return Plan{}, fmt.Errorf("unknown workload %q (valid: %s)", s.Workload, strings.Join(Workloads, ", "))
	}
	e, ok := envs[s.Env]
	if !ok {
		return Plan{}, fmt.Errorf("unknown environment %q (valid: %s)", s.Env, strings.Join(Envs(), ", "))
	}
	if err := s.check(p.Algo); err != nil {
		return Plan{}, err
	}
	if e.Check != nil {
		if err := e.Check(s); err != nil {
			return Plan{}, BadSpec(err)
		}
	}
	return Plan{Spec: s, Algo: p.Algo, Env: e, Workload: workloads[i]}, nil
}

// Cluster is the plan's cluster.
func (p *Plan) Cluster() algorithms.Cluster {
	return algorithms.NewCluster(p.Spec.Acceptors, p.Spec.Proposers)
}
