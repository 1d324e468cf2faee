package main

// The algorithms this command knows. Each package registers itself (and
// its message kinds) with the algorithms package from init, so importing
// it is all it takes: to add an algorithm to leaselab, add one line here.
import (
	_ "leaselab/algorithms/example" // "central": the extension guide's example
	_ "leaselab/classicpaxos"
	_ "leaselab/fatlease"
	_ "leaselab/naive" // "naive" and "naive-undo"
	_ "leaselab/paxoslease"
	_ "leaselab/paxoslease/fairq" // "fairq": PaxosLease with a queue the acceptors hand the lease along
)

// The environments register themselves with runner.RegisterEnv the same
// way: the simulator ("sim") and real UDP sockets (--env udp).
import (
	_ "leaselab/runner/sim"
	_ "leaselab/runner/udp"
)
