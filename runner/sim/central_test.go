package sim

import (
	"time"

	"leaselab/algorithms"
	"leaselab/algorithms/example"
	_ "leaselab/naive" // remoteSpec
	"leaselab/runner"
)

// centralSpec is the simulator tests' small contention run of the
// example lease server, "central": one acceptor (node 0, the server),
// three clients, leases of 2 s. The ablations given switch its planted
// faults on (example.AblateGrantOnce, AblateDeadline, ...), so a test can
// show the checker catching a broken rule.
func centralSpec(ablate ...string) runner.Spec {
	s := runner.DefaultSpec()
	s.Algo = example.Name
	s.Ablate = algorithms.Ablations(ablate)
	s.Acceptors = 1
	s.Proposers = 3
	s.Duration = 60 * time.Second
	s.Params.LeaseSpan = 2 * time.Second
	s.Params.MaxLease = 3 * time.Second
	s.Hold = 500 * time.Millisecond
	s.Pause = 300 * time.Millisecond
	return s
}

// remoteSpec is centralSpec with naive in central's place on two
// acceptors and one proposer: node 0's requests need node 1's vote, so
// every acquisition crosses the network (central's server is node 0,
// the batch's requester too).
func remoteSpec() runner.Spec {
	s := centralSpec()
	s.Algo = "naive"
	s.Acceptors, s.Proposers = 2, 1
	return s
}
