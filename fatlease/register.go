package fatlease

import "leaselab/algorithms"

// Ablations of FaTLease, each with the rule it switches off and the fault
// mix that shows a violation without it.
var Ablations = []algorithms.Ablation{
	{
		Name:    AblateRestartWait,
		Rule:    "a restarted node stays silent for (v + d_max)(1+ρ)/(1-ρ) on its own clock before it answers, learns or proposes (Sec. 4.4)",
		Exposes: "--faults crash (leaselab check --algo fatlease --faults crash --ablate restart-wait): an acceptor that rejoins at once has forgotten its promise and accepted lease, so a second proposer wins the same instance while the holder still holds",
	},
	{
		Name:    AblateSafetyPeriod,
		Rule:    "a node that does not own a lease treats it as valid until its clock reads t + d_max (the safety period [t - d_max, t + d_max], Sec. 4.3), not just t",
		Exposes: "--faults drift with contention (leaselab check --algo fatlease --faults drift --ablate safety-period): a node whose clock runs ahead of the holder's proposes the next instance while the holder still holds",
	},
	{
		Name:    AblatePrevInstCheck,
		Rule:    "an acceptor that knows a lower instance whose lease may still be valid rejects proposals in higher instances (except the owner's renew instance) and reports that instance (Fig. 4 augmentation)",
		Exposes: "--faults crash,partition (a majority restarts with empty state and negotiates in instance 1 while a minority that knows instance n proposes n+1); scenario runner/testdata/fatlease-previous-instance-check.txt",
	},
}

// Algorithm is FaTLease's registry entry.
func Algorithm() algorithms.Algorithm {
	return algorithms.Algorithm{
		Name:      "fatlease",
		Summary:   "FaTLease (HPDC'08): Multipaxos instances per resource, learn/outdated/nack, absolute leases on clocks within d_max, renew instances, invalidation, diskless crash recovery",
		Ablations: Ablations,
		Check:     Check,
		New: func(cfg algorithms.Config) (algorithms.Node, error) {
			return New(cfg, Options{})
		},
	}
}

func init() { algorithms.Register(Algorithm()) }
