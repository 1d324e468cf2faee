package host

import (
	"fmt"
	"math/rand/v2"

	"leaselab/algorithms"
	"leaselab/runner/faults"
)

// Host runs one node: the algorithm's node of the current life, what the
// runner keeps for it (timers by key, the disk), its restart counter, and
// how an Output is carried out. It is a value: an environment keeps one
// per node (the simulator in a slice, a UDP node in its struct), and the
// explorer copies it with Clone.
type Host struct {
	ID algorithms.NodeID
	// Node is the current life's node; nil while the node is down.
	Node algorithms.Node
	// Src is the source behind Node's Config.Rand (nil if the node was
	// built elsewhere with a source of its own, see Run).
	Src *rand.PCG
	// Restarts is how often the node started before the current life
	// (Config.Restarts).
	Restarts uint16
	// Life counts the lives started so far: what an earlier life left
	// scheduled (a timer, a sync) compares it and does nothing.
	Life   uint32
	Timers Timers
	Disk   Disk
}

// Setup is what every life of every node of a run is built from.
type Setup struct {
	Algo    algorithms.Algorithm
	Cluster algorithms.Cluster
	Params  algorithms.Params
	Ablate  algorithms.Ablations
	// Seed: each life draws from faults.NodeSource(Seed, id, restarts).
	Seed uint64
}

// Up reports whether the node is running.
func (h *Host) Up() bool { return h.Node != nil }

// Boot builds and runs a new life of the node from s, with h.Restarts
// earlier starts and recovered as its durable records, and its own
// source, faults.NodeSource(s.Seed, h.ID, h.Restarts). The caller steps
// it with Start.
func (h *Host) Boot(s *Setup, recovered []algorithms.Record) error {
	src := faults.NodeSource(s.Seed, h.ID, h.Restarts)
	n, err := s.Algo.New(algorithms.Config{
		ID:        h.ID,
		Cluster:   s.Cluster,
		Params:    s.Params,
		Ablations: s.Ablate,
		Rand:      rand.New(src),
		Restarts:  h.Restarts,
		Recovered: recovered,
	})
	if err != nil {
		return fmt.Errorf("building node %d: %w", h.ID, err)
	}
	h.Run(n, src)
	return nil
}

// Restart boots the node's next life from s: one more restart, the
// records its disk made durable. The caller steps it with Start.
func (h *Host) Restart(s *Setup) error {
	h.Restarts++
	return h.Boot(s, h.Disk.Recovered())
}

// Run makes n, drawing from src, the node's new life; its timers start
// empty, and an Ordered timer set asks it to keep what it can (KeepFor).
func (h *Host) Run(n algorithms.Node, src *rand.PCG) {
	h.Node = n
	h.Src = src
	h.Life++
	h.Timers.Reset()
	h.Timers.KeepFor(n)
}

// Crash ends the current life: the node, its timers and whatever its disk
// had not made durable are gone. The environment forgets what it
// scheduled for them (or lets Life tell it).
func (h *Host) Crash() {
	h.Node = nil
	h.Timers.Reset()
	h.Disk.Crash()
}

// Release hands the node's memory to the next nodes of the process
// (algorithms.Releaser) when the run is over: the node must never be
// stepped or cloned again. The host keeps its state otherwise.
func (h *Host) Release() {
	if r, ok := h.Node.(algorithms.Releaser); ok {
		r.Release()
	}
	h.Node = nil
}

// Clone returns an independent copy of h: the node cloned (it must be an
// algorithms.Explorable) drawing from a copy of h's source, the timers and
// the disk copied.
func (h *Host) Clone() Host {
	c := *h
	if h.Node != nil {
		src := new(rand.PCG)
		if h.Src != nil {
			*src = *h.Src
		}
		c.Src = src
		c.Node = h.Node.(algorithms.Explorable).Clone(rand.New(src))
	}
	c.Timers = h.Timers.Clone()
	if c.Timers.keeper != nil {
		c.Timers.keeper = c.Node.(algorithms.TimerKeeper)
	}
	c.Disk = h.Disk.Clone()
	return c
}

// Env is what carrying out an Output needs from the environment (Step,
// Synced). Every method is called on the environment's one logical
// thread, during the host method that calls it.
type Env interface {
	// Arm: h's timer entry i was set or replaced, at a step whose clock
	// read local; schedule its firing (or, for an environment that fires
	// from an Ordered set, nothing).
	Arm(h *Host, i int32, local algorithms.Local)
	// Disarm: h's timer t, entry i, was cancelled; the entry is free
	// already.
	Disarm(h *Host, i int32, t Timer)
	// Send hands a message to the network.
	Send(m *algorithms.Message)
	// Persist: out's records are about to join h's disk queue (meters,
	// trace).
	Persist(h *Host, out *algorithms.Output)
	// Sync: h's disk started a sync of h.Disk.Syncing() records; call
	// h.Synced when it completes (unless the node crashes first).
	Sync(h *Host)
	// Event hands on one event of h's step.
	Event(h *Host, local algorithms.Local, ev *algorithms.Event)
}

// Step steps the node with *in at its local time now and carries out its
// Output, in the order the simulator, the explorer and the scenario
// interpreter share (and trace hashes depend on): the timers; then, if
// every message is the node's own (else an error and nothing more), the
// disk write that holds the messages back, or the messages; then the
// events, in order, until one of them crashes or restarts the node. out
// is the caller's buffer, reset here; it holds the Output afterwards. The
// input goes by reference (112 bytes: a copy per layer for every
// message).
//
// Stepping the node and carrying out its Output are one function because
// every message and timer of a run goes through both: as two,
// BenchmarkSimDeliver measured about 3% slower (the call spills what the
// caller keeps in registers).
func (h *Host) Step(env Env, now algorithms.Local, in *algorithms.Input, out *algorithms.Output) error {
	out.Reset()
	h.Node.Step(now, *in, out)
	for i := range out.Timers {
		t := &out.Timers[i]
		if t.Cancel {
			if e := h.Timers.Get(t.Key); e >= 0 {
				old := *h.Timers.At(e)
				h.Timers.Take(e)
				env.Disarm(h, e, old)
			}
			continue
		}
		env.Arm(h, h.Timers.Set(t.Key, t.At), now)
	}
	for i := range out.Msgs {
		if out.Msgs[i].From != h.ID {
			return fmt.Errorf("node %d sent a message with From = %d: %v", h.ID, out.Msgs[i].From, out.Msgs[i])
		}
	}
	if len(out.Persist) > 0 {
		env.Persist(h, out)
		send(env, h.Disk.Write(out.Persist, out.Msgs, out.NoSync))
		h.startSync(env)
	} else {
		send(env, h.Disk.Pass(out.Msgs))
	}
	life := h.Life
	for i := range out.Events {
		env.Event(h, now, &out.Events[i])
		if h.Node == nil || h.Life != life {
			break
		}
	}
	return nil
}

// Synced completes the disk's running sync: the messages that waited
// for it leave, and the next sync starts.
func (h *Host) Synced(env Env) {
	// Sending never touches the disk, so the slice stays valid.
	send(env, h.Disk.Done())
	h.startSync(env)
}

func (h *Host) startSync(env Env) {
	if _, ok := h.Disk.Start(); ok {
		env.Sync(h)
	}
}

func send(env Env, msgs []algorithms.Message) {
	for i := range msgs {
		env.Send(&msgs[i])
	}
}
