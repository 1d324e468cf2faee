package runner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"leaselab/algorithms"
)

// The discrete-event simulator.
//
// Everything happens in virtual true time (ns since the run started), one
// event at a time, taken from one heap ordered by (true time, sequence
// number): the sequence number is the order in which events were
// scheduled, so ties break the same way in every run. One seed drives
// everything through independent PCG streams (network, faults, clocks,
// disk, driver, and one per node incarnation for Config.Rand), so a run
// is reproducible byte for byte; nothing depends on GOMAXPROCS, maps are
// never iterated where their order could leak, and the clock model is
// integer arithmetic.
//
// Network (per message, NetSpec): a node's messages to itself are
// delivered at the same instant as a separate Step, never lost, delayed or
// counted. Other messages first wait for the sender's link when Bandwidth
// is set (serialisation delay WireSize*1e9/Bandwidth ns per message,
// FIFO per sender); are dropped if sender and receiver are on different
// sides of an active partition (checked when sent) or with probability
// Loss; otherwise arrive after RTT/2 + uniform[-Jitter, +Jitter] (floored
// at 0); with probability Reorder they are held back uniform[0, max(2*RTT,
// 1ms)] more; with probability Dup a second copy is sent with its own
// delay. A message that arrives at a node that is down is dropped.
//
// Faults (FaultSpec): each node crashes as a Poisson process of CrashRate
// per minute of true time, stays down uniform[Downtime/2, Downtime], and
// restarts as a new node object (Restarts+1, durable records in
// Config.Recovered, then Input{Kind: Start}). Partition episodes start as
// a Poisson process of Partitions per minute (the next is drawn after the
// previous heals, so they never overlap), put every node on side A or B
// at random (both sides non-empty) and heal after uniform[len/2, len].
//
// Clocks (ClockSpec): node i's clock reads offset_i + t + floor(t *
// rate_i), offset uniform in [-Skew/2, Skew/2] ns, rate uniform in
// [-Drift, Drift] (kept in parts per billion). Timers are set in local
// time and fire at the first true instant the local clock reaches them.
// Clocks survive crashes (they are the machine's).
//
// Disk (DiskSpec, classic Paxos): see disk.go.

type evKind uint8

const (
	evDeliver evKind = iota + 1
	evTimer
	evFunc
	evInput
	evCrash
	evRestart
	evPartition
	evHeal
	evDisk
	evEnd
)

// simEvent is an entry of the event heap. arg indexes the slab the kind
// uses (message, timer, callback, input); gen guards timers and disk
// completions against reuse.
type simEvent struct {
	t    int64
	seq  uint64
	arg  int32
	gen  uint32
	kind evKind
	node algorithms.NodeID
}

type eventHeap []simEvent

func (h eventHeap) less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].seq < h[j].seq
}

func (h *eventHeap) push(e simEvent) {
	a := append(*h, e)
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !(a[i].t < a[p].t || a[i].t == a[p].t && a[i].seq < a[p].seq) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
	*h = a
}

func (h *eventHeap) pop() simEvent {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && (a[r].t < a[l].t || a[r].t == a[l].t && a[r].seq < a[l].seq) {
			m = r
		}
		if !(a[m].t < a[i].t || a[m].t == a[i].t && a[m].seq < a[i].seq) {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

type timerSlot struct {
	key  algorithms.TimerKey
	at   algorithms.Local // deadline on the node's clock
	gen  uint32
	node algorithms.NodeID
}

type inputSlot struct {
	res  algorithms.ResourceID
	kind algorithms.InputKind
}

type simNode struct {
	impl     algorithms.Node
	up       bool
	restarts uint16
	// incarnation counts boots; it guards disk completions of a previous
	// life.
	incarnation uint32
	timers      map[algorithms.TimerKey]int32
	// nextFree is when the node's outgoing link is free (Bandwidth).
	nextFree int64
	disk     disk
}

// sim is one simulated run. It implements Env and LocalClocks.
type sim struct {
	spec  Spec
	algo  algorithms.Algorithm
	seed  uint64
	now   int64
	seq   uint64
	q     eventHeap
	nodes []simNode
	clock []Clock

	msgs     []algorithms.Message
	msgFree  []int32
	tslots   []timerSlot
	tFree    []int32
	funcs    []func()
	funcFree []int32
	inputs   []inputSlot
	inFree   []int32

	netRng, faultRng, diskRng *rand.Rand

	rec *Recorder
	drv *Driver
	tr  *Tracer
	out algorithms.Output

	stopped bool
	err     error
	steps   int64

	partActive bool
	side       []uint8

	keepDurable bool
	// scripted: the network never delivers on its own; messages wait in
	// pending until a scenario says what happens to them.
	scripted  bool
	pending   []pendingMsg
	pendSeq   int
	onPending func(pendingMsg)

	delivered int64
}

// pendingMsg is a message waiting for a scenario's decision.
type pendingMsg struct {
	id  int // 1-based, in send order, never reused
	msg algorithms.Message
}

// newSim builds the simulator for spec (already validated) and boots the
// nodes. The driver is attached by the caller.
func newSim(spec Spec, tr *Tracer, scripted bool) (*sim, error) {
	algo, err := algorithms.Lookup(spec.Algo)
	if err != nil {
		return nil, err
	}
	cl := algorithms.NewCluster(spec.Acceptors, spec.Proposers)
	s := &sim{
		spec:     spec,
		algo:     algo,
		seed:     spec.Seed,
		nodes:    make([]simNode, cl.Nodes),
		clock:    make([]Clock, cl.Nodes),
		netRng:   rand.New(rand.NewPCG(spec.Seed, streamNet)),
		faultRng: rand.New(rand.NewPCG(spec.Seed, streamFault)),
		diskRng:  rand.New(rand.NewPCG(spec.Seed, streamDisk)),
		tr:       tr,
		side:     make([]uint8, cl.Nodes),
		scripted: scripted,
	}
	s.keepDurable = scripted || spec.Faults.CrashRate > 0 || spec.Workload == "failover"
	crng := rand.New(rand.NewPCG(spec.Seed, streamClock))
	skew := int64(spec.Clocks.Skew)
	drift := int64(math.Round(spec.Clocks.Drift * 1e9))
	for i := range s.clock {
		var off, rate int64
		if skew > 0 {
			off = crng.Int64N(skew+1) - skew/2
		}
		if drift > 0 {
			rate = crng.Int64N(2*drift+1) - drift
		}
		s.clock[i] = Clock{Offset: off, RatePPB: rate}
	}
	s.rec = NewRecorder(spec, s, tr)
	return s, nil
}

// boot starts every node (Restarts 0) at true time 0.
func (s *sim) boot() error {
	for i := range s.nodes {
		if err := s.startNode(algorithms.NodeID(i), false); err != nil {
			return err
		}
	}
	return nil
}

func (s *sim) nodeRand(n algorithms.NodeID, restarts uint16) *rand.Rand {
	return rand.New(rand.NewPCG(s.seed^uint64(n)<<32^uint64(restarts), streamNode))
}

// startNode builds node n (a restart if again) and steps it with Start.
func (s *sim) startNode(n algorithms.NodeID, again bool) error {
	nd := &s.nodes[n]
	if again {
		nd.restarts++
	}
	cfg := algorithms.Config{
		ID:        n,
		Cluster:   algorithms.NewCluster(s.spec.Acceptors, s.spec.Proposers),
		Params:    s.spec.Params,
		Ablations: s.spec.Ablate,
		Rand:      s.nodeRand(n, nd.restarts),
		Restarts:  nd.restarts,
	}
	if len(nd.disk.durable) > 0 {
		cfg.Recovered = append([]algorithms.Record(nil), nd.disk.durable...)
	}
	impl, err := s.algo.New(cfg)
	if err != nil {
		return fmt.Errorf("building node %d: %w", n, err)
	}
	nd.impl = impl
	nd.up = true
	nd.incarnation++
	nd.timers = make(map[algorithms.TimerKey]int32)
	if again {
		s.trace(&TraceRec{T: s.now, Local: s.clock[n].Local(s.now), Kind: TraceRestart, Node: n, X: int64(nd.restarts)})
	}
	s.step(n, algorithms.Input{Kind: algorithms.Start})
	return nil
}

func (s *sim) trace(r *TraceRec) {
	if s.tr != nil {
		s.tr.Add(r)
	}
}

func (s *sim) schedule(t int64, kind evKind, node algorithms.NodeID, arg int32, gen uint32) {
	s.seq++
	s.q.push(simEvent{t: t, seq: s.seq, arg: arg, gen: gen, kind: kind, node: node})
}

// --- Env ---

func (s *sim) Now() int64 { return s.now }

func (s *sim) TrueAt(n algorithms.NodeID, l algorithms.Local) int64 { return s.clock[n].TrueAt(l) }

func (s *sim) LocalAt(n algorithms.NodeID, t int64) algorithms.Local { return s.clock[n].Local(t) }

func (s *sim) At(t int64, f func()) {
	if t < s.now {
		t = s.now
	}
	var i int32
	if k := len(s.funcFree); k > 0 {
		i = s.funcFree[k-1]
		s.funcFree = s.funcFree[:k-1]
		s.funcs[i] = f
	} else {
		s.funcs = append(s.funcs, f)
		i = int32(len(s.funcs) - 1)
	}
	s.schedule(t, evFunc, 0, i, 0)
}

func (s *sim) Input(n algorithms.NodeID, in algorithms.Input) bool {
	if int(n) >= len(s.nodes) || !s.nodes[n].up {
		return false
	}
	var i int32
	slot := inputSlot{res: in.Resource, kind: in.Kind}
	if k := len(s.inFree); k > 0 {
		i = s.inFree[k-1]
		s.inFree = s.inFree[:k-1]
		s.inputs[i] = slot
	} else {
		s.inputs = append(s.inputs, slot)
		i = int32(len(s.inputs) - 1)
	}
	s.schedule(s.now, evInput, n, i, s.nodes[n].incarnation)
	return true
}

func (s *sim) Up(n algorithms.NodeID) bool { return int(n) < len(s.nodes) && s.nodes[n].up }

func (s *sim) Stop() { s.stopped = true }

func (s *sim) Crash(n algorithms.NodeID) {
	nd := &s.nodes[n]
	if !nd.up {
		return
	}
	nd.up = false
	nd.impl = nil
	for _, slot := range nd.timers {
		s.freeTimer(slot)
	}
	nd.timers = nil
	nd.disk.crash()
	s.trace(&TraceRec{T: s.now, Local: s.clock[n].Local(s.now), Kind: TraceCrash, Node: n})
	if s.drv != nil {
		s.drv.Crashed(n)
	} else {
		s.rec.Crash(s.now, n)
	}
}

func (s *sim) Restart(n algorithms.NodeID) {
	if s.nodes[n].up {
		return
	}
	if err := s.startNode(n, true); err != nil {
		s.fail(err)
		return
	}
	if s.drv != nil {
		s.drv.Restarted(n)
	}
}

func (s *sim) fail(err error) {
	if s.err == nil {
		s.err = err
	}
	s.stopped = true
}

// --- stepping a node ---

// step hands in to node n at the current true time and carries out its
// output. Steps never nest: inputs that arise while handling an output are
// scheduled as events of their own.
func (s *sim) step(n algorithms.NodeID, in algorithms.Input) {
	nd := &s.nodes[n]
	local := s.clock[n].Local(s.now)
	s.steps++
	s.out.Reset()
	nd.impl.Step(local, in, &s.out)
	out := &s.out
	inc := nd.incarnation

	for i := range out.Timers {
		s.setTimer(n, local, &out.Timers[i])
	}
	if len(out.Persist) > 0 {
		s.diskWrite(n, out)
	} else {
		for i := range out.Msgs {
			s.send(&out.Msgs[i])
		}
	}
	for i := range out.Events {
		ev := out.Events[i]
		if s.drv != nil {
			s.drv.Event(n, local, ev)
		} else {
			s.rec.Event(s.now, n, local, ev)
		}
		if !s.nodes[n].up || s.nodes[n].incarnation != inc {
			break // the node crashed in reaction (never happens with the built-in workloads)
		}
	}
}

func (s *sim) setTimer(n algorithms.NodeID, local algorithms.Local, t *algorithms.Timer) {
	nd := &s.nodes[n]
	slot, ok := nd.timers[t.Key]
	if t.Cancel {
		if ok {
			delete(nd.timers, t.Key)
			s.freeTimer(slot)
		}
		return
	}
	if !ok {
		if k := len(s.tFree); k > 0 {
			slot = s.tFree[k-1]
			s.tFree = s.tFree[:k-1]
		} else {
			s.tslots = append(s.tslots, timerSlot{})
			slot = int32(len(s.tslots) - 1)
		}
		s.tslots[slot].key = t.Key
		s.tslots[slot].node = n
		nd.timers[t.Key] = slot
	}
	s.tslots[slot].gen++
	s.tslots[slot].at = t.At
	s.armTimer(slot, local)
}

// armTimer schedules timer slot for the first true instant its node's
// clock reaches its deadline (now, if the clock, reading local, is there).
func (s *sim) armTimer(slot int32, local algorithms.Local) {
	ts := &s.tslots[slot]
	at := s.now
	if ts.at > local {
		at = s.clock[ts.node].TrueAt(ts.at)
	}
	if at == math.MaxInt64 {
		return // "never": keep the key, schedule nothing
	}
	s.schedule(at, evTimer, ts.node, slot, ts.gen)
}

// setClock replaces node n's clock model from now on (scenario files):
// its pending timers and hold intervals are mapped to true time again.
func (s *sim) setClock(n algorithms.NodeID, c Clock) {
	s.clock[n] = c
	s.trace(&TraceRec{T: s.now, Local: c.Local(s.now), Kind: TraceClock, Node: n, X: c.Offset, Y: c.RatePPB})
	s.rec.Checker().Reclock(s.now, n)
	nd := &s.nodes[n]
	if !nd.up {
		return
	}
	local := c.Local(s.now)
	// Re-arm in slot order, not map order, so the run stays deterministic.
	slots := make([]int32, 0, len(nd.timers))
	for _, slot := range nd.timers {
		slots = append(slots, slot)
	}
	slices.Sort(slots)
	for _, slot := range slots {
		s.tslots[slot].gen++
		s.armTimer(slot, local)
	}
}

func (s *sim) freeTimer(slot int32) {
	s.tslots[slot].gen++
	s.tFree = append(s.tFree, slot)
}

// send hands m to the network.
func (s *sim) send(m *algorithms.Message) {
	from := m.From
	s.rec.Sent(s.now, m)
	if s.tr != nil {
		s.tr.Add(&TraceRec{T: s.now, Local: s.clock[from].Local(s.now), Kind: TraceSend, Node: from, Msg: *m})
	}
	if int(m.To) >= len(s.nodes) {
		s.fail(fmt.Errorf("node %d sent %v to a node that does not exist (cluster of %d)", from, *m, len(s.nodes)))
		return
	}
	if m.To == from {
		s.deliverAt(s.now, m)
		return
	}
	if s.scripted {
		s.pendSeq++
		p := pendingMsg{id: s.pendSeq, msg: *m}
		s.pending = append(s.pending, p)
		if s.onPending != nil {
			s.onPending(p)
		}
		return
	}
	net := &s.spec.Net
	depart := s.now
	if net.Bandwidth > 0 {
		nd := &s.nodes[from]
		if nd.nextFree > depart {
			depart = nd.nextFree
		}
		depart += (algorithms.WireSize*1_000_000_000 + net.Bandwidth - 1) / net.Bandwidth
		nd.nextFree = depart
	}
	if s.partActive && s.side[from] != s.side[m.To] {
		s.drop(m, DropPartition)
		return
	}
	if net.Loss > 0 && s.netRng.Float64() < net.Loss {
		s.drop(m, DropLoss)
		return
	}
	s.deliverAt(depart+s.delay(), m)
	if net.Dup > 0 && s.netRng.Float64() < net.Dup {
		if s.tr != nil {
			s.tr.Add(&TraceRec{T: s.now, Local: s.clock[from].Local(s.now), Kind: TraceDup, Node: from, Msg: *m})
		}
		s.deliverAt(depart+s.delay(), m)
	}
}

// delay draws one message's one-way delay.
func (s *sim) delay() int64 {
	net := &s.spec.Net
	d := int64(net.RTT) / 2
	if j := int64(net.Jitter); j > 0 {
		d += s.netRng.Int64N(2*j+1) - j
		if d < 0 {
			d = 0
		}
	}
	if net.Reorder > 0 && s.netRng.Float64() < net.Reorder {
		extra := 2 * int64(net.RTT)
		if extra < 1_000_000 {
			extra = 1_000_000
		}
		d += s.netRng.Int64N(extra + 1)
	}
	return d
}

func (s *sim) drop(m *algorithms.Message, reason uint8) {
	if s.tr != nil {
		s.tr.Add(&TraceRec{T: s.now, Local: s.clock[m.From].Local(s.now), Kind: TraceDrop, Sub: reason, Node: m.From, Msg: *m})
	}
}

func (s *sim) deliverAt(t int64, m *algorithms.Message) {
	var i int32
	if k := len(s.msgFree); k > 0 {
		i = s.msgFree[k-1]
		s.msgFree = s.msgFree[:k-1]
		s.msgs[i] = *m
	} else {
		s.msgs = append(s.msgs, *m)
		i = int32(len(s.msgs) - 1)
	}
	s.schedule(t, evDeliver, m.To, i, 0)
}

// --- the event loop ---

func (s *sim) dispatch(e simEvent) {
	switch e.kind {
	case evDeliver:
		m := s.msgs[e.arg]
		s.msgFree = append(s.msgFree, e.arg)
		s.deliver(&m)
	case evTimer:
		ts := &s.tslots[e.arg]
		if ts.gen != e.gen {
			return // replaced or cancelled since
		}
		n := ts.node
		key := ts.key
		nd := &s.nodes[n]
		if !nd.up {
			return
		}
		delete(nd.timers, key)
		s.freeTimer(e.arg)
		if s.tr != nil {
			s.tr.Add(&TraceRec{T: s.now, Local: s.clock[n].Local(s.now), Kind: TraceFire, Sub: key.Kind, Node: n, Res: key.Resource})
		}
		s.step(n, algorithms.Input{Kind: algorithms.Fire, Timer: key})
	case evFunc:
		f := s.funcs[e.arg]
		s.funcs[e.arg] = nil
		s.funcFree = append(s.funcFree, e.arg)
		f()
	case evInput:
		in := s.inputs[e.arg]
		s.inFree = append(s.inFree, e.arg)
		nd := &s.nodes[e.node]
		if !nd.up || nd.incarnation != e.gen {
			return // the node crashed since the client asked
		}
		s.step(e.node, algorithms.Input{Kind: in.kind, Resource: in.res})
	case evCrash:
		s.faultCrash(e.node)
	case evRestart:
		s.Restart(e.node)
	case evPartition:
		s.startPartition()
	case evHeal:
		s.heal()
	case evDisk:
		s.diskDone(e.node, e.gen)
	case evEnd:
		s.stopped = true
	}
}

// deliver steps a message into its receiver.
func (s *sim) deliver(m *algorithms.Message) {
	nd := &s.nodes[m.To]
	if !nd.up {
		if s.tr != nil {
			s.tr.Add(&TraceRec{T: s.now, Local: s.clock[m.To].Local(s.now), Kind: TraceDrop, Sub: DropDown, Node: m.To, Msg: *m})
		}
		return
	}
	s.delivered++
	if s.tr != nil {
		s.tr.Add(&TraceRec{T: s.now, Local: s.clock[m.To].Local(s.now), Kind: TraceDeliver, Node: m.To, Msg: *m})
	}
	s.step(m.To, algorithms.Input{Kind: algorithms.Recv, Msg: *m})
}

// expDelay draws a Poisson process's next gap for rate events per minute.
func (s *sim) expDelay(perMinute float64) int64 {
	return int64(s.faultRng.ExpFloat64() * 60e9 / perMinute)
}

// scheduleFaults draws the first crash of every node and the first
// partition.
func (s *sim) scheduleFaults() {
	f := &s.spec.Faults
	if f.CrashRate > 0 {
		for i := range s.nodes {
			s.schedule(s.expDelay(f.CrashRate), evCrash, algorithms.NodeID(i), 0, 0)
		}
	}
	if f.Partitions > 0 && len(s.nodes) > 1 {
		s.schedule(s.expDelay(f.Partitions), evPartition, 0, 0, 0)
	}
}

func (s *sim) uniformHalf(d int64) int64 {
	// uniform in [d/2, d]
	return d/2 + s.faultRng.Int64N(d-d/2+1)
}

func (s *sim) faultCrash(n algorithms.NodeID) {
	f := &s.spec.Faults
	if !s.nodes[n].up {
		s.schedule(s.now+s.expDelay(f.CrashRate), evCrash, n, 0, 0)
		return
	}
	s.Crash(n)
	back := s.now + s.uniformHalf(int64(f.Downtime))
	s.schedule(back, evRestart, n, 0, 0)
	s.schedule(back+s.expDelay(f.CrashRate), evCrash, n, 0, 0)
}

func (s *sim) startPartition() {
	n := len(s.nodes)
	a, b := 0, 0
	for i := range s.side {
		s.side[i] = uint8(s.faultRng.IntN(2))
		if s.side[i] == 0 {
			a++
		} else {
			b++
		}
	}
	if a == 0 || b == 0 {
		// Everyone landed on one side: move one random node across.
		k := s.faultRng.IntN(n)
		s.side[k] ^= 1
	}
	s.partActive = true
	var mask int64
	for i := 0; i < n && i < 64; i++ {
		if s.side[i] == 0 {
			mask |= 1 << i
		}
	}
	s.trace(&TraceRec{T: s.now, Local: algorithms.Local(s.now), Kind: TracePartition, Node: algorithms.NoNode, X: mask})
	s.rec.Partition(s.now)
	s.schedule(s.now+s.uniformHalf(int64(s.spec.Faults.PartitionLen)), evHeal, 0, 0, 0)
}

func (s *sim) heal() {
	s.partActive = false
	s.trace(&TraceRec{T: s.now, Local: algorithms.Local(s.now), Kind: TraceHeal, Node: algorithms.NoNode})
	if s.spec.Faults.Partitions > 0 {
		s.schedule(s.now+s.expDelay(s.spec.Faults.Partitions), evPartition, 0, 0, 0)
	}
}

// run runs events until the end of the run: Duration, Stop, an error, or
// nothing left to happen.
func (s *sim) run(progress func(float64)) {
	end := int64(s.spec.Duration)
	s.schedule(end, evEnd, 0, 0, 0)
	var nextProgress int64
	for len(s.q) > 0 && !s.stopped {
		e := s.q.pop()
		s.now = e.t
		// Holds that ended before this event end first, so the trace
		// and the meters see everything in true-time order.
		s.rec.chk.Advance(e.t)
		s.dispatch(e)
		if progress != nil && s.steps >= nextProgress {
			nextProgress = s.steps + 1<<16
			progress(float64(s.now) / float64(end))
		}
	}
	if progress != nil {
		progress(1)
	}
}
