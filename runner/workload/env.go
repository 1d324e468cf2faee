// Package workload plays the clients of a run: Driver runs the workloads
// (workload.go) against Env, which every environment implements, so the
// simulator and the UDP environment run the same workloads.
package workload

import (
	"leaselab/algorithms"
	"leaselab/runner/record"
)

// Env is what an environment (the simulator, the UDP environment) offers
// the workload driver. The driver, the Recorder and the checker are
// environment-independent and are reused by every environment; the
// environment implements Env and feeds them (see below).
//
// Threading: every Env method and every call into Driver and Recorder
// happens on ONE logical thread: the simulator's event loop, or, in a
// concurrent environment, under one lock that serialises them. True time
// must not go backwards between calls; a concurrent environment should read
// its clock while holding that lock, so that the order of calls is the
// order of true time (the checker depends on it).
//
// An environment's duties, in the order of one run:
//
//  1. Build the nodes (Restarts 0), step each with Input{Kind: Start}.
//  2. rec := record.NewRecorder(plan, env, tracer); drv, err := NewDriver(plan, env, rec);
//     drv.Start() at true time 0 (it issues the first client requests through
//     Env.Input and Env.At).
//  3. For every node Step, handle the Output:
//     - each Event: drv.Event(n, local, ev) (meters, checker and workload
//     reactions; it may call Env.Input, which must queue, see Input);
//     - each message handed to the network: rec.Sent(t, msg) (self-sends are
//     ignored by the meters); deliveries, drops and duplicates go to the trace
//     if the environment keeps one;
//     - each fsync (durable storage): rec.Fsync(t, latencyNS, bytes).
//  4. When a node crashes (a fault, or Env.Crash): drv.Crashed(n) after the
//     node is gone. When it restarts: drv.Restarted(n) after its Start step.
//     Partitions: rec.Partition(t) when one starts. When its process
//     pauses (an environment that can: Pauser): drv.Paused(n); when it
//     resumes, drv.Resumed(n) before the node handles what waited.
//  5. Stop at spec.Duration, or earlier when drv.Done() (batch, single) or
//     after Env.Stop was called; then res := drv.Finish() gives the Result
//     (the environment fills in Env, TraceHash, WallMS).
type Env interface {
	record.Clocks
	// Now is the current true time in ns since the run started.
	Now() int64
	// At runs f at true time t (t >= Now()) on the environment's logical
	// thread. Callbacks due at the same instant run in the order At was
	// called. Callbacks scheduled after the run ended never run.
	At(t int64, f func())
	// Input hands a client request (Acquire, Extend, Relinquish) to node n.
	// It must not step the node re-entrantly: the environment queues it and
	// steps the node with it as a separate Step at the current true time,
	// after the Step now being handled (if any) is done. It returns false,
	// and does nothing, when n is down.
	Input(n algorithms.NodeID, in algorithms.Input) bool
	// Crash stops node n now: its volatile state, timers and any messages
	// waiting for its disk are lost; durable records survive. The
	// environment then calls Driver.Crashed(n). No-op if n is down.
	Crash(n algorithms.NodeID)
	// Restart builds a new node n with Restarts one more than before and
	// its durable records in Config.Recovered, steps it with Start, and then
	// calls Driver.Restarted(n). No-op if n is up.
	Restart(n algorithms.NodeID)
	// Up reports whether node n is running.
	Up(n algorithms.NodeID) bool
	// Stop ends the run at the current true time (after the current event).
	Stop()
}
