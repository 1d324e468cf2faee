package algorithms

import (
	"fmt"
	"sort"
	"strings"
)

// Ablation is a named rule of an algorithm that a run may switch off, to
// show with the checker what the rule buys. It says what the rule is and
// what goes wrong without it, in words; how to show that (a command line,
// a scenario file) is the experiments' business (runner/experiments).
type Ablation struct {
	Name   string // as given to --ablate
	Rule   string // what the rule is
	Breaks string // what goes wrong without it ("liveness, not safety: ..." for a rule that guards liveness)
}

// Algorithm is a registered lease algorithm.
type Algorithm struct {
	Name      string
	Summary   string // one line for `leaselab algos`
	Ablations []Ablation
	// Durable: acceptors keep their state on stable storage (Output.Persist)
	// and restart without a quarantine.
	Durable bool
	// SkewBound: safety assumes clocks within Params.DMax of each other
	// (FaTLease, classic Paxos), not only rates within Params.Drift. A
	// campaign's free-running clocks are kept within its allowance
	// (runner/campaign.ClockAllowance) for such an algorithm only.
	SkewBound bool
	// GrantBlocks says what an acceptor's Granted state (from its Granted
	// event until Cleared or its Until) means for other proposers: true
	// when a proposer cannot use that acceptor toward a majority while the
	// state lasts, whoever the proposer is (naive: the acceptor denies
	// every request; PaxosLease: its promise reports the accepted lease,
	// which counts as open only for the active holder's own extension), so
	// a new round needs a majority of acceptors without such state. False
	// when a round can go through acceptors in that state (FaTLease and
	// classic Paxos adopt and re-propose the highest accepted lease). The
	// runner's static-deadlock meter counts only blocking state.
	GrantBlocks bool
	// Fencing says what the fencing token of the algorithm's Acquired
	// events (Event.Token) is and why a later holder's is higher, and
	// what breaks that (shown by `leaselab algos`).
	Fencing string
	// TokenBreaks is what breaks that, as data: the conditions under
	// which Fencing does not claim that a later holder's token is
	// higher. A campaign with a fenced store judges the tokens of every
	// seed whose faults cause none of them (runner/faults Kind.Causes),
	// and the safety battery has a campaign of those faults alone, so a
	// token that fails to grow where the algorithm says it grows fails
	// the battery. Zero: tokens grow under every fault the campaigns
	// draw.
	TokenBreaks TokenBreaks
	// Validate checks parameters beyond Params.Validate (e.g. T < M, v >
	// d_max) and the cluster beyond Cluster.Validate; the error says what
	// is wrong. Nil: nothing more to check.
	Validate func(Params, Cluster) error
	// Build builds a node from a configuration that New has validated, so
	// it checks nothing again. Call New, not Build.
	Build func(Config) (Node, error)
}

var registry = map[string]Algorithm{}

// Register adds an algorithm; algorithm packages call it from init. It
// panics on a duplicate name, which is a programming error.
func Register(a Algorithm) {
	if _, dup := registry[a.Name]; dup {
		panic("algorithms: duplicate registration of " + a.Name)
	}
	registry[a.Name] = a
}

// Names lists the registered algorithms in a fixed order.
func Names() []string {
	order := map[string]int{"naive": 0, "naive-undo": 1, "paxoslease": 2, "fatlease": 3, "classicpaxos": 4}
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		oi, iok := order[names[i]]
		oj, jok := order[names[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return names[i] < names[j]
	})
	return names
}

// Lookup finds an algorithm by name; the error lists the valid names.
func Lookup(name string) (Algorithm, error) {
	a, ok := registry[name]
	if !ok {
		return Algorithm{}, fmt.Errorf("unknown algorithm %q (valid: %s)", name, strings.Join(Names(), ", "))
	}
	return a, nil
}

// CheckAblations reports an error for any name that is not an ablation of a.
func (a Algorithm) CheckAblations(names Ablations) error {
	for _, n := range names {
		ok := false
		for _, ab := range a.Ablations {
			if ab.Name == n {
				ok = true
			}
		}
		if !ok {
			valid := make([]string, len(a.Ablations))
			for i, ab := range a.Ablations {
				valid[i] = ab.Name
			}
			v := strings.Join(valid, ", ")
			if v == "" {
				v = "none"
			}
			return fmt.Errorf("algorithm %s has no ablation %q (valid: %s)", a.Name, n, v)
		}
	}
	return nil
}

// ValidateConfig checks what every node of a run shares: the cluster,
// the parameters (Params.Validate, then the algorithm's own Validate) and
// the ablations. New calls it for every node it builds; call it yourself
// only to reject a run before anything is started.
func (a Algorithm) ValidateConfig(p Params, c Cluster, abl Ablations) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if err := a.CheckAblations(abl); err != nil {
		return err
	}
	if a.Validate != nil {
		if err := a.Validate(p, c); err != nil {
			return fmt.Errorf("%s: %w", a.Name, err)
		}
	}
	return nil
}

// New builds a node of a from cfg, which it validates first
// (ValidateConfig, the node's id and its random source): the one place
// where configurations are checked, so that Build never sees a bad one.
func (a Algorithm) New(cfg Config) (Node, error) {
	if err := a.ValidateConfig(cfg.Params, cfg.Cluster, cfg.Ablations); err != nil {
		return nil, err
	}
	switch {
	case int(cfg.ID) >= cfg.Cluster.Nodes:
		return nil, fmt.Errorf("%s: node id %d outside a cluster of %d nodes", a.Name, cfg.ID, cfg.Cluster.Nodes)
	case cfg.Rand == nil:
		return nil, fmt.Errorf("%s: node %d has no random source (Config.Rand): the runner derives one from the run's seed", a.Name, cfg.ID)
	case a.Build == nil:
		return nil, fmt.Errorf("algorithm %s registered without Build", a.Name)
	}
	return a.Build(cfg)
}
