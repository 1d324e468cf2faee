package naive

import (
	"math/rand/v2"
	"testing"
	"time"

	"leaselab/algorithms"
)

// cluster is a hand-driven network in the style of etcd raft's tests: every
// message a node sends waits in flight until the test delivers, duplicates
// or drops it; timers only fire when the test says so. All nodes read the
// same clock unless a test moves one (clock).
type cluster struct {
	t      *testing.T
	nodes  []*Node
	clock  []algorithms.Local
	flight []algorithms.Message
	events [][]algorithms.Event
	timers []map[algorithms.TimerKey]algorithms.Local
	out    algorithms.Output
}

type opts struct {
	acceptors, proposers int
	params               algorithms.Params
	ablate               algorithms.Ablations
	undo                 bool
}

func testParams() algorithms.Params {
	p := algorithms.DefaultParams()
	p.LeaseSpan = 5 * time.Second
	p.MaxLease = 7 * time.Second
	p.Drift = 0
	p.ResponseTimeout = time.Second
	p.MaxRounds = 3
	p.Backoff = 0 // retry at once unless a test wants backoff
	return p
}

func newCluster(t *testing.T, o opts) *cluster {
	t.Helper()
	if o.params == (algorithms.Params{}) {
		o.params = testParams()
	}
	cl := algorithms.NewCluster(o.acceptors, o.proposers)
	c := &cluster{t: t}
	for i := 0; i < cl.Nodes; i++ {
		n := New(algorithms.Config{
			ID: algorithms.NodeID(i), Cluster: cl, Params: o.params, Ablations: o.ablate,
			Rand: rand.New(rand.NewPCG(1, uint64(i))),
		}, Options{Undo: o.undo})
		c.nodes = append(c.nodes, n)
		c.clock = append(c.clock, 0)
		c.events = append(c.events, nil)
		c.timers = append(c.timers, map[algorithms.TimerKey]algorithms.Local{})
	}
	for i := range c.nodes {
		c.step(i, algorithms.Input{Kind: algorithms.Start})
	}
	return c
}

// restart replaces node i by a fresh one with restart counter restarts,
// as the runner does after a crash: volatile state and timers are gone.
func (c *cluster) restart(i int, restarts uint16) {
	c.t.Helper()
	old := c.nodes[i]
	ab := algorithms.Ablations{}
	if !old.restartWait {
		ab = append(ab, AblRestartWait)
	}
	n := New(algorithms.Config{
		ID: old.id, Cluster: old.cluster, Params: old.params, Ablations: ab,
		Rand: rand.New(rand.NewPCG(2, uint64(i))), Restarts: restarts,
	}, Options{Undo: old.undo})
	c.nodes[i] = n
	c.timers[i] = map[algorithms.TimerKey]algorithms.Local{}
	c.step(i, algorithms.Input{Kind: algorithms.Start})
}

func (c *cluster) step(i int, in algorithms.Input) {
	c.out.Reset()
	c.nodes[i].Step(c.clock[i], in, &c.out)
	for _, tm := range c.out.Timers {
		if tm.Cancel {
			delete(c.timers[i], tm.Key)
		} else {
			c.timers[i][tm.Key] = tm.At
		}
	}
	for _, m := range c.out.Msgs {
		if int(m.From) != i {
			c.t.Fatalf("node %d sent a message from %v: %v", i, m.From, m)
		}
		c.flight = append(c.flight, m)
	}
	c.events[i] = append(c.events[i], c.out.Events...)
}

func (c *cluster) acquire(i int, r algorithms.ResourceID) {
	c.step(i, algorithms.Input{Kind: algorithms.Acquire, Resource: r})
}

// advance moves every clock forward by d without firing anything.
func (c *cluster) advance(d time.Duration) {
	for i := range c.clock {
		c.clock[i] = c.clock[i].Add(d)
	}
}

// fire fires node i's pending timer of kind k on r, moving its clock to the
// deadline if that is later. It fails the test if no such timer is set.
func (c *cluster) fire(i int, r algorithms.ResourceID, k uint8) {
	c.t.Helper()
	key := algorithms.TimerKey{Resource: r, Kind: k}
	at, ok := c.timers[i][key]
	if !ok {
		c.t.Fatalf("node %d has no timer %+v (has %v)", i, key, c.timers[i])
	}
	delete(c.timers[i], key)
	if at > c.clock[i] {
		c.clock[i] = at
	}
	c.step(i, algorithms.Input{Kind: algorithms.Fire, Timer: key})
}

func (c *cluster) hasTimer(i int, r algorithms.ResourceID, k uint8) bool {
	_, ok := c.timers[i][algorithms.TimerKey{Resource: r, Kind: k}]
	return ok
}

// take removes and returns the first message in flight of kind k from
// node from to node to; it fails the test if there is none.
func (c *cluster) take(k algorithms.Kind, from, to int) algorithms.Message {
	c.t.Helper()
	for j, m := range c.flight {
		if m.Kind == k && int(m.From) == from && int(m.To) == to {
			c.flight = append(c.flight[:j], c.flight[j+1:]...)
			return m
		}
	}
	c.t.Fatalf("no %v %d->%d in flight: %v", k, from, to, c.flight)
	return algorithms.Message{}
}

// deliver delivers the first message of kind k from -> to.
func (c *cluster) deliver(k algorithms.Kind, from, to int) algorithms.Message {
	c.t.Helper()
	m := c.take(k, from, to)
	c.step(to, algorithms.Input{Kind: algorithms.Recv, Msg: m})
	return m
}

// send delivers m (a copy of a message seen before: a duplicate).
func (c *cluster) send(m algorithms.Message) {
	c.step(int(m.To), algorithms.Input{Kind: algorithms.Recv, Msg: m})
}

// flush delivers every message in flight, including those sent while
// delivering, in order, until none is left.
func (c *cluster) flush() {
	for len(c.flight) > 0 {
		m := c.flight[0]
		c.flight = c.flight[1:]
		c.send(m)
	}
}

func (c *cluster) drop() { c.flight = nil }

// count returns how many messages of kind k are in flight.
func (c *cluster) count(k algorithms.Kind) int {
	n := 0
	for _, m := range c.flight {
		if m.Kind == k {
			n++
		}
	}
	return n
}

// evs returns and forgets node i's events of kind k.
func (c *cluster) evs(i int, k algorithms.EventKind) []algorithms.Event {
	var got []algorithms.Event
	for _, e := range c.events[i] {
		if e.Kind == k {
			got = append(got, e)
		}
	}
	return got
}

func (c *cluster) clearEvents() {
	for i := range c.events {
		c.events[i] = nil
	}
}

// holder returns the nodes that hold r now, by their own state.
func (c *cluster) holders(r algorithms.ResourceID) []int {
	var h []int
	for i, n := range c.nodes {
		if p := n.props[r]; p != nil && p.holds(c.clock[i]) {
			h = append(h, i)
		}
	}
	return h
}

// grantOf returns acceptor i's grant on r (owner NoNode if empty).
func (c *cluster) grantOf(i int, r algorithms.ResourceID) grant {
	g, ok := c.nodes[i].grants[r]
	if !ok {
		return grant{owner: algorithms.NoNode}
	}
	return g
}

func newRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
