package paxoslease

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
)

// A tiny network for driving nodes message by message, etcd-raft style:
// the test decides which message is delivered, dropped or duplicated, and
// when true time advances. Each node has its own clock (offset and rate),
// so drift can be staged exactly. It also keeps the lease invariant: every
// Acquired is checked against the other nodes' holds in true time.

type clock struct {
	off int64 // ns
	ppb int64 // rate error, parts per billion
}

func (c clock) local(t int64) algorithms.Local {
	return algorithms.Local(c.off + t + t*c.ppb/1_000_000_000)
}

// trueAt is the first true time at which the clock reads l or more.
func (c clock) trueAt(l algorithms.Local) int64 {
	t := int64(float64(int64(l)-c.off) * 1e9 / float64(1_000_000_000+c.ppb))
	for c.local(t) < l {
		t++
	}
	for c.local(t-1) >= l {
		t--
	}
	return t
}

type tnode struct {
	n        *Node
	up       bool
	restarts uint16
	clk      clock
	timers   map[algorithms.TimerKey]algorithms.Local
}

type tevent struct {
	node algorithms.NodeID
	at   int64 // true time
	ev   algorithms.Event
}

type violation struct {
	r        algorithms.ResourceID
	a, b     algorithms.NodeID
	at       int64
	overlapT int64
}

type tnet struct {
	t       testing.TB
	cluster algorithms.Cluster
	params  algorithms.Params
	abl     algorithms.Ablations
	now     int64
	nodes   []*tnode
	msgs    []algorithms.Message
	events  []tevent
	// holds[r][node] = true time at which node's hold on r ends.
	holds      map[algorithms.ResourceID]map[algorithms.NodeID]int64
	violations []violation
	log        []string
	out        algorithms.Output
}

func testParams() algorithms.Params {
	p := algorithms.DefaultParams()
	return p
}

func newNet(t testing.TB, c algorithms.Cluster, p algorithms.Params, abl ...string) *tnet {
	t.Helper()
	nt := &tnet{t: t, cluster: c, params: p, abl: abl, holds: map[algorithms.ResourceID]map[algorithms.NodeID]int64{}}
	for i := 0; i < c.Nodes; i++ {
		nt.nodes = append(nt.nodes, &tnode{})
		nt.boot(algorithms.NodeID(i))
	}
	return nt
}

func (nt *tnet) boot(id algorithms.NodeID) {
	nt.t.Helper()
	tn := nt.nodes[id]
	n := New(algorithms.Config{
		ID: id, Cluster: nt.cluster, Params: nt.params, Ablations: nt.abl,
		Rand:     rand.New(rand.NewPCG(uint64(id)+1, uint64(tn.restarts))),
		Restarts: tn.restarts,
	})
	tn.n, tn.up = n, true
	tn.timers = map[algorithms.TimerKey]algorithms.Local{}
	nt.step(id, algorithms.Input{Kind: algorithms.Start})
}

func (nt *tnet) setClock(id algorithms.NodeID, off int64, rate float64) {
	nt.nodes[id].clk = clock{off: off, ppb: int64(rate * 1e9)}
}

func (nt *tnet) local(id algorithms.NodeID) algorithms.Local { return nt.nodes[id].clk.local(nt.now) }

func (nt *tnet) step(id algorithms.NodeID, in algorithms.Input) {
	nt.t.Helper()
	tn := nt.nodes[id]
	if !tn.up {
		nt.t.Fatalf("step of down node %d", id)
	}
	nt.out.Reset()
	tn.n.Step(tn.clk.local(nt.now), in, &nt.out)
	nt.msgs = append(nt.msgs, nt.out.Msgs...)
	for _, tm := range nt.out.Timers {
		if tm.Cancel {
			delete(tn.timers, tm.Key)
		} else {
			tn.timers[tm.Key] = tm.At
		}
	}
	for _, ev := range nt.out.Events {
		nt.events = append(nt.events, tevent{node: id, at: nt.now, ev: ev})
		nt.log = append(nt.log, fmt.Sprintf("t=%v n%d %v r%d b=%v until=%d", time.Duration(nt.now), id, ev.Kind, ev.Resource, ev.Ballot, ev.Until))
		hs := nt.holds[ev.Resource]
		if hs == nil {
			hs = map[algorithms.NodeID]int64{}
			nt.holds[ev.Resource] = hs
		}
		switch ev.Kind {
		case algorithms.Acquired:
			for other, end := range hs {
				if other != id && end > nt.now {
					nt.violations = append(nt.violations, violation{r: ev.Resource, a: other, b: id, at: nt.now, overlapT: end - nt.now})
				}
			}
			hs[id] = tn.clk.trueAt(ev.Until)
		case algorithms.Lost:
			hs[id] = nt.now
		}
	}
}

// owners lists the nodes that hold r now (true time).
func (nt *tnet) owners(r algorithms.ResourceID) []algorithms.NodeID {
	var o []algorithms.NodeID
	for id := range nt.nodes {
		if end, ok := nt.holds[r][algorithms.NodeID(id)]; ok && end > nt.now {
			o = append(o, algorithms.NodeID(id))
		}
	}
	return o
}

func (nt *tnet) acquire(id algorithms.NodeID, r algorithms.ResourceID) {
	nt.t.Helper()
	nt.step(id, algorithms.Input{Kind: algorithms.Acquire, Resource: r})
}

func (nt *tnet) extend(id algorithms.NodeID, r algorithms.ResourceID) {
	nt.t.Helper()
	nt.step(id, algorithms.Input{Kind: algorithms.Extend, Resource: r})
}

func (nt *tnet) relinquish(id algorithms.NodeID, r algorithms.ResourceID) {
	nt.t.Helper()
	nt.step(id, algorithms.Input{Kind: algorithms.Relinquish, Resource: r})
}

// anyNode matches every value of a NodeID field in find.
const anyNode = algorithms.NodeID(0xFFFE)

func (nt *tnet) index(k algorithms.Kind, from, to algorithms.NodeID) int {
	for i, m := range nt.msgs {
		if m.Kind == k && (from == anyNode || m.From == from) && (to == anyNode || m.To == to) {
			return i
		}
	}
	return -1
}

func (nt *tnet) has(k algorithms.Kind, from, to algorithms.NodeID) bool {
	return nt.index(k, from, to) >= 0
}

func (nt *tnet) take(k algorithms.Kind, from, to algorithms.NodeID) algorithms.Message {
	nt.t.Helper()
	i := nt.index(k, from, to)
	if i < 0 {
		nt.t.Fatalf("no %v %v->%v in flight; in flight:\n%s\nevents:\n%s", k, from, to, nt.inflight(), strings.Join(nt.log, "\n"))
	}
	m := nt.msgs[i]
	nt.msgs = append(nt.msgs[:i], nt.msgs[i+1:]...)
	return m
}

func (nt *tnet) inflight() string {
	var b strings.Builder
	for _, m := range nt.msgs {
		fmt.Fprintf(&b, "  %v\n", m)
	}
	return b.String()
}

// put hands m to its destination (a down node loses it).
func (nt *tnet) put(m algorithms.Message) {
	nt.t.Helper()
	if nt.nodes[m.To].up {
		nt.step(m.To, algorithms.Input{Kind: algorithms.Recv, Msg: m})
	}
}

// deliver delivers the first matching message in flight.
func (nt *tnet) deliver(k algorithms.Kind, from, to algorithms.NodeID) algorithms.Message {
	nt.t.Helper()
	m := nt.take(k, from, to)
	nt.put(m)
	return m
}

// dup delivers the first matching message twice.
func (nt *tnet) dup(k algorithms.Kind, from, to algorithms.NodeID) {
	nt.t.Helper()
	m := nt.take(k, from, to)
	nt.put(m)
	nt.put(m)
}

// drop loses every matching message in flight.
func (nt *tnet) drop(k algorithms.Kind, from, to algorithms.NodeID) int {
	kept, n := nt.msgs[:0], 0
	for _, m := range nt.msgs {
		if m.Kind == k && (from == anyNode || m.From == from) && (to == anyNode || m.To == to) {
			n++
			continue
		}
		kept = append(kept, m)
	}
	nt.msgs = kept
	return n
}

// deliverAll delivers everything in flight, oldest first, including what
// the deliveries send, up to limit messages.
func (nt *tnet) deliverAll(limit int) {
	nt.t.Helper()
	for i := 0; len(nt.msgs) > 0; i++ {
		if i >= limit {
			nt.t.Fatalf("still %d messages in flight after %d deliveries", len(nt.msgs), limit)
		}
		m := nt.msgs[0]
		nt.msgs = nt.msgs[1:]
		nt.put(m)
	}
}

// advance moves true time forward by d, firing due timers in true-time
// order (ties: node id, then key), so every run is the same.
func (nt *tnet) advance(d time.Duration) {
	nt.t.Helper()
	target := nt.now + int64(d)
	for {
		best, bestAt := -1, int64(0)
		var bestKey algorithms.TimerKey
		for id, tn := range nt.nodes {
			if !tn.up {
				continue
			}
			for k, at := range tn.timers {
				ta := tn.clk.trueAt(at)
				if ta < nt.now {
					ta = nt.now
				}
				if ta > target {
					continue
				}
				if best < 0 || ta < bestAt || ta == bestAt && (id < best || id == best && keyLess(k, bestKey)) {
					best, bestAt, bestKey = id, ta, k
				}
			}
		}
		if best < 0 {
			break
		}
		nt.now = bestAt
		delete(nt.nodes[best].timers, bestKey)
		nt.step(algorithms.NodeID(best), algorithms.Input{Kind: algorithms.Fire, Timer: bestKey})
	}
	nt.now = target
}

func keyLess(a, b algorithms.TimerKey) bool {
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	return a.Resource < b.Resource
}

func (nt *tnet) crash(id algorithms.NodeID) {
	tn := nt.nodes[id]
	tn.up = false
	tn.timers = nil
	for _, hs := range nt.holds {
		if end, ok := hs[id]; ok && end > nt.now {
			hs[id] = nt.now
		}
	}
}

func (nt *tnet) restart(id algorithms.NodeID) {
	nt.t.Helper()
	nt.nodes[id].restarts++
	nt.boot(id)
}

// count counts events of kind at node id (anyNode: all nodes).
func (nt *tnet) count(id algorithms.NodeID, k algorithms.EventKind) int {
	c := 0
	for _, e := range nt.events {
		if e.ev.Kind == k && (id == anyNode || e.node == id) {
			c++
		}
	}
	return c
}

// last returns the last event of kind at node id.
func (nt *tnet) last(id algorithms.NodeID, k algorithms.EventKind) (tevent, bool) {
	for i := len(nt.events) - 1; i >= 0; i-- {
		if e := nt.events[i]; e.ev.Kind == k && e.node == id {
			return e, true
		}
	}
	return tevent{}, false
}

func (nt *tnet) dump() string { return strings.Join(nt.log, "\n") }
