package fatlease

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"leaselab/algorithms"
)

// A tiny in-test network in the style of etcd raft's tests: messages wait
// in a queue until the test delivers or drops them; every node has its own
// clock (true time + offset); timers fire when the test advances time.

type tnode struct {
	n        *Node
	cfg      algorithms.Config
	offset   time.Duration
	timers   map[algorithms.TimerKey]algorithms.Local
	events   []algorithms.Event
	persist  []algorithms.Record // everything this node ever asked to persist
	noSync   bool
	down     bool
	restarts uint16
}

type tnet struct {
	t     *testing.T
	now   time.Duration // true time
	nodes []*tnode
	queue []algorithms.Message
	sent  []algorithms.Message // every message ever sent, for assertions
	opt   Options
	abl   algorithms.Ablations
	p     algorithms.Params
	cl    algorithms.Cluster
	// outs: every Output of every step, for checks on what goes together.
	outs []algorithms.Output
}

func testParams() algorithms.Params {
	p := algorithms.DefaultParams()
	p.LeaseSpan = 5 * time.Second
	p.DMax = 500 * time.Millisecond
	p.Drift = 0.001
	p.ResponseTimeout = time.Second
	p.MaxRounds = 7
	p.Backoff = 100 * time.Millisecond
	return p
}

func newNet(t *testing.T, acceptors, proposers int, opt Options, abl ...string) *tnet {
	t.Helper()
	c := &tnet{t: t, opt: opt, abl: abl, p: testParams(), cl: algorithms.NewCluster(acceptors, proposers)}
	for i := 0; i < c.cl.Nodes; i++ {
		c.nodes = append(c.nodes, &tnode{})
		c.boot(i, nil)
	}
	return c
}

// boot (re)creates node i and starts it.
func (c *tnet) boot(i int, recovered []algorithms.Record) {
	c.t.Helper()
	nd := c.nodes[i]
	nd.cfg = algorithms.Config{
		ID: algorithms.NodeID(i), Cluster: c.cl, Params: c.p, Ablations: c.abl,
		Rand: rand.New(rand.NewPCG(uint64(i), uint64(nd.restarts))), Restarts: nd.restarts, Recovered: recovered,
	}
	n := New(nd.cfg, c.opt)
	// A new life: beliefs of the old one (its events) are gone.
	nd.n, nd.timers, nd.down, nd.events = n, map[algorithms.TimerKey]algorithms.Local{}, false, nil
	c.step(i, algorithms.Input{Kind: algorithms.Start})
}

// crash stops node i; restart boots it again with Restarts+1 and, for
// durable acceptors, every record it persisted.
func (c *tnet) crash(i int) { c.nodes[i].down = true }

func (c *tnet) restart(i int) {
	nd := c.nodes[i]
	nd.restarts++
	var rec []algorithms.Record
	if c.opt.Durable {
		rec = append(rec, nd.persist...)
	}
	c.boot(i, rec)
}

func (c *tnet) local(i int) algorithms.Local {
	return algorithms.Local(c.now + c.nodes[i].offset)
}

// step runs one input at node i and applies its output.
func (c *tnet) step(i int, in algorithms.Input) algorithms.Output {
	nd := c.nodes[i]
	var out algorithms.Output
	if nd.down {
		return out
	}
	nd.n.Step(c.local(i), in, &out)
	for _, tm := range out.Timers {
		if tm.Cancel {
			delete(nd.timers, tm.Key)
		} else {
			nd.timers[tm.Key] = tm.At
		}
	}
	for _, e := range out.Events {
		nd.events = append(nd.events, e)
	}
	nd.persist = append(nd.persist, out.Persist...)
	for _, m := range out.Msgs {
		if m.From != algorithms.NodeID(i) {
			c.t.Fatalf("node %d sent a message from %s: %v", i, m.From, m)
		}
		c.queue = append(c.queue, m)
		c.sent = append(c.sent, m)
	}
	c.outs = append(c.outs, out)
	return out
}

func (c *tnet) input(i int, k algorithms.InputKind, res algorithms.ResourceID) {
	c.step(i, algorithms.Input{Kind: k, Resource: res})
}

// deliver hands over, in order, every queued message for which keep says
// true, dropping those for which drop says true; messages sent meanwhile
// are handled too, until nothing matches (bounded).
func (c *tnet) deliver(keep func(algorithms.Message) bool) int {
	c.t.Helper()
	n := 0
	for rounds := 0; rounds < 10000; rounds++ {
		idx := -1
		for j, m := range c.queue {
			if keep == nil || keep(m) {
				idx = j
				break
			}
		}
		if idx < 0 {
			return n
		}
		m := c.queue[idx]
		c.queue = append(c.queue[:idx], c.queue[idx+1:]...)
		c.step(int(m.To), algorithms.Input{Kind: algorithms.Recv, Msg: m})
		n++
	}
	for _, m := range c.sent[len(c.sent)-12:] {
		c.t.Logf("  %v", m)
	}
	c.t.Fatalf("deliver: no quiescence")
	return n
}

func (c *tnet) deliverAll() int { return c.deliver(nil) }

// drop removes queued messages that match.
func (c *tnet) drop(match func(algorithms.Message) bool) int {
	kept := c.queue[:0]
	n := 0
	for _, m := range c.queue {
		if match(m) {
			n++
			continue
		}
		kept = append(kept, m)
	}
	c.queue = kept
	return n
}

// advance moves true time by d, firing due timers in true-time order and
// delivering nothing (messages they send wait in the queue).
func (c *tnet) advance(d time.Duration) {
	end := c.now + d
	for {
		type due struct {
			at   time.Duration
			node int
			key  algorithms.TimerKey
		}
		var first *due
		for i, nd := range c.nodes {
			if nd.down {
				continue
			}
			keys := make([]algorithms.TimerKey, 0, len(nd.timers))
			for k := range nd.timers {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(a, b int) bool {
				if keys[a].Resource != keys[b].Resource {
					return keys[a].Resource < keys[b].Resource
				}
				return keys[a].Kind < keys[b].Kind
			})
			for _, k := range keys {
				at := time.Duration(nd.timers[k]) - nd.offset
				if at < c.now {
					at = c.now
				}
				if at <= end && (first == nil || at < first.at) {
					first = &due{at, i, k}
				}
			}
		}
		if first == nil {
			c.now = end
			return
		}
		c.now = first.at
		delete(c.nodes[first.node].timers, first.key)
		c.step(first.node, algorithms.Input{Kind: algorithms.Fire, Timer: first.key})
	}
}

// run alternates delivering everything and advancing time in small steps
// (a quiet network), for d.
func (c *tnet) run(d, tick time.Duration) {
	end := c.now + d
	for c.now < end {
		c.deliverAll()
		c.advance(tick)
	}
	c.deliverAll()
}

func (c *tnet) eventsOf(i int, k algorithms.EventKind) []algorithms.Event {
	var r []algorithms.Event
	for _, e := range c.nodes[i].events {
		if e.Kind == k {
			r = append(r, e)
		}
	}
	return r
}

// holding reports whether node i believes it holds res now: its last
// Acquired has not ended and no Lost followed it.
func (c *tnet) holding(i int, res algorithms.ResourceID) bool {
	on := false
	var until algorithms.Local
	for _, e := range c.nodes[i].events {
		if e.Resource != res {
			continue
		}
		switch e.Kind {
		case algorithms.Acquired:
			on, until = true, e.Until
		case algorithms.Lost:
			on = false
		}
	}
	return on && !c.nodes[i].down && c.local(i) < until
}

func (c *tnet) holders(res algorithms.ResourceID) []int {
	var h []int
	for i := range c.nodes {
		if c.holding(i, res) {
			h = append(h, i)
		}
	}
	return h
}

func (c *tnet) clearEvents() {
	for _, nd := range c.nodes {
		nd.events = nil
	}
}

func from(i int) func(algorithms.Message) bool {
	return func(m algorithms.Message) bool { return m.From == algorithms.NodeID(i) }
}

func to(i int) func(algorithms.Message) bool {
	return func(m algorithms.Message) bool { return m.To == algorithms.NodeID(i) }
}

func touches(ids ...int) func(algorithms.Message) bool {
	return func(m algorithms.Message) bool {
		for _, i := range ids {
			if m.From == algorithms.NodeID(i) || m.To == algorithms.NodeID(i) {
				return true
			}
		}
		return false
	}
}

func kind(k algorithms.Kind) func(algorithms.Message) bool {
	return func(m algorithms.Message) bool { return m.Kind == k }
}

func not(f func(algorithms.Message) bool) func(algorithms.Message) bool {
	return func(m algorithms.Message) bool { return !f(m) }
}

// within: both sides of a partition.
func within(group ...int) func(algorithms.Message) bool {
	in := map[algorithms.NodeID]bool{}
	for _, g := range group {
		in[algorithms.NodeID(g)] = true
	}
	return func(m algorithms.Message) bool { return in[m.From] && in[m.To] }
}
