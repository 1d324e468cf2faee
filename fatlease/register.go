package fatlease

import "leaselab/algorithms"

// Ablations of FaTLease, each with the rule it switches off and what goes
// wrong without it.
var Ablations = []algorithms.Ablation{
	{
		Name:   AblateRestartWait,
		Rule:   "a restarted node stays silent for (v + d_max)(1+ρ)/(1-ρ) on its own clock before it answers, learns or proposes (Sec. 4.4)",
		Breaks: "acceptors that rejoin at once have forgotten the holder's accepted lease and their promises, so a second proposer wins a majority while the holder still holds",
	},
	{
		Name:   AblateSafetyPeriod,
		Rule:   "a node that does not own a lease treats it as valid until its clock reads t + d_max (the safety period [t - d_max, t + d_max], Sec. 4.3), not just t",
		Breaks: "a node whose clock runs ahead of the holder's proposes the next instance while the holder still holds",
	},
	{
		Name:   AblatePrevInstCheck,
		Rule:   "an acceptor that knows a lower instance whose lease may still be valid rejects proposals in higher instances (except the owner's renew instance) and reports that instance (Fig. 4 augmentation)",
		Breaks: "a majority that restarted with empty state negotiates in a low instance while a minority that knows instance n proposes n+1, and both instances grant a lease (the paper's Fig. 4)",
	},
	{
		Name:   AblateDriftMargin,
		Rule:   "the holder ends its hold 2ρ(v + 2·d_max)/(1-ρ) before t, for clocks within d_max when the lease is proposed that drift apart at up to 2ρ while it lives",
		Breaks: "free-running clocks drift apart to d_max + 2ρ(v + 2·d_max)/(1-ρ) by the end of a run; once two are more than d_max apart, a holder on the slow one keeps its lease until t while nodes on the fast one take over at t + d_max, overlapping by up to the 12 ms margin (ρ = 0.001)",
	},
	ReusedBallots,
}

// ReusedBallots is the ablation of the node-level run counter, shared
// with classic Paxos (the proposer code is the same).
var ReusedBallots = algorithms.Ablation{
	Name:   AblateReusedBallots,
	Rule:   "a proposer's run counter belongs to the node (one per life, over every resource and instance), so it never uses a ballot twice",
	Breaks: "the highest ballot lives in the proposer's per-resource record, which is deleted when the client gives up or after Failed; a node that is not an acceptor then starts again at 0.0.id in the same instance, delayed Promise and Accepted answers of its earlier round carry the same (instance, ballot) and are counted for the new round, and the proposer acquires a lease no acceptor accepted while another node holds the lease chosen in that instance",
}

// Algorithm is FaTLease's registry entry.
func Algorithm() algorithms.Algorithm {
	return algorithms.Algorithm{
		Name:      "fatlease",
		Summary:   "FaTLease (HPDC'08): Multipaxos instances per resource, learn/outdated/nack, absolute leases on clocks within d_max, renew instances, invalidation, diskless crash recovery",
		Ablations: Ablations,
		// A proposer whose promises report accepted leases re-proposes the
		// one with the highest ballot and so completes the round: accepted
		// state does not block (scenario fatlease/testdata/deadlock-split-accept.txt).
		GrantBlocks: false,
		SkewBound:   true,
		Fencing: "(instance, ballot) of the lease the holder learned: each new lease of a resource is chosen in a higher Multipaxos instance than the last " +
			"(one value per instance; the ballot orders the learners of one instance). Breaks when a majority of acceptors restarts: diskless, they " +
			"number the resource's instances afresh, and the missed-instance rule keeps the leases apart but not their instance numbers in order",
		TokenBreaks: algorithms.BreaksOnRestart,
		Validate:    Validate,
		Build: func(cfg algorithms.Config) (algorithms.Node, error) {
			return New(cfg, Options{}), nil
		},
	}
}

func init() { algorithms.Register(Algorithm()) }
