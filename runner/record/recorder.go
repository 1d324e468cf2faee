package record

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"leaselab/algorithms"
	"leaselab/runner"
	"leaselab/runner/checker"
	"leaselab/runner/restable"
)

// DiskRecordSize is the number of bytes one algorithms.Record costs on the
// simulated disk: the size of a record in classic Paxos's real log
// (runner/udp/wal.RecordSize: the fields plus a checksum), so that
// simulated and real byte counts compare. A test keeps the two equal; the
// runner does not import the algorithm packages.
const DiskRecordSize = 48

// Recorder turns what happens in a run into the Result's meters and feeds
// the lease-invariant checker. It is environment-independent: the
// simulator, the UDP environment and the etcd peer drive it the same way
// (see workload.Env). Every method takes the true time t of the
// happening; t must not decrease from call to call.
//
// The Recorder itself keeps what needs the state of every resource:
// pending requests and what became of them, hold intervals (through the
// checker), the wanted and blocked time and static deadlocks. It puts the
// inputs, events, holds and violations in the trace (Tracer), and tells
// its meters (meters.go) each happening they have a hook for.
type Recorder struct {
	spec   runner.Spec
	clocks Clocks
	// local is clocks as LocalClocks, nil if it is not one (LocalOf,
	// asked once rather than at every hold).
	local     LocalClocks
	chk       *checker.Checker
	tr        *Tracer // nil: no trace
	majority  int
	acceptors int
	// blocks: the algorithm's Granted state blocks other proposers
	// (algorithms.Algorithm.GrantBlocks); without it there is no static
	// deadlock to count.
	blocks bool

	tables
	hooks

	wantedNS, blockedNS int64
	deadlocks           int
	deadlockNS          int64
	// store is the protected store's state per resource (store.go; nil
	// until the first write).
	store map[algorithms.ResourceID]*storeRes
}

// tables are the recorder's tables that grow with the resources of a
// run. Release leaves them in tablePool for the next recorder in the
// process, emptied: reused memory is already mapped, where new tables of
// a batch cost page faults and zeroing on every run.
type tables struct {
	resIdx restable.Table
	rs     []resState
	wants  []want
	wfree  []int32
	// grants holds, with more than inlineGrants acceptors, for each
	// resource that ever saw a Granted event, one block of `acceptors`
	// entries (entry i: acceptor i's latest grant); resState.grants is the
	// block's first index. With fewer, the block is resState.inline.
	grants []grant
	// wantIdx finds a node's pending request on a resource with many of
	// them (resState.indexed), by the resource's index in rs.
	wantIdx map[wantKey]int32
	// latencies: the request meter's samples, kept here between runs.
	latencies []int64
}

type wantKey struct {
	rs   int32
	node algorithms.NodeID
}

// indexFrom is how many pending requests a resource has before they are
// indexed by node: sixty thousand proposers contending for one resource
// would otherwise cost a walk of its list on every event (quadratic),
// while the list alone is the cheapest for the usual one or few.
const indexFrom = 16

var tablePool sync.Pool // of *tables

// Release hands the recorder's tables, and its checker's, to the next
// recorder in the process. The recorder must not be used afterwards.
func (r *Recorder) Release() {
	t := &tables{}
	*t = r.tables
	t.latencies = r.requests.latencies
	r.tables = tables{}
	r.requests.latencies = nil
	t.resIdx.Reset()
	t.rs = t.rs[:0]
	t.wants = t.wants[:0]
	t.wfree = t.wfree[:0]
	t.grants = t.grants[:0]
	clear(t.wantIdx)
	t.latencies = t.latencies[:0]
	tablePool.Put(t)
	r.chk.Release()
}

// resState is the recorder's state of one resource. With up to
// inlineGrants acceptors its grant block is inline, so that the whole
// state is 128 bytes, two cache lines: a batch of many resources touches
// them in random order, and a block kept elsewhere cost a cache miss of
// its own on most events.
type resState struct {
	wants  int32 // head of the pending-request list, -1 if none
	grants int32 // grant block: -1 none; else inline, or r.grants' first entry
	nwant  int32
	nhold  int32
	last   int64 // when wanted/blocked time was last accrued
	// Static deadlock: dlSeen is the last instant the condition was
	// evaluated at (grant expiries after it are still to be looked at);
	// dlOn says an episode is open, since dlStart.
	dlSeen  int64
	dlStart int64
	// heldBallot and heldOwner are the proposal of the latest Acquired
	// event on the resource: grants for it are a lease that was used.
	heldBallot algorithms.Ballot
	heldOwner  algorithms.NodeID
	dlOn       bool
	// indexed: the pending requests are in wantIdx too (indexFrom);
	// self is the state's index in rs, their key there.
	indexed bool
	self    int32
	inline  [inlineGrants]grant
}

// inlineGrants is how many acceptors' grants resState holds itself.
const inlineGrants = 3

// want is a pending client request: node asked to acquire the resource at
// start and has lost preempts rounds to higher ballots since. next and
// prev link the resource's list (-1: none).
type want struct {
	start      int64
	preempts   int32
	next, prev int32
	node       algorithms.NodeID
}

// grant is an acceptor's grant / accepted proposal; live while end > now.
type grant struct {
	end    int64 // true time it ends; 0: none
	ballot algorithms.Ballot
	owner  algorithms.NodeID
}

// NewRecorder returns a recorder for plan p whose clocks map local
// expiries to true time. tr may be nil.
func NewRecorder(p runner.Plan, clocks Clocks, tr *Tracer) *Recorder {
	spec := p.Spec
	r := &Recorder{
		spec:      spec,
		clocks:    clocks,
		tr:        tr,
		acceptors: spec.Acceptors,
		majority:  spec.Acceptors/2 + 1,
	}
	if t, ok := tablePool.Get().(*tables); ok {
		r.tables = *t
	}
	r.addMeters()
	r.local, _ = clocks.(LocalClocks)
	r.blocks = p.Algo.GrantBlocks
	r.chk = checker.NewChecker(clocks, spec.Seed, r)
	return r
}

// Reserve makes room for about n resources (e.g. a batch of n leases), so
// that the tables do not grow, and copy, step by step.
func (r *Recorder) Reserve(n int) {
	r.rs = slices.Grow(r.rs, n)
	r.wants = slices.Grow(r.wants, n)
	r.requests.latencies = slices.Grow(r.requests.latencies, n)
	r.chk.Reserve(n)
}

// Warm loads res's state (both of its cache lines) ahead of its events
// and returns something of it (meaningless; it keeps the loads).
func (r *Recorder) Warm(res algorithms.ResourceID) uint64 {
	if i, ok := r.resIdx.Get(res); ok {
		s := &r.rs[i]
		x := uint64(s.inline[inlineGrants-1].end)
		if s.wants >= 0 {
			x += uint64(r.wants[s.wants].start) // its pending request (Acquired)
		}
		return x
	}
	return 0
}

// Checker is the recorder's lease-invariant checker.
func (r *Recorder) Checker() *checker.Checker { return r.chk }

// Tracer is the recorder's tracer (nil if none).
func (r *Recorder) Tracer() *Tracer { return r.tr }

func (r *Recorder) res(id algorithms.ResourceID) *resState {
	if i, ok := r.resIdx.Get(id); ok {
		return &r.rs[i]
	}
	r.resIdx.Put(id, int32(len(r.rs)))
	r.rs = append(r.rs, resState{wants: -1, grants: -1, self: int32(len(r.rs))})
	return &r.rs[len(r.rs)-1]
}

// accrue adds the time since s.last to the wanted and blocked totals and
// brings the static-deadlock state up to t; callers change s after it and
// call r.settleDeadlock(s, t) after the change.
func (r *Recorder) accrue(s *resState, t int64) {
	r.advanceDeadlock(s, t)
	if s.nwant > 0 && t > s.last {
		r.wantedNS += t - s.last
		if s.nhold == 0 {
			r.blockedNS += t - s.last
		}
	}
	s.last = t
}

// Request records that a client handed input in to node n at t (the
// environment accepted it). An Acquire opens a pending request on the
// resource; a second Acquire while one is pending is not a new request.
func (r *Recorder) Request(t int64, n algorithms.NodeID, local algorithms.Local, in algorithms.Input) {
	r.chk.Advance(t)
	if r.tr != nil {
		r.tr.AddState(t, local, TraceInput, uint8(in.Kind), n, in.Resource, 0, 0, 0, 0)
	}
	if in.Kind != algorithms.Acquire {
		return
	}
	s := r.res(in.Resource)
	if r.findWant(s, n) >= 0 {
		return
	}
	for _, h := range r.onRequest {
		h.requested(t, n)
	}
	r.accrue(s, t)
	var i int32
	if k := len(r.wfree); k > 0 {
		i = r.wfree[k-1]
		r.wfree = r.wfree[:k-1]
	} else {
		r.wants = append(r.wants, want{})
		i = int32(len(r.wants) - 1)
	}
	r.wants[i] = want{start: t, node: n, next: s.wants, prev: -1}
	if s.wants >= 0 {
		r.wants[s.wants].prev = i
	}
	s.wants = i
	s.nwant++
	switch {
	case s.indexed:
		r.wantIdx[wantKey{s.self, n}] = i
	case s.nwant >= indexFrom:
		if r.wantIdx == nil {
			r.wantIdx = map[wantKey]int32{}
		}
		for j := s.wants; j >= 0; j = r.wants[j].next {
			r.wantIdx[wantKey{s.self, r.wants[j].node}] = j
		}
		s.indexed = true
	}
	r.settleDeadlock(s, t, true)
}

// findWant is the index of n's pending request on s (-1: none).
func (r *Recorder) findWant(s *resState, n algorithms.NodeID) int32 {
	if s.indexed {
		if i, ok := r.wantIdx[wantKey{s.self, n}]; ok {
			return i
		}
		return -1
	}
	for i := s.wants; i >= 0; i = r.wants[i].next {
		if r.wants[i].node == n {
			return i
		}
	}
	return -1
}

// takeWant removes n's pending request on s and returns it.
func (r *Recorder) takeWant(s *resState, n algorithms.NodeID, t int64) (want, bool) {
	i := r.findWant(s, n)
	if i < 0 {
		return want{}, false
	}
	w := r.wants[i]
	r.accrue(s, t)
	if w.prev >= 0 {
		r.wants[w.prev].next = w.next
	} else {
		s.wants = w.next
	}
	if w.next >= 0 {
		r.wants[w.next].prev = w.prev
	}
	if s.indexed {
		delete(r.wantIdx, wantKey{s.self, n})
	}
	s.nwant--
	r.wfree = append(r.wfree, i)
	r.settleDeadlock(s, t, true)
	return w, true
}

// resolveWant tells the meters that n's pending request w ended at t.
func (r *Recorder) resolveWant(t int64, n algorithms.NodeID, w want, o Outcome) {
	for _, h := range r.onResolve {
		h.resolved(t, n, w.start, int(w.preempts), o)
	}
}

// Outcome says what an event did to a pending request.
type Outcome int8

const (
	NoOutcome Outcome = 0
	// OutcomeAcquired: the event was the acquisition a pending request
	// waited for.
	OutcomeAcquired Outcome = 1
	// OutcomeFailed: the event ended a pending request without a lease.
	OutcomeFailed Outcome = -1
)

// Event records an event node n emitted at true time t (its clock read
// local) and says whether it resolved a pending request.
func (r *Recorder) Event(t int64, n algorithms.NodeID, local algorithms.Local, ev algorithms.Event) Outcome {
	return r.EventRef(t, n, local, &ev)
}

// EventRef is Event with the event passed by reference (it reads *ev and
// keeps nothing of it): the simulator's path, where a 56-byte Event
// copied at every layer cost a store-forwarding stall at each copy.
func (r *Recorder) EventRef(t int64, n algorithms.NodeID, local algorithms.Local, ev *algorithms.Event) Outcome {
	r.chk.Advance(t)
	if r.tr != nil {
		r.tr.AddState(t, local, TraceEvent, uint8(ev.Kind), n, ev.Resource, ev.Owner, ev.Ballot, int64(ev.Until), 0)
	}
	for _, h := range r.onEvent {
		h.event(t, n, ev)
	}
	switch ev.Kind {
	case algorithms.Acquired:
		s := r.res(ev.Resource)
		s.heldOwner, s.heldBallot = n, ev.Ballot
		r.chk.Acquired(t, n, ev.Resource, ev.Ballot, ev.Until)
		s = r.res(ev.Resource)
		w, ok := r.takeWant(s, n, t)
		if !ok {
			return NoOutcome // an extension
		}
		r.resolveWant(t, n, w, OutcomeAcquired)
		return OutcomeAcquired
	case algorithms.Lost:
		r.chk.Lost(t, n, ev.Resource)
	case algorithms.Failed:
		s := r.res(ev.Resource)
		if w, ok := r.takeWant(s, n, t); ok {
			r.resolveWant(t, n, w, OutcomeFailed)
			return OutcomeFailed
		}
	case algorithms.Preempted:
		if i, ok := r.resIdx.Get(ev.Resource); ok {
			if j := r.findWant(&r.rs[i], n); j >= 0 {
				r.wants[j].preempts++
			}
		}
	case algorithms.Granted:
		r.granted(t, n, ev)
	case algorithms.Cleared:
		if i, ok := r.resIdx.Get(ev.Resource); ok {
			r.dropGrant(&r.rs[i], n, t, false)
		}
	}
	return NoOutcome
}

// endRequest takes node n's pending request on res off the wanted list at
// t; Withdraw and Abandon differ only in what they count afterwards.
func (r *Recorder) endRequest(t int64, n algorithms.NodeID, res algorithms.ResourceID) (want, bool) {
	r.chk.Advance(t)
	i, ok := r.resIdx.Get(res)
	if !ok {
		return want{}, false
	}
	return r.takeWant(&r.rs[i], n, t)
}

// Withdraw ends node n's pending request on res at t because its client
// gave it up (Spec.Giveup): neither acquired nor failed, it only stops
// counting as wanted. It reports whether a request was pending.
func (r *Recorder) Withdraw(t int64, n algorithms.NodeID, res algorithms.ResourceID) bool {
	_, ok := r.endRequest(t, n, res)
	return ok
}

// Abandon ends node n's pending request on res without a lease (the client
// gave up waiting, or the run ended); it counts as failed.
func (r *Recorder) Abandon(t int64, n algorithms.NodeID, res algorithms.ResourceID) bool {
	w, ok := r.endRequest(t, n, res)
	if ok {
		r.resolveWant(t, n, w, OutcomeFailed)
	}
	return ok
}

// A static deadlock of a resource is a stretch of true time in which some
// node wants the resource (an Acquire pending), nobody holds it, and so many
// acceptors keep live blocking grants (Granted events of an algorithm whose
// Algorithm.GrantBlocks is set, until Cleared or their Until) that fewer
// than a majority of acceptors are open: nobody, whatever its ballot, can
// win a round until a grant goes away. Two shapes reach it: a split (the
// naive vote's, or PaxosLease's split accept: two proposals accepted by one
// acceptor each, the third empty), and a proposal that won a majority whose
// owner never learned it (its answers were lost) and so cannot use it
// either.
//
// Grants of the proposal its owner last held (the latest Acquired event)
// are left out when they form a majority: that is a lease in use or in its
// tail (the holder's drift margin, a release still on its way, a crashed
// holder), and waiting for it is the price of every lease.
//
// An episode counts when nothing but a timer ended it: a blocking grant
// reached its Until, or, before that, the last request went away (the
// proposers gave up), an acceptor crashed, or the run ended. An episode
// ended by a message is not counted: by a hold (a proposal's accepts
// reached a majority and its owner learned it: an ordinary acquisition, or
// a race between proposals that one of them won), or by a Cleared event
// before the grant's Until (a release, or naive-undo's giving back).

// deadlocked reports whether the static-deadlock condition holds for s at
// t, with grants live while end > t.
func (r *Recorder) deadlocked(s *resState, t int64) bool {
	if !r.blocks || s.grants < 0 || s.nwant == 0 || s.nhold > 0 {
		return false
	}
	block := r.block(s)
	live := 0
	for i := range block {
		if block[i].end > t {
			live++
		}
	}
	if r.acceptors-live >= r.majority {
		return false
	}
	// The last held proposal's grants at a majority: a lease, not a block.
	c := 0
	for i := range block {
		if g := &block[i]; g.end > t && g.owner == s.heldOwner && g.ballot == s.heldBallot {
			c++
		}
	}
	return c < r.majority
}

// advanceDeadlock evaluates the condition at every grant expiry of s in
// (s.dlSeen, t], in order: an expiry can end an episode and, with five or
// more acceptors, start one (a winning proposal's grants lapse unevenly).
func (r *Recorder) advanceDeadlock(s *resState, t int64) {
	if !r.blocks || s.grants < 0 || t <= s.dlSeen {
		return // (s.dlSeen, t] is empty: nothing to look at, nothing to move
	}
	block := r.block(s)
	for {
		next := int64(math.MaxInt64)
		for i := range block {
			if end := block[i].end; end > s.dlSeen && end <= t && end < next {
				next = end
			}
		}
		if next == math.MaxInt64 {
			break
		}
		r.settleDeadlock(s, next, true)
	}
	s.dlSeen = t
}

// settleDeadlock opens or closes s's episode according to the condition
// at t, after a change of s; an episode it closes counts if byTimer (the
// change was an expiry, the proposers giving up, or a crash).
func (r *Recorder) settleDeadlock(s *resState, t int64, byTimer bool) {
	if !r.blocks {
		return
	}
	if t > s.dlSeen {
		s.dlSeen = t
	}
	on := r.deadlocked(s, t)
	switch {
	case on && !s.dlOn:
		s.dlOn, s.dlStart = true, t
	case !on && s.dlOn:
		s.dlOn = false
		if !byTimer {
			return // ended by a message: not a static deadlock
		}
		r.deadlocks++
		r.deadlockNS += t - s.dlStart
	}
}

// granted records acceptor a's grant.
func (r *Recorder) granted(t int64, a algorithms.NodeID, ev *algorithms.Event) {
	if int(a) >= r.acceptors {
		return // not an acceptor: not part of the deadlock condition
	}
	s := r.res(ev.Resource)
	if s.grants < 0 {
		s.grants = 0
		if r.acceptors > inlineGrants {
			s.grants = int32(len(r.grants))
			for i := 0; i < r.acceptors; i++ {
				r.grants = append(r.grants, grant{})
			}
		}
		s.dlSeen = t
	}
	r.advanceDeadlock(s, t)
	g := &r.block(s)[a]
	g.owner = ev.Owner
	g.ballot = ev.Ballot
	g.end = r.clocks.TrueAt(a, ev.Until)
	r.settleDeadlock(s, t, false)
}

// block is s's grant block (s.grants >= 0): entry i is acceptor i's
// latest grant.
func (r *Recorder) block(s *resState) []grant {
	if r.acceptors <= inlineGrants {
		return s.inline[:r.acceptors]
	}
	return r.grants[s.grants : s.grants+int32(r.acceptors)]
}

// dropGrant forgets acceptor a's grant on s at t: a Cleared event before
// the grant's Until (a message ended it; byTimer false), or a crash.
func (r *Recorder) dropGrant(s *resState, a algorithms.NodeID, t int64, byTimer bool) {
	if s.grants >= 0 && int(a) < r.acceptors {
		r.advanceDeadlock(s, t)
		r.block(s)[a] = grant{}
		r.settleDeadlock(s, t, byTimer)
	}
}

// StaticDeadlocks reports the static-deadlock episodes up to t (the run's
// Finish counts the same): counted episodes, an episode still open counted
// as one ending at t, and their total length in ns.
func (r *Recorder) StaticDeadlocks(t int64) (episodes int, ns int64) {
	episodes, ns = r.deadlocks, r.deadlockNS
	for i := range r.rs {
		s := &r.rs[i]
		// Only expiries can have changed s since its last change: look at
		// them on a copy, so that asking changes nothing.
		c := *s
		saveD, saveNS := r.deadlocks, r.deadlockNS
		r.advanceDeadlock(&c, t)
		episodes += r.deadlocks - saveD
		ns += r.deadlockNS - saveNS
		r.deadlocks, r.deadlockNS = saveD, saveNS
		if c.dlOn {
			episodes++
			ns += t - c.dlStart
		}
	}
	return episodes, ns
}

// Sent records a message handed to the network. Messages a node sends to
// itself never cross the network and are not counted.
func (r *Recorder) Sent(t int64, m *algorithms.Message) {
	for _, h := range r.onSend {
		h.sent(t, m)
	}
}

// DiskWrite records bytes written to stable storage (synced or not).
func (r *Recorder) DiskWrite(t int64, bytes int64) {
	for _, h := range r.onDisk {
		h.diskWrite(t, bytes)
	}
}

// Fsync records one completed fsync that took latency ns; bytes, if not
// already counted by DiskWrite, are added to the bytes written.
func (r *Recorder) Fsync(t int64, latency int64, bytes int64) {
	for _, h := range r.onDisk {
		h.fsync(t, latency, bytes)
	}
}

// Crash records that node n crashed at t: its hold intervals end, its
// pending requests fail (they were not acquired) and, as an acceptor, its
// grants are gone. It returns how many pending requests failed.
func (r *Recorder) Crash(t int64, n algorithms.NodeID) int {
	r.chk.Advance(t)
	for _, h := range r.onFault {
		h.crashed(t, n)
	}
	r.chk.Crash(t, n)
	aborted := 0
	for i := range r.rs {
		s := &r.rs[i]
		if s.nwant > 0 {
			if w, ok := r.takeWant(s, n, t); ok {
				r.resolveWant(t, n, w, OutcomeFailed)
				aborted++
			}
		}
		if s.grants >= 0 {
			r.dropGrant(s, n, t, true)
		}
	}
	return aborted
}

// Partition records that a partition began at t.
func (r *Recorder) Partition(t int64) {
	for _, h := range r.onFault {
		h.partitioned(t)
	}
}

// MarkFailover records that the holder n was crashed on purpose at t (the
// failover workload); the gap runs to the next hold of another node.
func (r *Recorder) MarkFailover(t int64, n algorithms.NodeID) {
	for _, h := range r.onHold {
		h.failover(t, n)
	}
}

// HoldStart implements HoldObserver.
func (r *Recorder) HoldStart(t int64, res algorithms.ResourceID, owner algorithms.NodeID, ballot algorithms.Ballot, prev algorithms.NodeID, untilTrue int64) {
	for _, h := range r.onHold {
		h.holdStarted(t, res, owner, prev)
	}
	s := r.res(res)
	r.accrue(s, t)
	s.nhold++
	r.settleDeadlock(s, t, false)
	for _, h := range r.onBelief {
		h.holdChanged(t, res, owner, true, s.nhold)
	}
	if r.tr != nil {
		r.tr.AddState(t, r.localOf(owner, t), TraceHoldStart, 0, owner, res, owner, ballot, untilTrue, 0)
	}
}

// HoldEnd implements HoldObserver.
func (r *Recorder) HoldEnd(t int64, res algorithms.ResourceID, owner algorithms.NodeID, ballot algorithms.Ballot, start int64) {
	s := r.res(res)
	r.accrue(s, t)
	s.nhold--
	r.settleDeadlock(s, t, false)
	for _, h := range r.onBelief {
		h.holdChanged(t, res, owner, false, s.nhold)
	}
	if r.tr != nil {
		r.tr.AddState(t, r.localOf(owner, t), TraceHoldEnd, 0, owner, res, owner, ballot, start, 0)
	}
}

// ViolationBegins implements HoldObserver.
func (r *Recorder) ViolationBegins(t int64, v runner.Violation) {
	if r.tr != nil {
		r.tr.Add(&TraceRec{T: t, Kind: TraceViolation, Node: v.Owners[1], Res: v.Resource, Owner: v.Owners[0], X: int64(v.Owners[1])})
	}
}

// LocalOf reads node n's clock at true time t when the clocks can say
// (LocalClocks); otherwise it reports true time.
func LocalOf(c Clocks, n algorithms.NodeID, t int64) algorithms.Local {
	if lc, ok := c.(LocalClocks); ok {
		return lc.LocalAt(n, t)
	}
	return algorithms.Local(t)
}

// localOf is LocalOf(r.clocks, n, t).
func (r *Recorder) localOf(n algorithms.NodeID, t int64) algorithms.Local {
	if r.local != nil {
		return r.local.LocalAt(n, t)
	}
	return algorithms.Local(t)
}

// LocalClocks is a Clocks that can also read a node's clock at a true time.
type LocalClocks interface {
	Clocks
	LocalAt(n algorithms.NodeID, t int64) algorithms.Local
}

// Grant returns the owner of acceptor a's unexpired grant on res at t, if
// it has one (scenario expectations).
func (r *Recorder) Grant(t int64, a algorithms.NodeID, res algorithms.ResourceID) (algorithms.NodeID, bool) {
	i, ok := r.resIdx.Get(res)
	if !ok {
		return algorithms.NoNode, false
	}
	if s := &r.rs[i]; s.grants >= 0 && int(a) < r.acceptors {
		if g := r.block(s)[a]; g.end > t {
			return g.owner, true
		}
	}
	return algorithms.NoNode, false
}

// Failed is the number of requests failed so far.
func (r *Recorder) Failed() int { return r.requests.failed }

// Acquired is the number of requests acquired so far.
func (r *Recorder) Acquired() int { return r.requests.acquired }

// Unanswered is the number of requests pending now: asked for, neither
// acquired, failed nor given up (a scenario's "expect unanswered").
func (r *Recorder) Unanswered() int {
	n := 0
	for i := range r.rs {
		n += int(r.rs[i].nwant)
	}
	return n
}

// Finish ends the run at true time end: open holds end, unresolved
// requests count as failed when failUnresolved (batch, single), and the
// meters are computed. The caller fills in Env, TraceHash and WallMS.
func (r *Recorder) Finish(end int64, failUnresolved bool) runner.Result {
	r.chk.Finish(end)
	var unanswered []runner.PendingAsk
	settled := r.spec.Settle > 0
	for i := range r.rs {
		s := &r.rs[i]
		r.accrue(s, end)
		if settled && s.wants >= 0 {
			id, _ := r.resIdx.Key(s.self) // a search of the table: once per resource with a request left
			for j := s.wants; j >= 0; j = r.wants[j].next {
				w := &r.wants[j]
				unanswered = append(unanswered, runner.PendingAsk{Node: w.node, Resource: id, SinceMS: float64(w.start) / 1e6})
			}
		}
		if failUnresolved {
			for s.wants >= 0 {
				n := r.wants[s.wants].node
				w, _ := r.takeWant(s, n, end)
				r.resolveWant(end, n, w, OutcomeFailed)
			}
		}
		if s.dlOn {
			// Still open at the end: nobody got out of it within the run.
			s.dlOn = false
			r.deadlocks++
			r.deadlockNS += end - s.dlStart
		}
	}
	spec := r.spec
	res := runner.Result{
		Algo:            spec.Algo,
		Workload:        spec.Workload,
		Env:             spec.Env,
		Seed:            spec.Seed,
		StaticDeadlocks: r.deadlocks,
		SimulatedNS:     end,
		Params:          spec,
	}
	if r.wantedNS > 0 {
		res.BlockedFraction = float64(r.blockedNS) / float64(r.wantedNS)
		res.StaticDeadlockFraction = float64(r.deadlockNS) / float64(r.wantedNS)
	}
	res.StaticDeadlockMS = float64(r.deadlockNS) / 1e6
	slices.SortFunc(unanswered, func(a, b runner.PendingAsk) int {
		return cmp.Or(cmp.Compare(a.SinceMS, b.SinceMS), cmp.Compare(a.Node, b.Node), cmp.Compare(a.Resource, b.Resource))
	})
	res.Unanswered = len(unanswered)
	res.UnansweredList = unanswered[:min(len(unanswered), maxUnanswered)]
	if res.UnansweredList == nil {
		res.UnansweredList = []runner.PendingAsk{} // JSON: [], like every list
	}
	res.DrainMS = runner.None
	for _, m := range r.meters {
		m.fill(&res, end)
	}
	res.ViolationList, res.Violations = r.chk.Violations()
	if res.ViolationList == nil {
		res.ViolationList = []runner.Violation{} // JSON: [], like every list
	}
	return res
}

// maxUnanswered bounds Result.UnansweredList.
const maxUnanswered = 20

// PercentilesMS summarises ns samples in ms. Percentiles are nearest-rank
// (see NearestRank); every percentile leaselab prints is computed so.
func PercentilesMS(ns []int64) runner.Percentiles {
	if len(ns) == 0 {
		return runner.Percentiles{}
	}
	s := slices.Clone(ns)
	slices.Sort(s)
	var sum float64
	for _, v := range s {
		sum += float64(v)
	}
	return runner.Percentiles{
		P50:  float64(NearestRank(s, 0.50)) / 1e6,
		P90:  float64(NearestRank(s, 0.90)) / 1e6,
		P99:  float64(NearestRank(s, 0.99)) / 1e6,
		P999: float64(NearestRank(s, 0.999)) / 1e6,
		Max:  float64(s[len(s)-1]) / 1e6,
		Mean: sum / float64(len(s)) / 1e6,
		N:    len(s),
	}
}

// NearestRank is the p-quantile (0 < p <= 1) of sorted samples by the
// nearest-rank definition: the smallest sample such that at least a
// fraction p of the samples are at or below it, sorted[ceil(p*n)-1]. It
// is always one of the samples (no interpolation). sorted must be
// non-empty and in ascending order.
func NearestRank[T cmp.Ordered](sorted []T, p float64) T {
	k := int(math.Ceil(p*float64(len(sorted)))) - 1
	if k < 0 {
		k = 0
	}
	if k >= len(sorted) {
		k = len(sorted) - 1
	}
	return sorted[k]
}
