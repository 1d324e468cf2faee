package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/faults"
	"leaselab/runner/host"
	"leaselab/runner/internal/slab"
	"leaselab/runner/record"
	"leaselab/runner/workload"
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
// delay. With Stale > 0 every directed link stalls now and then (Poisson,
// Stale episodes per minute, each lasting uniform[0, StaleSpans *
// LeaseSpan]): a message that leaves while its link is stalled arrives
// when the stall ends, after its normal delay if that is later, with the
// others held with it in send order: stale messages, seconds late, with a
// Release never overtaking the Propose it follows. A message that
// arrives at a node that is down is dropped.
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
// Clocks survive crashes (they are the machine's). Clocks are slewed back
// at the skew bound (see scheduleSlew) unless Clocks.Free.
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
	evSlew
	evPause
	evResume
	evJump
	evQuiet
)

// simEvent is a pending event; its true time is kept by the queue.
// arg indexes the slab the kind uses (message, timer, callback, input);
// gen guards timers and disk completions against reuse.
type simEvent struct {
	arg  int32
	gen  uint32
	kind evKind
	node algorithms.NodeID
}

// timedEvent is an event and its true time.
type timedEvent struct {
	t int64
	simEvent
}

// timerRef is the simulator's name for an armed timer, which its events
// carry: the node and its host's timer entry, and a generation that
// every re-arming, cancelling and firing bumps, so that an event of an
// earlier arming finds it changed and does nothing. References are
// handed out from one slab for all nodes, in the order timers are first
// set: that order is the one in which a changed clock re-arms a node's
// timers (setClock), and so part of the trace.
type timerRef struct {
	gen   uint32
	entry int32
	node  algorithms.NodeID
	live  bool
}

type inputSlot struct {
	res  algorithms.ResourceID
	kind algorithms.InputKind
}

// simNode is a node's host and what the simulator keeps beside it.
type simNode struct {
	host.Host
	// nextFree is when the node's outgoing link is free (Bandwidth).
	nextFree int64
	// syncStart is the true time the running sync began.
	syncStart int64
	// pause: the node's process pause and clock-jump state (pause.go).
	pause pauseState
}

// sim is one simulated run. It implements Env and LocalClocks.
type sim struct {
	spec  runner.Spec
	setup host.Setup
	now   int64
	// instant is now while the event loop runs, and -1 before it starts:
	// events scheduled for it wait in the queue's FIFO of the instant
	// (evQueue.push), after every event queued for it before.
	instant int64
	tables
	nodes []simNode
	clock []faults.Clock

	net     *faults.Net
	faults  *faults.Schedule
	diskRng *rand.Rand
	// pauses and jumps draw the process pauses and clock jumps (nil
	// without them).
	pauses, jumps *faults.Schedule
	clockJumps    int

	rec *record.Recorder
	drv *workload.Driver
	tr  *record.Tracer
	out algorithms.Output

	stopped bool
	err     error
	steps   int64
	// quiet: the settle stretch (Spec.Settle) has begun: no fault
	// starts (the driver ends the run once it has nothing left to judge).
	quiet bool

	partActive bool
	side       []uint8
	// pausing: a node may be paused (pause.go), so dispatch looks.
	pausing bool

	// scripted: the network never delivers on its own; messages wait in
	// pending until a scenario says what happens to them.
	scripted  bool
	pending   []pendingMsg
	pendSeq   int
	onPending func(pendingMsg)

	delivered int64
	warmSink  uint32 // keeps warm's loads
	// staleDelivered counts messages held back as stale that reached a
	// live receiver.
	staleDelivered int64
	// links[from*nodes+to]: the link's current or next stall; nil
	// without Stale.
	links []faults.Stall
	// leases: what each node's latest Acquired event told it, per
	// resource (scenarios: their writes; scenario_faults.go).
	leases map[leaseKey]scriptLease
}

// tables are the simulator's tables that grow with the events in flight.
// A run leaves them in tablePool for the next run in the process (check,
// campaigns and the benchmarks run seed after seed): reused memory is
// already mapped, where new tables of a batch cost page faults, zeroing
// and garbage collection on every run. reset keeps their memory and
// nothing else, so a run on reused tables hands out the same indices in
// the same order as on new ones, and its trace is the same.
type tables struct {
	q evQueue

	// What events refer to by index (simEvent.arg).
	msgs   slab.Slab[algorithms.Message]
	trefs  slab.Slab[timerRef]
	funcs  slab.Slab[func()]
	inputs slab.Slab[inputSlot]
	// timers are the nodes' timer sets of the last run, emptied.
	timers []host.Timers
}

var tablePool sync.Pool // of *tables

func (t *tables) reset() {
	t.q.reset()
	t.msgs.Reset()
	t.trefs.Reset()
	for i := range t.funcs.Len() {
		*t.funcs.At(int32(i)) = nil // let the garbage collector have the closures
	}
	t.funcs.Reset()
	t.inputs.Reset()
}

// release hands the simulator's tables to the next run; s must not run
// again.
func (s *sim) release() {
	t := &tables{}
	*t = s.tables
	s.tables = tables{}
	t.timers = t.timers[:0]
	for i := range s.nodes {
		s.nodes[i].Release()
		tm := s.nodes[i].Timers
		tm.Reset()
		t.timers = append(t.timers, tm)
	}
	s.rec.Release()
	t.reset()
	tablePool.Put(t)
}

// pendingMsg is a message waiting for a scenario's decision.
type pendingMsg struct {
	id  int // 1-based, in send order, never reused
	msg algorithms.Message
}

// newSim builds the simulator for plan p. The caller boots the nodes and
// attaches the driver.
func newSim(p runner.Plan, tr *record.Tracer, scripted bool) *sim {
	spec := p.Spec
	cl := p.Cluster()
	s := &sim{
		spec: spec,
		setup: host.Setup{Algo: p.Algo, Cluster: cl, Params: spec.Params,
			Ablate: spec.Ablate, Seed: spec.Seed},
		nodes: make([]simNode, cl.Nodes),
		net: faults.NewNet(spec.Seed, faults.Link{
			RTT: spec.Net.RTT, Jitter: spec.Net.Jitter,
			Loss: spec.Net.Loss, Dup: spec.Net.Dup, Reorder: spec.Net.Reorder,
			Stale: spec.Net.Stale, StaleMax: int64(spec.Net.StaleSpans * float64(spec.Params.LeaseSpan)),
			Late: spec.Net.Late,
		}),
		faults:   faults.NewSchedule(spec.Seed),
		diskRng:  faults.Rand(spec.Seed, faults.StreamDisk),
		tr:       tr,
		side:     make([]uint8, cl.Nodes),
		scripted: scripted,
		instant:  -1,
	}
	if t, ok := tablePool.Get().(*tables); ok {
		s.tables = *t
	}
	// Durable records are kept only when the run can crash nodes.
	keep := scripted || spec.Faults.CrashRate > 0 || p.Workload.Crashes
	for i := range s.nodes {
		nd := &s.nodes[i]
		nd.ID = algorithms.NodeID(i)
		if i < len(s.timers) {
			nd.Timers = s.timers[i]
		}
		nd.Disk.Keep = keep
		nd.Disk.Each = !spec.Disk.GroupCommit
	}
	s.clock = faults.DrawClocks(spec.Seed, cl.Nodes, spec.Clocks.Skew, spec.Clocks.Drift, spec.Clocks.Edges)
	s.rec = record.NewRecorder(p, s, tr)
	s.q.warm = s.warm
	return s
}

// warm reads, ahead of their turn, the message and timer slots that the
// events of a bucket being taken will read, and for each message the
// recorder's state of its resource (Recorder.Warm). Those were written
// long enough ago (a batch has tens of thousands of messages in flight,
// about resources in random order) to have left the core's caches; read
// one by one as the events run, each is a cache miss that stalls the
// loop, while here, in a tight loop of independent loads, the misses
// overlap. The recorder's state, read by the Granted and Acquired events
// most deliveries bring, measured 5-7% less CPU for BenchmarkSimDeliver
// (ten pairs); loading the receiving node's slot as well (through an
// interface on the node) measured 3% more, and loading the state a few
// events ahead instead of per bucket 7% more.
func (s *sim) warm(evs []bucketEvent) {
	var x uint64
	for i := range evs {
		switch e := &evs[i]; e.kind {
		case evDeliver:
			m := s.msgs.At(e.arg)
			x += uint64(m.To) + s.rec.Warm(m.Resource)
		case evTimer:
			x += uint64(s.trefs.At(e.arg).gen)
		}
	}
	s.warmSink = uint32(x)
}

// boot starts every node (Restarts 0) at true time 0, after recording
// each node's clock in the trace.
func (s *sim) boot() error {
	for i, c := range s.clock {
		s.trace(&record.TraceRec{T: s.now, Local: c.Local(s.now), Kind: record.TraceClock, Node: algorithms.NodeID(i), X: c.Offset, Y: c.RatePPB})
	}
	for i := range s.nodes {
		if err := s.startNode(algorithms.NodeID(i), false); err != nil {
			return err
		}
	}
	if !s.scripted && !s.spec.Clocks.Free {
		for i := range s.clock {
			s.scheduleSlew(algorithms.NodeID(i))
		}
	}
	return nil
}

// Clocks are disciplined the way NTP slews a clock: a node's offset from
// true time drifts at its rate error until it reaches the skew bound
// (Spec.Clocks.Skew/2 either way), then the rate error turns round. So
// clocks drift (the rate error is always within Spec.Clocks.Drift, and a
// local clock never runs backwards), yet any two differ by at most Skew for
// the whole run, as FaTLease's d_max assumes of synchronised clocks.
// Without a skew bound (Skew 0) clocks run free and drift apart without
// limit, and so do clocks with Clocks.Free: those keep their rate error
// for the whole run, Skew bounding only where they start.

// scheduleSlew schedules the instant node n's offset reaches the bound it
// is heading for.
func (s *sim) scheduleSlew(n algorithms.NodeID) {
	if dt, ok := s.clock[n].UntilBound(s.now, int64(s.spec.Clocks.Skew)/2); ok {
		s.schedule(s.now+dt, evSlew, n, 0, s.nodes[n].pause.slewGen)
	}
}

// slew turns node n's rate error round, keeping its reading continuous.
func (s *sim) slew(n algorithms.NodeID) {
	s.setClock(n, s.clock[n].Turned(s.now))
	s.scheduleSlew(n)
}

// startNode builds node n (a restart if again) and steps it with Start.
func (s *sim) startNode(n algorithms.NodeID, again bool) error {
	nd := &s.nodes[n]
	if again {
		nd.Restarts++
	}
	if err := nd.Boot(&s.setup, nd.Disk.Recovered()); err != nil {
		return err
	}
	if again {
		s.trace(&record.TraceRec{T: s.now, Local: s.clock[n].Local(s.now), Kind: record.TraceRestart, Node: n, X: int64(nd.Restarts)})
	}
	s.step(n, &algorithms.Input{Kind: algorithms.Start})
	return nil
}

func (s *sim) trace(r *record.TraceRec) {
	if s.tr != nil {
		s.tr.Add(r)
	}
}

// schedule queues an event (small enough to inline: one call, the
// queue's, per event scheduled).
func (s *sim) schedule(t int64, kind evKind, node algorithms.NodeID, arg int32, gen uint32) {
	s.q.push(timedEvent{t, simEvent{arg: arg, gen: gen, kind: kind, node: node}}, s.instant)
}

// next takes the next event due at or before until, in (time, scheduling
// order) order.
func (s *sim) next(until int64) (timedEvent, bool) { return s.q.next(s.instant, until) }

// pendingEvents is the number of events scheduled and not yet run.
func (s *sim) pendingEvents() int { return s.q.Len() }

// --- Env ---

func (s *sim) Now() int64 { return s.now }

func (s *sim) TrueAt(n algorithms.NodeID, l algorithms.Local) int64 { return s.clock[n].TrueAt(l) }

func (s *sim) LocalAt(n algorithms.NodeID, t int64) algorithms.Local { return s.clock[n].Local(t) }

func (s *sim) At(t int64, f func()) {
	if t < s.now {
		t = s.now
	}
	s.schedule(t, evFunc, 0, s.funcs.Put(f), 0)
}

func (s *sim) Input(n algorithms.NodeID, in algorithms.Input) bool {
	if int(n) >= len(s.nodes) || !s.nodes[n].Up() {
		return false
	}
	i := s.inputs.Put(inputSlot{res: in.Resource, kind: in.Kind})
	s.schedule(s.now, evInput, n, i, s.nodes[n].Life)
	return true
}

func (s *sim) Up(n algorithms.NodeID) bool { return int(n) < len(s.nodes) && s.nodes[n].Up() }

func (s *sim) Stop() { s.stopped = true }

func (s *sim) Crash(n algorithms.NodeID) {
	nd := &s.nodes[n]
	if !nd.Up() {
		return
	}
	for i := range s.trefs.Len() {
		if r := s.trefs.At(int32(i)); r.live && r.node == n {
			s.freeTimer(int32(i))
		}
	}
	s.unpause(n)
	nd.Crash()
	s.trace(&record.TraceRec{T: s.now, Local: s.clock[n].Local(s.now), Kind: record.TraceCrash, Node: n})
	if s.drv != nil {
		s.drv.Crashed(n)
	} else {
		s.rec.Crash(s.now, n)
	}
}

func (s *sim) Restart(n algorithms.NodeID) {
	if s.nodes[n].Up() {
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
// output (host.Host.Step, with the simulator as its host.Env). Steps
// never nest: inputs that arise while handling an output are scheduled
// as events of their own.
func (s *sim) step(n algorithms.NodeID, in *algorithms.Input) {
	local := s.clock[n].Local(s.now)
	s.steps++
	if err := s.nodes[n].Step(s, local, in, &s.out); err != nil {
		s.fail(err)
	}
}

// Event hands one event of a node to the driver (or, with none, the
// recorder).
func (s *sim) Event(h *host.Host, local algorithms.Local, ev *algorithms.Event) {
	if s.drv != nil {
		s.drv.EventRef(h.ID, local, ev)
	} else {
		s.rec.EventRef(s.now, h.ID, local, ev)
		s.noteLease(h.ID, ev)
	}
}

// Arm schedules h's timer entry i, set at a step whose clock read local.
// A timer set for the first time gets a reference.
func (s *sim) Arm(h *host.Host, i int32, local algorithms.Local) {
	e := h.Timers.At(i)
	var ref *timerRef
	if e.Ref == host.NoRef {
		r := s.trefs.Alloc()
		ref = s.trefs.At(r)
		ref.entry, ref.node, ref.live = i, h.ID, true
		e.Ref = uint32(r)
	} else {
		ref = s.trefs.At(int32(e.Ref))
	}
	ref.gen++
	s.armRef(int32(e.Ref), ref, e.At, local)
}

// Disarm frees the reference of a cancelled timer.
func (s *sim) Disarm(_ *host.Host, _ int32, t host.Timer) { s.freeTimer(int32(t.Ref)) }

// armTimer schedules timer reference r, due at the node's local time at,
// for the first true instant the node's clock reaches it (now, if the
// clock, reading local, is there).
func (s *sim) armTimer(r int32, at, local algorithms.Local) {
	s.armRef(r, s.trefs.At(r), at, local)
}

// armRef is armTimer with r's reference at hand.
func (s *sim) armRef(r int32, ref *timerRef, at, local algorithms.Local) {
	t := s.now
	if at > local {
		t = s.clock[ref.node].TrueAt(at)
	}
	if t == math.MaxInt64 {
		return // "never": keep the key, schedule nothing
	}
	s.schedule(t, evTimer, ref.node, r, ref.gen)
}

// setClock replaces node n's clock model from now on (scenario files):
// its pending timers and hold intervals are mapped to true time again.
func (s *sim) setClock(n algorithms.NodeID, c faults.Clock) {
	s.clock[n] = c
	s.trace(&record.TraceRec{T: s.now, Local: c.Local(s.now), Kind: record.TraceClock, Node: n, X: c.Offset, Y: c.RatePPB})
	s.rec.Checker().Reclock(s.now, n)
	nd := &s.nodes[n]
	if !nd.Up() {
		return
	}
	local := c.Local(s.now)
	// Re-arm in reference order, so the run stays deterministic.
	for i := range s.trefs.Len() {
		if r := s.trefs.At(int32(i)); r.live && r.node == n {
			r.gen++
			s.armTimer(int32(i), nd.Timers.At(r.entry).At, local)
		}
	}
}

func (s *sim) freeTimer(r int32) {
	ref := s.trefs.At(r)
	ref.gen++
	ref.live = false
	s.trefs.Free(r)
}

// Send hands m to the network.
func (s *sim) Send(m *algorithms.Message) {
	from := m.From
	s.rec.Sent(s.now, m)
	if s.tr != nil {
		s.tr.AddMsg(s.now, s.clock[from].Local(s.now), record.TraceSend, 0, from, m)
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
		depart += (runner.WireSize*1_000_000_000 + net.Bandwidth - 1) / net.Bandwidth
		nd.nextFree = depart
	}
	if s.partActive && s.side[from] != s.side[m.To] {
		s.drop(m, record.DropPartition)
		return
	}
	if s.net.Lost() {
		s.drop(m, record.DropLoss)
		return
	}
	at, stale := s.arrival(m, depart)
	s.deliverMarked(at, m, stale)
	if s.net.Duplicated() {
		if s.tr != nil {
			s.tr.Add(&record.TraceRec{T: s.now, Local: s.clock[from].Local(s.now), Kind: record.TraceDup, Node: from, Msg: *m})
		}
		at, stale := s.arrival(m, depart)
		s.deliverMarked(at, m, stale)
	}
}

// arrival draws when m, leaving at depart, arrives, and whether it is
// stale: the delay, then its link's stall, then a late hold, each drawn
// only with its fault on (stall and late are calls of their own only
// then).
func (s *sim) arrival(m *algorithms.Message, depart int64) (int64, bool) {
	at, stale := depart+s.net.Delay(), false
	if s.spec.Net.Stale != 0 {
		at, stale = s.stall(m, depart, at)
	}
	if s.net.Late > 0 {
		at, stale = s.late(at, stale)
	}
	return at, stale
}

// stall returns when m, leaving at depart and due at t, arrives, and
// whether its link's stall held it back. Episodes are drawn lazily, link
// by link, as sends reach them (only with Stale > 0, so runs without
// stalls draw exactly what they always did).
func (s *sim) stall(m *algorithms.Message, depart, t int64) (int64, bool) {
	if s.spec.Net.Stale == 0 {
		return t, false
	}
	n := len(s.nodes)
	if s.links == nil {
		s.links = make([]faults.Stall, n*n)
		for i := range s.links {
			s.links[i] = s.net.NextStall(0)
		}
	}
	l := &s.links[int(m.From)*n+int(m.To)]
	for depart >= l.End {
		*l = s.net.NextStall(l.End)
	}
	if depart < l.Start {
		return t, false
	}
	if t < l.End {
		t = l.End
	}
	return t, true
}

// late holds a message due at t back alone (Net.Late): it counts as
// stale.
func (s *sim) late(t int64, stale bool) (int64, bool) {
	if extra, ok := s.net.LateHold(); ok {
		return t + extra, true
	}
	return t, stale
}

func (s *sim) drop(m *algorithms.Message, reason uint8) {
	if s.tr != nil {
		s.tr.Add(&record.TraceRec{T: s.now, Local: s.clock[m.From].Local(s.now), Kind: record.TraceDrop, Sub: reason, Node: m.From, Msg: *m})
	}
}

func (s *sim) deliverAt(t int64, m *algorithms.Message) { s.deliverMarked(t, m, false) }

// deliverMarked schedules m's delivery at t; stale marks a message held
// back as stale (in the event's gen, which deliveries do not use
// otherwise).
func (s *sim) deliverMarked(t int64, m *algorithms.Message, stale bool) {
	i := s.msgs.Put(*m)
	var mark uint32
	if stale {
		mark = 1
	}
	s.schedule(t, evDeliver, m.To, i, mark)
}

// --- the event loop ---

func (s *sim) dispatch(e timedEvent) {
	if s.pausing && s.keep(e) {
		return // the node is paused: its events wait for the resume
	}
	switch e.kind {
	case evDeliver:
		// The message is read in its slot, before the step that may Put
		// others (and move the slab); the slot is freed after. (A paused
		// receiver kept the event above.) The delivery is written out
		// here, not called: every message of a run comes this way.
		m := s.msgs.At(e.arg)
		if !s.nodes[m.To].Up() {
			if s.tr != nil {
				s.tr.Add(&record.TraceRec{T: s.now, Local: s.clock[m.To].Local(s.now), Kind: record.TraceDrop, Sub: record.DropDown, Node: m.To, Msg: *m})
			}
		} else {
			if e.gen == 1 {
				s.staleDelivered++
			}
			s.delivered++
			if s.tr != nil {
				s.tr.AddMsg(s.now, s.clock[m.To].Local(s.now), record.TraceDeliver, 0, m.To, m)
			}
			s.step(m.To, &algorithms.Input{Kind: algorithms.Recv, Msg: *m})
		}
		s.msgs.Free(e.arg)
	case evTimer:
		ref := s.trefs.At(e.arg)
		if ref.gen != e.gen {
			return // replaced or cancelled since
		}
		n := ref.node
		nd := &s.nodes[n]
		if !nd.Up() {
			return
		}
		key := nd.Timers.Take(ref.entry)
		s.freeTimer(e.arg)
		if s.tr != nil {
			s.tr.AddState(s.now, s.clock[n].Local(s.now), record.TraceFire, key.Kind, n, key.Resource, 0, 0, 0, 0)
		}
		s.step(n, &algorithms.Input{Kind: algorithms.Fire, Timer: key})
	case evFunc:
		f := *s.funcs.At(e.arg)
		*s.funcs.At(e.arg) = nil // let the garbage collector have the closure
		s.funcs.Free(e.arg)
		f()
	case evInput:
		in := *s.inputs.At(e.arg)
		s.inputs.Free(e.arg)
		nd := &s.nodes[e.node]
		if !nd.Up() || nd.Life != e.gen {
			return // the node crashed since the client asked
		}
		s.step(e.node, &algorithms.Input{Kind: in.kind, Resource: in.res})
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
	case evSlew:
		if e.gen == s.nodes[e.node].pause.slewGen {
			s.slew(e.node)
		}
	case evPause:
		s.faultPause(e.node)
	case evResume:
		s.resume(e.node, e.gen)
	case evJump:
		s.faultJump(e.node)
	case evQuiet:
		s.beQuiet()
	}
}

// beQuiet starts the settle stretch (Spec.Settle): from now on no
// fault episode starts (faultCrash, startPartition, faultPause and
// faultJump look at s.quiet; the ones under way end as drawn), and the
// network neither loses, duplicates, reorders, stalls nor holds back a
// message sent from now on. Its jitter stays: that is not a fault.
// Free-running clocks (Clocks.Free) stop drifting where they are: a
// campaign cuts their rates so that they stay within the skew an
// algorithm assumes over Duration (faults.ClockAllowance), not over the
// settle stretch too. Slewed clocks go on as before, within Skew.
func (s *sim) beQuiet() {
	s.quiet = true
	if s.drv != nil {
		s.drv.Settle()
	}
	s.net.Loss, s.net.Dup, s.net.Reorder, s.net.Late = 0, 0, 0, 0
	s.spec.Net.Stale = 0
	if s.spec.Clocks.Free {
		for i, c := range s.clock {
			if c.RatePPB != 0 {
				s.setClock(algorithms.NodeID(i), c.Stopped(s.now))
			}
		}
	}
}

// deliver delivers m now, as its arrival would (a scenario's deliver):
// a paused receiver keeps it for its resume.
func (s *sim) deliver(m *algorithms.Message) {
	s.dispatch(timedEvent{s.now, simEvent{arg: s.msgs.Put(*m), kind: evDeliver, node: m.To}})
}

// scheduleFaults draws the first crash of every node and the first
// partition.
func (s *sim) scheduleFaults() {
	f := &s.spec.Faults
	if f.CrashRate > 0 {
		for i := range s.nodes {
			s.schedule(s.faults.Gap(f.CrashRate), evCrash, algorithms.NodeID(i), 0, 0)
		}
	}
	if f.Partitions > 0 && len(s.nodes) > 1 {
		s.schedule(s.faults.Gap(f.Partitions), evPartition, 0, 0, 0)
	}
}

func (s *sim) faultCrash(n algorithms.NodeID) {
	if s.quiet {
		return
	}
	f := &s.spec.Faults
	if !s.nodes[n].Up() {
		s.schedule(s.now+s.faults.Gap(f.CrashRate), evCrash, n, 0, 0)
		return
	}
	s.Crash(n)
	back := s.now + s.faults.Length(int64(f.Downtime))
	s.schedule(back, evRestart, n, 0, 0)
	s.schedule(back+s.faults.Gap(f.CrashRate), evCrash, n, 0, 0)
}

func (s *sim) startPartition() {
	if s.quiet {
		return
	}
	n := len(s.nodes)
	s.faults.Split(s.side)
	s.partActive = true
	var mask int64
	for i := 0; i < n && i < 64; i++ {
		if s.side[i] == 0 {
			mask |= 1 << i
		}
	}
	s.trace(&record.TraceRec{T: s.now, Local: algorithms.Local(s.now), Kind: record.TracePartition, Node: algorithms.NoNode, X: mask})
	s.rec.Partition(s.now)
	s.schedule(s.now+s.faults.Length(int64(s.spec.Faults.PartitionLen)), evHeal, 0, 0, 0)
}

func (s *sim) heal() {
	s.partActive = false
	s.trace(&record.TraceRec{T: s.now, Local: algorithms.Local(s.now), Kind: record.TraceHeal, Node: algorithms.NoNode})
	if s.spec.Faults.Partitions > 0 {
		s.schedule(s.now+s.faults.Gap(s.spec.Faults.Partitions), evPartition, 0, 0, 0)
	}
}

// maxInstantEvents bounds the events of one instant: past it an
// algorithm is taken to keep scheduling work for the same instant
// forever, and the run fails instead of never ending. A batch puts a few
// events per lease at time 0 (its requests and a proposer's messages to
// itself), so the bound leaves room for batches of tens of millions.
var maxInstantEvents uint = 1 << 28 // a variable for the test

// run runs events until the end of the run: Duration, Stop, an error,
// nothing left to happen, or stop closed (then it reports true).
func (s *sim) run(progress func(float64), stop <-chan struct{}) (interrupted bool) {
	end := int64(s.spec.Duration)
	if st := int64(s.spec.Settle); st > 0 {
		s.schedule(end, evQuiet, 0, 0, 0)
		end += st
	}
	s.schedule(end, evEnd, 0, 0, 0)
	var nextProgress int64
	var events, instant uint
	s.instant = s.now
	for !s.stopped {
		if events++; stop != nil && events%4096 == 0 {
			select {
			case <-stop:
				return true
			default:
			}
		}
		e, ok := s.next(math.MaxInt64)
		if !ok {
			break
		}
		if e.t != s.now {
			instant = 0
		} else if instant++; instant == maxInstantEvents {
			s.fail(runner.Livelock(uint64(instant), "events", s.now))
			break
		}
		s.now, s.instant = e.t, e.t
		// Holds that ended before this event end first, so the trace
		// and the meters see everything in true-time order.
		s.rec.Checker().Advance(e.t)
		s.dispatch(e)
		if progress != nil && s.steps >= nextProgress {
			nextProgress = s.steps + 1<<16
			progress(float64(s.now) / float64(end))
		}
	}
	if progress != nil {
		progress(1)
	}
	return false
}
