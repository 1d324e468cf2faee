package workload

import (
	"fmt"

	"leaselab/algorithms"
)

// Carrier is what an environment does with each part of a node's Output
// (Carry says in which order).
type Carrier interface {
	// SetTimer sets or cancels one of node n's timers; local is n's clock
	// at the step.
	SetTimer(n algorithms.NodeID, local algorithms.Local, t *algorithms.Timer)
	// Send hands a message to the network.
	Send(m *algorithms.Message)
	// Persist queues out.Persist for n's disk; out.Msgs wait for the
	// fsync unless out.NoSync.
	Persist(n algorithms.NodeID, out *algorithms.Output)
	// Event handles one event of n; false stops the rest (the node
	// crashed or restarted in reaction).
	Event(n algorithms.NodeID, local algorithms.Local, ev *algorithms.Event) bool
}

// Carry carries out node n's Output in the order the simulator, the
// explorer and the scenario interpreter share (and trace hashes depend
// on): the timers; then, if every message is n's own (else an error and
// nothing more), the disk write that holds the messages back, or the
// messages; then the events, in order.
func Carry(c Carrier, n algorithms.NodeID, local algorithms.Local, out *algorithms.Output) error {
	for i := range out.Timers {
		c.SetTimer(n, local, &out.Timers[i])
	}
	for i := range out.Msgs {
		if out.Msgs[i].From != n {
			return fmt.Errorf("node %d sent a message with From = %d: %v", n, out.Msgs[i].From, out.Msgs[i])
		}
	}
	if len(out.Persist) > 0 {
		c.Persist(n, out)
	} else {
		for i := range out.Msgs {
			c.Send(&out.Msgs[i])
		}
	}
	for i := range out.Events {
		if !c.Event(n, local, &out.Events[i]) {
			break
		}
	}
	return nil
}
