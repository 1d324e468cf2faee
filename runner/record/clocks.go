package record

import "leaselab/algorithms"

// Clocks maps a node's local clock readings to true time. The checker and
// the workload driver need it to turn "I hold R until my clock reads X"
// into a true instant.
type Clocks interface {
	// TrueAt returns the first true time (ns since the run started) at
	// which node n's clock reads l or more. Clocks never run backwards, so
	// the answer is well defined; for a reading already passed it is at
	// most the current true time.
	TrueAt(n algorithms.NodeID, l algorithms.Local) int64
}

// identityClocks: every node's clock is true time (the udp environment in
// one process, unit tests).
type identityClocks struct{}

func (identityClocks) TrueAt(_ algorithms.NodeID, l algorithms.Local) int64 { return int64(l) }

// IdentityClocks is a Clocks whose every node reads true time.
var IdentityClocks Clocks = identityClocks{}
