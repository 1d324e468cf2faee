// Package explorabletest checks an algorithms.Explorable implementation
// against the contract the explorer relies on: Clone gives an independent
// copy, equal inputs give equal outputs and encodings, encodings do not
// change when every time is shifted, and nodes with equal encodings behave
// alike. Algorithm packages call Run from their tests; each adds its own
// sensitivity tests (states that differ in something that matters).
//
// Everything is driven by seeded random walks over a small cluster: a
// network that delivers, duplicates and drops any message in flight, client
// requests, timers fired when their node's clock reaches them, free time
// steps, and crash-restarts. Nothing reads the wall clock.
package explorabletest

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"leaselab/algorithms"
	"leaselab/runner/host"
)

// Setup describes the algorithm under test.
type Setup struct {
	Acceptors, Proposers int
	Params               algorithms.Params
	// Resources: client requests name resources 1..Resources.
	Resources int
	// TimerKinds the algorithm uses, for Fire inputs of arbitrary keys.
	TimerKinds []uint8
	// New builds node id of cl after restarts earlier starts, with the
	// durable records it made before (nil unless the algorithm is durable).
	New func(id algorithms.NodeID, cl algorithms.Cluster, restarts uint16, recovered []algorithms.Record, r *rand.Rand) (algorithms.Explorable, error)
	// TimeTokens: the Major of every token is a time (algorithms.TimeToken
	// of an instant other than the event's Until, such as central's
	// server-side grant end), compared relative to the world's start as
	// every other time is. A token equal to TimeToken(Until) is compared
	// so without it.
	TimeTokens bool
}

// Base is the true time the test worlds start at: far from zero, so that no
// real time is ever 0 and "0 = unset" fields stay distinct from times.
const Base algorithms.Local = 1_000_000_000_000

// World is a cluster under a hand-driven network and one true clock; node
// i's local clock reads true time + off[i]. Each node runs on a
// host.Host, as in the simulator and the explorer: its timers by key, its
// restart counter, and a disk whose every sync completes at once (records
// are durable as soon as they are written).
type World struct {
	s      *Setup
	cl     algorithms.Cluster
	hosts  []host.Host
	base   algorithms.Local
	now    int64 // true time since base
	off    []int64
	flight []algorithms.Message
	out    algorithms.Output
	// Log holds each step's output, times written relative to base.
	Log []string
}

// NewWorld builds and starts a cluster whose clocks start at base.
func NewWorld(t testing.TB, s *Setup, base algorithms.Local) *World {
	t.Helper()
	cl := algorithms.NewCluster(s.Acceptors, s.Proposers)
	w := &World{s: s, cl: cl, base: base}
	w.hosts = make([]host.Host, cl.Nodes)
	for i := range w.hosts {
		// Small distinct clock offsets: the nodes do not share one clock.
		w.off = append(w.off, int64(i)*int64(3*time.Millisecond)-int64(2*time.Millisecond))
		src := rand.NewPCG(uint64(i)+1, 0xc10e)
		n, err := s.New(algorithms.NodeID(i), cl, 0, nil, rand.New(src))
		if err != nil {
			t.Fatalf("New(%d): %v", i, err)
		}
		w.hosts[i] = host.Host{ID: algorithms.NodeID(i), Disk: host.Disk{Keep: true}}
		w.hosts[i].Run(n, src)
	}
	for i := range w.hosts {
		w.step(t, i, algorithms.Input{Kind: algorithms.Start})
	}
	return w
}

// Local is node i's clock now.
func (w *World) Local(i int) algorithms.Local {
	return w.base + algorithms.Local(w.now+w.off[i])
}

// Nodes returns the nodes.
func (w *World) Nodes() []algorithms.Explorable {
	ns := make([]algorithms.Explorable, len(w.hosts))
	for i := range w.hosts {
		ns[i] = w.node(i)
	}
	return ns
}

func (w *World) node(i int) algorithms.Explorable { return w.hosts[i].Node.(algorithms.Explorable) }

// Clone copies the world: every node with Clone (each drawing from a copy
// of its random source, so both worlds draw the same numbers: host.Clone),
// the network, the timers and the durable records.
func (w *World) Clone(t testing.TB) *World {
	t.Helper()
	c := *w
	c.hosts = make([]host.Host, len(w.hosts))
	for i := range w.hosts {
		c.hosts[i] = w.hosts[i].Clone()
		if _, ok := c.hosts[i].Node.(algorithms.Explorable); !ok {
			t.Fatalf("Clone of node %d is not Explorable", i)
		}
		if c.hosts[i].Node == w.hosts[i].Node {
			t.Fatalf("Clone of node %d returned the node itself", i)
		}
	}
	c.off = slices.Clone(w.off)
	c.flight = slices.Clone(w.flight)
	c.out = algorithms.Output{}
	c.Log = nil
	return &c
}

// Encode is every node's AppendState at its own clock, in node order.
func (w *World) Encode() []byte {
	var b []byte
	for i := range w.hosts {
		b = w.node(i).AppendState(b, w.Local(i))
	}
	return b
}

// rel writes a time relative to base; 0 stays 0 (an unused field).
func rel(t, base algorithms.Local) int64 {
	if t == 0 {
		return 0
	}
	return int64(t - base)
}

// FormatOutput writes out with every time relative to base; with
// timeTokens the Major of every event's token too (Setup.TimeTokens).
func FormatOutput(out *algorithms.Output, base algorithms.Local, timeTokens bool) string {
	var sb strings.Builder
	for _, r := range out.Persist {
		r.Expiry = algorithms.Local(rel(r.Expiry, base))
		fmt.Fprintf(&sb, "persist %+v;", r)
	}
	if out.NoSync {
		sb.WriteString("nosync;")
	}
	for _, m := range out.Msgs {
		m.Expiry = algorithms.Local(rel(m.Expiry, base))
		fmt.Fprintf(&sb, "msg %+v;", m)
	}
	for _, tm := range out.Timers {
		if !tm.Cancel {
			tm.At = algorithms.Local(rel(tm.At, base))
		}
		fmt.Fprintf(&sb, "timer %+v;", tm)
	}
	for _, e := range out.Events {
		if e.Token == algorithms.TimeToken(e.Until) && e.Token != (algorithms.Token{}) {
			// A token that is a time (algorithms.TimeToken) is written
			// relative to base too, as the Until it is made of.
			e.Token = algorithms.Token{Minor: 1}
		} else if timeTokens && e.Token != (algorithms.Token{}) {
			e.Token.Major = uint64(rel(e.Token.Time(), base))
		}
		e.Until = algorithms.Local(rel(e.Until, base))
		fmt.Fprintf(&sb, "event %+v;", e)
	}
	return sb.String()
}

// step steps node i with in and carries out its Output on its host: the
// timers kept, every message in flight (a sync completes at once), the
// records durable.
func (w *World) step(t testing.TB, i int, in algorithms.Input) {
	h := &w.hosts[i]
	err := h.Step(w, w.Local(i), &in, &w.out)
	// The world's Event does nothing, so the events are checked after
	// Step carried them out.
	for _, e := range w.out.Events {
		if err := OwnerError(algorithms.NodeID(i), e); err != nil {
			t.Fatalf("n%d %v: %v", i, in.Kind, err)
		}
	}
	if err != nil {
		t.Fatalf("n%d %v: %v", i, in.Kind, err)
	}
	w.Log = append(w.Log, fmt.Sprintf("n%d %v: %s", i, in.Kind, FormatOutput(&w.out, w.base, w.s.TimeTokens)))
}

// The world as its hosts' environment (host.Env): timers wait in the
// hosts until an action fires them, messages go in flight, syncs complete
// at once.

func (w *World) Arm(*host.Host, int32, algorithms.Local)               {}
func (w *World) Disarm(*host.Host, int32, host.Timer)                  {}
func (w *World) Send(m *algorithms.Message)                            { w.flight = append(w.flight, *m) }
func (w *World) Persist(*host.Host, *algorithms.Output)                {}
func (w *World) Sync(h *host.Host)                                     { h.Synced(w) }
func (w *World) Event(*host.Host, algorithms.Local, *algorithms.Event) {}

// ActionKind is one move of a random walk.
type ActionKind uint8

const (
	Deliver   ActionKind = iota // deliver flight[Index]; Keep leaves a duplicate in flight
	Drop                        // lose flight[Index]
	Client                      // Input Kind on Resource at node Node
	FireTimer                   // fire node Node's Index-th pending timer (in key order)
	Advance                     // true time moves by Dur
	Restart                     // node Node crashes and restarts at once
)

// Action is one move; the same Action applied to equal worlds gives equal
// worlds.
type Action struct {
	Kind     ActionKind
	Node     int
	Index    int
	Keep     bool
	Input    algorithms.InputKind
	Resource algorithms.ResourceID
	Dur      time.Duration
}

// RandomAction draws a plausible next move for w.
func (w *World) RandomAction(rng *rand.Rand) Action {
	x := rng.IntN(100)
	switch {
	case x < 60 && len(w.flight) > 0:
		return Action{Kind: Deliver, Index: rng.IntN(len(w.flight)), Keep: rng.IntN(8) == 0}
	case x < 64 && len(w.flight) > 0:
		return Action{Kind: Drop, Index: rng.IntN(len(w.flight))}
	case x < 78:
		kinds := [...]algorithms.InputKind{algorithms.Acquire, algorithms.Acquire, algorithms.Extend, algorithms.Relinquish}
		return Action{Kind: Client, Node: rng.IntN(w.cl.Proposers), Input: kinds[rng.IntN(len(kinds))],
			Resource: algorithms.ResourceID(1 + rng.IntN(w.s.Resources))}
	case x < 95:
		var with []int
		for i := range w.hosts {
			if w.hosts[i].Timers.Len() > 0 {
				with = append(with, i)
			}
		}
		if len(with) > 0 {
			i := with[rng.IntN(len(with))]
			return Action{Kind: FireTimer, Node: i, Index: rng.IntN(w.hosts[i].Timers.Len())}
		}
		return Action{Kind: Advance, Dur: time.Duration(rng.Int64N(int64(w.s.Params.LeaseSpan)))}
	case x < 98:
		return Action{Kind: Advance, Dur: time.Duration(rng.Int64N(int64(w.s.Params.ResponseTimeout)))}
	default:
		return Action{Kind: Restart, Node: rng.IntN(len(w.hosts))}
	}
}

func sortedKeys(m map[algorithms.TimerKey]algorithms.Local) []algorithms.TimerKey {
	keys := make([]algorithms.TimerKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortKeys(keys)
	return keys
}

// timerKey is the Index-th of node i's pending timers, in key order.
func (w *World) timerKey(i, index int) algorithms.TimerKey {
	var keys []algorithms.TimerKey
	for _, e := range w.hosts[i].Timers.All() {
		keys = append(keys, e.Key())
	}
	sortKeys(keys)
	return keys[index]
}

func sortKeys(keys []algorithms.TimerKey) {
	slices.SortFunc(keys, func(a, b algorithms.TimerKey) int {
		if a.Resource != b.Resource {
			if a.Resource < b.Resource {
				return -1
			}
			return 1
		}
		return int(a.Kind) - int(b.Kind)
	})
}

// Apply performs a.
func (w *World) Apply(t testing.TB, a Action) {
	t.Helper()
	switch a.Kind {
	case Deliver:
		m := w.flight[a.Index]
		if !a.Keep {
			w.flight = slices.Delete(w.flight, a.Index, a.Index+1)
		}
		if int(m.To) < len(w.hosts) {
			w.step(t, int(m.To), algorithms.Input{Kind: algorithms.Recv, Msg: m})
		}
	case Drop:
		w.flight = slices.Delete(w.flight, a.Index, a.Index+1)
	case Client:
		w.step(t, a.Node, algorithms.Input{Kind: a.Input, Resource: a.Resource})
	case FireTimer:
		h := &w.hosts[a.Node]
		i := h.Timers.Get(w.timerKey(a.Node, a.Index))
		at := h.Timers.At(i).At
		key := h.Timers.Take(i)
		if d := int64(at - w.Local(a.Node)); d > 0 {
			w.now += d
		}
		w.step(t, a.Node, algorithms.Input{Kind: algorithms.Fire, Timer: key})
	case Advance:
		w.now += int64(a.Dur)
	case Restart:
		i := a.Node
		h := &w.hosts[i]
		h.Restarts++
		src := rand.NewPCG(uint64(i)+1, 0x5eed+uint64(h.Restarts))
		n, err := w.s.New(algorithms.NodeID(i), w.cl, h.Restarts, h.Disk.Recovered(), rand.New(src))
		if err != nil {
			t.Fatalf("restart of node %d: %v", i, err)
		}
		h.Run(n, src)
		w.step(t, i, algorithms.Input{Kind: algorithms.Start})
	}
}

// Run runs every generic check of the contract on s.
func Run(t *testing.T, s *Setup) {
	t.Run("CloneIndependence", func(t *testing.T) { CloneIndependence(t, s) })
	t.Run("CloneDeterminism", func(t *testing.T) { CloneDeterminism(t, s) })
	t.Run("StateTimeShift", func(t *testing.T) { StateTimeShift(t, s) })
	t.Run("CloneRandomSuffix", func(t *testing.T) { CloneRandomSuffix(t, s) })
	t.Run("StateEqualBehaviour", func(t *testing.T) { StateEqualBehaviour(t, s) })
	t.Run("CloneCost", func(t *testing.T) { CloneCost(t, s) })
	t.Run("DescribeReadOnly", func(t *testing.T) { DescribeReadOnly(t, s) })
}

// CloneCost measures the bytes and time of Clone on the nodes of random
// walks and fails when a Clone allocates more than the state the node
// holds calls for: the node struct itself (twice, for what its slices and
// maps cost beyond their contents) plus cloneBytesPerEncoded bytes per
// byte of its encoding plus cloneSlack. The explorer clones a node at
// every move that steps it, so a Clone that copies capacity kept for other
// workloads (a chunk of slots, an index sized for thousands of resources)
// or state the node no longer holds costs that much per state explored
// (naive's chunked table once cost 37 KB per Clone where its state was a
// few dozen bytes). The time is logged, not asserted (timings are measured
// with benchmarks, never asserted by tests).
func CloneCost(t *testing.T, s *Setup) {
	var worst, sumBytes, sumNS float64
	var worstWhere string
	count := 0
	r := rand.New(rand.NewPCG(1, 1))
	for seed := uint64(1); seed <= 12; seed++ {
		w := walked(t, s, rand.New(rand.NewPCG(seed, 10)), 80)
		for i, n := range w.Nodes() {
			enc := n.AppendState(nil, w.Local(i))
			bytes, ns := cloneCost(n, r)
			limit := 2*float64(reflect.TypeOf(n).Elem().Size()) + cloneBytesPerEncoded*float64(len(enc)) + cloneSlack
			if bytes > limit {
				t.Fatalf("seed %d node %d: Clone allocates %.0f bytes for a state of %d encoded bytes (limit %.0f): it copies more than the node holds",
					seed, i, bytes, len(enc), limit)
			}
			if bytes/limit > worst {
				worst, worstWhere = bytes/limit, fmt.Sprintf("seed %d node %d: %.0f B for %d encoded bytes", seed, i, bytes, len(enc))
			}
			sumBytes += bytes
			sumNS += ns
			count++
		}
	}
	t.Logf("Clone: %.0f B and %.0f ns on average over %d nodes; closest to the limit: %s (%.0f%% of it)",
		sumBytes/float64(count), sumNS/float64(count), count, worstWhere, 100*worst)
}

const (
	cloneBytesPerEncoded = 32
	cloneSlack           = 512
)

// cloneSink keeps the clones CloneCost makes alive until measured.
var cloneSink algorithms.Node

// cloneCost returns the bytes allocated and the time taken by one Clone
// of n, averaged over a few hundred.
func cloneCost(n algorithms.Explorable, r *rand.Rand) (bytes, ns float64) {
	const reps = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for range reps {
		cloneSink = n.Clone(r)
	}
	el := time.Since(start)
	runtime.ReadMemStats(&after)
	cloneSink = nil
	return float64(after.TotalAlloc-before.TotalAlloc) / reps, float64(el.Nanoseconds()) / reps
}

// DescribeReadOnly: a node that describes itself (algorithms.Describer)
// says something at every point of a random walk, the same thing when
// asked twice, and asking changes nothing: a world whose nodes are asked
// before every step gives the outputs and encodings of one never asked.
func DescribeReadOnly(t *testing.T, s *Setup) {
	w := NewWorld(t, s, Base)
	if _, ok := w.Nodes()[0].(algorithms.Describer); !ok {
		t.Skip("the algorithm does not describe its nodes (algorithms.Describer is optional)")
	}
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 8))
		w := walked(t, s, rng, 60)
		a, b := w.Clone(t), w.Clone(t)
		for k := 0; k < 60; k++ {
			for i, n := range a.Nodes() {
				d, ok := n.(algorithms.Describer)
				if !ok {
					continue // down
				}
				first := d.Describe(a.Local(i))
				if first == "" || d.Describe(a.Local(i)) != first {
					t.Fatalf("seed %d step %d: node %d describes itself as %q, then %q", seed, k, i, first, d.Describe(a.Local(i)))
				}
			}
			act := a.RandomAction(rng)
			a.Apply(t, act)
			b.Apply(t, act)
			if !slices.Equal(a.Log, b.Log) || !bytes.Equal(a.Encode(), b.Encode()) {
				t.Fatalf("seed %d step %d: a world asked to describe itself behaves differently:\n%s", seed, k, diff(a.Log, b.Log))
			}
		}
	}
}

// walk applies n random actions drawn from rng to w.
func walk(t testing.TB, w *World, rng *rand.Rand, n int) {
	for k := 0; k < n; k++ {
		w.Apply(t, w.RandomAction(rng))
	}
}

// walked is a new world after a random walk of fewer than max steps.
func walked(t testing.TB, s *Setup, rng *rand.Rand, max int) *World {
	w := NewWorld(t, s, Base)
	walk(t, w, rng, rng.IntN(max))
	return w
}

// CloneIndependence: stepping a clone leaves the original's encoding
// unchanged and the other way round; and the clone draws from its own
// random source (a second clone taken at the same point and the original
// still agree after the first clone ran).
func CloneIndependence(t *testing.T, s *Setup) {
	for seed := uint64(1); seed <= 40; seed++ {
		a := walked(t, s, rand.New(rand.NewPCG(seed, 1)), 60)
		b := a.Clone(t)
		c := a.Clone(t)
		before := a.Encode()
		walk(t, b, rand.New(rand.NewPCG(seed, 2)), 40)
		if got := a.Encode(); !bytes.Equal(got, before) {
			t.Fatalf("seed %d: stepping the clone changed the original's encoding", seed)
		}
		cBefore := c.Encode()
		walk(t, a, rand.New(rand.NewPCG(seed, 3)), 40)
		if got := c.Encode(); !bytes.Equal(got, cBefore) {
			t.Fatalf("seed %d: stepping the original changed a clone's encoding", seed)
		}
		walk(t, c, rand.New(rand.NewPCG(seed, 3)), 40)
		if !slices.Equal(a.Log[len(a.Log)-len(c.Log):], c.Log) {
			t.Fatalf("seed %d: the original and a clone disagree after another clone ran:\n%s", seed, diff(a.Log[len(a.Log)-len(c.Log):], c.Log))
		}
	}
}

// CloneDeterminism: two clones given equal inputs give equal outputs and
// equal encodings after every step.
func CloneDeterminism(t *testing.T, s *Setup) {
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 4))
		w := walked(t, s, rng, 60)
		lockstep(t, w.Clone(t), w.Clone(t), rng, 60, fmt.Sprintf("seed %d", seed))
	}
}

// lockstep applies the same steps random actions to a and b and fails at
// the first step after which their outputs or encodings differ.
func lockstep(t *testing.T, a, b *World, rng *rand.Rand, steps int, what string) {
	t.Helper()
	for k := 0; k < steps; k++ {
		act := a.RandomAction(rng)
		a.Apply(t, act)
		b.Apply(t, act)
		if !slices.Equal(a.Log, b.Log) {
			t.Fatalf("%s step %d: outputs differ:\n%s", what, k, diff(a.Log, b.Log))
		}
		if !bytes.Equal(a.Encode(), b.Encode()) {
			t.Fatalf("%s step %d: encodings differ", what, k)
		}
	}
}

// StateTimeShift: the same actions on a world whose clocks all start Δ
// later give equal encodings (each at its node's shifted now) and outputs
// equal up to the shift.
func StateTimeShift(t *testing.T, s *Setup) {
	for seed := uint64(1); seed <= 40; seed++ {
		delta := algorithms.Local(12_345_678_901 * int64(seed))
		rng := rand.New(rand.NewPCG(seed, 5))
		a, b := NewWorld(t, s, Base), NewWorld(t, s, Base+delta)
		lockstep(t, a, b, rng, 120, fmt.Sprintf("seed %d, time shift %d,", seed, delta))
	}
}

// CloneRandomSuffix: clone at a random point of a random walk, feed the
// same random suffix to both: identical outputs and encodings.
func CloneRandomSuffix(t *testing.T, s *Setup) {
	for seed := uint64(1); seed <= 100; seed++ {
		rng := rand.New(rand.NewPCG(seed, 6))
		a := walked(t, s, rng, 150)
		b := a.Clone(t)
		a.Log = nil
		lockstep(t, a, b, rng, 80, fmt.Sprintf("seed %d, after the clone point,", seed))
	}
}

// snapshot is one node as a random walk left it.
type snapshot struct {
	node    algorithms.Explorable
	now     algorithms.Local
	history uint64 // hash of the inputs that led there, times relative
	where   string
}

// poolMsg is a message seen in some walk, its expiry relative to the
// sender's clock when sent.
type poolMsg struct {
	m   algorithms.Message
	rel int64
}

// StateEqualBehaviour: nodes reached by different input histories whose
// encodings are equal answer the same random input sequences (messages
// seen in the walks, client requests, Fire of any timer key, at the same
// times relative to their own now) with the same outputs, given the same
// random source. At least 20 such pairs must be found and compared.
func StateEqualBehaviour(t *testing.T, s *Setup) {
	seen := map[string]*snapshot{}
	var pool []poolMsg
	compared := 0
	for walkNo := uint64(1); walkNo <= 400 && compared < 300; walkNo++ {
		rng := rand.New(rand.NewPCG(walkNo, 7))
		w := NewWorld(t, s, Base)
		hist := make([]uint64, len(w.hosts))
		for k := 0; k < 30 && compared < 300; k++ {
			act := w.RandomAction(rng)
			// The input this action gives a node, for the history hash.
			target, input := -1, ""
			switch act.Kind {
			case Deliver:
				m := w.flight[act.Index]
				target = int(m.To)
				m.Expiry = algorithms.Local(rel(m.Expiry, w.Local(int(m.From))))
				input = fmt.Sprintf("recv %+v", m)
			case Client:
				target, input = act.Node, fmt.Sprintf("client %v %d", act.Input, act.Resource)
			case FireTimer:
				target = act.Node
				key := w.timerKey(act.Node, act.Index)
				input = fmt.Sprintf("fire %+v", key)
			case Restart:
				target, input = act.Node, "restart"
			}
			nFlight := len(w.flight)
			w.Apply(t, act)
			for _, m := range w.flight[min(nFlight, len(w.flight)):] {
				pool = append(pool, poolMsg{m: m, rel: rel(m.Expiry, w.Local(int(m.From)))})
			}
			if target < 0 {
				continue
			}
			h := fnv.New64a()
			fmt.Fprintf(h, "%d|%s|%d", hist[target], input, int64(w.Local(target)-Base))
			hist[target] = h.Sum64()
			key := string(w.node(target).AppendState([]byte{byte(target)}, w.Local(target)))
			cur := &snapshot{now: w.Local(target), history: hist[target], where: fmt.Sprintf("walk %d step %d node %d", walkNo, k, target)}
			prev, ok := seen[key]
			if !ok {
				cur.node = w.node(target).Clone(rand.New(rand.NewPCG(0, 0))).(algorithms.Explorable)
				seen[key] = cur
				continue
			}
			if prev.history == cur.history {
				continue
			}
			compared++
			for suf := uint64(0); suf < 4; suf++ {
				la := runSuffix(t, s, target, prev.node, prev.now, pool, walkNo*7+suf)
				lb := runSuffix(t, s, target, w.node(target), cur.now, pool, walkNo*7+suf)
				if !slices.Equal(la, lb) {
					t.Fatalf("equal encodings, different behaviour: %s and %s, suffix %d:\n%s", prev.where, cur.where, suf, diff(la, lb))
				}
			}
		}
	}
	if compared < 20 {
		t.Fatalf("only %d pairs of distinct histories with equal encodings found; the check needs at least 20", compared)
	}
	t.Logf("%d pairs of distinct histories with equal encodings behaved alike on 4 suffixes each", compared)
}

// runSuffix feeds a clone of node id n (at local time now) a random input
// sequence drawn from seed and returns its outputs, times relative to now:
// messages from the pool (readdressed to n), its own messages back to it,
// the timers it asked for at their deadlines, Fire of arbitrary keys,
// client requests and time steps.
func runSuffix(t testing.TB, s *Setup, id int, n algorithms.Explorable, now algorithms.Local, pool []poolMsg, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 8))
	c := n.Clone(rand.New(rand.NewPCG(seed, 9)))
	start := now
	var out algorithms.Output
	var log []string
	var own []algorithms.Message
	timers := map[algorithms.TimerKey]algorithms.Local{}
	for k := 0; k < 40; k++ {
		if rng.IntN(10) == 0 {
			now += algorithms.Local(rng.Int64N(int64(s.Params.ResponseTimeout)))
		}
		var in algorithms.Input
		switch x := rng.IntN(20); {
		case x < 6 && len(pool) > 0:
			pm := pool[rng.IntN(len(pool))]
			m := pm.m
			m.To = algorithms.NodeID(id)
			if m.Expiry != 0 {
				m.Expiry = now + algorithms.Local(pm.rel)
			}
			in = algorithms.Input{Kind: algorithms.Recv, Msg: m}
		case x < 10 && len(own) > 0:
			// One of its own messages, answered as if by its addressee:
			// the node's own requests come back to it (as acceptor) or
			// are echoed with the sender and addressee swapped.
			m := own[rng.IntN(len(own))]
			if rng.IntN(2) == 0 {
				m.From, m.To = m.To, algorithms.NodeID(id)
			} else {
				m.To = algorithms.NodeID(id)
			}
			in = algorithms.Input{Kind: algorithms.Recv, Msg: m}
		case x < 14 && len(timers) > 0:
			key := sortedKeys(timers)[rng.IntN(len(timers))]
			if at := timers[key]; at > now {
				now = at
			}
			delete(timers, key)
			in = algorithms.Input{Kind: algorithms.Fire, Timer: key}
		case x < 15:
			in = algorithms.Input{Kind: algorithms.Fire, Timer: algorithms.TimerKey{
				Resource: algorithms.ResourceID(rng.IntN(s.Resources + 1)),
				Kind:     s.TimerKinds[rng.IntN(len(s.TimerKinds))]}}
		default:
			kinds := [...]algorithms.InputKind{algorithms.Acquire, algorithms.Acquire, algorithms.Extend, algorithms.Relinquish}
			in = algorithms.Input{Kind: kinds[rng.IntN(len(kinds))], Resource: algorithms.ResourceID(1 + rng.IntN(s.Resources))}
		}
		out.Reset()
		c.Step(now, in, &out)
		for _, tm := range out.Timers {
			if tm.Cancel {
				delete(timers, tm.Key)
			} else {
				timers[tm.Key] = tm.At
			}
		}
		own = append(own, out.Msgs...)
		log = append(log, fmt.Sprintf("@%d %v: %s", now-start, in.Kind, FormatOutput(&out, start, s.TimeTokens)))
	}
	return log
}

// diff shows the first difference of two logs.
func diff(a, b []string) string {
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("first difference at entry %d:\n  %s\n  %s", i, x, y)
		}
	}
	return "(equal)"
}

// Fields fails t unless v's struct type has exactly the fields named, in
// order. A package's field-coverage test lists, per state type, the fields
// its Clone and AppendState were written for, so adding one without
// deciding how to copy and encode it fails the test.
func Fields(t testing.TB, v any, want ...string) {
	t.Helper()
	typ := reflect.TypeOf(v)
	got := make([]string, typ.NumField())
	for i := range got {
		got[i] = typ.Field(i).Name
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s has fields %v; AppendState and Clone were written for %v", typ.Name(), got, want)
	}
}

// BenchClone measures n.Clone, the explorer's cost of branching.
func BenchClone(b *testing.B, n algorithms.Explorable) {
	r := rand.New(rand.NewPCG(1, 1))
	b.ReportAllocs()
	for b.Loop() {
		_ = n.Clone(r)
	}
}

// BenchAppendState measures n.AppendState at now into a reused buffer,
// the explorer's cost of deduplicating.
func BenchAppendState(b *testing.B, n algorithms.Explorable, now algorithms.Local) {
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = n.AppendState(buf[:0], now)
	}
}

// Change is an edit of a node's state and whether AppendState must tell
// the edited node from the unedited one. It is an unnamed struct, so that
// tests may list changes as {name, edit, differs}.
type Change[N algorithms.Explorable] = struct {
	Name    string
	Edit    func(n N)
	Differs bool
}

// Sensitivity checks each change on a node fresh from build: changes that
// matter change the encoding at now, changes that cannot influence any
// future output do not.
func Sensitivity[N algorithms.Explorable](t *testing.T, build func(testing.TB) N, now algorithms.Local, changes []Change[N]) {
	for _, c := range changes {
		t.Run(c.Name, func(t *testing.T) {
			base := build(t).AppendState(nil, now)
			n := build(t)
			c.Edit(n)
			if differs := !bytes.Equal(base, n.AppendState(nil, now)); differs != c.Differs {
				t.Fatalf("encoding differs = %v, want %v", differs, c.Differs)
			}
		})
	}
}

// OwnerError says how e, emitted by node, breaks the meaning of
// Event.Owner for its kind (algorithms/node.go), or nil.
func OwnerError(node algorithms.NodeID, e algorithms.Event) error {
	want := e.Owner
	switch e.Kind {
	case algorithms.Acquired, algorithms.Lost, algorithms.Round, algorithms.Timeout, algorithms.Failed:
		want = node
	case algorithms.Joined:
		want = algorithms.NoNode
	case algorithms.Preempted:
		if e.Ballot != 0 {
			want = e.Ballot.Node()
		}
	case algorithms.Granted, algorithms.Cleared:
		if e.Owner == algorithms.NoNode {
			return fmt.Errorf("%v event names no owner", e.Kind)
		}
	}
	if e.Owner != want {
		return fmt.Errorf("%v event has owner %v, want %v", e.Kind, e.Owner, want)
	}
	return nil
}
