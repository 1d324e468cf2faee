// Package algorithms is the contract between lease algorithms and the runner.
//
// Every algorithm is a deterministic state machine in the style of etcd's
// raft: it owns no goroutines, sockets, files, clocks or global randomness.
// The runner hands it one Input at a time together with the node's local
// clock reading, and the node appends what it wants done to an Output:
// messages to send, timers to set or cancel, records to make durable before
// those messages may leave (classicpaxos only), and events that tell the
// runner what the node now believes ("I hold R until local time X").
//
// Because nothing here reads the wall clock or draws its own random numbers,
// the same code runs unchanged in the discrete-event simulator (where every
// run is reproducible from its seed) and over real UDP.
//
// This package holds no algorithm logic: ids, ballots, the one message type
// shared by all algorithms and the registry of its kinds (kinds.go),
// inputs, outputs, parameters, the registry of algorithms by name, and
// Explorable, what the exhaustive explorer needs from a node. DESIGN.md at
// the repository's root describes the contract as a whole, and
// algorithms/example is a complete algorithm written against it.
package algorithms
